#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The uapi's and libnetslice's names before 0.6 (header slicing's
# "slicing", now "cut"; the slice's RX queue's "ring_size", now
# "rxq_size") compile for one more release: a program written with them
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
[ -f "$lib" ] || { echo "Bail out! $lib is missing: run make first"; exit 1; }

# Every old name and its replacement, as the two headers declare them: a
# macro's _Pragma warning, or a member's or function's deprecated
# attribute. The program must use each one.
mapfile -t pairs < <(python3 - "$top/uapi/linux/netslice.h" "$top/userlib/netslice.h" <<'PY'
import re, sys
for path in sys.argv[1:]:
    text = open(path).read()
    for old, new in re.findall(r'#define (\w+) \\\n\s*__NETSLICE_OLD\("deprecated: use ([^"]+)"\)', text):
        print(f"{old}:{new}")
    for old, new in re.findall(r'(\w+) __NETSLICE_DEPRECATED\("(\w+)"\);', text):
        print(f"{old}:{new}")
    for new, old in re.findall(r'__NETSLICE_DEPRECATED\("(\w+)"\)\nstatic inline [^(]*?(\w+)\(', text):
        print(f"{old}:{new}")
PY
)

ktap_plan 5

missing=
for pair in "${pairs[@]}"; do
	grep -qw -- "${pair%%:*}" "$src" || missing+=" ${pair%%:*}"
done
[ -z "$missing" ] || echo "# old names the program does not use:$missing"
# 23 when this test was written: fewer means the headers' pattern changed.
[ "${#pairs[@]}" -ge 23 ] && [ -z "$missing" ]
result "the program uses each of the headers' ${#pairs[@]} old names" $?

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
