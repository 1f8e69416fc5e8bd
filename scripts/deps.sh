#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing netslice needs. Idempotent: when all is
# present it changes nothing. On a non-Debian system it only reports what is
# missing and exits non-zero. NETSLICE_KERNELS (default "6.1 6.12 7.2"): a
# series the machine's suite does not ship (7.2) is fetched from Debian's
# unstable suite into the cache by scripts/fetch-kernel.sh, the system's apt
# sources untouched. The one apt source it adds: bookworm-backports, for a
# QEMU of 8.1 or newer (see qemu_ok below).
set -euo pipefail

CACHE=${NETSLICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/netslice}
VENV=$CACHE/venv
VNG_VERSION=${VNG_VERSION:-1.42}

log() { printf 'deps: %s\n' "$*"; }

# Newest 6.12 Debian kernel flavour that has both an image and headers.
pick_612() {
	apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
		awk '{print $1}' | sed 's/^linux-headers-//' | sort -V | tail -n1
}

have_612() {
	compgen -G '/boot/vmlinuz-6.12.*+deb12-amd64' >/dev/null &&
		compgen -G '/lib/modules/6.12.*+deb12-amd64/build' >/dev/null
}

have_61() {
	compgen -G '/boot/vmlinuz-6.1.0-*-amd64' >/dev/null &&
		compgen -G '/lib/modules/6.1.0-*-amd64/build' >/dev/null
}

# package -> command or file that proves it is present
declare -A PROBE=(
	[build-essential]=/usr/bin/gcc
	[pkg-config]=/usr/bin/pkg-config
	[bc]=/usr/bin/bc
	[flex]=/usr/bin/flex
	[bison]=/usr/bin/bison
	[libelf-dev]=/usr/include/libelf.h
	[libssl-dev]=/usr/include/openssl/ssl.h
	[qemu-system-x86]=/usr/bin/qemu-system-x86_64
	[libnl-genl-3-dev]=/usr/include/libnl3/netlink/genl/genl.h
	[iproute2]=/usr/sbin/ip
	[ethtool]=/usr/sbin/ethtool
	[iputils-ping]=/usr/bin/ping
	[busybox-static]=/bin/busybox
	[linux-source-6.1]=/usr/src/linux-source-6.1.tar.xz
	# make check-debug: the sanitizer kernel is built from this source
	[linux-source-6.12]=/usr/src/linux-source-6.12.tar.xz
	[python3-yaml]=/usr/lib/python3/dist-packages/yaml/__init__.py
	# scripts/ynl-gen.sh: the kernel's generator validates the netlink spec
	[python3-jsonschema]=/usr/lib/python3/dist-packages/jsonschema/__init__.py
	# the host tests render the man pages, and read and write pcap with libpcap
	[groff-base]=/usr/bin/groff
	[tcpdump]=/usr/bin/tcpdump
	# test_nf.py parses --metrics with Prometheus' own text parser
	[python3-prometheus-client]=/usr/lib/python3/dist-packages/prometheus_client/__init__.py
	# test_cli.sh completes netslicectl's command lines through it
	[bash-completion]=/usr/share/bash-completion/bash_completion
	# bench/: the AF_XDP forwarder (libxdp, libbpf) and make bench's plots
	[libxdp-dev]=/usr/include/xdp/xsk.h
	[libbpf-dev]=/usr/include/bpf/libbpf.h
	# make bench's instruction counter, a QEMU plugin (bench/plugin/)
	[libglib2.0-dev]=/usr/include/glib-2.0/glib.h
	[python3-matplotlib]=/usr/lib/python3/dist-packages/matplotlib/__init__.py
	# make bench's TCP run: the kernel's own masquerade against nf-nat
	[nftables]=/usr/sbin/nft
	# make check's builds (the module for each kernel, user space) cached
	# across fresh clones: scripts/ccache-env.sh
	[ccache]=/usr/lib/ccache/gcc
	# test_nf.py: ESP against an independent AES-GCM; protocol names
	[python3-cryptography]=/usr/lib/python3/dist-packages/cryptography/__init__.py
	[netbase]=/etc/protocols
	# make deb (make check builds the packages and lints them)
	[debhelper]=/usr/bin/dh
	[dh-dkms]=/usr/bin/dh_dkms
	[dkms]=/usr/sbin/dkms
	[lintian]=/usr/bin/lintian
	[fakeroot]=/usr/bin/fakeroot
)

