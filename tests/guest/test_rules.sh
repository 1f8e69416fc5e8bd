#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Flow rules against the real module, through netslicectl: steering
# (exact ahead of wildcard, ranges and prefixes), 10,000 atomic replaces
# under traffic, batches seen whole under traffic, a failing line in a
# batch, 10,000 wildcard rules over 100 masks, 100,000 in bulk; and
# libnetslice's rule API (rule_api.c).
#
#   gen: gen0 --veth-- dut0 [netslice + nf-fwd] dut1 --veth-- sink: sink0
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ctl_lib.sh"

tst_plan 7
tst_module_loaded && rmmod netslice

rules_steer() {
	local per
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	# nstraffic's 64 flows: UDP 10.99.1.1:10000..10063 -> 10.99.9.9:9.
	ctl rule add proto udp dst 10.99.9.0/24 sport 10000-10031 slice 1 &&
		ctl rule add proto udp src 10.99.1.0/24 sport 10032-10063 pref 5 slice 2 &&
		ctl rule add proto udp src 10.99.1.1 dst 10.99.9.9 sport 10040 dport 9 slice 3 ||
		return 1
	ctl rule show | tst_indent
	tst_traffic 6400 || return 1
	per=$(ctl -j stats | json '" ".join(str(s["rx_packets"]) for s in j)')
	tst_diag "rx_packets per slice: $per"
	ctl rule show | tst_indent
	[ "$per" = "0 3200 3100 100" ] &&
		[ "$(ctl -j rule show | json '" ".join(r["table"] + ":" + str(r["hits"]) for r in j)')" = \
			"wildcard:3200 wildcard:3100 exact:100" ] && tst_stop_fwd
}
tst_check "rules steer flows: exact ahead of wildcard, ranges and prefixes" rules_steer
tst_run_cleanups

# rule_hits: "TABLE:HITS ..." of every rule, exact ones first.
rule_hits() {
	ctl -j rule show | json '" ".join(r["table"] + ":" + str(r["hits"]) for r in sorted(j, key=lambda r: (r["table"], r["pref"])))'
}

atomic_replace() {
	local batch i chunks=0 sink_rx0 sink_rx1 per drops hits
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	# A catch-all on slice 3: a packet that met no rule during a replace
	# lands there (without it, on a per-boot hash's slice, maybe 1 or 2).
	ctl rule add proto udp pref 100 slice 3 &&
		ctl rule add proto udp src 10.99.1.1 dst 10.99.9.9 sport 10000 dport 9 slice 1 || return 1
	batch=$(mktemp)
	for ((i = 0; i < 10000; i++)); do
		echo "rule replace proto udp src 10.99.1.1 dst 10.99.9.9 sport 10000 dport 9 slice $((2 - i % 2))"
	done >"$batch"
	sink_rx0=$(ip netns exec "$sink" cat /sys/class/net/sink0/statistics/rx_packets)
	# Paced, so that the replaces interleave with the traffic (unpaced, the
	# whole file is five rule-batch requests).
	ctl -b "$batch" --rate 4000 &
	local bpid=$!
	tst_defer tst_kill_job $bpid
	while kill -0 $bpid 2>/dev/null; do
		ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 200 1 >/dev/null || return 1
		chunks=$((chunks + 1))
	done
	wait $bpid || return 1
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 200 1 >/dev/null || return 1
	chunks=$((chunks + 1))
	tst_busywait 10000 tst_at_least $((chunks * 200)) tst_stat_sum tx_packets || true
	sink_rx1=$(ip netns exec "$sink" cat /sys/class/net/sink0/statistics/rx_packets)
	per=$(ctl -j stats | json '" ".join(str(s["rx_packets"]) for s in j)')
	drops=$(ctl -j stats | json 'sum(s["rx_drop_ring_full"] + s["rx_drop_no_reader"] + s["rx_drop_error"] for s in j)')
	tst_diag "$((chunks * 200)) frames sent during 10000 replaces; per slice: $per; drops $drops; sink got $((sink_rx1 - sink_rx0))"
	hits=$(rule_hits)
	tst_diag "rule hits: $hits"
	read -r s0 s1 s2 s3 <<<"$per"
	[ "$s0" -eq 0 ] && [ "$s3" -eq 0 ] && [ "$s1" -gt 0 ] && [ "$s2" -gt 0 ] &&
		[ $((s1 + s2)) -eq $((chunks * 200)) ] && [ "$drops" -eq 0 ] &&
		[ "$hits" = "exact:$((chunks * 200)) wildcard:0" ] &&
		[ $((sink_rx1 - sink_rx0)) -eq $((chunks * 200)) ] && tst_stop_fwd
}
tst_check "10,000 atomic replaces under traffic: no loss, only the two named slices" atomic_replace
tst_run_cleanups

