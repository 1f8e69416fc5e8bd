#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The NFs' systemd template unit and example configuration as installed:
# systemd-analyze verify passes for every bundled NF's instance and for
# one named by its configuration; the hardening scores as systemd's own
# "OK"; the unit's command line (tests/unit_exec.sh: ExecStart as systemd
# expands it) runs each example configuration's NF (nf-ipsec's
# placeholder keys refused, by design), the NF a configuration names, and
# exits 127 for one that names none; without the module here the NF exits
# 69 with a STATUS= saying why and no READY=1, which the unit retries,
# while a bad option's 2 it does not; nf-ipsec's gateway file is 0600; a
# configuration a user changed survives reinstall and uninstall. The NF
# started from the unit's command line runs in the guest
# (tests/guest/test_install.sh, test_unit.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
. "$top/tests/host/ktap.sh"
nfs=(fwd firewall nat lb ipsec monitor)

ktap_plan 8
if optional_missing systemd-analyze systemd; then
	for i in 1 2 3 4 5 6 7 8; do
		skip "unit check $i" "$missing"
	done
	ktap_done
	exit
fi
# PREFIX is the staging directory itself, so that the paths in the unit
# exist as written (DESTDIR=/: no ldconfig or daemon-reload on this host).
prefix=$stage/usr
make -s -C "$top" install-lib install-units DESTDIR=/ PREFIX="$prefix" >/dev/null
# The installed NFs load the installed library, as ldconfig would find it.
export LD_LIBRARY_PATH=$prefix/lib
unit=$prefix/lib/systemd/system/netslice-nf@.service
conf=$prefix/etc/netslice
units=$stage/units
mkdir -p "$units"
cp "$unit" "$units/"
# A second firewall, named by its configuration.
printf 'NF=firewall\nNF_OPTIONS="--rules %s/firewall.rules --slices 1"\n' "$conf" >"$conf/nf-wan.conf"

verify() { MANPATH=$prefix/share/man systemd-analyze verify "$units/netslice-nf@$1.service" 2>&1; }
ok=0
for inst in "${nfs[@]}" wan; do
	out=$(verify "$inst") || { echo "# netslice-nf@$inst: $out"; ok=1; }
done
result "systemd-analyze verify: netslice-nf@{${nfs[*]} wan} pass" $ok

# What systemd runs, restarts and lets the NF do.
grep -qx 'Type=notify' "$unit" && grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit" &&
	grep -qx "ExecStart=/bin/sh -c 'set -f; exec \"$prefix/sbin/nf-\$\${NF}\" \$\${NF_OPTIONS}' netslice-nf@%i" "$unit" &&
	grep -qx 'Environment=NF=%i' "$unit" &&
	grep -qx "EnvironmentFile=$prefix/etc/netslice/nf-%i.conf" "$unit" &&
	grep -qx 'Restart=on-failure' "$unit" && grep -qx 'RestartPreventExitStatus=2 127' "$unit" &&
	grep -qx 'RuntimeDirectory=netslice/%i' "$unit" &&
	grep -qx 'DeviceAllow=char-netslice rw' "$unit" && grep -qx 'DevicePolicy=closed' "$unit" &&
	grep -qx 'CapabilityBoundingSet=CAP_NET_ADMIN CAP_IPC_LOCK' "$unit" &&
	! grep -q '^LimitMEMLOCK=' "$unit"
result "the unit: Type=notify, SIGHUP on reload, the NF its configuration names, retries but 2 and 127, a runtime directory, only netslice's nodes, CAP_NET_ADMIN and CAP_IPC_LOCK (rings), no memlock limit" $?

score=$(systemd-analyze security --offline=true "$units/netslice-nf@fwd.service" 2>&1 |
	sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
echo "# systemd-analyze security: exposure $score"
[ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s < 4.0) }'
result "systemd-analyze security rates the unit's exposure below 4 (systemd's OK)" $?

# Each example is one its NF takes, through the unit's command line: run
# offline over an empty capture, so that what fails is the configuration,
# not the missing module.
empty=$stage/empty.pcap
printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x01\x00\x00\x00' >"$empty"
unit_run() { "$top/tests/unit_exec.sh" "$unit" "$@" 2>&1; }
offline=("NF_OPTIONS+=--pcap-in $empty")
ok=0
for inst in fwd firewall monitor; do
	out=$(unit_run "$inst" "${offline[@]}") && grep -q "^nf-$inst: offline run done" <<<"$out" ||
		{ echo "# netslice-nf@$inst: $out"; ok=1; }
