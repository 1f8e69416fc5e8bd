#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Ring mode (ring_check): setup and mmap rules, RX into frames, TX from RX
# frames and from others, completions with per-entry errors, corrupted
# indices, cuts and trimming through the rings, close and fork with the
# rings mapped; then again on a NAPI receiver, where it must busy-poll;
# then nf-fwd with preferred busy polling, paced by its own timer or woken
# through the device's deferred interrupt.
# Each on a veth pair nsa (attached) -- nsb (not attached). Ring mode's
# safety cases (detach, memory limits, IRQs-off frees) are test_safety.sh's.
. "$(dirname "$0")/lib.sh"
set -o pipefail

tst_plan 4
tst_module_loaded && rmmod netslice

tst_check "ring_check: setup, mmap, RX, TX, completions, bad entries, corruption" \
	tst_pair_check ring_check
tst_run_cleanups

# Busy polling polls: with GRO on, veth receives in a NAPI context, and
# ring_check's waits on an empty busy-polling ring must call
# napi_busy_loop (counted by a kprobe; nothing else here busy-polls).
busy_polls() { awk '$1 == "netslice_busy" {print $2}' "$tracing/kprobe_profile"; }
busy_probe() {
	tracing=/sys/kernel/tracing
	[ -e "$tracing/kprobe_events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
	if ! echo 'p:netslice_busy napi_busy_loop' >>"$tracing/kprobe_events" 2>/dev/null; then
		tst_skip_why="no kprobe events in this kernel"
		return "$ksft_skip"
	fi
	tst_defer eval "echo -:netslice_busy >>$tracing/kprobe_events"
	echo 1 >"$tracing/events/kprobes/netslice_busy/enable" || return 1
	tst_defer eval "echo 0 >$tracing/events/kprobes/netslice_busy/enable"
}
busy_poll() {
	local polls rc
	busy_probe || { rc=$?; return $rc; }
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

# prefer_busy TIMEOUT_NS MIN_WAKES MAX_WAKES MIN_POLLS [NF_OPTION...]: nf-fwd
# in ring mode with preferred busy polling on dut0 made a NAPI receiver
# whose interrupt stays deferred (napi_defer_hard_irqs 2, gro_flush_timeout
# TIMEOUT_NS): N frames cross once and byte-identical, the counters add
# up exactly, and while they did dut0's NAPI thread ran MIN_WAKES to
# MAX_WAKES times and nf-fwd busy-polled at least MIN_POLLS times.
N=4000
napi_wakes() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$napi_thread/status"; }
prefer_busy() {
	local timeout=$1 min=$2 max=$3 min_polls=$4 polls wakes rc
	shift 4
	busy_probe || { rc=$?; return $rc; }
	tst_topology 1 || return 1
	# veth's NAPI, as busy_poll's (GRO off, then on; no TSO on the sender).
	ip netns exec "$gen" ethtool -K gen0 tso off >/dev/null && ethtool -K dut0 gro off >/dev/null &&
		ethtool -K dut0 gro on >/dev/null &&
		echo 1 >/sys/class/net/dut0/threaded && echo 2 >/sys/class/net/dut0/napi_defer_hard_irqs &&
		echo "$timeout" >/sys/class/net/dut0/gro_flush_timeout || return 1
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	tst_start_fwd -M ring -m off --busy-poll 5 --prefer-busy-poll "$@" || return 1
	napi_thread=$(pgrep '^napi/dut0-' | head -n 1)
	[ -n "$napi_thread" ] || { tst_diag "dut0 has no NAPI thread"; return 1; }
	polls=$(busy_polls) wakes=$(napi_wakes)
	tst_traffic $N || return 1
	wakes=$(($(napi_wakes) - wakes)) polls=$(($(busy_polls) - polls))
	tst_diag "napi_busy_loop called $polls times (want $min_polls or more);" \
		"dut0's NAPI thread ran $wakes times (want $min..$max)"
	[ "$(tst_stat_sum rx_packets)" -eq $N ] && [ "$(tst_stat_sum tx_packets)" -eq $N ] &&
		[ "$(tst_stat_sum rx_drop_ring_full)" -eq 0 ] && [ "$polls" -ge "$min_polls" ] &&
		[ "$wakes" -ge "$min" ] && [ "$wakes" -le "$max" ] && tst_stop_fwd
}

# Paced by the worker's timer (200 us, the device's at 50 ms): the worker
# polls the port itself, and the port's NAPI thread wakes less than once
# per 64 frames (once in 4,000 frames, 2026-12-04); and with no timer of
# its own: the device's timer (1 ms) polls (its NAPI thread runs), RX
# wakes the worker, which finds frames and need not poll, and a lost
# wake-up would strand the frames (nothing else looks).
tst_check "preferred busy polling paced by nf-fwd --wake-every 200: $N frames cross once" \
	prefer_busy 50000000 0 $((N / 64)) 1 --wake-every 200
tst_run_cleanups
tst_check "preferred busy polling with no timer of nf-fwd's: woken through the device's timer, $N frames cross" \
	prefer_busy 1000000 1 $N 0
tst_run_cleanups

tst_done
