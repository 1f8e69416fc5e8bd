#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: the host tests (make check-host's), checkpatch, the KUnit suites
# on UML, then per kernel the module (W=1) and a guest, then the guest
# runner's own test. One summary line at the end.
#
#   tests/check.sh --host   only the host tests: no guest, no kernel tree,
#                           nothing installed, no network (make check-host)
#
# NETSLICE_HOST_PARTS, an extended regular expression, runs only the host
# tests whose part names match it (tests/host/test_host_deps.sh's choice);
# NETSLICE_LOG_DIR (default build/logs) is where each part's log goes.
# NETSLICE_KERNELS (default "6.1 6.12 7.2") names the kernels to test: for
# each, the KUnit suites on UML built from its source, the module built
# against it with W=1, and a guest booted on it.
# NETSLICE_KUNIT_KERNELS (default: the same) names those whose KUnit runs.
# NETSLICE_FULL_KERNELS (default "6.1 7.2") names those whose guest runs the
# whole suite; the others run its smoke subset (run_all.sh --smoke).
# NETSLICE_GUEST_SKIP names kernels whose guest part is left out (their
# module is still built with W=1): .ci/run leaves 6.12's smoke subset to
# its own two 6.12 guests, make demo's and the sanitizer tier's.
# NETSLICE_ONCE_TESTS (default below) names guest tests whose cases do not
# depend on the kernel: of the full kernels tested, only the last runs them.
# NETSLICE_ELSEWHERE_TESTS (default test_bench.sh) names guest tests
# another command runs first (make bench): make check runs them nowhere.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# The tests' own make runs choose their variables: a packager's
# `make check-host PREFIX=/usr` must not reach their staged installs.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
. tests/vm/kernels.sh
. tests/totals.sh

passed=0 failed=0 skipped=0
failures=() skips=()
log_dir=${NETSLICE_LOG_DIR:-$top/build/logs}
mkdir -p "$log_dir"

# The line carrying a part's totals. A guest suite's is run_all's own
# ("# guest VERSION: ..."), not the last of its tests': a suite whose guest
# died must not pass for the tests that finished.
part_summary="# .*$tst_totals_re"

# tally NAME LOG RC: add the part's totals to the make check's.
tally() {
	local name=$1 log=$2 rc=$3 p f s line
	line=$(grep -E "$part_summary" "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "check: $name printed no summary (exit $rc); see $log"
		failed=$((failed + 1))
		failures+=("$name: no summary line")
		return
	fi
	tst_totals_read "$line"
	p=$totals_p f=$totals_f s=$totals_s
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	printf 'check: %-28s %s passed, %s failed, %s skipped (%ss)\n' "$name" "$p" "$f" "$s" "$SECONDS_PART"
}

# part NAME COMMAND...: run one part, its output to a log and the terminal.
part() {
	local name=$1 log rc start
	shift
	# A host part NETSLICE_HOST_PARTS does not match is left out.
	[[ $name != host:* || $name =~ ${NETSLICE_HOST_PARTS:-.} ]] || return 0
	log=$log_dir/$(tr ' /' '__' <<<"$name").log
	start=$SECONDS
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	SECONDS_PART=$((SECONDS - start))
	tally "$name" "$log" "$rc"
	# Repeated at the end: CI shows only the tail of a long run.
	while IFS= read -r line; do
		failures+=("$name: $line")
	done < <(grep -E '^[[:space:]]*not ok ' "$log")
	while IFS= read -r line; do
		skips+=("$name: ${line#"${line%%[![:space:]]*}"}")
	done < <(grep -E '^[[:space:]]*ok .*# SKIP' "$log")
	# A part that is one KTAP program: its plan matches its results.
	if [ "$(grep -cE '^1\.\.[0-9]+$' "$log")" = 1 ] && ! line=$(tst_plan_check "$log"); then
		failed=$((failed + 1))
		failures+=("$name: ${line#\# }")
	fi
	[ "$rc" -eq 0 ] || failures+=("$name: exit status $rc")
	if [ "$rc" -ne 0 ] || ! grep -qE "$part_summary" "$log"; then
		# Why: the guest runner's verdict (a dead guest, a kernel
		# report) if it gave one, else the end of the log.
		while IFS= read -r line; do
			failures+=("  $line")
		done < <(grep -m 6 -E '^run: ' "$log" || tail -n 8 "$log")
	fi
}

host_only=0
[ "${1:-}" = --host ] && host_only=1

# summary: the failures again (CI shows only the tail of a long run), the
# totals line, and the exit status.
summary() {
	echo "check: total time ${SECONDS}s"
	for line in "${skips[@]}"; do
		echo "check: SKIPPED $line"
	done
	for line in "${failures[@]}"; do
		case $line in
		"  "*) echo "check:   $line" ;;
		*) echo "check: FAILED $line" ;;
		esac
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

