#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The control plane against the real module: netslicectl over the
# netslice generic netlink family, policies against the spec, runtime
# attach/detach under traffic, show -j round trips, counter reset, the
# bad-input matrix, netns isolation, ring and store sizes changed under
# traffic, chains set up and refused, and monitor events. Flow rules are
# test_rules.sh's.
#
#   gen: gen0 --veth-- dut0 [netslice + nf-fwd] dut1 --veth-- sink: sink0
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl_lib.sh"

tst_plan 11
tst_module_loaded && rmmod netslice

# monitor_ready FILE: attach and detach a probe interface until the
# monitor writing FILE reports it, i.e. it has joined its group.
monitor_ready() {
	local i
	ip link add nsprobe0 type veth peer name nsprobe1 || return 1
	tst_defer ip link del nsprobe0
	for ((i = 0; i < 30; i++)); do
		ctl link attach dev nsprobe0 && ctl link detach dev nsprobe0 || return 1
		tst_poll 1000 grep -q nsprobe0 "$1" && return 0
	done
	return 1
}


spec_policies() {
	local dump
	tst_load slices=2 || return 1
	dump=$(mktemp)
	genl ctrl policy name netslice >"$dump" || return 1
	$py "$TST_TOP/tests/spec_check.py" policy "$dump" | tst_indent
	[ "${PIPESTATUS[0]}" -eq 0 ]
}
tst_check "the module's policies follow uapi/netslice.yaml" spec_policies
tst_run_cleanups

attach_detach_under_traffic() {
	local mon sent rx_before rx_after
	setup || return 1
	mon=$(mktemp)
	ctl monitor >"$mon" 2>&1 &
	tst_defer tst_kill_job $!
	monitor_ready "$mon" || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	tst_traffic 2000 || return 1
	# Detach while a sender runs; the frames after it go to the host stack.
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 20000 >/dev/null &
	sent=$!
	ctl link detach dev dut0 || return 1
	wait "$sent" || return 1
	[ "$(ctl -j link show | json 'len(j)')" -eq 0 ] || return 1
	rx_before=$(tst_stat_sum rx_packets)
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 100 >/dev/null || return 1
	rx_after=$(tst_stat_sum rx_packets)
	tst_diag "rx_packets $rx_before after the detach, $rx_after after 100 more frames"
	[ "$rx_before" -eq "$rx_after" ] || return 1
	ctl link attach dev dut1 peer dut0 slices 1-2 || return 1
	tst_traffic 2000 || return 1
	tst_busywait 3000 tst_at_least 2 grep -c 'slices 1-2$' "$mon" || true
	sed 's/^/# monitor: /' "$mon"
	[ "$(grep -c '^attach dev dut0 peer dut1 slices 0-3$' "$mon")" -eq 1 ] &&
		[ "$(grep -c '^detach dev dut[01] peer dut[01] slices 0-3 reason request$' "$mon")" -eq 2 ] &&
		[ "$(grep -c '^attach dev dut[01] peer dut[01] slices 1-2$' "$mon")" -eq 2 ] &&
		tst_stop_fwd
}
tst_check "attach and detach at run time under traffic, with monitor events" \
	attach_detach_under_traffic
tst_run_cleanups

