#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test harness's own promises: a skip says "# SKIP" and why and is
# counted apart, a plan that does not match the results fails, and the
# runners read "N passed, N failed, N skipped" lines.
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

ktap_plan 8

guest_test 'tst_plan 3
tst_check one true
quiet() { return "$ksft_skip"; }
tst_check "no reason given" quiet
why() { tst_skip_why="the kernel lacks it"; return "$ksft_skip"; }
tst_check "with a reason" why
tst_done'
rc=$?
grep -qx 'ok 2 no reason given # SKIP no reason given' "$work/out" &&
	grep -qx 'ok 3 with a reason # SKIP the kernel lacks it' "$work/out" &&
	grep -qx '# 1 passed, 0 failed, 2 skipped' "$work/out" && [ "$rc" -eq 0 ]
result "a skipped case is marked SKIP with its reason, and is counted apart (exit $rc)" $?

guest_test 'tst_plan 3
tst_check one true
tst_check two true
tst_done'
rc=$?
grep -qx '# planned 3 results, printed 2' "$work/out" &&
	grep -qx '# 2 passed, 1 failed, 0 skipped' "$work/out" && [ "$rc" -ne 0 ]
result "a guest test that prints fewer results than planned fails (exit $rc)" $?

guest_test 'tst_plan 2
tst_check "kept: runs" true
tst_check "left out: would fail" false
tst_done'
rc=$?
NETSLICE_SKIP_CASES='^left out' guest_test 'tst_plan 2
tst_check "kept: runs" true
tst_check "left out: would fail" false
tst_done'
rc2=$?
grep -qx 'ok 1 kept: runs' "$work/out" &&
	grep -qx 'ok 2 left out: would fail # SKIP left out of this tier (NETSLICE_SKIP_CASES)' "$work/out" &&
	grep -qx '# 1 passed, 0 failed, 1 skipped' "$work/out" && [ "$rc" -ne 0 ] && [ "$rc2" -eq 0 ]
result "NETSLICE_SKIP_CASES skips the cases it names, saying so (exit $rc without, $rc2 with)" $?

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
