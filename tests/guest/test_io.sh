#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# read/write/poll/ioctl semantics and the bad-input matrix (io_check) and
# wake-ups in read/write and ring mode (wake_check), each on a veth pair
# nsa (attached) -- nsb (not attached); a local sender never held up.
# Ring mode's own are test_ring.sh's.
. "$(dirname "$0")/lib.sh"
set -o pipefail

tst_plan 3
tst_module_loaded && rmmod netslice

tst_check "io_check: read, write, poll, ioctls, bad input" tst_pair_check io_check
tst_run_cleanups
tst_check "wake_check: every edge-triggered wake-up, one wake-up per burst to a sleeper" \
	tst_pair_check wake_check
tst_run_cleanups

# A sender on this host (a packet socket on the veth peer, same namespace:
# its frames arrive still charged to its send buffer) must not stall
# while an NF leaves its frames in the ring. 2,000 frames through a
# send buffer of a few frames, a slice open and never read: every send
# completes, and every frame nsc received is queued or a counted drop.
local_sender() {
	local sent held
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip link add nsc type veth peer name nsd || return 1
	tst_defer ip link del nsc
	ip link set nsc up && ip link set nsd up || return 1
	tst_load slices=1 ifaces=nsc || return 1
	exec {held}<>/dev/netslice-0 || return 1
	tst_defer eval "exec $held<&-"
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
	tst_diag "sent $sent"
	[ "$sent" -eq 2000 ] && [ "$(cat /sys/class/net/nsc/statistics/rx_packets)" -ge 2000 ] &&
		tst_frames_accounted nsc
}
tst_check "a local sender is not held up by frames waiting in an unread slice" local_sender

tst_done
