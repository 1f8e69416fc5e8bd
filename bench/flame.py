#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the microseconds go: perf samples folded, bucketed and drawn.

  flame.py fold [KALLSYMS]       perf script (comm,ip,sym) on stdin ->
                                   "STACK COUNT" lines, root first; kernel
                                   frames perf left unknown (a module's,
                                   with --synth=task) named from KALLSYMS
  flame.py render FOLDED SVG [TITLE]
                                   a flame graph of one profile
  flame.py buckets FOLDED        "BUCKET SAMPLES" lines, the order of
                                   BUCKETS, for docs/bench-ticks.md

Every sample is one cpu-clock tick of one CPU on the DUT's side, so the
share of a bucket is its share of the DUT's CPU time; bench/report.py
turns shares into microseconds per packet with the measured CPU cost.
Only the standard library: it runs in the guest as well as on the host.
"""
import html
import re
import sys
from collections import Counter

# Kernel functions of 6.1 and 6.12, by what they do: a frame counts when
# its name starts with one of them (user frames carry "u:" and never do).
COPY = ("_copy_to_user", "_copy_from_user", "copy_user_", "rep_movs_alternative",
        "__get_user", "__put_user", "copyin", "copyout", "_copy_to_iter", "copy_to_iter",
        "_copy_from_iter", "copy_from_iter", "skb_copy_datagram", "memcpy", "__memcpy")
ALLOC = ("__alloc_skb", "_alloc_skb", "kmem_cache_alloc", "__kmalloc", "kmalloc_reserve",
         "build_skb", "__build_skb", "page_frag_alloc", "__netdev_alloc_skb", "sock_alloc_send")
FREE = ("kfree_skb", "consume_skb", "__kfree_skb", "skb_release", "sk_skb_reason_drop",
        "napi_consume_skb", "kmem_cache_free", "skb_free_head", "__slab_free",
        "napi_skb_cache_put")
XMIT = ("__dev_direct_xmit", "dev_hard_start_xmit", "veth_xmit", "__dev_queue_xmit",
        "packet_direct_xmit", "dev_queue_xmit", "xsk_generic_xmit", "__xsk_generic_xmit",
        "validate_xmit_skb", "nsl_xmit_burst")
SOFTIRQ = ("do_softirq", "__do_softirq", "handle_softirqs", "net_rx_action")
WAKE = ("__wake_up", "try_to_wake_up", "ttwu_", "wake_up_", "sock_def_readable", "xsk_flush")
# Idle is the idle loop at the leaf (the halt the sample interrupted), with
# no interrupt on the stack: a softirq that interrupts the idle task has
# do_idle below it and is work, the receive CPU's whole share.
IDLE = ("default_idle", "cpuidle", "do_idle", "pv_native_safe_halt", "native_safe_halt",
        "arch_cpu_idle", "acpi_idle", "cpu_startup_entry", "intel_idle", "cpu_idle_poll",
        "poll_idle", "mwait_idle")
IRQ = ("asm_sysvec_", "sysvec_", "asm_common_interrupt", "common_interrupt", "irq_exit",
       "__irq_exit_rcu", "handle_softirqs", "__do_softirq", "do_softirq", "asm_call_irq_on_stack",
       "__sysvec_", "call_on_irqstack", "run_ksoftirqd")
# The harness's own processes (the shell, sleep, ip, perf): not the DUT's
# work, left out of every share as idle is.
HARNESS = ("sh", "bash", "sleep", "ip", "taskset", "perf", "cat", "grep", "sed", "awk", "nsmark",
           "timeout", "mktemp", "rm", "touch", "pgrep", "netslicectl", "netslice-info")


def idle(frames):
    return (len(frames) > 1 and frames[-1].startswith(IDLE)
            and not any(f.startswith(IRQ) for f in frames))


def harness(frames):
    return frames[0] in HARNESS


def has(frames, *names):
    return any(f.startswith(names) for f in frames)


def frees(frames):
    # kfree itself, not kfree_link and the like.
    return has(frames, *FREE) or "kfree" in frames


# A sample goes to the first bucket whose test its stack passes, stack
# given root first.
# (bucket, test): tests see the frames, root first; comm is frames[0].
BUCKETS = [
    ("idle", idle),
    ("harness", harness),
    ("netslice RX handler: wakeup", lambda f: has(f, "nsl_rx_handler") and has(f, *WAKE)),
    ("ring RX: copy into frames", lambda f: has(f, "nsl_ring_rx") and has(f, *COPY,
                                                                     "skb_copy_bits")),
    ("ring RX: skb free", lambda f: has(f, "nsl_ring_rx") and frees(f)),
    ("ring RX: rest", lambda f: has(f, "nsl_ring_rx")),
    ("netslice RX handler", lambda f: has(f, "nsl_rx_handler")),
    ("read: copy to user", lambda f: has(f, "nsl_read") and has(f, *COPY)),
    ("read: skb free", lambda f: has(f, "nsl_read") and frees(f)),
    ("read: ring and rest", lambda f: has(f, "nsl_read")),
    # Softirqs a write's BH-enable runs: the next hop's receive, not the write's.
    ("write: softirqs run on BH enable", lambda f: has(f, "nsl_write") and has(f, *SOFTIRQ)),
    ("write: copy from user", lambda f: has(f, "nsl_write") and has(f, *COPY)),
    ("write: skb allocation", lambda f: has(f, "nsl_write") and has(f, *ALLOC)),
    ("write: transmit", lambda f: has(f, "nsl_write") and has(f, *XMIT)),
    ("write: rest", lambda f: has(f, "nsl_write")),
    ("ring kick: softirqs run on BH enable", lambda f: has(f, "nsl_ring_service")
     and has(f, *SOFTIRQ)),
    ("ring kick: copy from frames", lambda f: has(f, "nsl_tx_ring") and has(f, *COPY)),
    ("ring kick: skb allocation", lambda f: has(f, "nsl_tx_ring") and has(f, *ALLOC)),
    ("ring kick: transmit", lambda f: has(f, "nsl_tx_ring") and has(f, *XMIT)),
    ("ring kick: rest", lambda f: has(f, "nsl_ring_service", "nsl_ring_kick", "nsl_ring_poll")),
    ("peer socket: receive", lambda f: has(f, "packet_rcv", "tpacket_rcv", "xsk_rcv",
                                           "__xsk_map_redirect", "xsk_generic_rcv",
                                           "bpf_prog_run_xdp", "veth_xdp_rcv")),
    ("peer socket: read", lambda f: has(f, "packet_recvmsg", "__sys_recvmmsg",
                                        "do_recvmmsg", "xsk_poll", "packet_poll")),
    ("peer socket: send", lambda f: has(f, "packet_sendmsg", "packet_snd", "tpacket_snd",
                                        "__sys_sendmmsg", "xsk_sendmsg", "__xsk_sendmsg")),
    ("in-kernel forwarding", lambda f: has(f, "br_handle_frame", "br_forward",
                                           "br_dev_queue_push_xmit")),
    ("skb free", lambda f: frees(f)),
    ("stack receive (veth, backlog)", lambda f: has(f, "__netif_receive_skb",
                                                    "process_backlog", "veth_poll",
                                                    "netif_receive_skb", "net_rx_action")),
    ("transmit", lambda f: has(f, *XMIT)),
    ("system call entry and exit", lambda f: has(f, "entry_SYSCALL", "do_syscall_64",
                                                 "syscall_exit", "__x64_sys",
                                                 "exit_to_user_mode")),
    ("user space", lambda f: len(f) > 1 and f[-1].startswith("u:")),
    ("other kernel", lambda f: True),
]

OFFSET = re.compile(r"\+0x[0-9a-f]+$")


def module_symbols(path):
    """Sorted (address, name) of the modules' text symbols in a kallsyms."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 4 and parts[1] in "tT" and parts[3].startswith("["):
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return syms