# The host tests: built from user space alone (make check-host). Each
# optional dependency (docs/testing.md) missing is a skip with its reason.
# A python3 with PyYAML if there is one: without, spec_check.py skips.
spec_py=$(scripts/pyyaml.sh 2>/dev/null) || spec_py=python3
part "host: libnetslice cpulist" build/tests/test_cpulist
part "host: libnetslice cut" build/tests/test_cut
part "host: libnetslice packets" build/tests/test_pkt
part "host: libnetslice ns_run ready" build/tests/test_run
part "host: NFs offline (pcapng)" /usr/bin/python3 tests/host/test_nf.py
part "host: NFs offline, ASan+UBSan" tests/host/test_nf_san.sh
part "host: command lines, no module" tests/host/test_cli.sh
part "host: netslicectl, a made-up module" tests/host/test_ctl_fake.sh
part "host: uapi names before 0.6" tests/host/test_old_names.sh
part "host: libnetslice ABI of 0.7, opaque" tests/host/test_abi.sh
part "host: library install + example" tests/host/test_install_lib.sh
part "host: systemd units, NF configs" tests/host/test_units.sh
part "host: licences, debian/copyright" tests/host/test_licenses.py
# Debian's python3, which has matplotlib (scripts/deps.sh).
part "host: bench report" /usr/bin/python3 tests/host/test_bench_report.py
part "host: bench instruction counts" /usr/bin/python3 tests/host/test_bench_insns.py
part "host: import graphs (kmod, tools/ctl, tools/nf)" python3 tests/host/test_import_graph.py
part "host: one word per idea" python3 tests/host/test_words.py
# The new commits' messages (from scripts/commits-baseline; skipped where
# that commit is not in the clone), and the checker's own test.
part "host: commit messages" python3 scripts/check-commits.py
part "host: commit message check" python3 tests/host/test_commits.py
part "host: netlink spec vs uapi" "$spec_py" tests/spec_check.py header
part "host: syzkaller descriptions" python3 tests/host/test_syzkaller.py
part "host: kernel lookup" tests/host/test_kernels.sh
part "host: test harness (KTAP)" tests/host/test_ktap.sh
part "host: optional dependencies missing" tests/host/test_host_deps.sh
if [ "$host_only" = 1 ]; then
	summary
	exit
fi

if scripts/lint.sh; then
	passed=$((passed + 1))
else
	echo "check: checkpatch --strict found problems"
	failed=$((failed + 1))
	failures+=("checkpatch --strict found problems")
