# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The contenders of make bench: each forwards what arrives on $bench_in to
# $bench_out, doing the same work, so one load and one sink measure them
# all. bench/run.sh measures them; tests/guest/test_bench.sh checks that
# each forwards frames intact. Needs tests/guest/lib.sh sourced first.
#
#   bench_up NAME / bench_down NAME   start / stop one contender
#
# bench_up sets bench_load_mac, the MAC the load is sent to: the sink's,
# but a router's own for nf-nat (a router takes no frame sent to another).
#
# CPU placement, as NetSlices lays a slice out: the DUT's receive work
# (RPS on the ingress veth; counting instructions, its NAPI thread:
# bench_coalesce in bench/run.sh) runs on bench_kcpu and every user-space
# forwarder on bench_ucpu; pktgen and the sink keep CPU 0. An in-kernel
# forwarder does all its work on bench_kcpu. The 2-slice contender crosses
# them (slice 0 receives on kcpu for an NF thread on ucpu, slice 1 the
# other way round), and RPS spreads its flows over both.

bench_in=${bench_in:-dut0}
bench_out=${bench_out:-dut1}
bench_kcpu=${bench_kcpu:-1}
bench_ucpu=${bench_ucpu:-2}
bench_nat_public=10.99.0.100

# Every contender, in the order a round runs them; then the ones only a
# user's NETSLICE_BENCH_CONTENDERS runs: afp-v3-ring (TPACKET_V3 with a TX
# ring too) costs twice afp-v3 (docs/bench-ticks.md); and the floors, null
# forwarders the instruction count measures a path's cost by: floor-tc
# (tc's mirred redirect at ingress: the skb path every contender but
# AF_XDP takes, with nothing done to the frame) and floor-xdp (a native
# XDP program's redirect: AF_XDP's path); and afxdp-zc, AF_XDP bound
# zero-copy, for NICs whose driver offers it (virtio-net from 7.2); and
# the rule rows of the instruction count: ring-fwd-rule (ring-fwd-off with
# a rule steering the load's flow 10000 to slice 0) and ring-fwd-replace
# (that rule replaced bench_replace_rate times a second by bench/rule_gen.c
# on the DUT's user-side CPU, for as long as the contender is up); and
# ring-fwd-busy, ring-fwd-off paced by its own timer with preferred busy
# polling (the instruction count's wake-up row); and the chain rows,
# each two forwarders, one after the other, on the same
# frames: ring-chain-auto, nf-fwd on slice 0 and on slice 1 (ring mode,
# the cut), slice 0's next slice 1, so that the first NF's default egress
# hands each frame, its payload parked, to the second, which sends it out;
# ring-pair-off and ring-pair-auto, the same two NFs (whole frames, the
# cut) each on a slice of its own, connected by a veth pair instead
# (bench_pair_a -> bench_pair_b); afxdp-pair, two AF_XDP forwarders
# connected by that pair.
# The ns-* contenders use read/write (-M rw), the ring-* ones ring mode.
bench_contenders=(ns-fwd-off ns-fwd-rules ns-fwd-auto ns-fwd-auto-2s ns-fw-off ns-fw-auto
	ns-nat-off ns-nat-auto ring-fwd-off ring-fwd-auto ring-fw-auto
	afp-mmsg afp-v3 afp-v3-2w afxdp afxdp-busy bridge)
bench_extra=(afp-v3-ring floor-tc floor-xdp afxdp-zc ring-fwd-rule ring-fwd-replace ring-fwd-busy
	ring-chain-auto ring-pair-off ring-pair-auto afxdp-pair)
bench_pair_a=nsbpa bench_pair_b=nsbpb
# The running contender's processes and their output files.
bench_pids=() bench_out_files=()
bench_replace_rate=${NETSLICE_BENCH_REPLACE_RATE:-100000}
bench_load_rule="proto udp src 10.99.1.1 dst 10.99.9.9 sport 10000 dport 9"
# With a baseline module (make bench BASELINE=REV: the module of another
# commit, same tools), nf-fwd on it too: before and after in one run.
bench_base_ko=${NETSLICE_BENCH_BASE_KO:-}
[ -z "$bench_base_ko" ] ||
	bench_contenders=(base-fwd-off base-fwd-auto base-ring-fwd-off base-ring-fwd-auto
		"${bench_contenders[@]}")

