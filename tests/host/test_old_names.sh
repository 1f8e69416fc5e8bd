#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The uapi's and libnetslice's names before 0.6 (header slicing's "slicing",
# now "cut"; the slice's RX queue's "ring_size", now "rxq_size") compile for one more release: a program written with them
# builds, in C and in C++, with one warning per old name naming its
# replacement, and behaves as with the new names; NETSLICE_NO_DEPRECATED
# makes them errors (docs/uapi.md, "Header slicing").
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$top/tests/host/old_names.c
lib=$top/build/libnetslice.a
flags=(-Wall -Wextra -I"$top/uapi" -I"$top/userlib")
# Every old name the program uses, each with its replacement.
pairs=(NETSLICE_SLICE_GET:NETSLICE_CUT_GET NETSLICE_SLICE_SET:NETSLICE_CUT_SET
	NETSLICE_SLICE_OFF:NETSLICE_CUT_OFF NETSLICE_SLICE_FIXED:NETSLICE_CUT_FIXED
	NETSLICE_SLICE_AUTO:NETSLICE_CUT_AUTO NETSLICE_SLICE_TRIM:NETSLICE_CUT_TRIM
	NETSLICE_SLICE_GSO:NETSLICE_CUT_GSO NETSLICE_RX_SLICED:NETSLICE_RX_CUT
	NETSLICE_SLICING_MODE_OFF:NETSLICE_CUT_MODE_OFF
	NETSLICE_SLICING_MODE_FIXED:NETSLICE_CUT_MODE_FIXED
	NETSLICE_SLICING_MODE_AUTO:NETSLICE_CUT_MODE_AUTO
	NETSLICE_A_SLICE_SLICING_MODE:NETSLICE_A_SLICE_CUT_MODE
	NETSLICE_A_SLICE_SLICING_LENGTH:NETSLICE_A_SLICE_CUT_LENGTH
	NETSLICE_A_SLICE_SLICING_EXTRA:NETSLICE_A_SLICE_CUT_EXTRA
	NETSLICE_A_SLICE_SLICING_TRIM:NETSLICE_A_SLICE_CUT_TRIM
	NETSLICE_A_SLICE_SLICING_GSO:NETSLICE_A_SLICE_CUT_GSO
	NS_SLICING_STRLEN:NS_CUT_STRLEN netslice_slicing:"struct netslice_cut"
	NETSLICE_A_SLICE_RING_SIZE:NETSLICE_A_SLICE_RXQ_SIZE ring_size:rxq_size
	ns_slicing_parse:ns_cut_parse ns_slicing_format:ns_cut_format slicing:cut)

ktap_plan 4

# warned LOG: each old name warns, naming its replacement: the warning
# "deprecated: use NEW" (a function's or member's: "OLD is deprecated: use
# NEW"), the old name in it or in the source line shown under it.
warned() {
	local pair old new rc=0
	for pair in "${pairs[@]}"; do
		old=${pair%%:*} new=${pair#*:}
		grep -A1 -E "warning: .*deprecated: use $new\b" "$1" | grep -qw -- "$old" ||
			{ echo "# no deprecation warning for $old"; rc=1; }
	done
	[ $rc = 0 ] || sed 's/^/#   /' "$1" | head -n 40
	return $rc
}

cc -std=gnu11 "${flags[@]}" -o "$tmp/old" "$src" "$lib" 2>"$tmp/c.log" &&
	warned "$tmp/c.log" && [ "$("$tmp/old")" = "fixed:128,trim" ]
result "C: the old names build, each with a warning naming its replacement, and work" $?

g++ -std=gnu++17 "${flags[@]}" -o "$tmp/oldxx" -x c++ "$src" -x none "$lib" 2>"$tmp/cxx.log" &&
	warned "$tmp/cxx.log" && [ "$("$tmp/oldxx")" = "fixed:128,trim" ]
result "C++: the same" $?

# A program on the new names alone: no warning.
cc -std=gnu11 "${flags[@]}" -Werror -DNETSLICE_NO_DEPRECATED -o "$tmp/new" \
	"$top/docs/examples/tcp-only.c" "$lib" -lpthread 2>"$tmp/new.log"
rc=$?
[ $rc = 0 ] || sed 's/^/#   /' "$tmp/new.log"
result "the new names build with -Werror and NETSLICE_NO_DEPRECATED" $rc

! cc -std=gnu11 "${flags[@]}" -DNETSLICE_NO_DEPRECATED -c -o "$tmp/x.o" "$src" 2>"$tmp/no.log" &&
	grep -q "NETSLICE_SLICE_GET" "$tmp/no.log"
result "NETSLICE_NO_DEPRECATED: the old names are errors" $?

ktap_done
