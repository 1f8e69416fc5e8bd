#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a guest, load netslice, build the demo topology and show
# what exists.
#
#   namespace gen              DUT (guest root namespace)           namespace sink
#   gen0 10.99.1.1 <--veth--> dut0 10.99.1.2   dut1 10.99.2.2 <--veth--> sink0 10.99.2.1
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

step "load the module: insmod netslice.ko (one slice per CPU)"
ns_module_loaded && rmmod netslice
ns_load
dmesg | grep 'netslice:' | tail -n 1

step "slice devices and their CPUs (netslice-info)"
ls -l /dev/netslice-*
netslice-info

step "topology: gen -- veth -- DUT -- veth -- sink"
ns_netns_create gen sink
ip link add dut0 type veth peer name gen0 netns "$gen"
ns_defer ip link del dut0
ip link add dut1 type veth peer name sink0 netns "$sink"
ns_defer ip link del dut1
ip addr add 10.99.1.2/24 dev dut0
ip addr add 10.99.2.2/24 dev dut1
ip link set dut0 up
ip link set dut1 up
ip -n "$gen" addr add 10.99.1.1/24 dev gen0
ip -n "$gen" link set gen0 up
ip -n "$sink" addr add 10.99.2.1/24 dev sink0
ip -n "$sink" link set sink0 up
echo "netns $gen:";  ip -n "$gen" -br addr show gen0
echo "DUT:";         ip -br addr show dut0; ip -br addr show dut1
echo "netns $sink:"; ip -n "$sink" -br addr show sink0

step "traffic: gen pings the DUT over the veth (kernel stack; slices attach in a later release)"
ns_busywait 5000 ip netns exec "$gen" ping -c 1 -W 1 10.99.1.2 >/dev/null ||
	{ echo "demo: gen cannot reach the DUT" >&2; exit 1; }
ip netns exec "$gen" ping -c 3 -i 0.2 10.99.1.2 | tail -n 2

step "unload"
ns_run_cleanups
ns_no_nodes && echo "module unloaded, no /dev/netslice-* left"
