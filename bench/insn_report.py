#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs/benchmarks.md's instruction tables, from make bench's results.

  insn_report.py [--markers NAME] BASE [BASE...]

Each BASE is bench/results/<run> as bench/insns.py wrote it (BASE-insn.csv,
BASE-targets.json), one per topology; a BASE with no targets.json is left
out, two of one topology are refused. Replaces the part of the page (or
of $NETSLICE_BENCH_DOC) between the "insn:begin" and "insn:end" markers
(NAME:begin and NAME:end with --markers: "insn-chain", the chain rows'
runs, make bench ROWS=chain).

Per topology: a table of rows (instructions per frame with copies weighed
in, kernel and user, bytes loaded and stored, copy bytes, L2 lines, own
instructions over the path's floor, frames per 10^9 instructions, idle),
each column or row a run lacks (one made before the measure) printed
"–"; the targets table of that one run, its name and commit above it:
every row with a target, met or not met as the run judged it, "not
judged" where it did not (met null, or a note says so), "–" where the
run has no such row; then the reported rows (ratios without a target,
in L2 lines, over own costs; calibration by kind); the capacity search;
the findings (netslice rows that lost frames).
"""
import csv
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docsplice  # noqa: E402  (bench/docsplice.py)
import insns  # noqa: E402  (bench/insns.py: the ratios and their targets)

DOC = docsplice.DOC
BEGIN, END = "<!-- insn:begin -->", "<!-- insn:end -->"
ORDER = ["ring-fwd-off", "ring-fwd-auto", "ns-fwd-off", "ns-fwd-auto", "afxdp",
         "afp-mmsg", "afp-v3", "bridge", "ring-chain-auto", "ring-pair-off", "ring-pair-auto",
         "afxdp-pair", "base-ring-fwd-off", "base-ring-fwd-auto",
         "base-fwd-off", "base-fwd-auto", "floor-tc", "floor-xdp"]
# insns.py's targets besides the ratios': row (less the topology's
# prefix) -> target, and whether the row is prefixed.
OTHER_TARGETS = [("gen_vs_dut_insn_64", "<= 0.5", True),
                 ("cal_copy_error_pct", "<= 10", False),
                 ("cal_miss_error_pct", "<= 10", False),
                 ("repeat_max_pct", "<= 2", True),
                 ("generator_headroom_min", ">= 1.5", False)]
# Rows shown as the rows table's columns, or in tables of their own.
COLUMN_ROWS = ("insn_per_pkt_", "idle_", "capacity_pps_", "own_insn_per_pkt_",
               "capacity_per_ginsn_", "copy_bytes_per_pkt_", "l2_lines_per_pkt_",
               "sched_insn_per_pkt_")
DASH = "–"


def half_spread(values):
    m = statistics.median(values)
    return (max(values) - min(values)) * 50 / m if m else 0.0


def status(x):
    """A row's status as its run judged it: met or not met only where met
    is true or false; not judged where the run did not judge a target (met
    null, or a note saying so); "–" for a row reported without a target."""
    note = x.get("note", "")
    if "not judged" in note or (x.get("target") and x.get("met") is None):
        s = "not judged"
        reason = note.split(":")[0] if "not judged" in note else ""
        if reason and reason != "not judged":
            s += f" ({reason})"
    elif not x.get("target"):
        s = DASH
    else:
        s = "met" if x["met"] is True else "not met"
    if note.startswith("finding"):
        s += " (finding: frames lost)"
    return s


def expected_targets(t, keys):
    """The rows with a target this run's topology and contenders could have
    made: name -> target."""
    prefix = "" if t.get("topology", "veth") == "veth" else t["topology"] + "_"
    want = {}
    for name, (num, den, target) in insns.RATIOS.items():
        if target and num in keys and den in keys:
            want[prefix + name] = target
    # In L2 lines where the cache model ran; over own costs where the
    # floors ran; scheduling where the ring and the bridge did.
    cache_on = any(x["name"].startswith("l2_lines_per_pkt_") for x in t["rows"])
    for name, target in insns.L2_TARGETS.items():
        num, den, _ = insns.RATIOS[name]
        if cache_on and {num, den} <= keys:
            want[prefix + name + "_l2"] = target
    for name, target in insns.OWN_TARGETS.items():
        num, den, _ = insns.RATIOS[name]
        if {num, den, insns.floor_of(num), insns.floor_of(den)} <= keys:
            want[prefix + "own_" + name] = target
    for name, pair in insns.SCHED_ROWS.items():
        if set(pair) <= keys:
            want[prefix + name] = insns.SCHED_TARGET
    # In bytes where both rows ran, in L2 lines where the cache model did.
    for name, (measure, num, den, target) in insns.MEASURE_RATIOS.items():
        if target and {num, den} <= keys and (measure != "l2" or cache_on):
            want[prefix + name] = target
    for name, target, prefixed in OTHER_TARGETS:
        if name == "gen_vs_dut_insn_64" and not any(k.endswith("@64") for k in keys):
            continue
        # A run without the cache model (QUICK=1) has no L2 lines to calibrate.
        if name == "cal_miss_error_pct" and not cache_on:
            continue
        want[(prefix if prefixed else "") + name] = target
    return want


def targets_table(base, t, keys):
    """The targets of one run: the run and commit above them."""
    rows = [x for x in t["rows"] if not x["name"].startswith(COLUMN_ROWS) and not x.get("finding")]
    have = {x["name"] for x in rows}
    want = expected_targets(t, keys)
    judged = [x for x in rows if x.get("target")]
    judged += [{"name": n, "value": None, "target": tg, "missing": True}
               for n, tg in want.items() if n not in have]
    reported = [x for x in rows if not x.get("target")]
    out = [f"Targets of run `{os.path.basename(base)}` (commit {t['commit']}, "
           f"{t.get('topology', 'veth')}):", "",
           "| row | value | ± | previous run | target | status |", "|---|---|---|---|---|---|"]
    for x in judged:
        if x.get("missing"):
            out.append(f"| `{x['name']}` | {DASH} |  |  | {x['target']} | {DASH} (no such row) |")
            continue
        sp = "" if x.get("spread_pct") is None else f"{x['spread_pct'] / 2:.1f}%"
        prev = x.get("previous_value", "")
        if "against" in x:
            prev = "(against the previous run)"
        value = DASH if x.get("value") is None else x["value"]
        out.append(f"| `{x['name']}` | {value} | {sp} | {prev} "
                   f"| {x.get('target') or DASH} | {status(x)} |")
    # The rows without a target, one line: the page is a reference, the
    # run's JSON has every field.
    if reported:
        items = []
        for x in reported:
            sp = "" if x.get("spread_pct") is None else f" ±{x['spread_pct'] / 2:.1f}%"
            value = DASH if x.get("value") is None else x["value"]
            items.append(f"`{x['name']}` {value}{sp}")
        out += ["", "Reported, no target: " + "; ".join(items) + "."]
    return out


def tables(base):
    with open(base + "-targets.json") as f:
        t = json.load(f)
    with open(base + "-insn.csv") as f:
        runs = list(csv.DictReader(f))
    # A row at a smaller batch than its contender's usual (ROW/8) is a
    # row of its own, named _bBATCH as bench/insns.py names it.
    usual = {}
    for r in runs:
        k = (r["contender"], int(r["size"]))
        usual[k] = max(usual.get(k, 0), int(r.get("batch") or 0))
    by = {}
    for r in runs:
        b = int(r.get("batch") or 0)
        b = b if b and b != usual[(r["contender"], int(r["size"]))] else 0
        by.setdefault((r["contender"], int(r["size"]), b), []).append(r)
    rowval = {x["name"]: x["value"] for x in t["rows"]}
    idle = {x["name"][len("idle_insn_per_s_"):]: x["value"] for x in t["rows"]
            if x["name"].startswith("idle_insn_per_s_")}
    rounds = max(int(r["round"]) for r in runs)
    gmin = t.get("generator_pps_min")
    rate = f"the generator at {gmin:,} frames/s or more" if gmin else \
        f"{', '.join(f'{p:,}' for p in t['offered_pps'] if p)} frames/s offered"
    out = [f"**{t.get('topology', 'veth')}**: run `{os.path.basename(base)}`, commit {t['commit']}, "
           f"{rounds} rounds, {rate} (medians, ± half the spread over rounds; "
           f"{DASH}: not in this run):", "",
           "| contender | size | instructions per frame | kernel | user "
           "| bytes loaded+stored per frame | copy bytes per frame "
           "| L2 lines per frame (kernel+user) | own instructions (over the floor) "
           "| scheduling and wake-ups | frames per 10^9 instructions | idle, instructions/s |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted(by, key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else len(ORDER), k[1], k[2]))
    for k in keys:
        rs = by[k]

        def med(field, fmt, rs=rs):
            vals = [r.get(field) for r in rs]
            if any(v in (None, "") for v in vals):
                return DASH
            return format(statistics.median(float(v) for v in vals), fmt)

        def row(prefix, fmt, k=k):
            v = rowval.get(f"{prefix}{k[0]}_{k[1]}" + (f"_b{k[2]}" if k[2] else ""))
            return DASH if v is None else format(v, fmt)
        spread = half_spread([float(r["insn_per_pkt"]) for r in rs])
        idle_s = f"{idle[k[0]] / 1e6:.1f} M" if k[0] in idle else DASH
        out.append(f"| {k[0]} | {k[1]} B{f', {k[2]} a batch' if k[2] else ''} | {med('insn_per_pkt', ',.0f')} ±{spread:.0f}% "
                   f"| {med('kernel_insn_per_pkt', ',.0f')} | {med('user_insn_per_pkt', ',.0f')} "
                   f"| {med('mem_bytes_per_pkt', ',.0f')} | {med('copy_bytes_per_pkt', ',.0f')} "
                   f"| {med('l2_lines_per_pkt', ',.1f')} | {row('own_insn_per_pkt_', ',.0f')} "
                   f"| {row('sched_insn_per_pkt_', ',.0f')} "
                   f"| {row('capacity_per_ginsn_', ',')} | {idle_s} |")
    out += [""] + targets_table(base, t, {f"{n}@{s}" for n, s, _ in by})
    caps = [x for x in t["rows"] if x["name"].startswith("capacity_pps_")]
    if caps:
        out += ["", "| capacity (RFC 2544, loss < 0.1%) | frames/s | generator offered "
                "| forwarded at the generator's rate | headroom | |", "|---|---|---|---|---|---|"]
        for x in caps:
            v = f"{x['value']:,}" if x["value"] else DASH
            out.append(f"| {x['name'][len('capacity_pps_'):]} | {v} | {x['generator_pps']:,} "
                       f"| {x['forwarded_at_generator_pps']:,} | {x['generator_headroom']} "
                       f"| {x.get('note', '')} |")
    findings = [x for x in t["rows"] if x.get("finding")]
    if findings:
        out += ["", "Findings: netslice rows that lost frames (a lost frame is a finding, "
                "never \"not judged\"):", ""]
        out += [f"- `{x['name']}`: {x['value']:,} of {x['sent']:,} frames lost "
                f"(round {', '.join(map(str, x['rounds']))}); {x['where']}" for x in findings]
    return "\n".join(out)


def main(argv):
    args, begin, end = argv[1:], BEGIN, END
    if args[:1] == ["--markers"] and len(args) > 1:
        begin, end = f"<!-- {args[1]}:begin -->", f"<!-- {args[1]}:end -->"
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    bases = [b for b in args if os.path.exists(b + "-targets.json")]
    seen = {}
    for b in bases:
        with open(b + "-targets.json") as f:
            topology = json.load(f).get("topology", "veth")
        if topology in seen:
            sys.exit(f"insn_report: {seen[topology]} and {b} are both of topology {topology}: "
                     "a topology's targets come from exactly one run")
        seen[topology] = b
    text = "\n\n".join(tables(b) for b in bases)
    docsplice.splice(DOC, begin, end, text, "insn_report")


if __name__ == "__main__":
    main(sys.argv)
