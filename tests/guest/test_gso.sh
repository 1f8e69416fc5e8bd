#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Super-packets kept whole (NETSLICE_CUT_GSO): the sender's TSO packets
# (up to 64 KiB) cross each per-header NF as one header each, and every
# byte arrives. A random file's sha256 at the receiver must be the
# sender's, through nf-fwd, nf-firewall, nf-nat (the receiver sees the
# public address), nf-lb and nf-monitor, and through nf-fwd onto a path
# whose MTU is smaller than the sender's; the counters must show the
# super-packets read whole and sent whole.
#
#   gen: gen0 --veth-- dut0 [netslice + NF] dut1 --veth-- sink: sink0
. "$(dirname "$0")/lib.sh"

tst_plan 8
tst_module_loaded && rmmod netslice

MIB=${NETSLICE_GSO_MIB:-32}
# The file and the firewall's rules outlive each check's cleanups.
file=$(mktemp) fw_rules=$(mktemp)
trap 'tst_run_cleanups; rm -f "$file" "$fw_rules"' EXIT
head -c $((MIB << 20)) /dev/urandom >"$file"
file_sum=$(sha256sum "$file" | cut -d' ' -f1)
printf '%s\n' "default drop" "accept tcp to 10.99.0.2 dport 5001" \
	"accept tcp from 10.99.0.2 sport 5001" >"$fw_rules"

# file_transfer DST PORT [NS]: the file from gen to DST:PORT, received in
# sink (or NS) into a file whose sha256 must be the sender's.
file_transfer() {
	local dst=$1 port=$2 rns=${3:-$sink} out ready rpid rc=0 limit_s got
	limit_s=$(($(tst_scaled 300000) / 1000))
	ip netns exec "$gen" ethtool -K gen0 tso on gso on tx on >/dev/null || return 1
	out=$(mktemp)
	ready=$(mktemp -u)
	ip netns exec "$rns" timeout "$limit_s" python3 -c '
import socket, sys
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("0.0.0.0", int(sys.argv[1])))
srv.listen(1)
open(sys.argv[3], "w").close()
conn, _ = srv.accept()
with open(sys.argv[2], "wb") as f:
    while True:
        data = conn.recv(1 << 20)
        if not data:
            break
        f.write(data)
conn.close()
' "$port" "$out" "$ready" &
	rpid=$!
	tst_defer tst_kill_job "$rpid"
	tst_wait_job "$rpid" /dev/null 0 test -e "$ready" || { rm -f "$out"; return 1; }
	ip netns exec "$gen" timeout "$limit_s" python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
with open(sys.argv[3], "rb") as f:
    s.sendfile(f)
s.close()
' "$dst" "$port" "$file" || { tst_diag "the sender failed"; rc=1; }
	wait "$rpid" || rc=1
	got=$(sha256sum "$out" | cut -d' ' -f1)
	tst_diag "$(stat -c %s "$out") bytes arrived, sha256 ${got:0:16}... (sent ${file_sum:0:16}...)"
	rm -f "$out" "$ready"
	[ $rc = 0 ] && [ "$got" = "$file_sum" ]
}

# Reads per MiB that super-packets must stay under: the file's 1448-byte
# segments read one by one would be 724 per MiB, and the ACKs more; whole
# super-packets (up to 64 KiB) and their ACKs took 19-45 (6.1 and 6.12,
# 2026-11-26).
GSO_READS_PER_MIB=${NETSLICE_GSO_READS_PER_MIB:-100}

# gso_counters [whole]: super-packets were read and sent whole, and few
# reads carried the file. With "whole" (an egress with TSO: nothing is
# cut), every super-packet read left as one.
gso_counters() {
	local rx segs tx reads
	rx=$(tst_stat_sum rx_gso_packets) segs=$(tst_stat_sum rx_gso_segments)
	tx=$(tst_stat_sum tx_gso) reads=$(tst_stat_sum read_packets)
	tst_diag "rx_gso_packets $rx (segments $segs), tx_gso $tx, reads $reads ($((reads / MIB)) per MiB)," \
		"tx_err_gso $(tst_stat_sum tx_err_gso), tx_err_length $(tst_stat_sum tx_err_length)"
	[ "$rx" -gt 0 ] && [ "$segs" -gt "$rx" ] && [ "$tx" -gt 0 ] &&
		[ "$(tst_stat_sum tx_err_gso)" = 0 ] && [ "$reads" -le $((MIB * GSO_READS_PER_MIB)) ] &&
		{ [ "${1:-}" != whole ] || [ "$tx" = "$rx" ]; }
}

# via NF ARGS...: the file through NF ARGS on a fresh topology.
via() {
	tst_topology 1 && tst_addrs || return 1
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	tst_start_bg "running on" "$@" || { sed 's/^/# nf: /' "$bg_out"; return 1; }
	file_transfer 10.99.0.2 5001 && gso_counters whole &&
		tst_stop_bg "$bg_pid" "$bg_out" "$1"
}

tst_check "$MIB MiB through nf-fwd -m auto: sha256 intact, super-packets whole" via nf-fwd -m auto
tst_run_cleanups
tst_check "$MIB MiB through nf-firewall -m auto: sha256 intact, super-packets whole" \
	via nf-firewall -m auto --rules "$fw_rules"
