#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, the part that runs where the module is loaded (a guest that
# bench/bench.sh boots, or a host with the module installed): every
# contender of bench/contenders.sh against the same pktgen load, rounds
# interleaved (A B C ... A B C ...), then the rule-update run.
#
#   gen: gen0 --veth-- dut0 [contender] dut1 --veth-- sink: sink0
#
# Environment (NETSLICE_BENCH_*): QUICK=1 (2 rounds of 1 s, 64 and 1518
# bytes; default 5 rounds of 5 s, 64, 512 and 1518 bytes), ROUNDS, SECS
# (per measurement), SIZES, LAT_PPS (the fixed offered rates, "10000"),
# CONTENDERS (a subset), NICS="GEN,IN,OUT,SINK" (four real NICs cabled
# GEN->IN and OUT->SINK instead of veth pairs), ZEROLOSS (the contenders
# whose zero-loss rate is searched, "none" for none; default below),
# ZEROLOSS_STEPS (halvings of the search, 4 quick, 6 otherwise), and
# bench/tcp.sh's TCP, TCP_ROUNDS, TCP_MIB.
#
# Then the profile (bench/profile.sh). Output on stdout: a "# " progress
# line per measurement, and "meta: ", "csv: ", "cdf: ", "fold: ",
# "rules: " and "tcp: " lines, which bench/bench.sh files (the
# guest cannot write the checkout).
. "$(dirname "$0")/../tests/guest/lib.sh"
. "$TST_TOP/bench/contenders.sh"
. "$TST_TOP/bench/profile.sh"
. "$TST_TOP/bench/insns.sh"

# Quick: fewer rounds, shorter measurements, no 512-byte size.
quick=${NETSLICE_BENCH_QUICK:-0}
if [ "$quick" = 1 ]; then rounds=2 secs=1 sizes="64 1518"; else rounds=5 secs=5 sizes="64 512 1518"; fi
rounds=${NETSLICE_BENCH_ROUNDS:-$rounds}
secs=${NETSLICE_BENCH_SECS:-$secs}
sizes=${NETSLICE_BENCH_SIZES:-$sizes}
lat_rates=${NETSLICE_BENCH_LAT_PPS:-10000}
read -ra contenders <<<"${NETSLICE_BENCH_CONTENDERS:-${bench_contenders[*]}}"
zl_list=" ${NETSLICE_BENCH_ZEROLOSS:-ns-fwd-off ns-fwd-auto ns-fw-auto ns-nat-auto ring-fwd-off ring-fwd-auto afp-mmsg afp-v3 afxdp afxdp-busy bridge} "
[ "$quick" = 1 ] && zl_steps=4 || zl_steps=6
zl_steps=${NETSLICE_BENCH_ZEROLOSS_STEPS:-$zl_steps}

# Counting instructions: the harness keeps to CPU 0 with the generator, so
# that the DUT's CPUs run only the DUT (and the kernel's own work).
[ "${NETSLICE_BENCH_MEASURE:-ticks}" != insns ] || taskset -pc 0 $$ >/dev/null
tst_module_loaded && rmmod netslice
# Kernel warnings as they happen: if the guest dies, the log shows why.
dmesg -w --level=emerg,alert,crit,err,warn | sed -u 's/^/kmsg: /' &
tst_defer kill $!
[ "${NETSLICE_BENCH_MEASURE:-ticks}" = insns ] || modprobe pktgen
modprobe bridge
if [ "${NETSLICE_BENCH_MEASURE:-ticks}" = insns ]; then
	# Housekeeping on CPU 0, as isolcpus= would: every process and every
	# kernel thread that may move (per-CPU ones refuse), udevd included,
	# whose workers would otherwise run on the DUT's CPU when a
	# contender adds a device.
	for p in $(ps -eo pid=); do
		taskset -pc 0 "$p" >/dev/null 2>&1 || true
	done
fi

