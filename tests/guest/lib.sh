# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the guest tests, after kselftest's net/lib.sh: KTAP results,
# one EXIT trap running cleanups registered as resources are made,
# uniquely named network namespaces, and waits on conditions instead of
# fixed sleeps.
#
# A test sources this file, calls tst_plan N, runs its cases with
# tst_check (or reports one with tst_result or tst_skip), and ends with
# tst_done.
#
# How a case is counted, once, in "N passed, N failed, N skipped":
#  - failed: its body returned a status other than 0 and $ksft_skip; or
#    it skipped without saying why (a skip needs a reason); or it printed
#    no result (tst_done fails a plan the results do not match);
#  - skipped, as "ok N NAME # SKIP WHY": it did not fail, and it skipped
#    anything: its body returned $ksft_skip, set tst_skip_why, called
#    tst_skip, or ran a KTAP program (through tst_indent) that printed a
#    "# SKIP" result; WHY is what they said;
#  - passed: otherwise, i.e. it returned 0 and skipped nothing. A skipped
#    case is never a pass.
# A cleanup that fails (tst_unload's rmmod) counts as one more failure.

TST_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TST_KO=${NETSLICE_KO:-$TST_TOP/kmod/netslice.ko}
TST_BIN=$TST_TOP/build/bin
TST_TBIN=$TST_TOP/build/tests
TST_BBIN=$TST_TOP/build/bench
export PATH=$TST_BIN:$TST_TBIN:$TST_BBIN:$PATH

ksft_skip=4
tst_passed=0
tst_failed=0
tst_skipped=0
tst_count=0
tst_cleanups=()

tst_planned=
tst_plan() {
	tst_planned=$1
	echo "KTAP version 1"
	echo "# suite: $(basename "$0" .sh)"
	echo "1..$1"
}

# A case that returns $ksft_skip sets tst_skip_why first: a skip says why.
tst_skip_why=
# In a case's body: the file tst_skip and tst_indent note its skips in.
tst_case_skips=

# tst_result NAME STATUS: STATUS 0 is a pass, $ksft_skip a skip (which
# fails if tst_skip_why does not say why), anything else a failure.
tst_result() {
	local why=$tst_skip_why
	tst_skip_why=
	tst_count=$((tst_count + 1))
	if [ "$2" -eq "$ksft_skip" ] && [ -n "$why" ]; then
		tst_skipped=$((tst_skipped + 1))
		echo "ok $tst_count $1 # SKIP $why"
	elif [ "$2" -eq "$ksft_skip" ]; then
		tst_failed=$((tst_failed + 1))
		echo "not ok $tst_count $1 # a skip needs a reason: status $ksft_skip (ksft_skip) with no tst_skip_why"
	elif [ "$2" -eq 0 ]; then
		tst_passed=$((tst_passed + 1))
		echo "ok $tst_count $1"
	else
		tst_failed=$((tst_failed + 1))
		echo "not ok $tst_count $1"
	fi
}

# tst_check NAME COMMAND...: runs COMMAND, records its status as the result
# (a skip inside it makes the case a skip, see the top of this file);
# a case that took 10 s or more says how long after its result line. A
# tier may leave cases out: NETSLICE_SKIP_CASES, an extended regex, skips
# (and says so) every case whose name it matches; NETSLICE_ONLY_CASES
# every case whose name it does not.
tst_check() {
	local name=$1 rc=0 start=$SECONDS nested
	shift
	tst_skip_why=
	if [ -n "${NETSLICE_SKIP_CASES:-}" ] && [[ $name =~ $NETSLICE_SKIP_CASES ]]; then
		tst_skip_why="left out of this tier (NETSLICE_SKIP_CASES)"
	elif [ -n "${NETSLICE_ONLY_CASES:-}" ] && ! [[ $name =~ $NETSLICE_ONLY_CASES ]]; then
		tst_skip_why="left out of this tier (not in NETSLICE_ONLY_CASES)"
	fi
	if [ -n "$tst_skip_why" ]; then
		tst_result "$name" "$ksft_skip"
		return 0
	fi
	tst_case_skips=$(mktemp)
	"$@" || rc=$?
	if [ "$rc" -eq 0 ] || [ "$rc" -eq "$ksft_skip" ]; then
		# tst_skip's own lines ("skip NAME: WHY"), then nested results'.
		nested=$(sed -n 's/^skip //p' "$tst_case_skips" | paste -sd ';' | sed 's/;/; /g')
		[ -z "$nested" ] || tst_skip_why="${tst_skip_why:+$tst_skip_why; }$nested"
		nested=$(grep -E '^[[:space:]]*ok [0-9]+' "$tst_case_skips" |
			sed -E 's/^[[:space:]]*ok [0-9]+ ?//; s/ *# SKIP */: /' |
			awk 'NR == 1 {s = $0} END {if (NR > 1) s = s " (and " NR - 1 " more)"; print s}')
		[ -z "$nested" ] || tst_skip_why="${tst_skip_why:+$tst_skip_why; }nested: $nested"
		[ -z "$tst_skip_why" ] || rc=$ksft_skip
		! grep -q '^unexplained ' "$tst_case_skips" || tst_skip_why= rc=$ksft_skip
	fi
	rm -f "$tst_case_skips"
	tst_case_skips=
	tst_result "$name" "$rc"
	# Where a suite's minutes go, for planning tiers (docs/testing.md).
	[ $((SECONDS - start)) -lt 10 ] || tst_diag "took $((SECONDS - start)) s"
	return 0
}

