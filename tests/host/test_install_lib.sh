#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# libnetslice and the tools as a distribution packages them:
# `make install-lib` into a staging root with a multiarch LIBDIR, the
# documented example NF built with pkg-config against it, shared and
# static, and run (no module here: it must say so and exit 1); the
# library's file and soname links; every exported symbol under the
# version of its node in the version script, and nothing else exported;
# the pkg-config flags push no feature macro (the example builds as
# strict C99); an NF linked against the shared library; the daemons in
# sbin, netslice-info in bin; a man page for every program, rendered
# without warnings, naming the paths PREFIX gives; the guides in the doc
# directory; the headers as C++; packagers' CPPFLAGS and LDFLAGS; one
# version everywhere.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
. "$top/tests/host/ktap.sh"
version=$(sed -n 's/^VERSION := //p' "$top/Makefile")
sover=$(sed -n 's/^SOVERSION := //p' "$top/Makefile")
# The library's file: soname, then VERSION's minor and patch.
file=libnetslice.so.$sover.${version#*.}
# ns_run's version node, and the newest: VERSION's major.minor.
node=LIBNETSLICE_0.6
newest=LIBNETSLICE_${version%.*}
libdir=/usr/lib/x86_64-linux-gnu
root=$stage/root

ktap_plan 18
make -s -C "$top" install-lib DESTDIR="$root" PREFIX=/usr LIBDIR=$libdir >/dev/null
result "make install-lib DESTDIR=... PREFIX=/usr LIBDIR=$libdir installs library, headers, pkg-config file, NFs and netslicectl in sbin, netslice-info in bin, the guides in the doc directory" \
	"$(test -f "$root$libdir/$file" -a -e "$root$libdir/libnetslice.a" \
		-a -e "$root$libdir/pkgconfig/netslice.pc" \
		-a -e "$root/usr/include/netslice/netslice_pkt.h" \
		-a -e "$root/usr/include/netslice/linux/netslice.h" \
		-a -x "$root/usr/sbin/nf-ipsec" -a -x "$root/usr/sbin/netslicectl" \
		-a -x "$root/usr/bin/netslice-info" -a ! -e "$root/usr/bin/nf-fwd" \
		-a -f "$root/usr/share/doc/netslice/README.md" -a -f "$root/usr/share/doc/netslice/nfs.md" \
		-a -f "$root/usr/share/doc/netslice/examples/tcp-only.c" \
		-a ! -e "$root/usr/lib/libnetslice.a"; echo $?)"

[ "$(readlink "$root$libdir/libnetslice.so.$sover")" = "$file" ] &&
	[ "$(readlink "$root$libdir/libnetslice.so")" = libnetslice.so.$sover ] &&
	[[ $(readelf -d "$root$libdir/$file") == *SONAME*"[libnetslice.so.$sover]"* ]]
result "$file, soname libnetslice.so.$sover linked to it, libnetslice.so to that" $?

so=$root$libdir/$file
# Defined, dynamic symbols: "name version" (a local one shows no version).
exports=$(objdump -T "$so" | awk '$2 ~ /g/ && $4 != "*UND*" {print $NF, $(NF-1)}')
# The version script's "name node" pairs: each symbol under the node it is in.
want=$(awk '/^LIBNETSLICE_[0-9.]+ *\{/ {node = $1} /^[[:space:]]*ns_[a-z0-9_]*;/ {sub(/;/, ""); print $1, node}' \
	"$top/userlib/libnetslice.map" | sort)
# Besides the symbols, each node defines itself (an absolute symbol of its name).
got=$(grep -v -E '^LIBNETSLICE_[0-9.]+ LIBNETSLICE_[0-9.]+$' <<<"$exports" | sort)
n=$(wc -l <<<"$want")
echo "# $n symbols in $(grep -c '^LIBNETSLICE_' "$top/userlib/libnetslice.map") version nodes"
[ "$n" -gt 50 ] && [ "$got" = "$want" ] &&
	grep -qx "ns_run $node" <<<"$got" &&
	[ "$(grep -o '^LIBNETSLICE_[0-9.]*' "$top/userlib/libnetslice.map" | sort -V | tail -n 1)" = "$newest" ] ||
	{ diff <(echo "$want") <(echo "$got") | head -n 5 | sed 's/^/# /'; false; }
result "every exported symbol is an ns_ function of the version script, under its node's version; the newest node is $newest, VERSION's" $?

export PKG_CONFIG_PATH=$root$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
ex=$top/docs/examples/tcp-only.c
[ "$(pkg-config --variable=libdir netslice)" = "$root$libdir" ] &&
	[ "$(pkg-config --modversion netslice)" = "$version" ] &&
	# shellcheck disable=SC2046
	cc -Wall -Werror -o "$stage/shared" "$ex" $(pkg-config --cflags --libs netslice) -pthread
result "the example builds against the shared library with pkg-config (libdir $libdir)" $?
# shellcheck disable=SC2046
cc -Wall -Werror -o "$stage/static" "$ex" $(pkg-config --cflags netslice) \
	-L"$root$libdir" -Wl,-Bstatic -lnetslice -Wl,-Bdynamic $(pkg-config --static --libs-only-l netslice | sed 's/-lnetslice//') -pthread
result "the example builds against the static library" $?

# Consumers choose their own feature macros: the flags carry none, and the
# headers need none (cpu_set_t is in every glibc sched.h).
cflags=$(pkg-config --cflags netslice)
# shellcheck disable=SC2086
! grep -q -- '-D' <<<"$cflags" &&
	cc -std=c99 -pedantic -Wall -Werror -c -o "$stage/c99.o" "$ex" $cflags
result "pkg-config --cflags defines no macro ($cflags); the example builds as strict C99" $?

# The tools link the shared library: those make check runs load the one
# built beside them; those installed name no RUNPATH (lintian's
# custom-library-search-path) and load LIBDIR's.
ok=0
for p in "$top"/build/bin/*; do
	readelf -d "$p" | grep "NEEDED.*\[libnetslice.so.$sover\]" >/dev/null &&
		ldd "$p" | grep "libnetslice.so.$sover => $top/build/bin/../libnetslice.so.$sover" >/dev/null ||
		{ echo "# $p: not linked to build/libnetslice.so.$sover"; ok=1; }
done
objdump -T "$top/build/bin/nf-fwd" | grep "($node) *ns_run\$" >/dev/null &&
	[ "$("$top/build/bin/nf-fwd" --version)" = "nf-fwd $version" ] || ok=1
result "build/bin's tools need libnetslice.so.$sover (nf-fwd: ns_run@$node) and load the one built" $ok
ok=0
for p in "$root"/usr/bin/* "$root"/usr/sbin/*; do
	readelf -d "$p" | grep "NEEDED.*\[libnetslice.so.$sover\]" >/dev/null &&
		! readelf -d "$p" | grep -E 'RPATH|RUNPATH' >/dev/null &&
		LD_LIBRARY_PATH=$root$libdir ldd "$p" | grep "libnetslice.so.$sover => $root$libdir/" >/dev/null ||
		{ echo "# $p: no libnetslice.so.$sover, or a RUNPATH"; ok=1; }
done
result "the installed tools need libnetslice.so.$sover and name no RUNPATH" $ok
out=$(LD_LIBRARY_PATH=$root$libdir "$stage/shared" 2>&1; echo "exit $?")
out2=$("$stage/static" 2>&1; echo "exit $?")
echo "# $out" | tr '\n' ' '; echo
[ "$out" = "$(printf 'tcp-only: No such file or directory\nexit 1')" ] && [ "$out2" = "$out" ]
result "both run and report the missing module as an error (exit 1)" $?

# A page per program, one for the library; groff finds nothing to warn of.
ok=0
for p in "$root"/usr/bin/* "$root"/usr/sbin/*; do
	sec=8
	[[ $p = */usr/bin/* ]] && sec=1
	page=$root/usr/share/man/man$sec/$(basename "$p").$sec
	[ -f "$page" ] || { echo "# no man page for $(basename "$p") in section $sec"; ok=1; }
done
[ -f "$root/usr/share/man/man3/libnetslice.3" ] || { echo "# no libnetslice.3"; ok=1; }
result "a man page for every installed program and the library" $ok
if optional_missing groff groff-base; then
	skip "every man page rendered without warnings" "$missing"
else
	ok=0
	for page in "$root"/usr/share/man/man*/*; do
		warn=$(LC_ALL=C.UTF-8 groff -man -t -ww -z "$page" 2>&1)
		[ -z "$warn" ] || { echo "# $page: $warn"; ok=1; }
	done
	result "every man page rendered without warnings" $ok
fi

# Paths and versions in the pages are those of this install.
ok=0
grep -l -e '@[A-Z]*@' -e /usr/local "$root"/usr/share/man/man*/* && ok=1
grep -q "/usr/share/netslice/netslice.yaml" "$root/usr/share/man/man8/netslicectl.8" &&
	grep -q "$libdir/libnetslice.so.$sover" "$root/usr/share/man/man3/libnetslice.3" || ok=1
for page in "$root"/usr/share/man/man*/*; do
	grep -q "^\.TH .* \"netslice $version\"" "$page" || { echo "# $page: not $version"; ok=1; }
done
result "man pages name PREFIX's and LIBDIR's paths and version $version" $ok

# Every long option a program's --help lists is in its page.
ok=0
for p in "$root"/usr/bin/* "$root"/usr/sbin/*; do
	name=$(basename "$p")
	page=$(ls "$root"/usr/share/man/man[18]/"$name".[18])
	for opt in $(LD_LIBRARY_PATH=$root$libdir "$p" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qF -- "$(echo "$opt" | sed 's/-/\\-/g')" "$page" ||
			{ echo "# $name lacks $opt"; ok=1; }
	done
done
result "each page documents every long option of its program's --help" $ok

# The installed headers as C++ (new, class... are keywords there), linked.
cat >"$stage/cxx.cc" <<'CXX'
#include <netslice.h>
#include <netslice_pkt.h>
#include <linux/netslice_cut.h>
#include <cstdio>
int main()
{
	uint16_t csum = 0x1234;
	struct netslice_cut_hdrs h = { 0, 0, NETSLICE_CUT_ETH_IPV6, 0, 0 };

	ns_csum_update16(&csum, 0x0001, 0x0002);
	std::printf("%04x %d %u %zu\n", csum, ns_slice_count() < 0,
		    h.l3_proto + NETSLICE_CUT_MAX_TAGS, sizeof(h));
	return 0;
}
CXX
ok=1
for std in c++11 c++17 c++20; do
	# shellcheck disable=SC2046
	g++ -std=$std -Wall -Wextra -Werror -pedantic -o "$stage/cxx" "$stage/cxx.cc" \
		$(pkg-config --cflags netslice) -L"$root$libdir" -Wl,-Bstatic -lnetslice \
		-Wl,-Bdynamic -pthread && [ "$("$stage/cxx")" = "1233 1 34527 12" ] && ok=0 ||
		{ echo "# as $std:"; ok=1; break; }
done
result "netslice.h, netslice_pkt.h and linux/netslice_cut.h compile as C++11, 17 and 20 and link" $ok

# Packagers' flags reach every compile and link; user space needs no
# kernel; STATIC=1 links the tools against libnetslice.a.
env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR make -s -C "$top" B="$stage/b" KDIR=/nonexistent CPPFLAGS=-D_FORTIFY_SOURCE=2 \
	LDFLAGS="-Wl,-z,now" STATIC=1 lib tools >/dev/null 2>&1
ok=$?
# Not "| grep -q" under pipefail: grep leaving at its first match is a
# SIGPIPE for a writer with more to say (nm's list passed 4 KiB).
for f in "$stage/b/bin/nf-fwd" "$stage/b/bin/netslicectl" "$stage/b/$file"; do
	[[ $(readelf -d "$f" 2>/dev/null) == *BIND_NOW* ]] || { echo "# $f: LDFLAGS not used"; ok=1; }
done
[[ $(nm -D "$stage/b/bin/nf-fwd") =~ __[a-z]*_chk ]] || { echo "# CPPFLAGS not used"; ok=1; }
[[ $(readelf -d "$stage/b/bin/nf-fwd" "$stage/b/bin/netslicectl") != *libnetslice* ]] ||
	{ echo "# STATIC=1 not used"; ok=1; }
result "make lib tools with KDIR unset honours CPPFLAGS (fortified calls) and LDFLAGS (BIND_NOW); STATIC=1 links libnetslice.a" $ok

# Every directory variable README names places its files.
alt=$stage/alt
make -s -C "$top" install-lib DESTDIR="$alt" PREFIX=/opt/ns BINDIR=/opt/bin SBINDIR=/opt/sbin \
	INCLUDEDIR=/opt/inc MANDIR=/opt/man DATADIR=/opt/data LIBDIR=/opt/lib64 DOCDIR=/opt/doc >/dev/null &&
	test -x "$alt/opt/sbin/nf-fwd" -a -x "$alt/opt/bin/netslice-info" \
		-a -e "$alt/opt/doc/design.md" -a -e "$alt/opt/inc/netslice/netslice.h" \
		-a -e "$alt/opt/man/man8/nf-fwd.8" -a -e "$alt/opt/data/netslice/netslice.yaml" \
		-a -e "$alt/opt/lib64/$file" &&
	grep -q '^includedir=/opt/inc/netslice$' "$alt/opt/lib64/pkgconfig/netslice.pc" &&
	grep -q '/opt/data/netslice/netslice.yaml' "$alt/opt/man/man8/netslicectl.8" &&
	[ -z "$(find "$alt/opt/ns" -type f 2>/dev/null)" ]
result "BINDIR, SBINDIR, INCLUDEDIR, MANDIR, DATADIR, DOCDIR and LIBDIR each place their files, and the pages say so" $?

# bash-completion finds each program's completion by its name: netslicectl's,
# and the NFs' one file under each NF's.
bash_completion=${NETSLICE_BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
if optional_missing "$bash_completion" bash-completion; then
	skip "bash completion installed for netslicectl and each NF, found by its name" "$missing"
else
	comp=$root/usr/share/bash-completion/completions
	got=$(XDG_DATA_DIRS=$root/usr/share bash -c '. "$0" || exit 1
		for p in "$@"; do __load_completion "$p" && complete -p "$p"; done' \
		"$bash_completion" netslicectl nf-fwd nf-firewall nf-monitor nf-nat nf-lb nf-ipsec)
	[ "$(grep -c '^complete -F _netslice_nf nf-' <<<"$got")" -eq 6 ] &&
		grep -qx 'complete -F _netslicectl netslicectl' <<<"$got" &&
		[ "$(readlink "$comp/nf-ipsec")" = nf-fwd ] ||
		{ echo "# $got" | tr '\n' ' '; echo; false; }
	result "bash completion installed for netslicectl and each NF, found by its name" $?
fi

# ldconfig runs after a real install, not into a staging root.
[[ $(make -n -s -C "$top" install-lib PREFIX=/usr) == *'then ldconfig'* ]] &&
	[ -z "$(make -n -s -C "$top" install-lib DESTDIR=/x | grep -x 'ldconfig')" ]
result "install-lib runs ldconfig unless DESTDIR is set" $?

ktap_done
