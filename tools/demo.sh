#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a guest, build the demo topology, load netslice on the
# DUT and forward live traffic through netslice-fwd.
#
#   namespace gen          DUT (guest root namespace)             namespace sink
#   gen0 10.99.0.1 <--veth--> dut0 [netslice-fwd] dut1 <--veth--> sink0 10.99.0.2
#
# NETSLICE_DEMO_KERNEL picks the guest kernel (default 6.12).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ "${1:-}" != --guest ]; then
	. "$top/tests/vm/kernels.sh"
	kver=$(ns_kernel_version "${NETSLICE_DEMO_KERNEL:-6.12}")
	[ -n "$kver" ] || { echo "demo: kernel not installed; run tools/deps.sh" >&2; exit 1; }
	ko=$("$top/tools/kbuild.sh" "$kver")
	echo "demo: booting $kver in a guest (under TCG this takes about half a minute)"
	NETSLICE_KO=$ko exec "$top/tests/vm/run" --kernel "$kver" -- "$top/tools/demo.sh" --guest
fi

. "$top/tests/guest/lib.sh"

step() { printf '\n== %s\n' "$*"; }

step "topology: gen -- veth -- dut0 [netslice + netslice-fwd] dut1 -- veth -- sink"
ns_module_loaded && rmmod netslice
ns_topology 2
ip -n "$gen" addr add 10.99.0.1/24 dev gen0
ip -n "$sink" addr add 10.99.0.2/24 dev sink0
echo "netns $gen:";  ip -n "$gen" -br addr show gen0
echo "DUT:";         ip -br link show dut0; ip -br link show dut1
echo "netns $sink:"; ip -n "$sink" -br addr show sink0

step "load the module: insmod netslice.ko ifaces=dut0:dut1 (one slice per CPU)"
ns_load ifaces=dut0:dut1
dmesg | grep 'netslice:' | tail -n 3

step "slice devices and their CPUs (netslice-info)"
ls -l /dev/netslice-*
netslice-info

step "start the forwarder: one thread per slice, read batch -> write batch"
ns_start_fwd
cat "$fwd_out"

step "gen pings sink through the forwarder"
ns_busywait 10000 ip netns exec "$gen" ping -c 1 -W 1 10.99.0.2 >/dev/null ||
	{ echo "demo: gen cannot reach sink through netslice" >&2; exit 1; }
ip netns exec "$gen" ping -c 5 -i 0.2 10.99.0.2 | tail -n 2

step "10000 UDP frames of 60..1514 bytes, 64 flows, checked byte by byte at the sink"
ns_traffic 10000

step "per-slice counters"
netslice-info -s | grep -o '^slice [0-9]*: rx_packets=[0-9]*\|read_bytes=[0-9]*\|rx_drop_[a-z_]*=[0-9]*\|tx_packets=[0-9]*\|tx_err_down=[0-9]*' |
	paste -d' ' - - - - - - - | sed 's/^/  /'

step "stop the forwarder"
ns_stop_fwd

step "unload"
ns_run_cleanups
ns_no_nodes && echo "module unloaded, no /dev/netslice-* left"
