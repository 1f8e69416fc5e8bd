#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the Debian packages (debian/), built by dpkg-buildpackage -us
# -uc -b in a copy of the tree (the files git tracks, as they are in the
# working tree), so the checkout's build/ is left alone; then lintian,
# which must report no error. Packages, .changes and lintian's report in
# OUT (default build/deb). DEB_BUILD_OPTIONS is passed on (nocheck: no
# make check-host, when the caller has just run it).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$top/build/deb}
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")
src=$out/netslice-$version

for cmd in dpkg-buildpackage dh dh_dkms lintian fakeroot; do
	command -v "$cmd" >/dev/null ||
		{ echo "deb: $cmd missing: apt install debhelper dh-dkms lintian fakeroot (scripts/deps.sh)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	# Tracked files as they are in the working tree, deleted ones skipped.
	git -C "$top" ls-files -z --cached |
		tar -C "$top" --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -C "$src" -xf -
else
	tar -C "$top" --exclude=./build -cf - . | tar -C "$src" -xf -
fi
echo "deb: dpkg-buildpackage -us -uc -b in $src"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; echo "deb: dpkg-buildpackage failed ($out/build.log)" >&2; exit 1; }
rm -rf "$src"
ls "$out"/*.deb
# Errors fail; warnings and the rest are kept in the report.
lintian --fail-on error --display-info "$out"/*.changes >"$out/lintian.txt" 2>&1 || {
	cat "$out/lintian.txt" >&2
	echo "deb: lintian reports errors" >&2
	exit 1
}
echo "deb: lintian: $(grep -c '^E:' "$out/lintian.txt" || true) errors, $(grep -c '^W:' "$out/lintian.txt" || true) warnings ($out/lintian.txt)"
