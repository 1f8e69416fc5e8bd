#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Header slicing end to end: the handle and store semantics (cut_check),
# then traffic through cutting NFs between two namespaces.
#
#   gen: gen0 --veth-- dut0 [netslice + NF] dut1 --veth-- sink: sink0
. "$(dirname "$0")/lib.sh"
set -o pipefail

tst_plan 9
tst_module_loaded && rmmod netslice
N=10000
HDR=42	# nstraffic frames: Ethernet, IPv4, UDP

cut_semantics() {
	# nsc:nsd, a pair looped on itself: what goes out of nsd comes back on nsc.
	tst_veth_pairs nsa:nsb nsc:nsd || return 1
	tst_load slices=1 ifaces=nsa,nsc:nsd rxq_size=16 store_size=8 store_timeout_ms=300 ||
		return 1
	cut_check nsa nsb nsc | tst_indent
}
tst_check "cut_check: modes, handles, store, ageing, trimming" cut_semantics
tst_run_cleanups

# A handle whose port was detached, behind a frame for another egress in
# one write: the frame goes out, the handle fails alone.
own_port_detached() {
	tst_veth_pairs nsa:nsb nsc:nsd || return 1
	# The detach execs netslicectl between read and write: seconds on the
	# sanitizer kernel, so the payload must not age out meanwhile.
	tst_load slices=1 ifaces=nsa,nsc:nsd rxq_size=16 store_size=8 store_timeout_ms=600000 ||
		return 1
	cut_check nsa nsb nsc detached | tst_indent
}
tst_check "a handle whose port was detached fails alone, after the run before it" \
	own_port_detached
tst_run_cleanups

# bytes_moved: what crossed to user space and back, against what arrived.
bytes_moved() {
	local rx read write
	rx=$(tst_stat_sum rx_bytes)
	read=$(tst_stat_sum read_bytes)
	write=$(tst_stat_sum write_bytes)
	tst_diag "arrived $rx bytes; copied to user $read, from user $write" \
		"($((rx / (read > 0 ? read : 1)))x less)"
}

auto_forward() {
	tst_topology 1 || return 1
	# A store as deep as the ring: in ring mode a packet is parked as it
	# enters the ring, and one that finds the store full is read whole.
	tst_load ifaces=dut0:dut1 rxq_size=16384 store_size=16384 || return 1
	tst_start_fwd -m auto || return 1
	tst_traffic $N || return 1
	bytes_moved
	# Frames (60..1514 bytes) with 64 bytes or more beyond their 42 header
	# bytes are read cut, the others whole.
	local cut whole whole_bytes
	read -r cut whole whole_bytes < <(nstraffic split $N $HDR)
	tst_diag "$cut cut, $whole whole"
	# nf-fwd passes cut frames on unchanged: no header is copied back.
	tst_stat_is read_sliced "$cut" && tst_stat_is read_whole "$whole" &&
		tst_stat_is read_bytes $((cut * HDR + whole_bytes)) &&
		tst_stat_is write_bytes "$whole_bytes" && tst_stat_is tx_spliced "$cut" &&
		tst_stat_is tx_packets $N && tst_stat_is store_used 0 && tst_stop_fwd
}
tst_check "auto: $N frames of 60..1514 bytes arrive byte-identical; 42 bytes of each cross, none back" \
	auto_forward
tst_run_cleanups

fixed_forward() {
	local read cut whole
	tst_topology 1 || return 1
	# A store as deep as the ring, as auto_forward's: else a lagging NF's
	# frames find it full and are read whole, past 128 bytes.
	tst_load ifaces=dut0:dut1 rxq_size=16384 store_size=16384 || return 1
	tst_start_fwd -m fixed:128 || return 1
	tst_traffic $N || return 1
	bytes_moved
	read=$(tst_stat_sum read_bytes)
	cut=$(tst_stat_sum read_sliced)
	whole=$(tst_stat_sum read_whole)
	# Frames of up to 128 bytes are read whole, the rest as 128 bytes.
	[ "$read" -le $((N * 128)) ] && [ "$((cut + whole))" -eq $N ] && [ "$whole" -gt 0 ] &&
		tst_stat_is tx_spliced "$cut" && tst_stat_is tx_packets $N && tst_stop_fwd
}
tst_check "fixed:128: frames arrive byte-identical, at most 128 bytes each cross" fixed_forward
tst_run_cleanups

# start_nf ARGS: cut_nf in the background until cleanup.
start_nf() {
	tst_start_bg serving cut_nf "$@"
	local rc=$?
	nf_pid=$bg_pid
	nf_out=$bg_out
	return $rc
}

stop_nf() { tst_stop_bg "$nf_pid" "$nf_out" nf; }

rewrite_headers() {
	tst_topology 1 || return 1
	tst_load slices=1 ifaces=dut0:dut1 rxq_size=16384 || return 1
	start_nf rewrite auto || return 1
	# The sink recomputes both checksums: the NF's incremental updates must match.
	tst_traffic $N 64 rewritten || return 1
	local cut
	read -r cut _ < <(nstraffic split $N $HDR)
	tst_stat_is tx_spliced "$cut" && stop_nf
}
tst_check "rewriting address and port in the header alone: payloads and checksums intact" \
	rewrite_headers
