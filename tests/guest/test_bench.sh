#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench's contenders are correct before they are fast: each forwards
# nstraffic's frames (60..1514 bytes, 16 flows) exactly once and intact,
# nf-nat's translated as a source NAT must, a chain row's through both its
# forwarders; and the benchmark's own loads
# (bench/pktgen.sh, xdpgen's batches) and sink (bench-sink) count what
# they should.
#
#   gen: gen0 --veth-- dut0 [contender] dut1 --veth-- sink: sink0
. "$(dirname "$0")/lib.sh"
# Two vCPUs here: the forwarders share the kernel side's CPU.
bench_kcpu=1 bench_ucpu=1
. "$TST_TOP/bench/contenders.sh"

N=1000
# The default contenders and the ones a user may name (bench_extra).
contenders=("${bench_contenders[@]}" "${bench_extra[@]}")
tst_plan $((${#contenders[@]} + 2))
tst_module_loaded && rmmod netslice

forwards_intact() {
	local name=$1 rc=0
	if [ "$name" = afxdp-zc ]; then
		tst_skip_why="veth has no zero-copy AF_XDP: make bench runs afxdp-zc on 7.2's virtio-net only"
		return "$ksft_skip"
	fi
	tst_topology 1 || return 1
	tst_sysctl net.ipv4.conf.all.forwarding 0
	bench_up "$name" || return 1
	if [[ $name == ns-nat-* ]]; then
		# To the router's MAC: nf-nat takes no frame sent to another.
		tst_traffic_between "$gen" gen0 "$sink" sink0 "$bench_load_mac" $N 16 nat \
			"$bench_nat_public" || rc=1
	else
		tst_traffic $N 16 || rc=1
	fi
	path_taken "$name" || rc=1
	bench_down "$name" || rc=1
	[ $rc = 0 ] || tst_diag "$(tst_hops "${bench_report:+, $name said \"$bench_report\"}")"
	return $rc
}
# path_taken NAME: a chain row's frames took its path: handed from slice
# 0 to slice 1 (slice 0's NF alone would forward them too, were the chain
# not set), or through the veth pair.
path_taken() {
	local n
	case $1 in
	ring-chain-*) n=$(tst_stat_sum tx_chained) ;;
	ring-pair-* | afxdp-pair) n=$(tst_link_stat "" "$bench_pair_a" tx_packets) ;;
	*) return 0 ;;
	esac
	[ "$n" -ge $N ] || { tst_diag "$1: $n of $N frames through its second forwarder"; return 1; }
}
for name in "${contenders[@]}"; do
	tst_check "$name forwards $N frames intact" forwards_intact "$name"
	tst_run_cleanups
done

# A fixed-rate count of pktgen frames through the bridge: the sink counts
# every one and measures a latency.
load_and_sink() {
	local out sent lat pid
	tst_topology 1 || return 1
	modprobe pktgen || return 1
	bench_up bridge || return 1
	tst_defer bench_down bridge
	out=$(mktemp)
	tst_defer rm -f "$out"
	ip netns exec "$sink" bench-sink sink0 >"$out" &
	pid=$!
	tst_defer tst_kill_job "$pid"
	tst_busywait 5000 grep -q ready "$out" || return 1
	sent=$(ip netns exec "$gen" "$TST_TOP/bench/pktgen.sh" gen0 "$sink_mac" 512 5000 count:2000 16)
	tst_busywait 5000 tst_at_least 2000 ip netns exec "$sink" cat /sys/class/net/sink0/statistics/rx_packets
	kill -TERM "$pid" && wait "$pid" || return 1
	lat=$(grep '^packets' "$out")
	tst_diag "pktgen: $sent; sink: $lat"
	set -- $lat
	[[ $sent == "sent 2000 errors 0 "* ]] && [ "$2" -eq 2000 ] && [ "$6" -gt 0 ] &&
		[ "$(wc -w < <(sed -n 's/^cdf://p' "$out"))" -eq 101 ]
}
tst_check "pktgen sends 2000 frames at a fixed rate; the sink counts and times each" load_and_sink
tst_run_cleanups

# xdpgen's XDP frames through the bridge, 64 a batch, each batch once the
# DUT sent the last: every frame arrives once, in 2000 / 64 batches. The
# sink counts its UDP frames to port 9 at tc ingress (the stack's own
# frames cross the bridge too). Its program held in the dispatcher by a
# veth that stays down (-H, as make bench runs it), and let go at exit.
# Its own marks (-M, NOPs outside the plugin) read the DUT's counter and
# another file (-R) beside them.
xdpgen_batches() {
	local out cfd got also f0 f1
	tst_topology 1 || return 1
	ethtool -K dut0 gro on >/dev/null || return 1
	bench_up bridge || return 1
	tst_defer bench_down bridge
	ip netns exec "$sink" tc qdisc add dev sink0 clsact &&
		ip netns exec "$sink" tc filter add dev sink0 ingress protocol ip \
			u32 match ip protocol 17 0xff match ip dport 9 0xffff action drop || return 1
	ip -n "$gen" link add xghold0 type veth peer name xghold1 || return 1
	also=$(mktemp)
	tst_defer rm -f "$also"
	echo 7 >"$also"
	exec {cfd}<"/sys/class/net/dut1/statistics/tx_packets"
	out=$(ip netns exec "$gen" xdpgen -H xghold0 -M 1 -R "$also" gen0 "$sink_mac" 128 2000 16 64 \
		"/dev/fd/$cfd")
	exec {cfd}<&-
	tst_busywait 5000 tst_at_least 2000 sink_udp9
	got=$(sink_udp9)
	tst_diag "xdpgen: $out; the sink took $got of its frames"
	read -r f0 f1 _ <<<"${out##* marked }"
	[[ $out == "sent 2000 usec "*" batches 32 "*" marked "*" span "*" also 7 7" ]] &&
		[ "$got" -eq 2000 ] && [ $((f1 - f0)) -ge 2000 ] &&
		! ip -n "$gen" link show xghold0 | grep -q ' xdp' || return 1
	# Woken by the sink's own counter (tcx, 6.6 on), which drops what
	# it counts: every frame counted there, in 32 batches, and its
	# program gone with xdpgen.
	tst_kernel_at_least 6.6 || { tst_diag "no tcx before 6.6: the counter file only"; return 0; }
	out=$(ip netns exec "$gen" xdpgen -H xghold0 -S "$sink:sink0" gen0 "$sink_mac" 128 2000 16 64)
	tst_diag "xdpgen -S: $out"
	[[ $out == "sent 2000 usec "*" batches 32 waits 0 counted 2000" ]] &&
		[ "$(sink_udp9)" -eq "$got" ]
}
sink_udp9() {
	ip netns exec "$sink" tc -s filter show dev sink0 ingress |
		sed -nE 's/.*Sent [0-9]+ bytes ([0-9]+) pkt.*/\1/p' | head -n 1
}
tst_check "xdpgen sends 2000 XDP frames 64 a batch, each batch after the last arrived" xdpgen_batches
tst_run_cleanups

tst_done
