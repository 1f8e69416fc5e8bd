#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest runner passes COMMAND's exit status through, and fails a run
# whose guest kernel log shows a warning whatever COMMAND returned (and
# says what it returned), or whose guest crashed, and says why (two real
# boots). An emulator that dies before the command starts is retried (a
# fake QEMU that aborts as QEMU 10.0.2 once did, then runs a fake guest),
# and one that always does fails the run with its own words; one that
# hangs while booting is stopped and retried.
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-6.1}
passed=0 failed=0
echo "KTAP version 1"
echo "# suite: vm_runner ($kernel)"
echo "1..7"

result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok $1"
	else
		failed=$((failed + 1)); echo "not ok $1"
	fi
}

log=$(mktemp)
fake=$(mktemp -d)
trap 'rm -rf "$log" "$fake"' EXIT
# One real boot for both: the command (a hang panics the boot, never the
# command: the panic is on in the boot line and off once it runs) writes
# a warning and exits 3, which the runner reads back and reports. Two
# real boots in all (this and case 2's crash); the retries below boot a
# fake guest.
# A NETSLICE_* variable longer than the kernel's command line (2,048
# bytes) reaches the command whole (the runner passes them in a file).
rc=0
NETSLICE_SELFTEST_LONG=$(printf 'x%.0s' $(seq 3000)) "$top/tests/vm/run" --kernel "$kernel" -- sh -c \
	'[ ${#NETSLICE_SELFTEST_LONG} -eq 3000 ] || exit 5; '\
'grep -q hung_task_panic=1 /proc/cmdline && [ "$(cat /proc/sys/kernel/hung_task_panic)" = 0 ] || exit 4; '\
'echo "WARNING: CPU: 0 PID: 1 at netslice-selftest fake warning" >/dev/kmsg; exit 3' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q '^run: the first report: .*netslice-selftest fake warning' "$log" &&
	grep -qx 'run: the command itself exited 3' "$log"
result "1 a WARNING: in the guest kernel log fails the run, named, the command's own status (3) said; a hang panics the boot, not the command; a 3,000-byte NETSLICE_ variable arrives (got $rc)" $?
[ "$rc" -eq 1 ] || cat "$log"

rc=0
"$top/tests/vm/run" --kernel "$kernel" -- sh -c 'echo c >/proc/sysrq-trigger; sleep 60' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "the console's first report: .*Kernel panic" "$log"
result "2 a guest kernel crash fails the run, and the runner shows the panic (got $rc)" $?
[ "$rc" -eq 1 ] || cat "$log"

# fake_qemu N [hang|blocked|timer]: qemu-system-x86_64 first in PATH,
# aborting its first N boots (a version query passes through); with
# "hang", hanging in them ("blocked": after the kernel's report of a
# blocked task; "timer": after RCU's report of a lost timer, twice, each after a
# stack); then a guest that ran the command at once and it returned 3
# (its marker, status and kernel log in the runner's directory, as a
# real guest leaves them), which no real boot does within a 5 s limit.
real_qemu=$(command -v qemu-system-x86_64)
fake_qemu() {
	local fault='echo "qemu-system-x86_64: ../system/physmem.c:2678: iotlb_to_section: Assertion '"'"'section_index < d->map.sections_nb'"'"' failed." >&2; kill -ABRT $$'
	local then='out=${TMPDIR:-/tmp}/$(echo "$*" | grep -o "netslice-vm\.[A-Za-z0-9]*" | head -n 1)
echo "netslice-vm: the command starts" >"$out/dmesg"; : >"$out/started"; echo 3 >"$out/rc"'
	case ${2:-} in hang | blocked | timer)
		fault='echo "qemu-system-x86_64: warning: hub 0 is not connected to host network" >&2; while :; do sleep 1; done'
		case $2 in
		blocked) fault='echo "[  252.727520] INFO: task swapper/0:1 blocked for more than 122 seconds." >&2; '$fault ;;
		timer) fault='for t in 299.368796 320.381961; do echo "[  $t] Call Trace:" >&2; echo "[  $t] rcu: rcu_preempt kthread timer wakeup didn'"'"'t happen for 5251 jiffies! g-1111 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x402" >&2; done; '$fault ;;
		esac
	esac
	rm -f "$fake/boots"
	cat >"$fake/qemu-system-x86_64" <<EOF
#!/usr/bin/env bash
case " \$* " in *" -kernel "*) ;; *) exec "$real_qemu" "\$@" ;; esac
echo x >>"$fake/boots"
if [ "\$(wc -l <"$fake/boots")" -le $1 ]; then
	$fault
fi
$then
EOF
	chmod +x "$fake/qemu-system-x86_64"
}

# faked_run [VAR=VALUE...]: tests/vm/run, the fake QEMU first in PATH,
# a command that exits 3; its status in rc, its output in $log.
faked_run() {
	rc=0
	env PATH="$fake:$PATH" NETSLICE_ACCEL=tcg "$@" "$top/tests/vm/run" --kernel "$kernel" -- sh -c 'exit 3' \
		>"$log" 2>&1 || rc=$?
}

# retried_once WHY: the command's 3 came back after a second boot, the
# first said to have died for WHY (a regex).
retried_once() {
	[ "$rc" -eq 3 ] && [ "$(wc -l <"$fake/boots")" -eq 2 ] &&
		grep -q "^run: the guest died before the command started: $1" "$log"
}

fake_qemu 1
faked_run
retried_once '.*iotlb_to_section: Assertion' && grep -q 'booting again, attempt 2 of 3' "$log"
result "3 an emulator that aborts while booting is booted again, saying so in its words; the status comes back (got $rc)" $?
[ "$rc" -eq 3 ] || cat "$log"

fake_qemu 99
faked_run
[ "$rc" -ne 0 ] && [ "$(wc -l <"$fake/boots")" -eq 3 ] &&
	grep -q '^run: the guest died before the command started, 3 times; the last: .*Assertion' "$log"
result "4 an emulator that aborts every time fails the run after 3 boots, naming it (got $rc)" $?
[ "$rc" -ne 0 ] || cat "$log"

# A boot that hangs (PID 1 blocked, a stalled emulator) is stopped at
# the boot limit and booted again; QEMU's warning is not given as why.
fake_qemu 1 hang
faked_run NETSLICE_VM_BOOT_TIMEOUT=5
retried_once 'the guest did not reach the command in 5s'
result "5 a boot that hangs is stopped at NETSLICE_VM_BOOT_TIMEOUT and booted again; the status comes back (got $rc)" $?
[ "$rc" -eq 3 ] || cat "$log"

# stopped_at_once FAULT WHY N TEXT: a boot whose kernel reports FAULT
# (fake_qemu's) is stopped long before the boot limit and booted again,
# the report (WHY, a regex) given as why: case N.
stopped_at_once() {
	fake_qemu 1 "$1"
	start=$SECONDS
	faked_run NETSLICE_VM_BOOT_TIMEOUT=600
	retried_once "$2" && [ $((SECONDS - start)) -lt 300 ]
	result "$3 $4 (got $rc, $((SECONDS - start)) s)" $?
	[ "$rc" -eq 3 ] || cat "$log"
}
stopped_at_once blocked '.*INFO: task swapper/0:1 blocked' 6 \
	"a boot with a task blocked is stopped at once and booted again, the kernel's report given"
# So is one whose kernel reports a timer the emulator lost, twice; the
# report given as why, not the stack before it.
stopped_at_once timer '.*rcu_preempt kthread timer wakeup didn.t happen' 7 \
	"a boot whose timer was lost (RCU's report) is stopped at once and booted again, the report given"

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
