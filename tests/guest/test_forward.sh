#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Forwarding through nf-fwd: every frame arrives exactly once and
# byte-identical, and the per-slice counters add up exactly.
#
#   gen: gen0 --veth-- dut0 [netslice + nf-fwd] dut1 --veth-- sink: sink0
. "$(dirname "$0")/lib.sh"

tst_plan 9
tst_module_loaded && rmmod netslice
N=10000

counters_exact() {
	local want=$1 rx tx read drops
	rx=$(tst_stat_sum rx_packets)
	read=$(tst_stat_sum read_packets)
	tx=$(tst_stat_sum tx_packets)
	drops=$(($(tst_stat_sum rx_drop_ring_full) + $(tst_stat_sum rx_drop_no_reader) +
		$(tst_stat_sum rx_drop_error) + $(tst_stat_sum tx_err_down) +
		$(tst_stat_sum tx_err_dropped)))
	tst_diag "rx $rx read $read tx $tx drops $drops (want $want)"
	[ "$rx" -eq "$want" ] && [ "$read" -eq "$want" ] && [ "$tx" -eq "$want" ] && [ "$drops" -eq 0 ]
}

# single_queue MODE: nf-fwd -M MODE (ring mode, or read/write).
single_queue() {
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 rxq_size=16384 || return 1
	tst_start_fwd -M "$1" || return 1
	if [ -n "${TST_FWD_BIN:-}" ]; then
		tst_diag "$(grep -o '/[^ ]*libnetslice[^ ]*' "/proc/$fwd_pid/maps" | sort -u)"
		grep -q "$TST_TOP/build/libnetslice.so.[0-9.]*$" "/proc/$fwd_pid/maps" || return 1
	fi
	tst_traffic $N || return 1
	counters_exact $N && tst_stop_fwd
}
tst_check "ring mode: $N frames of 60..1514 bytes cross once, byte-identical" single_queue ring
tst_run_cleanups
# The shared library in use: this nf-fwd is linked against libnetslice.so.
TST_FWD_BIN=$TST_TOP/build/bin/nf-fwd \
	tst_check "read/write, nf-fwd on libnetslice.so: $N frames of 60..1514 bytes cross once, byte-identical" \
	single_queue rw
tst_run_cleanups

four_queues() {
	local s rx total=0 busy=0
	tst_topology 4 || return 1
	tst_load ifaces=dut0:dut1 slices=4 rxq_size=16384 || return 1
	tst_start_fwd || return 1
	tst_traffic $N || return 1
	for s in 0 1 2 3; do
		rx=$(netslice-info -s "$s" | grep -o ' rx_packets=[0-9]*' | cut -d= -f2)
		tst_diag "slice $s: rx_packets $rx"
		[ "$rx" -gt 0 ] && busy=$((busy + 1))
		total=$((total + rx))
	done
	[ "$busy" -eq 4 ] && [ "$total" -eq $N ] && counters_exact $N && tst_stop_fwd
}
tst_check "4 queues, 4 slices: every slice busy, counters add up" four_queues
tst_run_cleanups

no_reader_drops() {
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 || return 1
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 500 >/dev/null || return 1
	local d
	d=$(tst_stat_sum rx_drop_no_reader)
	tst_diag "rx_drop_no_reader $d"
	[ "$d" -eq 500 ] && [ "$(tst_stat_sum rx_packets)" -eq 0 ]
}
tst_check "with no reader, every frame is dropped and counted" no_reader_drops
tst_run_cleanups

ring_overflow() {
	local fd rx full
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 slices=1 rxq_size=64 || return 1
	exec {fd}<>/dev/netslice-0 || return 1
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 1000 >/dev/null || return 1
	rx=$(tst_stat_sum rx_packets)
	full=$(tst_stat_sum rx_drop_ring_full)
	tst_diag "ring 64, reader stopped: queued $rx, ring-full drops $full"
	exec {fd}>&-
	[ "$rx" -eq 64 ] && [ "$full" -eq 936 ]
}
tst_check "ring overflow with the reader stopped: drops counted exactly" ring_overflow
tst_run_cleanups

info_reports_ifaces() {
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 slices=2 || return 1
	local i0 i1
	i0=$(cat /sys/class/net/dut0/ifindex)
	i1=$(cat /sys/class/net/dut1/ifindex)
	netslice-info -s 1 | grep -q "2 interfaces: $i0->$i1(hash 0x0) $i1->$i0(hash 0x0)"
}
tst_check "INFO_GET lists the pair, hashed (veth)" info_reports_ifaces
tst_run_cleanups

busy_port() {
	tst_topology 1 || return 1
	ip link add nsbr0 type bridge || return 1
	tst_defer ip link del nsbr0
	ip link set dut1 master nsbr0 || return 1
	tst_dmesg_mark
	tst_load ifaces=dut1,dut0:lo,dut0:dut0,dut0 || return 1
	local want
	for want in "cannot attach dut1: interface already has an rx_handler (a bridge or bond port?)" \
		"cannot attach lo: a loopback interface cannot be attached" \
		"cannot attach dut0: an interface cannot be its own peer" "attached dut0"; do
		tst_dmesg_since | grep -qF "$want" || { tst_diag "no \"$want\" in the log"; return 1; }
	done
}
tst_check "ifaces=: a bridge port, a loopback peer, a port as its own peer are refused by name; others attach" \
	busy_port
tst_run_cleanups

slice_range() {
	local s0 s1
	tst_topology 1 || return 1
	tst_dmesg_mark
	tst_load slices=2 rxq_size=4096 ifaces=dut0:dut1@1,gen9@2-1 || return 1
	tst_dmesg_since | grep -q "cannot attach gen9: bad slice range (slices are 0-1)" ||
		{ tst_diag "no message for a bad slice range"; return 1; }
	netslice-info -s 0 | grep -q "0 interfaces:" || return 1
	netslice-info -s 1 | grep -q "2 interfaces:" || return 1
	tst_start_fwd -s 1 || return 1
	tst_traffic 2000 || return 1
	s0=$(netslice-info -s 0 | grep -o ' rx_packets=[0-9]*' | cut -d= -f2)
	s1=$(netslice-info -s 1 | grep -o ' rx_packets=[0-9]*' | cut -d= -f2)
	tst_diag "ifaces=dut0:dut1@1: slice 0 got $s0, slice 1 got $s1"
	[ "$s0" -eq 0 ] && [ "$s1" -eq 2000 ] && tst_stop_fwd
}
tst_check "ifaces=PAIR@1 feeds only slice 1; a bad range is refused by name" slice_range
tst_run_cleanups

tcp_with_gso() {
	tst_tcp_via_fwd --no-gso || return 1
	local segs
	segs=$(tst_stat_sum rx_segments)
	tst_diag "rx_segments $segs, rx_gso_packets $(tst_stat_sum rx_gso_packets)"
	[ "$segs" -gt 0 ] && [ "$(tst_stat_sum rx_gso_packets)" = 0 ]
}
tst_check "8 MiB over TCP with TSO, nf-fwd --no-gso: GSO packets segmented, stream intact" tcp_with_gso

tst_done
