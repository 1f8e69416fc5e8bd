#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: run bench/run.sh where the module can load, file what it
# prints under bench/results/, and regenerate docs/benchmarks.md's tables
# and docs/bench/'s plots (bench/report.py).
#
#   KERNEL=6.1|6.12   guest kernel (default 6.12)
#   QUICK=1           the instruction count's headline rows, 2 rounds,
#                     without the cache model (ticks: 2 rounds of 1 s per
#                     measurement, 64 and 1518 bytes)
#   KVM=1             insist on KVM (default: KVM if it works, else TCG)
#   ICOUNT=1          under TCG, run the guest on QEMU's instruction
#                     counter (-icount): guest time independent of host
#                     load, so ratios repeat; but one host thread runs
#                     every vCPU, and waiting costs as much as copying
#                     (../shared/NOTES.md section 7). A second lens.
#   BASELINE=REV      also nf-fwd on the module of commit REV (built in a
#                     worktree, build/baseline; same tools): before and after
#                     in one run, rounds interleaved
#   MEASURE=insns|cache|ticks|rules|all
#                     insns: instructions per forwarded frame, counted by
#                     the nsinsn QEMU plugin (bench/insns.sh, the main
#                     measure), with its cache model's L2 lines unless
#                     QUICK=1; cache: the cache model's pass alone, the
#                     headline rows on veth (what QUICK=1 leaves out);
#                     ticks: rates, latency and CPU ticks
#                     (bench/run.sh, with perf's profile, then the rule
#                     updates); rules: the rule updates alone
#                     (bench/rule_update.sh, 3-4 min here); tcp: bulk TCP
#                     alone (bench/tcp.sh, 3 rounds of 128 MiB, 2-3 min
#                     here; BASE-tcp-targets.json); all. Default:
#                     insns with QUICK=1 (9-10 min here), all without
#   TOPOLOGY=veth|nic|all
#                     the instruction count's topologies (default all:
#                     veth, and the guest's multi-queue virtio-net ports
#                     where this host can make taps, as root)
#   CACHE=0|1         the instruction count without (with) the plugin's
#                     cache model (L2-line rows; a row takes about 2.7
#                     times as long with it); default 1, 0 with QUICK=1
#   ROWS=chain        the instruction count's chain rows alone
#                     (bench_chain_rows) in every pass, no rule or nf-nat
#                     rows: runs DATE-chain[-nic|-cache]-KERNEL, their
#                     tables between docs/benchmarks.md's insn-chain
#                     markers (the other tables stay)
#   NETSLICE_BENCH_GATE=0
#                     time without first checking the contenders forward
#                     correctly (tests/guest/test_bench.sh, about 2 min)
#   NICS=GEN,IN,OUT,SINK
#                     no guest: run on this host with the installed module
#                     and four real NICs cabled GEN->IN, OUT->SINK
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
. tests/vm/kernels.sh

export NETSLICE_BENCH_QUICK=${QUICK:-0}
# The chain rows, 64 and 1518 B: two nf-fwd chained over
# slices, the same two over a veth pair (whole frames, the cut), two
# AF_XDP forwarders over it (bench/contenders.sh). ROWS=chain runs them
# alone, in each pass of the instruction count.
bench_chain_rows="ring-chain-auto@64 ring-chain-auto@1518 ring-pair-off@64 ring-pair-off@1518 \
ring-pair-auto@64 ring-pair-auto@1518 afxdp-pair@64 afxdp-pair@1518"
case ${ROWS:-} in
"") family= ;;
chain) family=-chain ;;
*) echo "bench: ROWS=$ROWS: no such row family (chain)" >&2; exit 2 ;;
esac
if [ "${QUICK:-0}" = 1 ] || [ -n "$family" ]; then
	MEASURE=${MEASURE:-insns}
else
	MEASURE=${MEASURE:-all}