# A firewall of 100 rules: 99 that UDP to 10.99.9.9 passes over (protocol
# matches, source does not) and the accept at the end.
bench_fw_rules() {
	local i
	echo "default drop"
	for ((i = 0; i < 99; i++)); do
		echo "drop udp from 10.200.$i.0/24 dport $((1000 + i))"
	done
	echo "accept udp to 10.99.9.9"
}

# 10,000 wildcard rules over 100 masks (25 source by 4 destination prefix
# lengths), none matching the load (UDP 10.99.1.x -> 10.99.9.9).
bench_wild_rules() {
	awk 'BEGIN {
		split("16 20 24 28", d, " ")
		for (i = 0; i < 10000; i++)
			printf "proto udp src 172.%d.%d.0/%d dst 198.%d.%d.0/%d pref %d slice 0\n",
				16 + i % 16, int(i / 64) % 256, 8 + i % 25, 18 + i % 2, i % 256,
				d[1 + int(i / 25) % 4], i
	}'
}

# bench_insmod KO PARAM...: KO, or the installed module if KO is not there.
bench_insmod() {
	local ko=$1
	shift
	if [ -e "$ko" ]; then
		insmod "$ko" "$@"
	else
		modprobe netslice "$@"
	fi
}

# bench_ns_up SLICES NF [NF_ARGS...]: the module (bench_ko, default the one
# under test) feeding SLICES slices from the pair, the NF on it.
bench_ns_up() {
	bench_ns_load "$1" && shift && bench_ns_start "$@"
}

# bench_ns_load SLICES: bench_ns_up's module, no NF yet; bench_ifaces, if
# set, the interfaces to attach instead (the module's ifaces= list).
bench_ns_load() {
	local slices=$1
	tst_module_loaded && rmmod netslice
	bench_insmod "${bench_ko:-$TST_KO}" slices="$slices" rxq_size=4096 \
		ifaces="${bench_ifaces:-$bench_in:$bench_out}" || return 1
	if [ -n "${bench_pin:-}" ]; then
		netslicectl slice set 0 kernel-cpus "$bench_kcpu" user-cpus "$bench_ucpu" || return 1
		[ "$slices" -lt 2 ] ||
			netslicectl slice set 1 kernel-cpus "$bench_ucpu" user-cpus "$bench_kcpu" || return 1
		bench_rps $(((1 << bench_kcpu) | (slices > 1 ? 1 << bench_ucpu : 0)))
	fi
}

# bench_ns_start NF [NF_ARGS...]: an NF on the loaded module, one of the
# contender's processes (bench_pids).
bench_ns_start() {
	tst_start_bg "running on" "$@" || return 1
	bench_pids+=("$bg_pid")
	bench_out_files+=("$bg_out")
}

# bench_chain_next SLICE NEXT: SLICE's next slice, NEXT, over the netlink
# family (slice-set, NETSLICE_CMD_SLICE_SET 5: NETSLICE_A_SLICE_ID 1,
# NETSLICE_A_SLICE_CHAIN_NEXT 15) as the uapi has it, needing no
# netslicectl of the same age.
bench_chain_next() {
	local ack
	ack=$(/usr/bin/python3 "$TST_TOP/tests/guest/nlraw.py" 5 1:u32:"$1" 15:u32:"$2") || return 1
	[ "$ack" = "errno 0" ] ||
		{ echo "bench: slice $1's next slice $2: $ack" >&2; return 1; }
}

# bench_pair_link: the veth pair between the pair contenders' two
# forwarders, bench_pair_a -> bench_pair_b, until cleanup. No IPv6: the
# stack would send its own frames through the forwarders, and the
# sink's count would take them for the load's.
bench_pair_link() {
	local d
	ip link add "$bench_pair_a" type veth peer name "$bench_pair_b" || return 1
	tst_defer ip link del "$bench_pair_a"
	for d in "$bench_pair_a" "$bench_pair_b"; do
		[ ! -e "/proc/sys/net/ipv6/conf/$d" ] || sysctl -qw "net.ipv6.conf.$d.disable_ipv6=1" ||
			return 1
	done
	ip link set "$bench_pair_a" up && ip link set "$bench_pair_b" up
}

