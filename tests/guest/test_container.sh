#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# An NF in an unprivileged container: nf-fwd as uid 65534, a
# member of the slice's group, in a user, network and mount namespace of
# its own (unshare -Urnm: no capability in the initial ones), with only
# its slice's device node bind-mounted into a /dev of its own, as a
# container runtime passes a device. The slice's interfaces live in the
# initial namespace, the traffic's ends in two others. What the privilege
# model at the top of uapi/linux/netslice.h says, checked from inside:
# the node is the capability (the NF forwards, reads its counters and
# info, sets up ring mode on its file; the slice's cut, batching and CPU
# masks are the administrator's: a SET that would change them needs
# CAP_NET_ADMIN, one that confirms them does not; busy polling needs
# CAP_NET_ADMIN; a chained slice sends out of the interfaces
# of the slice before it); no other slice (its node absent, one made with
# mknod refused); and over netlink nothing of the module's: slices,
# counters and rules not shown, every change refused with EPERM, no link
# of another namespace listed. (systemd-nspawn and podman pass a device
# the same way, a bind mount; the guest has neither.)
#
#   gen: gen0 --veth-- dut0 [slice 1: nf-fwd in the container] dut1 --veth-- sink: sink0
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nf_lib.sh"

tst_plan 4
tst_module_loaded && rmmod netslice
py=/usr/bin/python3

# The container's slice, and another it must not reach.
N=1 M=0
# The group the packaged udev rule gives the nodes to; where the guest has
# none, a number stands for it (the kernel compares numbers, not names).
gid=$(getent group netslice | cut -d: -f3)
gid=${gid:-64242}
# The container as a runtime starts one: an unprivileged user (with the
# group as a supplementary one, which a user namespace cannot drop), its
# own namespaces, the kernel's default locked memory (8 MiB: one slice's
# rings take about 2.3 MiB).
ctr_cmd=(prlimit --memlock=$((8 << 20)) setpriv --reuid=65534 --regid=65534 --groups="$gid"
	unshare --user --map-root-user --net --mount)
# First thing in it: a /dev of its own, a tmpfs holding what a runtime
# gives (null, zero, urandom) and the one slice's node, bind-mounted.
# shellcheck disable=SC2016 # expanded in the container
ctr_dev='set -e
d=$(mktemp -d)
mount -n -t tmpfs -o mode=0755 ctrdev "$d"
for f in null zero urandom "netslice-$CTR_SLICE"; do
	touch "$d/$f"
	mount -n --bind "/dev/$f" "$d/$f"
done
mount -n --move "$d" /dev
rmdir "$d"
set +e
'

# ctr SCRIPT: bash SCRIPT in a new container; its output in ctr_out and
# as diagnostics, its status returned.
ctr() {
	local rc=0
	ctr_out=$(env CTR_SLICE=$N CTR_OTHER=$M CTR_OTHER_DEV="$other_dev" \
		"${ctr_cmd[@]}" bash -c "$ctr_dev$1" 2>&1) || rc=$?
	[ -z "$ctr_out" ] || sed 's/^/# ctr: /' <<<"$ctr_out"
	return $rc
}

# ctr_start_nf ARGS...: nf-fwd ARGS in a container until cleanup (nf_pid, nf_out).
ctr_start_nf() {
	tst_start_bg "running on" env CTR_SLICE=$N "${ctr_cmd[@]}" \
		bash -c "$ctr_dev"'exec nf-fwd "$@" --json' nf-fwd "$@" ||
		{ sed 's/^/# nf: /' "$bg_out"; return 1; }
	nf_pid=$bg_pid nf_out=$bg_out
	# Who it runs as: root of its own user namespace, uid 65534 outside.
	tst_diag "nf-fwd pid $nf_pid: uid_map '$(tr -s ' ' <"/proc/$nf_pid/uid_map")'," \
		"$(grep -E '^(Uid|Groups):' "/proc/$nf_pid/status" | tr -s '\t\n' '  ')" \
		"netns $(readlink "/proc/$nf_pid/ns/net") (ours $(readlink /proc/self/ns/net))"
}

# setup [PARAM...]: the topology and the module (slices=2, PARAMs), the
# container's node given to the group 0660 as the packaged udev rule does.
setup() {
	tst_topology 1 || return 1
	tst_load slices=2 "$@" || return 1
	# udev may still be applying the node's add event; its chmod must not
	# land after ours.
	! command -v udevadm >/dev/null || udevadm settle
	chgrp "$gid" "/dev/netslice-$N" && chmod 0660 "/dev/netslice-$N" || return 1
	other_dev=$(cat "/sys/class/netslice/netslice-$M/dev") || return 1
}

