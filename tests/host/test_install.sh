#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make install` and `make uninstall` into a staging root (DESTDIR), and
# the DKMS source tree `make dkms-install` lays out, built the way DKMS
# builds it. The real install, with depmod, udev and modprobe, runs in the
# guest (tests/guest/test_install.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/vm/kernels.sh"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
. "$top/tests/host/ktap.sh"

kver=$(tst_kernel_version 6.1)
ko=$("$top/scripts/kbuild.sh" "$kver") || exit 1
want=(
	"lib/modules/$kver/updates/netslice.ko"
	etc/udev/rules.d/70-netslice.rules
	etc/modprobe.d/netslice.conf
	usr/local/sbin/netslicectl
	usr/local/sbin/nf-fwd
	"usr/local/lib/libnetslice.so.$(sed -n 's/^SOVERSION := //p' "$top/Makefile")"
	"usr/local/lib/libnetslice.so.$(sed -n 's/^SOVERSION := //p' "$top/Makefile").$(sed -n 's/^VERSION := [0-9]*\.//p' "$top/Makefile")"
	etc/sysusers.d/netslice.conf
	usr/local/share/man/man8/nf-fwd.8
	usr/local/share/man/man3/libnetslice.3
	usr/local/lib/pkgconfig/netslice.pc
	usr/local/include/netslice/linux/netslice_netlink.h
	usr/local/include/netslice/linux/netslice_cut.h
	usr/local/share/netslice/netslice.yaml
	usr/local/share/man/man8/netslicectl.8
	usr/local/share/bash-completion/completions/netslicectl
	usr/local/bin/netslice-info
	usr/local/share/man/man1/netslice-info.1
	usr/local/lib/systemd/system/netslice-nf@.service
	usr/local/etc/netslice/nf-firewall.conf
)

ktap_plan 5
make -s -C "$top" install DESTDIR="$stage" KVER="$kver" KO="$ko" >/dev/null
missing=0
for f in "${want[@]}"; do
	[ -e "$stage/$f" ] || { echo "# missing: $f"; missing=1; }
done
result "make install DESTDIR=... puts module, udev rule, modprobe.d, tools, man pages, completion, systemd unit, NF configuration in place" $missing

cmp -s "$ko" "$stage/lib/modules/$kver/updates/netslice.ko" &&
	grep -q 'GROUP="netslice", MODE="0660"' "$stage/etc/udev/rules.d/70-netslice.rules"
result "the module installed is the one built; the udev rule gives group netslice 0660" $?

out=$(LD_LIBRARY_PATH=$stage/usr/local/lib "$stage/usr/local/sbin/netslicectl" --version) &&
	[ "$out" = "netslicectl $(sed -n 's/^VERSION := //p' "$top/Makefile")" ] &&
	bash -n "$stage/usr/local/share/bash-completion/completions/netslicectl" &&
	bash -c ". /usr/share/bash-completion/bash_completion 2>/dev/null;
		. '$stage/usr/local/share/bash-completion/completions/netslicectl';
		COMP_WORDS=(netslicectl rule r); COMP_CWORD=2; _init_completion() { cur=r; prev=rule;
		words=(\"\${COMP_WORDS[@]}\"); cword=2; }; _netslicectl; [ \"\${COMPREPLY[*]}\" = replace ]"
result "the installed netslicectl runs; its completion completes \"rule r\" to replace" $?

make -s -C "$top" uninstall DESTDIR="$stage" KVER="$kver" >/dev/null
left=$(find "$stage" -type f | sed "s|$stage/||")
[ -z "$left" ]
result "make uninstall removes every file install made" $?
[ -n "$left" ] && echo "# left behind: $left"

make -s -C "$top" dkms-install DESTDIR="$stage" >/dev/null
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")
src=$stage/usr/src/netslice-$version
# What DKMS does: set its variables, source dkms.conf, run MAKE[0] in a copy.
(
	set +u
	kernel_source_dir=/lib/modules/$kver/build
	dkms_tree=$stage/dkms
	# shellcheck disable=SC1091
	. "$src/dkms.conf"
	[ "$PACKAGE_NAME" = netslice ] && [ "$PACKAGE_VERSION" = "$version" ] || exit 1
	build=$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build
	mkdir -p "$build" && cp -r "$src/." "$build/" && cd "$build" &&
		eval "${MAKE[0]}" >/dev/null 2>&1 &&
		modinfo -F name "$build/${BUILT_MODULE_LOCATION[0]}${BUILT_MODULE_NAME[0]}.ko" |
		grep -qx netslice
)
result "the DKMS tree (dkms-install) builds netslice.ko with dkms.conf's MAKE against $kver" $?

ktap_done
