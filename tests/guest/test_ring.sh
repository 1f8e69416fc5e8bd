#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Ring mode (ring_check): setup and mmap rules, RX into frames, TX from RX
# frames and from others, completions with per-entry errors, corrupted
# indices, slicing and trimming through the rings, close and fork with the
# rings mapped; then again on a NAPI receiver, where it must busy-poll.
# Each on a veth pair nsa (attached) -- nsb (not attached). Ring mode's
# safety cases (detach, memory limits, IRQs-off frees) are test_safety.sh's.
. "$(dirname "$0")/lib.sh"
set -o pipefail

tst_plan 2
tst_module_loaded && rmmod netslice

tst_check "ring_check: setup, mmap, RX, TX, completions, bad entries, corruption" \
	tst_pair_check ring_check
tst_run_cleanups

# Busy polling polls: with GRO on, veth receives in a NAPI context, and
# ring_check's waits on an empty busy-polling ring must call
# napi_busy_loop (counted by a kprobe; nothing else here busy-polls).
busy_polls() { awk '$1 == "netslice_busy" {print $2}' "$tracing/kprobe_profile"; }
busy_poll() {
	local polls
	tracing=/sys/kernel/tracing
	[ -e "$tracing/kprobe_events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
	if ! echo 'p:netslice_busy napi_busy_loop' >>"$tracing/kprobe_events" 2>/dev/null; then
		tst_skip_why="no kprobe events in this kernel"
		return "$ksft_skip"
	fi
	tst_defer eval "echo -:netslice_busy >>$tracing/kprobe_events"
	echo 1 >"$tracing/events/kprobes/netslice_busy/enable" || return 1
	tst_defer eval "echo 0 >$tracing/events/kprobes/netslice_busy/enable"
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip link add nsa type veth peer name nsb || return 1
	tst_defer ip link del nsa
	# Off first: veth enables NAPI when GRO is turned on; and it takes a
	# packet socket's frames through NAPI only from a peer without TSO.
	ip link set nsa up && ip link set nsb up && ethtool -K nsa gro off &&
		ethtool -K nsa gro on && ethtool -K nsb tso off || return 1
	tst_load slices=1 ifaces=nsa || return 1
	ring_check nsa nsb | tst_indent && tst_frames_accounted nsa || return 1
	polls=$(busy_polls)
	tst_diag "napi_busy_loop called $polls times"
	[ "$polls" -gt 0 ]
}
tst_check "ring_check again on a NAPI receiver: busy polling calls napi_busy_loop" busy_poll
tst_run_cleanups

tst_done
