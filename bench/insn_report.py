#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""docs/benchmarks.md's instruction tables, from make bench's results.

  insn_report.py BASE [BASE...]

Each BASE is bench/results/<run> as bench/insns.py wrote it (BASE-insn.csv,
BASE-targets.json), one per topology. Replaces the part of the page (or
of $NETSLICE_BENCH_DOC) between the "insn:begin" and "insn:end" markers.
"""
import csv
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docsplice  # noqa: E402  (bench/docsplice.py)

DOC = docsplice.DOC
BEGIN, END = "<!-- insn:begin -->", "<!-- insn:end -->"
ORDER = ["ring-fwd-off", "ring-fwd-auto", "ns-fwd-off", "ns-fwd-auto", "afxdp",
         "afp-mmsg", "afp-v3", "bridge"]
MET = {True: "yes", False: "no", None: "–"}


def half_spread(values):
    m = statistics.median(values)
    return (max(values) - min(values)) * 50 / m if m else 0.0


def tables(base):
    with open(base + "-targets.json") as f:
        t = json.load(f)
    with open(base + "-insn.csv") as f:
        runs = list(csv.DictReader(f))
    by = {}
    for r in runs:
        by.setdefault((r["contender"], int(r["size"])), []).append(r)
    idle = {x["name"][len("idle_insn_per_s_"):]: x["value"] for x in t["rows"]
            if x["name"].startswith("idle_insn_per_s_")}
    rounds = max(int(r["round"]) for r in runs)
    out = [f"**{t['topology']}** (commit {t['commit']}, {rounds} rounds, "
           f"{', '.join(f'{p:,}' for p in t['offered_pps'] if p)} frames/s offered, "
           f"medians, ± half the spread over rounds):", "",
           "| contender | size | instructions per frame | kernel | user "
           "| bytes loaded+stored per frame | idle, instructions/s |",
           "|---|---|---|---|---|---|---|"]
    keys = sorted(by, key=lambda k: (ORDER.index(k[0]) if k[0] in ORDER else len(ORDER), k[1]))
    for k in keys:
        rs = by[k]

        def med(field, rs=rs):
            return statistics.median(float(r[field]) for r in rs)
        spread = half_spread([float(r["insn_per_pkt"]) for r in rs])
        idle_s = f"{idle[k[0]] / 1e6:.1f} M" if k[0] in idle else "–"
        out.append(f"| {k[0]} | {k[1]} B | {med('insn_per_pkt'):,.0f} ±{spread:.0f}% "
                   f"| {med('kernel_insn_per_pkt'):,.0f} | {med('user_insn_per_pkt'):,.0f} "
                   f"| {med('mem_bytes_per_pkt'):,.0f} | {idle_s} |")
    out += ["", "| ratio (per frame, netslice over the peer) | value | ± | previous run "
            "| target (fast-path issue) | met |", "|---|---|---|---|---|---|"]
    caps = [x for x in t["rows"] if x["name"].startswith("capacity_pps_")]
    for x in t["rows"]:
        if x["name"].startswith(("insn_per_pkt", "idle_", "capacity_pps_")) or x.get("finding"):
            continue
        sp = "" if x.get("spread_pct") is None else f"{x['spread_pct'] / 2:.1f}%"
        prev = x.get("previous_value", "")
        if "against" in x:
            prev = "(against the previous run)"
        met = MET[x.get("met")]
        if x.get("note", "").startswith("finding"):
            met += " (finding: frames lost)"
        out.append(f"| `{x['name']}` | {x['value']} | {sp} | {prev} "
                   f"| {x.get('target') or '–'} | {met} |")
    if caps:
        out += ["", "| capacity (RFC 2544, loss < 0.1%) | frames/s | generator offered "
                "| forwarded at the generator's rate | headroom | |", "|---|---|---|---|---|---|"]
        for x in caps:
            v = f"{x['value']:,}" if x["value"] else "–"
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
    if len(argv) < 2:
        sys.exit(__doc__)
    text = "\n\n".join(tables(b) for b in argv[1:] if os.path.exists(b + "-targets.json"))
    docsplice.splice(DOC, BEGIN, END, text, "insn_report")


if __name__ == "__main__":
    main(sys.argv)