tst_run_cleanups

# NAT: the receiver must see the public address, so it answers it.
nat() {
	tst_topology 1 && tst_addrs || return 1
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	tst_start_bg "running on" nf-nat -m auto --inside dut0 --outside dut1 --public 10.99.0.100 ||
		return 1
	file_transfer 10.99.0.2 5002 && gso_counters whole && tst_stop_bg "$bg_pid" "$bg_out" nf-nat
}
tst_check "$MIB MiB through nf-nat -m auto: translated, sha256 intact, super-packets whole" nat
tst_run_cleanups

# LB: the virtual address, one backend (the sink answers for it).
lb() {
	local be
	tst_topology 1 && tst_addrs || return 1
	be=$(mktemp)
	tst_defer rm -f "$be"
	echo 10.99.0.2 >"$be"
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	tst_start_bg "running on" nf-lb -m auto --vip 10.99.0.100:5003 --client-if dut0 \
		--backend-if dut1 --backends "$be" || { sed 's/^/# nf: /' "$bg_out"; return 1; }
	file_transfer 10.99.0.100 5003 && gso_counters whole && tst_stop_bg "$bg_pid" "$bg_out" nf-lb
}
tst_check "$MIB MiB through nf-lb -m auto to its one backend: sha256 intact, super-packets whole" lb
tst_run_cleanups

# nf-monitor counts a super-packet as its segments and their bytes.
monitor() {
	local json pkts
	via nf-monitor -m auto --json || return 1
	# tst_stop_bg printed the output; the summary is its last JSON line.
	json=$(grep '^{"nf"' "$bg_out" | tail -n 1)
	pkts=$(python3 -c 'import json, sys
print(sum(f["packets"] for f in json.loads(sys.argv[1])["nf-monitor"]["top"]))' "$json")
	tst_diag "nf-monitor: $pkts packets in its flows"
	# The file alone is more than MIB * 700 segments of at most 1448 bytes.
	[ -n "$pkts" ] && [ "$pkts" -ge $((MIB * 724)) ]
}
tst_check "$MIB MiB through nf-monitor -m auto: counted as segments, sha256 intact" monitor
tst_run_cleanups

# A narrower egress than the path's MTU (dut1 1300, the sender's and the
# receiver's 1500, so TCP's MSS is 1460): super-packets must leave in
# segments that fit dut1, and so must full-size packets that are none.
# dut1 has no TSO, so the module's software GSO cuts them: the receiver
# counts frames of at most 1248 payload bytes, not 1448.
narrow() {
	local frames want
	tst_topology 1 && tst_addrs || return 1
	ip link set dut1 mtu 1300 && ethtool -K dut1 tso off gso off >/dev/null || return 1
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	tst_start_fwd -m auto || return 1
	file_transfer 10.99.0.2 5004 && gso_counters || return 1
	frames=$(ip netns exec "$sink" cat /sys/class/net/sink0/statistics/rx_packets)
	want=$(((MIB << 20) / 1248))
	tst_diag "sink0 received $frames frames; $want at least carry the file in 1248-byte segments"
	[ "$frames" -ge "$want" ] && tst_stop_fwd
}
tst_check "$MIB MiB through nf-fwd onto a 1300-byte MTU in a 1500-byte path: cut to fit, sha256 intact" narrow
tst_run_cleanups

# A store of 2 payloads, read in batches of 64: most super-packets find
# it full, and are read as their segments, whole, in order.
store_full() {
	local full
	tst_topology 1 && tst_addrs || return 1
	tst_load ifaces=dut0:dut1 rxq_size=4096 store_size=2 || return 1
	tst_start_fwd -m auto || return 1
	file_transfer 10.99.0.2 5006 || return 1
	full=$(tst_stat_sum read_store_full)
	tst_diag "read_store_full $full, read_sliced $(tst_stat_sum read_sliced)," \
		"rx_gso_packets $(tst_stat_sum rx_gso_packets), rx_drop_error $(tst_stat_sum rx_drop_error)"
	[ "$full" -gt 0 ] && [ "$(tst_stat_sum rx_drop_error)" = 0 ] && tst_stop_fwd
}
tst_check "$MIB MiB through nf-fwd with a store of 2: super-packets read as segments, sha256 intact" store_full
tst_run_cleanups

# Without the flag (nf-fwd --no-gso) super-packets are segmented on RX, as before.
segmented() {
	local segs
	tst_topology 1 && tst_addrs || return 1
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	tst_start_fwd -m auto --no-gso || return 1
	file_transfer 10.99.0.2 5005 || return 1
	segs=$(tst_stat_sum rx_segments)
	tst_diag "rx_segments $segs, rx_gso_packets $(tst_stat_sum rx_gso_packets)"
	[ "$segs" -gt 0 ] && [ "$(tst_stat_sum rx_gso_packets)" = 0 ] && tst_stop_fwd
}
tst_check "$MIB MiB through nf-fwd --no-gso: segmented on receive, sha256 intact" segmented
tst_run_cleanups

tst_done
