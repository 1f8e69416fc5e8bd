#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise one make bench run: medians and spread over its rounds.

    bench/report.py bench/results/DATE-KERNEL

Reads DATE-KERNEL.csv (every round), -cdf.csv, -zeroloss.csv, -tcp.csv,
-profile/ and -meta.txt (the rule updates' are bench/rules_report.py's),
replaces the part of docs/bench-ticks.md between the "bench:begin" and
"bench:end" markers with the tables, and draws docs/bench/*.png and *.svg.
"""
import csv
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docsplice  # noqa: E402  (bench/docsplice.py)
import flame as nsprof  # noqa: E402  (bench/flame.py)
import tcp_report  # noqa: E402  (bench/tcp_report.py)

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The test points these elsewhere.
DOC = docsplice.page("bench-ticks.md")
PLOTS = os.environ.get("NETSLICE_BENCH_PLOTS", os.path.join(TOP, "docs", "bench"))
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

LABELS = {
    "ns-fwd-off": "netslice nf-fwd, slicing off",
    "ns-fwd-auto": "netslice nf-fwd, slicing auto",
    "ns-fwd-auto-2s": "netslice nf-fwd, auto, 2 slices",
    "ns-fwd-rules": "netslice nf-fwd, off, 10,000 wildcard steering rules",
    "ns-fw-off": "netslice nf-firewall (100 rules), off",
    "ns-fw-auto": "netslice nf-firewall (100 rules), auto",
    "ns-nat-off": "netslice nf-nat, off",
    "ns-nat-auto": "netslice nf-nat, auto",
    "ring-fwd-off": "netslice nf-fwd, ring mode, slicing off",
    "ring-fwd-auto": "netslice nf-fwd, ring mode, slicing auto",
    "ring-fw-auto": "netslice nf-firewall (100 rules), ring mode, auto",
    "afp-mmsg": "AF_PACKET recvmmsg/sendmmsg",
    "afp-v3": "AF_PACKET TPACKET_V3 + sendmmsg",
    "afp-v3-ring": "AF_PACKET TPACKET_V3 RX and TX rings",
    "afp-v3-2w": "AF_PACKET TPACKET_V3, 2 workers (fanout)",
    "afxdp": "AF_XDP copy mode (libxdp)",
    "afxdp-busy": "AF_XDP copy mode, busy polling",
    "bridge": "Linux bridge (in-kernel)",
    "base-fwd-off": "baseline nf-fwd, slicing off",
    "base-fwd-auto": "baseline nf-fwd, slicing auto",
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
    pairs = [(one, two) for one, two in SCALING if one in order and two in order]
    if pairs:
        w("### One slice against two, one worker against two (saturation, packets/s)")
        w("")
        head = ["size"]
        for one, two in pairs:
            head += [LABELS.get(one, one), LABELS.get(two, two), "ratio"]
        w("| " + " | ".join(head) + " |")
        w("|" + "---|" * len(head))
        for s in sizes:
            line = [f"{s} B"]
            for one, two in pairs:
                a = metric(cells, (one, s, 0), "fwd_pps")
                b = metric(cells, (two, s, 0), "fwd_pps")
                line += [fmt(*a), fmt(*b), ratio(b[0], a[0])]
            w("| " + " | ".join(line) + " |")
        w("")
    zl = load_zeroloss(base)
    out += zeroloss_table(zl, order, sizes)
    out += targets_table(cells, zl)
    out += tcp_tables(tcp_report.load_tcp(base))
    out += baseline_table(meta, cells, order, sizes)
    out += profile_tables(base, cells, order)
    w("Plots: [throughput](bench/throughput.svg), [latency CDFs](bench/latency_cdf.svg), "
      "[bytes copied](bench/bytes_copied.svg).")
    return "\n".join(out)


def load_zeroloss(base):
    """{(contender, size): [(round, pps, generator_limited)]} of the run."""
    found = {}
    if os.path.exists(base + "-zeroloss.csv"):
        with open(base + "-zeroloss.csv") as f:
            for r in csv.DictReader(f):
                found.setdefault((r["contender"], int(r["size"])), []).append(
                    (int(r["round"]), int(r["zero_loss_pps"]), r["generator_limited"] == "1"))
    return found


def zeroloss_table(zl, order, sizes):
    if not zl:
        return []
    out = ["### Zero-loss rate (packets/s offered with loss under 0.1%, binary search)", "",
           "RFC 2544's throughput: the highest offered rate the contender forwards "
           "with loss under 0.1%, searched below what pktgen offers at saturation. "
           "\"≥\" marks a rate where even saturation lost nothing in some round: "
           "there it is pktgen's limit, not the contender's.", ""]
    out.append("| contender | " + " | ".join(f"{s} B" for s in sizes) + " |")
    out.append("|---|" + "---|" * len(sizes))
    for c in order:
        if not any((c, s) in zl for s in sizes):
            continue
        line = [LABELS.get(c, c)]
        for s in sizes:
            runs = zl.get((c, s), [])
            med, spread = median_spread([pps for _, pps, _ in runs])
            limited = any(lim for _, _, lim in runs)
            line.append(("≥" if limited else "") + fmt(med, spread) if runs else "–")
        out.append("| " + " | ".join(line) + " |")
    out.append("")
    return out


# The 2-CPU contenders and their 1-CPU selves.
SCALING = [("ns-fwd-auto", "ns-fwd-auto-2s"), ("afp-v3", "afp-v3-2w")]

# Issue 21's headline ratios: (what, kind, (contender, size), (against, size), target).
# kind: "cpu" (µs per packet at saturation, lower is better) or "zl" (zero-loss rate).
TARGETS = [
    ("nf-fwd -m off vs AF_PACKET recvmmsg, 64 B, CPU", "cpu", ("ns-fwd-off", 64),
     ("afp-mmsg", 64), ("<=", 0.6)),
    ("nf-fwd -m off vs TPACKET_V3, 64 B, CPU", "cpu", ("ns-fwd-off", 64), ("afp-v3", 64),
     ("<=", 0.8)),
    ("nf-fwd -m off vs AF_XDP copy mode, 64 B, CPU", "cpu", ("ns-fwd-off", 64), ("afxdp", 64),
     ("<=", 0.9)),
    ("nf-fwd -m off vs AF_XDP copy mode + busy polling, 64 B, CPU", "cpu", ("ns-fwd-off", 64),
     ("afxdp-busy", 64), ("<=", 0.9)),
    ("nf-fwd -m auto vs -m off, 1518 B, CPU", "cpu", ("ns-fwd-auto", 1518),
     ("ns-fwd-off", 1518), ("<=", 0.5)),
    ("nf-fwd -m auto at 1518 B vs at 64 B, CPU", "cpu", ("ns-fwd-auto", 1518),
     ("ns-fwd-auto", 64), ("<=", 1.1)),
    ("nf-fwd -m auto vs -m off, 1518 B, zero-loss rate", "zl", ("ns-fwd-auto", 1518),
     ("ns-fwd-off", 1518), (">=", 1.3)),
    ("nf-firewall -m auto vs nf-fwd -m auto, 64 B, CPU", "cpu", ("ns-fw-auto", 64),
     ("ns-fwd-auto", 64), ("<=", 1.3)),
    ("nf-nat -m auto vs nf-fwd -m auto, 64 B, CPU", "cpu", ("ns-nat-auto", 64),
     ("ns-fwd-auto", 64), ("<=", 1.3)),
    # Issue 23: ring mode.
    ("nf-fwd ring mode vs AF_PACKET recvmmsg, 64 B, CPU", "cpu", ("ring-fwd-off", 64),
     ("afp-mmsg", 64), ("<=", 0.4)),
    ("nf-fwd ring mode vs AF_XDP copy mode, 64 B, CPU", "cpu", ("ring-fwd-off", 64),
     ("afxdp", 64), ("<=", 0.6)),
    ("nf-fwd ring mode, auto, vs the bridge, 1518 B, zero-loss rate", "zl",
     ("ring-fwd-auto", 1518), ("bridge", 1518), (">=", 0.8)),
    # Issue 24: the matcher's cost on RX.
    ("nf-fwd -m off with 10,000 wildcard rules (100 masks) vs none, 64 B, CPU", "cpu",
     ("ns-fwd-rules", 64), ("ns-fwd-off", 64), ("<=", 1.5)),
]


def per_round(cells, zl, kind, key):
    """{round: value} of a contender at a size: CPU at saturation, or zero-loss
    rate; and whether a zero-loss rate was pktgen's limit in some round."""
    if kind == "zl":
        runs = zl.get(key, [])
        return {r: pps for r, pps, _ in runs}, any(lim for _, _, lim in runs)
    return {int(r["round"]): num(r["cpu_us_per_pkt"])
            for r in cells.get((key[0], key[1], 0), [])}, False


def targets_table(cells, zl):
    """The data path's target ratios, each the median of its per-round ratios, with their spread."""
    out = ["### Targets: the data path", "",
           "Each ratio is taken within a round, then the median over rounds; ±N% is "
           "half their spread, which is how well the ratio repeats.", "",
           "| ratio | this run | target | met |", "|---|---|---|---|"]
    shown = False
    for what, kind, a, b, (op, goal) in TARGETS:
        (ra, la), (rb, lb) = per_round(cells, zl, kind, a), per_round(cells, zl, kind, b)
        ratios = [ra[r] / rb[r] for r in ra if r in rb and ra[r] is not None and rb[r]]
        if not ratios:
            continue
        shown = True
        med, spread = median_spread(ratios)
        met = med <= goal if op == "<=" else med >= goal
        # A rate that was pktgen's limit bounds the contender's from below only.
        verdict = "– (pktgen's limit in a round)" if la or lb else "yes" if met else "no"
        out.append(f"| {what} | {med:.2f} ±{spread / 2:.0f}% | {op} {goal} | {verdict} |")
    out.append("")
    return out if shown else []


TCP_LABELS = {
    "bridge": "Linux bridge",
    "ns-fwd": "nf-fwd -m auto (super-packets whole)",
    "ns-fwd-nogso": "nf-fwd -m auto --no-gso (segmented)",
    "ns-nat": "nf-nat -m auto",
    "masq": "kernel routing + nftables masquerade",
}

def tcp_tables(tcp):
    """Goodput and reads per MiB of the TCP run, and their targets."""
    if not tcp:
        return []
    out = ["### Bulk TCP through the DUT (goodput, MB/s)", "",
           "One stream of the whole transfer, or eight at once; every byte checked "
           "by the receiver. Reads per MiB: netslice's read_packets over the MiB moved.", "",
           "| contender | 1 connection | × bridge | 8 connections | × bridge | reads per MiB |",
           "|---|---|---|---|---|---|"]
    for name, label in TCP_LABELS.items():
        if not any(k[0] == name for k in tcp):
            continue
        line = [label]
        for conns in (1, 8):
            vals = [num(r["goodput_mbytes_per_s"]) for r in tcp.get((name, conns), {}).values()]
            med, spread = median_spread(vals)
            ref = median_spread([num(r["goodput_mbytes_per_s"])
                                 for r in tcp.get(("bridge", conns), {}).values()])[0]
            line += [fmt(med, spread, digits=1), ratio(med, ref)]
        reads = [num(r["reads_per_mib"]) for r in tcp.get((name, 1), {}).values()]
        line.append(fmt(median_spread(reads)[0]))
        out.append("| " + " | ".join(line) + " |")
    out += ["", "### Targets: super-packets (bulk TCP)", "",
            "| row | this run | target | met |", "|---|---|---|---|"]
    for r in tcp_report.tcp_rows(tcp):
        shown = f"{r['value']:.2f}" if r["ratio"] else f"{r['value']:.0f}"
        out.append(f"| `{r['name']}` | {shown} ±{r['spread_pct'] / 2:.0f}% | {r['target']} | "
                   f"{'yes' if r['met'] else 'no'} |")
    out.append("")
    return out


def baseline_table(meta, cells, order, sizes):
    """This commit's module against the baseline's, same run, same tools."""
    if "base-fwd-off" not in order:
        return []
    out = [f"### Before and after (baseline module {meta.get('baseline', '?')}, same run)", "",
           "CPU µs per forwarded packet and packets/s at saturation; after / before "
           "below 1.00 is less CPU, above 1.00 a higher rate.", ""]
    out.append("| nf-fwd | size | CPU µs before | after | after / before "
               "| pps before | after | after / before |")
    out.append("|---|---|---|---|---|---|---|---|")
    for mode in ("off", "auto"):
        if f"base-fwd-{mode}" not in order or f"ns-fwd-{mode}" not in order:
            continue
        for s in sizes:
            b = metric(cells, (f"base-fwd-{mode}", s, 0), "cpu_us_per_pkt")
            a = metric(cells, (f"ns-fwd-{mode}", s, 0), "cpu_us_per_pkt")
            bp = metric(cells, (f"base-fwd-{mode}", s, 0), "fwd_pps")
            ap = metric(cells, (f"ns-fwd-{mode}", s, 0), "fwd_pps")
            out.append(f"| -m {mode} | {s} B | {fmt(*b, digits=2)} | {fmt(*a, digits=2)} | "
                       f"{ratio(a[0], b[0])} | {fmt(*bp)} | {fmt(*ap)} | {ratio(ap[0], bp[0])} |")
    out.append("")
    return out


def profiles(base):
    """{(contender, size): folded stacks} of the run's profile, if any."""
    found = {}
    for path in sorted(glob.glob(os.path.join(base + "-profile", "*.folded"))):
        name, _, size = os.path.basename(path)[:-len(".folded")].rpartition("-")
        found[(name, int(size))] = nsprof.read_folded(path)
    return found


def profile_counts(base):
    """{(contender, size): (frames forwarded while perf sampled, Hz)}."""
    path = os.path.join(base + "-profile", "counts.csv")
    found = {}
    if os.path.exists(path):
        with open(path) as f:
            for name, size, fwd, hz in csv.reader(f):
                found[(name, int(size))] = (int(fwd), int(hz))
    return found


def profile_tables(base, cells, order):
    """Where the DUT's CPU time goes, per bucket, in µs per packet."""
    found = profiles(base)
    if not found:
        return []
    counts = profile_counts(base)
    keys = sorted(found, key=lambda k: (k[1], order.index(k[0]) if k[0] in order else 99))
    out = ["### Where the time goes (saturation, perf cpu-clock on the DUT's CPUs)", ""]
    out.append("Each sample is a tick of one of the DUT's two CPUs while the contender "
               "forwarded at saturation. Idle is a sample whose leaf is the idle loop "
               "with no interrupt below it (a softirq that interrupts idle is work); "
               "the harness's processes are left out too. A bucket's µs per packet is "
               "its samples' CPU time over the frames forwarded while perf sampled "
               "(the profile's own count). Flame graphs: "
               + ", ".join(f"[{k[0]} {k[1]} B](bench/flame-{k[0]}-{k[1]}.svg)" for k in keys)
               + ".")
    out.append("")
    head = ["bucket"] + [f"{k[0]} {k[1]} B" for k in keys]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    shares, totals = {}, {}
    skip = ("idle", "harness")
    for k in keys:
        b = nsprof.buckets(found[k])
        busy = sum(v for n, v in b.items() if n not in skip) or 1
        fwd, hz = counts.get(k, (0, 0))
        per = 1e6 / hz / fwd if fwd and hz else None
        totals[k] = busy * per if per else None
        shares[k] = {n: (v / busy, v * per if per else None)
                     for n, v in b.items() if n not in skip}
    for name, _ in nsprof.BUCKETS:
        if name in skip or not any(shares[k].get(name, (0,))[0] >= 0.005 for k in keys):
            continue
        line = [name]
        for k in keys:
            share, us = shares[k].get(name, (0.0, 0.0))
            line.append("–" if share < 0.005 else
                        f"{us:.2f} ({share * 100:.0f}%)" if us is not None else f"{share * 100:.0f}%")
        out.append("| " + " | ".join(line) + " |")
    out.append("| total (µs per packet) | " + " | ".join(fmt(totals[k], digits=2) for k in keys) + " |")
    out.append("")
    return out


def flames(base):
    for (name, size), stacks in profiles(base).items():
        svg = nsprof.render(stacks, f"{LABELS.get(name, name)}, {size} B, saturation")
        with open(os.path.join(PLOTS, f"flame-{name}-{size}.svg"), "w") as f:
            f.write(svg)


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
    docsplice.splice(DOC, BEGIN, END, text, "report")
    plots(base, cells, order)
    flames(base)
    print(text)


if __name__ == "__main__":
    main()
