#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ccache-env.sh COMMAND [ARG...]: run COMMAND with its compilers (gcc,
# gcc-12, cc: the kernel's Kbuild calls them by name) going through ccache
# when it is installed (tools/deps.sh installs it), the cache kept with the
# rest of make check's in ~/.cache/netslice. A fresh clone then rebuilds
# the module for each kernel and user space from the cache: the same
# objects and the same warnings (ccache replays a compiler's output, so
# W=1 still fails a build). Without ccache, COMMAND runs as it is.
if [ -x /usr/lib/ccache/gcc ] && [ "${NETSLICE_CCACHE:-1}" != 0 ]; then
	PATH=/usr/lib/ccache:$PATH
	CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice/ccache}
	export PATH CCACHE_DIR
fi
exec "$@"
