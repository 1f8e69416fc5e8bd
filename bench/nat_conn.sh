#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): new TCP connections a second through nf-nat,
# on one slice, on two (where each new connection's return flow gets a
# steering rule to its worker, issue 42) and on two without rules
# (NETSLICE_BENCH_NAT_ROWS: SLICES[:no-rules] words), under bench/conn_gen.c's
# SYNs from fresh inside endpoints (NETSLICE_BENCH_CONN_RATE a second, 0:
# as fast as it can) for NETSLICE_BENCH_SECS; the sink's stack answers
# each with a SYN-ACK (SYN cookies once its backlog fills), which nf-nat
# translates back. A connection counts once its answer is translated.
#
#   gen: gen0 --veth-- dut0 [netslice + nf-nat] dut1 --veth-- sink: sink0
#
# Prints a table and the CSV as "natconn: " lines. Run by
# bench/rule_update.sh (make bench MEASURE=rules) in the same guest.
. "$(dirname "$0")/../tests/guest/lib.sh"
. "$TST_TOP/tests/guest/nf_lib.sh"

secs=${NETSLICE_BENCH_SECS:-5}
rate=${NETSLICE_BENCH_CONN_RATE:-0}
last_cpu=$(($(nproc) - 1))
csv=$(mktemp)

echo "slices,rules,offered_per_s,seconds,created_per_s,answered_per_s,rules_per_s,foreign,no_ports,ring_drops" >"$csv"
printf '%-7s %-6s %-10s %-10s %-11s %-9s %s\n' slices rules "sent/s" "opened/s" "answered/s" foreign drops
for row in ${NETSLICE_BENCH_NAT_ROWS:-1 2 2:no-rules}; do
	slices=${row%%:*} opts=
	[ "$row" = "${row%:no-rules}" ] || opts=--no-rules
	tst_module_loaded && rmmod netslice
	tst_topology 1 && tst_addrs || exit 1
	tst_load slices=$slices rxq_size=4096 ifaces=dut0:dut1 || exit 1
	tst_start_bg serving ip netns exec "$sink" nfclient serve 80 sink || exit 1
	ip netns exec "$sink" sysctl -qw net.ipv4.tcp_max_syn_backlog=4096
	list=$(seq -s, 0 $((slices - 1)))
	# Connections idle a second once answered: the table and the ports
	# (all of 1024-65535) hold about two seconds' worth.
	nf_start nf-nat -s "$list" --inside dut0 --outside dut1 --public 10.99.0.100 \
		--ports 1024-65535 --max-conns 262144 --timeout-tcp-transitory 1 $opts || exit 1
	dut_mac=$(cat /sys/class/net/dut0/address)
	# One SYN first, so that ARP on both sides is done before the count.
	ip netns exec "$gen" conn-gen gen0 "$dut_mac" 10.99.0.2 80 1 1 >/dev/null || exit 1
	netslicectl stats reset
	out=$(ip netns exec "$gen" taskset -c "$last_cpu" conn-gen gen0 "$dut_mac" 10.99.0.2 80 \
		"$rate" "$secs") || { echo "$out" >&2; exit 1; }
	sleep 1
	nf_stop || exit 1
	drops=$(($(tst_stat_sum rx_drop_ring_full) + $(tst_stat_sum rx_drop_error)))
	read -r _ sent _ took _ <<<"$out"
	line=$(js '",".join(str(j["nf-nat"][k]) for k in ("created", "in_packets", "rules_set", "foreign", "dropped_no_ports", "rule_errors"))')
	IFS=, read -r created answered rules foreign noports rule_errors <<<"$line"
	[ "$rule_errors" = 0 ] || echo "# nf-nat: $rule_errors rule changes refused" >&2
	row=$(awk -v s="$slices" -v n="$sent" -v t="$took" -v c="$created" -v a="$answered" \
		-v r="$rules" -v f="$foreign" -v p="$noports" -v d="$drops" 'BEGIN {
		printf "%d,%s,%d,%.3f,%d,%d,%d,%d,%d,%d", s, (r > 0 ? "yes" : "no"), n / t, t,
			c / t, a / t, r / t, f, p, d }')
	echo "$row" >>"$csv"
	IFS=, read -r _ ruled sps _ cps aps _ <<<"$row"
	printf '%-7s %-6s %-10s %-10s %-11s %-9s %s\n' "$slices" "$ruled" "$sps" "$cps" "$aps" "$foreign" "$drops"
	tst_run_cleanups
done
sed 's/^/natconn: /' "$csv"
rm -f "$csv"
