#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The permission model (docs/reliability.md): device nodes are root's
# unless the udev rule says otherwise (test_install checks the rule); every
# change over netlink needs CAP_NET_ADMIN in the initial user namespace;
# refusals are clear and change nothing; no reply carries a kernel address.
# (Elsewhere: handles bound to the file that read them in cut_check,
# another namespace's interfaces neither seen nor touched in test_ctl.)
. "$(dirname "$0")/lib.sh"

tst_plan 4
tst_module_loaded && rmmod netslice
py=/usr/bin/python3
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

state() {
	netslicectl -j link show && netslicectl -j slice show && netslicectl -j rule show &&
		netslicectl -j stats
}

setup() {
	tst_topology 1 || return 1
	tst_load slices=2 ifaces=dut0:dut1 || return 1
	netslicectl rule add proto udp dport 9 slice 1 || return 1
	ip link add nsperm0 type veth peer name nsperm1 || return 1
	tst_defer ip link del nsperm0
}

nodes_root_only() {
	local node mode
	setup || return 1
	if compgen -G '/etc/udev/rules.d/*netslice*' >/dev/null; then
		tst_diag "a netslice udev rule is installed; this case needs none"
		return 1
	fi
	for node in /dev/netslice-*; do
		mode=$(stat -c '%a %U %G' "$node")
		[ "$mode" = "600 root root" ] || { tst_diag "$node: $mode"; return 1; }
	done
	# shellcheck disable=SC2016
	if "${nobody[@]}" bash -c 'exec 3<>/dev/netslice-0' 2>/dev/null; then
		tst_diag "an unprivileged user opened /dev/netslice-0"
		return 1
	fi
}
tst_check "device nodes are root's, mode 0600: an unprivileged user cannot open one" nodes_root_only
tst_run_cleanups

# Every change netslicectl can ask for, run with "$@" in front: each must
# fail with exit 2 and EPERM's message, and the module's state must be as
# before them all.
all_changes_refused() {
	local n=0 total=0 cmd out rc before
	local changes=(
		"link attach dev nsperm0"
		"link detach dev dut0"
		"slice set 0 batch 8"
		"slice set 1 cut auto"
		"stats reset"
		"rule add proto udp dport 10 slice 0"
		"rule replace proto udp dport 9 slice 0"
		"rule del id 1"
		"rule flush"
	)
	before=$(state)
	for cmd in "${changes[@]}"; do
		total=$((total + 1))
		# shellcheck disable=SC2086
		out=$("$@" netslicectl $cmd 2>&1)
		rc=$?
		if [ "$rc" -eq 2 ] && [[ $out == *"Operation not permitted." ]]; then
			n=$((n + 1))
		else
			tst_diag "$cmd -> exit $rc: $out"
		fi
	done
	tst_diag "$n of $total changes refused with EPERM"
	[ "$n" -eq "$total" ] || return 1
	[ "$(state)" = "$before" ] || { tst_diag "the state changed"; return 1; }
}

unprivileged() {
	setup || return 1
	# Reads stay open to everyone (they hold no payload, handle or address).
	"${nobody[@]}" netslicectl slice show >/dev/null || return 1
	all_changes_refused "${nobody[@]}"
}
tst_check "an unprivileged user: reads work; every change is refused (EPERM), nothing changes" unprivileged
tst_run_cleanups

# Root of a user namespace of its own has CAP_NET_ADMIN over its own
# network namespace only: not enough to feed the host's slices.
userns_root() {
	local uns=(unshare --user --map-root-user --net)
	setup || return 1
	# shellcheck disable=SC2016
	"${nobody[@]}" "${uns[@]}" bash -c '
		ip link add own0 type veth peer name own1 || exit 3
		out=$(netslicectl link attach dev own0 2>&1)
		echo "# own interface: $out"
		[ "$out" = "Error: dev own0: Operation not permitted." ] || exit 1
		for cmd in "slice set 0 batch 8" "rule flush" "stats reset"; do
			out=$(netslicectl $cmd 2>&1)
			echo "# $cmd: $out"
			[[ $out == *"Operation not permitted." ]] || exit 1
		done
		[ "$(netslicectl -j link show)" = "[]" ]' || return 1
	all_changes_refused "${nobody[@]}" "${uns[@]}"
}
tst_check "root of an unprivileged user namespace: even its own interface is refused" userns_root
tst_run_cleanups

no_kernel_addresses() {
	setup || return 1
	netslicectl slice set 1 cut auto || return 1
	tst_start_fwd || return 1
	tst_traffic 100 || return 1
	nsfuzz -x | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || return 1
	# netslicectl's JSON too: no number in the kernel's upper half.
	state | $py -c '
import json, sys
text, dec, big = sys.stdin.read(), json.JSONDecoder(), []
def walk(v):
    if isinstance(v, dict): [walk(x) for x in v.values()]
    elif isinstance(v, list): [walk(x) for x in v]
    elif isinstance(v, int) and v >= 0xffff800000000000: big.append(v)
pos = 0
while text[pos:].strip():
    pos += len(text[pos:]) - len(text[pos:].lstrip())
    doc, pos = dec.raw_decode(text, pos)
    walk(doc)
print("# numbers in the kernel half:", big)
sys.exit(1 if big else 0)' && tst_stop_fwd >/dev/null
}
tst_check "no ioctl or netlink reply holds a kernel address" no_kernel_addresses

tst_done
