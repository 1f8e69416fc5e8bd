#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): how many new TCP connections a second nf-nat
# keeps up with, on one slice, on two (where each new connection's
# return flow gets a steering rule to its worker, issue 42) and on two
# without rules (NETSLICE_BENCH_NAT_ROWS: SLICES[:no-rules] words).
#
# bench/conn_gen.c sends SYNs from fresh inside endpoints at rising rates
# (NETSLICE_BENCH_NAT_STEPS a second, NETSLICE_BENCH_NAT_SECS each); the
# sink's stack answers every SYN with a SYN-ACK (SYN cookies always, so
# nothing is retransmitted), which nf-nat translates back to gen0. A
# step is kept when at least 95% of its SYNs came back answered; a row's
# rate is the answers a second of its highest kept step (steps stop at
# the first one missed). Every SYN is a new connection (conn-gen numbers
# them on across steps); one second idle and a connection goes, answered
# or not, so the ports (1024-65535) hold about two seconds' worth: the
# steps stop below 32,000 a second. NETSLICE_BENCH_NAT_ROUNDS rounds
# (default 3) run the rows in turn; bench/rules_report.py takes each
# round's ratio of two slices to one and reports their median (a rate
# moves by a step or two between rounds, and more between runs: the
# host's two cores under the guest's three busy vCPUs).
#
#   gen: gen0 --veth-- dut0 [netslice + nf-nat] dut1 --veth-- sink: sink0
#
# Prints a table and the CSV as "natconn: " lines. Run by
# bench/rule_update.sh (make bench MEASURE=rules) in the same guest.
. "$(dirname "$0")/../tests/guest/lib.sh"
. "$TST_TOP/tests/guest/nf_lib.sh"

secs=${NETSLICE_BENCH_NAT_SECS:-2}
rounds=${NETSLICE_BENCH_NAT_ROUNDS:-3}
steps=${NETSLICE_BENCH_NAT_STEPS:-4000 5000 6300 7900 9900 12400 15500 19400 24200 30300}
last_cpu=$(($(nproc) - 1))
csv=$(mktemp)
gen_rx() { ip netns exec "$gen" cat /sys/class/net/gen0/statistics/rx_packets; }

echo "round,slices,rules,offered_per_s,sent_per_s,answered_per_s,ring_drops,kept" >"$csv"
printf '%-6s %-7s %-6s %-10s %-10s %-11s %-8s %s\n' round slices rules "offered/s" "sent/s" \
	"answered/s" drops kept
for round in $(seq 1 "$rounds"); do
for row in ${NETSLICE_BENCH_NAT_ROWS:-1 2 2:no-rules}; do
	slices=${row%%:*} opts= ruled=no
	[ "$row" = "${row%:no-rules}" ] || opts=--no-rules
	[ "$slices" = 1 ] || [ -n "$opts" ] || ruled=yes
	tst_module_loaded && rmmod netslice
	tst_topology 1 && tst_addrs || exit 1
	tst_load slices="$slices" rxq_size=4096 ifaces=dut0:dut1 || exit 1
	ip netns exec "$sink" sysctl -qw net.ipv4.tcp_syncookies=2
	tst_start_bg serving ip netns exec "$sink" nfclient serve 80 sink || exit 1
	nf_start nf-nat -s "$(seq -s, 0 $((slices - 1)))" --inside dut0 --outside dut1 \
		--public 10.99.0.100 --ports 1024-65535 --max-conns 262144 \
		--timeout-tcp 1 --timeout-tcp-transitory 1 $opts || exit 1
	dut_mac=$(cat /sys/class/net/dut0/address)
	# One SYN first, answered, so that ARP on both sides is done before the
	# count (else the first step's SYNs wait for nf-nat's ARP answer, 16
	# held, the rest dropped: seen as 93% answered at 4,000 a second).
	rx0=$(gen_rx)
	ip netns exec "$gen" conn-gen gen0 "$dut_mac" 10.99.0.2 80 1 1 >/dev/null || exit 1
	tst_busywait 5000 tst_at_least $((rx0 + 1)) gen_rx || { echo "no answer to the first SYN" >&2; exit 1; }
	next=1
	for rate in $steps; do
		netslicectl stats reset
		rx0=$(gen_rx)
		out=$(ip netns exec "$gen" taskset -c "$last_cpu" conn-gen gen0 "$dut_mac" \
			10.99.0.2 80 "$rate" "$secs" "$next") || { echo "$out" >&2; exit 1; }
		# The last answers are a batch away; a second is plenty.
		sleep 1
		rx1=$(gen_rx)
		drops=$(($(tst_stat_sum rx_drop_ring_full) + $(tst_stat_sum rx_drop_error)))
		read -r _ sent _ took _ <<<"$out"
		next=$((next + sent))
		line=$(awk -v s="$slices" -v r="$ruled" -v o="$rate" -v n="$sent" -v t="$took" \
			-v a=$((rx1 - rx0)) -v d="$drops" -v k="$round" 'BEGIN {
			printf "%d,%d,%s,%d,%d,%d,%d,%d", k, s, r, o, n / t, a / t, d, (a >= 0.95 * n) }')
		echo "$line" >>"$csv"
		IFS=, read -r _ _ _ _ sps aps _ kept <<<"$line"
		printf '%-6s %-7s %-6s %-10s %-10s %-11s %-8s %s\n' "$round" "$slices" "$ruled" "$rate" \
			"$sps" "$aps" "$drops" "$kept"
		[ "$kept" = 1 ] || break
	done
	nf_stop || exit 1
	echo "# nf-nat on $row: $(js '{k: j["nf-nat"][k] for k in ("created", "in_packets", "rules_set", "rule_errors", "foreign", "dropped_no_ports")}')"
	tst_run_cleanups
done
done
sed 's/^/natconn: /' "$csv"
rm -f "$csv"
