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
# sent; prints "sent N errors E usec T busy B pktgen P": T is how long
# pktgen ran, B the busy CPU time of the whole machine and P that of the
# pktgen threads while the load ran, both in USER_HZ ticks. Uses the
# calling namespace's pktgen thread on CPU 0.
#
# Shell builtins only while measuring: a process started under TCG costs
# more than the measurement it would disturb. PKTGEN_ON_START, a command,
# runs just before the load starts (bench/insns.sh marks its start there).
set -euo pipefail
[ $# -ge 5 ] || { sed -n '5p' "$0" >&2; exit 2; }
dev=$1 mac=$2 size=$3 pps=$4 span=$5 flows=${6:-256}
pg=/proc/net/pktgen
[ -d $pg ] || modprobe pktgen

pgset() { echo "$2" >"$pg/$1"; }

# pgresult: pktgen's verdict on the last command for the device, in r.
# (Functions here set variables: $(...) would fork.)
pgresult() {
	local line
	while read -r line; do
		case $line in Result:*) r=$line; return ;; esac
	done <"$pg/$dev"
}

# cpu_busy VAR: busy ticks of all CPUs.
cpu_busy() {
	local _cpu user nice sys _idle _iowait irq softirq steal
	read -r _cpu user nice sys _idle _iowait irq softirq steal _ </proc/stat
	printf -v "$1" %d $((user + nice + sys + irq + softirq + steal))
}

pg_pids=()
for p in /proc/[0-9]*; do
	read -r comm 2>/dev/null <"$p/comm" || continue
	[[ $comm == kpktgend_* ]] && pg_pids+=("$p")
done
# pktgen_ticks VAR: busy ticks of the pktgen threads.
pktgen_ticks() {
	local p t=0 f
	for p in "${pg_pids[@]}"; do
		read -ra f <"$p/stat" || continue
		# comm is one word ("(kpktgend_0)"): utime and stime are fields 14, 15.
		t=$((t + f[13] + f[14]))
	done
	printf -v "$1" %d $t
}

pgset kpktgend_0 rem_device_all
pgset kpktgend_0 "add_device $dev"
case $span in
count:*) pgset "$dev" "count ${span#count:}" ;;
*) pgset "$dev" "count 0" ;;
esac
for cmd in "clone_skb 0" "pkt_size $((size - 4))" "dst_mac $mac" "src_min 10.99.1.1" \
	"src_max 10.99.1.1" "dst 10.99.9.9" "udp_src_min 10000" \
	"udp_src_max $((10000 + flows - 1))" "udp_dst_min 9" "udp_dst_max 9"; do
	pgset "$dev" "$cmd"
	pgresult
	[[ $r == "Result: OK"* ]] || { echo "pktgen: $dev: '$cmd': $r" >&2; exit 1; }
done
if [ "$pps" -gt 0 ]; then
	pgset "$dev" "ratep $pps"
else
	pgset "$dev" "delay 0"
fi

cpu_busy b0
pktgen_ticks p0
[ -z "${PKTGEN_ON_START:-}" ] || eval "$PKTGEN_ON_START"
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
cpu_busy b1
pktgen_ticks p1
# "Result: OK: 1003493(c1003013+d480) usec, 62168 (60byte,0frags)" and
# "pkts-sofar: 62168  errors: 0"
pgresult
usec=${r#Result: OK: }
usec=${usec%%(*}
sofar= errors=
while read -r line; do
	if [[ $line =~ pkts-sofar:\ ([0-9]+)\ +errors:\ ([0-9]+) ]]; then
		sofar=${BASH_REMATCH[1]} errors=${BASH_REMATCH[2]}
	fi
done <"$pg/$dev"
echo "sent $sofar errors $errors usec $usec busy $((b1 - b0)) pktgen $((p1 - p0))"
pgset kpktgend_0 rem_device_all
