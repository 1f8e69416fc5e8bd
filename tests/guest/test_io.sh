#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# read/write/poll/ioctl semantics and the bad-input matrix (io_check), ring
# mode's (ring_check) and wake-ups in both (wake_check), each on a veth pair
# nsa (attached) -- nsb (not attached).
. "$(dirname "$0")/lib.sh"
set -o pipefail

ns_plan 5
ns_module_loaded && rmmod netslice

# CHECKER nsa nsb, with the module loaded with one slice on nsa.
pair_check() {
	ns_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip link add nsa type veth peer name nsb || return 1
	ns_defer ip link del nsa
	ip link set nsa up && ip link set nsb up || return 1
	ns_load slices=1 ifaces=nsa || return 1
	"$1" nsa nsb | ns_indent || return 1
	# Every frame nsa received: queued, trimmed or dropped, exactly one.
	ns_frames_accounted nsa
}
ns_check "io_check: read, write, poll, ioctls, bad input" pair_check io_check
ns_run_cleanups
ns_check "ring_check: setup, mmap, RX, TX, completions, bad entries, corruption" \
	pair_check ring_check
ns_run_cleanups
ns_check "wake_check: every edge-triggered wake-up, and a burst to a sleeper" \
	pair_check wake_check
ns_run_cleanups

# Busy polling polls: with GRO on, veth receives in a NAPI context, and
# ring_check's waits on an empty busy-polling ring must call
# napi_busy_loop (counted by a kprobe; nothing else here busy-polls).
busy_polls() { awk '$1 == "netslice_busy" {print $2}' "$tracing/kprobe_profile"; }
busy_poll() {
	local polls
	tracing=/sys/kernel/tracing
	[ -e "$tracing/kprobe_events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
	if ! echo 'p:netslice_busy napi_busy_loop' >>"$tracing/kprobe_events" 2>/dev/null; then
		ns_skip_why="no kprobe events in this kernel"
		return "$ksft_skip"
	fi
	ns_defer eval "echo -:netslice_busy >>$tracing/kprobe_events"
	echo 1 >"$tracing/events/kprobes/netslice_busy/enable" || return 1
	ns_defer eval "echo 0 >$tracing/events/kprobes/netslice_busy/enable"
	ns_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip link add nsa type veth peer name nsb || return 1
	ns_defer ip link del nsa
	# Off first: veth enables NAPI when GRO is turned on; and it takes a
	# packet socket's frames through NAPI only from a peer without TSO.
	ip link set nsa up && ip link set nsb up && ethtool -K nsa gro off &&
		ethtool -K nsa gro on && ethtool -K nsb tso off || return 1
	ns_load slices=1 ifaces=nsa || return 1
	ring_check nsa nsb | ns_indent && ns_frames_accounted nsa || return 1
	polls=$(busy_polls)
	ns_diag "napi_busy_loop called $polls times"
	[ "$polls" -gt 0 ]
}
ns_check "ring_check again on a NAPI receiver: busy polling calls napi_busy_loop" busy_poll
ns_run_cleanups

# A sender on this host (a packet socket on the veth peer, same namespace:
# its frames arrive still charged to its send buffer) must not stall
# while an NF leaves its frames in the ring. 2,000 frames through a
# send buffer of a few frames, a slice open and never read: every send
# completes, and every frame nsc received is queued or a counted drop.
local_sender() {
	local sent held
	ns_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip link add nsc type veth peer name nsd || return 1
	ns_defer ip link del nsc
	ip link set nsc up && ip link set nsd up || return 1
	ns_load slices=1 ifaces=nsc || return 1
	exec {held}<>/dev/netslice-0 || return 1
	ns_defer eval "exec $held<&-"
	sent=$(/usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
s.bind(("nsd", 0))
s.settimeout(10)
frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + bytes(500)
sent = 0
try:
    for _ in range(2000):
        s.send(frame)
        sent += 1
except socket.timeout:
    pass
print(sent)') || return 1
	ns_diag "sent $sent"
	[ "$sent" -eq 2000 ] && [ "$(cat /sys/class/net/nsc/statistics/rx_packets)" -ge 2000 ] &&
		ns_frames_accounted nsc
}
ns_check "a local sender is not held up by frames waiting in an unread slice" local_sender

ns_done