# traffic_while PID: nstraffic's 64 flows in chunks of 200 while PID runs,
# and one chunk after; prints how many chunks.
traffic_while() {
	local chunks=0
	while kill -0 "$1" 2>/dev/null; do
		ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 200 1 >/dev/null || return 1
		chunks=$((chunks + 1))
	done
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 200 1 >/dev/null || return 1
	echo $((chunks + 1))
}

batch_seen_whole() {
	local batch i chunks per bpid
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	# Flow 0 has a catch-all (slice 3) under two rules that take turns:
	# each request deletes one and adds the other. Seen half-applied, a
	# packet would meet neither and go to slice 3.
	local exact="proto udp src 10.99.1.1 dst 10.99.9.9 sport 10000 dport 9"
	local wild="proto udp src 10.99.1.0/24 sport 10000 pref 5"
	ctl rule add proto udp pref 100 slice 3 && ctl rule add $exact slice 1 || return 1
	batch=$(mktemp)
	tst_defer rm -f "$batch"
	# "slice show" ends each request: one pair per request.
	for ((i = 0; i < 1000; i++)); do
		echo "rule del $exact"; echo "rule add $wild slice 2"; echo "slice show 0"
		echo "rule del $wild"; echo "rule add $exact slice 1"; echo "slice show 0"
	done >"$batch"
	ctl -b "$batch" >/dev/null &
	bpid=$!
	tst_defer tst_kill_job $bpid
	chunks=$(traffic_while $bpid) || return 1
	wait $bpid || return 1
	tst_busywait 10000 tst_at_least $((chunks * 200)) tst_stat_sum tx_packets || true
	per=$(ctl -j stats | json '" ".join(str(s["rx_packets"]) for s in j)')
	tst_diag "$((chunks * 200)) frames during 2000 two-rule requests; per slice: $per"
	read -r s0 s1 s2 s3 <<<"$per"
	# The catch-all, the only rule left of the two pairs' tables, met nothing.
	[ "$s0" -eq 0 ] && [ "$s3" -eq 0 ] && [ "$s1" -gt 0 ] && [ "$s2" -gt 0 ] &&
		[ $((s1 + s2)) -eq $((chunks * 200)) ] &&
		[ "$(ctl -j rule show | json '[r["hits"] for r in j if r["pref"] == 100]')" = "[0]" ] &&
		tst_stop_fwd
}
tst_check "a batch is seen whole under traffic: del+add pairs never leave a gap" batch_seen_whole
tst_run_cleanups

batch_failing_line() {
	local batch
	setup || return 1
	batch=$(mktemp)
	tst_defer rm -f "$batch"
	cat >"$batch" <<-EOF
	rule add proto udp dport 1 slice 1
	rule add proto tcp src 192.0.2.0/24 slice 2
	rule replace proto udp dport 2 slice 3
	rule del proto udp dport 3
	rule add proto udp dport 4 slice 1
	EOF
	# Line 4 names no rule: the request of lines 1-5 is refused whole.
	expect_refusal "Error: $batch:4: no such rule." ctl -b "$batch" || return 1
	[ "$(ctl -j rule show | json 'len(j)')" -eq 0 ] || return 1
	sed -i '4d' "$batch"
	ctl -b "$batch" && [ "$(ctl -j rule show | json 'len(j)')" -eq 4 ] && ctl rule flush
}
tst_check "a failing line fails its whole batch, and the ack names the line" batch_failing_line
tst_run_cleanups

