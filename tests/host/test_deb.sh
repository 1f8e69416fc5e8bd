#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages as a distribution checks them (make deb: debian/,
# dpkg-buildpackage -us -uc -b, lintian): built, no lintian error, each
# package holding what it should and nothing of another's, the module's
# source with a dkms.conf naming this version, the tools linked to
# libnetslice1 without a RUNPATH, the version one. The packages stay in
# build/deb for the guest's test_deb.sh. DEB_BUILD_OPTIONS is passed on
# (nocheck skips the package's own make check-host).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/ktap.sh"
out=$top/build/deb
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")

ktap_plan 6
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$top/scripts/deb.sh" "$out" >"$log" 2>&1
rc=$?
sed 's/^/# /' "$log"
debs=()
for p in netslice-dkms libnetslice1 libnetslice-dev netslice-tools; do
	debs+=("$(ls "$out/${p}_${version}"_*.deb 2>/dev/null)")
done
[ "$rc" -eq 0 ] && [[ " ${debs[*]} " != *"  "* ]]
result "dpkg-buildpackage builds netslice-dkms, libnetslice1, libnetslice-dev, netslice-tools $version" $?
[ "$rc" -eq 0 ] && ! grep -q '^E:' "$out/lintian.txt" 2>/dev/null
ok=$?
result "lintian reports no error ($(grep -c '^W:' "$out/lintian.txt" 2>/dev/null) warnings)" $ok
if [ "$rc" -ne 0 ]; then
	for i in 3 4 5 6; do result "package check $i (no packages)" 1; done
	ktap_done
	exit 1
fi

files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|'; }
dkms=$(files "${debs[0]}") lib=$(files "${debs[1]}") dev=$(files "${debs[2]}") tools=$(files "${debs[3]}")
ok=0
grep -vE '^/usr/share/doc/' <<<"$lib" | grep -qvE '^/usr/lib/[^/]+/libnetslice\.so\.1(\.[0-9]+\.[0-9]+)?$' &&
	{ echo "# libnetslice1 holds more than the library"; ok=1; }
for f in /usr/include/netslice/netslice.h /usr/include/netslice/linux/netslice.h \
	/usr/share/man/man3/libnetslice.3.gz; do
	grep -qx "$f" <<<"$dev" || { echo "# libnetslice-dev lacks $f"; ok=1; }
done
grep -qE '^/usr/lib/[^/]+/pkgconfig/netslice.pc$' <<<"$dev" || { echo "# no netslice.pc"; ok=1; }
for f in /usr/sbin/netslicectl /usr/sbin/nf-fwd /usr/sbin/nf-ipsec /usr/bin/netslice-info \
	/usr/lib/systemd/system/netslice-nf@.service /usr/share/man/man8/nf-fwd.8.gz \
	/usr/share/bash-completion/completions/netslicectl /etc/netslice/nf-fwd.conf; do
	grep -qx "$f" <<<"$tools" || { echo "# netslice-tools lacks $f"; ok=1; }
done
for f in /lib/udev/rules.d/70-netslice.rules /usr/lib/sysusers.d/netslice.conf \
	"/usr/src/netslice-$version/dkms.conf" "/usr/src/netslice-$version/kmod/main.c"; do
	grep -qx "$f" <<<"$dkms" || { echo "# netslice-dkms lacks $f"; ok=1; }
done
grep -q '/usr/src/' <<<"$lib$dev$tools" && { echo "# DKMS source outside netslice-dkms"; ok=1; }
result "each package holds its files: library, development files, tools and units, module source" $ok

stage=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$stage"' EXIT
dpkg-deb -x "${debs[0]}" "$stage"
grep -qx "PACKAGE_VERSION=\"$version\"" "$stage/usr/src/netslice-$version/dkms.conf" &&
	grep -q '^BUILD_EXCLUSIVE_KERNEL=' "$stage/usr/src/netslice-$version/dkms.conf" &&
	[[ $(dpkg-deb -f "${debs[0]}" Depends) == *dkms* ]]
result "netslice-dkms: dkms.conf names $version and the oldest kernel; it depends on dkms" $?

dpkg-deb -x "${debs[3]}" "$stage"
ok=0
for p in "$stage"/usr/sbin/* "$stage"/usr/bin/*; do
	if ! [[ $(readelf -d "$p") == *'[libnetslice.so.1]'* ]] || [[ $(readelf -d "$p") =~ \((RPATH|RUNPATH)\) ]]; then
		echo "# $p: not linked to libnetslice.so.1, or a RUNPATH"
		ok=1
	fi
done
[[ $(dpkg-deb -f "${debs[3]}" Depends) == *"libnetslice1 (>= $version)"* ]] || ok=1
result "netslice-tools: every program needs libnetslice.so.1, none has a RUNPATH; it depends on libnetslice1 (>= $version)" $ok

[ "$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)" = "$version" ]
result "debian/changelog's version is the Makefile's ($version)" $?
ktap_done
