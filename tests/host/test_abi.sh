#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# libnetslice's opaque structs (0.8): a program built against 0.7's
# header (tests/host/abi-0.7/netslice.h, a copy kept as 0.7 shipped it)
# that reads struct ns_worker's and struct ns_batch's fields still links
# and runs on today's libnetslice.so, needing only 0.6's and 0.7's
# symbols; the same program on today's header runs through the
# functions; and against today's header a program can neither size nor
# reach into either struct, nor call the 0.7 batch setup.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/host/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
so=$top/build/libnetslice.so
[ -e "$so" ] || { echo "Bail out! $so is missing: run make lib first"; exit 1; }
flags=(-std=gnu11 -Wall -Wextra -Werror -I"$top/uapi")
new=(-I"$top/userlib")
# 0.7's netslice.h first; its netslice_pkt.h and uapi are today's, unchanged in layout.
old=(-I"$top/tests/host/abi-0.7" -I"$top/userlib" -DNS_ABI_0_7)
src=$top/tests/host/abi_worker.c

ktap_plan 4
cc "${flags[@]}" -shared -fPIC -o "$tmp/fake.so" "$top/tests/host/fake_slices.c" -ldl ||
	{ echo "Bail out! tests/host/fake_slices.c does not build"; exit 1; }
# run PROG: on build/'s library and fake_slices' two slices.
run() { LD_LIBRARY_PATH=$top/build LD_PRELOAD=$tmp/fake.so timeout 20 "$@"; }

cc "${flags[@]}" "${old[@]}" -o "$tmp/old" "$src" -L"$top/build" -lnetslice -pthread &&
	needs=$(objdump -T "$tmp/old" | grep -o 'LIBNETSLICE_[0-9.]*' | sort -u | tr '\n' ' ') &&
	[ "$needs" = "LIBNETSLICE_0.6 " ] && out=$(run "$tmp/old") && [ "$out" = ok ] ||
	{ echo "# needs: ${needs:-?}; says: ${out:-}" | tr '\n' ' '; echo; false; }
result "built against 0.7's header (fields, ns_batch_init), runs on today's library" $?

cc "${flags[@]}" "${new[@]}" -o "$tmp/new" "$src" -L"$top/build" -lnetslice -pthread &&
	out=$(run "$tmp/new") && [ "$out" = ok ] ||
	{ echo "# says: ${out:-}" | tr '\n' ' '; echo; false; }
result "built against today's header, the same through ns_worker_*() and ns_batch_*()" $?

# fails NAME ERROR CODE: CODE, in a function, does not compile against
# today's header, for the reason ERROR says.
bad=0
fails() {
	printf '#include "netslice.h"\nint f(struct ns_worker *w, struct ns_batch *b);\n%s\n' \
		"int f(struct ns_worker *w, struct ns_batch *b) { (void)w; (void)b; $3 }" >"$tmp/$1.c"
	if LC_ALL=C cc "${flags[@]}" "${new[@]}" -c -o "$tmp/$1.o" "$tmp/$1.c" 2>"$tmp/$1.log"; then
		echo "# $1 compiles: $3"; bad=1
	elif ! grep -qE "error: .*($2)" "$tmp/$1.log"; then
		echo "# $1 fails, but not with \"$2\":"; sed 's/^/#   /' "$tmp/$1.log" | head -n 5; bad=1
	fi
}
opaque='incomplete type|undefined type|storage size'
fails worker_size "$opaque" 'return (int)sizeof(struct ns_worker);'
fails worker_field "$opaque" 'return (int)w->index;'
fails worker_copy "$opaque" 'struct ns_worker c = *w; (void)c; return 0;'
fails batch_storage "$opaque" 'struct ns_batch s; (void)s; return 0;'
fails batch_field "$opaque" 'return (int)b->count;'
fails batch_init 'implicit declaration' 'return ns_batch_init(b, 8, 256);'
result "against today's header: no sizeof, copy or field of ns_worker and ns_batch, no ns_batch_init()" $bad

# The cases fail for the header's sake: the functions compile.
printf '#include "netslice.h"\nint f(struct ns_worker *w, struct ns_batch *b);\n%s\n' \
	'int f(struct ns_worker *w, struct ns_batch *b) { return (int)ns_worker_index(w) + (int)ns_batch_count(b); }' \
	>"$tmp/good.c"
cc "${flags[@]}" "${new[@]}" -c -o "$tmp/good.o" "$tmp/good.c"
result "the same frame with ns_worker_index() and ns_batch_count() compiles" $?

ktap_done
