#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# libnetslice as users get it: `make install-lib` into a staging root, then
# the documented example NF built with pkg-config against it, shared and
# static, and run (no module here: it must say so and exit 1).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
. "$top/tests/host/ktap.sh"

echo "KTAP version 1"
echo "1..4"
make -s -C "$top" install-lib DESTDIR="$stage" PREFIX=/usr >/dev/null
result "make install-lib DESTDIR=... installs library, headers, pkg-config file, NFs" \
	"$(test -e "$stage/usr/lib/libnetslice.so.0" -a -e "$stage/usr/lib/libnetslice.a" \
		-a -e "$stage/usr/include/netslice/netslice_pkt.h" \
		-a -e "$stage/usr/include/netslice/linux/netslice.h" \
		-a -x "$stage/usr/bin/nf-ipsec"; echo $?)"
export PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
ex=$top/docs/examples/tcp-only.c
# shellcheck disable=SC2046
cc -Wall -Werror -o "$stage/shared" "$ex" $(pkg-config --cflags --libs netslice) -pthread
result "the example builds against the shared library with pkg-config" $?
# shellcheck disable=SC2046
cc -Wall -Werror -o "$stage/static" "$ex" $(pkg-config --cflags netslice) \
	-L"$stage/usr/lib" -Wl,-Bstatic -lnetslice -Wl,-Bdynamic $(pkg-config --static --libs-only-l netslice | sed 's/-lnetslice//') -pthread
result "the example builds against the static library" $?
out=$(LD_LIBRARY_PATH=$stage/usr/lib "$stage/shared" 2>&1; echo "exit $?")
out2=$("$stage/static" 2>&1; echo "exit $?")
echo "# $out" | tr '\n' ' '; echo
[ "$out" = "$(printf 'tcp-only: No such file or directory\nexit 1')" ] && [ "$out2" = "$out" ]
result "both run and report the missing module as an error (exit 1)" $?
ktap_done
