#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Chains of slices: what a handoff to the next slice does (chain_check),
# whole and cut, its errors, loops, send rights, an NF killed mid-chain,
# ring mode and a detach; then the unload, with a clean kernel log.
#
#   nsb --veth-- nsa [slice 0 -> slice 1] nsc --veth-- nsd
#   nsa feeds slice 0 alone, nsc slice 1 alone; neither is paired
. "$(dirname "$0")/lib.sh"
set -o pipefail

tst_plan 2
tst_module_loaded && rmmod netslice

chain_semantics() {
	tst_veth_pairs nsa:nsb nsc:nsd || return 1
	tst_dmesg_mark
	# The detach execs netslicectl while a payload is parked: seconds on
	# the sanitizer kernel, so none may age out meanwhile.
	tst_load slices=2 ifaces=nsa@0,nsc@1 rxq_size=16 store_size=8 store_timeout_ms=600000 ||
		return 1
	chain_check nsa nsb nsc nsd | tst_indent
}
tst_check "chain_check: handoffs whole and cut, errors, loops, rights, a killed NF, ring mode, detach" \
	chain_semantics

# The unload frees what chain_check left parked and queued. Leaks are
# the runner's kmemleak scan's (tests/vm/guest-wrap); warnings here.
clean_unload() {
	local bad
	tst_unload && ! tst_module_loaded || return 1
	bad=$(tst_dmesg_since | grep -E 'WARNING:|BUG:|Oops|Call Trace:|refcount_t|KASAN|UBSAN') || return 0
	sed 's/^/# /' <<<"$bad"
	return 1
}
tst_check "unload after the chains: no warning in the kernel log" clean_unload

tst_done
