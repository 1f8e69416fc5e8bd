#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the netslice KUnit suites (kmod/tests/) with kunit.py on User-Mode
# Linux, built from Debian's source of a kernel series:
#
#   scripts/kunit.sh [SERIES]     6.1 (default) or 6.12: linux-source-SERIES
#                               from the machine's suite; 7.2 or newest: the
#                               source scripts/fetch-kernel.sh fetches
#
# The extracted tree and the build are cached under ~/.cache/netslice/kunit,
# keyed by the source's version: the first run builds UML (minutes), later
# runs only what changed. Ends with a "# kunit SERIES: N passed, N failed"
# line.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
series=${1:-6.1}
cache=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}/kunit

case $series in
6.1 | 6.12)
	tarball=/usr/src/linux-source-$series.tar.xz
	[ -f "$tarball" ] || { echo "kunit: $tarball missing (run scripts/deps.sh)" >&2; exit 1; }
	ver=$(dpkg-query -W -f='${Version}' "linux-source-$series")
	;;
*)
	ver=$("$top/scripts/fetch-kernel.sh" "$series") || exit 1
	# shellcheck source=tests/vm/kernels.sh
	. "$top/tests/vm/kernels.sh"
	tarball=$(ls -1 "$tst_fetched_kernels/$ver"/linux-source-*.tar.xz)
	;;
esac
src=$cache/linux-source-$ver
build=$cache/build-$ver

if [ ! -d "$src" ]; then
	echo "kunit: extracting linux-source $ver into $cache"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/extract.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	tar -C "$tmp" -xJf "$tarball"
	mv "$tmp"/linux-source-* "$src"
fi

# The tree builds a copy of this checkout's kmod/ and uapi/ as
# net/netslice/. Sources only: objects of an out-of-tree build in kmod/
# must never reach the UML build, whose VPATH would find them. A file is
# copied (and so dated now) only when its content differs from the copy
# the cached build saw: a checkout's own mtimes may be older than that
# build's objects (another worktree built them), and make would keep them.
tree=$src/net/netslice
mkdir -p "$tree"
want=$(mktemp)
(cd "$top" && find kmod uapi \( -name '*.[ch]' -o -name Kbuild -o -name Kconfig \) -print) |
	sort >"$want"
# A first run's tree holds neither directory yet: find fails, nothing to remove.
(cd "$tree" && find kmod uapi -type f -print 2>/dev/null || true) | sort | comm -13 "$want" - |
	(cd "$tree" && xargs -r rm -f)
while read -r f; do
	cmp -s "$top/$f" "$tree/$f" || install -D -m 0644 "$top/$f" "$tree/$f"
done <"$want"
rm -f "$want"
sed -i '/netslice/d' "$src/net/Kconfig" "$src/net/Makefile"
echo 'source "net/netslice/kmod/Kconfig"' >>"$src/net/Kconfig"
echo 'obj-$(CONFIG_NETSLICE) += netslice/kmod/' >>"$src/net/Makefile"

log=$(mktemp)
rc=0
(cd "$src" && python3 tools/testing/kunit/kunit.py run --build_dir "$build" \
	--kunitconfig "$top/kmod/.kunitconfig" --jobs "$(nproc)" 'netslice*') 2>&1 |
	tee "$log" || rc=$?

line=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$log" | tail -n 1 || true)
rm -f "$log"
if [ -z "$line" ]; then
	echo "# kunit $series: 0 passed, 1 failed (no KUnit summary; exit $rc)"
	exit 1
fi
passed=$(sed -nE 's/.*passed: ([0-9]+).*/\1/p' <<<"$line")
failed=$(sed -nE 's/.*failed: ([0-9]+).*/\1/p' <<<"$line")
crashed=$(sed -nE 's/.*crashed: ([0-9]+).*/\1/p' <<<"$line")
skipped=$(sed -nE 's/.*skipped: ([0-9]+).*/\1/p' <<<"$line")
errors=$(sed -nE 's/.*errors: ([0-9]+).*/\1/p' <<<"$line")
failed=$((${failed:-0} + ${crashed:-0} + ${errors:-0}))
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
# A skipped case is no pass: counted apart, as the guest suite's are.
echo "# kunit $series: ${passed:-0} passed, $failed failed, ${skipped:-0} skipped"
[ "$failed" -eq 0 ]