# bench_nic_guest: the DUT's ports as the instruction count wants them:
# promiscuous, one queue pair each (AF_XDP binds one queue, and the
# host's tap picks a queue by flow hash, which the guest cannot steer),
# their interrupts on the DUT's kernel-side CPU, the generator's and the
# sink's on CPU 0.
bench_nic_guest() {
	local d dev irq cpu
	# The slice's CPUs as on veth; the NIC's interrupt places RX, not RPS.
	bench_pin=1
	for d in "$bench_in" "$bench_out"; do
		ethtool -L "$d" combined 1 || return 1
	done
	# The load is addressed to the sink, as a forwarder's is: a real
	# NIC takes it only in promiscuous mode (netslice's attach and the
	# bridge set it themselves; AF_XDP and AF_PACKET forwarders do not).
	ip link set "$bench_in" promisc on || return 1
	tst_defer ip link set "$bench_in" promisc off
	for d in "$bench_in:$bench_kcpu" "$bench_out:$bench_kcpu" "gen:0" "sink:0"; do
		cpu=${d#*:} d=${d%%:*}
		case $d in
		gen) dev=$(ip netns exec "$gen" readlink -f "/sys/class/net/$gen_if/device") ;;
		sink) dev=$(ip netns exec "$sink" readlink -f "/sys/class/net/$sink_if/device") ;;
		*) dev=$(readlink -f "/sys/class/net/$d/device") ;;
		esac
		# virtio-net's interrupts are named after its virtio device.
		for irq in $(awk -v v="${dev##*/}-" 'index($NF, v) == 1 {sub(":", "", $1); print $1}' /proc/interrupts); do
			echo "$cpu" >"/proc/irq/$irq/smp_affinity_list" || return 1
		done
	done
}

# The guest's real-NIC topology (make bench, NETSLICE_VM_NICS=1): the
# multi-queue virtio-net ports of tests/vm/run, generator :11 -> DUT :1a,
# DUT :1b -> sink :12, over the host's taps and bridges.
if [ "${NETSLICE_BENCH_TOPOLOGY:-veth}" = nic ]; then
	NETSLICE_BENCH_NICS=$(tst_nic 11),$(tst_nic 1a),$(tst_nic 1b),$(tst_nic 12)
	[[ $NETSLICE_BENCH_NICS != *,,* && $NETSLICE_BENCH_NICS != ,* && $NETSLICE_BENCH_NICS != *, ]] ||
		{ echo "bench: no multi-queue NICs in this guest ($NETSLICE_BENCH_NICS)" >&2; exit 1; }
fi

if [ -n "${NETSLICE_BENCH_NICS:-}" ]; then
	IFS=, read -r gen_if bench_in bench_out sink_if <<<"$NETSLICE_BENCH_NICS"
	tst_netns_create gen sink || exit 1
	# Physical interfaces return to the initial namespace when these go.
	ip link set "$gen_if" netns "$gen" && ip link set "$sink_if" netns "$sink" || exit 1
	for d in "$bench_in" "$bench_out"; do ip link set "$d" up; done
	ip -n "$gen" link set "$gen_if" up && ip -n "$sink" link set "$sink_if" up
	sink_mac=$(ip -n "$sink" -br link show "$sink_if" | awk '{print $3}')
else
	gen_if=gen0 sink_if=sink0
	tst_topology 1 || exit 1
	# The kernel's default backlog, a little deeper for TCG's bursts.
	tst_sysctl net.core.netdev_max_backlog 10000
	# The sink receives on CPU 0 with pktgen; each contender sets the DUT's.
	ip netns exec "$sink" sh -c "echo 1 >/sys/class/net/$sink_if/queues/rx-0/rps_cpus"
	bench_pin=1
	# Fewer than 3 CPUs: the user side shares the kernel side's CPU.
	[ "$(nproc --all)" -ge 3 ] || bench_ucpu=$bench_kcpu
