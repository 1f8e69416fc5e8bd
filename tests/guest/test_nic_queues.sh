#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A NIC with real queues (tests/vm/run's NETSLICE_VM_NICS=1): two
# multi-queue virtio-net ports, one queue pair per vCPU, whose host taps
# spread frames over the queues by flow hash, as a NIC's RSS does. A slice
# per RX queue: each queue must feed its own slice (RX queue steering, not
# a hash of ours), every frame arrive once, the driver's GRO reach
# super-packet slices; and attach turns a driver's LRO off (vmxnet3 has it
# on by default).
#
#   gen: G (:11) --tap, bridge-- A (:1a, N queues) [netslice, N slices + nf-fwd]
#        B (:1b, N queues) --bridge, tap-- sink: S (:12)
. "$(dirname "$0")/lib.sh"

tst_plan 4
set -o pipefail
tst_module_loaded && rmmod netslice

g=$(tst_nic 11) a=$(tst_nic 1a) b=$(tst_nic 1b) s=$(tst_nic 12) c=$(tst_nic 0c) cpeer=$(tst_nic 0b)
if [ -z "$g$a$b$s" ]; then
	# A skip only where the runner said why it could not add them: a NIC
	# missing for any other reason is a failure, as test_nic.sh's are.
	why=${NETSLICE_VM_NO_QUEUE_NICS:-}
	for t in "each RX queue of a multi-queue NIC feeds its own slice, on its CPU" \
		 "nf-fwd on every slice forwards each frame once and intact" \
		 "the driver's GRO reaches a slice that reads super-packets whole"; do
		if [ -n "$why" ]; then
			tst_skip "$t" "$why"
		else
			tst_result "$t (no multi-queue NICs, and tests/vm/run said of none why)" 1
		fi
	done
else
	nq=$(find "/sys/class/net/$a/queues" -maxdepth 1 -name 'rx-*' | wc -l)
fi

# queue_topology: G in gen, S in sink, A and B here, all up, no IPv6.
queue_topology() { tst_nic_topology "$g" "$a" "$b" "$s"; }

# slice_stat SLICE NAME
slice_stat() { netslice-info -s | sed -n "s/^slice $1:.* $2=\([0-9]*\).*/\1/p"; }

# queue_irqs QUEUE CPU: interrupts of A's RX queue QUEUE on CPU.
queue_irqs() {
	local dev
	dev=$(basename "$(readlink -f "/sys/class/net/$a/device")")
	awk -v q="$dev-input.$1" -v c=$(($2 + 2)) '$NF == q {print $c}' /proc/interrupts
}

# 4,000 frames in 64 flows, read from the slices (tests/guest/queue_read):
# every frame read on slice i reports RX queue i (the driver's, recorded
# in the skb), every frame A received is read, the frames A never
# received are exactly those counted dropped on the way (G's port, the
# host's taps and bridges, A: tst_traffic_over_port), every queue takes some (the tap spreads flows
# by hash), and queue i interrupts CPU i, its slice's kernel CPU.
queues_feed_slices() {
	local i irq0=() irq rc=0 out line sl q n total=0 per=() rx0 got drops0 drops
	queue_topology || return 1
	tst_load slices="$nq" ifaces="$a:$b" rxq_size=4096 || return 1
	for ((i = 0; i < nq; i++)); do
		netslicectl slice set "$i" kernel-cpus "$i" user-cpus "$i" || return 1
		irq0[i]=$(queue_irqs "$i" "$i") per[i]=0
	done
	tst_start_bg reading queue_read "$nq" 4000 "$(tst_scaled 5000)" || return 1
	drops0=$(tst_wire_drops "$gen" "$g" "$a") || return 1
	rx0=$(cat "/sys/class/net/$a/statistics/rx_packets")
	ip netns exec "$gen" nstraffic send "$g" "$sink_mac" 4000 64 >/dev/null || return 1
	wait "$bg_pid" || return 1
	got=$(($(cat "/sys/class/net/$a/statistics/rx_packets") - rx0))
	drops=$(tst_wire_drops "$gen" "$g" "$a") || return 1
	out=$bg_out
	while read -r line; do
		[[ $line =~ ^slice\ ([0-9]+)\ queue\ ([0-9a-z]+)\ packets\ ([0-9]+)$ ]] || continue
		sl=${BASH_REMATCH[1]} q=${BASH_REMATCH[2]} n=${BASH_REMATCH[3]}
		tst_diag "slice $sl: $n frames from RX queue $q"
		[ "$sl" = "$q" ] || rc=1
		total=$((total + n)) per[sl]=$((per[sl] + n))
	done <"$out"
	for ((i = 0; i < nq; i++)); do
		irq=$(($(queue_irqs "$i" "$i") - irq0[i]))
		tst_diag "queue $i: $irq interrupts on CPU $i"
		[ "${per[i]}" -gt 0 ] && [ "$irq" -gt 0 ] || rc=1
	done
	tst_diag "$total of 4000 frames read; $a received $got; counted dropped on the way:" \
		"$(tst_wire_drops_delta 4000 "$drops0" "$drops")"
	[ "$total" = "$got" ] && [ $((4000 - got)) = "$(tst_wire_drops_delta 4000 "$drops0" "$drops" total)" ] &&
		[ "$rc" = 0 ]
}