tst_diag() { echo "# $*"; }

# tst_indent: nest a KTAP program's output as a subtest. In a case, a
# result it skipped makes the case a skip.
tst_indent() {
	awk -v skips="$tst_case_skips" '{print "    " $0}
		skips != "" && /^[ \t]*ok [0-9]+.*# SKIP/ {print >> skips}'
}

# tst_skip NAME REASON: KTAP's "ok N NAME # SKIP REASON", neither pass nor
# fail. In a case's body it prints nothing: the case is a skip, REASON
# (about NAME) among its reasons. An empty REASON fails.
tst_skip() {
	if [ -n "$tst_case_skips" ]; then
		# In a file, not a variable: a subshell's skip counts too.
		if [ -n "$2" ]; then
			echo "skip $1: $2" >>"$tst_case_skips"
		else
			echo "unexplained $1" >>"$tst_case_skips"
		fi
	else
		tst_skip_why=$2
		tst_result "$1" "$ksft_skip"
	fi
}

# tst_done: the totals line; a plan that does not match the results run
# fails the test (a case skipped by mistake or run twice).
tst_done() {
	local e
	tst_run_cleanups
	for e in "${tst_cleanup_errors[@]}"; do
		tst_diag "cleanup: $e"
		tst_failed=$((tst_failed + 1))
	done
	if [ -n "$tst_planned" ] && [ "$tst_count" -ne "$tst_planned" ]; then
		tst_diag "planned $tst_planned results, printed $tst_count"
		tst_failed=$((tst_failed + 1))
	fi
	echo "# $tst_passed passed, $tst_failed failed, $tst_skipped skipped"
	[ "$tst_failed" -eq 0 ]
	exit $?
}

# tst_defer COMMAND...: run COMMAND at exit, last registered first.
tst_defer() {
	local cmd
	printf -v cmd '%q ' "$@"
	tst_cleanups+=("$cmd")
}