fi
if [ "${NETSLICE_BENCH_MEASURE:-ticks}" = insns ]; then
	# One busy vCPU per host CPU (make bench pins them, 2 here): the
	# generator's and the DUT's. The DUT's user side shares its kernel
	# side's vCPU, so a row counts one vCPU's work, and no two busy
	# vCPUs take turns on a host CPU; any other vCPU stays offline.
	bench_ucpu=$bench_kcpu
	# pktgen starts a thread per online CPU in every network namespace;
	# on an idle DUT CPU each wakes ten times a second and, under TCG,
	# spins in del_timer_sync() for milliseconds: 5-7 million
	# instructions a second in the idle rows. Loaded once the namespaces
	# exist, with only CPU 0 online, it has CPU 0's alone.
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do echo 0 >"$c"; done
	modprobe pktgen
	# The DUT's CPU comes back, and on veth the sink's: its NAPI receives
	# what the DUT sends, on a vCPU of its own, so vCPU 0 is the
	# generator's alone and neither costs the other headroom. The others
	# stay offline, halted, with nothing to count.
	echo 1 >"/sys/devices/system/cpu/cpu$bench_kcpu/online"
	if [ -z "${NETSLICE_BENCH_NICS:-}" ] && [ "${NETSLICE_BENCH_TOPOLOGY:-veth}" = veth ] &&
		[ -e /sys/devices/system/cpu/cpu2/online ]; then
		bench_sink_cpu=2
		echo 1 >/sys/devices/system/cpu/cpu2/online
		# Unbound work (the module's rule reaping, the store's ageing)
		# runs on the DUT's CPU, counted as the DUT's, never on the
		# sink's, whose count is apart.
		printf '%x\n' $((1 << bench_kcpu)) >/sys/devices/virtual/workqueue/cpumask || exit 1
	fi
fi
# After the CPUs came back: virtio-net spreads its interrupts again when
# a CPU comes online.
[ "${NETSLICE_BENCH_TOPOLOGY:-veth}" != nic ] || bench_nic_guest || exit 1

# bench_coalesce NETNS DEV CPU [DEFER]: DEV's receive NAPI polled on CPU
# by its timer every bench_napi_ns while frames flow, as a NIC's
# interrupt coalescing does (napi_defer_hard_irqs, gro_flush_timeout).
# Counting instructions wants it: a batch is then what arrived in one
# period, not what the generator and the DUT, two vCPUs racing in host
# time, made of it (without it, two runs of one commit differed by up to
# 8%). The period is the offered rate's time for bench_napi_batch frames
# (bench_coalesce_retime once the rate is known), so that a poll finds as
# many frames at any rate (the count still moves with the rate, less:
# bench_insn_set_rate in bench/insns.sh). NETNS "-" is this
# one. veth receives through NAPI only with GRO on and TSO off on the
# sending peer (veth_skb_is_eligible_for_gro()); its NAPI runs in a
# thread, pinned here, instead of RPS. DEFER: empty polls before the
# port waits for an interrupt again (default 2). PERIOD_NS: a period of
# its own, kept whatever the rate.
bench_coalesced=()
bench_coalesce() {
	local netns=$1 dev=$2 cpu=$3 defer=${4:-2} period=${5:--} t
	local nsx=(ip netns exec "$netns")
	[ "$netns" != - ] || nsx=()
	if "${nsx[@]}" ethtool -i "$dev" 2>/dev/null | grep -qx 'driver: veth'; then
		"${nsx[@]}" ethtool -K "$dev" gro on || return 1
		"${nsx[@]}" sh -c "echo 0 >/sys/class/net/$dev/queues/rx-0/rps_cpus &&
			echo 1 >/sys/class/net/$dev/threaded" || return 1
		for t in $(pgrep "^napi/$dev-"); do
			taskset -pc "$cpu" "$t" >/dev/null || return 1
		done
		[ -n "$t" ] || { echo "bench: $dev has no NAPI thread" >&2; return 1; }
	fi
	"${nsx[@]}" sh -c "echo $defer >/sys/class/net/$dev/napi_defer_hard_irqs" || return 1
	bench_coalesced+=("$netns $dev $period")
	bench_coalesce_retime
}