show_round_trip() {
	local s l said fields
	setup || return 1
	ctl link attach dev dut0 peer dut1 slices 2-3 || return 1
	ctl slice set 1 cut fixed:128,trim,gso batch 64 multi-write off kernel-cpus 1 \
		user-cpus 0 || return 1
	ctl slice set 2 cut auto+16 || return 1
	s=$(ctl -j slice show 1)
	l=$(ctl -j link show dev dut0)
	tst_diag "slice 1: $s"
	tst_diag "link: $l"
	[ "$(json 'j[0]["cut"], j[0]["length"], j[0]["trim"], j[0]["gso"], j[0]["batch"], j[0]["multi_read"], j[0]["multi_write"], j[0]["kernel_cpus"], j[0]["user_cpus"]' <<<"$s")" = \
		"fixed 128 on on 64 on off 1 0" ] || return 1
	[ "$(ctl -j slice show 2 | json 'j[0]["cut"], j[0]["extra"]')" = "auto 16" ] || return 1
	[ "$(json 'j[0]["dev"], j[0]["peer"], j[0]["slice_first"], j[0]["slice_count"], j[0]["steering"]' <<<"$l")" = \
		"dut0 dut1 2 2 hash" ] || return 1
	# The ioctl view of the same slice agrees; the table spells it as set.
	netslice-info -s 1 | grep -q 'cut fixed:128,trim,gso' ||
		{ netslice-info -s 1 | tst_indent; return 1; }
	ctl slice show 1 | grep -q '^1 .* fixed:128,trim,gso ' || { ctl slice show 1 | tst_indent; return 1; }
	ctl slice show 2 | grep -q '^2 .* auto+16 ' || return 1
	# A mode is all of it, as an NF's -m: no trim or gso unless it says so.
	ctl slice set 1 cut auto || return 1
	netslice-info -s 1 | grep -q 'cut auto (' || return 1
	# A trim or gso setting of its own has the last word, wherever it is.
	ctl slice set 1 gso on cut fixed:64,trim trim off || return 1
	netslice-info -s 1 | grep -q 'cut fixed:64,gso (' || return 1
	# The old spelling changes the mode only, and says it is deprecated.
	# Each note exactly once: the command is parsed once.
	said=$(ctl slice set 1 slicing auto 8 2>&1 >/dev/null) || return 1
	[ "$said" = 'netslicectl: "slicing auto 8" is deprecated: write "cut auto+8"' ] &&
		netslice-info -s 1 | grep -q 'cut auto+8,gso (' || return 1
	ctl slice set 1 slicing fixed 100 2>/dev/null &&
		netslice-info -s 1 | grep -q 'cut fixed:100,gso (' || return 1
	# So is "slicing", cut's name before 0.6.
	said=$(ctl slice set 1 slicing fixed:128,trim,gso 2>&1 >/dev/null) || return 1
	[ "$said" = 'netslicectl: "slicing" is deprecated: write "cut"' ] || return 1
	said=$(ctl slice set 2 ring-size 512 2>&1 >/dev/null) || return 1
	[ "$said" = 'netslicectl: "ring-size" is deprecated: write "rxq-size"' ] &&
		[ "$(ctl -j slice show 2 | json 'j[0]["rxq_size"]')" = 512 ] || return 1
	# Super-packets kept whole need a slice: cut off takes the flag with it.
	ctl slice set 1 cut off gso on 2>/dev/null && return 1
	ctl slice set 1 cut off multi-write on || return 1
	[ "$(ctl -j slice show 1 | json 'j[0]["cut"], j[0]["gso"], j[0]["multi_write"], j[0]["batch"]')" = \
		"off off on 64" ] || return 1
	# One batch flag alone: its bit in the selector, the other bit kept.
	ctl slice set 1 multi-read off || return 1
	[ "$(ctl -j slice show 1 | json 'j[0]["multi_read"], j[0]["multi_write"]')" = "off on" ] ||
		return 1
	# -p: the same JSON, indented; netslice-info -j: the ioctl view of it.
	s=$(ctl -p slice show 1)
	[ "$(json 'j' <<<"$s")" = "$(ctl -j slice show 1 | json 'j')" ] &&
		[ "$(sed -n 2,3p <<<"$s" | tr '\n' '|')" = '  {|    "slice": 1,|' ] || return 1
	fields='j[0]["slice"], j[0]["cut"], j[0]["rxq_size"], j[0]["kernel_cpus"], j[0]["user_cpus"]'
	tst_diag "netslice-info -j -s 1: $(netslice-info -j -s 1)"
	[ "$(netslice-info -j -s 1 | json "$fields")" = "$(ctl -j slice show 1 | json "$fields")" ]
}
tst_check "configuration round-trips through show -j and -p (and the ioctl view, -j too)" show_round_trip
tst_run_cleanups

# slice_numbers FIELD...: those fields of every slice's settings, one line.
slice_numbers() {
	local f=$*
	ctl -j slice show | json "' '.join(str(s[k]) for s in j for k in '$f'.split())"
}