fi
# The cache model makes a row 2.7 times as long (2026-12-03, median of 22
# rows): QUICK=1 leaves it to MEASURE=cache (QUICK=1 MEASURE=cache, three
# rounds: 15-21 min on its own, 2026-12-03).
if [ "${QUICK:-0}" = 1 ]; then CACHE=${CACHE:-0}; else CACHE=${CACHE:-1}; fi
# MEASURE=cache's rows: the headline ratios' (bench/insns.py) and the floor.
bench_cache_rows="ring-fwd-off@64 ring-fwd-off@1518 ring-fwd-auto@64 ring-fwd-auto@1518 \
ns-fwd-off@64 afxdp@64 afp-mmsg@64 afp-v3@64 bridge@64 floor-tc@64 floor-xdp@64"
# Instructions are counted by a TCG plugin: not under KVM, not on a host.
if [ "${KVM:-0}" = 1 ] || [ -n "${NICS:-}" ]; then MEASURE=ticks; fi
# The chain rows are the instruction count's.
case $family,$MEASURE in
-chain,insns | -chain,cache | ,*) ;;
*) echo "bench: ROWS=$ROWS: instruction-count rows (MEASURE=insns or cache, no KVM=1, no NICS=)" >&2; exit 2 ;;
esac
log=$(mktemp) err=$(mktemp)
trap 'rm -f "$log" "$err"' EXIT
stamp=$(date +%Y-%m-%d)

# The guest's CPU. QEMU 7.2's TCG emulation of cmpxchg16b (SLUB's fast
# path) corrupted EFLAGS under load now and then (a double fault in
# kmem_cache_alloc, seen twice in pktgen), so there the guest runs
# without cx16, which sends SLUB to its locked slow path on every
# allocation: the rule rows measured that path. QEMU 8 and later keep it.
bench_cpu="-cpu max"
[ "$(qemu-system-x86_64 --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p;q')" -ge 8 ] 2>/dev/null ||
	bench_cpu+=",cx16=off"

