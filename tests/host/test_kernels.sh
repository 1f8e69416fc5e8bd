#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/kernels.sh maps a series to the newest kernel of it, installed
# or fetched into the cache (scripts/fetch-kernel.sh), and finds its image
# and build tree; over a made-up cache, so no download is needed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NETSLICE_CACHE=$tmp
# shellcheck source=tests/vm/kernels.sh
. "$top/tests/vm/kernels.sh"

for v in 7.2.9+deb14-amd64 7.2.13+deb14-amd64 7.20.1+deb14-amd64 7.3-amd64; do
	mkdir -p "$tmp/kernels/$v/build" "$tmp/kernels/$v/root/usr/lib/modules/$v"
	: >"$tmp/kernels/$v/root/usr/lib/modules/$v/vmlinuz"
	: >"$tmp/kernels/$v/ready"
done
# Fetched but not prepared to the end: never picked.
mkdir -p "$tmp/kernels/7.2.99+deb14-amd64"

passed=0 failed=0 n=0
echo "KTAP version 1"
echo "# suite: kernels"
echo "1..9"
check() {
	local what=$1 got=$2 want=$3
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		passed=$((passed + 1)); echo "ok $n $what"
	else
		failed=$((failed + 1)); echo "not ok $n $what: got '$got', want '$want'"
	fi
}

check "7.2: the newest prepared 7.2.x, not 7.20 nor an unfinished one" \
	"$(tst_kernel_version 7.2)" 7.2.13+deb14-amd64
check "7.3: a release candidate's version" "$(tst_kernel_version 7.3)" 7.3-amd64
check "a full version names itself" "$(tst_kernel_version 7.2.9+deb14-amd64)" 7.2.9+deb14-amd64
check "an absent series: nothing, status 0 under set -e" \
	"$(set -e; tst_kernel_version 8.1; echo "rc $?")" "rc 0"
check "the image of a fetched kernel is Debian's, beside its modules" "$(tst_kernel_image 7.2)" \
	"$tmp/kernels/7.2.13+deb14-amd64/root/usr/lib/modules/7.2.13+deb14-amd64/vmlinuz"
check "its build tree is the prepared source" "$(tst_kernel_build_dir 7.2.13+deb14-amd64)" \
	"$tmp/kernels/7.2.13+deb14-amd64/build"
check "an unprepared version has no build tree" \
	"$(tst_kernel_build_dir 7.2.99+deb14-amd64 2>/dev/null || echo none)" none
# The machine's own kernels still come from /boot.
v61=$(ls -1 /boot/vmlinuz-6.1.* 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1)
check "6.1: the installed one (/boot)" "$(tst_kernel_version 6.1)" "$v61"
newest=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sed 's|^/boot/vmlinuz-||' | sort -V | tail -n 1)
check "default: the newest installed, whatever the current directory holds" \
	"$(cd "$tmp/kernels" && tst_kernel_version default)" "$newest"

echo "# kernels: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
