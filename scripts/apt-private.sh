# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# A private apt state for one Debian suite, sourced by scripts/fetch-kernel.sh
# and scripts/fetch-qemu-plugin.sh: the machine's apt sources and installed
# packages are never touched. Needs $apt_cache (the states' parent).
#
#   apt_opts SUITE      apt's options for the suite's private state
#   apt_index SUITE [deb|deb-src]
#                       read the suite's index, at most once a day

# The machine's own Debian mirror (one-line or deb822 sources), so other
# suites come from where everything else does.
apt_mirror() {
	local uri
	[ -n "${NETSLICE_DEBIAN_MIRROR:-}" ] && { echo "$NETSLICE_DEBIAN_MIRROR"; return; }
	uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -n 1 | tr -d ' ' || true)
	echo "${uri:-http://deb.debian.org/debian}"
}

apt_opts() {
	local d=$apt_cache/apt-$1
	echo "-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null"
	echo "-o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o APT::Sandbox::User=root -q"
}

apt_index() {
	local d=$apt_cache/apt-$1 kind=${2:-deb}
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	[ -n "$(find "$d/lists" \( -name '*Packages*' -o -name '*Sources*' \) -mmin -1440 2>/dev/null | head -n 1)" ] &&
		return 0
	printf '%s [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		"$kind" "$(apt_mirror)" "$1" >"$d/sources.list"
	# shellcheck disable=SC2046
	apt-get $(apt_opts "$1") update >"$d/update.log" 2>&1
}
