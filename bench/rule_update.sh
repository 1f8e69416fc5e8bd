#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): what rule updates cost while nf-fwd forwards
# bench/pktgen.sh's saturating load (64-byte frames, one flow), each row
# a paced bench/rule_gen.c from another CPU, changing rules through
# libnetslice's ns_rules as an NF's worker does (NETSLICE_BENCH_RULE_ROWS,
# KIND:RATE words):
#
#   none:0           no updates: the rate the others are compared with
#   replace:N        the rule steering the load replaced N times a second,
#                    keeping its slice: the control plane's own cost, the
#                    load on the same worker throughout
#   switch:N         the same rule alternated between slices 0 and 1
#   distinct:N       N new exact rules a second (one per connection, as an
#                    NF installs them), none matching the load
#
#   gen: gen0 --veth-- dut0 [netslice + nf-fwd] dut1 --veth-- sink: sink0
#
# Then times a bulk load of 1,000,000 exact rules ("ruleload: " lines),
# and runs bench/nat_conn.sh (new connections through nf-nat, "natconn: ").
# Prints a table, and the CSV as "csv: " lines (the guest cannot write the
# checkout; bench/bench.sh files them under bench/results/). A
# software-emulated guest only gives ratios within one run.
. "$(dirname "$0")/../tests/guest/lib.sh"

secs=${NETSLICE_BENCH_SECS:-5}
rows=${NETSLICE_BENCH_RULE_ROWS:-none:0 replace:1000 replace:10000 replace:100000 switch:100000 distinct:150000}
csv=$(mktemp)
rule="proto udp src 10.99.1.1 dst 10.99.9.9 sport 10000 dport 9"
last_cpu=$(($(nproc) - 1))

tst_module_loaded && rmmod netslice
tst_topology 1 || exit 1
tst_load slices=2 rxq_size=4096 ifaces=dut0:dut1 || exit 1
tst_start_fwd || exit 1
netslicectl rule add $rule slice 0 || exit 1

batch=$(mktemp)
tst_defer rm -f "$batch" "$batch.load"
sink_rx() { ip netns exec "$sink" cat /sys/class/net/sink0/statistics/rx_packets; }

# A warm-up second, not measured: the first load after nf-fwd starts runs
# cold (the 2026-11-26 run's 0/s row forwarded 0.56x its 1,000/s row).
ip netns exec "$gen" "$TST_TOP/bench/pktgen.sh" gen0 "$sink_mac" 64 0 1 >/dev/null || exit 1
echo "kind,asked_per_s,done_per_s,seconds,forwarded_pps,drops" >"$csv"
printf '%-10s %-10s %-10s %-14s %s\n' kind "asked/s" "done/s" "forwarded/s" drops
for row in $rows; do
	kind=${row%%:*} rate=${row#*:}
	netslicectl stats reset
	rx0=$(sink_rx)
	ip netns exec "$gen" "$TST_TOP/bench/pktgen.sh" gen0 "$sink_mac" 64 0 "$secs" 1 >"$batch.load" &
	gpid=$!
	achieved=0
	if [ "$rate" -gt 0 ]; then
		# Paced, for as long as the load runs; it says how far it got.
		out=$(taskset -c "$last_cpu" rule-gen "$kind" "$rate" "$secs") || { echo "$out" >&2; exit 1; }
		achieved=$(awk '{ printf "%d", $4 / $6 }' <<<"$out")
	fi
	wait "$gpid"
	# Let what is in flight drain before reading the sink.
	sleep 1
	rx1=$(sink_rx)
	read -r _ _ _ _ _ usec _ <"$batch.load"
	drops=$(($(tst_stat_sum rx_drop_ring_full) + $(tst_stat_sum rx_drop_error)))
	pps=$(((rx1 - rx0) * 1000000 / usec))
	printf '%-10s %-10s %-10s %-14s %s\n' "$kind" "$rate" "$achieved" "$pps" "$drops"
	echo "$kind,$rate,$achieved,$secs,$pps,$drops" >>"$csv"
	# The distinct rules go again; the steering rule stays.
	[ "$kind" != distinct ] || { netslicectl rule flush && netslicectl rule add $rule slice 0; } ||
		exit 1
done
sed 's/^/csv: /' "$csv"

# Bulk load: NETSLICE_BENCH_LOAD_RULES exact rules (default 1,000,000) in
# one `rule load`, one request, timed end to end (parsing included).
nload=${NETSLICE_BENCH_LOAD_RULES:-1000000}
awk -v n="$nload" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "proto tcp src 10.%d.%d.%d dst 192.0.2.1 sport %d dport 443 slice %d\n",
			int(i / 65536), int(i / 256) % 256, i % 256, 1024 + i % 60000, i % 2
}' >"$batch"
netslicectl rule flush || exit 1
t0=$(date +%s%N)
netslicectl rule load "$batch" || exit 1
t1=$(date +%s%N)
netslicectl rule flush || exit 1
printf 'ruleload: rules,seconds,rules_per_s\nruleload: %d,%s,%d\n' "$nload" \
	"$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.3f", ns / 1e9 }')" \
	$((nload * 1000000000 / (t1 - t0)))
echo "# $nload rules loaded in $(((t1 - t0) / 1000000)) ms"
tst_stop_fwd >/dev/null
tst_run_cleanups

# New connections through nf-nat, one slice and two (issue 42's item 4b).
"$TST_TOP/bench/nat_conn.sh"