# bench_chain_up CUT: ring-chain-auto's NFs. Slice 1's first, so that a
# frame the first hands on finds its reader.
bench_chain_up() {
	bench_ifaces="$bench_in:$bench_out@0" bench_ns_load 2 &&
		bench_chain_next 0 1 &&
		bench_ns_start nf-fwd -M ring -m "$1" -s 1 &&
		bench_ns_start nf-fwd -M ring -m "$1" -s 0
}

# bench_pair_up CUT: ring-pair-*'s NFs: bench_in feeds slice 0, whose NF
# sends out of bench_pair_a (the pair's default egress); bench_pair_b
# feeds slice 1, whose NF sends out of bench_out.
bench_pair_up() {
	bench_pair_link &&
		bench_ifaces="$bench_in:$bench_pair_a@0,$bench_pair_b:$bench_out@1" bench_ns_load 2 &&
		bench_ns_start nf-fwd -M ring -m "$1" -s 1 &&
		bench_ns_start nf-fwd -M ring -m "$1" -s 0
}

# bench_rps MASK: the CPUs that receive on the ingress veth (a real
# NIC's interrupts place its receive work instead).
bench_rps() {
	[ -z "${bench_pin:-}" ] || [ -n "${NETSLICE_BENCH_NICS:-}" ] || [ -n "${bench_napi_ns:-}" ] ||
		printf '%x\n' "$1" >"/sys/class/net/$bench_in/queues/rx-0/rps_cpus"
}

# bench_napi_pin DEV: DEV's NAPI threads, if it has any (threaded), on
# the kernel-side CPU. A kernel thread is born where kthreadd may run:
# counting instructions, CPU 0 alone (bench/run.sh), the load's.
bench_napi_pin() {
	local t
	for t in $(pgrep "^napi/$1-"); do
		taskset -pc "$bench_kcpu" "$t" >/dev/null || return 1
	done
}

# bench_peer_up READY COMMAND...: a peer forwarder on the user-side CPU
# (bench_peer_cpus instead: the CPUs of a peer with a worker per CPU,
# which receives on them all, as the 2-slice contender does).
bench_peer_up() {
	local ready=$1
	shift
	if [ -n "${bench_peer_cpus:-}" ]; then
		bench_rps $(((1 << bench_kcpu) | (1 << bench_ucpu)))
	else
		bench_rps $((1 << bench_kcpu))
	fi
	tst_start_bg "$ready" taskset -c "${bench_peer_cpus:-$bench_ucpu}" "$@" ||
		{ cat "$bg_out" >&2; return 1; }
	bench_pids+=("$bg_pid")
	bench_out_files+=("$bg_out")
}

# bench_busy_dev DEFER TIMEOUT_NS: the ingress port's deferred interrupt
# for preferred busy polling (napi_defer_hard_irqs, gro_flush_timeout);
# the first call saves what was set for bench_down to put back.
bench_busy_dev() {
	local d=/sys/class/net/$bench_in
	[ -n "${bench_busy_saved:-}" ] ||
		bench_busy_saved="$(cat "$d/napi_defer_hard_irqs") $(cat "$d/gro_flush_timeout")" || return 1
	echo "$1" >"$d/napi_defer_hard_irqs" && echo "$2" >"$d/gro_flush_timeout"
}

