#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ccache-env.sh COMMAND [ARG...]: run COMMAND with its compilers (gcc,
# gcc-12, cc: the kernel's Kbuild calls them by name) going through ccache
# when it is installed (scripts/deps.sh installs it), the cache kept with the
# rest of make check's in ~/.cache/netslice. A fresh clone then rebuilds
# the module for each kernel and user space from the cache: the same
# objects and the same warnings (ccache replays a compiler's output, so
# W=1 still fails a build). Without ccache, COMMAND runs as it is.
# Paths under the checkout are hashed relative to the working directory
# (CCACHE_BASEDIR; the directory itself left out): user space, built from
# the checkout, hits from a clone anywhere; the module, which Kbuild
# compiles from the kernel's tree, only from a clone at the same path
# (CI's and a user's usual case).
if [ -x /usr/lib/ccache/gcc ] && [ "${NETSLICE_CCACHE:-1}" != 0 ]; then
	PATH=/usr/lib/ccache:$PATH
	CCACHE_DIR=${CCACHE_DIR:-${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}/ccache}
	CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "$0")/.." && pwd)}
	CCACHE_NOHASHDIR=1
	export PATH CCACHE_DIR CCACHE_BASEDIR CCACHE_NOHASHDIR
fi
exec "$@"
