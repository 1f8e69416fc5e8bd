#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The rule-update run's rows and table, from make bench's results.

  rules_report.py BASE COMMIT

BASE is bench/results/<run>: BASE-rules.csv (bench/rule_update.sh's rows:
kind, asked and done per second, forwarding rate, ring drops) and
BASE-ruleload.csv (its bulk load) and BASE-natconn.csv (bench/nat_conn.sh:
the steps of new connections a second through nf-nat on one slice and on
two, with rules and without). Writes BASE-rules-targets.json (the
connection-speed issue's rows, with targets) and replaces the part of
docs/bench-ticks.md (or $NETSLICE_BENCH_DOC) between the "rules:begin" and
"rules:end" markers. One run, one round: ratios within it only.
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docsplice  # noqa: E402  (bench/docsplice.py)

DOC = docsplice.page("bench-ticks.md")
BEGIN, END = "<!-- rules:begin -->", "<!-- rules:end -->"
KINDS = {
    "none": "no updates",
    "replace": "one rule replaced, same slice",
    "switch": "one rule replaced, alternating slices 0 and 1",
    "distinct": "distinct new exact rules (one per connection)",
}


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def rows_of(updates, loads, conns=()):
    """The targets file's rows: name, value, target, met (None: no target)."""
    by = {(r["kind"], int(r["asked_per_s"])): r for r in updates}
    none = by.get(("none", 0))
    base_pps = int(none["forwarded_pps"]) if none else 0
    rows = []

    def add(name, value, target=None, note=None):
        met = None
        if target:
            op, goal = target.split()
            met = value >= float(goal) if op == ">=" else value <= float(goal)
        row = {"name": name, "value": value, "target": target, "met": met}
        if note:
            row["note"] = note
        rows.append(row)

    for kind, name, target in (("replace", "rule_replace", ">= 95000"),
                               ("switch", "rule_switch", None),
                               ("distinct", "rule_distinct", ">= 100000")):
        top = max((r for (k, _), r in by.items() if k == kind),
                  key=lambda r: int(r["asked_per_s"]), default=None)
        if not top:
            continue
        asked = int(top["asked_per_s"])
        add(f"{name}_rate", int(top["done_per_s"]), target, f"asked {asked:,}/s")
        if base_pps:
            add(f"{name}_fwd_ratio", round(int(top["forwarded_pps"]) / base_pps, 3),
                ">= 0.95" if kind == "replace" else None,
                "forwarding during the updates vs none")
    for r in loads:
        add("rule_load_rate", int(r["rules_per_s"]), ">= 200000",
            f"{int(r['rules']):,} rules in one request")
    # Each round's configurations: the answers a second of the highest kept
    # step; the row is the median of the rounds' ratios (of an even number,
    # the lower middle one).
    kept = {}
    for r in conns:
        if r["kept"] == "1":
            key = (r.get("round", "1"), int(r["slices"]), r["rules"])
            kept[key] = max(kept.get(key, 0), int(r["answered_per_s"]))
    ratios = []
    for rnd in dict.fromkeys(r.get("round", "1") for r in conns):
        one, two = kept.get((rnd, 1, "no")), kept.get((rnd, 2, "yes"))
        if one and two:
            ratios.append((two / one, two, one))
    if ratios:
        two_one = sorted(ratios)[(len(ratios) - 1) // 2]
        add("nat_conn_rate_2s_vs_1s", round(two_one[0], 3), ">= 1.6",
            f"median of {len(ratios)} round(s): {two_one[1]:,} vs {two_one[2]:,} "
            "connections/s kept up with; each round's: "
            + ", ".join(f"{q:.2f}" for q, _, _ in ratios))
    return rows


def table(base, commit, updates, rows, conns=()):
    out = ["### Rule updates under load (nf-fwd, 64 B saturation, one run)", "",
           f"Run `{os.path.basename(base)}` at commit {commit}: one round, so only "
           "its ratios mean anything.", "",
           "| updates | asked/s | done/s | forwarded packets/s | ring drops |",
           "|---|---|---|---|---|"]
    for r in updates:
        out.append(f"| {KINDS.get(r['kind'], r['kind'])} | {int(r['asked_per_s']):,} | "
                   f"{int(r['done_per_s']):,} | {int(r['forwarded_pps']):,} | "
                   f"{int(r['drops']):,} |")
    if conns:
        out += ["", "New TCP connections through nf-nat at rising rates (a step is kept "
                "when 95% of its SYNs come back answered; each configuration stops at its "
                "first missed step; the rounds run the configurations in turn; every step "
                "in BASE-natconn.csv):", "",
                "| round | slices | rules | highest kept: offered/s | answered/s | "
                "first missed: offered/s | answered/s | ring drops |",
                "|---|---|---|---|---|---|---|---|"]
        configs = []
        for r in conns:
            cfg = (r.get("round", "1"), r["slices"], r["rules"])
            if cfg not in configs:
                configs.append(cfg)
        for cfg in configs:
            steps = [r for r in conns if (r.get("round", "1"), r["slices"], r["rules"]) == cfg]
            kept = [r for r in steps if r["kept"] == "1"]
            top = max(kept, key=lambda r: int(r["answered_per_s"])) if kept else None
            miss = next((r for r in steps if r["kept"] != "1"), None)
            cell = lambda r, k: f"{int(r[k]):,}" if r else "–"  # noqa: E731
            out.append(f"| {cfg[0]} | {cfg[1]} | {cfg[2]} | {cell(top, 'offered_per_s')} | "
                       f"{cell(top, 'answered_per_s')} | {cell(miss, 'offered_per_s')} | "
                       f"{cell(miss, 'answered_per_s')} | {cell(miss, 'ring_drops')} |")
    out += ["", "| row | this run | target | met |", "|---|---|---|---|"]
    for r in rows:
        value = f"{r['value']:,}" if isinstance(r["value"], int) else f"{r['value']:.2f}"
        met = {True: "yes", False: "no", None: "–"}[r["met"]]
        out.append(f"| `{r['name']}` ({r.get('note', '')}) | {value} | "
                   f"{r['target'] or '–'} | {met} |")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    base, commit = argv[1], argv[2]
    updates = read_csv(base + "-rules.csv")
    if not updates:
        sys.exit(f"rules_report: {base}-rules.csv has no rows")
    conns = read_csv(base + "-natconn.csv")
    rows = rows_of(updates, read_csv(base + "-ruleload.csv"), conns)
    with open(base + "-rules-targets.json", "w") as f:
        json.dump({"commit": commit, "measure": "rule updates", "rows": rows}, f, indent=1)
        f.write("\n")
    docsplice.splice(DOC, BEGIN, END, table(base, commit, updates, rows, conns), "rules_report")
    for r in rows:
        print(f"# {r['name']:<28} {r['value']:>10}"
              f"{'  target ' + r['target'] if r['target'] else ''}")


if __name__ == "__main__":
    main(sys.argv)
