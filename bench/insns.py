#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's main measure: guest instructions per forwarded frame.

  insns.py DIR BASE COMMIT [TOPOLOGY]

DIR holds what one guest run under the nsinsn plugin left: plugin.txt
(bench/plugin/nsinsn.c: per-vCPU counters at every mark, PC samples),
insn.csv (bench/insns.sh's rows: which contender, how many frames; round
0 warms up and is left out; SIZE 0 is a contender's idle second),
kallsyms, modsyms-SEQ (from a contender's idle row SEQ on) and per row
maps-SEQ to name sampled PCs;
lost.txt (bench/insns.sh's bench_insn_lost: for each row that lost
frames, how each counter on the frames' way moved over it); and
previous-targets.json, a run of the same name this one replaces;
rload.csv, rgen.csv and nconn.csv, the rule and nf-nat rows' (rule_rows,
nat_rows).
TOPOLOGY is veth (default) or nic (the guest's virtio-net ports): a nic
run's headline rows are named nic_RATIO.
Writes BASE-insn.csv (one line per row and round), BASE-targets.json
(the headline ratios, with their spread over rounds, and the findings) and
BASE-insn-profile/CONTENDER-SIZE[_bBATCH].folded (samples by instruction count,
"space;object;function COUNT", one sample per PERIOD instructions).

The DUT is every vCPU but the load's: 0, where the generator and the
harness run (gen_insn_per_pkt), and 2, where the sink receives on veth
(sink_insn_per_pkt); those are counted apart, never in the headline, and
profiled apart (BASE-insn-profile/load/{gen,sink}-CONTENDER-SIZE.folded).

Copies: a rep movs or rep stos is one instruction to the plugin however
many bytes it moves, so the bytes those store are weighed in: the copies'
(rep movs: copy_bytes_per_pkt, kernel and user apart) and the fills'
(rep stos, such as zeroing a fresh page: fill_bytes_per_pkt). Every count
of instructions here (insn_per_pkt and the ratios made of it) adds one
instruction per REP_BYTES_PER_INSN bytes of either, what a movsq or stosq
loop retires; raw_insn_per_pkt is the plugin's count alone. cal.csv's
copies of known size (bench/insns.sh's bench_insn_calibrate) check the
copy count: cal_copy_error_pct.

Lost frames: a comparison's row (AF_PACKET, AF_XDP, the bridge, the
baseline's module) that lost more than 0.1% is not judged, its ratios
neither. A netslice row (netslice_row) that lost any frame is a finding:
a row lost_frames_CONTENDER_SIZE, target "= 0", not met, that says where
the frames went (lost.txt's counters), and its ratios are not met.
"""
import bisect
import csv
import glob
import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter, defaultdict

# The load's vCPUs, counted apart from the DUT's (every other vCPU):
# the generator and the harness on 0, the sink's receive on 2 (make bench
# brings it online on veth; elsewhere it stays offline and counts nothing).
GEN_VCPU = 0
SINK_VCPU = 2
REP_BYTES_PER_INSN = 8
# read_marks' counters, per vCPU: instructions, bytes loaded and stored,
# bytes stored by rep movs (copies) and by rep stos (fills) and their
# iterations, the cache model's L1d and L2 misses (lines brought in) and
# I/O accesses, kernel and user.
(IK, IU, LK, SK, LU, SU, MBK, MBU, SBK, SBU, RIK, RIU, L1K, L1U, L2K, L2U, IOK,
 IOU) = range(18)
NCOUNTERS = 18

# Headline ratios: name -> (numerator row, denominator row, target), rows
# named CONTENDER@SIZE. Targets are the fast-path issues' (docs/benchmarks.md):
# AF_XDP on veth is native (xdpgen's XDP frames), on the NIC the best mode
# the driver offers. capacity_*: frames per 10^9 instructions of the first
# row over the second's, so the rows stand the other way round; in
# instructions only.
RATIOS = {
    "ring_vs_afxdp_64": ("ring-fwd-off@64", "afxdp@64", "<= 0.9"),
    "rw_vs_afp_mmsg_64": ("ns-fwd-off@64", "afp-mmsg@64", "<= 0.6"),
    "rw_vs_tpacket_v3_64": ("ns-fwd-off@64", "afp-v3@64", "<= 0.8"),
    "ring_vs_bridge_64": ("ring-fwd-off@64", "bridge@64", "<= 2.0"),
    # Ring mode paced by its own timer, preferred busy polling (no target:
    # its wake-ups are SCHED_ROWS').
    "ring_busy_vs_bridge_64": ("ring-fwd-busy@64", "bridge@64", None),
    "ring_busy_vs_ring_64": ("ring-fwd-busy@64", "ring-fwd-off@64", None),
    "auto_vs_off_1518": ("ring-fwd-auto@1518", "ring-fwd-off@1518", "<= 0.8"),
    "auto_1518_vs_64": ("ring-fwd-auto@1518", "ring-fwd-auto@64", "<= 1.05"),
    "capacity_ring_vs_bridge_64": ("bridge@64", "ring-fwd-off@64", ">= 1.0"),
    "capacity_auto_vs_bridge_1518": ("bridge@1518", "ring-fwd-auto@1518", ">= 1.2"),
    # Before and after in one run (make bench BASELINE=REV): this module
    # against the baseline's, same tools.
    "ring_vs_base_64": ("ring-fwd-off@64", "base-ring-fwd-off@64", None),
    "ring_vs_base_1518": ("ring-fwd-off@1518", "base-ring-fwd-off@1518", None),
    "rw_vs_base_64": ("ns-fwd-off@64", "base-fwd-off@64", None),
    # The chain rows: two nf-fwd chained over slices
    # (ring-chain-auto, the cut) against the same two connected by a
    # veth pair, each on a slice of its own: "veth_pair" whole frames
    # (ring-pair-off: what every NF of a chain gets without one, as from
    # AF_XDP or AF_PACKET), "veth_pair_auto" the cut (ring-pair-auto);
    # and against two AF_XDP forwarders over the pair (afxdp-pair).
    "chain_capacity_vs_veth_pair_1518": ("ring-pair-off@1518", "ring-chain-auto@1518", ">= 1.3"),
    "chain_capacity_vs_afxdp_pair_1518": ("afxdp-pair@1518", "ring-chain-auto@1518", ">= 1.1"),
    "chain_capacity_vs_veth_pair_auto_1518": ("ring-pair-auto@1518", "ring-chain-auto@1518", None),
    "chain_capacity_vs_veth_pair_64": ("ring-pair-off@64", "ring-chain-auto@64", None),
    "chain_capacity_vs_afxdp_pair_64": ("afxdp-pair@64", "ring-chain-auto@64", None),
}

# Ratios in one measure other than instructions: name -> (measure,
# numerator row, denominator row, target), the measure "l2" (L2 lines a
# frame, where the cache model ran), "copy" (bytes copied a frame, rep
# movs) or "mem" (bytes loaded and stored a frame).
MEASURE_RATIOS = {
    "auto_vs_off_1518_mem_bytes": ("mem", "ring-fwd-auto@1518", "ring-fwd-off@1518", "<= 0.15"),
    "auto_vs_off_1518_copy_bytes": ("copy", "ring-fwd-auto@1518", "ring-fwd-off@1518", None),
    "chain_l2_vs_veth_pair_1518": ("l2", "ring-chain-auto@1518", "ring-pair-off@1518", "<= 0.3"),
    "chain_copied_vs_veth_pair_1518": ("copy", "ring-chain-auto@1518", "ring-pair-off@1518",
                                       "<= 0.1"),
    "chain_l2_vs_veth_pair_auto_1518": ("l2", "ring-chain-auto@1518", "ring-pair-auto@1518", None),
    "chain_copied_vs_veth_pair_auto_1518": ("copy", "ring-chain-auto@1518", "ring-pair-auto@1518",
                                            None),
    "chain_l2_vs_afxdp_pair_1518": ("l2", "ring-chain-auto@1518", "afxdp-pair@1518", None),
    "chain_copied_vs_afxdp_pair_1518": ("copy", "ring-chain-auto@1518", "afxdp-pair@1518", None),
}


# Targets of ratios in L2 lines (NAME_l2, the cache model's) and over own
# costs (own_NAME); the rest are reported without one.
L2_TARGETS = {"auto_vs_off_1518": "<= 0.3", "auto_1518_vs_64": "<= 1.05"}
OWN_TARGETS = {"ring_vs_bridge_64": "<= 1.0"}
# Scheduling and wake-ups: the core kernel's scheduler functions (picking,
# switching, waking, load and time accounting, PSI) and the idle path's
# tick stop, by name, in the DUT's samples: what a contender pays to sleep
# and be woken. Modules' functions never (netslice's nsl_rx_enqueue, a
# qdisc's dequeue), nor RCU's work, NAPI's or a queue's wake-up, dirty-page
# balancing or the soft-lockup watchdog, whose names look alike. A row's
# share of the DUT's samples times its instructions; a row without samples
# has none. sched_ring_minus_bridge_64 is ring mode's less the bridge's,
# instructions a frame; sched_ring_busy_minus_bridge_64 the same for ring
# mode paced by its own timer with preferred busy polling (ring-fwd-busy).
SCHED_RE = re.compile(r"schedule|sched|wake|ttwu|switch_to|switch_mm|context_switch|"
                      r"enqueue_(task|entit)|dequeue_(task|entit)|__(en|de)queue_entity|"
                      r"pick_next|pick_eevdf|pick_task|put_prev|set_next|update_curr|load_avg|"
                      r"vruntime|place_entity|reweight|update_cfs|update_rq_clock|^psi_|"
                      r"select_task_rq|select_idle|idle_cpu|activate_task|check_preempt|"
                      r"resched|tick_nohz|balance")
NOT_SCHED_RE = re.compile(r"^rcu_|nocb|napi|netif_|dirty|softlockup")
SCHED_TARGET = "<= 60"
SCHED_ROWS = {"sched_ring_minus_bridge_64": ("ring-fwd-off@64", "bridge@64"),
              "sched_ring_busy_minus_bridge_64": ("ring-fwd-busy@64", "bridge@64")}


def sched_fn(obj, fn):
    """Whether a sampled kernel function is scheduling or a wake-up."""
    return obj == "vmlinux" and bool(SCHED_RE.search(fn)) and not NOT_SCHED_RE.search(fn)


def row_name(key):
    """A row's key (CONTENDER@SIZE[/BATCH]) as a name: CONTENDER_SIZE[_bBATCH]."""
    return key.replace("@", "_").replace("/", "_b")


def floor_of(key):
    """The null forwarder of a row's path (CONTENDER@SIZE): floor-xdp for
    AF_XDP (a native XDP program's redirect), floor-tc (tc's mirred
    redirect on the skb path) for the rest; None for a floor."""
    name, size = key.split("@")
    if name.startswith("floor-"):
        return None
    return ("floor-xdp@" if name.startswith("afxdp") else "floor-tc@") + size


def netslice_row(contender):
    """A row of netslice's own path, this commit's module: nf-fwd and its
    kin in read/write (ns-*) or ring mode (ring-*). Not the comparisons:
    AF_PACKET, AF_XDP, the bridge, nor the baseline's module (base-*,
    another commit's netslice, what this one is measured against)."""
    return contender.startswith(("ns-", "ring-"))


def read_lost(path):
    """seq -> {key: value}, lost.txt's lines "SEQ CONTENDER KEY=VALUE...":
    the interfaces' names (gen, in, out, sink), sent and forwarded, and
    each counter's change over the row (gen.tx_packets, slice.rx_drop_ring_full, ...)."""
    lost = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) < 2:
                    continue
                kv = dict(x.split("=", 1) for x in w[2:] if "=" in x)
                lost[int(w[0])] = {k: v if k in ("gen", "in", "out", "sink") else int(v)
                                   for k, v in kv.items()}
    return lost


# Counters that count a frame dropped (or held back) on its way, in path
# order: the generator's port, the DUT's ingress, the slice, its egress.
# A slice.tx_err_* counter (a write refused) goes before the egress.
DROPS = [
    ("gen.tx_dropped", "{gen} tx_dropped"),
    ("in.rx_dropped", "{in} rx_dropped"),
    ("slice.rx_drop_ring_full", "slice rx_drop_ring_full (ring full)"),
    ("slice.rx_drop_no_reader", "slice rx_drop_no_reader (no reader)"),
    ("slice.rx_drop_error", "slice rx_drop_error (not segmented or checksummed)"),
    ("slice.rx_purged", "slice rx_purged (queued, freed unread)"),
    ("slice.tx_nf_drop", "slice tx_nf_drop (the NF dropped it)"),
    ("slice.tx_busy", "slice tx_busy (egress queue stopped: short writes)"),
    ("pair.tx_dropped", "the veth pair's tx_dropped"),
    ("pairpeer.rx_dropped", "its peer's rx_dropped"),
    ("out.tx_dropped", "{out} tx_dropped"),
]
# Contenders whose frames cross slice 0, then slice 1 (the chain rows:
# handed on, or through a veth pair): their lost frames are traced slice
# by slice (lost.txt's sliceN.* counters), not over the slices' sums.
SLICE_PATHS = ("ring-chain-", "ring-pair-")


def slice_hops(c, p, labels):
    """A slice's hops from counters named P + counter, LABELS theirs:
    received (queued or dropped there), queued, sent (or handed to the
    next slice)."""
    queued = c[p + "rx_packets"] + c.get(p + "rx_trimmed", 0)
    counts = (queued + sum(c.get(p + k, 0) for k in
                           ("rx_drop_ring_full", "rx_drop_no_reader", "rx_drop_error")),
              queued, c.get(p + "tx_packets", 0) + c.get(p + "tx_chained", 0))
    return list(zip(labels, counts))


def where(c, contender=""):
    """Where a row's lost frames went, from lost.txt's counters (summed
    over its lossy rounds): the drop counters that moved, then the count
    at each hop and the first hop short of the one before."""
    if not c:
        return "where: not recorded (no lost.txt line for the row)"
    names = {k: c.get(k, k) for k in ("gen", "in", "out", "sink")}
    drops = list(DROPS)
    errs = sorted(k for k in c if k.startswith("slice.tx_err_"))
    drops[-1:-1] = [(k, k.replace(".", " ", 1)) for k in errs]
    moved = [f"{label.format(**names)} {c[k]}" for k, label in drops if c.get(k, 0) > 0]
    hops = [(f"{names['gen']} sent", c.get("gen.tx_packets")),
            (f"{names['in']} received", c.get("in.rx_packets"))]
    pair = [("the veth pair sent", c.get("pair.tx_packets")),
            ("its peer received", c.get("pairpeer.rx_packets"))]
    if contender.startswith(SLICE_PATHS) and "slice1.rx_packets" in c:
        hops += slice_hops(c, "slice0.", [f"slice 0 {x}" for x in ("received", "queued", "sent")])
        hops += pair
        hops += slice_hops(c, "slice1.", [f"slice 1 {x}" for x in ("received", "queued", "sent")])
    elif "slice.rx_packets" in c:
        hops += slice_hops(c, "slice.", ("the slice received", "queued", "sent")) + pair
    else:
        hops += pair
    hops += [(f"{names['out']} sent", c.get("out.tx_packets")),
             (f"{names['sink']} received", c.get("sink.rx_packets"))]
    hops = [(label, v) for label, v in hops if v is not None]
    text = "dropped: " + (", ".join(moved) if moved else "no drop counter moved")
    text += "; hops: " + ", ".join(f"{label} {v}" for label, v in hops)
    short = next(((a, b) for a, b in zip(hops, hops[1:]) if b[1] < a[1]), None)
    if short:
        text += f"; first short: {short[0][0]} {short[0][1]} -> {short[1][0]} {short[1][1]}"
    return text


def read_marks(path):
    """seq -> {"start"|"stop": {vcpu: [IK ... IOU]}}, samples. A mark
    line of another length is an older plugin's: refused, not misread."""
    marks = defaultdict(lambda: defaultdict(dict))
    samples = defaultdict(Counter)
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "mark":
                c = [int(x) for x in w[4:]]
                if len(c) != NCOUNTERS:
                    sys.exit(f"insns: {path}: a mark with {len(c)} counters, not {NCOUNTERS}:"
                             " an older plugin's output (make bench rebuilds it)")
                marks[int(w[1])][w[2]][int(w[3])] = c
            elif w[0] == "sample":
                samples[int(w[1])][(int(w[2]), int(w[3], 16))] += int(w[4])
    return marks, samples


class Symbols:
    """Sorted (address, name) lists: kernel text, and per-binary symbols."""

    def __init__(self, paths):
        syms = []
        for path in paths:
            if not os.path.exists(path):
                continue
            with open(path) as f:
                for line in f:
                    w = line.split()
                    if len(w) >= 3 and w[1] in "tTwW":
                        mod = w[3].strip("[]") if len(w) > 3 else "vmlinux"
                        syms.append((int(w[0], 16), w[2], mod))
        syms.sort()
        self.addr = [s[0] for s in syms]
        self.syms = syms

    def name(self, pc):
        i = bisect.bisect_right(self.addr, pc) - 1
        return (self.syms[i][2], self.syms[i][1]) if i >= 0 else ("?", hex(pc))


_elf_cache = {}


def elf_symbols(path):
    if path not in _elf_cache:
        syms = []
        for flag in ([], ["-D"]):
            try:
                out = subprocess.run(["nm", "-n", "--defined-only", *flag, path],
                                     capture_output=True, text=True, check=True).stdout
            except (OSError, subprocess.CalledProcessError):
                continue
            for line in out.splitlines():
                w = line.split()
                if len(w) == 3 and w[1] in "tTwW":
                    syms.append((int(w[0], 16), w[2]))
            if syms:
                break
        syms.sort()
        _elf_cache[path] = ([s[0] for s in syms], syms)
    return _elf_cache[path]


def user_name(maps, pc):
    for start, end, off, path in maps:
        if start <= pc < end:
            addrs, syms = elf_symbols(path)
            # Text mapped at its file offset: vaddr == offset in our builds' ELF.
            v = pc - start + off
            i = bisect.bisect_right(addrs, v) - 1
            return os.path.basename(path), syms[i][1] if i >= 0 else hex(v)
    return "?", "?"


def read_maps(path):
    maps = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 6:
                    a, b = w[0].split("-")
                    maps.append((int(a, 16), int(b, 16), int(w[2], 16), w[5]))
    return maps


def weighted(c, kernel):
    """Instructions with copies and fills weighed in: one per
    REP_BYTES_PER_INSN bytes."""
    if kernel:
        return c[IK] + (c[MBK] + c[SBK]) / REP_BYTES_PER_INSN
    return c[IU] + (c[MBU] + c[SBU]) / REP_BYTES_PER_INSN


def weighted_all(c):
    """weighted(), kernel and user together."""
    return weighted(c, 1) + weighted(c, 0)


def calibration_rows(path, marks, cache_on):
    """The copy count checked (cal.csv: SEQ,KIND,BYTES,VCPU): a user copy
    of BYTES must count BYTES copied in user space, a file's read() BYTES
    copied in the kernel (rep movs; fills are not copies); with the cache
    model, either brings in BYTES / 64 L2 lines of its source and as many
    of its destination (both cold). Rows with the error in percent, and
    the largest of each against its target."""
    rows, misses = [], []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for c in csv.DictReader(f):
            m = marks_of(marks, c["seq"], f"calibration {c['seq']} ({c['kind']})")
            v = int(c["vcpu"])
            d = [b - a for a, b in zip(m["start"][v], m["stop"][v])]
            user = c["kind"] == "user"
            got = d[MBU] if user else d[MBK]
            want = int(c["bytes"])
            rows.append({"name": f"cal_copy_{c['kind']}_error_pct",
                         "value": round(abs(got - want) * 100 / want, 2), "spread_pct": None,
                         "target": None, "met": None, "counted_bytes": got, "copied_bytes": want})
            if cache_on:
                got, want = d[L2K] + d[L2U], 2 * int(c["bytes"]) // 64
                misses.append({"name": f"cal_miss_{c['kind']}_error_pct",
                               "value": round(abs(got - want) * 100 / want, 2),
                               "spread_pct": None, "target": None, "met": None,
                               "l2_lines": got, "cold_lines": want})
    for name, cal in (("cal_copy_error_pct", rows), ("cal_miss_error_pct", misses)):
        if cal:
            worst = max(r["value"] for r in cal)
            cal.append({"name": name, "value": worst, "spread_pct": None,
                        "target": "<= 10", "met": worst <= 10})
    return rows + misses


def marks_of(marks, seq, what):
    """SEQ's start and stop marks; the run is refused without them (WHAT
    names the measurement)."""
    m = marks.get(int(seq))
    if not m or "start" not in m or "stop" not in m:
        sys.exit(f"insns: no marks for {what}")
    return m


def judge(value, target):
    """Whether VALUE meets TARGET ("<= X" or ">= X")."""
    op, bound = target.split()
    return value <= float(bound) if op == "<=" else value >= float(bound)


def spread_pct(values):
    m = statistics.median(values)
    return (max(values) - min(values)) * 100 / m if m else 0.0


def dut_insns(m):
    """The DUT's vCPUs' instructions (copies weighed in) between mark m's
    start and stop: every vCPU but the generator's and the sink's."""
    return sum(weighted_all([b - a for a, b in zip(m["start"][v], m["stop"][v])])
               for v in m["stop"] if v not in (GEN_VCPU, SINK_VCPU))


def read_caps(path):
    """bench/insns.sh's capacity search (cap.csv: CONTENDER,SIZE,GEN_PPS,
    SAT_FWD_PPS,CAPACITY_PPS, CAPACITY_PPS empty when the DUT kept up)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [(name, size, int(gen), int(sat), int(cap) if cap else None)
                for name, size, gen, sat, cap in csv.reader(f)]


def at90_rows(d, prefix, rows):
    """Every round's trial at 90% of each contender's capacity (at90.csv,
    bench_insn_at90): at90_lost_pct_CONTENDER, the most it lost in a
    round, in percent of what was sent; for ring mode (ring-fwd-off)
    PREFIX + at90_ring_lost_max_pct, whose target is to lose nothing."""
    path = os.path.join(d, "at90.csv")
    if not os.path.exists(path):
        return
    worst = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            sent = int(r["sent"])
            lost = (sent - int(r["forwarded"])) * 100 / sent if sent else 0.0
            worst[r["contender"]] = max(worst.get(r["contender"], 0.0), lost)
    for name, lost in sorted(worst.items()):
        rows.append({"name": f"at90_lost_pct_{name}", "value": round(lost, 2),
                     "spread_pct": None, "target": None, "met": None})
    if "ring-fwd-off" in worst:
        value = round(worst["ring-fwd-off"], 2)
        rows.append({"name": prefix + "at90_ring_lost_max_pct", "value": value,
                     "spread_pct": None, "target": "<= 0", "met": judge(value, "<= 0")})


def blast_rows(d, marks, per_row, caps, rows):
    """The capacity search's first trial with the host's generator
    (blast.csv, bench_insn_blast): the DUT overloaded, its vCPU never idle
    until the last frame was out, so its instructions between the marks
    over the host's time to that frame are the vCPU's instructions a
    second. Per contender capacity_check_pct_CONTENDER: its capacity (the
    search's, caps) times its row's instructions a frame (CONTENDER@64,
    at its batch), over that rate, less 1, in percent; and
    capacity_check_max_pct (<= 5): whether frames per 10^9 instructions
    predict frames a second."""
    path = os.path.join(d, "blast.csv")
    if not os.path.exists(path):
        return
    with open(path) as f:
        trials = list(csv.DictReader(f))
    found = {name: cap for name, size, _, _, cap in caps if size == "64" and cap}
    checks = []
    for r in trials:
        m = marks_of(marks, r["seq"], f"the capacity trial {r['seq']} ({r['contender']})")
        usec = int(r["last_usec"])
        per = per_row.get(f"{r['contender']}@64", {})
        if not usec or not per or r["contender"] not in found:
            continue
        rate = dut_insns(m) * 1e6 / usec
        cap = found[r["contender"]]
        err = (cap * statistics.median(per.values()) / rate - 1) * 100
        checks.append(abs(err))
        rows.append({"name": f"capacity_check_pct_{r['contender']}", "value": round(err, 1),
                     "spread_pct": None, "target": None, "met": None, "capacity_pps": cap,
                     "dut_insn_per_s": round(rate),
                     "overload_fwd_pps": round(int(r["forwarded"]) * 1e6 / usec)})
    if checks:
        rows.append({"name": "capacity_check_max_pct", "value": round(max(checks), 1),
                     "spread_pct": None, "target": "<= 5", "met": max(checks) <= 5})


def capacity_rows(caps, rows):
    """Rows from the capacity search or the host generator's trials
    (CONTENDER, SIZE, GEN_PPS, SAT_FWD_PPS, CAPACITY_PPS); returns the
    least headroom, the generator's rate over what the DUT forwarded at
    its capacity (over what it forwarded at the generator's rate, when it
    kept up: about 1, the generator the limit), or None without a search.
    A capacity is judged only with a headroom of at least 1.5."""
    least = None
    for name, size, gen, sat, cap in caps:
        head = gen / cap if cap else gen / max(sat, 1)
        row = {"name": f"capacity_pps_{name}_{size}", "value": cap,
               "spread_pct": None, "target": None, "met": None,
               "generator_pps": gen, "forwarded_at_generator_pps": sat,
               "generator_headroom": round(head, 2)}
        if not cap:
            row["note"] = f"kept up with the generator's {gen}/s: the generator is the limit"
        elif head < 1.5:
            row["note"] = "generator headroom under 1.5: not judged"
        rows.append(row)
        least = head if least is None else min(least, head)
    if least is None:
        return None
    rows.append({"name": "generator_headroom_min", "value": round(least, 2), "spread_pct": None,
                 "target": ">= 1.5", "met": least >= 1.5})
    return round(least, 2)


def rule_rows(d, marks, runs, per_row, idle):
    """The rule table in instructions: vCPU 1's kernel and user instructions
    per rule of a bulk load (rload.csv, bench_insn_ruleload); what a
    replace costs (ring-fwd-replace's idle second less ring-fwd-rule's,
    over the replaces rule-gen made in it: rgen.csv, per measurement); and
    the data path's cost a frame with replaces running against none
    (ring-fwd-replace@64 over ring-fwd-rule@64, whole and with the
    replaces' own instructions taken off)."""
    rows = []

    def add(name, vals, ndigits=1, **extra):
        if vals:
            rows.append(dict({"name": name, "value": round(statistics.median(vals), ndigits),
                              "spread_pct": round(spread_pct(vals), 2), "target": None,
                              "met": None}, **extra))

    def read(name):
        path = os.path.join(d, name)
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return list(csv.DictReader(f))

    # Per round: a load of one rule (the process's own cost) and one of N.
    loads = defaultdict(dict)
    for r in read("rload.csv"):
        if int(r["round"]):
            m = marks.get(int(r["seq"]))
            if not m or 1 not in m.get("start", {}) or 1 not in m.get("stop", {}):
                sys.exit(f"insns: no marks on vCPU 1 for the rule load {r['seq']}")
            loads[int(r["round"])][int(r["rules"])] = \
                [b - a for a, b in zip(m["start"][1], m["stop"][1])]
    per = {"kernel": [], "user": []}
    n = 0
    for k, by_n in loads.items():
        n = max(by_n)
        if 1 not in by_n or n <= 1:
            continue
        for side, kernel in (("kernel", 1), ("user", 0)):
            per[side].append((weighted(by_n[n], kernel) - weighted(by_n[1], kernel)) / (n - 1))
    for side in per:
        add(f"ruleload_{side}_insn_per_rule", per[side], rules=n)
    replaces = {int(r["seq"]): int(r["replaces"]) for r in read("rgen.csv")}
    by_seq = {int(r["seq"]): r for r in runs}
    rep_idle, rule_idle = idle.get("ring-fwd-replace", {}), idle.get("ring-fwd-rule", {})
    per_replace, rates = {}, []
    for seq, n in replaces.items():
        r = by_seq.get(seq)
        if not r or r["size"] != "0" or not int(r["round"]) or not n:
            continue
        k = int(r["round"])
        rates.append(n * 1e6 / int(r["usec"]))
        if k in rep_idle and k in rule_idle:
            per_replace[k] = (rep_idle[k] - rule_idle[k]) * int(r["usec"]) / 1e6 / n
    add("rules_replaces_per_s", rates, 0,
        asked=int(os.environ.get("NETSLICE_BENCH_REPLACE_RATE", 100000)))
    add("rules_insn_per_replace", list(per_replace.values()))
    num, den = per_row.get("ring-fwd-replace@64", {}), per_row.get("ring-fwd-rule@64", {})
    add("rules_replace_vs_none_64", [num[k] / den[k] for k in num if k in den and den[k]], 3)
    dp = []
    for seq, n in replaces.items():
        r = by_seq.get(seq)
        if not r or r["contender"] != "ring-fwd-replace" or r["size"] != "64":
            continue
        k = int(r["round"])
        if k in per_replace and den.get(k) and k in num and int(r["forwarded"]):
            dp.append((num[k] - per_replace[k] * n / int(r["forwarded"])) / den[k])
    add("rules_replace_dp_vs_none_64", dp, 3)
    return rows


def nat_rows(d, marks):
    """nf-nat's cost a connection (nconn.csv, bench_insn_natconn): the DUT's
    instructions between a measurement's marks, less its idle second's at
    that rate over the measurement's span (what the NF spends a second with
    no load), over the SYNs answered, on one slice and on two, and per round
    the two's over the one's. A measurement that answered under 99% of its
    SYNs is a finding, not a cost: its rows say so and are left out."""
    path = os.path.join(d, "nconn.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        runs = [r for r in csv.DictReader(f) if int(r["round"])]
    per = defaultdict(dict)  # slices -> round -> DUT instructions a connection
    rates = {int(r["slices"]): int(r["rate"]) for r in runs}  # SYNs a second offered
    short = []
    for r in runs:
        m = marks_of(marks, r["seq"], f"nf-nat's measurement {r['seq']}")
        sent, answered = int(r["sent"]), int(r["answered"])
        if answered < 0.99 * sent:
            short.append(f"{r['slices']} slice(s), round {r['round']}: {answered} of {sent} SYNs "
                         "answered")
            continue
        busy = dut_insns(m)
        if r.get("idle_seq"):
            im = marks_of(marks, r["idle_seq"], f"nf-nat's idle second {r['idle_seq']}")
            idle = dut_insns(im) * int(r["span_usec"]) / int(r["idle_usec"])
            # An idle second busier than half the measurement (a burst of
            # other work in it) would leave a cost made of noise.
            if idle > busy / 2:
                short.append(f"{r['slices']} slice(s), round {r['round']}: its idle second "
                             f"{idle / busy:.0%} of the measurement")
                continue
            busy -= idle
        per[int(r["slices"])][int(r["round"])] = busy / answered
    rows = []
    note = {"note": "left out: " + "; ".join(short)} if short else {}
    for slices in sorted(per):
        vals = list(per[slices].values())
        rows.append(dict({"name": f"nat_insn_per_conn_{slices}s", "value": round(statistics.median(vals), 1),
                          "spread_pct": round(spread_pct(vals), 2), "target": None, "met": None,
                          "rate": rates.get(slices)}, **note))
    one, two = per.get(1, {}), per.get(2, {})
    ratios = [two[k] / one[k] for k in two if one.get(k)]
    if ratios:
        rows.append(dict({"name": "nat_2s_vs_1s_insn_per_conn", "value": round(statistics.median(ratios), 3),
                          "spread_pct": round(spread_pct(ratios), 2), "target": None, "met": None},
                         **note))
    elif short:
        rows.append(dict({"name": "nat_2s_vs_1s_insn_per_conn", "value": None, "spread_pct": None,
                          "target": None, "met": None}, **note))
    return rows


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    d, base, commit = argv[1:4]
    topology = argv[4] if len(argv) == 5 else "veth"
    prefix = "" if topology == "veth" else topology + "_"
    ratios = {prefix + name: spec for name, spec in RATIOS.items()}
    marks, samples = read_marks(os.path.join(d, "plugin.txt"))
    with open(os.path.join(d, "insn.csv")) as f:
        runs = list(csv.DictReader(f))
    out_rows = []
    per_row = defaultdict(dict)  # "name@size" -> round -> insn/pkt
    bytes_row = defaultdict(dict)
    copy_row = defaultdict(dict)  # "name@size" -> round -> bytes copied by rep movs a frame
    l2_row = defaultdict(dict)  # "name@size" -> round -> L2 lines brought in a frame
    gen_row = defaultdict(dict)  # "name@size" -> round -> the generator's vCPU's instructions a frame
    # The cache model ran (cache=on): some vCPU missed in its L1.
    cache_on = any(v[L1K] or v[L1U] for m in marks.values() for side in m.values()
                   for v in side.values())
    idle = defaultdict(dict)  # contender -> round -> DUT instructions per second, no load
    idle_gen = {}  # (contender, round) -> vCPU 0's instructions per second, no load
    lossy = set()  # comparison rows that lost over 0.1% in some round: not judged
    lost_at = read_lost(os.path.join(d, "lost.txt"))
    # netslice rows that lost any frame: findings. "name@size" -> frames
    # lost, frames sent, rounds, counters summed over those rounds.
    found = defaultdict(lambda: {"lost": 0, "sent": 0, "rounds": [], "counters": Counter(),
                                 "names": {}, "recorded": True})
    # A row measured at two of xdpgen's batches: the larger is the row
    # (CONTENDER@SIZE), the other CONTENDER@SIZE/BATCH.
    large = defaultdict(int)
    for r in runs:
        large[(r["contender"], r["size"])] = max(large[(r["contender"], r["size"])],
                                                 int(r.get("batch") or 0))

    def gen_work(gen, r, fwd):
        """vCPU 0's instructions a frame less what it runs idle over the
        row's span (its tick and the guest's timekeeping, which the row's
        wall time sets, not its frames): the generator's own work. The
        raw count where a run has no span or no idle row."""
        span = int(r.get("span_usec") or 0)
        rate = idle_gen.get((r["contender"], int(r["round"])))
        if not span or rate is None:
            return round(gen / fwd, 1)
        return round(max(gen - rate * span / 1e6, 0) / fwd, 1)

    def key_of(r):
        b = int(r.get("batch") or 0)
        return f"{r['contender']}@{r['size']}" + (f"/{b}" if b and b != large[(r["contender"], r["size"])] else "")

    for r in runs:
        seq = int(r["seq"])
        m = marks_of(marks, seq, f"row {seq} ({r['contender']}): is the plugin loaded?")
        delta = {v: [b - a for a, b in zip(m["start"][v], m["stop"][v])] for v in m["stop"]}
        dut = [v for v in delta if v not in (GEN_VCPU, SINK_VCPU)]
        if int(r["round"]) == 0:
            continue  # the warm-up round
        if int(r["size"]) == 0:
            idle[r["contender"]][int(r["round"])] = \
                sum(weighted_all(delta[v]) for v in dut) * 1e6 / int(r["usec"])
            idle_gen[(r["contender"], int(r["round"]))] = \
                weighted_all(delta[GEN_VCPU]) * 1e6 / int(r["usec"])
            continue
        fwd = int(r["forwarded"])
        if fwd <= 0:
            sys.exit(f"insns: row {seq} ({r['contender']}) forwarded nothing")
        if netslice_row(r["contender"]):
            if fwd < int(r["sent"]):
                f = found[key_of(r)]
                f["lost"] += int(r["sent"]) - fwd
                f["sent"] += int(r["sent"])
                f["rounds"].append(int(r["round"]))
                c = lost_at.get(seq, {})
                f["names"].update({k: v for k, v in c.items() if isinstance(v, str)})
                f["counters"].update({k: v for k, v in c.items()
                                      if not isinstance(v, str) and k not in ("sent", "forwarded")})
                f["recorded"] = f["recorded"] and seq in lost_at
        elif (int(r["sent"]) - fwd) * 1000 > int(r["sent"]):
            lossy.add(key_of(r))
        ik = sum(weighted(delta[v], 1) for v in dut)
        iu = sum(weighted(delta[v], 0) for v in dut)
        raw = sum(delta[v][IK] + delta[v][IU] for v in dut)
        mem = sum(sum(delta[v][LK:SU + 1]) for v in dut)
        rbk = sum(delta[v][MBK] for v in dut)
        rbu = sum(delta[v][MBU] for v in dut)
        fill = sum(delta[v][SBK] + delta[v][SBU] for v in dut)
        row = {
            "seq": seq, "round": int(r["round"]), "contender": r["contender"],
            "size": int(r["size"]), "batch": int(r.get("batch") or 0),
            "offered_pps": int(r["offered_pps"]),
            "sent": int(r["sent"]), "forwarded": fwd,
            "insn_per_pkt": round((ik + iu) / fwd, 1),
            "kernel_insn_per_pkt": round(ik / fwd, 1), "user_insn_per_pkt": round(iu / fwd, 1),
            "raw_insn_per_pkt": round(raw / fwd, 1),
            "copy_bytes_per_pkt": round((rbk + rbu) / fwd, 1),
            "kernel_copy_bytes_per_pkt": round(rbk / fwd, 1),
            "user_copy_bytes_per_pkt": round(rbu / fwd, 1),
            "fill_bytes_per_pkt": round(fill / fwd, 1),
            "copy_iters_per_pkt": round(sum(delta[v][RIK] + delta[v][RIU] for v in dut) / fwd, 1),
            "mem_bytes_per_pkt": round(mem / fwd, 1),
            "gen_insn_per_pkt": round(weighted_all(delta[GEN_VCPU]) / fwd, 1),
            "gen_work_per_pkt": gen_work(weighted_all(delta[GEN_VCPU]), r, fwd),
            "sink_insn_per_pkt": round(weighted_all(delta[SINK_VCPU]) / fwd, 1)
            if SINK_VCPU in delta else 0.0,
        }
        if cache_on:
            row.update({
                "l2_lines_per_pkt": round(sum(delta[v][L2K] + delta[v][L2U] for v in dut) / fwd, 2),
                "kernel_l2_lines_per_pkt": round(sum(delta[v][L2K] for v in dut) / fwd, 2),
                "user_l2_lines_per_pkt": round(sum(delta[v][L2U] for v in dut) / fwd, 2),
                "l1_lines_per_pkt": round(sum(delta[v][L1K] + delta[v][L1U] for v in dut) / fwd, 2),
                "io_per_pkt": round(sum(delta[v][IOK] + delta[v][IOU] for v in dut) / fwd, 2),
            })
            l2_row[key_of(r)][int(r["round"])] = row["l2_lines_per_pkt"]
        for v in sorted(dut):
            row[f"vcpu{v}_insn_per_pkt"] = round(weighted_all(delta[v]) / fwd, 1)
        # A row that lost frames says where, in its own line.
        row["lost"] = max(int(r["sent"]) - fwd, 0)
        row["lost_where"] = where(lost_at.get(seq, {}), r["contender"]) if row["lost"] else ""
        out_rows.append(row)
        key = key_of(r)
        per_row[key][row["round"]] = row["insn_per_pkt"]
        # Judged on the raw count: the idle rate taken off over-corrects
        # when a contender's own timers fall in its idle second (the
        # bridge's: 3 M a second on vCPU 0, work 0 a frame).
        gen_row[key][row["round"]] = row["gen_insn_per_pkt"]
        bytes_row[key][row["round"]] = row["mem_bytes_per_pkt"]
        copy_row[key][row["round"]] = row["copy_bytes_per_pkt"]

    with open(base + "-insn.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(out_rows[0].keys()))
        w.writeheader()
        w.writerows(out_rows)

    # Profiles: every round's samples of a row together, DUT vCPUs only.
    prof_dir = base + "-insn-profile"
    os.makedirs(prof_dir, exist_ok=True)
    kernel = Symbols([os.path.join(d, "kallsyms")])
    # The guest lists module symbols again only when a contender came up:
    # a row's are the last list at or before it.
    modsyms = sorted(int(f.split("-", 1)[1]) for f in os.listdir(d)
                     if re.fullmatch(r"modsyms-\d+", f))
    folded = defaultdict(Counter)
    sched = defaultdict(dict)  # "name@size" -> round -> scheduling instructions a frame
    for r in runs:
        seq = int(r["seq"])
        if int(r["round"]) == 0:
            continue
        in_sched = all_dut = 0
        at = [m for m in modsyms if m <= seq]
        mods = Symbols([os.path.join(d, "kallsyms"), os.path.join(d, f"modsyms-{at[-1]}")]) \
            if at else kernel
        maps = read_maps(os.path.join(d, f"maps-{seq}"))
        for (vcpu, pc), n in samples.get(seq, {}).items():
            side = {GEN_VCPU: "load/gen-", SINK_VCPU: "load/sink-"}.get(vcpu, "")
            all_dut += 0 if side else n
            if pc >= 0xffff800000000000:
                obj, fn = mods.name(pc)
                stack = f"kernel;{obj};{fn}"
                if not side and sched_fn(obj, fn):
                    in_sched += n
            else:
                obj, fn = user_name(maps, pc)
                stack = f"user;{obj};{fn}"
            # A row at its smaller batch is a profile of its own (_bBATCH).
            folded[f"{side}{row_name(key_of(r)).replace('_', '-', 1)}" if int(r["size"])
                   else f"{side}{r['contender']}-idle"][stack] += n
        if int(r["size"]) and int(r["forwarded"]) > 0 and all_dut:
            m = marks[seq]
            raw = sum(b - a for v in m["stop"] if v not in (GEN_VCPU, SINK_VCPU)
                      for a, b in zip(m["start"][v][IK:IU + 1], m["stop"][v][IK:IU + 1]))
            sched[key_of(r)][int(r["round"])] = raw * in_sched / all_dut / int(r["forwarded"])
    os.makedirs(os.path.join(prof_dir, "load"), exist_ok=True)
    for name, stacks in folded.items():
        # The module's code belongs to the DUT: on a load vCPU it is
        # work the DUT's count misses (bench/run.sh keeps unbound work
        # on the DUT's CPU).
        ours = sum(n for stack, n in stacks.items() if ";netslice;" in stack)
        if name.startswith("load/") and ours:
            print(f"# warning: {ours} samples of netslice code on a load vCPU ({name})")
        with open(os.path.join(prof_dir, name + ".folded"), "w") as f:
            for stack, n in stacks.most_common():
                f.write(f"{stack} {n}\n")

    def loss_guard(row, keys):
        """A row made of rows KEYS: a netslice row's loss does not escape
        its target (not met, a finding); a comparison's loss leaves it
        not judged."""
        if any(k in found for k in keys):
            if row["target"]:
                row["met"] = False
            row["note"] = "finding: " + ", ".join(
                f"{k} lost frames ({prefix}lost_frames_{row_name(k)})" for k in keys if k in found)
        elif any(k in lossy for k in keys):
            row["met"] = None
            row["note"] = "frames lost at the offered rate: not judged"
        return row

    # Headline ratios, round by round, then their median and spread.
    # In L2 lines too (the cache model): name_l2, L2_TARGETS' targets.
    rows = []
    measures = [("", per_row, True)] + ([("_l2", l2_row, False)] if cache_on else [])
    for (name, (num, den, target)), (suffix, per, judged) in \
            ((r, m) for m in measures for r in ratios.items()):
        if num not in per or den not in per or (suffix and "capacity_" in name):
            continue
        target = target if judged else L2_TARGETS.get(name[len(prefix):])
        name += suffix
        rounds = sorted(k for k in set(per[num]) & set(per[den]) if per[den][k])
        if not rounds:
            continue
        vals = [per[num][k] / per[den][k] for k in rounds]
        value = statistics.median(vals)
        met = judge(value, target) if target else None
        row = {"name": name, "value": round(value, 3), "spread_pct": round(spread_pct(vals), 2),
               "target": target, "met": met}
        rows.append(loss_guard(row, (num, den)))
    # Own cost: a row less its path's floor, round by round; the headline
    # ratios again over own costs (own_NAME), where both floors ran.
    own = {}
    for key, per in per_row.items():
        fl = floor_of(key)
        if fl in per_row:
            own[key] = {k: per[k] - per_row[fl][k] for k in per if k in per_row[fl]}
    for name, (num, den, _) in ratios.items():
        if num in own and den in own and "capacity_" not in name:
            rounds = [k for k in own[num] if k in own[den] and own[den][k] > 0]
            vals = [own[num][k] / own[den][k] for k in rounds]
            if vals:
                value = statistics.median(vals)
                target = OWN_TARGETS.get(name[len(prefix):])
                rows.append(loss_guard(
                    {"name": name.replace(prefix, prefix + "own_", 1) if prefix else "own_" + name,
                     "value": round(value, 3),
                     "spread_pct": round(spread_pct(vals), 2), "target": target,
                     "met": target and judge(value, target),
                     "floors": [floor_of(num), floor_of(den)]},
                    (num, den, floor_of(num), floor_of(den))))
    for key in sorted(own):
        vals = list(own[key].values())
        if vals:
            rows.append({"name": "own_insn_per_pkt_" + row_name(key),
                         "value": round(statistics.median(vals), 1),
                         "spread_pct": round(spread_pct(vals), 2), "target": None, "met": None,
                         "floor": floor_of(key)})
    # Scheduling and wake-ups a frame (SCHED_RE), and ring mode's over the
    # bridge's, round by round.
    for key in sorted(sched):
        vals = list(sched[key].values())
        rows.append({"name": "sched_insn_per_pkt_" + row_name(key),
                     "value": round(statistics.median(vals), 1),
                     "spread_pct": None, "target": None, "met": None})
    for name, (num, den) in SCHED_ROWS.items():
        ring, bridge = sched.get(num, {}), sched.get(den, {})
        vals = [ring[k] - bridge[k] for k in sorted(set(ring) & set(bridge))]
        if vals:
            value = statistics.median(vals)
            rows.append(loss_guard({"name": prefix + name,
                                    "value": round(value, 1), "spread_pct": None,
                                    "target": SCHED_TARGET, "met": judge(value, SCHED_TARGET)},
                                   (num, den)))
    # Ratios in bytes and L2 lines (MEASURE_RATIOS), round by round.
    by_measure = {"l2": l2_row, "copy": copy_row, "mem": bytes_row}
    for name, (measure, num, den, target) in MEASURE_RATIOS.items():
        a, b = by_measure[measure].get(num, {}), by_measure[measure].get(den, {})
        vals = [a[k] / b[k] for k in sorted(set(a) & set(b)) if b[k]]
        if vals:
            value = statistics.median(vals)
            rows.append(loss_guard({"name": prefix + name, "value": round(value, 3),
                                    "spread_pct": round(spread_pct(vals), 2), "target": target,
                                    "met": judge(value, target) if target else None},
                                   (num, den)))
    # The generator's cost against the DUT's (the worst 64-byte row of a
    # contender, at the row's own batch), and each row's capacity in an
    # instruction budget: frames per 10^9 DUT instructions. The floors
    # are left out of the judgement (a null forwarder costs less than any
    # generator; no capacity of theirs is judged) but listed with the rest.
    gen_vs = {key: round(statistics.median(gen_row[key][k] / per_row[key][k] for k in per_row[key]), 3)
              for key in per_row if key.endswith("@64")}
    judged = {k: v for k, v in gen_vs.items() if floor_of(k)}
    if judged:
        worst = max(judged, key=judged.get)
        rows.append({"name": prefix + "gen_vs_dut_insn_64", "value": judged[worst],
                     "spread_pct": None, "target": "<= 0.5", "met": judged[worst] <= 0.5,
                     "row": worst, "rows": gen_vs})
    for key in sorted(k for k in per_row if "/" not in k):
        v = statistics.median(per_row[key].values())
        rows.append({"name": "capacity_per_ginsn_" + row_name(key),
                     "value": round(1e9 / v) if v else None, "spread_pct": None,
                     "target": None, "met": None})
    # Two batches of a row: cost = a + b / batch, a per frame, b per batch.
    for small in sorted(k for k in per_row if "/" in k):
        key, bs = small.split("/")
        bl = large[tuple(key.split("@"))]
        if key not in per_row or not bl:
            continue
        rounds = [k for k in per_row[small] if k in per_row[key]]
        fits = []
        for k in rounds:
            b = (per_row[small][k] - per_row[key][k]) / (1 / int(bs) - 1 / bl)
            fits.append((per_row[key][k] - b / bl, b))
        if fits:
            name = key.replace("@", "_")
            rows.append({"name": "per_frame_" + name, "value": round(statistics.median(f[0] for f in fits), 1),
                         "spread_pct": round(spread_pct([f[0] for f in fits]), 2), "target": None,
                         "met": None, "batches": [int(bs), bl]})
            rows.append({"name": "per_batch_" + name, "value": round(statistics.median(f[1] for f in fits), 1),
                         "spread_pct": None, "target": None, "met": None, "batches": [int(bs), bl]})
    for label, per in [("copy_bytes_per_pkt_", copy_row)] + \
            ([("l2_lines_per_pkt_", l2_row)] if cache_on else []):
        for key in sorted(per):
            vals = list(per[key].values())
            rows.append({"name": label + row_name(key),
                         "value": round(statistics.median(vals), 1),
                         "spread_pct": round(spread_pct(vals), 2), "target": None, "met": None})
    rows += calibration_rows(os.path.join(d, "cal.csv"), marks, cache_on)
    rows += [dict(r, name=prefix + r["name"]) for r in rule_rows(d, marks, runs, per_row, idle)]
    rows += nat_rows(d, marks)
    for key in sorted(per_row):
        vals = list(per_row[key].values())
        rows.append({"name": "insn_per_pkt_" + row_name(key),
                     "value": round(statistics.median(vals), 1),
                     "spread_pct": round(spread_pct(vals), 2), "target": None, "met": None})
        if key in found:
            rows[-1]["note"] = "frames lost at the offered rate: finding"
        elif key in lossy:
            rows[-1]["note"] = "frames lost at the offered rate"
    # The findings: each netslice row that lost frames, and where they went.
    findings = []
    for key in sorted(found):
        f = found[key]
        text = where(dict(f["counters"], **f["names"]) if f["counters"] else {},
                     key.split("@")[0])
        if f["counters"] and not f["recorded"]:
            text += " (not every lossy round recorded)"
        findings.append({"name": prefix + "lost_frames_" + row_name(key),
                         "value": f["lost"], "spread_pct": None, "target": "= 0", "met": False,
                         "finding": True, "sent": f["sent"], "rounds": f["rounds"],
                         "where": text})
    rows += findings
    for name in sorted(idle):
        vals = list(idle[name].values())
        rows.append({"name": "idle_insn_per_s_" + name, "value": round(statistics.median(vals)),
                     "spread_pct": round(spread_pct(vals), 2), "target": None, "met": None})

    # The same commit measured before: how far its headline ratios lie.
    # DIR/previous-targets.json is the run this one replaces (same name).
    earlier = []
    for path in [os.path.join(d, "previous-targets.json")] + \
            sorted(glob.glob(os.path.join(os.path.dirname(base) or ".", "*-targets.json"))):
        if not os.path.exists(path):
            continue
        if os.path.abspath(path) == os.path.abspath(base + "-targets.json"):
            continue
        with open(path) as f:
            t = json.load(f)
        if t.get("commit") == commit and t.get("measure") == "instructions" and \
                t.get("topology", "veth") == topology:
            earlier.append((path, {r["name"]: r["value"] for r in t["rows"]}))
    if earlier:
        path, prev = earlier[0]
        # Every headline ratio, in instructions and (the cache model's)
        # in L2 lines.
        def headline(name):
            return name in ratios or (name.endswith("_l2") and name[:-3] in ratios)
        diffs = [abs(r["value"] - prev[r["name"]]) * 100 / prev[r["name"]]
                 for r in rows if headline(r["name"]) and prev.get(r["name"])]
        for r in rows:
            if headline(r["name"]) and prev.get(r["name"]):
                r["previous_value"] = prev[r["name"]]
        if diffs:
            rows.append({"name": prefix + "repeat_max_pct", "value": round(max(diffs), 2),
                         "spread_pct": None, "target": "<= 2", "met": max(diffs) <= 2,
                         "against": os.path.basename(path)})
    caps = read_caps(os.path.join(d, "cap.csv"))
    headroom = capacity_rows(caps, rows)
    blast_rows(d, marks, per_row, caps, rows)
    at90_rows(d, prefix, rows)
    offered = [int(r["sent"]) * 1e6 / max(int(r["usec"]), 1) for r in runs
               if int(r["size"]) and int(r["round"])]
    summary = {
        "commit": commit, "measure": "instructions", "topology": topology,
        "offered_pps": sorted({int(r["offered_pps"]) for r in runs
                               if int(r["offered_pps"]) and int(r["round"])}),
        "generator_pps_min": round(min(offered)),
        "generator_headroom_min": headroom,
        "rows": rows,
    }
    with open(base + "-targets.json", "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    for r in rows:
        print(f"# {r['name']:<32} {str(r['value']):>10} "
              f"{'' if r['spread_pct'] is None else '±%.1f%%' % (r['spread_pct'] / 2)}"
              f"{'' if not r['target'] else '  target ' + r['target']}")
    for r in findings:
        rounds = ", ".join(map(str, r["rounds"]))
        print(f"# finding: {r['name']}: {r['value']} of {r['sent']} frames lost "
              f"(round{'s' if len(r['rounds']) > 1 else ''} {rounds}); {r['where']}")


if __name__ == "__main__":
    main(sys.argv)
