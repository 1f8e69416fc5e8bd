#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages (make deb, which make check runs first) installed
# as a user would: dpkg -i; DKMS builds the module for the running kernel
# from netslice-dkms; group netslice exists (sysusers.d) and udev gives it
# the nodes; the packaged nf-fwd, linked to the packaged libnetslice.so.1,
# forwards every frame; dpkg --purge removes the module and the tools.
# The guest's /usr, /etc and /var are throwaway overlays. DKMS compiles
# for about 5 minutes under emulation: make check runs this on the kernel
# installed from a Debian package (6.1), where a user would.
. "$(dirname "$0")/lib.sh"

tst_plan 5
tst_module_loaded && rmmod netslice
kver=$(uname -r)
version=$(sed -n 's/^VERSION := //p' "$TST_TOP/Makefile")
debs=()
for p in netslice-dkms libnetslice1 libnetslice-dev netslice-tools; do
	debs+=("$(ls "$TST_TOP"/build/deb/${p}_"$version"_*.deb 2>/dev/null)")
done
why=
if [[ " ${debs[*]} " == *"  "* ]]; then
	why="no packages of $version in build/deb: run make deb first"
elif ! [ -w /var/lib/dpkg/status ] || ! [ -w /usr/src ]; then
	why="/var/lib/dpkg or /usr is read-only in this guest"
elif ! dpkg -S "/boot/vmlinuz-$kver" >/dev/null 2>&1; then
	why="kernel $kver not installed from a Debian package (the test installs where a user would)"
fi
if [ -n "$why" ]; then
	for name in "dpkg -i, DKMS" "group, udev" "packaged tools" "packaged nf-fwd forwards" "dpkg --purge"; do
		tst_skip "$name" "$why"
	done
	tst_done
fi

purge() {
	tst_unload
	dpkg --purge netslice-tools libnetslice-dev libnetslice1 netslice-dkms >/dev/null 2>&1
}

installed() {
	local log rc=0 t0
	# The traffic case's veth pairs, while the kernel's modules are there.
	tst_topology 1 || return 1
	tst_lean_modules || return 1
	# man-db's trigger re-indexes every page: minutes under emulation.
	if [ -e /var/lib/man-db/auto-update ]; then
		rm /var/lib/man-db/auto-update && tst_defer touch /var/lib/man-db/auto-update
	fi
	# DKMS builds for the running kernel and for the newest other one in
	# /boot: the machine under test has one kernel, so one build.
	mount -t tmpfs netslice-test-boot /boot || return 1
	tst_defer umount -l /boot
	log=$(mktemp)
	tst_defer purge
	t0=$SECONDS
	dpkg -i "${debs[@]}" >"$log" 2>&1 || rc=$?
	grep -E 'Setting up|Building|dkms|Error|error' "$log" | sed 's/^/# | /'
	tst_diag "dpkg -i took $((SECONDS - t0)) s"
	tst_diag "dkms: $(dkms status netslice/"$version" -k "$kver" 2>&1)"
	[ "$rc" -eq 0 ] && [ -f "/lib/modules/$kver/updates/dkms/netslice.ko" ] &&
		[[ $(dkms status netslice/"$version" -k "$kver") == *installed* ]] &&
		[ "$(modinfo -n netslice)" = "/lib/modules/$kver/updates/dkms/netslice.ko" ]
}
tst_check "dpkg -i of the four packages: DKMS builds and installs netslice.ko for $kver" installed

nodes() {
	getent group netslice >/dev/null || return 1
	modprobe netslice ifaces=dut0:dut1 slices=2 || return 1
	tst_defer tst_unload
	udevadm settle
	tst_diag "$(ls -l /dev/netslice-*)"
	[ "$(stat -c '%G %a' /dev/netslice-0)" = "netslice 660" ]
}
tst_check "group netslice made by sysusers.d; modprobe loads it; udev gives the nodes to the group, 0660" nodes

linked() {
	local lib
	lib=$(ldd /usr/sbin/nf-fwd | sed -n 's/.*libnetslice.so.1 => \([^ ]*\).*/\1/p')
	tst_diag "nf-fwd loads $lib; $(/usr/sbin/nf-fwd --version)"
	[[ $lib =~ ^(/usr)?/lib/[a-z0-9_]+-linux-gnu/libnetslice\.so\.1$ ]] &&
		[ "$(/usr/sbin/nf-fwd --version)" = "nf-fwd $version" ] &&
		[ "$(/usr/sbin/netslicectl -j slice show |
			/usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -eq 2 ]
}
tst_check "the packaged nf-fwd and netslicectl run on the packaged libnetslice.so.1" linked

forwards() {
	TST_FWD_BIN=/usr/sbin/nf-fwd tst_start_fwd || return 1
	tst_traffic 2000 || return 1
	tst_stop_fwd
}
tst_check "the packaged nf-fwd forwards 2000 frames, each once and intact" forwards

purged() {
	tst_unload || return 1
	dpkg --purge netslice-tools libnetslice-dev libnetslice1 netslice-dkms >/dev/null || return 1
	tst_diag "dkms: $(dkms status netslice 2>&1)"
	[ -z "$(dkms status netslice 2>/dev/null)" ] && [ ! -e "/lib/modules/$kver/updates/dkms/netslice.ko" ] &&
		[ ! -e /usr/sbin/nf-fwd ] && [ ! -e "/usr/src/netslice-$version" ] &&
		! ldconfig -p | grep -q libnetslice
}
tst_check "dpkg --purge: the module, its source and the tools are gone" purged
tst_run_cleanups
tst_done