def fold(lines, kallsyms=None):
    """perf script -F comm,ip,sym -> Counter of root-first stacks."""
    import bisect
    syms = module_symbols(kallsyms) if kallsyms else []
    addrs = [a for a, _ in syms]
    stacks = Counter()
    comm, frames = None, []

    def flush():
        if comm is not None:
            stacks[";".join([comm] + frames[::-1])] += 1

    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            comm, frames = None, []
        elif not line[0].isspace():
            flush()
            comm, frames = line.split()[0] if line.split() else "?", []
        else:
            parts = line.split(None, 1)
            sym = parts[1].strip() if len(parts) > 1 else "[unknown]"
            sym = OFFSET.sub("", sym.split(" (")[0]) or "[unknown]"
            if sym == "[unknown]" and addrs and parts[0].startswith("ffff"):
                i = bisect.bisect_right(addrs, int(parts[0], 16)) - 1
                if i >= 0:
                    sym = syms[i][1]
            # User-space frames are marked: libnetslice's names begin
            # with ns_, as the module's did before 0.6.
            if not parts[0].startswith("ffff"):
                sym = "u:" + sym
            frames.append(sym.replace(";", ":").replace(" ", "_"))
    flush()
    return stacks


def read_folded(path):
    stacks = Counter()
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if stack:
                stacks[stack] += int(count)
    return stacks


