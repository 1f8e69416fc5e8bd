#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark's load: the kernel's pktgen on one interface of the
# calling network namespace (run it with ip netns exec).
#
#   bench/pktgen.sh IFACE DSTMAC SIZE PPS SECS|count:N [FLOWS]
#
# Fixed-size UDP/IPv4 frames 10.99.1.1 -> 10.99.9.9 port 9, SIZE bytes on
# the wire with the FCS (so 60..1514 in the skb), source ports
# 10000..10000+FLOWS-1 (default 256) in turn so that hashing spreads them,
# each stamped by pktgen with the time it was built. PPS 0 means as fast
# as pktgen can (saturation). Runs SECS seconds, or until N frames are
# sent; prints "sent N errors E busy B pktgen P": B is the busy CPU time
# of the whole machine and P that of the pktgen threads while the load ran,
# both in USER_HZ ticks. Uses the calling namespace's pktgen thread on
# CPU 0.
set -euo pipefail
[ $# -ge 5 ] || { sed -n '5p' "$0" >&2; exit 2; }
dev=$1 mac=$2 size=$3 pps=$4 span=$5 flows=${6:-256}
pg=/proc/net/pktgen
[ -d $pg ] || modprobe pktgen

pgset() {
	echo "$2" >"$pg/$1"
	if [ "$1" = "$dev" ] && ! grep -q "^Result: OK" "$pg/$1"; then
		echo "pktgen: $1: '$2': $(grep '^Result' "$pg/$1")" >&2
		exit 1
	fi
}

pgset kpktgend_0 rem_device_all
pgset kpktgend_0 "add_device $dev"
case $span in
count:*) pgset "$dev" "count ${span#count:}" ;;
*) pgset "$dev" "count 0" ;;
esac
pgset "$dev" "clone_skb 0"
pgset "$dev" "pkt_size $((size - 4))"
pgset "$dev" "dst_mac $mac"
pgset "$dev" "src_min 10.99.1.1"
pgset "$dev" "src_max 10.99.1.1"
pgset "$dev" "dst 10.99.9.9"
pgset "$dev" "udp_src_min 10000"
pgset "$dev" "udp_src_max $((10000 + flows - 1))"
pgset "$dev" "udp_dst_min 9"
pgset "$dev" "udp_dst_max 9"
if [ "$pps" -gt 0 ]; then
	pgset "$dev" "ratep $pps"
else
	pgset "$dev" "delay 0"
fi

# Busy ticks of all CPUs, and of every pktgen thread.
cpu_busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }
pktgen_ticks() {
	local p t=0
	for p in $(pgrep '^kpktgend_'); do
		t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
	done
	echo $t
}

b0=$(cpu_busy) p0=$(pktgen_ticks)
# "start" returns when the count is reached or "stop" is written.
echo start >"$pg/pgctrl" &
starter=$!
case $span in
count:*) ;;
*)
	sleep "$span"
	echo stop >"$pg/pgctrl"
	;;
esac
wait "$starter"
b1=$(cpu_busy) p1=$(pktgen_ticks)
line=$(grep -o 'pkts-sofar: [0-9]*  errors: [0-9]*' "$pg/$dev")
set -- $line
echo "sent $2 errors $4 busy $((b1 - b0)) pktgen $((p1 - p0))"
pgset kpktgend_0 rem_device_all