# bench_coalesce_retime: the coalesced ports' period for bench_insn_pps.
bench_coalesce_retime() {
	local c nsx ns dev period
	bench_napi_ns=$((bench_napi_batch * 1000000000 / bench_insn_pps))
	for c in "${bench_coalesced[@]}"; do
		read -r ns dev period <<<"$c"
		nsx=(ip netns exec "$ns")
		[ "$ns" != - ] || nsx=()
		[ "$period" != - ] || period=$bench_napi_ns
		"${nsx[@]}" sh -c "echo $period >/sys/class/net/$dev/gro_flush_timeout" || return 1
	done
}
if [ "${NETSLICE_BENCH_MEASURE:-ticks}" = insns ]; then
	bench_napi_batch=${NETSLICE_BENCH_INSN_NAPI_BATCH:-32}
	if [ -z "${NETSLICE_BENCH_NICS:-}" ]; then
		ip netns exec "$gen" ethtool -K "$gen_if" tso off >/dev/null &&
			ethtool -K "$bench_out" tso off >/dev/null || exit 1
		# xdpgen's program stays in the XDP dispatcher, attached to a
		# veth that stays down (xdpgen -H): no text poke a batch.
		ip -n "$gen" link add xghold0 type veth peer name xghold1 || exit 1
		# The sink drops at tc ingress, before the IP layer: the
		# generator's vCPU does little beside generating.
		ip netns exec "$sink" tc qdisc add dev "$sink_if" clsact &&
			ip netns exec "$sink" tc filter add dev "$sink_if" ingress matchall action drop ||
			exit 1
	fi
	# The egress port's own NAPI completes transmits on a NIC; on veth
	# the sink's receives them. The sink polls on through 1,000 empty
	# periods: were it to wait for an interrupt between two of the DUT's
	# batches, the DUT's next transmit would wake it (a wake-up counted
	# on the DUT, or not, as the two timers' phases fall).
	# xdpgen's batches wake the DUT's NAPI once each: no deferred polls.
	# And the sink, with a vCPU of its own, looks every 10 ms: each look
	# costs its vCPU a timer and a wake-up (at the 2 ms of 32 frames at
	# 15,000/s, half the emulator's instructions went to looking), and a
	# batch waits for the next look at most.
	sink_period=-
	[ "$bench_insn_gen" != xdp ] || [ "$bench_insn_tcx" = 0 ] || [ -z "${bench_sink_cpu:-}" ] ||
		sink_period=10000000
	bench_coalesce - "$bench_in" "$bench_kcpu" "$([ "$bench_insn_gen" = xdp ] && echo 0 || echo 2)" &&
		bench_coalesce "$sink" "$sink_if" "${bench_sink_cpu:-0}" 1000 "$sink_period" &&
		{ [ -z "${NETSLICE_BENCH_NICS:-}" ] || bench_coalesce - "$bench_out" "$bench_kcpu"; } || exit 1
	# The host's generator counts what the DUT sent at the tap behind
	# its port: the sink's port goes down, and vCPU 0 receives nothing.
	if [ "$bench_insn_gen" = host ]; then
		ip -n "$sink" link set "$sink_if" down || exit 1
	fi
fi
# AF_PACKET taps do not stop the stack: nothing may route the frames too.
tst_sysctl net.ipv4.conf.all.forwarding 0

# sink_rx VAR: frames delivered to the sink. On veth, what dut1 sent is
# what sink0 received, and reading it needs no process (which costs more
# than the measurement under TCG); real NICs are read in the sink's netns.
sink_rx() {
	local v
	if [ -n "${NETSLICE_BENCH_NICS:-}" ]; then
		v=$(ip netns exec "$sink" cat "/sys/class/net/$sink_if/statistics/rx_packets")
	else
		read -r v <"/sys/class/net/$bench_out/statistics/tx_packets"
	fi
	printf -v "$1" %d "$v"
}

# Wait until what is in flight has arrived: the sink count holds still.
drain() {
	local a b=-1 i
	for ((i = 0; i < 50; i++)); do
		sink_rx a
		[ "$a" = "$b" ] && return 0
		b=$a
		sleep 0.1
	done
}

# trial SIZE PPS: offer PPS (0: all pktgen can) for secs; sets
# trial_sent, trial_got, trial_usec (how long pktgen sent) and the busy
# ticks of the machine and of pktgen (trial_busy, trial_gen_busy).
trial() {
	local load rx0 rx1
	sink_rx rx0
	load=$(ip netns exec "$gen" taskset -c 0 "$TST_TOP/bench/pktgen.sh" "$gen_if" "$bench_load_mac" \
		"$1" "$2" "$secs") || return 1
	drain
	sink_rx rx1
	read -r _ trial_sent _ _ _ trial_usec _ trial_busy _ trial_gen_busy <<<"$load"
	trial_got=$((rx1 - rx0))
	[ "$trial_usec" -gt 0 ] || trial_usec=1
}

