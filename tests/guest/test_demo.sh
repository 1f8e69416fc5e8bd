#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo as a new user meets it: it passes on a machine whose every CPU
# is busy (no wait in it or in lib.sh can be outrun by load), and when a
# step does fail it says which, what it waited for and what it saw.
. "$(dirname "$0")/lib.sh"

tst_plan 3
tst_module_loaded && rmmod netslice

# hog: one busy loop per CPU, at the demo's own priority, until cleanup.
hog() {
	local i pid
	for ((i = 0; i < $(nproc); i++)); do
		bash -c 'while :; do :; done' &
		pid=$!
		tst_defer tst_kill_job "$pid"
	done
}

demo_under_load() {
	local log rc=0
	log=$(mktemp)
	tst_defer rm -f "$log"
	hog
	"$TST_TOP/scripts/demo.sh" --guest >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] || ! grep -q "no /dev/netslice-\* left" "$log"; then
		tst_diag "the demo exited $rc; its last lines:"
		tail -n 25 "$log" | sed 's/^/# | /'
		return 1
	fi
	tst_diag "$(grep -c '^== ' "$log") steps; $(grep -c 'received unique 10000 of 10000' "$log") of 3 runs of 10000 frames intact"
	[ "$(grep -c 'received unique 10000 of 10000, duplicates 0, corrupt 0' "$log")" -eq 3 ]
}
tst_check "the demo passes with every CPU of the guest busy" demo_under_load
tst_run_cleanups

# A step that fails names itself last, after the tool's own error.
demo_names_failed_step() {
	local log rc=0
	log=$(mktemp)
	tst_defer rm -f "$log"
	NETSLICE_KO=/nonexistent/netslice.ko "$TST_TOP/scripts/demo.sh" --guest >"$log" 2>&1 || rc=$?
	tail -n 3 "$log" | sed 's/^/# | /'
	[ "$rc" -ne 0 ] && grep -q "/nonexistent/netslice.ko" "$log" &&
		tail -n 1 "$log" | grep -qx "demo: FAILED (exit $rc) in step: load the module: .*" &&
		! tst_module_loaded && [ -z "$(ip -br link show type veth)" ]
}
tst_check "a failed demo step says which step, after the error it saw; nothing is left behind" \
	demo_names_failed_step
tst_run_cleanups

# A background helper that dies before it is ready fails the wait at once
# and shows what it printed, rather than running out a deadline.
helper_dies_before_ready() {
	local out rc=0
	out=$(TST_WAIT_MIN_MS=120000 tst_start_bg "running on" nf-fwd --no-such-option) || rc=$?
	echo "$out" | sed 's/^/# | /'
	[ "$rc" -ne 0 ] && grep -q "ended first" <<<"$out" && grep -q "no-such-option" <<<"$out"
}
tst_check "a helper that exits before it is ready: the wait fails at once with its output" \
	helper_dies_before_ready
tst_run_cleanups

tst_done