wildcard_scale() {
	local file per
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	file=$(mktemp)
	tst_defer rm -f "$file"
	# 10,000 wildcard rules over 100 masks (25 source by 4 destination
	# prefix lengths), none matching 10.99/16, then one that sends
	# nstraffic's flows (UDP from 10.99.1.1) to slice 2.
	$py - "$file" <<-'EOF' || return 1
	import sys
	with open(sys.argv[1], "w") as f:
	    for i in range(10000):
	        s, d = 8 + i % 25, (16, 20, 24, 28)[(i // 25) % 4]
	        f.write(f"proto udp src 172.{16 + i % 16}.{i // 64 % 256}.0/{s} "
	                f"dst 198.{18 + i % 2}.{i % 256}.0/{d} pref {i} slice {i % 4}\n")
	    f.write("proto udp src 10.99.1.0/24 dst 10.99.9.0/24 dport 9 pref 7 slice 2\n")
	EOF
	ctl rule load "$file" || return 1
	[ "$(ctl -j rule show | json 'len([r for r in j if r["table"] == "wildcard"])')" -eq 10001 ] ||
		return 1
	# A catch-all on slice 3 under them all: a frame the rule misses
	# lands there, not on a per-boot hash's slice.
	ctl rule add proto udp pref 1000000 slice 3 || return 1
	tst_traffic 640 1 || return 1
	per=$(ctl -j stats | json '" ".join(str(s["rx_packets"]) for s in j)')
	tst_diag "rx_packets per slice: $per"
	[ "$per" = "0 0 640 0" ] &&
		[ "$(ctl -j rule show | json '[r["hits"] for r in j if r.get("src") == "10.99.1.0/24"]')" = "[640]" ] ||
		return 1
	ctl rule flush || return 1
	# The 1,025th distinct mask is refused, with its line.
	$py - "$file" <<-'EOF' || return 1
	import sys
	with open(sys.argv[1], "w") as f:
	    for i in range(1025):
	        f.write(f"proto udp src 10.{i % 200}.0.0/{i % 33} dst 10.0.0.0/{i // 33} slice 0\n")
	EOF
	expect_refusal "Error: $file:1025: too many distinct rule masks (NETSLICE_MAX_RULE_MASKS)." \
		ctl rule load "$file" && tst_stop_fwd
}
tst_check "10,000 wildcard rules over 100 masks steer; mask 1,025 is refused" wildcard_scale
tst_run_cleanups

bulk_load() {
	local file bad t0 t1
	setup || return 1
	ctl link attach dev dut0 peer dut1 || return 1
	file=$(mktemp)
	# 100,000 exact rules; the one for nstraffic's flow 0 sends it to slice 3.
	$py - "$file" <<-'EOF' || return 1
	import sys
	with open(sys.argv[1], "w") as f:
	    for i in range(99999):
	        f.write(f"proto tcp src 10.{i >> 16}.{(i >> 8) & 255}.{i & 255} dst 192.0.2.1 "
	                f"sport {1024 + i % 60000} dport 443 slice {i % 4}\n")
	    f.write("proto udp src 10.99.1.1 dst 10.99.9.9 sport 10000 dport 9 slice 3\n")
	EOF
	t0=$(date +%s%N)
	ctl rule load "$file" || return 1
	t1=$(date +%s%N)
	tst_diag "100000 rules loaded in $(((t1 - t0) / 1000000)) ms"
	[ "$(ctl rule show | tail -n +2 | grep -c ' exact ')" -eq 100000 ] || return 1
	# A catch-all on slice 0: a frame the exact rule misses lands there.
	ctl rule add proto udp pref 100 slice 0 || return 1
	tst_traffic 500 1 || return 1
	[ "$(ctl -j stats slice 3 | json 'j[0]["rx_packets"]')" -eq 500 ] &&
		[ "$(ctl -j rule show | json '[r["hits"] for r in j if r["slice"] == 3 and r["hits"]] + [r["hits"] for r in j if r["table"] == "wildcard"]')" = "[500, 0]" ] ||
		return 1
	ctl rule flush || return 1
	# A bad line in the middle: nothing of the file stays.
	bad=$(mktemp)
	sed '50001s/slice [0-9]/slice 9/' "$file" >"$bad"
	expect_refusal "Error: $bad:50001: no such slice." ctl rule load "$bad" &&
		[ "$(ctl -j rule show | json 'len(j)')" -eq 0 ] && tst_stop_fwd
}
tst_check "100,000 rules in bulk, one of them steering; a bad line loads nothing" bulk_load
tst_run_cleanups

# libnetslice's rule API as an NF uses it (tests/guest/rule_api.c: KTAP
# of its own, indented), then what it left, through netslicectl: its
# 20,000 rules, exact, each the return flow it was made from.
rule_api_case() {
	local rc
	tst_load slices=4 || return 1
	rule_api 20000 | tst_indent
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || return 1
	[ "$(ctl -j rule show | json 'sum(1 for r in j if r["table"] == "exact" and r["proto"] == "tcp" and r["src"].split("/")[0] == "10.60.0.1" and r["sport_min"] == r["sport_max"] == 80 and r["dst"].startswith("10.50."))')" -eq 20000 ] &&
		[ "$(ctl -j rule show | json '[(r["dport_min"], r["dport_max"], r["slice"]) for r in j if r["dst"].split("/")[0] == "10.50.1.44"]')" = "[(1324, 1324, 0)]" ]
}
tst_check "libnetslice rules: 20,000 per-connection rules in requests of 256, refusals, all or none" rule_api_case
tst_run_cleanups

tst_done