# The same through nf-fwd on every slice: each frame arrives once and
# intact at S, and every slice forwards some.
queues_forward() {
	local i rc=0
	queue_topology || return 1
	tst_load slices="$nq" ifaces="$a:$b" rxq_size=4096 store_timeout_ms=60000 || return 1
	for ((i = 0; i < nq; i++)); do
		netslicectl slice set "$i" kernel-cpus "$i" user-cpus "$i" || return 1
	done
	tst_start_fwd -m off || return 1
	tst_traffic_over_port "$gen" "$g" "$sink" "$s" "$sink_mac" 4000 64 "$a" || rc=1
	for ((i = 0; i < nq; i++)); do
		tst_diag "slice $i: rx $(slice_stat "$i" rx_packets), tx $(slice_stat "$i" tx_packets)"
		[ "$(slice_stat "$i" tx_packets)" -gt 0 ] || rc=1
	done
	[ "$rc" = 0 ] && tst_stop_fwd
}

# 8 MiB of TCP from G to S, the sender's TSO on: what the driver hands up
# (GRO in its NAPI poll, or a GSO frame from the host) reaches the slices
# as super-packets read whole, and arrives intact.
gro_reaches_slices() {
	local gso
	queue_topology || return 1
	ip -n "$gen" addr add 10.99.0.1/24 dev "$g" && ip -n "$sink" addr add 10.99.0.2/24 dev "$s" ||
		return 1
	tst_load slices="$nq" ifaces="$a:$b" rxq_size=4096 store_timeout_ms=60000 || return 1
	tst_start_fwd -m auto || return 1
	TST_TCP_IF=$g tst_tcp_stream 10.99.0.2 $((8 * 1024 * 1024)) || return 1
	gso=$(tst_stat_sum rx_gso_packets)
	tst_diag "rx_gso_packets $gso (segments $(tst_stat_sum rx_gso_segments)), tx_gso $(tst_stat_sum tx_gso)"
	[ "$gso" -gt 0 ] && tst_stop_fwd
}

# A vmxnet3 port with LRO on; attached, it is off: LRO merges what a
# forwarder must send on unchanged. On first, not as it came up: a 7.2
# guest once had it off before attach (a CI run; the others had it on).
lro_off() {
	local before after
	[ -n "$c" ] && [ -n "$cpeer" ] || { tst_diag "no vmxnet3 port (:0c) or hub port (:0b)"; return 1; }
	ip link set "$c" up && ip link set "$cpeer" up && ethtool -K "$c" lro on || return 1
	before=$(ethtool -k "$c" | sed -n 's/^large-receive-offload: //p')
	tst_load || return 1
	netslicectl link attach dev "$c" peer "$cpeer" || return 1
	after=$(ethtool -k "$c" | sed -n 's/^large-receive-offload: //p')
	tst_diag "vmxnet3 $c: LRO $before before attach, $after attached"
	[ "$before" = on ] && [ "$after" = off ]
}

if [ -n "$g$a$b$s" ]; then
	tst_check "each RX queue of a $nq-queue virtio-net port feeds its own slice, on its CPU" \
		queues_feed_slices
	tst_run_cleanups
	tst_check "nf-fwd on every slice forwards each frame once and intact" queues_forward
	tst_run_cleanups
	tst_check "the driver's GRO reaches a slice that reads super-packets whole" gro_reaches_slices
	tst_run_cleanups
fi
if [ -n "$c" ]; then
	tst_check "attach turns a vmxnet3 port's LRO off" lro_off
else
	tst_skip "attach turns a vmxnet3 port's LRO off" "no vmxnet3 port (NETSLICE_VM_NICS=1)"
fi
tst_run_cleanups
tst_done
