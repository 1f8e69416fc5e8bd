#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): bulk TCP through the DUT, the sender's offloads
# at their defaults (TSO on veth: 64 KiB super-packets reach dut0 whole).
# Runs inside the guest after the packet-rate contenders (make bench).
#
#   gen: gen0 --veth-- dut0 [contender] dut1 --veth-- sink: sink0
#
# Contenders, rounds interleaved:
#   bridge        a Linux bridge of dut0 and dut1
#   ns-fwd        nf-fwd -m auto: super-packets read whole (one header each)
#   ns-fwd-nogso  nf-fwd -m auto --no-gso: segmented on receive, as before
#   ns-nat        nf-nat -m auto, gen's address masqueraded as 10.99.0.100
#   masq          the kernel's own: dut0/dut1 routing, nftables masquerade
# 1 and 8 parallel connections (8 for bridge and ns-fwd only), each stream
# checked byte for byte by its receiver (nstraffic). Goodput is the bytes
# over the wall-clock time from the first send to the last byte received.
#
# The endpoints run where the scheduler puts them, as iperf3 would: pinned
# to one CPU with pktgen's, they and not the DUT set the pace.
#
# Environment: NETSLICE_BENCH_TCP_ROUNDS (3), NETSLICE_BENCH_TCP_MIB (128),
# NETSLICE_BENCH_TCP (the contenders, default all; "none" for none).
# Prints a "# " progress line per transfer and the CSV as "csv: " lines.
. "$(dirname "$0")/../tests/guest/lib.sh"

rounds=${NETSLICE_BENCH_TCP_ROUNDS:-3}
mib=${NETSLICE_BENCH_TCP_MIB:-128}
read -ra contenders <<<"${NETSLICE_BENCH_TCP:-bridge ns-fwd ns-fwd-nogso ns-nat masq}"
[ "${contenders[*]}" != none ] || exit 0
kcpu=1 ucpu=2
[ "$(nproc)" -ge 3 ] || ucpu=1

tst_module_loaded && rmmod netslice
modprobe bridge
tst_topology 1 && tst_addrs || exit 1
tst_sysctl net.ipv4.conf.all.forwarding 0

# The DUT's receive work on kcpu, as for the packet-rate contenders.
printf '%x\n' $((1 << kcpu)) >/sys/class/net/dut0/queues/rx-0/rps_cpus
printf '%x\n' $((1 << kcpu)) >/sys/class/net/dut1/queues/rx-0/rps_cpus

netslice_up() {
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	netslicectl slice set 0 kernel-cpus "$kcpu" user-cpus "$ucpu" || return 1
	tst_start_bg "running on" "$@" || { cat "$bg_out" >&2; return 1; }
	nf_pid=$bg_pid
}

netslice_down() {
	kill -TERM "$nf_pid" && wait "$nf_pid"
	rmmod netslice
}

# Routed: gen 10.98.0.1 -> dut0 10.98.0.254 | dut1 10.99.0.254 -> sink.
masq_up() {
	ip -n "$gen" addr del 10.99.0.1/24 dev gen0 &&
		ip -n "$gen" addr add 10.98.0.1/24 dev gen0 &&
		ip -n "$gen" route add default via 10.98.0.254 &&
		ip addr add 10.98.0.254/24 dev dut0 && ip addr add 10.99.0.254/24 dev dut1 &&
		sysctl -qw net.ipv4.conf.all.forwarding=1 || return 1
	nft -f - <<-EOF
	table ip nsbench {
		chain post {
			type nat hook postrouting priority srcnat; policy accept;
			oifname "dut1" masquerade
		}
	}
	EOF
}

masq_down() {
	nft delete table ip nsbench
	sysctl -qw net.ipv4.conf.all.forwarding=0
	ip addr del 10.98.0.254/24 dev dut0 && ip addr del 10.99.0.254/24 dev dut1 &&
		ip -n "$gen" addr del 10.98.0.1/24 dev gen0 &&
		ip -n "$gen" addr add 10.99.0.1/24 dev gen0
}

tcp_up() {
	case $1 in
	bridge)
		ip link add nsbench-br type bridge stp_state 0 forward_delay 0 &&
			ip link set dut0 master nsbench-br && ip link set dut1 master nsbench-br &&
			ip link set nsbench-br up
		;;
	ns-fwd) netslice_up nf-fwd -m auto ;;
	ns-fwd-nogso) netslice_up nf-fwd -m auto --no-gso ;;
	ns-nat) netslice_up nf-nat -m auto --inside dut0 --outside dut1 --public 10.99.0.100 ;;
	masq) masq_up ;;
	*) echo "tcp: unknown contender $1" >&2; return 1 ;;
	esac
}

tcp_down() {
	case $1 in
	bridge) ip link del nsbench-br ;;
	ns-*) netslice_down ;;
	masq) masq_down ;;
	esac
}

# transfer CONNS: CONNS streams of mib/CONNS MiB each from gen to the sink,
# at once; sets usec (first send to last byte). Fails if any stream does.
transfer() {
	local conns=$1 per i rc=0 t0 ready pids=() rpids=()
	per=$(((mib << 20) / conns))
	ready=$(mktemp -d)
	for ((i = 0; i < conns; i++)); do
		ip netns exec "$sink" nstraffic tcp-recv $((5101 + i)) "$per" \
			"$ready/$i" >"$ready/$i.out" 2>&1 &
		rpids+=($!)
		tst_wait_job "${rpids[i]}" "$ready/$i.out" 0 test -e "$ready/$i" || { rc=1; break; }
	done
	t0=$(date +%s%N)
	for ((i = 0; i < conns && !rc; i++)); do
		ip netns exec "$gen" nstraffic tcp-send 10.99.0.2 $((5101 + i)) "$per" &
		pids+=($!)
	done
	# A receiver that never got its sender would wait for ever.
	[ $rc = 0 ] || kill "${rpids[@]}" 2>/dev/null
	for i in "${pids[@]}" "${rpids[@]}"; do
		wait "$i" || rc=1
	done
	usec=$((($(date +%s%N) - t0) / 1000))
	[ $rc = 0 ] || cat "$ready"/*.out >&2
	rm -rf "$ready"
	return $rc
}

echo "csv: round,contender,conns,mib,secs,goodput_mbytes_per_s,reads_per_mib"
for ((round = 1; round <= rounds; round++)); do
	for name in "${contenders[@]}"; do
		tcp_up "$name" || { echo "tcp: $name did not start" >&2; exit 1; }
		conn_list=1
		case $name in bridge | ns-fwd) conn_list="1 8" ;; esac
		for conns in $conn_list; do
			case $name in ns-*) netslicectl stats reset || exit 1 ;; esac
			transfer "$conns" || { echo "tcp: $name, $conns connections: a stream failed" >&2; exit 1; }
			reads=
			case $name in ns-*) reads=$(($(tst_stat_sum read_packets) / mib)) ;; esac
			awk -v r="$round" -v c="$name" -v n="$conns" -v m="$mib" -v us="$usec" \
				-v rd="$reads" -v rounds="$rounds" 'BEGIN {
				s = us / 1e6; g = s ? m * 1048576 / s / 1e6 : 0
				printf "csv: %d,%s,%d,%d,%.3f,%.1f,%s\n", r, c, n, m, s, g, rd
				printf "# tcp round %d/%d %-13s %d conn: %6.1f MB/s%s\n", r, rounds, c, n, g,
					rd != "" ? sprintf(", %s reads per MiB", rd) : ""
			}'
		done
		tcp_down "$name" || { echo "tcp: $name did not stop cleanly" >&2; exit 1; }
	done
done
tst_run_cleanups
