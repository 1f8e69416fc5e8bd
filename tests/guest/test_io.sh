#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# read/write/poll/ioctl semantics and the bad-input matrix (io_check), on
# a veth pair nsa (attached) -- nsb (not attached).
. "$(dirname "$0")/lib.sh"
set -o pipefail

ns_plan 1
ns_module_loaded && rmmod netslice

io_semantics() {
	ns_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip link add nsa type veth peer name nsb || return 1
	ns_defer ip link del nsa
	ip link set nsa up && ip link set nsb up || return 1
	ns_load slices=1 ifaces=nsa || return 1
	io_check nsa nsb | ns_indent
}
ns_check "io_check: read, write, poll, ioctls, bad input" io_semantics

ns_done