# Up to 0.6 the module's functions began ns_ (libnetslice's still do, but
# theirs carry "u:"): a profile of then is bucketed by today's names.
def module_name(frame):
    return "nsl_" + frame[3:] if frame.startswith("ns_") else frame


def buckets(stacks):
    out = Counter()
    for stack, n in stacks.items():
        frames = [module_name(f) for f in stack.split(";")]
        for name, test in BUCKETS:
            if test(frames):
                out[name] += n
                break
    return out


def render(stacks, title, width=1200, row=16):
    """A flame graph: root at the bottom, a frame as wide as its samples."""
    tree = {}
    for stack, n in stacks.items():
        node = tree
        for frame in stack.split(";"):
            node = node.setdefault(frame, [0, {}])
            node[0] += n
            node = node[1]
    total = sum(stacks.values()) or 1

    def depth(node):
        return 1 + max((depth(c[1]) for c in node.values()), default=0)

    rows = depth(tree)
    height = (rows + 3) * row
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="monospace" font-size="11">',
           f'<text x="4" y="14">{html.escape(title)} ({total} samples)</text>']

    def color(name):
        h = sum(map(ord, name)) % 60
        if name.startswith("ns_") or name.startswith("netslice"):
            return f"hsl({200 + h % 30},70%,60%)"
        if name.startswith("u:"):
            return "hsl(120,45%,60%)"
        return f"hsl({h},75%,62%)"

    def draw(node, x, level):
        for name, (n, kids) in sorted(node.items()):
            w = n / total * (width - 8)
            y = height - (level + 1) * row
            label = html.escape(f"{name} ({n * 100 / total:.1f}%)")
            out.append(f'<g><title>{label}</title><rect x="{x + 4:.1f}" y="{y}" '
                       f'width="{max(w - 0.5, 0.1):.1f}" height="{row - 1}" '
                       f'fill="{color(name)}"/>')
            chars = int(w / 7)
            if chars >= 4:
                text = name if len(name) <= chars else name[:chars - 2] + ".."
                out.append(f'<text x="{x + 6:.1f}" y="{y + row - 4}">{html.escape(text)}</text>')
            out.append("</g>")
            draw(kids, x, level + 1)
            x += w

    draw(tree, 0.0, 0)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) in (2, 3) and argv[1] == "fold":
        for stack, n in sorted(fold(sys.stdin, argv[2] if len(argv) == 3 else None).items()):
            print(f"{stack} {n}")
    elif len(argv) in (4, 5) and argv[1] == "render":
        with open(argv[3], "w") as f:
            f.write(render(read_folded(argv[2]), argv[4] if len(argv) == 5 else argv[2]))
    elif len(argv) == 3 and argv[1] == "buckets":
        b = buckets(read_folded(argv[2]))
        for name, _ in BUCKETS:
            print(f"{name}\t{b[name]}")
    else:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
