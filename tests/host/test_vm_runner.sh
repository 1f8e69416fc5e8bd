#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest runner passes COMMAND's exit status through, and fails a run
# whose guest kernel log shows a warning even when COMMAND succeeded, or
# whose guest crashed, and says why. An emulator that dies before the
# command starts is retried (a fake QEMU that aborts as QEMU 10.0.2 once
# did, then runs the real one), and one that always does fails the run
# with its own words.
top=$(cd "$(dirname "$0")/../.." && pwd)
kernel=${1:-6.1}
passed=0 failed=0
echo "KTAP version 1"
echo "# suite: vm_runner ($kernel)"
echo "1..5"

result() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok $1"
	else
		failed=$((failed + 1)); echo "not ok $1"
	fi
}

rc=0
"$top/tests/vm/run" --kernel "$kernel" -- sh -c 'exit 3' >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 3 ]
result "1 the command's exit status (3) comes back (got $rc)" $?

log=$(mktemp)
fake=$(mktemp -d)
trap 'rm -rf "$log" "$fake"' EXIT
rc=0
"$top/tests/vm/run" --kernel "$kernel" -- \
	sh -c 'echo "WARNING: CPU: 0 PID: 1 at netslice-selftest fake warning" >/dev/kmsg; exit 0' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q '^run: the first report: .*netslice-selftest fake warning' "$log"
result "2 a WARNING: in the guest kernel log fails a successful command, and the runner names it (got $rc)" $?
[ "$rc" -eq 1 ] || cat "$log"

rc=0
"$top/tests/vm/run" --kernel "$kernel" -- sh -c 'echo c >/proc/sysrq-trigger; sleep 60' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -eq 1 ] && grep -q "the console's first report: .*Kernel panic" "$log"
result "3 a guest kernel crash fails the run, and the runner shows the panic (got $rc)" $?
[ "$rc" -eq 1 ] || cat "$log"

# fake_qemu N: qemu-system-x86_64 first in PATH, aborting its first N
# boots (a version query passes through), then the real one.
real_qemu=$(command -v qemu-system-x86_64)
fake_qemu() {
	rm -f "$fake/boots"
	cat >"$fake/qemu-system-x86_64" <<EOF
#!/usr/bin/env bash
case " \$* " in *" -kernel "*) ;; *) exec "$real_qemu" "\$@" ;; esac
echo x >>"$fake/boots"
if [ "\$(wc -l <"$fake/boots")" -le $1 ]; then
	echo "qemu-system-x86_64: ../system/physmem.c:2678: iotlb_to_section: Assertion 'section_index < d->map.sections_nb' failed." >&2
	kill -ABRT \$\$
fi
exec "$real_qemu" "\$@"
EOF
	chmod +x "$fake/qemu-system-x86_64"
}

fake_qemu 1
rc=0
PATH=$fake:$PATH NETSLICE_ACCEL=tcg "$top/tests/vm/run" --kernel "$kernel" -- sh -c 'exit 3' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -eq 3 ] && [ "$(wc -l <"$fake/boots")" -eq 2 ] &&
	grep -q '^run: the guest died before the command started: .*iotlb_to_section: Assertion' "$log" &&
	grep -q 'booting again, attempt 2 of 3' "$log"
result "4 an emulator that aborts while booting is booted again, saying so in its words; the status comes back (got $rc)" $?
[ "$rc" -eq 3 ] || cat "$log"

fake_qemu 99
rc=0
PATH=$fake:$PATH NETSLICE_ACCEL=tcg "$top/tests/vm/run" --kernel "$kernel" -- sh -c 'exit 0' \
	>"$log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$(wc -l <"$fake/boots")" -eq 3 ] &&
	grep -q '^run: the guest died before the command started, 3 times; the last: .*Assertion' "$log"
result "5 an emulator that aborts every time fails the run after 3 boots, naming it (got $rc)" $?
[ "$rc" -ne 0 ] || cat "$log"

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
