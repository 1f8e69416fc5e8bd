#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The NFs' systemd template unit and example configuration as installed:
# systemd-analyze verify passes for every bundled NF's instance (and fails
# for one that does not exist, so the check can fail); the hardening
# scores as systemd's own "OK"; each example configuration is one its NF
# accepts (nf-ipsec's placeholder keys refused, by design); nf-ipsec's
# gateway file is 0600; a configuration a user changed survives reinstall
# and uninstall. The NF started from the unit's command line runs in the
# guest (tests/guest/test_install.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
. "$top/tests/host/ktap.sh"
nfs=(fwd firewall nat lb ipsec monitor)

ktap_plan 6
if ! command -v systemd-analyze >/dev/null; then
	for i in 1 2 3 4 5 6; do
		skip "unit check $i" "systemd-analyze is not installed (Debian: systemd)"
	done
	ktap_done
	exit
fi
# PREFIX is the staging directory itself, so that the paths in the unit
# exist as written (DESTDIR=/: no ldconfig or daemon-reload on this host).
prefix=$stage/usr
make -s -C "$top" install-lib install-units DESTDIR=/ PREFIX="$prefix" >/dev/null
unit=$prefix/lib/systemd/system/netslice-nf@.service
conf=$prefix/etc/netslice
units=$stage/units
mkdir -p "$units"
cp "$unit" "$units/"

verify() { MANPATH=$prefix/share/man systemd-analyze verify "$units/netslice-nf@$1.service" 2>&1; }
ok=0
for nf in "${nfs[@]}"; do
	out=$(verify "$nf") || { echo "# netslice-nf@$nf: $out"; ok=1; }
done
out=$(verify nosuch) && { echo "# netslice-nf@nosuch verified"; ok=1; }
grep -q "nf-nosuch is not executable" <<<"$out" || ok=1
result "systemd-analyze verify: netslice-nf@{${nfs[*]}} pass, netslice-nf@nosuch fails on its binary" $ok

grep -qx 'Type=notify' "$unit" && grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit" &&
	grep -qx "ExecStart=$prefix/sbin/nf-%i \$NF_OPTIONS" "$unit" &&
	grep -qx "EnvironmentFile=$prefix/etc/netslice/nf-%i.conf" "$unit" &&
	grep -qx 'DeviceAllow=char-netslice rw' "$unit" && grep -qx 'DevicePolicy=closed' "$unit" &&
	grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN' "$unit"
result "the unit: Type=notify, SIGHUP on reload, the NF and its options from SYSCONFDIR, only netslice's nodes, only CAP_NET_ADMIN" $?

score=$(systemd-analyze security --offline=true "$units/netslice-nf@fwd.service" 2>&1 |
	sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
echo "# systemd-analyze security: exposure $score"
[ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s < 4.0) }'
result "systemd-analyze security rates the unit's exposure below 4 (systemd's OK)" $?

# Each example is one its NF takes: run offline over an empty capture, so
# that what fails is the configuration, not the missing module.
empty=$stage/empty.pcap
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$empty"
ok=0
for nf in fwd firewall monitor; do
	# shellcheck disable=SC1090
	opts=$(. "$conf/nf-$nf.conf"; echo "$NF_OPTIONS")
	# shellcheck disable=SC2086
	out=$("$prefix/sbin/nf-$nf" $opts --pcap-in "$empty" 2>&1) ||
		{ echo "# nf-$nf $opts: $out"; ok=1; }
done
# shellcheck disable=SC1090
opts=$(. "$conf/nf-ipsec.conf"; echo "$NF_OPTIONS")
# shellcheck disable=SC2086
out=$("$prefix/sbin/nf-ipsec" $opts --pcap-in "$empty" 2>&1)
[ $? -eq 2 ] && grep -q "ipsec-gateway.conf:[0-9]*:1: sa-out: the key is not" <<<"$out" ||
	{ echo "# nf-ipsec: $out"; ok=1; }
result "the examples of nf-fwd, nf-firewall and nf-monitor run; nf-ipsec's placeholder keys are refused (exit 2)" $ok

[ "$(stat -c %a "$conf/ipsec-gateway.conf")" = 600 ] && [ "$(stat -c %a "$conf/nf-fwd.conf")" = 644 ]
result "the gateway's key file is installed 0600, the others 0644" $?

echo "default accept" >"$conf/firewall.rules"
make -s -C "$top" install-units DESTDIR=/ PREFIX="$prefix" >/dev/null &&
	[ "$(cat "$conf/firewall.rules")" = "default accept" ] &&
	make -s -C "$top" uninstall DESTDIR=/ PREFIX="$prefix" KVER=netslice-test-none \
		UDEVDIR="$stage/udev" MODPROBEDIR="$stage/modprobe.d" >/dev/null 2>&1
[ $? -eq 0 ] && [ "$(cat "$conf/firewall.rules" 2>/dev/null)" = "default accept" ] &&
	[ -z "$(find "$conf" -type f ! -name firewall.rules)" ] && [ ! -e "$unit" ]
result "a changed configuration file survives reinstall and uninstall; the rest is removed" $?

ktap_done
