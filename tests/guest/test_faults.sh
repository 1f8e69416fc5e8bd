#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Faults under traffic: the forwarder SIGKILLed mid-batch again and again,
# an attached interface deleted, rmmod with a slice open, and rounds of
# load-forward-rmmod and attach-delete. Afterwards the counters account for
# every frame and the module unloads (the runner checks the kernel log).
#
# NETSLICE_FAULT_KILLS (default 100) and NETSLICE_FAULT_REPEATS (default
# 10): make check-debug runs 1000 and 100.
. "$(dirname "$0")/lib.sh"

tst_plan 6
tst_module_loaded && rmmod netslice
KILLS=${NETSLICE_FAULT_KILLS:-100}
REPEATS=${NETSLICE_FAULT_REPEATS:-10}

# Background traffic gen -> sink until stop_traffic or cleanup.
start_traffic() {
	ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 100000000 >/dev/null &
	traffic_pid=$!
	tst_defer tst_kill_job "$traffic_pid"
}

stop_traffic() {
	kill "$traffic_pid" && wait "$traffic_pid" 2>/dev/null
	return 0
}

read_grows() {
	local before=$1
	[ "$(tst_stat_sum read_packets)" -gt "$before" ]
}

kill_forwarder() {
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 || return 1
	start_traffic
	faultloop kill "$KILLS" | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	stop_traffic
	# Frames still in the veth backlog are counted by dut0 first.
	tst_busywait 5000 tst_frames_accounted dut0 quiet || tst_frames_accounted dut0
}
tst_check "forwarder SIGKILLed mid-batch $KILLS times under traffic" kill_forwarder
tst_run_cleanups

delete_under_traffic() {
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 || return 1
	tst_start_fwd || return 1
	start_traffic
	tst_busywait 10000 read_grows 0 || return 1
	tst_dmesg_mark
	ip link del dut1 || return 1
	tst_busywait 5000 eval 'tst_dmesg_since | grep -q "detached dut1"' || return 1
	# Forwarding on: frames from dut0 now have no egress and are flagged.
	local e
	e=$(tst_stat_sum tx_err_ifindex)
	tst_busywait 10000 eval '[ $(tst_stat_sum tx_err_ifindex) -gt '"$e"' ]' || return 1
	tst_stop_fwd >/dev/null
}
tst_check "an attached interface deleted under traffic detaches cleanly" delete_under_traffic
tst_run_cleanups

rmmod_open_under_traffic() {
	local fd before
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 || return 1
	tst_start_fwd || return 1
	start_traffic
	tst_busywait 10000 read_grows 0 || return 1
	exec {fd}<>/dev/netslice-0 || return 1
	rmmod netslice 2>/dev/null && { tst_diag "rmmod succeeded with an open slice"; return 1; }
	before=$(tst_stat_sum read_packets)
	tst_busywait 10000 read_grows "$before" || return 1
	exec {fd}>&-
	tst_stop_fwd >/dev/null || return 1
	tst_run_cleanups
	! tst_module_loaded
}
tst_check "rmmod with a slice open under traffic is refused; traffic goes on" rmmod_open_under_traffic
tst_run_cleanups

# Each round: load, forward under traffic, SIGKILL the forwarder, rmmod
# while frames keep arriving.
rmmod_rounds() {
	tst_topology 1 || return 1
	start_traffic
	faultloop rmmod "$REPEATS" "$TST_KO" ifaces=dut0:dut1 | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	stop_traffic
	! tst_module_loaded && tst_no_nodes
}
tst_check "load, forward, rmmod under traffic: $REPEATS rounds" rmmod_rounds
tst_run_cleanups

# Each round: a fresh veth pair attached, traffic into it and a forwarder
# reading, then the attached end deleted; every deletion detaches.
delete_rounds() {
	local detached
	tst_load slices=2 || return 1
	tst_dmesg_mark
	faultloop delete "$REPEATS" | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	detached=$(tst_dmesg_since | grep -c "detached fdel0")
	[ "$detached" -eq "$REPEATS" ] || { tst_diag "$detached detach messages"; return 1; }
	! netslicectl -j link show | grep -q fdel
}
tst_check "an attached interface deleted under traffic: $REPEATS rounds" delete_rounds
tst_run_cleanups

# Most of the guest's memory taken while the payload stores are full: the
# receive path must fall back (whole packets, counted drops), never crash,
# and every frame must be accounted for; closing frees every payload.
memory_pressure() {
	local hog
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 store_size=64 store_timeout_ms=60000 rxq_size=256 || return 1
	/usr/bin/python3 -c '
import sys, time
chunks = []
def avail():
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
while avail() > 96 << 20:
    chunks.append(bytearray(16 << 20))
print("pressure", flush=True)
time.sleep(3600)' >"${TMPDIR:-/tmp}/hog.$$" 2>&1 &
	hog=$!
	tst_defer tst_kill_job "$hog"
	tst_busywait 60000 grep -q pressure "${TMPDIR:-/tmp}/hog.$$" || { tst_diag "no pressure"; return 1; }
	tst_diag "$(grep MemAvailable /proc/meminfo)"
	start_traffic
	faultloop hold 5 | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	stop_traffic
	kill "$hog" && wait "$hog" 2>/dev/null
	rm -f "${TMPDIR:-/tmp}/hog.$$"
	tst_busywait 5000 tst_frames_accounted dut0 quiet || tst_frames_accounted dut0 || return 1
	[ "$(tst_stat_sum store_used)" -eq 0 ] && [ "$(tst_stat_sum store_closed)" -gt 0 ]
}
tst_check "memory pressure with full payload stores: frames accounted, stores emptied on close" memory_pressure

tst_done