runtime_sizes() {
	local s i bpid chunks got purged drops want
	# read/write mode: a ring-mode NF receives into its own ring instead.
	tst_topology 1 && tst_load slices=4 rxq_size=1024 store_size=64 store_timeout_ms=1000 &&
		tst_start_fwd -M rw || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	for s in 0 1 2 3; do ctl slice set $s cut auto || return 1; done
	# Growing while frames flow: nothing lost, handles of parked payloads kept.
	ip netns exec "$gen" sh -c "for i in \$(seq 40); do nstraffic send gen0 $sink_mac 200 4 >/dev/null || exit 1; done" &
	bpid=$!
	tst_defer tst_kill_job $bpid
	for i in 2048 4096 16384; do
		for s in 0 1 2 3; do
			ctl slice set $s rxq-size $i store-size $((i / 4)) store-timeout $((i / 2)) ||
				return 1
		done
	done
	wait $bpid || return 1
	tst_busywait 10000 tst_at_least 8000 tst_stat_sum tx_packets || true
	got=$(ip netns exec "$sink" cat /sys/class/net/sink0/statistics/rx_packets)
	tst_diag "8000 frames while growing: sink got $got; settings $(slice_numbers rxq_size store_size store_timeout_ms)"
	[ "$(slice_numbers rxq_size store_size store_timeout_ms)" = \
		"16384 4096 8192 16384 4096 8192 16384 4096 8192 16384 4096 8192" ] || return 1
	netslice-info -s 0 | grep -q 'rxq 16384.*store 4096, 8192 ms' ||
		{ netslice-info -s 0 | tst_indent; return 1; }
	tst_stat_is tx_packets 8000 && tst_stat_is rx_purged 0 || return 1
	# Shrinking to 2 while frames flow: what the ring cannot hold is purged
	# and counted; every frame is still accounted for.
	ctl stats reset || return 1
	ip netns exec "$gen" sh -c "for i in \$(seq 20); do nstraffic send gen0 $sink_mac 200 4 >/dev/null || exit 1; done" &
	bpid=$!
	tst_defer tst_kill_job $bpid
	for i in 2 16384 2 64; do
		for s in 0 1 2 3; do ctl slice set $s rxq-size $i || return 1; done
	done
	wait $bpid || return 1
	# Counted since the reset: queued or dropped on arrival, all 4000.
	arrived() { echo $(($(tst_stat_sum rx_packets) + $(tst_stat_sum rx_drop_ring_full))); }
	tst_busywait 10000 tst_at_least 4000 arrived || return 1
	shrunk_total() {
		echo $(($(tst_stat_sum tx_packets) + $(tst_stat_sum rx_purged) +
			$(tst_stat_sum rx_drop_ring_full)))
	}
	tst_busywait 10000 tst_at_least 4000 shrunk_total || true
	purged=$(tst_stat_sum rx_purged)
	drops=$(tst_stat_sum rx_drop_ring_full)
	tst_diag "4000 frames while shrinking: tx $(tst_stat_sum tx_packets), purged $purged, ring full $drops"
	[ "$(shrunk_total)" -eq 4000 ] && [ "$(slice_numbers rxq_size)" = "64 64 64 64" ] ||
		return 1
	# With the NF stopped, one flow fills its slice's rxq of 64 (the rest
	# is dropped on arrival; a ptr_ring reclaims consumed slots in batches,
	# so up to 15 of the 64 may still be taken); shrunk to 2, the ring
	# purges all but 2 and counts them.
	ctl stats reset && kill -STOP "$fwd_pid" || return 1
	tst_defer kill -CONT "$fwd_pid"
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 200 1 >/dev/null || return 1
	tst_busywait 10000 tst_at_least 200 arrived || return 1
	for s in 0 1 2 3; do ctl slice set $s rxq-size 2 || return 1; done
	kill -CONT "$fwd_pid"
	tst_busywait 10000 tst_at_least 2 tst_stat_sum tx_packets || return 1
	tst_diag "200 frames, NF stopped, ring 64 -> 2: queued $(tst_stat_sum rx_packets), ring full $(tst_stat_sum rx_drop_ring_full), purged $(tst_stat_sum rx_purged), sent $(tst_stat_sum tx_packets)"
	local queued
	queued=$(tst_stat_sum rx_packets)
	[ "$queued" -le 64 ] && [ "$queued" -ge 49 ] && tst_stat_is rx_drop_ring_full $((200 - queued)) &&
		tst_stat_is rx_purged $((queued - 2)) && tst_stat_is tx_packets 2 && tst_stop_fwd
}
tst_check "ring and store sizes and the store timeout change under traffic" runtime_sizes
tst_run_cleanups

