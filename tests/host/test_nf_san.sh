#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The NFs' offline tests again, on the tools built with ASan and UBSan
# (in build/san): a misaligned header access, an overflow or a leak in
# an NF's packet logic fails the test instead of passing by luck.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
make -s -C "$top" B=build/san CFLAGS="-O1 -g -fno-omit-frame-pointer $san" LDFLAGS="$san" tools
NETSLICE_BIN=$top/build/san/bin exec /usr/bin/python3 "$top/tests/host/test_nf.py"
