#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# nsfuzz (tests/fuzz/) against the slice devices and the netlink family,
# with traffic (XDP page_pool packets), attach/detach churn, ring memory
# under a module cap and RLIMIT_MEMLOCK, ring resizes, and chains of
# slices set, turned around and taken apart under packets handed along
# them (past NETSLICE_CHAIN_MAX_HOPS) and their files closing; then nothing
# may be left parked or open, and the module must unload. The runner fails the run on any kernel
# report. Sizes: NETSLICE_FUZZ_OPS device operations, NETSLICE_FUZZ_NL
# netlink messages (make check-debug raises both), NETSLICE_FUZZ_RULES
# distinct rules of the rule storm (replaced, deleted and flushed in
# batches by two threads), NETSLICE_FUZZ_RULE_BATCHES its batches
# (20,000: about 40 s here; the old rule-history use-after-free needed
# some 25,000),
# NETSLICE_FUZZ_SEED. make check boots with slab poisoning of the cache
# rule history nodes come from (tests/check.sh): a node used after it was
# freed faults there, as KASAN reports it on the sanitizer kernel.
. "$(dirname "$0")/lib.sh"

tst_plan 3
tst_module_loaded && rmmod netslice
OPS=${NETSLICE_FUZZ_OPS:-100000}
MSGS=${NETSLICE_FUZZ_NL:-10000}
RULES=${NETSLICE_FUZZ_RULES:-6000}
BATCHES=${NETSLICE_FUZZ_RULE_BATCHES:-20000}
SEED=${NETSLICE_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
# Interface names unique to this run (IFNAMSIZ allows 15 characters).
tag=$$
link0=fzl0$tag link1=fzl1$tag feed0=fzf0$tag feed1=fzf1$tag

fuzz() {
	local out rc
	out=$(mktemp) || return 1
	tst_defer rm -f "$out"
	ip link add "$link0" type veth peer name "$feed0" || return 1
	tst_defer ip link del "$link0"
	ip link add "$link1" type veth peer name "$feed1" || return 1
	tst_defer ip link del "$link1"
	for i in "$link0" "$link1" "$feed0" "$feed1"; do
		ip link set "$i" up || return 1
	done
	# XDP on the links: their frames come in page_pool pages (from 6.3 on),
	# which ring resizes and rings must free with IRQs on.
	tst_xdp_pass "$link0" && tst_xdp_pass "$link1" || return 1
	# Ring memory under limits: a 16 MiB module cap (ENOMEM), and no
	# CAP_IPC_LOCK with RLIMIT_MEMLOCK 8 MiB (ENOBUFS).
	tst_load slices=4 store_timeout_ms=200 ring_max_mb=16 "ifaces=$link0:$link1" || return 1
	# A time limit far above what the counts take: a hang is a failure.
	setpriv --bounding-set=-ipc_lock prlimit --memlock=8388608:8388608 \
		nsfuzz -s "$SEED" -t 3 -d "$OPS" -n "$MSGS" -r "$RULES" -R "$BATCHES" \
		-T $((OPS / 100 + MSGS / 10 + BATCHES / 10 + 300)) \
		-l "$link0,$link1" -f "$feed0,$feed1" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	[ "$rc" -eq 0 ] || return "$rc"
	# The limits were met, not just set (nsfuzz meets them once before its
	# threads start: a slice with two readers refuses ring mode, so random
	# setups meet them rarely); the storm's batches mostly applied.
	grep -Eq '\([1-9][0-9]* over a memory limit\)' "$out" ||
		{ tst_diag "no ring setup was refused over a memory limit"; return 1; }
	storm_applied "$out" && chains_carried "$out"
}

# chains_carried OUT: the relay handed packets from slice to slice, and
# loops were refused (a slice as its own next, at least).
chains_carried() {
	grep -Eq 'relay: [0-9]+ flips, [1-9][0-9]* packets handed on' "$1" ||
		{ tst_diag "no packet was handed to a next slice"; return 1; }
	grep -Eq 'chains: [0-9]+ set \([1-9][0-9]* refused as loops' "$1" ||
		{ tst_diag "no chain was refused as a loop"; return 1; }
}

# storm_applied OUT: nsfuzz's storm line shows at least half its batches applied.
storm_applied() {
	local batches refused
	read -r batches refused < <(sed -nE 's/.*rule storm over [0-9]+ rules: ([0-9]+) batches \(([0-9]+) refused\).*/\1 \2/p' "$1")
	[ -n "$batches" ] || { tst_diag "no rule storm line"; return 1; }
	[ $((2 * refused)) -le "$batches" ] || { tst_diag "rule storm: $refused of $batches batches refused"; return 1; }
}
tst_check "nsfuzz: $OPS device operations, $MSGS netlink messages, a storm over $RULES rules, seed $SEED" fuzz

# Every file is closed: nothing may stay parked, and every parked payload
# must be accounted for. Two things keep this from an equality: the
# fuzzer's netlink messages reset the counters now and then (a payload
# parked before a reset and ended after it counts only as ended), and
# tx_nf_drop, tx_err_down and tx_err_dropped count whole frames too. So
# read_sliced is at most the sum of the counters that may end a payload
# (one never ended falls short of it). test_cut.sh and test_faults.sh
# count the same ends exactly, without a fuzzer. A payload handed to the
# next slice of a chain ends in tx_spliced where it was read (and is
# read_sliced again where it is read next); one handed on too often ends
# in tx_err_loop. tx_chained and rx_chained are shown, not compared: a
# reset of one slice's counters but not the other's (the fuzzer sends
# them) would break any sum across slices.
settled() {
	local used cut ended
	# Counters of a module that never loaded would read as settled.
	tst_module_loaded || { tst_diag "the module is not loaded"; return 1; }
	used=$(tst_stat_sum store_used)
	cut=$(tst_stat_sum read_sliced)
	ended=$(($(tst_stat_sum tx_spliced) + $(tst_stat_sum tx_nf_drop) + $(tst_stat_sum tx_err_down) +
		 $(tst_stat_sum tx_err_dropped) + $(tst_stat_sum tx_err_loop) + $(tst_stat_sum store_aged) +
		 $(tst_stat_sum store_closed)))
	tst_diag "store_used $used; read_sliced $cut; counters that may end a payload: $ended"
	tst_diag "tx_chained $(tst_stat_sum tx_chained), rx_chained $(tst_stat_sum rx_chained), tx_err_loop $(tst_stat_sum tx_err_loop)"
	[ "$used" -eq 0 ] && [ "$cut" -le "$ended" ]
}
tst_check "after the fuzzer: no payload parked, every parked payload accounted for" settled

unloads() {
	tst_run_cleanups
	! tst_module_loaded && tst_no_nodes
}
tst_check "the module unloads after the fuzzer" unloads

tst_done