# measure ROUND NAME SIZE PPS: one load run; prints a csv line (and a cdf
# line for a fixed rate) and a progress line.
measure() {
	local round=$1 name=$2 size=$3 pps=$4 line i
	local sink_pid= sink_out mean= p50= p90= p99= cdf= sink_ms=0 copied=0 stats
	case $name in ns-* | ring-* | base-*) netslicectl stats reset || return 1 ;; esac
	if [ "$pps" -gt 0 ]; then
		sink_out=$(mktemp)
		ip netns exec "$sink" taskset -c 0 bench-sink "$sink_if" >"$sink_out" &
		sink_pid=$!
		for ((i = 0; i < 100; i++)); do
			[ -s "$sink_out" ] && break
			sleep 0.05
		done
	fi
	trial "$size" "$pps" || return 1
	# zero_loss starts from this round's saturation run.
	[ "$pps" -gt 0 ] || sat_sent=$trial_sent sat_got=$trial_got sat_usec=$trial_usec
	if [ -n "$sink_pid" ]; then
		kill -TERM "$sink_pid" && wait "$sink_pid"
		while read -r line; do
			case $line in
			packets*) set -- $line; mean=$4 p50=$6 p90=$8 p99=${10} sink_ms=${12} ;;
			cdf:*) cdf=${line#cdf: } ;;
			esac
		done <"$sink_out"
		rm -f "$sink_out"
	fi
	case $name in
	ns-* | ring-* | base-*)
		# read_bytes + write_bytes over all slices, since the reset.
		stats=$(netslice-info -s)
		while [[ $stats =~ (read|write)_bytes=([0-9]+)(.*) ]]; do
			copied=$((copied + BASH_REMATCH[2]))
			stats=${BASH_REMATCH[3]}
		done
		;;
	esac
	[ -z "$cdf" ] || echo "cdf: $round,$name,$size,$pps,$cdf"
	awk -v r="$round" -v c="$name" -v z="$size" -v o="$pps" -v us="$trial_usec" \
		-v s="$trial_sent" -v g="$trial_got" -v cp="$copied" -v hz="$hz" \
		-v busy=$((trial_busy - trial_gen_busy)) \
		-v sm="$sink_ms" -v m="$mean" -v a="$p50" -v b="$p90" -v d="$p99" \
		-v k=$((++done_runs)) -v total="$total_runs" -v rounds="$rounds" 'BEGIN {
		secs = us / 1e6
		loss = s ? (s - g) * 100 / s : 0; if (loss < 0) loss = 0
		# Guest CPU time, less that of the generator and the sink, per packet.
		t = busy / hz * 1e6 - sm * 1e3; if (t < 0) t = 0
		if (c ~ /^(ns|base)-/) copy = g ? int(cp / g) : 0
		else if (c == "bridge") copy = 0
		else copy = 2 * (z - 4)	# one copy in, one out
		printf "csv: %d,%s,%d,%d,%.3f,%d,%d,%d,%.2f,%s,%s,%s,%s,%.2f,%d\n", r, c, z, o, secs, s,
			g, secs ? g / secs : 0, loss, m, a, b, d, g ? t / g : 0, copy
		printf "# [%d/%d] round %d/%d %-15s %4d B %-10s %7d pps forwarded, loss %.1f%%", k,
			total, r, rounds, c, z, o ? o "/s" : "saturation", secs ? g / secs : 0, loss
		if (m != "") printf ", latency p50 %s us p99 %s us", a, d
		printf "\n"
	}'
}


# lossless: the last trial lost under 0.1% of what was offered.
lossless() { [ $(((trial_sent - trial_got) * 1000)) -lt "$trial_sent" ]; }

