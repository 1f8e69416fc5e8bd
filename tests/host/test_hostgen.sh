#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench's host generator (bench/hostgen.c) on real taps, in a network
# namespace of its own: a stand-in DUT (Python on the taps' file
# descriptors, where QEMU would be) takes what hostgen writes into one tap
# and writes it back into the other, whose rx_packets hostgen waits on.
# Batches arrive whole and in order of request, as many as asked, of the
# size asked, over the flows asked; as fast as the tap takes them (batch
# 0) too; a bad request gets an error answer and hostgen serves on; it
# ends with its parent.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/ktap.sh"
hostgen=$top/build/bench/hostgen
ns=nshg-$$
dir=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

ktap_plan 7
if [ "$(id -u)" != 0 ] || [ ! -c /dev/net/tun ] || [ ! -x "$hostgen" ]; then
	for c in batches "as fast as the tap takes them" "at a rate" "1518-byte frames" \
		"a bad request" "its parent killed" "a tap nobody reads"; do
		skip "$c" "needs root, /dev/net/tun and build/bench/hostgen"
	done
	ktap_done
	exit
fi
ip netns add "$ns" &&
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 &&
	ip -n "$ns" tuntap add mode tap name hga &&
	ip -n "$ns" tuntap add mode tap name hgb &&
	ip -n "$ns" link set hga up && ip -n "$ns" link set hgb up || {
	# As tests/vm/run, which then makes no multi-queue NICs: said, skipped.
	for c in batches "as fast as the tap takes them" "at a rate" "1518-byte frames" \
		"a bad request" "its parent killed" "a tap nobody reads"; do
		skip "$c" "this host makes no network namespace with taps"
	done
	ktap_done
	exit
}

# The stand-in DUT: every frame read from hga written into hgb, and a
# summary per request (frames, sizes, flows, destination) to $dir/dut.
ip netns exec "$ns" python3 - "$dir/dut" <<'PY' &
import fcntl, os, struct, sys
def tap(name):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", name.encode(), 0x0002 | 0x1000))
    return fd
a, b = tap("hga"), tap("hgb")
open(sys.argv[1] + ".ready", "w").close()
seen = {"frames": 0, "sizes": set(), "ports": set(), "dst": set(), "bad": 0}
while True:
    f = os.read(a, 2048)
    seen["frames"] += 1
    seen["sizes"].add(len(f))
    seen["dst"].add(f[:6].hex(":"))
    if f[12:14] != b"\x08\x00" or f[23] != 17 or f[30:34] != bytes([10, 99, 9, 9]):
        seen["bad"] += 1
    seen["ports"].add(struct.unpack("!H", f[34:36])[0])
    os.write(b, f)
    with open(sys.argv[1] + ".tmp", "w") as out:
        out.write("frames %d sizes %s flows %d ports %d-%d dst %s bad %d\n" % (
            seen["frames"], ",".join(map(str, sorted(seen["sizes"]))), len(seen["ports"]),
            min(seen["ports"]), max(seen["ports"]), ",".join(sorted(seen["dst"])), seen["bad"]))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
PY
pids+=($!)
for _ in $(seq 100); do [ -e "$dir/dut.ready" ] && break; sleep 0.1; done
[ -e "$dir/dut.ready" ] || { echo "# the stand-in DUT did not open the taps"; exit 1; }
ip netns exec "$ns" "$hostgen" "$dir" hga hgb 2>"$dir/hostgen.err" &
pids+=($!)
for _ in $(seq 100); do [ -e "$dir/hostgen.ready" ] && break; sleep 0.1; done
[ -e "$dir/hostgen.ready" ] || { echo "# hostgen never said it was ready: $(cat "$dir/hostgen.err")"; exit 1; }

# ask SEQ REQUEST...: hostgen's answer to "SEQ REQUEST" in $ans, within 20 s.
ask() {
	local seq=$1 i
	echo "$*" >"$dir/hostgen.req.tmp" && mv "$dir/hostgen.req.tmp" "$dir/hostgen.req"
	for ((i = 0; i < 200; i++)); do
		ans=$(cat "$dir/hostgen.done" 2>/dev/null)
		[ "${ans%% *}" = "$seq" ] && return 0
		sleep 0.1
	done
	echo "# no answer to request $seq: $(cat "$dir/hostgen.err")"
	return 1
}

# want WORDS...: every word in hostgen's answer and the DUT's summary.
want() {
	local w
	for w; do
		[[ " $ans | $(cat "$dir/dut") " == *" $w "* ]] && continue
		echo "# want '$w' in: $ans | $(cat "$dir/dut")"
		return 1
	done
}