stats_reset() {
	local before after
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	tst_traffic 1000 || return 1
	before=$(ctl -j stats | json 'sum(s["rx_packets"] for s in j)')
	ctl stats reset || return 1
	after=$(ctl -j stats | json 'sum(s["rx_packets"] + s["tx_packets"] + s["read_packets"] for s in j)')
	tst_diag "rx_packets $before before the reset, rx+read+tx $after after"
	[ "$before" -eq 1000 ] && [ "$after" -eq 0 ] && [ "$(tst_stat_sum rx_packets)" -eq 0 ] || return 1
	tst_traffic 300 || return 1
	[ "$(ctl -j stats | json 'sum(s["tx_packets"] for s in j)')" -eq 300 ] &&
		ctl -s stats slice 0 | grep -q 'rx_drop_ring_full'
}
tst_check "counters read through netlink, reset to zero, count again" stats_reset
tst_run_cleanups

bad_input() {
	local n out
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	ip link add brp0 type veth peer name brp1 && tst_defer ip link del brp0
	ip link add nsbr0 type bridge && tst_defer ip link del nsbr0
	ip link set brp0 master nsbr0 || return 1
	n=0
	expect_refusal "Error: dev nosuch0: no such interface in this network namespace." \
		ctl link attach dev nosuch0 && n=$((n + 1))
	expect_refusal "Error: dev dut0: interface is already attached." \
		ctl link attach dev dut0 && n=$((n + 1))
	expect_refusal "Error: dev brp0: interface already has an rx_handler (a bridge or bond port?)." \
		ctl link attach dev brp0 && n=$((n + 1))
	expect_refusal "Error: dev lo: a loopback interface cannot be attached." \
		ctl link attach dev lo && n=$((n + 1))
	expect_refusal "Error: dev brp1: interface is not attached." \
		ctl link detach dev brp1 && n=$((n + 1))
	expect_refusal "Error: slices 2-7: slice range ends past the last slice." \
		ctl link attach dev brp1 slices 2-7 && n=$((n + 1))
	expect_refusal "Error: slice 9: no such slice." ctl slice set 9 batch 8 && n=$((n + 1))
	# nf-fwd's ring of slice 0 (mapped once set up) took the store's size.
	ring_mapped() { grep -q /dev/netslice-0 "/proc/$fwd_pid/maps"; }
	tst_busywait 5000 ring_mapped || return 1
	expect_refusal "Error: slice 0: a file of the slice is in ring mode: its store keeps its size." \
		ctl slice set 0 store-size 128 && n=$((n + 1))
	# netslicectl refuses batch 5000 itself (test_cli.sh); the module's range, asked raw.
	out=$($py "$TST_TOP/tests/guest/nlraw.py" 5 1:u32:0 13:u32:5000)
	tst_diag "slice-set batch-max 5000: $out"
	[ "$out" = "errno 34 msg integer out of range offset 28" ] && n=$((n + 1))
	expect_refusal "Error: slice 0: CPU list names a CPU beyond this machine's." \
		ctl slice set 0 batch 8 kernel-cpus 64 && n=$((n + 1))
	expect_refusal "Error: slice 0: CPU list is empty or names an offline CPU." \
		ctl slice set 0 user-cpus "" && n=$((n + 1))
	expect_refusal "Error: rule: no such slice." ctl rule add proto udp dport 9 slice 7 &&
		n=$((n + 1))
	expect_refusal "Error: rule: ports need protocol tcp, udp, udplite, sctp or dccp." \
		ctl rule add proto icmp dport 9 slice 1 && n=$((n + 1))
	expect_refusal "Error: rule: no such rule." ctl rule del proto udp dport 9 && n=$((n + 1))
	ctl rule add proto udp dport 9 slice 1 || return 1
	expect_refusal "Error: rule: rule exists (replace changes its slice)." \
		ctl rule add proto udp dport 9 slice 2 && n=$((n + 1))
	ctl rule flush || return 1
	# Raw requests netslicectl never sends: a missing and a malformed attribute.
	out=$($py "$TST_TOP/tests/guest/nlraw.py" 5 13:u32:8)
	tst_diag "slice-set without id: $out"
	[ "$out" = "errno 22 missing 1" ] && n=$((n + 1))
	out=$($py "$TST_TOP/tests/guest/nlraw.py" 1 2:str:dut1 5:u32:300)
	tst_diag "link-attach slice-first 300: $out"
	[ "$out" = "errno 34 msg integer out of range offset 32" ] && n=$((n + 1))
	# A rule nest (NLA_F_NESTED | 1) whose u8 family attribute is 4 bytes long.
	out=$($py "$TST_TOP/tests/guest/nlraw.py" 8 32769:hex:0800020004000000)
	tst_diag "rule-add with a malformed attribute in its nest: $out"
	[ "$out" = "errno 22 msg invalid attribute length offset 24" ] && n=$((n + 1))
	# A rule whose source address is 17 bytes: a policy dump does not show a
	# binary attribute's maximum (NLA_POLICY_MAX_LEN), so try it.
	out=$($py "$TST_TOP/tests/guest/nlraw.py" 8 "32769:hex:15000400$(printf '%034d' 0)000000")
	tst_diag "rule-add with a 17-byte source address: $out"
	[ "$out" = "errno 34 msg binary attribute size out of range offset 24" ] && n=$((n + 1))
	# batch-flags (a bitfield32 of two bits): a selector bit past them and a
	# value bit outside the selector (EINVAL), and the u32 of ABI 0.5
	# (ERANGE: the wrong length) are refused.
	for bf in 22:0100000004000000 22:0100000002000000 34:01000000; do
		out=$($py "$TST_TOP/tests/guest/nlraw.py" 5 1:u32:0 12:hex:${bf#*:})
		tst_diag "slice-set batch-flags ${bf#*:}: $out"
		[ "$out" = "errno ${bf%%:*} msg Attribute failed policy validation offset 28" ] &&
			n=$((n + 1))
	done
	# Unprivileged: reads work, changes are refused with EPERM.
	setpriv --reuid=65534 --regid=65534 --clear-groups netslicectl slice show >/dev/null &&
		n=$((n + 1))
	expect_refusal "Error: dev dut1: Operation not permitted." \
		setpriv --reuid=65534 --regid=65534 --clear-groups netslicectl link detach dev dut1 &&
		n=$((n + 1))
	expect_refusal "Error: rule: Operation not permitted." \
		setpriv --reuid=65534 --regid=65534 --clear-groups netslicectl rule add proto udp slice 1 &&
		n=$((n + 1))
	tst_diag "$n of 25 refused as they should be"
	[ "$n" -eq 25 ]
}
tst_check "bad input: each refusal has its message and changes nothing" bad_input
tst_run_cleanups

other_namespace() {
	local other
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	tst_netns_create other || return 1
	ip -n "$other" link add xd0 type veth peer name xd1 || return 1
	[ "$(ip netns exec "$other" netslicectl -j link show | json 'len(j)')" -eq 0 ] || return 1
	expect_refusal "Error: dev dut0: no such interface in this network namespace." \
		ip netns exec "$other" netslicectl link detach dev dut0 || return 1
	ip netns exec "$other" netslicectl link attach dev xd0 slices 3 || return 1
	[ "$(ip netns exec "$other" netslicectl -j link show | json '[l["dev"] for l in j]')" = \
		"['xd0']" ] || return 1
	[ "$(ctl -j link show | json 'sorted(l["dev"] for l in j)')" = "['dut0', 'dut1']" ] || return 1
	# Its deletion detaches it, seen from its own namespace only.
	ip -n "$other" link del xd0 || return 1
	[ "$(ip netns exec "$other" netslicectl -j link show | json 'len(j)')" -eq 0 ]
}
tst_check "another namespace's interfaces are neither seen nor touched" other_namespace
tst_run_cleanups

# chains: every chain, a line each, as netslicectl chain shows them.
chains() { ctl chain | paste -sd '|'; }

chain_round_trip() {
	local s
	tst_load slices=4 || return 1
	[ -z "$(chains)" ] && [ "$(ctl -j chain)" = "[]" ] || return 1
	ctl chain add 0 '->' 1 '->' 2 || return 1
	tst_diag "chain: $(chains); -j: $(ctl -j chain)"
	[ "$(chains)" = "0 -> 1 -> 2" ] && [ "$(ctl chain show | paste -sd '|')" = "0 -> 1 -> 2" ] &&
		[ "$(ctl -j chain | json 'j')" = "[{'slices': [0, 1, 2]}]" ] || return 1
	# slice show and the ioctl view say the same of each slice.
	s=$(ctl -j slice show)
	tst_diag "slice show -j: $s"
	[ "$(json '[x.get("next") for x in j]' <<<"$s")" = "[1, 2, None, None]" ] &&
		[ "$(ctl slice show | awk 'NR > 1 { print $1 ":" $NF }' | paste -sd ' ')" = \
			"0:1 1:2 2:- 3:-" ] || { ctl slice show | tst_indent; return 1; }
	netslice-info -s 1 | grep -q '^slice 1: .*, next 2, ' &&
		[ "$(netslice-info -j -s 0 2 | json '[x.get("next") for x in j]')" = "[1, None]" ] ||
		{ netslice-info -s | tst_indent; return 1; }
	# The arrows may be left out; a chain may join another.
	ctl chain add 3 2 || return 1
	[ "$(chains)" = "0 -> 1 -> 2|3 -> 2" ] || return 1
	# del ends a chain at each slice named; slice set next changes one link.
	ctl chain del 1 3 && [ "$(chains)" = "0 -> 1" ] || return 1
	ctl slice set 3 next 0 && [ "$(chains)" = "3 -> 0 -> 1" ] || return 1
	ctl slice set 3 next none && [ "$(chains)" = "0 -> 1" ] || return 1
	# Batch lines, as on the command line.
	[ "$(printf '%s\n' 'chain add 1 2 3' 'chain' | ctl -b -)" = "0 -> 1 -> 2 -> 3" ] || return 1
	ctl chain flush && [ -z "$(chains)" ] &&
		[ "$(ctl -j slice show | json '[x for x in j if "next" in x]')" = "[]" ] || return 1
	# The counters of chains are there wherever counters are.
	ctl -s stats slice 0 | grep -q 'tx_chained' &&
		[ "$(ctl -j stats slice 1 | json 'j[0]["tx_chained"], j[0]["rx_chained"], j[0]["tx_err_loop"]')" = \
			"0 0 0" ] && ctl stats | head -n 1 | grep -q tx_chained &&
		netslice-info -s 0 | grep -q ' rx_chained=0 tx_err_loop=0'
}
tst_check "chain add, show, del, flush round trip (text, JSON, batch, slice show, netslice-info)" \
	chain_round_trip
tst_run_cleanups

chain_refusals() {
	local n=0 loop="the next slice's chain leads back to this slice: a loop"
	tst_load slices=4 || return 1
	ctl chain add 0 1 2 || return 1
	expect_refusal "Error: slice 2 -> 0: $loop." ctl chain add 2 0 && n=$((n + 1))
	expect_refusal "Error: slice 1: $loop." ctl slice set 1 next 1 && n=$((n + 1))
	expect_refusal "Error: slice 3 -> 9: no such slice." ctl chain add 3 9 && n=$((n + 1))
	# A refusal after links this command set: they are undone, each said.
	ctl chain flush && ctl chain add 2 0 || return 1
	expect_refusal "Error: slice 0 -> 1: $loop.
Undone: slice 1 next 2 (its next is none again)." ctl chain add 0 1 2 && n=$((n + 1))
	ctl chain add 3 1 || return 1
	expect_refusal "Error: slice 9: no such slice.
Undone: slice 3 next none (its next is 1 again)." ctl chain del 3 9 && n=$((n + 1))
	# In a batch, each line said with its place.
	expect_refusal "-:1: Error: slice 0 -> 1: $loop.
-:1: Undone: slice 1 next 2 (its next is none again)." \
		sh -c "echo 'chain add 0 1 2' | netslicectl -b -" && n=$((n + 1))
	# Shown to anyone; changed by CAP_NET_ADMIN only.
	[ "$(setpriv --reuid=65534 --regid=65534 --clear-groups netslicectl chain | paste -sd '|')" = \
		"$(chains)" ] && n=$((n + 1))
	expect_refusal "Error: slice 1 -> 3: Operation not permitted." \
		setpriv --reuid=65534 --regid=65534 --clear-groups netslicectl chain add 1 3 && n=$((n + 1))
	tst_diag "$n of 8 refused as they should be"
	[ "$n" -eq 8 ]
}
tst_check "chain refusals (a loop, no such slice, unprivileged) say the kernel's message; chain add and del undo what they set" \
	chain_refusals
tst_run_cleanups

gone_and_unload_events() {
	local mon
	tst_topology 1 || return 1
	insmod "$TST_KO" slices=2 || return 1
	tst_defer tst_unload
	mon=$(mktemp)
	netslicectl -j monitor >"$mon" 2>&1 &
	tst_defer tst_kill_job $!
	monitor_ready "$mon" || return 1
	ctl link attach dev dut0 && ctl link attach dev dut1 || return 1
	tst_busywait 3000 tst_at_least 2 grep -c '"event":"attach".*"dev":"dut' "$mon" || return 1
	ip link del dut0 || return 1
	tst_busywait 3000 grep -q '"reason":"unregister"' "$mon" || return 1
	rmmod netslice || return 1
	tst_busywait 3000 grep -q '"reason":"unload"' "$mon" || true
	sed 's/^/# monitor: /' "$mon"
	grep -q '"event":"detach","ifindex":[0-9]*,"dev":"dut0".*"reason":"unregister"' "$mon" &&
		grep -q '"dev":"dut1".*"reason":"unload"' "$mon"
}
tst_check "monitor reports an interface deleted and the module unloaded" gone_and_unload_events
tst_run_cleanups

cli_usage() {
	local out rc file protos
	tst_load slices=2 || return 1
	out=$(netslicectl rule add proto udp 2>&1)
	rc=$?
	tst_diag "$out"
	[ "$rc" -eq 1 ] && [ "$out" = "netslicectl: the rule needs a slice: ... slice N (see netslicectl --help)" ] ||
		return 1
	# A rule file as users write it: comments anywhere, one 3,000 bytes
	# long; protocols by name. A bad number says FILE:LINE:COL.
	file=$(mktemp)
	tst_defer rm -f "$file"
	{
		printf '# %s\n' "$(head -c 3000 /dev/zero | tr '\0' c)"
		printf 'proto gre slice 0   # tunnels\nproto esp slice 1\nproto ah slice 1\nproto sctp slice 0\n'
	} >"$file"
	netslicectl rule load "$file" || return 1
	protos=$(netslicectl -j rule show | python3 -c 'import json, sys; print(" ".join(sorted(r["proto"] for r in json.load(sys.stdin))))')
	tst_diag "loaded: $protos"
	[ "$protos" = "ah esp gre sctp" ] && netslicectl rule flush || return 1
	printf 'proto udp slice 0\nproto udp dport +53 slice 1\n' >"$file"
	out=$(netslicectl rule load "$file" 2>&1)
	rc=$?
	tst_diag "$out"
	[ "$rc" -eq 1 ] &&
		[ "$out" = "netslicectl: $file:2:11: dport: \"+53\" is not a number from 0 to 65535 (see netslicectl --help)" ] &&
		[ "$(netslicectl -j rule show | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')" = 0 ] ||
		return 1
	tst_unload || return 1
	out=$(netslicectl link show 2>&1)
	rc=$?
	tst_diag "$out"
	[ "$rc" -eq 2 ] && [[ $out == *"netslice module is not loaded"* ]]
}
tst_check "usage errors exit 1 (a rule file's with FILE:LINE:COL); comments anywhere, protocols by name; no module exits 2 and says so" cli_usage

tst_done
