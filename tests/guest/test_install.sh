#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A real `make install` in the guest (whose /usr and /etc are throwaway
# overlays): depmod finds the module, modprobe loads it with the
# modprobe.d options, udev gives the nodes to group netslice 0660, a
# member of the group can open a slice and others cannot, the installed
# netslicectl works; then `make uninstall` takes it all away again.
. "$(dirname "$0")/lib.sh"

ns_plan 4
ns_module_loaded && rmmod netslice
kver=$(uname -r)
mk() { make -s -C "$NS_TOP" KVER="$kver" KO="$NS_KO" PREFIX=/usr/local "$@"; }

installed() {
	mk install >/dev/null || return 1
	ns_defer mk uninstall
	echo "options netslice slices=3" >/etc/modprobe.d/netslice-test.conf
	ns_defer rm -f /etc/modprobe.d/netslice-test.conf
	[ "$(modinfo -n netslice)" = "/lib/modules/$kver/updates/netslice.ko" ] || return 1
	modprobe netslice || return 1
	ns_defer ns_unload
	udevadm settle
	ns_diag "$(ls -l /dev/netslice-*)"
	[ "$(ls /dev/netslice-* | wc -l)" -eq 3 ] &&
		[ "$(stat -c '%G %a' /dev/netslice-0)" = "netslice 660" ]
}
ns_check "make install; modprobe loads it with modprobe.d options; udev: group netslice 0660" installed

group_access() {
	local gid
	gid=$(getent group netslice | cut -d: -f3)
	[ -n "$gid" ] || return 1
	setpriv --reuid=65534 --regid=65534 --groups="$gid" netslice-info -s 0 >/dev/null || return 1
	! setpriv --reuid=65534 --regid=65534 --clear-groups netslice-info -s 0 >/dev/null 2>&1
}
ns_check "a member of group netslice opens a slice; another user cannot" group_access

installed_tools() {
	local ver
	ver=$(sed -n 's/^VERSION := //p' "$NS_TOP/Makefile")
	[ "$(/usr/local/bin/netslicectl --version)" = "netslicectl $ver" ] &&
		[ "$(/usr/local/bin/netslicectl -j slice show | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -eq 3 ] &&
		[ -e /usr/local/share/man/man8/netslicectl.8 ] &&
		[ -e /usr/local/share/man/man8/nf-fwd.8 ] &&
		pkg-config --exists --print-errors netslice &&
		ldconfig -p | grep -q 'libnetslice.so.0 .*/usr/local/lib/libnetslice.so.0$'
}
PKG_CONFIG_PATH=/usr/local/lib/pkgconfig ns_check "the installed netslicectl, man pages, pkg-config file work; ldconfig knows the library" installed_tools

uninstalled() {
	ns_unload || return 1
	mk uninstall >/dev/null || return 1
	! modinfo netslice >/dev/null 2>&1 && [ ! -e /usr/local/bin/netslicectl ] &&
		[ ! -e /etc/udev/rules.d/70-netslice.rules ] &&
		! ldconfig -p | grep -q libnetslice
}
ns_check "make uninstall: modprobe no longer finds it, the tools are gone" uninstalled

ns_done