done
out=$(unit_run ipsec "${offline[@]}")
[ $? -eq 2 ] && grep -q "ipsec-gateway.conf:[0-9]*:1: sa-out: the key is not" <<<"$out" ||
	{ echo "# netslice-nf@ipsec: $out"; ok=1; }
result "the unit's command line runs the examples of nf-fwd, nf-firewall and nf-monitor; nf-ipsec's placeholder keys are refused (exit 2)" $ok

echo 'NF=nosuch' >"$conf/nf-typo.conf"
out=$(unit_run wan "${offline[@]}") && grep -q "^nf-firewall: offline run done" <<<"$out" &&
	grep -q "rules from $conf/firewall.rules" <<<"$out" || echo "# netslice-nf@wan: $out"
wan=$?
out=$(unit_run typo)
typo=$?
echo "# netslice-nf@typo: exit $typo: $out"
[ "$wan" -eq 0 ] && [ "$typo" -eq 127 ] && grep -q 'nf-nosuch' <<<"$out"
result "instances named by their configuration: netslice-nf@wan (NF=firewall) runs nf-firewall with its options; NF=nosuch exits 127, not retried" $?

# Which exits the unit retries: the NF's status under systemd's eyes.
notify() { python3 "$top/tests/guest/notify_check.py" --until-exit "$top/tests/unit_exec.sh" "$unit" "$@" 2>&1; }
if [ -e /sys/module/netslice ]; then
	skip "without the module: exit 69 and STATUS=, retried; a bad option exit 2, not retried" \
		"the netslice module is loaded here"
else
	out=$(notify fwd)
	sed 's/^/# fwd: /' <<<"$out"
	bad=$(notify fwd NF_OPTIONS+=--frobnicate)
	sed 's/^/# fwd --frobnicate: /' <<<"$bad"
	grep -qx 'message STATUS=the netslice module is not loaded (modprobe netslice ifaces=IF:PEER)|ERRNO=2' <<<"$out" &&
		grep -qx 'exit 69' <<<"$out" && ! grep -q 'READY=1' <<<"$out" &&
		grep -qx 'exit 2' <<<"$bad" && ! grep -q 'READY=1' <<<"$bad" &&
		! grep -qE '^RestartPreventExitStatus=.*\b(1|69)\b' "$unit"
	result "without the module: exit 69 and STATUS= says why, no READY=1, retried; a bad option exit 2, not retried" $?
fi

[ "$(stat -c %a "$conf/ipsec-gateway.conf")" = 600 ] && [ "$(stat -c %a "$conf/nf-fwd.conf")" = 644 ]
result "the gateway's key file is installed 0600, the others 0644" $?

rm -f "$conf/nf-wan.conf" "$conf/nf-typo.conf"
echo "default accept" >"$conf/firewall.rules"
# Every directory uninstall would touch is the stage's: DESTDIR=/ here.
staged=(DESTDIR=/ PREFIX="$prefix" KVER=netslice-test-none UDEVDIR="$stage/udev"
	MODPROBEDIR="$stage/modprobe.d" SYSUSERSDIR="$stage/sysusers.d" DKMS_SRCDIR="$stage/src")
stray=$(make -n -s -C "$top" uninstall "${staged[@]}" | tr ' \t;' '\n\n\n' | grep '^/' |
	sed 's|^//*|/|' | grep -v -e "^$stage" -e '^/dev/null$' -e '^/lib/modules/netslice-test-none/' || true)
[ -z "$stray" ] || echo "# uninstall would touch the host: ${stray//$'\n'/ }"
[ -z "$stray" ] && make -s -C "$top" install-units DESTDIR=/ PREFIX="$prefix" >/dev/null &&
	[ "$(cat "$conf/firewall.rules")" = "default accept" ] &&
	make -s -C "$top" uninstall "${staged[@]}" >/dev/null 2>&1
[ $? -eq 0 ] && [ "$(cat "$conf/firewall.rules" 2>/dev/null)" = "default accept" ] &&
	[ -z "$(find "$conf" -type f ! -name firewall.rules)" ] && [ ! -e "$unit" ]
result "a changed configuration file survives reinstall and uninstall; the rest is removed; uninstall touches nothing outside the stage" $?

ktap_done