bench_up() {
	bench_pids=() bench_out_files=() bench_report= bench_load_mac=$sink_mac
	case $1 in
	ns-fwd-off) bench_ns_up 1 nf-fwd -M rw -m off ;;
	ns-fwd-rules)
		# ns-fwd-off with 10,000 wildcard rules over 100 masks that the
		# load's flows all miss: what the lookup costs RX.
		bench_ns_up 1 nf-fwd -M rw -m off || return 1
		bench_wild_rules | netslicectl rule load -
		;;
	ns-fwd-auto) bench_ns_up 1 nf-fwd -M rw -m auto ;;
	ns-fwd-auto-2s) bench_ns_up 2 nf-fwd -M rw -m auto ;;
	ring-fwd-off) bench_ns_up 1 nf-fwd -M ring -m off ;;
	ring-fwd-auto) bench_ns_up 1 nf-fwd -M ring -m auto ;;
	ring-fwd-busy)
		# ring-fwd-off paced by its own timer: every period (the
		# coalescing's, bench_napi_ns) it wakes and busy-polls the port
		# (preferred), which takes what the port's deferred interrupt
		# would have; that timer (gro_flush_timeout) is only a
		# fallback at twice the period. One wake-up a period, as an
		# in-kernel forwarder's.
		local period=${bench_napi_ns:-100000}
		bench_busy_dev 2 $((2 * period)) || return 1
		bench_ns_up 1 nf-fwd -M ring -m off --busy-poll 2 --prefer-busy-poll \
			--wake-every $((period / 1000))
		;;
	ring-fwd-rule | ring-fwd-replace)
		bench_ns_up 1 nf-fwd -M ring -m off &&
			netslicectl rule add $bench_load_rule slice 0 || return 1
		[ "$1" = ring-fwd-replace ] || return 0
		# The replaces done so far in bench_rulegen_count, for the
		# instruction count to read around each measurement.
		bench_rulegen_out=$(mktemp) bench_rulegen_count=$(mktemp)
		echo 0 >"$bench_rulegen_count"
		taskset -c "$bench_ucpu" rule-gen replace "$bench_replace_rate" 1000000 \
			"$bench_rulegen_count" >"$bench_rulegen_out" 2>&1 &
		bench_rulegen_pid=$!
		;;
	base-fwd-off | base-fwd-auto | base-ring-fwd-off | base-ring-fwd-auto)
		[ -e "$bench_base_ko" ] || { echo "bench: no baseline module" >&2; return 1; }
		bench_ko=$bench_base_ko bench_ns_up 1 nf-fwd \
			-M "$([[ $1 == base-ring-* ]] && echo ring || echo rw)" -m "${1##*-}"
		;;
	ns-fw-off | ns-fw-auto | ring-fw-auto)
		[ -s "${bench_fw_file:-}" ] || {
			bench_fw_file=$(mktemp)
			tst_defer rm -f "$bench_fw_file"
			bench_fw_rules >"$bench_fw_file"
		}
		bench_ns_up 1 nf-firewall -M "$([[ $1 == ring-* ]] && echo ring || echo rw)" \
			-m "${1##*-}" --rules "$bench_fw_file"
		;;
	ns-nat-off | ns-nat-auto)
		# The load goes to no host: the sink's MAC is the next hop's.
		bench_load_mac=$(cat "/sys/class/net/$bench_in/address") || return 1
		bench_ns_up 1 nf-nat -M rw -m "${1#ns-nat-}" --inside "$bench_in" \
			--outside "$bench_out" --public "$bench_nat_public" \
			--gateway "10.99.0.2@$sink_mac"
		;;
	afp-mmsg) bench_peer_up running afp-fwd mmsg "$bench_in" "$bench_out" 64 ;;
	afp-v3) bench_peer_up running afp-fwd v3 "$bench_in" "$bench_out" 64 ;;
	afp-v3-ring) bench_peer_up running afp-fwd v3-ring "$bench_in" "$bench_out" 64 ;;
	afp-v3-2w)
		bench_peer_cpus=$bench_ucpu,$bench_kcpu \
			bench_peer_up running afp-fwd v3 "$bench_in" "$bench_out" 64 2
		;;
	ring-chain-auto) bench_chain_up auto ;;
	ring-pair-off | ring-pair-auto) bench_pair_up "${1#ring-pair-}" ;;
	afxdp | afxdp-busy | afxdp-zc | afxdp-pair)
		if [ "$1" = afxdp-zc ]; then
			# Zero-copy: on NICs whose driver offers it (xsk-fwd).
			bench_peer_up running xsk-fwd "$bench_in" "$bench_out" zc 64 || return 1
		elif [ "$1" = afxdp-pair ]; then
			# The second first, as the chain's. Its program on
			# bench_pair_b turns TSO off on bench_pair_a, so that veth
			# hands the first's frames to it in its NAPI (where XDP
			# runs), on the CPU that sent them.
			bench_pair_link &&
				bench_peer_up running xsk-fwd "$bench_pair_b" "$bench_out" drv 64 &&
				bench_peer_up running xsk-fwd "$bench_in" "$bench_pair_a" drv 64 &&
				bench_napi_pin "$bench_pair_b" || return 1
		elif [ "$1" = afxdp-busy ]; then
			# What af_xdp.rst asks of the device for preferred busy polling.
			bench_busy_dev 2 200000 || return 1
			bench_peer_up running xsk-fwd "$bench_in" "$bench_out" drv 64 busy || return 1
		else
			bench_peer_up running xsk-fwd "$bench_in" "$bench_out" drv 64 || return 1
		fi
		# veth's XDP NAPI (there once the program is attached), threaded and
		# pinned, receives on the kernel-side CPU (bench_napi_ns: it already
		# does, for every contender).
		[ -z "${bench_napi_ns:-}" ] || return 0
		echo 1 >"/sys/class/net/$bench_in/threaded" && bench_napi_pin "$bench_in"
		;;
	floor-tc)
		bench_rps $((1 << bench_kcpu))
		tc qdisc add dev "$bench_in" clsact &&
			tc filter add dev "$bench_in" ingress matchall \
				action mirred egress redirect dev "$bench_out"
		;;
	floor-xdp)
		bench_rps $((1 << bench_kcpu))
		# veth passes an XDP frame on only to a peer with NAPI (GRO on):
		# make bench's sink has it, a test's may not.
		[ -z "${sink:-}" ] || [ -n "${NETSLICE_BENCH_NICS:-}" ] ||
			ip netns exec "$sink" ethtool -K "${sink_if:-sink0}" gro on >/dev/null || return 1
		xdpgen redirect "$bench_in" "$bench_out"
		;;
	bridge)
		bench_rps $((1 << bench_kcpu))
		ip link add nsbench-br type bridge stp_state 0 forward_delay 0 || return 1
		ip link set "$bench_in" master nsbench-br &&
			ip link set "$bench_out" master nsbench-br &&
			ip link set nsbench-br up
		;;
	*) echo "bench: unknown contender $1" >&2; return 1 ;;
	esac
}

