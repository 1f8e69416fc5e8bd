#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a guest, build the demo topology, load netslice on the
# DUT and forward live traffic through nf-fwd, whole packets and
# then header-sliced, with the bytes each moved to and from user space, and
# then nf-firewall with its per-rule hit counters.
#
#   namespace gen          DUT (guest root namespace)             namespace sink
#   gen0 10.99.0.1 <--veth--> dut0 [nf-fwd] dut1 <--veth--> sink0 10.99.0.2
#
# NETSLICE_DEMO_KERNEL picks the guest kernel (default 6.12).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ "${1:-}" != --guest ]; then
	. "$top/tests/vm/kernels.sh"
	kver=$(tst_kernel_version "${NETSLICE_DEMO_KERNEL:-6.12}")
	[ -n "$kver" ] || { echo "demo: kernel not installed; run scripts/deps.sh" >&2; exit 1; }
	ko=$("$top/scripts/kbuild.sh" "$kver")
	echo "demo: booting $kver in a guest (under TCG this takes about half a minute)"
	NETSLICE_KO=$ko exec "$top/tests/vm/run" --kernel "$kver" -- "$top/scripts/demo.sh" --guest
fi

. "$top/tests/guest/lib.sh"

# A failed step names itself; the lines above it say what it waited for
# and what it saw (the helpers print both).
step_name=
step() {
	step_name=$*
	printf '\n== %s\n' "$*"
}
demo_exit() {
	local rc=$?
	tst_run_cleanups
	[ "$rc" -eq 0 ] || echo "demo: FAILED (exit $rc) in step: $step_name" >&2
	exit "$rc"
}
trap demo_exit EXIT

step "topology: gen -- veth -- dut0 [netslice + nf-fwd] dut1 -- veth -- sink"
tst_module_loaded && rmmod netslice
tst_topology 2
ip -n "$gen" addr add 10.99.0.1/24 dev gen0
ip -n "$sink" addr add 10.99.0.2/24 dev sink0
echo "netns $gen:";  ip -n "$gen" -br addr show gen0
echo "DUT:";         ip -br link show dut0; ip -br link show dut1
echo "netns $sink:"; ip -n "$sink" -br addr show sink0

step "load the module: insmod netslice.ko ifaces=dut0:dut1 (one slice per CPU)"
tst_load ifaces=dut0:dut1
dmesg | grep 'netslice:' | tail -n 3

step "slice devices and their CPUs (netslice-info)"
ls -l /dev/netslice-*
netslice-info

step "start the forwarder: one thread per slice, read batch -> write batch"
tst_start_fwd
cat "$fwd_out"

step "gen pings sink through the forwarder"
tst_busywait 10000 ip netns exec "$gen" ping -c 1 -W 1 10.99.0.2 >/dev/null
ip netns exec "$gen" ping -c 5 -i 0.2 -W 10 10.99.0.2 | tail -n 2

step "10000 UDP frames of 60..1514 bytes, 64 flows, checked byte by byte at the sink"
tst_traffic 10000

step "per-slice counters"
netslice-info -s | grep -o '^slice [0-9]*: rx_packets=[0-9]*\|read_bytes=[0-9]*\|rx_drop_[a-z_]*=[0-9]*\|tx_packets=[0-9]*\|tx_err_down=[0-9]*' |
	paste -d' ' - - - - - - - | sed 's/^/  /'

step "stop the forwarder"
tst_stop_fwd

# sums: rx_bytes read_bytes write_bytes read_packets over all slices.
sums() {
	echo "$(tst_stat_sum rx_bytes) $(tst_stat_sum read_bytes) $(tst_stat_sum write_bytes)" \
		"$(tst_stat_sum read_packets)"
}

# moved LABEL BEFORE AFTER: one row of the bytes-moved table.
moved() {
	local -a b a
	read -r -a b <<<"$2"
	read -r -a a <<<"$3"
	local rx=$((a[0] - b[0])) rd=$((a[1] - b[1])) wr=$((a[2] - b[2])) pk=$((a[3] - b[3]))
	printf '  %-22s %12s %14s %16s %10s\n' "$1" "$rx" "$rd" "$wr" "$((rd / (pk ? pk : 1)))"
}

step "header slicing: the same 10000 frames, whole and then cut (-m auto)"
before=$(sums)
tst_start_fwd -m off
tst_traffic 10000
tst_stop_fwd >/dev/null
mid=$(sums)
tst_start_fwd -m auto
tst_traffic 10000
tst_stop_fwd >/dev/null
after=$(sums)
printf '  %-22s %12s %14s %16s %10s\n' mode "bytes arrived" "copied to user" \
	"copied from user" "per packet"
moved "off (whole packets)" "$before" "$mid"
moved "auto (headers only)" "$mid" "$after"
netslice-info -s 0 | grep -o 'cut [^)]*)'

step "nf-firewall on live traffic: an ordered rule file, per-rule hit counters"
rules=$(mktemp)
printf '%s\n' "default drop" "accept icmp type 8" "accept icmp type 0" \
	"accept udp dport 9 sport 10000-10015" "drop   udp dport 9 sport 10016-10031" \
	"nonip accept" >"$rules"
sed 's/^/  /' "$rules"
tst_start_bg "running on" nf-firewall --rules "$rules"
fw_pid=$bg_pid fw_out=$bg_out
ip netns exec "$gen" ping -c 3 -i 0.2 -W 10 10.99.0.2 | tail -n 2
echo "gen sends 10000 UDP frames in 64 flows (source ports 10000-10063)"
ip netns exec "$gen" nstraffic send gen0 "$sink_mac" 10000 64
kill -TERM "$fw_pid" && wait "$fw_pid"
cat "$fw_out"

step "unload"
tst_run_cleanups
tst_no_nodes
echo "module unloaded, no /dev/netslice-* left"
