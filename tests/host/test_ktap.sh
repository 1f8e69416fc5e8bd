#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test harness's own promises: a skip says "# SKIP" and why (one
# without a reason fails) and is counted apart, never as a pass, even a
# skip inside a case that returned 0; a cleanup that fails fails the
# test; a plan that does not match the results fails, in lib.sh, in
# run_all.sh and in test_nf.py (whose plan comes before its results);
# and the runners read "N passed, N failed, N skipped" lines.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/ktap.sh"
. "$top/tests/totals.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# guest_test BODY: run BODY as a guest test (tests/guest/lib.sh) would.
guest_test() {
	printf '. %q\n%s\n' "$top/tests/guest/lib.sh" "$1" >"$work/t.sh"
	NETSLICE_KO=/nonexistent bash "$work/t.sh" >"$work/out" 2>&1
}

ktap_plan 15

guest_test 'tst_plan 2
tst_check one true
why() { tst_skip_why="the kernel lacks it"; return "$ksft_skip"; }
tst_check "with a reason" why
tst_done'
rc=$?
grep -qx 'ok 2 with a reason # SKIP the kernel lacks it' "$work/out" &&
	grep -qx '# 1 passed, 0 failed, 1 skipped' "$work/out" && [ "$rc" -eq 0 ]
result "a skipped case is marked SKIP with its reason, and is counted apart (exit $rc)" $?

guest_test 'tst_plan 3
quiet() { return "$ksft_skip"; }
tst_check "no reason given" quiet
tst_skip "top-level, no reason" ""
empty() { tst_skip "a part" ""; }
tst_check "tst_skip in a case, no reason" empty
tst_done'
rc=$?
grep -qx 'not ok 1 no reason given # a skip needs a reason: status 4 (ksft_skip) with no tst_skip_why' "$work/out" &&
	grep -qx 'not ok 2 top-level, no reason # a skip needs a reason: .*' "$work/out" &&
	grep -qx 'not ok 3 tst_skip in a case, no reason # a skip needs a reason: .*' "$work/out" &&
	grep -qx '# 0 passed, 3 failed, 0 skipped' "$work/out" && [ "$rc" -ne 0 ]
result "a skip without a reason (status 4, tst_skip \"\") fails (exit $rc)" $?

guest_test 'tst_plan 5
part() { tst_skip "IPv6" "no IPv6 here"; return 0; }
tst_check "skips a part, returns 0" part
sub() { (tst_skip "IPv4" "in a subshell"); return 0; }
tst_check "skips in a subshell, returns 0" sub
nested() { printf "KTAP version 1\n1..2\nok 1 a\nok 2 b # SKIP no b here\n" | tst_indent; }
tst_check "a nested program skips, returns 0" nested
fails() { tst_skip "IPv6" "no IPv6 here"; return 1; }
tst_check "skips a part, then fails" fails
tst_check "passes" true
tst_done'
rc=$?
grep -qx 'ok 1 skips a part, returns 0 # SKIP IPv6: no IPv6 here' "$work/out" &&
	grep -qx '    ok 2 b # SKIP no b here' "$work/out" &&
	grep -qx 'ok 2 skips in a subshell, returns 0 # SKIP IPv4: in a subshell' "$work/out" &&
	grep -qx 'ok 3 a nested program skips, returns 0 # SKIP nested: b: no b here' "$work/out" &&
	grep -qx 'not ok 4 skips a part, then fails' "$work/out" &&
	grep -qx 'ok 5 passes' "$work/out" &&
	grep -qx '# 1 passed, 1 failed, 3 skipped' "$work/out" && [ "$rc" -ne 0 ]
result "a case that skipped anything and returned 0 is a skip, not a pass; one that failed fails (exit $rc)" $?

guest_test 'tst_plan 3
tst_check one true
tst_check two true
tst_done'
rc=$?
grep -qx '# planned 3 results, printed 2' "$work/out" &&
	grep -qx '# 2 passed, 1 failed, 0 skipped' "$work/out" && [ "$rc" -ne 0 ]
result "a guest test that prints fewer results than planned fails (exit $rc)" $?

# One case that passes, one that fails: for the tiers' case filters.
kept_and_left_out='tst_plan 2
tst_check "kept: runs" true
tst_check "left out: would fail" false
tst_done'
guest_test "$kept_and_left_out"
rc=$?
NETSLICE_SKIP_CASES='^left out' guest_test "$kept_and_left_out"
rc2=$?
grep -qx 'ok 1 kept: runs' "$work/out" &&
	grep -qx 'ok 2 left out: would fail # SKIP left out of this tier (NETSLICE_SKIP_CASES)' "$work/out" &&
	grep -qx '# 1 passed, 0 failed, 1 skipped' "$work/out" && [ "$rc" -ne 0 ] && [ "$rc2" -eq 0 ]
result "NETSLICE_SKIP_CASES skips the cases it names, saying so (exit $rc without, $rc2 with)" $?

NETSLICE_ONLY_CASES='^kept' guest_test "$kept_and_left_out"
rc=$?
grep -qx 'ok 1 kept: runs' "$work/out" &&
	grep -qx 'ok 2 left out: would fail # SKIP left out of this tier (not in NETSLICE_ONLY_CASES)' "$work/out" &&
	grep -qx '# 1 passed, 0 failed, 1 skipped' "$work/out" && [ "$rc" -eq 0 ]
