#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise one make bench run: medians and spread over its rounds.

    bench/report.py bench/results/DATE-KERNEL

Reads DATE-KERNEL.csv (every round), -cdf.csv, -rules.csv and -meta.txt,
replaces the part of docs/benchmarks.md between the "bench:begin" and
"bench:end" markers with the tables, and draws docs/bench/*.png and *.svg.
"""
import csv
import os
import statistics
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The test points these elsewhere.
DOC = os.environ.get("NETSLICE_BENCH_DOC", os.path.join(TOP, "docs", "benchmarks.md"))
PLOTS = os.environ.get("NETSLICE_BENCH_PLOTS", os.path.join(TOP, "docs", "bench"))
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

LABELS = {
    "ns-fwd-off": "netslice nf-fwd, slicing off",
    "ns-fwd-auto": "netslice nf-fwd, slicing auto",
    "ns-fwd-auto-2s": "netslice nf-fwd, auto, 2 slices",
    "ns-fw-off": "netslice nf-firewall (100 rules), off",
    "ns-fw-auto": "netslice nf-firewall (100 rules), auto",
    "ns-nat-off": "netslice nf-nat, off",
    "ns-nat-auto": "netslice nf-nat, auto",
    "afp-mmsg": "AF_PACKET recvmmsg/sendmmsg",
    "afp-v3": "AF_PACKET TPACKET_V3 + sendmmsg",
    "afxdp": "AF_XDP copy mode (libxdp)",
    "bridge": "Linux bridge (in-kernel)",
}


def median_spread(values):
    """Median and spread ((max - min) / median, in %) of a list."""
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    med = statistics.median(values)
    spread = (max(values) - min(values)) * 100 / med if med else 0.0
    return med, spread


def num(text):
    return float(text) if text not in ("", None) else None


def load(base):
    with open(base + ".csv") as f:
        rows = list(csv.DictReader(f))
    cells = {}
    for r in rows:
        key = (r["contender"], int(r["size"]), int(r["offered_pps"]))
        cells.setdefault(key, []).append(r)
    order = []
    for r in rows:
        if r["contender"] not in order:
            order.append(r["contender"])
    return rows, cells, order


def metric(cells, key, field):
    return median_spread([num(r[field]) for r in cells.get(key, [])])


def fmt(value, spread=None, digits=0):
    if value is None:
        return "–"
    text = f"{value:,.{digits}f}"
    return text + (f" ±{spread / 2:.0f}%" if spread is not None else "")


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "–"


def tables(base, rows, cells, order):
    meta = {}
    with open(base + "-meta.txt") as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            meta[k] = v	# the host's word (accel) comes after the guest's
    sizes = sorted({k[1] for k in cells})
    rates = sorted({k[2] for k in cells if k[2]})
    rounds = max(int(r["round"]) for r in rows)
    out = []
    w = out.append
    cpus, _, model = meta.get("cpus", "? ?").partition(" ")
    w(f"Run of {meta.get('date', '?')} at commit {meta.get('commit', '?')}. Guest: kernel "
      f"{meta.get('kernel', '?')}, {cpus} vCPUs ({model}), {meta.get('memory', '?')}; "
      f"**{meta.get('accel', '?')}**. Host: {meta.get('host', '?')}. Settings: rounds "
      f"{meta.get('rounds', '?')}. Every round: `{os.path.relpath(base, TOP)}.csv`.")
    w("")
    w(f"Medians over {rounds} interleaved rounds; ±N% is half the spread "
      "(max - min) over the median.")
    w("")
    w("### Forwarding at saturation (packets/s at the sink)")
    w("")
    head = ["contender"]
    for s in sizes:
        head += [f"{s} B", "× recvmmsg", "× bridge"]
    head += ["loss at 64 B"]
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))
    for c in order:
        line = [LABELS.get(c, c)]
        for s in sizes:
            med, spread = metric(cells, (c, s, 0), "fwd_pps")
            line += [fmt(med, spread), ratio(med, metric(cells, ("afp-mmsg", s, 0), "fwd_pps")[0]),
                     ratio(med, metric(cells, ("bridge", s, 0), "fwd_pps")[0])]
        loss = metric(cells, (c, sizes[0], 0), "loss_pct")[0]
        line.append(fmt(loss, digits=1) + "%" if loss is not None else "–")
        w("| " + " | ".join(line) + " |")
    w("")
    for rate in rates:
        w(f"### Latency at {rate:,} packets/s offered (µs, generator to sink)")
        w("")
        big = sizes[-1]
        head = ["contender"] + [f"{s} B p50 / p99" for s in sizes[:-1]] + \
               [f"{big} B mean", "p50", "p90", "p99", "loss"]
        w("| " + " | ".join(head) + " |")
        w("|" + "---|" * len(head))
        for c in order:
            line = [LABELS.get(c, c)]
            for s in sizes[:-1]:
                line.append(f"{fmt(metric(cells, (c, s, rate), 'lat_p50_us')[0])} / "
                            f"{fmt(metric(cells, (c, s, rate), 'lat_p99_us')[0])}")
            for field in ("lat_mean_us", "lat_p50_us", "lat_p90_us", "lat_p99_us"):
                line.append(fmt(*metric(cells, (c, big, rate), field)))
            loss = metric(cells, (c, big, rate), "loss_pct")[0]
            line.append(fmt(loss, digits=1) + "%" if loss is not None else "–")
            w("| " + " | ".join(line) + " |")
        w("")
    rate = rates[0] if rates else 0
    w(f"### Cost per forwarded packet (at {rate:,} packets/s)")
    w("")
    w("Bytes copied between kernel and user space: netslice's own counters "
      "(read_bytes + write_bytes); for the peers, two copies of the frame "
      "(computed); the bridge copies none. Guest CPU time: all CPUs' busy "
      "time while the load ran, less pktgen's threads and the sink's own.")
    w("")
    head = ["contender"] + [f"copied @{s} B" for s in sizes] + [f"CPU µs @{s} B" for s in sizes]
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))
    for c in order:
        line = [LABELS.get(c, c)]
        line += [fmt(metric(cells, (c, s, rate), "copied_bytes_per_pkt")[0]) for s in sizes]
        line += [fmt(*metric(cells, (c, s, rate), "cpu_us_per_pkt"), digits=1) for s in sizes]
        w("| " + " | ".join(line) + " |")
    w("")
    if "ns-fwd-auto" in order and "ns-fwd-auto-2s" in order:
        w("### One slice against two (nf-fwd, slicing auto, saturation)")
        w("")
        w("| size | 1 slice | 2 slices | ratio |")
        w("|---|---|---|---|")
        for s in sizes:
            one = metric(cells, ("ns-fwd-auto", s, 0), "fwd_pps")
            two = metric(cells, ("ns-fwd-auto-2s", s, 0), "fwd_pps")
            w(f"| {s} B | {fmt(*one)} | {fmt(*two)} | {ratio(two[0], one[0])} |")
        w("")
    if os.path.exists(base + "-rules.csv"):
        with open(base + "-rules.csv") as f:
            rules = list(csv.DictReader(f))
        if rules:
            w("### Rule updates under load (nf-fwd, 64 B saturation, one run)")
            w("")
            w("| replaces/s asked | done | forwarded packets/s | ring drops |")
            w("|---|---|---|---|")
            for r in rules:
                w(f"| {int(r['replaces_per_s_asked']):,} | {int(r['replaces_per_s_done']):,} | "
                  f"{int(r['forwarded_pps']):,} | {int(r['drops']):,} |")
            w("")
    w("Plots: [throughput](bench/throughput.svg), [latency CDFs](bench/latency_cdf.svg), "
      "[bytes copied](bench/bytes_copied.svg).")
    return "\n".join(out)


def plots(base, cells, order):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(PLOTS, exist_ok=True)
    sizes = sorted({k[1] for k in cells})
    rates = sorted({k[2] for k in cells if k[2]})

    def save(fig, name):
        fig.tight_layout()
        for ext in ("png", "svg"):
            fig.savefig(os.path.join(PLOTS, f"{name}.{ext}"), dpi=110)
        plt.close(fig)

    def bars(rate, field, scale, ylabel, title, name):
        """One group of bars per contender, one bar per size: medians of field."""
        fig, ax = plt.subplots(figsize=(10, 5))
        width = 0.8 / len(sizes)
        for i, s in enumerate(sizes):
            meds = [(metric(cells, (c, s, rate), field)[0] or 0) / scale for c in order]
            ax.bar([x + i * width for x in range(len(order))], meds, width, label=f"{s} B")
        ax.set_xticks([x + width * (len(sizes) - 1) / 2 for x in range(len(order))])
        ax.set_xticklabels(order, rotation=30, ha="right")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend()
        save(fig, name)

    bars(0, "fwd_pps", 1000, "forwarded kpps at saturation (median)",
         "Throughput by packet size (guest under emulation: compare within the run)",
         "throughput")

    cdfs = {}
    if os.path.exists(base + "-cdf.csv"):
        with open(base + "-cdf.csv") as f:
            for r in csv.DictReader(f):
                key = (r["contender"], int(r["size"]), int(r["offered_pps"]))
                cdfs.setdefault(key, []).append([float(r[f"q{k}"]) for k in range(101)])
    if cdfs and rates:
        big, rate = sizes[-1], rates[0]
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, c in enumerate(order):
            runs = cdfs.get((c, big, rate))
            if not runs:
                continue
            q = [statistics.median(v) for v in zip(*runs)]
            ax.plot(q, [k / 100 for k in range(101)], label=c, color=plt.cm.tab20(i % 20),
                    linestyle="-" if c.endswith("auto") or c.endswith("2s") else "--")
        ax.set_xscale("log")
        ax.set_xlabel("latency, µs (log)")
        ax.set_ylabel("fraction of packets")
        ax.set_title(f"Latency CDF, {big} B at {rate:,} pps (solid: slicing auto)")
        ax.legend(fontsize=8)
        save(fig, "latency_cdf")

    if rates:
        bars(rates[0], "copied_bytes_per_pkt", 1, "bytes copied kernel <-> user per packet",
             "Bytes moved per forwarded packet", "bytes_copied")

def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench/report.py bench/results/DATE-KERNEL")
    base = sys.argv[1]
    rows, cells, order = load(base)
    text = tables(base, rows, cells, order)
    with open(DOC) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"report: {DOC} lacks the {BEGIN} / {END} markers")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(DOC, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)
    plots(base, cells, order)
    print(text)


if __name__ == "__main__":
    main()