# answer_len: the answer file is 256 bytes, whatever it says: a guest
# reading it over 9p as it is replaced must find the length it last saw.
answer_len() {
	local n
	n=$(wc -c <"$dir/hostgen.done")
	[ "$n" -eq 256 ] && return 0
	echo "# want a 256-byte answer file, got $n bytes"
	return 1
}

# flows_within LO HI MIN: the DUT saw at least MIN source ports, all in LO-HI.
flows_within() {
	read -r _ _ _ _ _ n _ range _ <"$dir/dut"
	[ "$n" -ge "$3" ] && [ "${range%-*}" -ge "$1" ] && [ "${range#*-}" -le "$2" ] && return 0
	echo "# want at least $3 flows within $1-$2: $(cat "$dir/dut")"
	return 1
}

ask 1 02:00:00:00:00:02 64 1000 256 64 &&
	want "sent 1000" "batches 16" "dropped 0" "frames 1000" "sizes 60" "dst 02:00:00:00:00:02" \
		"bad 0" && flows_within 10000 10255 240 && answer_len
result "batches: 1,000 64-byte frames over 256 flows, each batch forwarded before the next" $?

ask 2 02:00:00:00:00:02 64 2000 16 0 &&
	want "sent 2000" "batches 32" "frames 3000" "bad 0"
result "as fast as the tap takes them (batch 0), then every frame waited for" $?

# At 2,000 a second, 200 frames in calls of 8: the last call due at 96 ms.
ask 6 02:00:00:00:00:02 64 200 4 0 2000 &&
	want "sent 200" "batches 25" "frames 3200" &&
	[ "$(awk '{ print $7 }' <<<"$ans")" -ge 96000 ] ||
	{ echo "# want the sending to take at least 96 ms: $ans"; false; }
result "at a rate: 200 frames at 2,000 a second, each call of 8 at its time" $?

ask 3 02:00:00:00:00:03 1518 100 1 8 &&
	want "sent 100" "batches 13" "frames 3300" "sizes 60,1514" "dst 02:00:00:00:00:02,02:00:00:00:00:03"
result "1518-byte frames (1,514 without the FCS), one flow, 8 a batch" $?

# SEQ answered as written (a leading zero kept).
ask 04 zz 64 10 1 1 && want "04 error bad request" && answer_len &&
	ask 05 02:00:00:00:00:02 64 10 1 1 && want "05 sent 10" "frames 3310"
result "a bad request: an error answer, and the next served" $?

# Its parent killed (the runner, in make bench): hostgen ends too, not
# left waking on the host's CPU 0, and takes hostgen.ready with it (the
# guest stops waiting for answers). Started as the runner starts it, in a
# directory of its own.
mkdir "$dir/orphan"
bash -c 'ip netns exec "$1" taskset -c 0 "$2" "$3" hga hgb 2>"$3/err" & echo $! >"$3/pid"; wait' \
	_ "$ns" "$hostgen" "$dir/orphan" &
parent=$!
for _ in $(seq 100); do [ -e "$dir/orphan/hostgen.ready" ] && break; sleep 0.1; done
orphan=$(cat "$dir/orphan/pid" 2>/dev/null)
ready=$([ -e "$dir/orphan/hostgen.ready" ] && echo 1)
kill -9 "$parent"
wait "$parent" 2>/dev/null
for _ in $(seq 50); do kill -0 "$orphan" 2>/dev/null || break; sleep 0.1; done
if [ -n "$orphan" ] && [ -n "$ready" ] && ! kill -0 "$orphan" 2>/dev/null &&
	[ ! -e "$dir/orphan/hostgen.ready" ]; then
	result "its parent killed, hostgen ends within 5 s and hostgen.ready goes" 0
else
	kill "$orphan" 2>/dev/null
	echo "# hostgen ${orphan:-never started} (ready ${ready:-never}) outlived its parent" \
		"or left hostgen.ready: $(cat "$dir/orphan/err")"
	result "its parent killed, hostgen ends within 5 s and hostgen.ready goes" 1
fi

# The stand-in DUT gone: the tap's ring fills, and 2 s of refusals end
# the request with an error, not a wait for ever.
kill "${pids[0]}" && wait "${pids[0]}" 2>/dev/null
ask 7 02:00:00:00:00:02 64 100000 1 0 && want "7 error No buffer space available" &&
	ask 8 zz 64 1 1 1 && want "8 error bad request"
result "a tap nobody reads: the request ends in an error, hostgen serves on" $?

ktap_done