tst_run_cleanups

# captured FILE: UDP frames, tagged or not, in a capture being written.
captured() { tcpdump -nn -r "$1" 'udp or (vlan and udp)' 2>/dev/null | wc -l; }

vlan_push_pop() {
	tst_topology 1 || return 1
	ip link add dutA type veth peer name dutB || return 1
	tst_defer ip link del dutA
	ip link set dutA up && ip link set dutB up || return 1
	# dut0 -> push a tag -> dutA ... dutB -> pop it -> dut1
	tst_load slices=1 ifaces=dut0:dutA,dutB:dut1 rxq_size=16384 || return 1
	# The wire between the pushes and the pops, and the egress after them:
	# the sink's kernel strips any tag, so only these tell a pop from a
	# second push. (libpcap shows a tag whether in the bytes or offloaded.)
	local cap_b cap_1 pid_b pid_1 out_b out_1 tagged_b udp_b tagged_1 udp_1
	cap_b=$(mktemp) cap_1=$(mktemp)
	tst_defer rm -f "$cap_b" "$cap_1"
	tst_start_bg "listening on" tcpdump -nn -U -B 8192 -i dutB -w "$cap_b" || return 1
	pid_b=$bg_pid out_b=$bg_out
	tst_start_bg "listening on" tcpdump -nn -U -B 8192 -i dut1 -Q out -w "$cap_1" || return 1
	pid_1=$bg_pid out_1=$bg_out
	start_nf vlan auto || return 1
	tst_traffic 2000 || return 1
	# tcpdump drops what it has not written when stopped: wait for it.
	tst_busywait 10000 tst_at_least 2000 captured "$cap_b" &&
		tst_busywait 10000 tst_at_least 2000 captured "$cap_1" || true
	tst_stop_bg "$pid_b" "$out_b" "tcpdump dutB" && tst_stop_bg "$pid_1" "$out_1" "tcpdump dut1" ||
		return 1
	tagged_b=$(tcpdump -nn -r "$cap_b" 'vlan and udp' 2>/dev/null | wc -l)
	udp_b=$(tcpdump -nn -r "$cap_b" 'udp' 2>/dev/null | wc -l)
	tagged_1=$(tcpdump -nn -r "$cap_1" 'vlan' 2>/dev/null | wc -l)
	udp_1=$(tcpdump -nn -r "$cap_1" 'udp' 2>/dev/null | wc -l)
	tst_diag "dutB (between): $tagged_b UDP frames tagged, $udp_b untagged;" \
		"dut1 (out): $tagged_1 tagged, $udp_1 UDP untagged"
	local cut
	read -r cut _ < <(nstraffic split 2000 $HDR)
	[ "$tagged_b" = 2000 ] && [ "$udp_b" = 0 ] && [ "$tagged_1" = 0 ] && [ "$udp_1" = 2000 ] &&
		tst_stat_is tx_spliced $((2 * cut)) && stop_nf
}
tst_check "a header that grows (VLAN push) then shrinks (pop): tagged between, untagged after, intact" \
	vlan_push_pop
tst_run_cleanups

# Segments cut one by one (super-packets kept whole: test_gso.sh).
tcp_cut() {
	tst_tcp_via_fwd -m auto --no-gso || return 1
	bytes_moved
	local cut
	cut=$(tst_stat_sum read_sliced)
	tst_diag "cut $cut"
	[ "$cut" -gt 1000 ]
}
tst_check "8 MiB over TCP (TSO on) through an auto-cut forwarder, --no-gso: stream intact" tcp_cut
tst_run_cleanups

kill_holder() {
	tst_topology 1 || return 1
	tst_load slices=1 ifaces=dut0:dut1 rxq_size=2048 store_size=1024 store_timeout_ms=600000 ||
		return 1
	local parked
	read -r parked _ < <(nstraffic split 1000 $HDR)
	start_nf "hold:$parked" auto || return 1
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 1000 >/dev/null || return 1
	tst_busywait 10000 grep -q holding "$nf_out" || return 1
	tst_stat_is store_used "$parked" || return 1
	kill -KILL "$nf_pid"
	wait "$nf_pid" 2>/dev/null
	tst_busywait 5000 tst_stat_is store_used 0 && tst_stat_is store_closed "$parked"
}
tst_check "SIGKILL of an NF holding the payloads of 1,000 frames frees them all" kill_holder
tst_run_cleanups

unload_after_kill() {
	# The unload frees what is parked: nothing leaks (the guest log is checked).
	tst_topology 1 || return 1
	tst_load slices=1 ifaces=dut0:dut1 rxq_size=2048 || return 1
	local parked
	read -r parked _ < <(nstraffic split 100 $HDR)
	start_nf "hold:$parked" auto || return 1
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 100 >/dev/null || return 1
	tst_busywait 10000 grep -q holding "$nf_out" || return 1
	kill -KILL "$nf_pid"
	wait "$nf_pid" 2>/dev/null
	tst_unload && ! tst_module_loaded
}
tst_check "unload after an NF died holding payloads: clean" unload_after_kill

tst_done
