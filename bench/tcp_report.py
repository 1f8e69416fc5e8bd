#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bulk TCP run's rows (bench/tcp.sh), with their targets.

  tcp_report.py BASE COMMIT

BASE is bench/results/<run>; reads BASE-tcp.csv (round, contender, conns,
goodput, reads per MiB) and writes BASE-tcp-targets.json: each row a
ratio of goodputs taken round by round (the median, and the spread over
rounds), or a count's median, and whether it meets its target. Goodput
under the emulator moves with the host: only ratios within one run, of
contenders measured in interleaved rounds, are compared. report.py shows
the same rows in docs/bench-ticks.md.
"""
import csv
import json
import os
import statistics
import sys

# (row, (contender, conns), (against, conns) or None, field, (op, target)).
TCP_TARGETS = [
    ("tcp_p1_auto_vs_bridge", ("ns-fwd", 1), ("bridge", 1), "goodput_mbytes_per_s", (">=", 0.8)),
    # Issue 64 item 5: eight connections at once, each its own process.
    ("tcp_p8_auto_vs_bridge", ("ns-fwd", 8), ("bridge", 8), "goodput_mbytes_per_s", (">=", 0.9)),
    ("tcp_nat_vs_masq", ("ns-nat", 1), ("masq", 1), "goodput_mbytes_per_s", (">=", 0.8)),
    ("tcp_reads_per_mib", ("ns-fwd", 1), None, "reads_per_mib", ("<=", 50)),
]


def load_tcp(base):
    """{(contender, conns): {round: row}} of BASE-tcp.csv, or {}."""
    found = {}
    if os.path.exists(base + "-tcp.csv"):
        with open(base + "-tcp.csv") as f:
            for r in csv.DictReader(f):
                found.setdefault((r["contender"], int(r["conns"])), {})[int(r["round"])] = r
    return found


def value(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def tcp_rows(tcp):
    """The rows TCP_TARGETS name that the run has: name, value, spread_pct
    (over rounds, of the median), target, met."""
    rows = []
    for name, a, b, field, (op, goal) in TCP_TARGETS:
        ra = {k: value(r[field]) for k, r in tcp.get(a, {}).items()}
        if b:
            rb = {k: value(r[field]) for k, r in tcp.get(b, {}).items()}
            vals = [ra[k] / rb[k] for k in ra if k in rb and ra[k] is not None and rb[k]]
        else:
            vals = [v for v in ra.values() if v is not None]
        if not vals:
            continue
        med = statistics.median(vals)
        spread = (max(vals) - min(vals)) * 100 / med if med else 0.0
        rows.append({"name": name, "value": round(med, 3 if b else 1), "ratio": bool(b),
                     "spread_pct": round(spread, 1), "target": f"{op} {goal}",
                     "met": med <= goal if op == "<=" else med >= goal})
    return rows


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    base, commit = argv[1], argv[2]
    rows = tcp_rows(load_tcp(base))
    if not rows:
        sys.exit(f"tcp_report: no rows in {base}-tcp.csv")
    with open(base + "-tcp-targets.json", "w") as f:
        json.dump({"commit": commit, "measure": "tcp goodput", "rows": rows}, f, indent=1)
        f.write("\n")
    for r in rows:
        print(f"# {r['name']:<28} {r['value']:>8} ±{r['spread_pct'] / 2:.1f}%  target {r['target']}"
              f"  {'met' if r['met'] else 'not met'}")


if __name__ == "__main__":
    main(sys.argv)