missing=()
for pkg in "${!PROBE[@]}"; do
	[ -e "${PROBE[$pkg]}" ] || missing+=("$pkg")
done
have_61 || missing+=(linux-image-amd64 linux-headers-amd64)
command -v python3 >/dev/null || missing+=(python3)
python3 -c "import venv, ensurepip" 2>/dev/null || missing+=(python3-venv)

if ! have_612; then
	if command -v apt-cache >/dev/null; then
		v=$(pick_612 || true)
		if [ -z "$v" ] && [ "$(id -u)" = 0 ]; then
			apt-get update -qq
			v=$(pick_612 || true)
		fi
		[ -n "$v" ] && missing+=("linux-image-$v-unsigned" "linux-headers-$v")
	fi
	have_612 || [ -n "${v:-}" ] || missing+=("linux-image-6.12.*+deb12-amd64-unsigned" "linux-headers-6.12.*+deb12-amd64")
fi

if [ ${#missing[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null || ! grep -qs '^ID=debian' /etc/os-release; then
		log "not a Debian system; install these (or your distribution's equivalents):"
		printf '  %s\n' "${missing[@]}"
		exit 1
	fi
	if [ "$(id -u)" != 0 ]; then
		log "missing packages (run as root to install):"
		printf '  %s\n' "${missing[@]}"
		exit 1
	fi
	log "installing: ${missing[*]}"
	[ -n "$(find /var/lib/apt/lists -name '*Packages*' -mmin -1440 2>/dev/null | head -n1)" ] ||
		apt-get update -qq
	# No recommends: the kernels are booted by virtme-ng, which needs no
	# initramfs or firmware.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# QEMU before 8.1 runs stale translated code on one vCPU while another
# patches kernel text, and under TCG the guest kernel then oopses on an int3
# at random (QEMU commits cb62bd15e14e and deba78709ae8; CI lost a run to it
# on 2026-11-26). Debian 12 ships 7.2: take the backport. Only the listed
# package comes from backports; the source is not preferred for others.
qemu_ok() {
	local v
	v=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/.*version \([0-9]*\.[0-9]*\).*/\1/p')
	[ -n "$v" ] && printf '8.1\n%s\n' "$v" | sort -V -C
}
if ! qemu_ok; then
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	if [ "$(id -u)" != 0 ] || [ -z "$codename" ] || ! command -v apt-get >/dev/null; then
		log "QEMU $(qemu-system-x86_64 --version | sed -n '1s/.*version //p') is older than 8.1: guests under TCG may oops at random; install a newer QEMU"
		exit 1
	fi
	list=/etc/apt/sources.list.d/netslice-backports.list
	if [ "$codename" = bookworm ] && [ ! -e "$list" ]; then
		log "QEMU older than 8.1: adding $codename-backports for qemu-system-x86"
		echo "deb http://deb.debian.org/debian $codename-backports main" >"$list"
		apt-get update -qq
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		-t "$codename-backports" qemu-system-x86 >/dev/null
	qemu_ok || { log "still no QEMU >= 8.1"; exit 1; }
	log "QEMU: $(qemu-system-x86_64 --version | head -n1)"
fi

if [ ! -x "$VENV/bin/vng" ]; then
	log "creating virtme-ng venv in $VENV"
	mkdir -p "$CACHE"
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install -q "virtme-ng==$VNG_VERSION"
fi

for k in ${NETSLICE_KERNELS:-6.1 6.12 7.2}; do
	case $k in
	6.1 | 6.12) ;;
	*)
		v=$("$(dirname "$0")/fetch-kernel.sh" "$k") || {
			log "cannot fetch Linux $k; make check KERNELS=\"6.1 6.12\" tests without it"
			exit 1
		}
		log "Linux $k: $v (from Debian, in $CACHE/kernels)"
		;;
	esac
done

# make bench's QEMU plugin is built against the installed QEMU's header.
# make check does not need it: a failed fetch is told, not fatal.
"$(dirname "$0")/fetch-qemu-plugin.sh" >/dev/null ||
	log "cannot fetch qemu-plugin.h: make bench's instruction count needs it (make check does not)"

log "all dependencies present (virtme-ng: $VENV/bin/vng)"
