# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# make bench's main measure, sourced by bench/run.sh in a guest that runs
# under the nsinsn QEMU plugin (bench/plugin/nsinsn.c): each row offers
# the same load (NETSLICE_BENCH_INSN_PPS frames/s, a count of
# NETSLICE_BENCH_INSN_PKTS frames) to one contender, between two marks
# (bench/nsmark) that read the sink's counter beside them. The plugin
# counts every vCPU's instructions and bytes between the marks; the host
# divides the DUT's vCPUs' counts by the frames forwarded (bench/insns.py).
#
# Prints "insn: SEQ,ROUND,CONTENDER,SIZE,PPS,SENT,USEC,FWD" lines and a
# "# " progress line per row; writes kallsyms (once) and each row's
# module symbols and forwarder mappings into NETSLICE_BENCH_OUT, which
# the host reads to name the sampled PCs.
#
#   NETSLICE_BENCH_INSN_ROWS   "CONTENDER@SIZE ...", rows of one contender
#                              measured while it is up
#   NETSLICE_BENCH_INSN_PPS    offered rate (default 15000)
#   NETSLICE_BENCH_INSN_PKTS   frames per row (default 20000; quick 10000)
#   NETSLICE_BENCH_INSN_ROUNDS rounds (default 5; quick 3): a row's value
#                              is its median over the rounds
#
# Round 0 warms up (its rows are marked but not reported): the first
# run of each contender costs up to twice the others (first use of its
# code paths, caches and tables). Each contender also gets an idle row
# (SIZE 0: one second with no load), to show what a row holds besides its
# frames.
#
# The rate: the guest's clock is the host's under TCG, so a rate is only
# comparable between runs of one machine kind. Under the plugin, AF_XDP
# (the slowest) loses frames from about 17,000/s; 15,000/s is about 90%
# of that, and every contender forwards it without loss. A capacity
# search proper needs a generator faster than the DUT (docs/benchmarks.md).

bench_insn_rows=${NETSLICE_BENCH_INSN_ROWS:-ring-fwd-off@64 ring-fwd-off@1518 ring-fwd-auto@64 \
ring-fwd-auto@1518 ns-fwd-off@64 ns-fwd-auto@1518 afxdp@64 afp-mmsg@64 afp-v3@64 bridge@64}
bench_insn_pps=${NETSLICE_BENCH_INSN_PPS:-15000}

# bench_insn_row SEQ ROUND NAME SIZE: one measurement of a running
# contender. The start mark is made once pktgen is set up, just before it
# starts; the counter is opened here (fd cfd) because pktgen runs in the
# generator's namespace, whose /sys shows other interfaces.
bench_insn_row() {
	local seq=$1 round=$2 name=$3 size=$4 counter fwd0 fwd1 load sent usec cfd mark
	counter=/sys/class/net/$bench_out/statistics/tx_packets
	if [ -n "$bench_pid" ]; then
		grep ' r-xp ' "/proc/$bench_pid/maps" >"$NETSLICE_BENCH_OUT/maps-$seq" || return 1
	fi
	grep '\[' /proc/kallsyms >"$NETSLICE_BENCH_OUT/modsyms-$seq" || return 1
	mark=$(mktemp)
	exec {cfd}<"$counter"
	load=$(PKTGEN_ON_START="nsmark start $seq /dev/fd/$cfd >$mark" ip netns exec "$gen" \
		taskset -c 0 "$NS_TOP/bench/pktgen.sh" "$gen_if" "$sink_mac" "$size" "$bench_insn_pps" \
		"count:$bench_insn_pkts") || { exec {cfd}<&-; rm -f "$mark"; return 1; }
	exec {cfd}<&-
	read -r fwd0 <"$mark"
	rm -f "$mark"
	read -r _ sent _ _ _ usec _ <<<"$load"
	bench_insn_drain "$counter" $((fwd0 + sent))
	fwd1=$(taskset -c 0 nsmark stop "$seq" "$counter") || return 1
	echo "insn: $seq,$round,$name,$size,$bench_insn_pps,$sent,$usec,$((fwd1 - fwd0))"
	echo "# insn $seq round $round $name $size B: $((fwd1 - fwd0)) of $sent forwarded"
}

# bench_insn_idle SEQ ROUND NAME: what the running contender costs with no
# load, over one second: what a row's count holds besides the frames.
bench_insn_idle() {
	taskset -c 0 nsmark start "$1" && sleep 1 && taskset -c 0 nsmark stop "$1" || return 1
	echo "insn: $1,$2,$3,0,0,0,1000000,0"
}

# bench_insn_drain COUNTER TARGET: until COUNTER reaches TARGET or holds
# still for 0.2 s (frames lost): the DUT idles meanwhile, which costs no
# instructions.
bench_insn_drain() {
	local v last=-1 still=0
	while read -r v <"$1" && [ "$v" -lt "$2" ]; do
		if [ "$v" = "$last" ]; then
			((++still < 4)) || return 0
		else
			still=0 last=$v
		fi
		sleep 0.05
	done
}

bench_insns() {
	local round item name size seq=0 cur
	[ -d "${NETSLICE_BENCH_OUT:-}" ] || { echo "bench: NETSLICE_BENCH_OUT is not a directory" >&2; return 1; }
	bench_insn_pkts=${NETSLICE_BENCH_INSN_PKTS:-$([ "$quick" = 1 ] && echo 10000 || echo 20000)}
	local rounds=${NETSLICE_BENCH_INSN_ROUNDS:-$([ "$quick" = 1 ] && echo 3 || echo 5)}
	grep -v '\[' /proc/kallsyms >"$NETSLICE_BENCH_OUT/kallsyms" || return 1
	echo "insn: seq,round,contender,size,offered_pps,sent,usec,forwarded"
	for ((round = 0; round <= rounds; round++)); do
		cur=
		for item in $bench_insn_rows $BENCH_INSN_END; do
			name=${item%@*} size=${item#*@}
			if [ "$name" != "$cur" ]; then
				[ -z "$cur" ] || bench_down "$cur" || return 1
				cur=$name
				[ "$item" != "$BENCH_INSN_END" ] || break
				bench_up "$name" || { echo "bench: $name did not start" >&2; return 1; }
				# Warm-up, not measured: tables, caches and neighbours fill.
				ip netns exec "$gen" taskset -c 0 "$NS_TOP/bench/pktgen.sh" "$gen_if" \
					"$sink_mac" 64 "$bench_insn_pps" count:2000 >/dev/null || return 1
				drain
				bench_insn_idle $((++seq)) "$round" "$name" || return 1
			fi
			bench_insn_row $((++seq)) "$round" "$name" "$size" || return 1
		done
	done
}
BENCH_INSN_END=end@0