bench_down() {
	local rc=0 i last
	case $1 in
	afxdp*) [ -n "${bench_napi_ns:-}" ] || echo 0 >"/sys/class/net/$bench_in/threaded" || rc=1 ;;
	esac
	if [ -n "${bench_busy_saved:-}" ]; then
		# Back to what bench_coalesce (bench/run.sh) or the kernel set.
		# shellcheck disable=SC2086
		bench_busy_dev $bench_busy_saved || rc=1
		bench_busy_saved=
	fi
	if [ -n "${bench_rulegen_pid:-}" ]; then
		kill -TERM "$bench_rulegen_pid" && wait "$bench_rulegen_pid" || rc=1
		sed "s/^/# $1: /" "$bench_rulegen_out" >&2
		rm -f "$bench_rulegen_out" "$bench_rulegen_count"
		bench_rulegen_pid= bench_rulegen_count=
	fi
	# The contender's processes, the last started first (a chain's
	# first NF before the one it hands frames to). Each one's last line,
	# a peer's "rx N tx N drop N lost N", for a diagnosis.
	bench_report=
	for ((i = ${#bench_pids[@]} - 1; i >= 0; i--)); do
		kill -TERM "${bench_pids[i]}" && wait "${bench_pids[i]}" || rc=1
		[ $rc = 0 ] || sed "s/^/# $1: /" "${bench_out_files[i]}" >&2
		last=$(tail -n 1 "${bench_out_files[i]}")
		bench_report+=${bench_report:+; }$last
		rm -f "${bench_out_files[i]}"
	done
	bench_pids=() bench_out_files=()
	case $1 in
	ns-* | ring-* | base-*) rmmod netslice || rc=1 ;;
	esac
	case $1 in
	ring-pair-* | afxdp-pair) ip link del "$bench_pair_a" || rc=1 ;;
	bridge) ip link del nsbench-br || rc=1 ;;
	floor-tc) tc qdisc del dev "$bench_in" clsact || rc=1 ;;
	floor-xdp) ip link set dev "$bench_in" xdp off || rc=1 ;;
	esac
	return $rc
}