# bench_commit: the commit measured; "-dirty" when the code differs from
# it (results and the pages made from them do not count: a second run of
# one commit is a run of the same code).
bench_commit() {
	local c
	c=$(git rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
	[ -z "$(git status --porcelain -- . ':!bench/results' ':!docs/bench' ':!docs/benchmarks.md' ':!docs/bench-ticks.md' ':!build')" ] ||
		c+=-dirty
	echo "$c"
}

# bench_guest_failed: a guest's run failed: the kernel's last warnings in
# its log and the runner's errors, then exit.
bench_guest_failed() {
	grep '^kmsg: ' "$log" | tail -n 40 >&2
	cat "$err" >&2
	exit 1
}

# bench_insn_guest PASS: the instruction count (bench/insns.sh) in a
# guest of its own under the nsinsn plugin, its vCPUs pinned; PASS veth,
# nic, or cache (veth, the cache model on, bench_cache_rows); filed as
# bench/results/<run>[-chain][-nic|-cache]-{insn.csv,targets.json,insn-profile/},
# with flame graphs docs/bench/insn[-chain][-nic|-cache]-CONTENDER-SIZE.svg
# (-chain: ROWS=chain, bench_chain_rows in every pass).
bench_insn_guest() {
	local pass=$1 topology=$1 insn_dir=$top/build/bench-insn-$1 tag= rows= nics=0 f n res cache=on
	local ruleload=${NETSLICE_BENCH_INSN_RULELOAD:-} nat=${NETSLICE_BENCH_INSN_NAT:-} hostgen= dma=0
	local pkts=${NETSLICE_BENCH_INSN_PKTS:-} rounds=${NETSLICE_BENCH_INSN_ROUNDS:-}
	[ "$CACHE" != 0 ] || cache=off
	if [ "$topology" = cache ]; then
		topology=veth tag=-cache cache=on
		rows=${NETSLICE_BENCH_INSN_CACHE_ROWS:-$bench_cache_rows}
		# The rule and nf-nat rows are the instruction pass's.
		ruleload=0 nat=0
		# Quick: 3 rounds, not 2. Under the model a row's counts move
		# more with its length (the guest's work a second: ns-fwd-off's
		# L2 lines 14.6-15.1 a frame as rows took 6.9-11.2 s), and two
		# passes of two rounds each came 2.9% apart (2026-12-03).
		[ "${QUICK:-0}" != 1 ] || rounds=${rounds:-3}
	elif [ "$topology" = nic ]; then
		tag=-nic nics=1 ruleload=0 nat=0
		# The load from the host (bench/hostgen.c); NETSLICE_BENCH_GEN=pktgen:
		# pktgen in the guest, as before it.
		[ "${NETSLICE_BENCH_GEN:-}" = pktgen ] || hostgen=$top/build/bench/hostgen
		# The real driver's path against AF_XDP and the bridge on it.
		# AF_XDP zero-copy (afxdp-zc@64 in NETSLICE_BENCH_INSN_NIC_ROWS,
		# 7.2 on: 6.12's virtio-net does not offer it) binds with the DMA
		# API below, but forwarded nothing on 7.2 (2026-12-03: the
		# socket got the frames and the sending port completed them,
		# tx_xdp_tx, yet none reached the host's tap): not a default
		# row until that is understood.
		rows="ring-fwd-off@64 ring-fwd-busy@64 afxdp@64 bridge@64"
		rows=${NETSLICE_BENCH_INSN_NIC_ROWS:-$rows}
		# Zero-copy binds only where the guest maps buffers through the
		# DMA API (iommu_platform=on): then every row of the pass does.
		[[ " $rows " != *" afxdp-zc@"* ]] || dma=1
	fi
	if [ -n "$family" ]; then
		rows=$bench_chain_rows tag=$family$tag ruleload=0 nat=0
	fi
	rm -rf "$insn_dir" && mkdir -p "$insn_dir"
	echo "# instruction count: $pass"
	NETSLICE_KO=$ko NETSLICE_ACCEL=tcg NETSLICE_BENCH_MEASURE=insns NETSLICE_VM_PIN=1 \
		NETSLICE_VM_NICS=$nics NETSLICE_VM_NIC_DMA=$dma NETSLICE_BENCH_TOPOLOGY=$topology \
		NETSLICE_VM_HOSTGEN=$hostgen \
		NETSLICE_BENCH_INSN_RULELOAD=$ruleload NETSLICE_BENCH_INSN_NAT=$nat NETSLICE_BENCH_INSN_PKTS=$pkts \
		NETSLICE_BENCH_INSN_ROUNDS=$rounds \
		NETSLICE_BENCH_INSN_ROWS=${rows:-${NETSLICE_BENCH_INSN_ROWS:-}} \
		NETSLICE_BENCH_OUT=$insn_dir NETSLICE_VM_RWDIR=$insn_dir \
		NETSLICE_VM_QEMU_OPTS="-cpu max -plugin $top/build/bench/nsinsn.so,out=$insn_dir/plugin.txt,cache=$cache" \
		NETSLICE_VM_TIMEOUT=${NETSLICE_VM_TIMEOUT:-14400} \
		tests/vm/run --cpus 3 --memory 2G --kernel "$kver" -- bench/run.sh 2>"$err" |
		tee "$log" | grep --line-buffered '^#' || bench_guest_failed
	sed -n 's/^insn: //p' "$log" >"$insn_dir/insn.csv"
	sed -n 's/^cap: //p' "$log" >"$insn_dir/cap.csv"
	sed -n 's/^cal: //p' "$log" >"$insn_dir/cal.csv"
	sed -n 's/^lost: //p' "$log" >"$insn_dir/lost.txt"
	sed -n 's/^rload: //p' "$log" >"$insn_dir/rload.csv"
	sed -n 's/^rgen: //p' "$log" >"$insn_dir/rgen.csv"
	sed -n 's/^nconn: //p' "$log" >"$insn_dir/nconn.csv"
	sed -n 's/^blast: //p' "$log" >"$insn_dir/blast.csv"
	sed -n 's/^at90: //p' "$log" >"$insn_dir/at90.csv"
	mkdir -p bench/results
	res=bench/results/$stamp$tag-$kver
	# A run of the same day replaces the last: kept to compare with.
	[ ! -e "$res-targets.json" ] || cp "$res-targets.json" "$insn_dir/previous-targets.json"
	/usr/bin/python3 bench/insns.py "$insn_dir" "$res" \
		"$(bench_commit)" "$pass"
	# Flame graphs by instruction count, for docs/benchmarks.md.
	mkdir -p docs/bench
	for f in "$res-insn-profile"/*.folded; do
		n=$(basename "$f" .folded)
		/usr/bin/python3 bench/flame.py render "$f" "docs/bench/insn$tag-$n.svg" \
			"$n, ${pass}, instructions (one sample per 10,000)"
	done
}

# bench_rules_files BASE LOG: file the rule-update lines of LOG as
# BASE-rules.csv and BASE-ruleload.csv, and report them
# (BASE-rules-targets.json, docs/bench-ticks.md's rules section).
bench_rules_files() {
	sed -n 's/^rules: //p' "$2" >"$1-rules.csv"
	sed -n 's/^ruleload: //p' "$2" >"$1-ruleload.csv"
	sed -n 's/^natconn: //p' "$2" >"$1-natconn.csv"
	[ -s "$1-natconn.csv" ] || rm -f "$1-natconn.csv"
	[ ! -s "$1-rules.csv" ] || /usr/bin/python3 bench/rules_report.py "$1" "$(bench_commit)"
}

# bench_rules_guest: bench/rule_update.sh alone, in a guest shaped as the
# ticks run's (three vCPUs: pktgen, the DUT's kernel side, its user side).
bench_rules_guest() {
	echo "# rule updates: nf-fwd while rules change"
	NETSLICE_KO=$ko NETSLICE_VM_QEMU_OPTS="$bench_cpu" \
		NETSLICE_BENCH_SECS=${NETSLICE_BENCH_SECS:-$([ "${QUICK:-0}" = 1 ] && echo 2 || echo 5)} \
		NETSLICE_VM_TIMEOUT=${NETSLICE_VM_TIMEOUT:-3600} \
		tests/vm/run --cpus 3 --memory 2G --kernel "$kver" -- bench/rule_update.sh 2>"$err" |
		sed -u 's/^csv: /rules: /' | tee "$log" |
		grep --line-buffered -v '^rules: \|^ruleload: \|^natconn: ' || bench_guest_failed
	grep -q '^rules: none,' "$log" || { echo "bench: no rule-update rows" >&2; cat "$err" >&2; exit 1; }
	mkdir -p bench/results
	bench_rules_files "bench/results/$stamp-$kver" "$log"
}

# bench_tcp_guest: bench/tcp.sh alone, in a guest shaped as the ticks
# run's: BASE-tcp.csv and its rows (bench/tcp_report.py).
bench_tcp_guest() {
	echo "# bulk TCP: nf-fwd and nf-nat against the bridge and masquerade"
	NETSLICE_KO=$ko NETSLICE_VM_QEMU_OPTS="$bench_cpu" \
		NETSLICE_BENCH_TCP_ROUNDS=${NETSLICE_BENCH_TCP_ROUNDS:-3} \
		NETSLICE_BENCH_TCP_MIB=${NETSLICE_BENCH_TCP_MIB:-128} \
		NETSLICE_VM_TIMEOUT=${NETSLICE_VM_TIMEOUT:-3600} \
		tests/vm/run --cpus 3 --memory 2G --kernel "$kver" -- bench/tcp.sh 2>"$err" |
		tee "$log" | grep --line-buffered '^# ' || bench_guest_failed
	mkdir -p bench/results
	sed -n 's/^csv: //p' "$log" >"bench/results/$stamp-$kver-tcp.csv"
	/usr/bin/python3 bench/tcp_report.py "bench/results/$stamp-$kver" "$(bench_commit)"
}

if [ -n "${NICS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "bench: NICS= needs root" >&2; exit 2; }
	kver=$(uname -r)
	NETSLICE_KO=${KO:-} NETSLICE_BENCH_NICS=$NICS \
		bench/run.sh 2>"$err" | tee "$log" | grep --line-buffered '^#' || {
		cat "$err" >&2
		exit 1
	}
	accel="host, NICs $NICS"
else
	kver=$(tst_kernel_version "${KERNEL:-6.12}")
	[ -n "$kver" ] || { echo "bench: no ${KERNEL:-6.12} kernel; run scripts/deps.sh" >&2; exit 2; }
	ko=$(scripts/kbuild.sh "$kver")
	if [ "$MEASURE" = rules ]; then
		bench_rules_guest
		exit 0
	fi
	if [ "$MEASURE" = tcp ]; then
		bench_tcp_guest
		exit 0
	fi
	# Correct before fast: each contender forwards every frame once and
	# intact, the load and the sink count what they should
	# (tests/guest/test_bench.sh, which make check leaves to this), or
	# nothing is timed.
	if [ "${NETSLICE_BENCH_GATE:-1}" = 1 ]; then
		echo "# the contenders' correctness (tests/guest/test_bench.sh)"
		if ! NETSLICE_KO=$ko tests/vm/run --kernel "$kver" -- tests/guest/run_all.sh test_bench.sh \
			>"$log" 2>"$err"; then
			grep -E '^[[:space:]]*(not ok|# )' "$log" | tail -n 40 >&2 || true
			grep '^run: ' "$err" >&2 || true
			echo "bench: a contender is not correct (tests/guest/test_bench.sh); nothing timed" >&2
			exit 1
		fi
		grep -E '^# guest ' "$log"
	fi
	if [ -n "${BASELINE:-}" ]; then
		# In the checkout: the guest sees the host's files, not its /tmp.
		base_tree=$top/build/baseline
		git worktree remove --force "$base_tree" 2>/dev/null || rm -rf "$base_tree"
		trap 'rm -f "$log" "$err"; git worktree remove --force "$base_tree" 2>/dev/null' EXIT
		git worktree add --detach -q "$base_tree" "$BASELINE"
		# The baseline's own build script: tools/ held it before scripts/.
		kbuild=$base_tree/scripts/kbuild.sh
		[ -x "$kbuild" ] || kbuild=$base_tree/tools/kbuild.sh
		NETSLICE_BENCH_BASE_KO=$("$kbuild" "$kver")
		export NETSLICE_BENCH_BASE_KO
	fi
	# The main measure: instructions, in a guest of its own under the
	# plugin, once per topology: veth pairs, then (where the host can make
	# taps: root) the guest's multi-queue virtio-net ports.
	if [ "$MEASURE" != ticks ]; then
		topologies=veth
		if [ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] && [ "${TOPOLOGY:-all}" != veth ]; then
			topologies+=" nic"
		fi
		[ "${TOPOLOGY:-all}" != nic ] || topologies=nic
		[ "$MEASURE" != cache ] || topologies=cache
		for topology in $topologies; do
			bench_insn_guest "$topology"
		done
		/usr/bin/python3 bench/insn_report.py ${family:+--markers insn$family} \
			"bench/results/$stamp$family-$kver" "bench/results/$stamp$family-nic-$kver" \
			"bench/results/$stamp$family-cache-$kver"
		case $MEASURE in insns | cache) exit 0 ;; esac
	fi
	if [ "${KVM:-0}" = 1 ]; then
		export NETSLICE_ACCEL=kvm
	else
		export NETSLICE_VM_QEMU_OPTS="$bench_cpu"
		[ "${ICOUNT:-0}" != 1 ] ||
			NETSLICE_VM_QEMU_OPTS+=" -icount shift=3,sleep=off,align=off"
	fi
	# Three vCPUs: pktgen and the sink, the DUT's kernel side, its user side.
	NETSLICE_KO=$ko NETSLICE_VM_TIMEOUT=${NETSLICE_VM_TIMEOUT:-14400} \
		tests/vm/run --cpus 3 --memory 2G --kernel "$kver" -- bench/run.sh 2>"$err" |
		tee "$log" | grep --line-buffered '^#' || bench_guest_failed
	accel=$(sed -n 's/^# vm: [^,]*, \([^,]*\),.*/\1/p' "$err")
	[ "$accel" = --disable-kvm ] && accel="TCG (software emulation, no KVM)" || accel=KVM
	[ "${ICOUNT:-0}" != 1 ] || [ "$accel" = KVM ] || accel+=", -icount (instruction-counted time)"
fi
grep -q '^csv: 1,' "$log" || { echo "bench: no measurements" >&2; cat "$err" >&2; exit 1; }

mkdir -p bench/results
base=bench/results/$stamp-$kver
sed -n 's/^csv: //p' "$log" >"$base.csv"
{
	echo "round,contender,size,offered_pps,$(seq -s, -f 'q%g' 0 100)"
	sed -n 's/^cdf: //p' "$log" | tr ' ' ','
} >"$base-cdf.csv"
sed -n 's/^zeroloss: //p' "$log" >"$base-zeroloss.csv"
sed -n 's/^tcp: //p' "$log" >"$base-tcp.csv"
[ ! -s "$base-tcp.csv" ] || /usr/bin/python3 bench/tcp_report.py "$base" "$(bench_commit)"
# The profile: one folded-stack file per contender and size.
rm -rf "$base-profile"
if grep -q '^fold: ' "$log"; then
	mkdir -p "$base-profile"
	sed -n 's/^fold: //p' "$log" | while IFS=, read -r name size rest; do
		echo "$rest" >>"$base-profile/$name-$size.folded"
	done
	sed -n 's/^profcount: //p' "$log" >"$base-profile/counts.csv"
fi
{
	sed -n 's/^meta: //p' "$log"
	echo "accel $accel"
	echo "host $(nproc) cpus $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)," \
		"$(awk '/MemTotal/{printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
	echo "date $stamp"
	echo "commit $(bench_commit)"
	[ -z "${BASELINE:-}" ] || echo "baseline $(git rev-parse --short "$BASELINE")"
} >"$base-meta.txt"
# Debian's python3 has matplotlib (scripts/deps.sh).
/usr/bin/python3 bench/report.py "$base"
bench_rules_files "$base" "$log"
echo "bench: $base.csv, docs/benchmarks.md, docs/bench-ticks.md, docs/bench/"
