#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the bundled NFs: crafted pcapng in, expected pcapng out.

Each NF runs in its offline mode (--pcap-in/--pcap-out), the same packet
logic the module feeds, with no kernel. KTAP output.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nfpkt as P  # noqa: E402

BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../build/bin")
TMP = tempfile.mkdtemp(prefix="nf-test-")
IFACES = [("in0", "02:00:00:00:00:a0"), ("out0", "02:00:00:00:00:b0")]
results = []


def check(ok, name):
    results.append(bool(ok))
    print("%s %d %s" % ("ok" if ok else "not ok", len(results), name), flush=True)
    return ok


def diag(msg):
    for line in str(msg).splitlines():
        print("# " + line)


def run(nf, args, packets, ifaces=IFACES, files=None, slicing=None):
    """Run nf offline over packets; returns (exit code, sent packets, JSON summary, stderr)."""
    for name, text in (files or {}).items():
        with open(os.path.join(TMP, name), "w") as f:
            f.write(text)
    pin, pout = os.path.join(TMP, "in.pcapng"), os.path.join(TMP, "out.pcapng")
    P.write_pcapng(pin, ifaces, packets)
    if os.path.exists(pout):
        os.unlink(pout)
    cmd = [os.path.join(BIN, nf), "--pcap-in", pin, "--pcap-out", pout, "--json"]
    cmd += ["-m", slicing] if slicing else []
    cmd += [a.replace("@TMP", TMP) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    out = P.read_pcapng(pout) if os.path.exists(pout) else []
    try:
        summary = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}
    except ValueError:
        summary = {}
    if p.returncode:
        diag(p.stderr)
    return p.returncode, out, summary, p.stderr


def bad_config(nf, args, want, name, files=None):
    code, _, _, err = run(nf, args, [], files=files)
    ok = code == 2 and want in err
    if not ok:
        diag("exit %d, stderr: %s" % (code, err))
    check(ok, "%s: %s" % (nf, name))


def mixed_frames(n):
    """n frames of every kind, alternating directions."""
    out = []
    for i in range(n):
        body = bytes((i * 7 + k) & 255 for k in range(i * 13 % 900))
        kind = i % 4
        if kind == 0:
            f = P.packet("10.0.0.1", "10.0.0.2", P.UDP, P.udp("10.0.0.1", "10.0.0.2", 1000 + i, 53, body))
        elif kind == 1:
            f = P.packet("10.0.0.1", "10.0.0.2", P.TCP, P.tcp("10.0.0.1", "10.0.0.2", 2000 + i, 80, 0x18, body=body))
        elif kind == 2:
            f = P.packet("2001:db8::1", "2001:db8::2", P.UDP, P.udp("2001:db8::1", "2001:db8::2", 3000 + i, 53, body))
        else:
            f = P.arp_request("02:00:00:00:00:01", "10.0.0.1", "10.0.0.9")
        out.append((i % 2, 1000 * i, f))
    return out


def test_fwd():
    frames = mixed_frames(200)
    for mode in ("off", "auto", "fixed:20"):
        code, out, s, _ = run("nf-fwd", [], frames, slicing=mode)
        want = [(1 - i, t, f) for i, t, f in frames]
        check(code == 0 and out == want and s["total"]["tx_packets"] == 200,
              "nf-fwd -m %s: 200 frames leave by the other interface, byte-identical" % mode)


def tests_firewall():
    rules = """
# web and dns in, ssh from the admin net only, ping allowed
default drop
accept tcp to 10.0.0.2 dport 80
accept tcp from 10.9.0.0/16 dport 22
drop   tcp dport 22
accept udp dport 53-54
accept icmp type 8
accept udp from 2001:db8::/32
"""
    src, dst = "10.0.0.1", "10.0.0.2"
    cases = [  # (frame, passes, matching rule line or None for the default)
        (P.packet(src, dst, P.TCP, P.tcp(src, dst, 1234, 80)), True),
        (P.packet(src, "10.0.0.3", P.TCP, P.tcp(src, "10.0.0.3", 1234, 80)), False),
        (P.packet("10.9.1.1", dst, P.TCP, P.tcp("10.9.1.1", dst, 1234, 22)), True),
        (P.packet(src, dst, P.TCP, P.tcp(src, dst, 1234, 22)), False),
        (P.packet(src, dst, P.UDP, P.udp(src, dst, 999, 53)), True),
        (P.packet(src, dst, P.UDP, P.udp(src, dst, 999, 54)), True),
        (P.packet(src, dst, P.UDP, P.udp(src, dst, 999, 55)), False),
        (P.packet(src, dst, P.ICMP, P.icmp(src, dst, 8)), True),
        (P.packet(src, dst, P.ICMP, P.icmp(src, dst, 0)), False),
        (P.packet("2001:db8::5", "2001:db8::6", P.UDP, P.udp("2001:db8::5", "2001:db8::6", 1, 2)), True),
        (P.packet("2001:db9::5", "2001:db8::6", P.UDP, P.udp("2001:db9::5", "2001:db8::6", 1, 2)), False),
        (P.arp_request("02:00:00:00:00:01", src, dst), True),
    ]
    bad = bytearray(P.packet(src, dst, P.UDP, P.udp(src, dst, 1, 53)))
    bad[14] = 0x46  # IHL 6 with no options: the UDP header is misread... and lengths lie
    bad[16:18] = b"\x07\xd0"  # total length 2000 beyond the frame
    frames = [(0, i * 1000, f) for i, (f, _) in enumerate(cases)] + [(0, 99000, bytes(bad))]
    for mode in ("off", "auto"):
        code, out, s, _ = run("nf-firewall", ["--rules", "@TMP/fw.rules"], frames,
                              files={"fw.rules": rules}, slicing=mode)
        want = [f for f, ok in cases if ok]
        got = [f for _, _, f in out]
        fw = s.get("nf-firewall", {})
        hits = [r["hits"] for r in fw.get("rules", [])]
        ok = code == 0 and got == want and hits == [1, 1, 1, 2, 1, 1] and \
            fw["default"]["hits"] == 4 and fw["nonip"]["hits"] == 1 and fw["malformed"] == 1
        if not ok:
            diag("hits %s default %s" % (hits, fw.get("default")))
        check(ok, "nf-firewall -m %s: exactly the allowed frames pass; per-rule hits, "
              "default, non-IP and malformed counted" % mode)
    bad_config("nf-firewall", ["--rules", "@TMP/none"], "cannot read rule file", "unreadable rule file")
    for text, want in (("accept tcp from 10.0.0.300/8", "bad CIDR '10.0.0.300/8'"),
                       ("accept udp dport 90-80", "bad port range"),
                       ("accept icmp dport 80", "dport needs protocol tcp or udp"),
                       ("allow tcp", "a rule starts with accept or drop"),
                       ("accept tcp from 10.0.0.0/8 to 2001:db8::/32", "not of the rule's address family"),
                       ("accept tcp color red", "unknown keyword 'color'")):
        bad_config("nf-firewall", ["--rules", "@TMP/bad.rules"], want,
                   "refuses '%s' with a message naming the line" % text,
                   files={"bad.rules": "default drop\n" + text + "\n"})
    bad_config("nf-firewall", [], "no rule file", "no --rules")


def main():
    tests = [test_fwd, tests_firewall]
    only = sys.argv[1:]
    print("KTAP version 1\n# suite: nf host tests")
    for t in tests:
        if not only or t.__name__ in only:
            t()
    print("1..%d" % len(results))
    print("# %d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