result "NETSLICE_ONLY_CASES skips the cases it does not name, saying so (exit $rc)" $?

# The module stays loaded: rmmod fails, and waiting does not help.
guest_test 'tst_plan 1
tst_module_loaded() { true; }
rmmod() { echo "rmmod: ERROR: Module netslice is in use" >&2; return 1; }
tst_busywait() { return 1; }
tst_defer tst_unload
tst_check one true
tst_done'
rc=$?
grep -qx '# cleanup: rmmod netslice failed: rmmod: ERROR: Module netslice is in use' "$work/out" &&
	grep -qx '# 1 passed, 1 failed, 0 skipped' "$work/out" && [ "$rc" -ne 0 ]
result "a cleanup that fails (rmmod) is counted as a failure and fails the test (exit $rc)" $?

# run_all.sh as the guest runs it, on two test files: one whole, one
# that prints fewer results than its plan and counts no failure itself.
mkdir -p "$work/rt/guest"
cp "$top/tests/guest/run_all.sh" "$work/rt/guest/"
cp "$top/tests/totals.sh" "$work/rt/"
printf 'echo "KTAP version 1"; echo "1..2"; echo "ok 1 a"; echo "ok 2 b"; echo "# 2 passed, 0 failed, 0 skipped"\n' \
	>"$work/rt/guest/test_whole.sh"
printf 'echo "KTAP version 1"; echo "1..3"; echo "ok 1 a"; echo "ok 2 b"; echo "# 2 passed, 0 failed, 0 skipped"\n' \
	>"$work/rt/guest/test_short.sh"
bash "$work/rt/guest/run_all.sh" test_whole.sh test_short.sh >"$work/out" 2>&1
rc=$?
grep -qx '# test_short.sh: its plan does not match its results' "$work/out" &&
	! grep -q '^# test_whole.sh: ' "$work/out" &&
	grep -qx "# guest $(uname -r): 4 passed, 1 failed, 0 skipped" "$work/out" && [ "$rc" -ne 0 ]
result "run_all.sh fails a test file that prints fewer results than its plan (exit $rc)" $?

# test_nf.py's harness, on made-up cases: its plan comes first, and a
# case that reports nothing, raises or never runs cannot pass.
cat >"$work/nf_cases.py" <<EOF
import sys
sys.path.insert(0, "$top/tests/host")
import test_nf as t
def reports(): t.check(True, "a check")
def returns_early(): return
def raises(): raise ValueError("a bug")
def skips(): t.check(True, "a check"); t.skip("no crypto here")
def dies(): sys.exit(0)
cases = [reports, returns_early, raises, skips]
sys.exit(t.main([], cases + [dies, reports] if sys.argv[1:] == ["die"] else cases))
EOF
nf_cases() { TMPDIR=$work PYTHONDONTWRITEBYTECODE=1 python3 "$work/nf_cases.py" "$@" >"$work/out" 2>&1; }
nf_cases
rc=$?
first=$(grep -m1 -E '^(1\.\.[0-9]+|(not )?ok [0-9]+)' "$work/out")
[ "$first" = 1..4 ] && grep -qx 'ok 1 reports' "$work/out" &&
	grep -qx 'not ok 2 returns_early # reported no result' "$work/out" &&
	grep -qx 'not ok 3 raises # raised' "$work/out" &&
	grep -qx 'ok 4 skips # SKIP no crypto here' "$work/out" &&
	grep -qx '# 2 passed, 2 failed, 1 skipped' "$work/out" && [ "$rc" -ne 0 ]
result "test_nf.py prints its plan ($first) before any result; a case that reports nothing fails (exit $rc)" $?

nf_cases die
msg=$(tst_plan_check "$work/out")
[ "$msg" = "# planned 6 results, printed 4" ]
result "test_nf.py stopped by a case: its plan check fails: $msg" $?

printf 'KTAP version 1\n1..2\nok 1 a\n    1..1\n    ok 1 nested\n# 1 passed, 0 failed\n' >"$work/k"
msg=$(tst_plan_check "$work/k")
[ "$msg" = "# planned 2 results, printed 1" ]
result "the runners' plan check counts top-level results only: $msg" $?

printf 'KTAP version 1\n1..2\nok 1 a\nok 2 b # SKIP why\n' >"$work/k"
tst_plan_check "$work/k"
result "a plan met, a skip among the results" $?

tst_totals_read "# guest 6.1.0-28-amd64: 12 passed, 3 failed, 2 skipped" &&
	[ "$totals_p/$totals_f/$totals_s" = 12/3/2 ]
result "a totals line with skips reads as 12/3/2 (got $totals_p/$totals_f/$totals_s)" $?

tst_totals_read "# kernels: 9 passed, 0 failed" && [ "$totals_p/$totals_f/$totals_s" = 9/0/0 ]
result "one without reads as no skips (got $totals_p/$totals_f/$totals_s)" $?

! tst_totals_read "# 12 passed, 3 failed, 2 skipped, 1 lost"
result "anything after the totals is no totals line" $?

ktap_done
