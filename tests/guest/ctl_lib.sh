# SPDX-License-Identifier: GPL-2.0
# What test_ctl.sh and test_rules.sh share: netslicectl, JSON, a topology
# with nf-fwd on every slice, and refusals that must change nothing.
# Sourced after lib.sh.

ctl() { netslicectl "$@"; }
py=/usr/bin/python3

# json EXPR: evaluate EXPR over the JSON on stdin (bound to j).
json() { $py -c "import json,sys; j=json.load(sys.stdin); print($1)"; }

# A fresh topology with the module loaded bare (slices=4) and nf-fwd on
# every slice; interfaces are attached by the test.
setup() {
	tst_topology 1 || return 1
	tst_load slices=4 rxq_size=16384 "$@" || return 1
	tst_start_fwd || return 1
}

# state: everything the control plane shows, to compare before and after.
state() {
	ctl -j link show && ctl -j slice show && ctl -j rule show
}

# expect_refusal WANT_MESSAGE COMMAND...: exit status 2, that message, and
# no change of state.
expect_refusal() {
	local want=$1 before after out rc
	shift
	before=$(state)
	out=$("$@" 2>&1)
	rc=$?
	after=$(state)
	tst_diag "$* -> $rc: $out"
	[ "$rc" -eq 2 ] || { tst_diag "exit $rc, want 2"; return 1; }
	[ "$out" = "$want" ] || { tst_diag "want: $want"; return 1; }
	[ "$before" = "$after" ] || { tst_diag "state changed"; return 1; }
}