tst_run_cleanups() {
	local i
	for ((i = ${#tst_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${tst_cleanups[i]}" >/dev/null 2>&1 || true
	done
	tst_cleanups=()
}
trap tst_run_cleanups EXIT

# tst_scaled MS: MS times NETSLICE_TIMEOUT_SCALE, which multiplies every
# timeout (the sanitizer kernel runs the same work several times slower).
tst_scaled() { echo $(($1 * ${NETSLICE_TIMEOUT_SCALE:-1})); }

# Waits are for things that must happen. Their deadlines only bound a run
# that fails, and a loaded host slows an emulated guest many times over,
# so no deadline is shorter than TST_WAIT_MIN_MS (scaled): a slow machine
# passes, a failing run just takes longer to say so.
TST_WAIT_MIN_MS=${NETSLICE_WAIT_MIN_MS:-30000}

# tst_wait_job PID LOG TIMEOUT_MS COMMAND...: poll COMMAND until it succeeds.
# PID, if not empty, is the background job COMMAND waits on: if it ends
# first, the wait fails at once and shows LOG, its output. A wait that
# fails says what it waited for.
tst_wait_job() {
	local pid=$1 log=$2 timeout_ms start
	timeout_ms=$(tst_scaled $(($3 > TST_WAIT_MIN_MS ? $3 : TST_WAIT_MIN_MS)))
	shift 3
	start=$(date +%s%3N)
	until "$@"; do
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			"$@" && return 0
			tst_diag "waited for: $*; the process it waits on (pid $pid) ended first"
			[ -z "$log" ] || tst_show_log "$log"
			return 1
		fi
		if [ $(($(date +%s%3N) - start)) -ge "$timeout_ms" ]; then
			tst_diag "gave up after $((timeout_ms / 1000)) s waiting for: $*"
			return 1
		fi
		sleep 0.05
	done
}

# tst_show_log FILE: a program's output as diagnostics; of a long one, the
# first lines (where errors usually are) and the last.
tst_show_log() {
	if [ "$(wc -l <"$1")" -le 24 ]; then
		sed 's/^/# | /' "$1"
	else
		{ head -n 6 "$1"; echo "[...]"; tail -n 12 "$1"; } | sed 's/^/# | /'
	fi
}

# tst_busywait TIMEOUT_MS COMMAND...: poll COMMAND until it succeeds.
tst_busywait() { tst_wait_job "" "" "$@"; }

# tst_at_least MIN COMMAND...: COMMAND prints a number >= MIN. For
# tst_busywait, which runs it again each time (a "$(...)" argument would
# be expanded once, before the wait).
tst_at_least() {
	local min=$1
	shift
	[ "$("$@")" -ge "$min" ]
}

# tst_poll TIMEOUT_MS COMMAND...: poll COMMAND for TIMEOUT_MS exactly, quietly;
# for a probe that a retry loop expects to fail now and then.
tst_poll() {
	local timeout_ms=$1 start
	shift
	start=$(date +%s%3N)
	until "$@"; do
		[ $(($(date +%s%3N) - start)) -ge "$timeout_ms" ] && return 1
		sleep 0.05
	done
}

# tst_netns_create VAR...: make a uniquely named netns per VAR, set VAR to
# its name, and register its deletion.
tst_netns_create() {
	local var name
	for var in "$@"; do
		name=$var-$(mktemp -u XXXXXX)
		ip netns add "$name" || return 1
		tst_defer ip netns del "$name"
		ip -n "$name" link set lo up
		printf -v "$var" '%s' "$name"
	done
}

tst_module_loaded() { [ -d /sys/module/netslice ]; }

# tst_load [PARAM=VALUE...]: load the module under test, unload at exit.
tst_load() {
	insmod "$TST_KO" "$@" || return 1
	tst_defer tst_unload
}

# tst_lean_modules: /lib/modules/VERSION as a tmpfs holding the kernel's
# built-in lists and its build tree's link, until cleanup. An install runs
# depmod -a, which over Debian's 4,000-odd modules takes 2-5 minutes under
# emulation (290 s measured on 6.12 with the host busy) and shows nothing
# more: netslice needs no other module.
tst_lean_modules() {
	local kver dir keep build
	kver=$(uname -r)
	dir=/lib/modules/$kver
	# A fetched kernel's link is relative to the cache's tree: resolved here.
	build=$(readlink -e "$dir/build" 2>/dev/null ||
		{ . "$TST_TOP/tests/vm/kernels.sh" && tst_kernel_build_dir "$kver"; } 2>/dev/null || true)
	keep=$(mktemp -d)
	cp -a "$dir"/modules.builtin* "$dir"/modules.order "$keep"/ &&
		mount -t tmpfs netslice-test-modules "$dir" || return 1
	# Lazily: udevd keeps the lean tree's index files mapped, and a tree
	# left mounted would hide every module from the tests after this one.
	tst_defer umount -l "$dir"
	cp -a "$keep"/. "$dir"/ && rm -rf "$keep" || return 1
	[ -z "$build" ] || ln -s "$build" "$dir/build"
}

# tst_unload: rmmod, retried while something still lets go of the module
# (an NF's files close as it exits). One that stays loaded is a failure of
# the test that loaded it (tst_done counts it), not of whichever test next
# tries insmod.
tst_cleanup_errors=()
tst_unload() {
	tst_module_loaded || return 0
	rmmod netslice 2>/dev/null && return 0
	tst_busywait 5000 eval 'rmmod netslice 2>/dev/null || ! tst_module_loaded' >/dev/null && return 0
	tst_cleanup_errors+=("rmmod netslice failed: $(rmmod netslice 2>&1)")
	return 1
}

tst_nodes() { find /dev -maxdepth 1 -name 'netslice-*' | wc -l; }

tst_no_nodes() { [ "$(tst_nodes)" -eq 0 ] && [ ! -e /sys/class/netslice ]; }

# tst_dmesg_mark / tst_dmesg_since: kernel log lines printed after the mark.
tst_dmesg_mark() { tst_mark=$(dmesg | wc -l); }
tst_dmesg_since() { dmesg | tail -n +$((tst_mark + 1)); }

# tst_topology [QUEUES]: gen -- veth -- dut0 [DUT] dut1 -- veth -- sink, with
# QUEUES RX/TX queues per veth (default 1) and IPv6 off, so that only test
# traffic crosses. Sets $gen, $sink and $sink_mac.
tst_topology() {
	local q=${1:-1}
	tst_netns_create gen sink || return 1
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	ip netns exec "$gen" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$sink" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip link add dut0 numtxqueues "$q" numrxqueues "$q" type veth \
		peer name gen0 numtxqueues "$q" numrxqueues "$q" netns "$gen" || return 1
	tst_defer ip link del dut0
	ip link add dut1 numtxqueues "$q" numrxqueues "$q" type veth \
		peer name sink0 numtxqueues "$q" numrxqueues "$q" netns "$sink" || return 1
	tst_defer ip link del dut1
	ip link set dut0 up && ip link set dut1 up &&
		ip -n "$gen" link set gen0 up && ip -n "$sink" link set sink0 up || return 1
	sink_mac=$(ip -n "$sink" -br link show sink0 | awk '{print $3}')
	# Bursts of thousands of frames must not overflow the veth backlogs.
	tst_sysctl net.core.netdev_max_backlog 100000
}

# tst_link_stat NETNS DEV COUNTER: an interface's counter ("" for this
# namespace).
tst_link_stat() {
	${1:+ip netns exec "$1"} cat "/sys/class/net/$2/statistics/$3"
}

# tst_hops MIDDLE [GEN_IF IN OUT SINK_IF]: where frames went, hop by hop,
# through tst_topology's namespaces ($gen, the DUT's, $sink): what the
# generator sent, the DUT received and sent, the sink received, each with
# its drops. MIDDLE (text) goes between the DUT's in and out.
tst_hops() {
	local g=${2:-gen0} i=${3:-dut0} o=${4:-dut1} s=${5:-sink0}
	echo "$g sent $(tst_link_stat "$gen" "$g" tx_packets)" \
		"(dropped $(tst_link_stat "$gen" "$g" tx_dropped)), $i received" \
		"$(tst_link_stat "" "$i" rx_packets) (dropped $(tst_link_stat "" "$i" rx_dropped))$1," \
		"$o sent $(tst_link_stat "" "$o" tx_packets) (dropped $(tst_link_stat "" "$o" tx_dropped))," \
		"$s received $(tst_link_stat "$sink" "$s" rx_packets) (dropped $(tst_link_stat "$sink" "$s" rx_dropped))"
}

# tst_lost_before_port REACHED OUT: true when a short stream's loss is
# shown to be before the DUT's port, not the module's: the sink (OUT, the
# tst_traffic_between output of one try, maybe several streams) received
# exactly the REACHED frames the port's driver counted over the try, none
# duplicate or corrupt, and the slices sent every frame they queued and
# dropped none. Says so either way.
tst_lost_before_port() {
	local reached=$1 out=$2 got rx tx
	got=$(sed -nE 's/.*received unique ([0-9]+) of.*/\1/p' "$out" | awk '{ s += $1 } END { if (NR) print s }')
	rx=$(tst_stat_sum rx_packets) tx=$(tst_stat_sum tx_packets)
	tst_diag "the port received $reached, the slices queued $rx and sent $tx, the sink ${got:-nothing}"
	[ -n "$got" ] && [ "$reached" -eq "$got" ] &&
		! grep 'received unique' "$out" | grep -vq 'duplicates 0, corrupt 0,' &&
		[ "$rx" = "$tx" ] && tst_stat_is rx_drop_ring_full 0 && tst_stat_is rx_drop_error 0 || {
		tst_diag "frames were lost after the port: not retried"
		return 1
	}
	tst_diag "every frame lost was lost before the port"
}

# tst_nic SUFFIX: the interface whose MAC is 52:54:00:4e:53:SUFFIX (one of
# tests/vm/run's NICs), or nothing.
tst_nic() {
	local f
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "52:54:00:4e:53:$1" ] && basename "$(dirname "$f")" && return
	done
}

# tst_nic_topology G A B S: NICs of tests/vm/run wired G--A and B--S: G
# into the gen namespace and S into sink (back to the initial one at
# cleanup, for the next case), A and B here, all up, no IPv6 chatter
# (only the test's frames cross); sets sink_mac to S's MAC.
tst_nic_topology() {
	local g=$1 a=$2 b=$3 s=$4
	[ -n "$g" ] && [ -n "$a" ] && [ -n "$b" ] && [ -n "$s" ] ||
		{ tst_diag "NICs: G '$g' A '$a' B '$b' S '$s'"; return 1; }
	tst_netns_create gen sink || return 1
	tst_sysctl "net.ipv6.conf.$a.disable_ipv6" 1
	tst_sysctl "net.ipv6.conf.$b.disable_ipv6" 1
	ip netns exec "$gen" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip netns exec "$sink" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	sink_mac=$(cat "/sys/class/net/$s/address")
	ip link set "$g" netns "$gen" && ip link set "$s" netns "$sink" || return 1
	tst_defer ip -n "$gen" link set "$g" netns 1
	tst_defer ip -n "$sink" link set "$s" netns 1
	ip -n "$gen" link set "$g" up && ip -n "$sink" link set "$s" up &&
		ip link set "$a" up && ip link set "$b" up
}

# tst_kernel_at_least MAJOR.MINOR: the running kernel is that or newer.
tst_kernel_at_least() {
	local maj min want_maj=${1%%.*} want_min=${1#*.}
	IFS=. read -r maj min _ <<<"$(uname -r)"
	[ "$maj" -gt "$want_maj" ] || { [ "$maj" -eq "$want_maj" ] && [ "${min%%[!0-9]*}" -ge "$want_min" ]; }
}

# tst_sysctl KEY VALUE: set a sysctl, restore it at cleanup.
tst_sysctl() {
	tst_defer sysctl -qw "$1=$(sysctl -n "$1")"
	sysctl -qw "$1=$2"
}

# tst_start_bg READY COMMAND...: run COMMAND in the background until
# cleanup, and wait until its output says READY. Sets bg_pid and bg_out.
tst_start_bg() {
	local ready=$1
	shift
	bg_out=$(mktemp)
	"$@" >"$bg_out" 2>&1 &
	bg_pid=$!
	tst_defer tst_kill_job "$bg_pid"
	tst_wait_job "$bg_pid" "$bg_out" 0 grep -q "$ready" "$bg_out"
}

# tst_stop_bg PID OUT LABEL: SIGTERM, its exit status, its output as
# diagnostics (on stderr too if it failed, where a caller that hides the
# output still shows it).
tst_stop_bg() {
	kill -TERM "$1" && wait "$1"
	local rc=$?
	if [ "$rc" -eq 0 ]; then
		sed "s/^/# $3: /" "$2"
	else
		{ sed "s/^/# $3: /" "$2"; tst_diag "$3 exited with status $rc"; } | tee /dev/stderr
	fi
	return $rc
}

# tst_start_fwd [ARGS]: run nf-fwd (TST_FWD_BIN if set) in the background until cleanup.
tst_start_fwd() {
	tst_start_bg "running on" "${TST_FWD_BIN:-nf-fwd}" "$@"
	local rc=$?
	fwd_pid=$bg_pid
	fwd_out=$bg_out
	return $rc
}

# tst_kill_job PID: kill a background job of this shell if it is still one,
# and wait for it: its files are closed before the next cleanup runs (an
# NF in ring mode takes a moment to release its rings, and rmmod must not
# find them open). A job already reaped is left alone: its PID may belong
# to another process by now (the guest's console agent, once, ended a run
# that way).
tst_kill_job() {
	jobs -p | grep -qx "$1" || return 0
	kill "$1" && wait "$1"
	return 0
}

tst_stop_fwd() { tst_stop_bg "$fwd_pid" "$fwd_out" fwd; }

# tst_addrs: gen0 10.99.0.1/24, sink0 10.99.0.2/24. Needs tst_topology.
tst_addrs() {
	ip -n "$gen" addr add 10.99.0.1/24 dev gen0 &&
		ip -n "$sink" addr add 10.99.0.2/24 dev sink0
}

# tst_tcp_stream DST BYTES: a TCP stream of BYTES from gen to DST (a sink
# address) out of TST_TCP_IF (gen0), the sender's TSO on (64 KiB segments
# reach the DUT whole) unless TST_TCP_TSO=off; it must arrive intact.
tst_tcp_stream() {
	local dst=$1 bytes=$2 ready rpid limit_s rc=0 tso=${TST_TCP_TSO:-on}
	limit_s=$(($(tst_scaled 120000) / 1000))
	ip netns exec "$gen" ethtool -K "${TST_TCP_IF:-gen0}" tso "$tso" gso "$tso" tx on >/dev/null || return 1
	ready=$(mktemp -u)
	ip netns exec "$sink" timeout "$limit_s" nstraffic tcp-recv 5001 "$bytes" "$ready" >"$ready.out" 2>&1 &
	rpid=$!
	tst_defer tst_kill_job "$rpid"
	tst_wait_job "$rpid" "$ready.out" 0 test -e "$ready" || return 1
	if ! ip netns exec "$gen" timeout "$limit_s" nstraffic tcp-send "$dst" 5001 "$bytes"; then
		tst_diag "tcp-send to $dst failed"
		tst_kill_job "$rpid"
		rc=1
	fi
	wait "$rpid" || rc=1
	sed 's/^/# sink: /' "$ready.out"
	rm -f "$ready" "$ready.out"
	return $rc
}

# tst_tcp_transfer BYTES: tst_addrs, then BYTES gen -> sink through the DUT.
tst_tcp_transfer() {
	tst_addrs && tst_tcp_stream 10.99.0.2 "$1"
}

# tst_tcp_via_fwd [FWD_ARGS...]: 8 MiB over TCP through nf-fwd FWD_ARGS
# (module loaded on a fresh topology), intact; the forwarder exits cleanly.
tst_tcp_via_fwd() {
	tst_topology 1 || return 1
	tst_load ifaces=dut0:dut1 rxq_size=4096 || return 1
	tst_start_fwd "$@" || return 1
	tst_tcp_transfer $((8 * 1024 * 1024)) && tst_stop_fwd
}

# tst_stat_sum NAME: a counter summed over all slices.
tst_stat_sum() {
	netslice-info -s | grep -o " $1=[0-9]*" | cut -d= -f2 | awk '{s += $1} END {print s + 0}'
}

# tst_stat_is NAME VALUE: the counter summed over slices equals VALUE.
tst_stat_is() {
	local v
	v=$(tst_stat_sum "$1")
	[ "$v" -eq "$2" ] || { tst_diag "$1 = $v, want $2"; return 1; }
}

# tst_stats SLICE NAME...: one slice's counters NAME..., on one line,
# read through its node (no netlink: a container's NF can).
tst_stats() {
	local slice=$1
	shift
	netslice-info -s -j "$slice" | /usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)[0]["counters"]
print(*(c[n] for n in sys.argv[1:]))' "$@"
}

# tst_xdp_pass DEV: a native XDP program that passes everything on DEV (veth's
# XDP path then puts what it receives in page_pool pages, from 6.3 on),
# loaded with the bpf() system call (no compiler here) and pinned.
tst_xdp_pass() {
	local pin=/sys/fs/bpf/netslice_pass_$1
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || return 1
	/usr/bin/python3 - "$pin" <<'EOF' || return 1
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
NR_BPF, BPF_PROG_LOAD, BPF_OBJ_PIN, XDP = 321, 5, 6, 6
insns = ctypes.create_string_buffer(bytes([0xb7, 0, 0, 0, 2, 0, 0, 0,  # r0 = XDP_PASS
                                           0x95, 0, 0, 0, 0, 0, 0, 0]))  # exit
lic, path = ctypes.create_string_buffer(b"GPL"), ctypes.create_string_buffer(sys.argv[1].encode())
attr = ctypes.create_string_buffer(128)
struct.pack_into("=IIQQ", attr, 0, XDP, 2, ctypes.addressof(insns), ctypes.addressof(lic))
fd = libc.syscall(NR_BPF, BPF_PROG_LOAD, attr, 128)
if fd < 0:
    sys.exit("BPF_PROG_LOAD: errno %d" % ctypes.get_errno())
attr = ctypes.create_string_buffer(128)
struct.pack_into("=QI", attr, 0, ctypes.addressof(path), fd)
if libc.syscall(NR_BPF, BPF_OBJ_PIN, attr, 128):
    sys.exit("BPF_OBJ_PIN: errno %d" % ctypes.get_errno())
EOF
	tst_defer rm -f "$pin"
	ip link set dev "$1" xdp pinned "$pin" || return 1
	tst_defer ip link set dev "$1" xdp off
}

# tst_frames_accounted IFACE [quiet]: every frame IFACE received was queued
# on a slice, kept as a trimmed record or counted as a drop: exactly one. Says how many of each, unless "quiet"
# and they match (for tst_busywait).
tst_frames_accounted() {
	local got sum
	got=$(cat "/sys/class/net/$1/statistics/rx_packets")
	sum=$(($(tst_stat_sum rx_packets) + $(tst_stat_sum rx_trimmed) +
	       $(tst_stat_sum rx_drop_ring_full) + $(tst_stat_sum rx_drop_no_reader) +
	       $(tst_stat_sum rx_drop_error)))
	if [ "$got" -ne "$sum" ] || [ -z "${2:-}" ]; then
		tst_diag "$1 received $got, slices queued or dropped $sum"
	fi
	[ "$got" -eq "$sum" ]
}

# tst_veth_pairs A:B...: a veth pair A -- B for each, up, with IPv6 off
# (only test traffic crosses), deleted at cleanup.
tst_veth_pairs() {
	local a b
	tst_sysctl net.ipv6.conf.default.disable_ipv6 1
	for a in "$@"; do
		b=${a#*:} a=${a%:*}
		ip link add "$a" type veth peer name "$b" || return 1
		tst_defer ip link del "$a"
		ip link set "$a" up && ip link set "$b" up || return 1
	done
}

# tst_pair_check CHECKER: run the C checker on a veth pair nsa (attached,
# the module loaded with one slice on it) -- nsb (not attached); then
# every frame nsa received must be queued, trimmed or dropped, once.
tst_pair_check() {
	tst_veth_pairs nsa:nsb || return 1
	tst_load slices=1 ifaces=nsa || return 1
	"$1" nsa nsb | tst_indent || return 1
	tst_frames_accounted nsa
}

# tst_traffic_between SNS SIF RNS RIF DSTMAC COUNT FLOWS [RECV_ARGS...]: send
# COUNT frames out of SIF in netns SNS; all must arrive at RIF in netns RNS
# exactly once and byte-identical (or as RECV_ARGS say, see nstraffic).
# The receiver's idle limit starts once the sender is done (SIGUSR1):
# a slow start, however slow, is not taken for lost frames.
tst_traffic_between() {
	local sns=$1 sif=$2 rns=$3 rif=$4 mac=$5 count=$6 flows=$7 ready rpid rc=0
	shift 7
	ready=$(mktemp -u)
	ip netns exec "$rns" nstraffic recv -f "$flows" "$rif" "$count" \
		"$(tst_scaled 15000)" "$ready" "$@" \
		>"$ready.out" 2>&1 &
	rpid=$!
	tst_defer tst_kill_job "$rpid"
	tst_wait_job "$rpid" "$ready.out" 0 test -e "$ready" || return 1
	if ip netns exec "$sns" nstraffic send "$sif" "$mac" "$count" "$flows" >/dev/null; then
		# It may have counted every frame and exited already.
		kill -USR1 "$rpid" 2>/dev/null || true
	else
		tst_diag "nstraffic send $count frames out of $sif failed"
		tst_kill_job "$rpid"
		rc=1
	fi
	wait "$rpid" || rc=1
	sed "s/^/# sink $rif: /" "$ready.out"
	rm -f "$ready" "$ready.out"
	[ "$rc" = 0 ] || tst_where_lost "$sns" "$rns"
	return $rc
}

# tst_where_lost [NETNS...]: where frames may have gone, said: the slices'
# counters a lost frame ends in (those not 0, when the module is loaded)
# and every interface's packets, drops and misses not 0, here and in NETNS.
tst_where_lost() {
	local ns
	if tst_module_loaded; then
		tst_diag "slices: rx_packets $(tst_stat_sum rx_packets), tx_packets $(tst_stat_sum tx_packets);" \
			"$(netslice-info -s | grep -oE ' (rx_drop_[a-z_]+|rx_purged|read_store_full|tx_nf_drop|tx_busy|tx_err_[a-z]+|store_(aged|closed|used))=[1-9][0-9]*' |
				awk -F= '{ sub(/^ /, "", $1); s[$1] += $2 } END { for (k in s) { printf "%s%s=%d", sep, k, s[k]; sep = " " } }')"
	fi
	for ns in "" "$@"; do
		# shellcheck disable=SC2086 # no netns: no words
		ip ${ns:+-n "$ns"} -s -s link show | awk -v ns="${ns:-DUT}" '
			/^[0-9]+:/ { dev = $2; sub(/[:@].*/, "", dev); next }
			/RX:|TX:/ { dir = tolower(substr($1, 1, 2)); split($0, head); next }
			dir != "" { for (i = 1; i <= NF; i++) if ((head[i + 1] ~ /packets|dropped|missed/) && $i != 0)
					printf "# %s %s %s %s %s\n", ns, dev, dir, head[i + 1], $i
				dir = "" }'
	done
}

# tst_host_drops: the frames the host's side of the multi-queue NICs (the
# taps and bridges tests/vm/run made, which this guest cannot see) have
# dropped so far, received or sent, summed: asked of the runner through
# the shared directory. Fails, saying why, if the runner does not answer.
tst_host_drops() {
	local seq
	[ -d "${NETSLICE_VM_OUT:-}" ] ||
		{ tst_diag "no runner's directory (NETSLICE_VM_OUT) to ask for the taps' counters"; return 1; }
	seq=$RANDOM$RANDOM
	echo "$seq" >"$NETSLICE_VM_OUT/host-links.req" || return 1
	tst_busywait 10000 tst_host_links_served "$seq" || return 1
	awk 'NR > 1 { n += $2 + $3 } END { print n + 0 }' "$NETSLICE_VM_OUT/host-links"
}
tst_host_links_served() { [ "$(head -n 1 "$NETSLICE_VM_OUT/host-links" 2>/dev/null)" = "$1" ]; }

# tst_traffic_over_port SNS SIF RNS RIF DSTMAC COUNT FLOWS PORT: as
# tst_traffic_between through a multi-queue NIC whose host side (a tap, a
# bridge) drops what the guest is too slow to take, before PORT, the
# attached port, ever sees it: every frame PORT received must arrive once
# and intact, and the frames that did not arrive must be exactly those
# PORT never received, each counted dropped where it was (a frame
# netslice or the NF lost, PORT counted it: fails; one lost with nobody
# counting it: fails). Over QEMU's hubs, whose ports the runner cannot
# ask for drop counters, test_nic.sh retries a loss shown to be before the
# port (tst_lost_before_port).
tst_traffic_over_port() {
	local port=$8 rx0 got out line uniq dup bad missing counted0 counted rc=0
	counted0=$(tst_wire_drops "$1" "$2" "$port") || return 1
	rx0=$(cat "/sys/class/net/$port/statistics/rx_packets")
	out=$(mktemp)
	tst_defer rm -f "$out"
	tst_traffic_between "${@:1:7}" >"$out" || rc=1
	cat "$out"
	[ "$rc" = 0 ] && return 0
	got=$(($(cat "/sys/class/net/$port/statistics/rx_packets") - rx0))
	counted=$(tst_wire_drops "$1" "$2" "$port") || return 1
	line=$(grep -o 'received unique [0-9]* of [0-9]*, duplicates [0-9]*, corrupt [0-9]*, other [0-9]*, missing [0-9]*' "$out") ||
		return 1
	read -r _ _ uniq _ _ _ dup _ bad _ _ _ missing <<<"${line//,/}"
	tst_diag "$port received $got of $6: $missing missing, $(($6 - got)) of them never reached it;" \
		"counted dropped on the way: $(tst_wire_drops_delta "$6" "$counted0" "$counted")"
	[ "$dup" = 0 ] && [ "$bad" = 0 ] && [ "$uniq" = "$got" ] && [ "$missing" = $(($6 - got)) ] &&
		[ "$missing" = "$(tst_wire_drops_delta "$6" "$counted0" "$counted" total)" ]
}

# tst_wire_drops SNS SIF PORT: what counts a frame lost between SIF, the
# sender's port in SNS, and PORT: "SENT HOST RXDROP" (SIF's tx_packets,
# the host's taps' and bridges' drops, PORT's rx_dropped).
tst_wire_drops() {
	local sent host
	sent=$(ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets") || return 1
	host=$(tst_host_drops) || return 1
	echo "$sent $host $(cat "/sys/class/net/$3/statistics/rx_dropped")"
}

# tst_wire_drops_delta COUNT BEFORE AFTER [total]: what tst_wire_drops
# counted while COUNT frames were sent, said ("1 not sent, 3 on the host,
# 0 at the port": a frame not sent is COUNT less the sender's tx_packets
# delta) or, with total, summed.
tst_wire_drops_delta() {
	local s0 h0 r0 s1 h1 r1 unsent
	read -r s0 h0 r0 <<<"$2"
	read -r s1 h1 r1 <<<"$3"
	unsent=$(($1 - (s1 - s0)))
	if [ "${4:-}" = total ]; then
		echo $((unsent + h1 - h0 + r1 - r0))
	else
		echo "$unsent not sent, $((h1 - h0)) on the host, $((r1 - r0)) at the port"
	fi
}

# tst_traffic COUNT [FLOWS [rewritten]]: send COUNT frames gen -> sink; all
# must arrive exactly once and byte-identical (or as cut_nf rewrites them).
tst_traffic() {
	tst_traffic_between "$gen" gen0 "$sink" sink0 "$sink_mac" "$1" "${2:-64}" "${@:3}"
}
