#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A real `make install` in the guest (whose /usr and /etc are throwaway
# overlays): depmod finds the module, modprobe loads it with the
# modprobe.d options, udev gives the nodes to group netslice 0660, a
# member of the group can open a slice and others cannot, the installed
# netslicectl works, an NF runs from its systemd unit's command line with
# only the unit's limits and privileges and tells systemd it is ready (its
# slices open), reloaded and stopping; then `make uninstall` takes it all
# away. tests/guest/test_unit.sh runs the unit in ring mode at 32 slices.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/unit_lib.sh"

tst_plan 6
tst_module_loaded && rmmod netslice
kver=$(uname -r)
mk() { make -s -C "$TST_TOP" KVER="$kver" KO="$TST_KO" PREFIX=/usr/local "$@"; }

installed() {
	tst_lean_modules || return 1
	mk install >/dev/null || return 1
	tst_defer mk uninstall
	echo "options netslice slices=3" >/etc/modprobe.d/netslice-test.conf
	tst_defer rm -f /etc/modprobe.d/netslice-test.conf
	[ "$(modinfo -n netslice)" = "/lib/modules/$kver/updates/netslice.ko" ] || return 1
	modprobe netslice || return 1
	tst_defer tst_unload
	udevadm settle
	tst_diag "$(ls -l /dev/netslice-*)"
	[ "$(ls /dev/netslice-* | wc -l)" -eq 3 ] &&
		[ "$(stat -c '%G %a' /dev/netslice-0)" = "netslice 660" ]
}
tst_check "make install; modprobe loads it with modprobe.d options; udev: group netslice 0660" installed

group_access() {
	local gid
	gid=$(getent group netslice | cut -d: -f3)
	[ -n "$gid" ] || return 1
	setpriv --reuid=65534 --regid=65534 --groups="$gid" netslice-info -s 0 >/dev/null || return 1
	! setpriv --reuid=65534 --regid=65534 --clear-groups netslice-info -s 0 >/dev/null 2>&1
}
tst_check "a member of group netslice opens a slice; another user cannot" group_access

installed_tools() {
	local ver sover
	ver=$(sed -n 's/^VERSION := //p' "$TST_TOP/Makefile")
	sover=$(sed -n 's/^SOVERSION := //p' "$TST_TOP/Makefile")
	[ "$(/usr/local/sbin/netslicectl --version)" = "netslicectl $ver" ] &&
		[ "$(/usr/local/sbin/netslicectl -j slice show | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -eq 3 ] &&
		[ -e /usr/local/share/man/man8/netslicectl.8 ] &&
		[ -e /usr/local/share/man/man8/nf-fwd.8 ] &&
		pkg-config --exists --print-errors netslice &&
		ldconfig -p | grep -q "libnetslice.so.$sover .*/usr/local/lib/libnetslice.so.$sover\$"
}
PKG_CONFIG_PATH=/usr/local/lib/pkgconfig tst_check "the installed netslicectl, man pages, pkg-config file work; ldconfig knows the library" installed_tools

# What systemd would run for netslice-nf@firewall: ExecStart as systemd
# expands it (tests/unit_exec.sh), under the unit's own limits and
# bounding set (unit_lib.sh), its Type=notify protocol spoken to a socket
# of ours.
unit_command() {
	local unit=/usr/local/lib/systemd/system/netslice-nf@.service out
	[ -f "$unit" ] && unit_limits "$unit" || return 1
	out=$("${unit_limits[@]}" python3 "$TST_TOP/tests/guest/notify_check.py" --reload \
		"$UNIT_EXEC" "$unit" firewall 2>&1)
	grep -E '^(ready|reloading|stopping|exit|no |status |nf-firewall: )' <<<"$out" | sed 's/^/# | /'
	grep -qx "ready running on 3 slices nodes=3" <<<"$out" && grep -qx reloading <<<"$out" &&
		grep -qx ready-again <<<"$out" && grep -qx stopping <<<"$out" &&
		grep -qx "exit 0" <<<"$out" &&
		grep -q "rules from /usr/local/etc/netslice/firewall.rules (1 reloads)" <<<"$out"
}
tst_check "netslice-nf@firewall's command line, under the unit's limits: READY=1 with its 3 slices open, SIGHUP reloads (RELOADING=1, READY=1), SIGTERM: STOPPING=1, exit 0" \
	unit_command

uninstalled() {
	tst_unload || return 1
	mk uninstall >/dev/null || return 1
	! modinfo netslice >/dev/null 2>&1 && [ ! -e /usr/local/sbin/netslicectl ] &&
		[ ! -e /usr/local/lib/systemd/system/netslice-nf@.service ] &&
		[ ! -e /etc/udev/rules.d/70-netslice.rules ] &&
		! ldconfig -p | grep -q libnetslice
}
tst_check "make uninstall: modprobe no longer finds it, the tools are gone" uninstalled
tst_run_cleanups

# The tests after this one load modules from the real tree again.
# (/lib/modules/VERSION may itself be a mount: a fetched kernel's modules.)
real_modules_back() { ! grep -q netslice-test-modules /proc/mounts && modinfo tun >/dev/null; }
tst_check "the kernel's own modules are found again (the lean tree is gone)" real_modules_back

tst_done