devices() {
	setup ifaces=dut0:dut1@$N || return 1
	# shellcheck disable=SC2016 # expanded in the container
	ctr '
		echo "/dev: $(ls /dev | tr "\n" " ")"
		[ "$(cd /dev && echo netslice-*)" = "netslice-$CTR_SLICE" ] || exit 1
		info=$(netslice-info -s "$CTR_SLICE") || exit 1
		head -n 1 <<<"$info"
		out=$(netslice-info "$CTR_OTHER" 2>&1) && exit 1
		echo "$out"
		out=$(nf-fwd -s "$CTR_OTHER" 2>&1)
		rc=$?
		echo "nf-fwd -s $CTR_OTHER: exit $rc: $out"
		[ "$rc" = 69 ] || exit 1
		# Its own node, made with the other slice'"'"'s numbers: refused.
		out=$(mknod "/dev/netslice-$CTR_OTHER" c "${CTR_OTHER_DEV%:*}" "${CTR_OTHER_DEV#*:}" 2>&1) &&
			{ echo "mknod worked"; exit 1; }
		echo "$out"
		[[ $out == *"Operation not permitted" ]] && [ ! -e "/dev/netslice-$CTR_OTHER" ]'
}
tst_check "container: /dev holds its slice's node alone; another slice's is absent (nf-fwd exits 69) and one made with mknod is refused (EPERM)" \
	devices
tst_run_cleanups