fi
# The netlink header and policies are what uapi/netslice.yaml generates
# (the kernel's ynl_gen_c.py, from the 7.2 tree scripts/deps.sh fetched).
if scripts/ynl-gen.sh --check; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	failures+=("generated netlink files are stale (scripts/ynl-gen.sh)")
fi
# Installs the module built for 6.1: needs that kernel's tree.
part "host: install, uninstall, DKMS" tests/host/test_install.sh
# The Debian packages (make deb), for test_deb.sh in the guest, built as a
# packager builds them: check-host again, under Debian's hardening flags
# (_FORTIFY_SOURCE found a test's open() that missed __open_2), then lintian.
part "host: Debian packages, lintian" tests/host/test_deb.sh
# Taps in a namespace of its own: root, as the guests' multi-queue NICs.
part "host: bench's host generator" tests/host/test_hostgen.sh
kernels=${NETSLICE_KERNELS:-6.1 6.12 7.2}
full_kernels=" ${NETSLICE_FULL_KERNELS:-6.1 7.2} "
# Guest tests whose cases reach no kernel interface that changes across the
# range: the demo (make demo runs its guest half on 6.12 too), the
# NFs' protocols (user space, over the read/write, cut and GSO paths that
# test_forward, test_cut and test_gso take everywhere), permissions,
# the rule tables, the install and the unit, the fault loops, and the
# fuzzer (which the sanitizer tier runs on 6.12 too). docs/testing.md has
# the table.
once_tests="test_demo.sh test_rfc.sh test_nfs.sh test_perms.sh test_rules.sh
	test_install.sh test_unit.sh test_faults.sh test_fuzz.sh"
# Guest tests another command runs as its first step, so make check does
# not (NETSLICE_ELSEWHERE_TESTS): make bench checks that its contenders
# forward every frame once and intact before it times them (test_bench).
elsewhere_tests=${NETSLICE_ELSEWHERE_TESTS-test_bench.sh}
# The kernel that runs NETSLICE_ONCE_TESTS: the last full one tested (not
# one NETSLICE_GUEST_SKIP leaves out: its guest runs nothing).
once_kernel=
for k in $kernels; do
	case " ${NETSLICE_GUEST_SKIP:-} " in *" $k "*) continue ;; esac
	case $full_kernels in *" $k "*) once_kernel=$k ;; esac
done
for k in ${NETSLICE_KUNIT_KERNELS:-$kernels}; do
	part "kunit: UML $k" scripts/kunit.sh "$k"
done

for k in $kernels; do
	if ! ko=$(scripts/kbuild.sh "$k"); then
		echo "check: module build against $k failed"
		failed=$((failed + 1))
		failures+=("module build against $k")
		continue
	fi
	kver=$(tst_kernel_version "$k")
	echo "check: module for $kver built with W=1, no warnings"
	passed=$((passed + 1))
	case " ${NETSLICE_GUEST_SKIP:-} " in *" $k "*)
		echo "check: guest part for $kver left out (NETSLICE_GUEST_SKIP)"
		skipped=$((skipped + 1))
		skips+=("guest: $k: left out by NETSLICE_GUEST_SKIP")
		continue ;;
	esac
	suite=() what=guest
	for t in $elsewhere_tests; do
		suite+=(--skip "$t")
	done
	case $full_kernels in
	*" $k "*)
		if [ "$k" != "$once_kernel" ]; then
			for t in ${NETSLICE_ONCE_TESTS-$once_tests}; do
				suite+=(--skip "$t")
			done
		fi
		;;
	*) suite+=(--smoke) what="guest smoke" ;;
	esac
	# A whole guest suite takes 9-10 min under TCG (2026-11-26); the
	# runner's default limit (30 min) left too little room for a slow host.
	# NETSLICE_VM_NICS: virtio-net ports on QEMU hubs for test_nic.sh.
	# Slab poisoning of the cache rule history nodes come from: a node
	# used after its free faults (test_fuzz's rule storm), as under KASAN.
	NETSLICE_KO=$ko NETSLICE_VM_TIMEOUT=${NETSLICE_VM_TIMEOUT:-3000} NETSLICE_VM_NICS=1 \
		NETSLICE_VM_KERNEL_ARGS="slub_debug=FZP,kmalloc-cg-64 ${NETSLICE_VM_KERNEL_ARGS:-}" \
		part_summary="^# guest .*: $tst_totals_re" \
		part "$what: $k" tests/vm/run --kernel "$kver" -- tests/guest/run_all.sh "${suite[@]}"
done

part "host: guest runner" tests/host/test_vm_runner.sh "${kernels%% *}"
summary