# zero_loss ROUND NAME SIZE: the highest offered rate forwarded with loss
# under 0.1% (RFC 2544's throughput), by binary search below what the
# generator offered in this round's saturation run (measure's sat_*):
# prints "zeroloss: ROUND,NAME,SIZE,PPS,LIMITED", LIMITED 1 when even
# saturation lost nothing (PPS is then the generator's limit, not the
# contender's).
zero_loss() {
	local round=$1 name=$2 size=$3 lo=0 hi mid i limited=0
	trial_sent=$sat_sent trial_got=$sat_got trial_usec=$sat_usec
	if lossless; then
		lo=$((trial_got * 1000000 / trial_usec)) limited=1
	else
		hi=$((trial_sent * 1000000 / trial_usec))
		for ((i = 0; i < zl_steps; i++)); do
			mid=$(((lo + hi) / 2))
			trial "$size" "$mid" || return 1
			if lossless; then lo=$mid; else hi=$mid; fi
		done
	fi
	echo "zeroloss: $round,$name,$size,$lo,$limited"
	echo "# round $round $name $size B: zero-loss rate $lo pps$([ $limited = 0 ] || echo " (the generator's limit)")"
}

hz=$(getconf CLK_TCK)
echo "meta: kernel $(uname -r)"
echo "meta: cpus $(nproc --all) $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)"
echo "meta: memory $(awk '/MemTotal/{print $2 " kB"}' /proc/meminfo)"
echo "meta: rounds $rounds secs $secs sizes $sizes lat_pps $lat_rates"
# Under the nsinsn plugin (bench/bench.sh): instruction counts only.
if [ "${NETSLICE_BENCH_MEASURE:-ticks}" = insns ]; then
	bench_insn_stall_watch "${NETSLICE_BENCH_STALL_S:-300}" &
	tst_defer kill $!
	bench_insns || exit 1
	tst_run_cleanups
	exit 0
fi

echo "csv: round,contender,size,offered_pps,secs,sent,received,fwd_pps,loss_pct,lat_mean_us,lat_p50_us,lat_p90_us,lat_p99_us,cpu_us_per_pkt,copied_bytes_per_pkt"
echo "zeroloss: round,contender,size,zero_loss_pps,generator_limited"

nrates=$((1 + $(wc -w <<<"$lat_rates")))
total_runs=$((rounds * ${#contenders[@]} * $(wc -w <<<"$sizes") * nrates))
done_runs=0
for ((round = 1; round <= rounds; round++)); do
	for name in "${contenders[@]}"; do
		bench_up "$name" || { echo "bench: $name did not start" >&2; exit 1; }
		# A warm-up burst, not measured: tables, neighbours and caches
		# (nf-nat's connections and ARP) fill before the first measurement.
		trial 64 0 || exit 1
		for size in $sizes; do
			for pps in 0 $lat_rates; do
				measure "$round" "$name" "$size" "$pps" || exit 1
			done
			[[ $zl_list != *" $name "* ]] || zero_loss "$round" "$name" "$size" || exit 1
		done
		bench_down "$name" || { echo "bench: $name did not stop cleanly" >&2; exit 1; }
	done
done

bench_profile || exit 1

if [ -z "${NETSLICE_BENCH_NICS:-}" ] && [[ " ${contenders[*]} " == *" ns-fwd-auto "* ]]; then
	echo "# rule-update run: nf-fwd while rules are replaced"
	tst_run_cleanups
	NETSLICE_BENCH_SECS=$((secs < 2 ? 2 : secs)) "$TST_TOP/bench/rule_update.sh" |
		sed -n -e 's/^csv: /rules: /p' -e '/^ruleload: /p' -e '/^# /p'
fi

# Bulk TCP (bench/tcp.sh): super-packets through the NFs, against the
# kernel's own forwarding and masquerade. Quick: 3 rounds of 128 MiB.
if [ -z "${NETSLICE_BENCH_NICS:-}" ]; then
	echo "# TCP run: bulk transfers through the DUT"
	tst_run_cleanups
	[ "$quick" = 1 ] && tcp_rounds=3 tcp_mib=128 || tcp_rounds=5 tcp_mib=256
	NETSLICE_BENCH_TCP_ROUNDS=${NETSLICE_BENCH_TCP_ROUNDS:-$tcp_rounds} \
		NETSLICE_BENCH_TCP_MIB=${NETSLICE_BENCH_TCP_MIB:-$tcp_mib} \
		"$TST_TOP/bench/tcp.sh" | sed -u 's/^csv: /tcp: /'
	[ "${PIPESTATUS[0]}" = 0 ] || exit 1
fi
tst_run_cleanups