# What the node gives, from inside: the administrator set the slice up
# (cut, batching, CPU masks: netslicectl, CAP_NET_ADMIN); the node
# confirms that, changes none of it (EPERM), and runs an NF with it. Then
# nf-fwd forwards between two other namespaces.
forwards() {
	local info
	setup ifaces=dut0:dut1@$N || return 1
	# nf-fwd's default cut: auto, super-packets whole.
	netslicectl slice set "$N" cut auto gso on kernel-cpus 0 || return 1
	# shellcheck disable=SC2016 # expanded in the container
	ctr '
		'"$py"' - "/dev/netslice-$CTR_SLICE" <<-"EOF" || exit 1
			import ctypes, fcntl, os, struct, sys
			def ioc(d, nr, size):  # _IOC(): dir 1 write, 2 read; type 0xb6
			    return d << 30 | size << 16 | 0xb6 << 8 | nr
			RW_GET, RW_SET, CPU_GET, CPU_SET = ioc(2, 3, 8), ioc(1, 4, 8), ioc(3, 1, 24), ioc(1, 2, 24)
			fd = os.open(sys.argv[1], os.O_RDWR)
			def refused(f):
			    try:
			        f()
			    except PermissionError:
			        return True
			    return False
			flags, batch = struct.unpack("II", fcntl.ioctl(fd, RW_GET, bytes(8)))
			other_batch = refused(lambda: fcntl.ioctl(fd, RW_SET, struct.pack("II", flags, batch // 2)))
			fcntl.ioctl(fd, RW_SET, struct.pack("II", flags, batch))  # the same: confirmed
			kern, user = ctypes.create_string_buffer(128), ctypes.create_string_buffer(128)
			def cpus(cmd):
			    fcntl.ioctl(fd, cmd, bytearray(struct.pack("IIQQ", 128, 0, ctypes.addressof(kern),
			                                                ctypes.addressof(user))))
			cpus(CPU_GET)
			was = kern.raw[0]
			cpus(CPU_SET)  # the same masks: confirmed
			ctypes.memset(kern, 0, 128)
			kern[0] = 2  # CPU 1 alone: a change
			other_cpus = refused(lambda: cpus(CPU_SET))
			ctypes.memset(kern, 0xff, 128)
			cpus(CPU_GET)
			print("batch %u: another refused %s; kernel CPUs byte 0x%02x (was 0x%02x): others refused %s"
			      % (batch, other_batch, kern.raw[0], was, other_cpus))
			sys.exit(not other_batch or not other_cpus or kern.raw[0] != 1)
		EOF
		out=$(nf-fwd -s "$CTR_SLICE" -m off --busy-poll 5 2>&1)
		rc=$?
		echo "nf-fwd --busy-poll 5: exit $rc: $out"
		[ "$rc" = 2 ] && [[ $out == *"busy polling needs CAP_NET_ADMIN"* ]] || exit 1
		# A cut other than the one set up: the NF says why it cannot.
		out=$(nf-fwd -s "$CTR_SLICE" -m fixed:64 2>&1)
		rc=$?
		echo "nf-fwd -m fixed:64: exit $rc: $out"
		[ "$rc" != 0 ] && [[ $out == *"not permitted"* || $out == *"CAP_NET_ADMIN"* ]]' || return 1
	ctr_start_nf -s "$N" || return 1
	tst_traffic 2000 || return 1
	# Its counters and info, through the node alone, from another container.
	# shellcheck disable=SC2016 # expanded in the container
	ctr 'netslice-info -s -j "$CTR_SLICE"' || return 1
	info=$ctr_out
	nf_stop || return 1
	tst_diag "nf-fwd: $(js '(j["total"], {k: j["slices"][0]["module"][k] for k in ("rx_packets", "tx_packets", "read_sliced", "tx_spliced")})')"
	$py -c '
import json, sys
s = json.loads(sys.argv[1])[0]
c = s["counters"]
ok = c["rx_packets"] == c["tx_packets"] == 2000 and s["cut"].startswith("auto") and s["kernel_cpus"] == "0"
sys.exit(not ok)' "$info" || return 1
	[ "$(js 'j["total"]["rx_packets"] == j["total"]["tx_packets"] == j["slices"][0]["module"]["tx_packets"] == 2000')" = True ]
}
tst_check "container: its node confirms its slice's cut, batching and CPU masks and changes none (EPERM), sets up ring mode, busy polling refused (CAP_NET_ADMIN); nf-fwd forwards 2,000 frames between two other namespaces once and intact; its counters are visible to it" \
	forwards
tst_run_cleanups

# state: everything the control plane shows, to compare before and after.
state() {
	netslicectl -j link show && netslicectl -j slice show && netslicectl -j rule show &&
		netslicectl -j stats
}

netlink() {
	local before
	setup ifaces=dut0:dut1@$N || return 1
	netslicectl rule add proto udp dport 9 slice "$N" || return 1
	before=$(state)
	# shellcheck disable=SC2016 # expanded in the container
	ctr '
		fail=0
		# refused WANT CMD...: exit 2 and the message WANT ends.
		refused() {
			local want=$1 out rc
			shift
			out=$("$@" 2>&1)
			rc=$?
			echo "$* -> exit $rc: $out"
			[ "$rc" = 2 ] && [[ $out == *"$want" ]] || fail=1
		}
		shown="slices and rules belong to the initial network namespace."
		refused "$shown" netslicectl slice show
		refused "$shown" netslicectl rule show
		refused "$shown" netslicectl stats
		# Its own interface, which root of its namespace may make.
		ip link add own0 type veth peer name own1 || fail=1
		for cmd in "link attach dev own0" "link attach dev dut0" "link detach dev dut0" \
			"rule add proto udp dport 10 slice 1" "rule flush" "slice set 1 batch 8" \
			"stats reset"; do
			# shellcheck disable=SC2086 # words
			refused "Operation not permitted." netslicectl $cmd
		done
		# chain add reads the chains first: refused there.
		refused "$shown" netslicectl chain add 0 1
		links=$(netslicectl -j link show)
		echo "link show: $links"
		[ "$links" = "[]" ] || fail=1
		exit $fail' || return 1
	[ "$(state)" = "$before" ] || { tst_diag "the module's state changed"; return 1; }
}
tst_check "container: netlink shows it no slice, counter or rule (the kernel's message) and refuses every change, attach, rules, slice set and chain add among them (EPERM); link show lists nothing of the initial namespace's" \
	netlink
tst_run_cleanups

# The container's NF second in a chain: the pair feeds slice 0 (nf-fwd on
# the host), which hands everything to slice 1; the container's nf-fwd
# sends it out of slice 0's interfaces, in another namespace than its own.
chained() {
	local rx1 tx1 txc0 rxc1
	setup ifaces=dut0:dut1@$M || return 1
	netslicectl chain add "$M" "->" "$N" || return 1
	netslicectl slice set "$N" cut auto gso on || return 1
	ctr_start_nf -s "$N" || return 1
	tst_start_fwd -s "$M" || return 1
	tst_traffic 2000 || return 1
	read -r txc0 <<<"$(tst_stats "$M" tx_chained)"
	read -r rxc1 rx1 tx1 <<<"$(tst_stats "$N" rx_chained rx_packets tx_packets)"
	tst_diag "slice $M handed on $txc0; slice $N took in $rxc1 (of $rx1) and sent $tx1"
	tst_stop_fwd >/dev/null && nf_stop || return 1
	[ "$txc0" = 2000 ] && [ "$rxc1" = 2000 ] && [ "$rx1" = 2000 ] && [ "$tx1" = 2000 ]
}
tst_check "container: its nf-fwd second in a chain sends out of the first slice's interfaces: 2,000 frames once and intact, each handed on once" \
	chained

tst_done
