#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host tests of the bundled NFs: crafted pcapng in, expected pcapng out.

Each NF runs in its offline mode (--pcap-in/--pcap-out), the same packet
logic the module feeds, with no kernel. KTAP output: the plan, 1..N for the
N test functions run (TESTS, or those named on the command line), comes
before any result; each function is a subtest whose checks are nested
under it, and ends in one result of its own: "not ok" if a check failed,
it raised, or it reported nothing (a function that returns before its
checks cannot pass); "ok ... # SKIP" if a check skipped and none failed
(a skip is never a pass); else "ok". A run that stops early prints fewer
results than its plan, which the runners' plan check fails. The totals
line counts the checks, and each function that failed without a failing
check once more.
"""
import json
import os
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nfpkt as P  # noqa: E402
from optdeps import missing_command, missing_module  # noqa: E402
from promtext import prom_parse, prom_samples  # noqa: E402

BIN = os.environ.get("NETSLICE_BIN") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../build/bin")
TMP = tempfile.mkdtemp(prefix="nf-test-")
IFACES = [("in0", "02:00:00:00:00:a0"), ("out0", "02:00:00:00:00:b0")]
results = []  # every check of the run: True (passed), False (failed), None (skipped)
case = []     # the running function's checks, as results
skips = []    # and why it skipped what it did
INDENT = "    "


def check(ok, name):
    results.append(bool(ok))
    case.append(bool(ok))
    print("%s%s %d %s" % (INDENT, "ok" if ok else "not ok", len(case), name), flush=True)
    return ok


def skip(why):
    results.append(None)
    case.append(None)
    skips.append(why)
    print("%sok %d # SKIP %s" % (INDENT, len(case), why), flush=True)


def diag(msg):
    for line in str(msg).splitlines():
        print(INDENT + "# " + line)


def run(nf, args, packets, ifaces=IFACES, files=None, cut=None, timeout=60):
    """Run nf offline over packets; returns (exit code, sent packets, JSON summary, stderr)."""
    for name, text in (files or {}).items():
        with open(os.path.join(TMP, name), "w") as f:
            f.write(text)
    pin, pout = os.path.join(TMP, "in.pcapng"), os.path.join(TMP, "out.pcapng")
    P.write_pcapng(pin, ifaces, packets)
    if os.path.exists(pout):
        os.unlink(pout)
    cmd = [os.path.join(BIN, nf), "--pcap-in", pin, "--pcap-out", pout, "--json"]
    cmd += ["-m", cut] if cut else []
    cmd += [a.replace("@TMP", TMP) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
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
        code, out, s, _ = run("nf-fwd", [], frames, cut=mode)
        want = [(1 - i, t, f) for i, t, f in frames]
        check(code == 0 and out == want and s["total"]["tx_packets"] == 200,
              "nf-fwd -m %s: 200 frames leave by the other interface, byte-identical" % mode)


def udp_len(seg, n):
    """A UDP header and body whose length field says n (a first fragment's)."""
    return seg[:4] + n.to_bytes(2, "big") + seg[6:]


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
        # The first fragment of a 1,200-byte DNS answer: its UDP length is
        # the datagram's (a large EDNS0 reply), its ports match the rule.
        (P.packet(src, dst, P.UDP, udp_len(P.udp(src, dst, 999, 53, b"x" * 56), 1200),
                  frag=0x2000), True),
    ]
    bad = bytearray(P.packet(src, dst, P.UDP, P.udp(src, dst, 1, 53)))
    bad[14] = 0x46  # IHL 6 with no options: the UDP header is misread... and lengths lie
    bad[16:18] = b"\x07\xd0"  # total length 2000 beyond the frame
    frames = [(0, i * 1000, f) for i, (f, _) in enumerate(cases)] + [(0, 99000, bytes(bad))]
    # The same rules in netslicectl's words (src, dst) run the same.
    spelled = rules.replace(" from ", " src ").replace(" to ", " dst ")
    for mode, text in (("off", rules), ("auto", rules), ("auto", spelled)):
        code, out, s, _ = run("nf-firewall", ["--rules", "@TMP/fw.rules"], frames,
                              files={"fw.rules": text}, cut=mode)
        want = [f for f, ok in cases if ok]
        got = [f for _, _, f in out]
        fw = s.get("nf-firewall", {})
        hits = [r["hits"] for r in fw.get("rules", [])]
        ok = code == 0 and got == want and hits == [1, 1, 1, 3, 1, 1] and \
            fw["default"]["hits"] == 4 and fw["nonip"]["hits"] == 1 and fw["malformed"] == 1
        if not ok:
            diag("hits %s default %s" % (hits, fw.get("default")))
        check(ok, "nf-firewall -m %s%s: exactly the allowed frames pass; per-rule hits, "
              "default, non-IP and malformed counted" % (mode, ", src/dst" if text == spelled else ""))
    bad_config("nf-firewall", ["--rules", "@TMP/none"], "cannot read rule file", "unreadable rule file")
    for text, want in (("accept tcp from 10.0.0.300/8", "bad CIDR '10.0.0.300/8'"),
                       ("accept udp dport 90-80", "bad port range"),
                       ("accept icmp dport 80", "dport needs protocol tcp or udp"),
                       ("allow tcp", "a rule starts with accept or drop"),
                       ("accept tcp from 10.0.0.0/8 to 2001:db8::/32", "not of the rule's address family"),
                       ("accept tcp color red", "unknown keyword 'color'"),
                       ("accept tcp dport 0-", "bad.rules:2:18: bad port range '0-'"),
                       ("accept tcp dport -5", "bad.rules:2:18: bad port range '-5'"),
                       ("accept udp sport +53", "bad.rules:2:18: bad port range '+53'"),
                       ("accept icmp type 8/", "bad.rules:2:18: bad ICMP type '8/'"),
                       ("accept icmp type /0", "bad.rules:2:18: bad ICMP type '/0'"),
                       ("accept tcp dport 80 dport 81", "bad.rules:2:21: 'dport' given twice"),
                       ("accept tcp from 10.0.0.0/8 src 10.1.0.0/16", "bad.rules:2:28: 'src' given twice"),
                       ("accept icmpv6 type 128 type 129", "bad.rules:2:24: 'type' given twice")):
        bad_config("nf-firewall", ["--rules", "@TMP/bad.rules"], want,
                   "refuses '%s' with a message naming the line and column" % text,
                   files={"bad.rules": "default drop\n" + text + "\n"})
    bad_config("nf-firewall", [], "no rule file", "no --rules")
    # Drops logged at a bounded rate: 2 lines, then how many more.
    drops = [(0, k, P.packet("10.0.0.1", "10.0.0.2", P.UDP, P.udp("10.0.0.1", "10.0.0.2", 1000 + k, 54, b"d"))) for k in range(10)]
    code, _, s, err = run("nf-firewall", ["--rules", "@TMP/log.rules", "--log-drops", "2"], drops,
                          files={"log.rules": "default accept\n# web\ndrop udp dport 54\n"})
    lines = [ln for ln in err.splitlines() if "drop" in ln]
    check(code == 0 and lines == ["nf-firewall: drop udp 10.0.0.1:1000 > 10.0.0.2:54: line 3: drop udp dport 54",
                                  "nf-firewall: drop udp 10.0.0.1:1001 > 10.0.0.2:54: line 3: drop udp dport 54",
                                  "nf-firewall: 8 more drops not logged (--log-drops 2 a second)"],
          "nf-firewall --log-drops 2: two drops logged with the rule that dropped them, the other 8 counted")
    # A control byte (an escape sequence pasted in) is refused, and shown escaped.
    code, _, _, err = run("nf-firewall", ["--rules", "@TMP/esc.rules"], [],
                          files={"esc.rules": "default drop\naccept tcp \x1b[2Jdport 80\n"})
    check(code == 2 and "esc.rules:2:12: control byte 0x1b" in err and "\x1b" not in err and len(err.splitlines()) == 1,
          "nf-firewall: a control byte in a rule file is refused at its column, the message one line with none in it")
    # Fail closed: what cannot be read whole, or says nothing, is refused.
    os.makedirs(os.path.join(TMP, "rules.d"), exist_ok=True)
    bad_config("nf-firewall", ["--rules", "@TMP/rules.d"], "rules.d: cannot read after line 0: Is a directory",
               "a directory for --rules is refused (EISDIR), not read as no rules")
    for text, what in (("", "an empty rule file"), ("# nothing yet\n\n", "a file of comments")):
        bad_config("nf-firewall", ["--rules", "@TMP/empty.rules"],
                   "no rules and no 'default accept|drop' line", "%s is refused: no policy said" % what,
                   files={"empty.rules": text})
    # A long comment is a comment, however long: its tail is no rule.
    code, _, s, _ = run("nf-firewall", ["--rules", "@TMP/long.rules"], [],
                        files={"long.rules": "default drop\ndrop tcp dport 22 # " + "x" * 6000 + " accept any\n"})
    check(code == 0 and [r.get("rule") for r in s.get("nf-firewall", {}).get("rules", [])] == ["drop tcp dport 22"],
          "nf-firewall: a 6,000-byte comment after a rule is a comment, its tail not read as a rule")
    code, _, s, err = run("nf-firewall", ["--rules", "@TMP/open.rules"], [],
                          files={"open.rules": "# open on purpose\ndefault accept\n"})
    check(code == 0 and s.get("nf-firewall", {}).get("default", {}).get("action") == "accept",
          "nf-firewall: no rules with an explicit 'default accept' runs, as said")
    # A rule file whose name is not UTF-8: the summary is still valid JSON.
    name = os.path.join(TMP.encode(), b"fw-\xff\xc3(-\xe2\x82\xac.rules")
    with open(name, "wb") as f:
        f.write(b"accept tcp dport 80\n")
    pin = os.path.join(TMP, "in.pcapng")
    P.write_pcapng(pin, IFACES, [])
    p = subprocess.run([os.path.join(BIN, "nf-firewall").encode(), b"--pcap-in", pin.encode(),
                        b"--json", b"--rules", name], capture_output=True, timeout=60)
    try:
        summary = json.loads(p.stdout.decode("utf-8").strip().splitlines()[-1])
        got = summary["nf-firewall"]["rule_file"]
    except (ValueError, KeyError, IndexError) as e:
        diag("%r: %r" % (e, p.stdout[-300:]))
        got = None
    want = TMP + "/fw-\ufffd\ufffd(-\u20ac.rules"
    check(p.returncode == 0 and got == want,
          "nf-firewall --json: a file name that is not UTF-8 is escaped (U+FFFD), the JSON valid")


def test_firewall_policy_once():
    """default and nonip are said once a file: a second line (one pasted in, say) replacing
    the first could open the firewall; it is refused where it stands, naming the first."""
    for text, want, what in (
            ("default drop\naccept tcp dport 22\n# pasted\ndefault accept\n",
             "twice.rules:4:1: 'default' given twice (first on line 1)", "a second 'default'"),
            ("nonip drop\ndefault drop\n  nonip accept\n",
             "twice.rules:3:3: 'nonip' given twice (first on line 1)", "a second 'nonip'"),
            ("default drop\ndefault drop\n",
             "twice.rules:2:1: 'default' given twice (first on line 1)", "the same 'default' twice")):
        bad_config("nf-firewall", ["--rules", "@TMP/twice.rules"], want, "%s is refused at its line" % what,
                   files={"twice.rules": text})


def shown(err):
    """err (bytes) has no control character a terminal obeys: newlines end its lines and
    nothing else is C0, DEL or C1 (a raw 0x80-0x9f byte, or U+0080-U+009F in UTF-8)."""
    text = err.decode("utf-8", "surrogateescape")
    return err.endswith(b"\n") and not any(
        (ord(ch) < 0x20 and ch != "\n") or 0x7f <= ord(ch) <= 0x9f or 0xdc80 <= ord(ch) <= 0xdc9f
        for ch in text)


def test_messages_shown():
    """What the user typed or a file held reaches stderr with its control characters
    shown as \\xNN, never obeyed: option values, file names, rule words, the summary."""
    tmp = TMP.encode()
    pin = os.path.join(TMP, "in.pcapng").encode()
    P.write_pcapng(pin, IFACES, [])
    os.makedirs(tmp + b"/d\x1b[31m", exist_ok=True)
    for name, text in ((b"/e\x1b]0;t\x07.rules", b""), (b"/c1.rules", b"default drop\naccept \x9b31m\n"),
                       (b"/s\x1b[31m.rules", b"default accept\n")):
        with open(tmp + name, "wb") as f:
            f.write(text)
    fw, fwd = os.path.join(BIN, "nf-firewall").encode(), os.path.join(BIN, "nf-fwd").encode()
    for args, code, want, what in (
            ([fwd, b"--metrics", b"\x1b[31mx"], 2, b"bad --metrics '\\x1b[31mx'", "an escape in an option value"),
            ([fwd, b"--metrics", b"a\nnf-fwd: forged"], 2, b"bad --metrics 'a\\x0anf-fwd: forged'",
             "a newline in an option value (no forged line)"),
            ([fwd, b"--batch", b"9\x9b2J"], 2, b"bad value '9\\x9b2J' for --batch", "a raw C1 byte (CSI)"),
            ([fwd, b"--batch", b"\xc3\xa9\xc4\x9b\xc2\x9b"], 2, b"'\xc3\xa9\xc4\x9b\\xc2\\x9b'",
             "U+009B in UTF-8 (while U+00E9 and U+011B, whose 0x9b is no C1, stay)"),
            ([fwd, b"--\x1b[2Jx"], 2, b"unknown option '--\\x1b[2Jx'", "an unknown option"),
            ([fw, b"--pcap-in", pin, b"--rules", tmp + b"/none\x1b[31m"], 2,
             b"cannot read rule file " + tmp + b"/none\\x1b[31m", "a rule file that is not there"),
            ([fw, b"--pcap-in", pin, b"--rules", tmp + b"/d\x1b[31m"], 2,
             b"d\\x1b[31m: cannot read after line 0: Is a directory", "a rule file that is a directory"),
            ([fw, b"--pcap-in", pin, b"--rules", tmp + b"/e\x1b]0;t\x07.rules"], 2,
             b"e\\x1b]0;t\\x07.rules: no rules and no 'default accept|drop' line", "an empty rule file"),
            ([fw, b"--pcap-in", pin, b"--rules", tmp + b"/c1.rules"], 2,
             b"c1.rules:2:8: unknown protocol '\\x9b31m'", "a raw C1 byte in a rule"),
            ([fw, b"--pcap-in", pin, b"--pcap-out", b"-", b"--rules", tmp + b"/s\x1b[31m.rules"], 0,
             b"rules from " + tmp + b"/s\\x1b[31m.rules (0 reloads)", "the summary on stderr (--pcap-out -)")):
        p = subprocess.run(args, capture_output=True, timeout=60)
        lines = 1 if code else None
        ok = p.returncode == code and want in p.stderr and shown(p.stderr) and \
            (lines is None or len(p.stderr.splitlines()) == lines)
        if not ok:
            diag("exit %d: %r" % (p.returncode, p.stderr))
        check(ok, "%s: %s is shown escaped, one line" % (os.path.basename(args[0]).decode(), what))
    # The JSON summary on stderr too: DEL and C1 as \u00XX, the string itself intact.
    name = b"/j\x7f\xc2\x9b31m.rules"
    with open(tmp + name, "wb") as f:
        f.write(b"default accept\n")
    p = subprocess.run([fw, b"--pcap-in", pin, b"--pcap-out", b"-", b"--json", b"--rules", tmp + name],
                       capture_output=True, timeout=60)
    try:
        got = json.loads(p.stderr.splitlines()[-1])["nf-firewall"]["rule_file"]
    except (ValueError, KeyError, IndexError):
        got = None
    check(p.returncode == 0 and shown(p.stderr) and got == (tmp + name).decode(),
          "nf-firewall --json: DEL and C1 in a file name are \\u00XX in the summary, and read back whole")


def etc_protocols():
    """/etc/protocols' names and numbers (aliases aside), or None."""
    try:
        with open("/etc/protocols") as f:
            words = [ln.split("#")[0].split() for ln in f]
    except OSError:
        return None
    return {w[0]: int(w[1]) for w in words if len(w) >= 2}


def test_proto_names():
    """The protocol names of rules (nf-firewall's, netslicectl's) mean what /etc/protocols
    says: IPv4 in IPv4 is ipencap (4); ipip, 94 there and 4 before, is refused."""
    etc = etc_protocols()
    if not etc or etc.get("ipip") != 94:
        skip("no Debian netbase /etc/protocols")
        return
    code, _, _, err = run("nf-firewall", ["--rules", "@TMP/p.rules"], [], files={"p.rules": "accept bogus\n"})
    names = err.split("(any, ")[-1].split(", or 0 to 255)")[0].split(", ") if code == 2 else []
    check(names and [n for n in names if n not in etc] == ["icmpv6"] and "ipip" not in names,
          "every protocol name the tools show is /etc/protocols', but icmpv6 (the rule words' own); "
          "not ipip")
    code, _, _, err = run("nf-firewall", ["--rules", "@TMP/p.rules"], [], files={"p.rules": "drop ipip\n"})
    check(code == 2 and "p.rules:1:6: 'ipip' is ambiguous: /etc/protocols' ipip is 94, earlier versions "
          "read it as 4; write ipencap (4, IPv4 in IPv4) or 94" in err,
          "'drop ipip' is refused, saying why (94 in /etc/protocols, 4 before): no rule changes meaning unseen")
    src, dst, src6, dst6 = "10.0.0.1", "10.0.0.2", "2001:db8::1", "2001:db8::2"
    num = dict(etc, icmpv6=58)
    names = [n for n in names if n in num]
    l4 = {1: P.icmp(src, dst), 6: P.tcp(src, dst, 1, 2), 17: P.udp(src, dst, 1, 2)}
    frames = [(0, k, P.packet(src6, dst6, 58, P.icmp(src6, dst6, 128)) if num[n] == 58 else
               P.packet(src, dst, num[n], l4.get(num[n], bytes(40)))) for k, n in enumerate(names)]
    rules = "default accept\n" + "".join("drop %s\n" % n for n in names)
    code, out, s, _ = run("nf-firewall", ["--rules", "@TMP/p.rules"], frames, files={"p.rules": rules})
    hits = {r["rule"]: r["hits"] for r in s.get("nf-firewall", {}).get("rules", [])}
    ok = code == 0 and not out and names and hits == {"drop " + n: 1 for n in names}
    if not ok:
        diag("passed: %s; hits %s" % ([P.Frame(f).proto for _, _, f in out], hits))
    check(ok, "'drop NAME' for each name drops exactly the packet of /etc/protocols' number "
          "(ipencap 4, ...)")
    code, out, s, _ = run("nf-firewall", ["--rules", "@TMP/p.rules"], frames[:1] + [
        (0, 9, P.packet(src6, dst6, 58, P.icmp(src6, dst6, 128)))],
        files={"p.rules": "default accept\ndrop ipv6-icmp\n"})
    check(code == 0 and len(out) == 1, "/etc/protocols' own name for ICMPv6, ipv6-icmp, is read as 58 too")


IN_MAC, OUT_MAC = "02:00:00:00:00:a0", "02:00:00:00:00:b0"
HOST, HOST_MAC = "10.0.0.1", "02:00:00:00:00:01"
REM, REM_MAC = "192.0.2.1", "02:00:00:00:00:02"
PUB = "198.51.100.1"


def test_nat():
    """A scripted exchange through nf-nat (-b 1: packet time is the clock)."""
    t = [0]

    def at(sec):
        t[0] = int(sec * 1e6)

    steps = []  # (iface, time, frame, [(out iface, frame)], what)

    def routed(o, f):
        """An IPv4 frame one router later: TTL - 1, and from the NAT's MAC on the inside."""
        if f[12:14] != b"\x08\x00":
            return f
        b = bytearray(f)
        b[22] -= 1
        if o == 0:
            b[6:12] = P.mac(IN_MAC)
        return b[:14] + ip_fixed(b[14:])

    def step(iface, frame, outs, what):
        steps.append((iface, t[0], frame, [(o, routed(o, f)) for o, f in outs], what))

    def v4(src, dst, l4b, proto, smac, dmac):
        return P.packet(src, dst, proto, l4b, smac=smac, dmac=dmac)

    tcp = lambda s, d, sp, dp, fl: P.tcp(s, d, sp, dp, fl, body=b"x" * 300)
    ipq = lambda s, d, proto, l4b, n=28: P.ipv4(s, d, proto, l4b)[:n]  # what an ICMP error quotes
    step(1, P.arp_request(REM_MAC, REM, PUB),
         [(1, P.arp_reply(OUT_MAC, PUB, REM_MAC, REM))],
         "ARP for the public address is answered outside with the outside MAC")
    step(0, P.arp_request(HOST_MAC, HOST, REM), [(0, P.arp_reply(IN_MAC, REM, HOST_MAC, HOST))],
         "inside ARP is answered by the NAT as the hosts' router, never passed out")
    step(1, P.arp_request(REM_MAC, REM, HOST), [], "outside ARP for an inside address is dropped")
    step(0, v4(HOST, REM, tcp(HOST, REM, 40000, 80, 0x02), P.TCP, HOST_MAC, IN_MAC),
         [(1, v4(PUB, REM, tcp(PUB, REM, 30000, 80, 0x02), P.TCP, OUT_MAC, REM_MAC))],
         "outbound TCP SYN leaves from the public address and port 30000, to the next hop's MAC")
    step(1, v4(REM, PUB, tcp(REM, PUB, 80, 30000, 0x12), P.TCP, REM_MAC, OUT_MAC),
         [(0, v4(REM, HOST, tcp(REM, HOST, 80, 40000, 0x12), P.TCP, REM_MAC, HOST_MAC))],
         "the SYN-ACK comes back to the inside host and port")
    step(1, v4("192.0.2.254", PUB, P.icmp_error(3, 4, ipq(PUB, REM, P.TCP, tcp(PUB, REM, 30000, 80, 0x10)), 1280),
            P.ICMP, REM_MAC, OUT_MAC),
         [(0, v4("192.0.2.254", HOST, P.icmp_error(3, 4, ipq(HOST, REM, P.TCP, tcp(HOST, REM, 40000, 80, 0x10)), 1280),
                 P.ICMP, REM_MAC, HOST_MAC))],
         "a router's fragmentation-needed about the connection reaches the host, quote translated back")
    step(1, v4("192.0.2.254", PUB, P.icmp_error(3, 4, ipq(PUB, REM, P.TCP, tcp(PUB, REM, 30999, 80, 0x10)), 1280),
            P.ICMP, REM_MAC, OUT_MAC),
         [], "an ICMP error about no connection is dropped")
    step(1, v4(REM, HOST, tcp(REM, HOST, 80, 40000, 0x02), P.TCP, REM_MAC, OUT_MAC),
         [], "unsolicited outside IPv4 to an inside address is dropped")
    step(1, v4("192.0.2.66", PUB, tcp("192.0.2.66", PUB, 80, 30000, 0x12), P.TCP, REM_MAC, OUT_MAC),
         [], "another remote cannot use the connection's public port")
    step(1, v4(REM, PUB, tcp(REM, PUB, 80, 1234, 0x02), P.TCP, REM_MAC, OUT_MAC),
         [], "unsolicited inbound is dropped")
    step(0, v4(HOST, REM, tcp(HOST, REM, 40001, 80, 0x02), P.TCP, HOST_MAC, IN_MAC),
         [], "a second TCP connection finds no free port (range of one)")
    step(0, v4(HOST, REM, P.icmp(HOST, REM, 8, 0x1234), P.ICMP, HOST_MAC, IN_MAC),
         [(1, v4(PUB, REM, P.icmp(PUB, REM, 8, 30000), P.ICMP, OUT_MAC, REM_MAC))],
         "ICMP echo request: identifier translated")
    step(1, v4(REM, PUB, P.icmp(REM, PUB, 0, 30000), P.ICMP, REM_MAC, OUT_MAC),
         [(0, v4(REM, HOST, P.icmp(REM, HOST, 0, 0x1234), P.ICMP, REM_MAC, HOST_MAC))],
         "ICMP echo reply: identifier restored")
    step(1, v4("192.0.2.254", PUB, P.icmp_error(11, 0, P.ipv4(PUB, REM, P.ICMP, P.icmp(PUB, REM, 8, 30000), ttl=1)),
            P.ICMP, REM_MAC, OUT_MAC),
         [(0, v4("192.0.2.254", HOST, P.icmp_error(11, 0, P.ipv4(HOST, REM, P.ICMP, P.icmp(HOST, REM, 8, 0x1234), ttl=1)),
                 P.ICMP, REM_MAC, HOST_MAC))],
         "time exceeded about the echo request: quoted identifier and checksums restored")
    step(1, v4("192.0.2.9", PUB, tcp("192.0.2.9", PUB, 5555, 8080, 0x02), P.TCP, REM_MAC, OUT_MAC),
         [(0, v4("192.0.2.9", HOST, tcp("192.0.2.9", HOST, 5555, 80, 0x02), P.TCP, REM_MAC, HOST_MAC))],
         "port forward tcp:8080 -> 10.0.0.1:80 inbound")
    step(0, v4(HOST, "192.0.2.9", P.icmp_error(3, 13, ipq("192.0.2.9", HOST, P.TCP, tcp("192.0.2.9", HOST, 5555, 80, 0x02))),
            P.ICMP, HOST_MAC, IN_MAC),
         [(1, v4(PUB, "192.0.2.9", P.icmp_error(3, 13, ipq("192.0.2.9", PUB, P.TCP, tcp("192.0.2.9", PUB, 5555, 8080, 0x02))),
                 P.ICMP, OUT_MAC, REM_MAC))],
         "the inside host's ICMP error about it leaves from the public address, quote translated")
    step(0, v4(HOST, "192.0.2.9", tcp(HOST, "192.0.2.9", 80, 5555, 0x12), P.TCP, HOST_MAC, IN_MAC),
         [(1, v4(PUB, "192.0.2.9", tcp(PUB, "192.0.2.9", 8080, 5555, 0x12), P.TCP, OUT_MAC, REM_MAC))],
         "the forwarded connection's answer leaves from public:8080")
    probe = P.eth("ff:ff:ff:ff:ff:ff", IN_MAC, P.ETH_ARP, bytes.fromhex("0001080006040001") + P.mac(IN_MAC) + P.ip(PUB) + b"\0" * 6 + P.ip("10.0.0.7"))
    udp7 = lambda: v4(REM, PUB, P.udp(REM, PUB, 7000, 9999, b"hello"), P.UDP, REM_MAC, OUT_MAC)
    step(1, udp7(), [(0, probe)], "forward to a host not heard from: ARP probe inside, packet dropped")
    step(0, P.eth(OUT_MAC, "02:00:00:00:00:07", P.ETH_ARP, bytes.fromhex("0001080006040002") + P.mac("02:00:00:00:00:07") + P.ip("10.0.0.7") + P.mac(OUT_MAC) + P.ip(PUB)),
         [], "its ARP answer is absorbed")
    step(1, udp7(), [(0, v4(REM, "10.0.0.7", P.udp(REM, "10.0.0.7", 7000, 99, b"hello"), P.UDP, REM_MAC, "02:00:00:00:00:07"))],
         "the retry reaches it")
    step(0, v4(HOST, REM, P.udp(HOST, REM, 5000, 53, b"q"), P.UDP, HOST_MAC, IN_MAC),
         [(1, v4(PUB, REM, P.udp(PUB, REM, 30000, 53, b"q"), P.UDP, OUT_MAC, REM_MAC))],
         "outbound UDP")
    step(1, v4(REM, PUB, P.icmp_error(3, 3, P.ipv4(PUB, REM, P.UDP, P.udp(PUB, REM, 30000, 53, b"q"))),
            P.ICMP, REM_MAC, OUT_MAC),
         [(0, v4(REM, HOST, P.icmp_error(3, 3, P.ipv4(HOST, REM, P.UDP, P.udp(HOST, REM, 5000, 53, b"q"))),
                 P.ICMP, REM_MAC, HOST_MAC))],
         "port unreachable quoting the whole datagram: address, port and UDP checksum translated")
    at(20)
    step(1, v4(REM, PUB, P.udp(REM, PUB, 53, 30000, b"a"), P.UDP, REM_MAC, OUT_MAC),
         [], "a UDP answer after the 10 s timeout is dropped")
    step(0, v4(HOST, "192.0.2.77", P.udp(HOST, "192.0.2.77", 5001, 53, b"q"), P.UDP, HOST_MAC, IN_MAC),
         [(1, P.eth("ff:ff:ff:ff:ff:ff", OUT_MAC, P.ETH_ARP, bytes.fromhex("0001080006040001") + P.mac(OUT_MAC) + P.ip(PUB) + b"\0" * 6 + P.ip("192.0.2.77")))],
         "to a next hop not yet known: ARP asks outside (as the public address), the packet waits")
    step(1, P.arp_reply("02:00:00:00:00:77", "192.0.2.77", OUT_MAC, PUB),
         [(1, v4(PUB, "192.0.2.77", P.udp(PUB, "192.0.2.77", 30000, 53, b"q"), P.UDP, OUT_MAC, "02:00:00:00:00:77"))],
         "its ARP answer sends the waiting packet, translated, to the MAC it gave")
    step(0, P.packet("2001:db8::1", "2001:db8::2", P.UDP, P.udp("2001:db8::1", "2001:db8::2", 1, 2)),
         [], "IPv6 is dropped (an IPv4 router does not bridge it)")
    frag = P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1, 2, b"zz"), smac=HOST_MAC, dmac=IN_MAC, frag=0x0010)
    step(0, frag, [], "a later fragment is dropped")
    args = ["-b", "1", "--inside", "in0", "--outside", "out0", "--public", PUB, "--ports", "30000-30000",
            "--forward", "tcp:8080=10.0.0.1:80", "--forward", "udp:9999=10.0.0.7:99", "--timeout-udp", "10"]
    for mode in ("off", "auto"):
        code, out, s, _ = run("nf-nat", args, [(i, ts, f) for i, ts, f, _, _ in steps],
                              ifaces=[("in0", IN_MAC), ("out0", OUT_MAC)], cut=mode)
        want = [(o, f) for _, _, _, outs, _ in steps for o, f in outs]
        got = [(i, f) for i, _, f in out]
        if got != want:
            for k, (a, b) in enumerate(zip(got, want)):
                if a != b:
                    diag("first difference at output %d:\n got %s\nwant %s" % (k, a[1].hex(), b[1].hex()))
                    break
            diag("%d frames out, %d expected" % (len(got), len(want)))
        nat = s.get("nf-nat", {})
        ok = code == 0 and got == want and all(P.Frame(f).checksums_ok() for _, f in got if f[12:14] == b"\x08\x00")
        ok = ok and nat.get("dropped_no_ports") == 1 and nat.get("dropped_no_conn") == 4 and \
            nat.get("arp_probes") == 1 and nat.get("arp_probes_outside") == 1 and \
            nat.get("dropped_fragments") == 1 and nat.get("dropped_not_public") == 1 and \
            nat.get("icmp_errors") == 4 and nat.get("arp_answered_inside") == 1 and \
            nat.get("held_for_arp") == 1 and nat.get("held_sent") == 1 and nat.get("dropped_not_ipv4") == 1
        if not ok:
            diag(json.dumps(nat))
        check(ok, "nf-nat -m %s: %d scripted steps (SNAT, ARP both sides, endpoint filtering, "
              "unsolicited, ports, ICMP echo and errors, port forwards, ARP probes, timeout, IPv6, "
              "fragments) give exactly the expected frames, each one hop later (TTL - 1), "
              "inbound ones from the NAT's inside MAC" % (mode, len(steps)))
    # Two workers, each side on its own: every connection is opened in one
    # worker's part and answered from the other's (offline there are no
    # steering rules), so every answer is found across parts.
    for out_q, in_q in ((0, 1), (1, 0)):
        frames = [(i, ts, f, None, in_q if i else out_q) for i, ts, f, _, _ in steps]
        code, out, s, _ = run("nf-nat", args + ["-s", "0,1"], frames,
                              ifaces=[("in0", IN_MAC), ("out0", OUT_MAC)], cut="auto")
        got = [(i, f) for i, _, f in out]
        nat = s.get("nf-nat", {})
        ok = code == 0 and got == want and nat.get("dropped_no_conn") == 4 and \
            nat.get("icmp_errors") == 4 and nat.get("held_sent") == 1 and \
            nat.get("foreign") == 7 and nat.get("rules_set") == 0
        if not ok:
            diag("%d frames out, %d expected; %s" % (len(got), len(want), json.dumps(nat)))
        check(ok, "nf-nat on two slices, inside on queue %d and outside on %d: the same %d steps give "
              "the same frames, every answer found in the other worker's part" % (out_q, in_q, len(steps)))
    # A gateway whose MAC is given: everything goes to it at once, nothing asked.
    gw = ["--inside", "in0", "--outside", "out0", "--public", PUB, "--gateway", "192.0.2.254@02:00:00:00:00:fe"]
    frames = [(0, 0, v4(HOST, "203.0.113.%d" % i, P.udp(HOST, "203.0.113.%d" % i, 5000, 53, b"q"), P.UDP,
                        HOST_MAC, IN_MAC)) for i in (1, 2)]
    code, out, s, _ = run("nf-nat", gw, frames, ifaces=[("in0", IN_MAC), ("out0", OUT_MAC)])
    ok = code == 0 and [(i, f[0:6], P.Frame(f).saddr) for i, _, f in out] == \
        [(1, P.mac("02:00:00:00:00:fe"), PUB)] * 2 and s["nf-nat"]["arp_probes_outside"] == 0
    check(ok, "nf-nat --gateway ADDR@MAC: translated packets go to the gateway's MAC, no ARP asked")
    # Another pair's frames, ARP too, pass untouched: a slice fed by two
    # pairs, or a chain whose next NF serves the other pair (docs/nfs.md).
    c1, c2 = "02:00:00:00:00:c1", "02:00:00:00:00:c2"
    other = [(2, 0, P.arp_request(c1, "10.9.0.1", "10.9.0.2")),
             (3, 1, P.arp_reply(c2, "10.9.0.2", c1, "10.9.0.1")),
             (2, 2, v4("10.9.0.1", "10.9.0.2", P.udp("10.9.0.1", "10.9.0.2", 5, 6, b"x"), P.UDP, c1, c2))]
    code, out, s, _ = run("nf-nat", ["--inside", "in0", "--outside", "out0", "--public", PUB], other,
                          ifaces=[("in0", IN_MAC), ("out0", OUT_MAC), ("in1", "02:00:00:00:00:c0"),
                                  ("out1", "02:00:00:00:00:d0")])
    ok = code == 0 and [(i, f) for i, _, f in out] == [(3, other[0][2]), (2, other[1][2]), (3, other[2][2])] and \
        s.get("nf-nat", {}).get("passed") == 3
    check(ok, "nf-nat passes another pair's frames untouched, its ARP too (counted passed)")
    bad_config("nf-nat", ["--gateway", "192.0.2.254@02:00"], "bad --gateway '192.0.2.254@02:00'", "bad --gateway")
    bad_config("nf-nat", ["--inside", "in0", "--outside", "out0"], "are required", "missing --public")
    bad_config("nf-nat", ["--inside", "in0", "--outside", "nope", "--public", PUB], "no such interface: nope", "unknown interface")
    bad_config("nf-nat", ["--public", "300.1.1.1"], "bad --public address", "bad public address")
    bad_config("nf-nat", ["--forward", "tcp:80=10.0.0.1"], "bad --forward", "bad port forward")
    bad_config("nf-nat", ["--ports", "9-3"], "bad --ports", "bad port range")
    # Numbers and addresses as strictly as a router's configuration takes them.
    for args, want, what in ((["--ports", "1000-2000xyz"], "bad --ports '1000-2000xyz'", "--ports 1000-2000xyz"),
                             (["--ports", "+6-7"], "bad --ports '+6-7'", "--ports +6-7"),
                             (["-b", "+6"], "bad value '+6' for --batch", "-b +6"),
                             (["-b", "-0"], "bad value '-0' for --batch", "-b -0"),
                             (["--timeout-udp", "10x"], "bad value '10x'", "--timeout-udp 10x"),
                             (["--forward", "tcp:80=10.0.0.1:8x"], "bad --forward", "a forward to port 8x"),
                             (["--forward", "tcp:80=10.0.0.1:80", "--forward", "tcp:80=10.0.0.2:80"],
                              "tcp port 80 is forwarded twice", "two forwards of one port"),
                             (["--public", "255.255.255.255"], "bad --public address '255.255.255.255' (broadcast; a unicast",
                              "--public 255.255.255.255"),
                             (["--public", "224.0.0.1"], "bad --public address", "--public 224.0.0.1")):
        bad_config("nf-nat", args, want, "%s is refused" % what)


def test_nat_router():
    """nf-nat as the hosts' router: TTL expiry, pings to its addresses, hairpin, IPv6."""
    args = ["--inside", "in0", "--outside", "out0", "--public", PUB, "--inside-address", "10.0.0.254",
            "--gateway", "192.0.2.254@" + REM_MAC, "--forward", "tcp:8080=10.0.0.1:80"]
    ping = lambda s, d, sm, dm, ttl=64: P.eth(dm, sm, P.ETH_IP, P.ipv4(s, d, P.ICMP, P.icmp(s, d, 8, 0x77, body=b"x" * 300), ttl=ttl))
    ttl1 = P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 5000, 53, b"q" * 100), smac=HOST_MAC, dmac=IN_MAC, ttl=1)
    ttl1_in = P.packet(REM, PUB, P.TCP, P.tcp(REM, PUB, 5555, 8080, 0x02), smac=REM_MAC, dmac=OUT_MAC, ttl=1)
    hair = P.packet(HOST, PUB, P.TCP, P.tcp(HOST, PUB, 4000, 8080, 0x02), smac=HOST_MAC, dmac=IN_MAC)
    v6 = P.packet("2001:db8::1", "2001:db8::2", P.UDP, P.udp("2001:db8::1", "2001:db8::2", 1, 2), smac=REM_MAC, dmac=OUT_MAC)
    err1 = P.packet("192.0.2.254", PUB, P.ICMP, P.icmp_error(3, 3, b"\0" * 28), smac=REM_MAC, dmac=OUT_MAC, ttl=1)
    frames = [(0, 0, ping(HOST, "10.0.0.254", HOST_MAC, IN_MAC)), (0, 1, ping(HOST, PUB, HOST_MAC, IN_MAC)),
              (1, 2, ping(REM, PUB, REM_MAC, OUT_MAC)), (0, 3, ttl1), (1, 4, ttl1_in), (0, 5, hair), (1, 6, v6),
              (1, 7, err1)]
    for mode in ("off", "auto"):
        code, out, s, _ = run("nf-nat", args, frames, cut=mode)
        n = s.get("nf-nat", {})
        # The time exceeded frames are injected as the batch is processed: ahead of it.
        fr = sorted([(i, P.Frame(f), f) for i, _, f in out], key=lambda x: x[1].l4[0] if x[1].l4 else 0)
        want_echo = [(0, "10.0.0.254", HOST, HOST_MAC, IN_MAC), (0, PUB, HOST, HOST_MAC, IN_MAC),
                     (1, PUB, REM, REM_MAC, OUT_MAC)]
        ok = code == 0 and len(fr) == 5
        ok = ok and all(i == wi and e.saddr == ws and e.daddr == wd and f[0:6] == P.mac(wdm) and
                        f[6:12] == P.mac(wsm) and e.l4[0] == 0 and e.l4[4:] == frames[k][2][38:] and
                        e.checksums_ok() and f[22] == 64
                        for k, ((i, e, f), (wi, ws, wd, wdm, wsm)) in enumerate(zip(fr[:3], want_echo)))
        # Time exceeded: inside from the inside address, outside from the public one, quoting the packet.
        te = fr[3:]
        ok = ok and [(i, e.saddr, e.daddr, f[0:6], f[6:12]) for i, e, f in te] == \
            [(0, "10.0.0.254", HOST, P.mac(HOST_MAC), P.mac(IN_MAC)), (1, PUB, REM, P.mac(REM_MAC), P.mac(OUT_MAC))]
        ok = ok and all(e.l4[0] == 11 and e.l4[1] == 0 and e.checksums_ok() and e.l4[8:28] == q[14:34]
                        for (_, e, _), q in zip(te, (ttl1, ttl1_in)))
        ok = ok and n.get("echo_answered") == 3 and n.get("ttl_expired") == 3 and n.get("dropped_hairpin") == 1 and \
            n.get("dropped_not_ipv4") == 1 and n.get("created") == 0 and s["total"]["injected"] == 2
        if not ok:
            diag("%s %s" % (json.dumps(n), [(i, f.hex()) for i, _, f in out]))
        check(ok, "nf-nat -m %s as a router: pings to its inside and public addresses answered from them; "
              "TTL 1 gets time exceeded both ways (an expiring ICMP error only dropped); a hairpin to the "
              "public address and IPv6 dropped and counted" % mode)


def test_nat_refuses():
    """What a router must not forward (RFC 1812 4.2.2.11, 5.3.4, 5.3.7), from either side,
    counted by reason; ARP, pings to its addresses and real traffic still work."""
    args = ["--inside", "in0", "--outside", "out0", "--public", PUB, "--inside-address", "10.0.0.254",
            "--gateway", "192.0.2.254@" + REM_MAC, "--forward", "tcp:8080=10.0.0.1:80"]
    bcast, mdns = "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:fb"

    def udp(side, src, dst, dmac=None, smac=None):
        dmac = dmac or (IN_MAC if side == 0 else OUT_MAC)
        smac = smac or (HOST_MAC if side == 0 else REM_MAC)
        return (side, P.packet(src, dst, P.UDP, P.udp(src, dst, 5353, 5353, b"r"), smac=smac, dmac=dmac))

    syn8080 = lambda dmac: (1, P.packet(REM, PUB, P.TCP, P.tcp(REM, PUB, 5555, 8080, 0x02), smac=REM_MAC, dmac=dmac))
    ping = lambda side, src, dst, dmac: (side, P.packet(src, dst, P.ICMP, P.icmp(src, dst, 8, 0x77),
                                                        smac=HOST_MAC if side == 0 else REM_MAC, dmac=dmac))
    refused = {
        "dropped_loopback": [udp(0, HOST, "127.0.0.1"), udp(0, "127.0.0.1", REM), udp(1, REM, "127.0.0.1"),
                             udp(1, "127.0.0.1", PUB)],
        "dropped_bad_source": [udp(0, "0.0.0.0", "255.255.255.255", bcast), udp(0, "0.0.0.0", REM),
                               udp(0, "224.0.0.5", REM), udp(0, "255.255.255.255", REM),
                               udp(0, "240.0.0.9", REM), udp(1, "0.0.0.0", "255.255.255.255", bcast)],
        "dropped_this_network": [udp(0, HOST, "0.1.2.3"), udp(1, REM, "0.0.0.5")],
        "dropped_multicast": [udp(0, HOST, "224.0.0.251", mdns), udp(0, HOST, "239.1.2.3", "01:00:5e:01:02:03"),
                              udp(0, HOST, "224.0.0.251"), udp(1, REM, "224.0.0.251", mdns)],
        "dropped_broadcast": [udp(0, HOST, "255.255.255.255", bcast), udp(0, HOST, "255.255.255.255"),
                              ping(0, HOST, "255.255.255.255", bcast), udp(1, REM, "255.255.255.255", bcast)],
        "dropped_class_e": [udp(0, HOST, "240.0.0.1"), udp(1, REM, "250.1.1.1")],
        "dropped_link_broadcast": [udp(0, HOST, REM, bcast), udp(0, HOST, REM, "01:00:5e:00:00:01"),
                                   ping(0, HOST, "10.0.0.254", bcast), syn8080(bcast)],
        "dropped_not_our_mac": [udp(0, HOST, REM, REM_MAC), ping(0, HOST, "10.0.0.254", "02:00:00:00:00:99"),
                                syn8080("02:00:00:00:00:99")],
    }
    # What it still does: ARP both sides, pings to its addresses, a host's UDP out, a
    # port forward in.
    kept = [(0, P.arp_request(HOST_MAC, HOST, "10.0.0.254")), (1, P.arp_request(REM_MAC, REM, PUB)),
            ping(0, HOST, "10.0.0.254", IN_MAC), ping(1, REM, PUB, OUT_MAC), udp(0, HOST, REM),
            syn8080(OUT_MAC)]
    want = [(0, "arp"), (1, "arp"), (0, "10.0.0.254", HOST), (1, PUB, REM), (1, PUB, REM), (0, REM, HOST)]
    frames = [(i, t, f) for t, (i, f) in enumerate(kept[:2] + [x for v in refused.values() for x in v] + kept[2:])]
    for mode in ("off", "auto"):
        code, out, s, _ = run("nf-nat", args, frames, cut=mode)
        n = s.get("nf-nat", {})
        got = [(i, "arp") if P.Frame(f).etype == P.ETH_ARP else (i, P.Frame(f).saddr, P.Frame(f).daddr)
               for i, _, f in out]
        counted = {k: n.get(k) for k in refused}
        ok = code == 0 and got == want and counted == {k: len(v) for k, v in refused.items()} and \
            n.get("echo_answered") == 2 and n.get("out_packets") == 1 and n.get("in_packets") == 1
        if not ok:
            diag("out %s; counted %s" % (got, counted))
        check(ok, "nf-nat -m %s forwards no loopback, non-unicast source, 0/8, multicast (224.0.0.251 "
              "included), limited broadcast, class E, link-layer broadcast or multicast or other MAC's "
              "frame, either way, each reason its own counter; ARP, its pings, UDP out and a port "
              "forward in still work" % mode)


def test_nat_bad_options():
    """nf-nat's address options take unicast addresses only; a single-valued option once."""
    for args, want in ((["--forward", "tcp:80=255.255.255.255:80"], "bad --forward address '255.255.255.255'"),
                       (["--forward", "tcp:80=0.0.0.0:80"], "bad --forward address '0.0.0.0'"),
                       (["--forward", "tcp:80=127.0.0.1:80"], "bad --forward address '127.0.0.1'"),
                       (["--forward", "udp:53=224.0.0.251:53"], "bad --forward address '224.0.0.251'"),
                       (["--public", "0.1.2.3"], "bad --public address '0.1.2.3'"),
                       (["--public", "127.0.0.1"], "bad --public address '127.0.0.1'"),
                       (["--inside-address", "0.0.0.9"], "bad --inside-address address '0.0.0.9'"),
                       (["--gateway", "0.0.0.1@" + REM_MAC], "bad --gateway address '0.0.0.1'"),
                       (["--public", PUB, "--public", "198.51.100.2"], "--public given twice"),
                       (["--inside-address", "10.0.0.254", "--inside-address", "10.0.0.253"],
                        "--inside-address given twice"),
                       (["--gateway", "192.0.2.254", "--gateway", "192.0.2.253"], "--gateway given twice"),
                       (["--inside", "in0", "--inside", "out0"], "--inside given twice"),
                       (["--ports", "30000-30009", "--ports", "40000-40009"], "--ports given twice"),
                       (["--timeout-udp", "10", "--timeout-udp", "20"], "--timeout-udp given twice"),
                       (["--timeout-icmp", "10x"], "bad value '10x' for --timeout-icmp")):
        bad_config("nf-nat", args, want, "%s is refused" % " ".join(args))

def test_monitor():
    frames = []
    for i in range(300):
        flow = i % 3
        src = "10.0.0.%d" % (flow + 1)
        body = b"m" * (100 * (flow + 1))
        frames.append((0, i, P.packet(src, "10.0.0.9", P.UDP, P.udp(src, "10.0.0.9", 1000, 53, body))))
    frames.append((1, 400, P.arp_request(REM_MAC, REM, PUB)))
    for mode in ("off", "auto"):
        code, out, s, _ = run("nf-monitor", ["--top", "2"], frames, cut=mode)
        mon = s.get("nf-monitor", {})
        top = mon.get("top", [])
        ok = code == 0 and len(out) == 301 and mon.get("flows") == 3 and len(top) == 2 and \
            {k: top[0].get(k) for k in ("family", "proto", "src", "sport", "dst", "dport")} == \
            {"family": "ipv4", "proto": 17, "src": "10.0.0.3", "sport": 1000, "dst": "10.0.0.9",
             "dport": 53} and top[0]["packets"] == 100 and \
            top[0]["bytes"] == 100 * (14 + 20 + 8 + 300) and top[1]["packets"] == 100 and \
            mon.get("nonip_packets") == 1
        if not ok:
            diag(json.dumps(mon))
        check(ok, "nf-monitor -m %s: 3 flows of 100 packets, top 2 by bytes with wire sizes, "
              "flows as fields, non-IP apart; every frame forwarded" % mode)
    bad_config("nf-monitor", ["--top", "x"], "bad value 'x' for --top", "bad --top")


VIP = "10.0.1.100"
BACKENDS = [("10.0.1.%d" % (11 + i), "02:00:00:00:01:%02x" % (11 + i)) for i in range(4)]


def lb_run(nbackends, frames, extra=()):
    args = ["--vip", VIP + ":80", "--client-if", "in0", "--backend-if", "out0"]
    for a, m in BACKENDS[:nbackends]:
        args += ["--backend", "%s@%s" % (a, m)]
    return run("nf-lb", args + list(extra), frames, cut="auto")


def lb_flows(n):
    out = []
    for i in range(n):
        src = "10.0.0.%d" % (1 + i % 200)
        sport = 1024 + (i * 7919) % 60000
        out.append((0, i, P.packet(src, VIP, P.TCP, P.tcp(src, VIP, sport, 80, 0x02, body=b"q" * 50),
                                   dmac=IN_MAC)))
    return out


def test_lb():
    flows = lb_flows(3000)
    macs = {m: a for a, m in BACKENDS}
    code, out, s, _ = lb_run(3, flows)
    got3 = {}
    ok = code == 0 and len(out) == 3000
    for (_, _, fin), (iface, _, fout) in zip(flows, out):
        fr, fi = P.Frame(fout), P.Frame(fin)
        b = macs.get(":".join("%02x" % x for x in fr.dst))
        ok = ok and iface == 1 and b == fr.daddr and fr.checksums_ok() and fr.saddr == fi.saddr \
            and fr.sport == fi.sport and fout[34 + 20:] == fin[34 + 20:]
        got3[(fi.saddr, fi.sport)] = fr.daddr
    counts = [list(got3.values()).count(a) for a, _ in BACKENDS[:3]]
    diag("3000 flows over 3 backends: %s" % counts)
    check(ok and all(abs(c - 1000) <= 100 for c in counts),
          "nf-lb: 3000 flows to the VIP reach 3 backends within 10%, destination IP and MAC "
          "rewritten, checksums valid, payload untouched")
    code, out, _, _ = lb_run(4, flows)
    got4 = {(P.Frame(fi).saddr, P.Frame(fi).sport): P.Frame(fo).daddr for (_, _, fi), (_, _, fo) in zip(flows, out)}
    moved = [k for k in got3 if got3[k] != got4[k]]
    to_new = sum(1 for k in moved if got4[k] == BACKENDS[3][0])
    diag("adding a 4th backend moved %d of 3000 flows, %d of them to the new one" % (len(moved), to_new))
    check(code == 0 and 500 <= len(moved) <= 1000 and to_new >= 0.9 * len(moved),
          "nf-lb: a 4th backend takes about a quarter of the flows; the rest stay (Maglev)")
    ret = P.packet(BACKENDS[1][0], "10.0.0.5", P.TCP, P.tcp(BACKENDS[1][0], "10.0.0.5", 80, 4444, 0x12))
    arp = P.arp_request("02:00:00:00:00:01", "10.0.0.5", VIP)
    code, out, s, _ = lb_run(3, [(1, 0, ret), (0, 1, arp)])
    fr = P.Frame(out[0][2]) if out else None
    check(code == 0 and len(out) == 2 and out[0][0] == 0 and fr.saddr == VIP and fr.checksums_ok()
          and out[1][0] == 0 and out[1][2][20:22] == b"\x00\x02" and out[1][2][22:28] == P.mac(IN_MAC),
          "nf-lb: a backend's answer leaves from the VIP; ARP for the VIP is answered on the client side")
    # ICMP errors both ways: a backend's port unreachable about a client's datagram leaves
    # from the VIP; a router's fragmentation needed about a backend's answer reaches it.
    cli = "10.0.0.5"
    req = P.packet(cli, VIP, P.UDP, P.udp(cli, VIP, 5353, 80, b"hello"), dmac=IN_MAC)
    syn = P.packet(cli, VIP, P.TCP, P.tcp(cli, VIP, 4444, 80, 0x02), dmac=IN_MAC)
    code, out, s, _ = lb_run(3, [(0, 0, req), (0, 1, syn)])
    (udp_b, tcp_b), tcp_mac = [P.Frame(f).daddr for _, _, f in out], out[1][2][0:6]
    unreach = P.packet(udp_b, cli, P.ICMP, P.icmp_error(3, 3, P.ipv4(cli, udp_b, P.UDP,
                       P.udp(cli, udp_b, 5353, 80, b"hello"))), dmac=OUT_MAC)
    want_out = P.packet(VIP, cli, P.ICMP, P.icmp_error(3, 3, P.ipv4(cli, VIP, P.UDP,
                        P.udp(cli, VIP, 5353, 80, b"hello"))), dmac=OUT_MAC)
    quote = lambda a: P.ipv4(a, cli, P.TCP, P.tcp(a, cli, 80, 4444, 0x10, body=b"a" * 1400))[:28]
    toobig = P.packet("10.0.0.254", VIP, P.ICMP, P.icmp_error(3, 4, quote(VIP), 1280), dmac=IN_MAC)
    want_in = P.eth(":".join("%02x" % x for x in tcp_mac), "02:00:00:00:00:01", P.ETH_IP,
                    P.ipv4("10.0.0.254", tcp_b, P.ICMP, P.icmp_error(3, 4, quote(tcp_b), 1280)))
    # A fresh run: the TCP flow has no affinity entry, Maglev chooses as it did.
    code, out, s, _ = lb_run(3, [(0, 0, req), (1, 1, unreach), (0, 2, toobig)])
    lb = s.get("nf-lb", {})
    ok = code == 0 and len(out) == 3 and out[1][0] == 0 and out[1][2] == want_out and \
        out[2][0] == 1 and out[2][2] == want_in and lb.get("icmp_errors") == 2
    if not ok:
        diag("%s %s" % (json.dumps(lb), [(i, f.hex()) for i, _, f in out]))
    check(ok, "nf-lb: a backend's ICMP error leaves from the VIP, quote translated; fragmentation "
          "needed about a backend's answer reaches that backend, quote naming it (RFC 5508)")
    code, out, s, _ = run("nf-lb", ["--vip", VIP, "--client-if", "in0", "--backend-if", "out0",
                                    "--backend", "10.0.1.50"], flows[:1], cut="auto")
    check(code == 0 and len(out) == 1 and out[0][0] == 1 and out[0][2][12:14] == b"\x08\x06" and
          out[0][2][38:42] == P.ip("10.0.1.50") and s["nf-lb"]["dropped_no_mac"] == 1,
          "nf-lb: a backend with no known MAC is asked by ARP on the backend side")
    bad_config("nf-lb", ["--vip", VIP, "--client-if", "in0", "--backend-if", "out0"], "no backends", "no backends")
    bad_config("nf-lb", ["--vip", "10.0.1.300"], "bad --vip address", "bad VIP")
    bad_config("nf-lb", ["--backend", "10.0.1.1@zz"], "bad --backend", "bad backend MAC")
    bad_config("nf-lb", ["--table-size", "65536"], "not a prime", "table size not a prime")
    lbargs = ["--vip", VIP, "--client-if", "in0", "--backend-if", "out0"]
    bad_config("nf-lb", lbargs + ["--backends", "@TMP/be"],
               "be:2:3: bad backend (ADDR [MAC], or ADDR@MAC)", "bad backend file line, with its column",
               files={"be": "# web\n  10.0.1.1 02:00\n"})
    # Files as users write them: a comment after a backend, a long one, duplicates refused.
    code, _, s, _ = run("nf-lb", lbargs + ["--backends", "@TMP/be"], [],
                        files={"be": "10.0.1.11 02:00:00:00:01:0b   # web1\n# " + "c" * 3000 + "\n10.0.1.12#web2\n"})
    check(code == 0 and [b["addr"] for b in s.get("nf-lb", {}).get("backends", [])] == ["10.0.1.11", "10.0.1.12"],
          "nf-lb: '#' comments anywhere, after a backend and 3,000 bytes long, are comments")
    bad_config("nf-lb", lbargs + ["--backend", "10.0.1.12", "--backends", "@TMP/be"],
               "be:3:1: backend 10.0.1.12 listed twice", "a backend in the file and on the command line is refused",
               files={"be": "10.0.1.11\n\n10.0.1.12 02:00:00:00:01:0c\n"})
    bad_config("nf-lb", lbargs + ["--backend", "10.0.1.12", "--backend", "10.0.1.12@02:00:00:00:01:0c"],
               "--backend '10.0.1.12@02:00:00:00:01:0c' given twice", "a backend given twice is refused")
    bad_config("nf-lb", ["--vip", VIP + ":+80"], "bad --vip", "--vip ADDR:+80 is refused (strict numbers)")


def lb_many_flows(n):
    """n distinct TCP flows to the VIP, one SYN each: two sources, ports patched into a
    template (the checksum adjusted as RFC 1624 says), so 65,536 take a fraction of a second."""
    import struct
    out = []
    for k in range(2):
        src = "10.0.0.%d" % (1 + k)
        tmpl = bytearray(P.packet(src, VIP, P.TCP, P.tcp(src, VIP, 0, 80, 0x02), dmac=IN_MAC))
        c0 = ~struct.unpack("!H", tmpl[50:52])[0] & 0xffff
        for port in range((n + 1 - k) // 2):
            c = c0 + port
            c = (c & 0xffff) + (c >> 16)
            tmpl[34:36] = struct.pack("!H", port)
            tmpl[50:52] = struct.pack("!H", ~c & 0xffff)
            out.append(bytes(tmpl))
    return out


def test_lb_capacity():
    """nf-lb's affinity table holds what --flows says; a flow is new once."""
    for n, want in ((65536, 0.95), (60000, 0.999)):
        flows = lb_many_flows(n)
        code, out, s, _ = lb_run(3, [(0, i, f) for i, f in enumerate(flows)] +
                                 [(0, n + i, f) for i, f in enumerate(flows)])
        lb = s.get("nf-lb", {})
        new, hits = lb.get("new_flows", 0), lb.get("affinity_hits", 0)
        diag("%d flows twice, --flows 65536: %d found on the second pass; %s" % (
             n, hits, {k: v for k, v in lb.items() if k != "backends"}))
        check(code == 0 and len(out) == 2 * n and all(P.Frame(f).checksums_ok() for _, _, f in out[::4099]) and hits >= want * n and
              new == hits and lb.get("affinity_full") == 2 * (n - new) and
              sum(b["flows"] for b in lb.get("backends", [])) == new and
              all(a[2][0:6] == b[2][0:6] for a, b in zip(out[:n], out[n:])),
              "nf-lb: %d flows sent twice: %.1f%%+ found on the second pass; new_flows counts "
              "each flow given an entry once, affinity_full each packet without one" % (n, 100 * want))
    # A ninth flow while eight live ones fill the one bucket of --flows 8: each of its
    # packets finds no room; it is no new flow, however many it sends.
    ten = lb_flows(10)
    code, _, s, _ = lb_run(3, ten[:8] + [(0, 20 + k, ten[9][2]) for k in range(5)], ["--flows", "8"])
    lb = s.get("nf-lb", {})
    if lb.get("new_flows") != 8:
        diag(json.dumps(lb))
    check(code == 0 and lb.get("new_flows") == 8 and lb.get("affinity_full") == 5 and
          lb.get("affinity_hits") == 0,
          "nf-lb --flows 8: a ninth flow's 5 packets with the table full count 5 in affinity_full, "
          "none in new_flows")


def test_lb_unicast():
    """nf-lb refuses a VIP or backend that is no unicast host, or a backend that is the VIP."""
    lbargs = ["--vip", VIP, "--client-if", "in0", "--backend-if", "out0"]
    for a, why in (("255.255.255.255", "broadcast"), ("0.0.0.0", "in 0.0.0.0/8"), ("224.0.0.1", "multicast"),
                   ("127.0.0.1", "loopback"), ("240.0.0.1", "reserved (240.0.0.0/4)")):
        bad_config("nf-lb", ["--vip", a + ":80", "--client-if", "in0", "--backend-if", "out0",
                             "--backend", BACKENDS[0][0]],
                   "bad --vip address '%s': %s, not a unicast address" % (a, why), "--vip %s is refused" % a)
    for a, why in (("0.0.0.0", "in 0.0.0.0/8"), ("255.255.255.255", "broadcast"), ("224.0.0.1", "multicast"),
                   ("127.0.0.1", "loopback")):
        bad_config("nf-lb", lbargs + ["--backend", a + "@02:00:00:00:01:0b"],
                   "bad --backend '%s@02:00:00:00:01:0b': %s, not a unicast address" % (a, why),
                   "--backend %s is refused" % a)
        bad_config("nf-lb", lbargs + ["--backends", "@TMP/be"],
                   "be:2:2: bad backend %s: %s, not a unicast address" % (a, why),
                   "a backend file's %s is refused, with its line and column" % a,
                   files={"be": "10.0.1.11\n %s 02:00:00:00:01:0b\n" % a})
    bad_config("nf-lb", ["--backend", VIP] + lbargs, "bad --backend %s: it is the --vip address" % VIP,
               "--backend VIP is refused (given before --vip too)")
    bad_config("nf-lb", lbargs + ["--backends", "@TMP/be"], "be:1:1: bad backend %s: it is the VIP" % VIP,
               "a backend file's VIP is refused, with its line and column", files={"be": VIP + "\n"})


def test_affinity():
    """nf-lb's flow table evicts only on timeout; neighbour caches hold what they learn."""
    flows = lb_flows(3000)
    code, out, s, _ = lb_run(3, flows + [(0, 5000 + t, f) for _, t, f in flows])
    lb = s.get("nf-lb", {})
    ok = code == 0 and len(out) == 6000 and lb.get("new_flows") == 3000 and \
        lb.get("affinity_hits") == 3000 and lb.get("affinity_full") == 0 and \
        all(a[2][0:6] == b[2][0:6] for a, b in zip(out[:3000], out[3000:]))
    if not ok:
        diag(json.dumps(lb))
    check(ok, "nf-lb: 3,000 flows twice each: 3,000 new flows, 3,000 affinity hits (no flow "
          "evicts another), every second packet to its first's backend")
    # One bucket of 8: the ninth live flow is balanced without an entry, counted; once
    # the first eight idle out (1 s), a new flow gets an entry.
    nine = lb_flows(9)
    later = [(0, 3 * 10 ** 6 + k, f) for k, (_, _, f) in enumerate(lb_flows(10)[9:] * 2)]
    code, out, s, _ = lb_run(3, nine + [(0, 100 + t, f) for _, t, f in nine[:8]] + later,
                             ["--flows", "8", "--affinity-timeout", "1", "-b", "1"])
    lb = s.get("nf-lb", {})
    ok = code == 0 and lb.get("affinity_full") == 1 and lb.get("affinity_hits") == 9 and \
        lb.get("new_flows") == 9
    if not ok:
        diag(json.dumps(lb))
    check(ok, "nf-lb --flows 8: a ninth live flow finds the table full (counted, balanced anyway, "
          "not a new flow: it has no entry); after the timeout a new flow takes an idle entry")
    # 600 inside hosts talk out, then get answers: all their MACs are still known.
    gw = ["--inside", "in0", "--outside", "out0", "--public", PUB, "--gateway", "192.0.2.254@02:00:00:00:00:fe",
          "--ports", "20000-29999"]
    hosts = ["10.0.%d.%d" % (1 + i // 200, 1 + i % 200) for i in range(600)]
    hmac = lambda i: "02:00:00:01:%02x:%02x" % (i >> 8, i & 255)
    outb = [(0, i, P.packet(h, REM, P.UDP, P.udp(h, REM, 5000, 53, b"q"), smac=hmac(i), dmac=IN_MAC))
            for i, h in enumerate(hosts)]
    code, out, _, _ = run("nf-nat", gw, outb)
    ports = [P.Frame(f).sport for _, _, f in out]
    back = [(1, 1000 + i, P.packet(REM, PUB, P.UDP, P.udp(REM, PUB, 53, port, b"a"), smac=REM_MAC, dmac=OUT_MAC))
            for i, port in enumerate(ports)]
    code, out, s, _ = run("nf-nat", gw, outb + back)
    n = s.get("nf-nat", {})
    got = [(f[0:6], P.Frame(f).daddr) for i, _, f in out if i == 0]
    ok = code == 0 and len(ports) == 600 and n.get("arp_probes") == 0 and n.get("neighbours_full") == 0 and \
        got == [(P.mac(hmac(i)), h) for i, h in enumerate(hosts)]
    if not ok:
        diag("%d answers inside; %s" % (len(got), json.dumps(n)))
    check(ok, "nf-nat: answers to 600 inside hosts reach each host's MAC with no ARP asked "
          "(no host's neighbour entry pushed out by another's)")


KEY_AB = "000102030405060708090a0b0c0d0e0f" + "a1a2a3a4"
KEY_BA = "101112131415161718191a1b1c1d1e1f" + "b1b2b3b4"
GW_A = """plain p0
tunnel t0
plain-address 10.1.0.254
local 192.0.2.1
remote 192.0.2.2
remote-mac 02:00:00:00:00:b1
sa-out 0x1001 %s
sa-in 0x2002 %s
replay-window 32
""" % (KEY_AB, KEY_BA)
GW_B = """plain p1
tunnel t1
plain-address 10.2.0.254
local 192.0.2.2
remote 192.0.2.1
remote-mac 02:00:00:00:00:a1
sa-out 0x2002 %s
sa-in 0x1001 %s
replay-window 16
""" % (KEY_BA, KEY_AB)


def esp_decrypt(frame, keyhex):
    """Independent ESP/AES-GCM decryption (python cryptography): the inner packet."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    key = bytes.fromhex(keyhex)
    esp = frame[34:]
    nonce = key[-4:] + esp[8:16]
    pt = AESGCM(key[:-4]).decrypt(nonce, esp[16:], esp[:8])
    assert pt[-1] == 4, "next header IPv4"
    return pt[:len(pt) - 2 - pt[-2]]


def ip_fixed(b, off=0):
    """b (a bytearray) with the IPv4 header checksum at off recomputed, as bytes."""
    b[off + 10:off + 12] = b"\0\0"
    b[off + 10:off + 12] = P.csum(bytes(b[off:off + 20])).to_bytes(2, "big")
    return bytes(b)


def hop(ipbytes, n=1, tos=None):
    """An IPv4 packet n routers later (TTL - n), tos changed if given."""
    b = bytearray(ipbytes)
    b[8] -= n
    if tos is not None:
        b[1] = tos
    return ip_fixed(b)


def outer_ecn(frame, ecn):
    """An ESP frame with its outer ECN field set (the outer header is not authenticated)."""
    b = bytearray(frame)
    b[15] = (b[15] & ~3) | ecn
    return ip_fixed(b, 14)


def test_ipsec():
    with open(os.path.join(TMP, "a.conf"), "w") as f:
        f.write(GW_A)
    os.chmod(os.path.join(TMP, "a.conf"), 0o600)
    plain = []
    for i in range(50):
        body = b"SECRET-%04d" % i + bytes(range(256)) * (i % 6)
        plain.append(P.packet("10.1.0.1", "10.2.0.1", P.UDP, P.udp("10.1.0.1", "10.2.0.1", 4000, 5000 + i, body),
                              smac="02:00:00:00:00:01", dmac="02:00:00:00:00:a0"))
    ifa = [("p0", "02:00:00:00:00:a0"), ("t0", "02:00:00:00:00:a1")]
    code, out, s, _ = run("nf-ipsec", ["--config", "@TMP/a.conf"], [(0, i, f) for i, f in enumerate(plain)], ifaces=ifa)
    esp = [f for _, _, f in out]
    ok = code == 0 and len(out) == 50 and all(i == 1 for i, _, _ in out)
    ok = ok and all(P.Frame(f).proto == P.ESP and P.Frame(f).saddr == "192.0.2.1" and P.Frame(f).daddr == "192.0.2.2"
                    and P.Frame(f).checksums_ok() and b"SECRET" not in f and f[0:6] == P.mac("02:00:00:00:00:b1")
                    for f in esp)
    ok = ok and [f[34:38] for f in esp] == [bytes.fromhex("00001001")] * 50 and \
        [int.from_bytes(f[38:42], "big") for f in esp] == list(range(1, 51))
    check(ok, "nf-ipsec A: 50 plain packets leave the tunnel side as ESP from local to remote, "
          "SPI 0x1001, sequence 1..50, no plaintext visible")
    try:
        inner = [esp_decrypt(f, KEY_AB) for f in esp]
        check(inner == [hop(f[14:]) for f in plain], "ESP decrypted independently (python "
              "cryptography AES-GCM, RFC 4106 nonce and AAD) gives back every inner packet, "
              "one hop later (TTL - 1)")
    except ImportError:
        skip(missing_module("cryptography", "python3-cryptography") or "no AES-GCM in python3-cryptography")

    with open(os.path.join(TMP, "b.conf"), "w") as f:
        f.write(GW_B)
    os.chmod(os.path.join(TMP, "b.conf"), 0o600)
    ifb = [("p1", "02:00:00:00:00:b0"), ("t1", "02:00:00:00:00:b1")]
    sink_arp = P.arp_request("02:00:00:00:00:02", "10.2.0.1", "10.2.0.254")
    tampered = bytearray(esp[45])
    tampered[60] ^= 1
    wrong_spi = bytearray(esp[46])
    wrong_spi[37] ^= 1
    frames = [(0, 0, sink_arp)] + [(1, i + 1, f) for i, f in enumerate(esp[:40])]
    frames += [(1, 50, esp[38]), (1, 51, bytes(tampered)), (1, 52, bytes(wrong_spi))]
    frames += [(1, 60 + i, f) for i, f in enumerate(esp[40:])] + [(1, 70, esp[2])]
    code, out, s, _ = run("nf-ipsec", ["--config", "@TMP/b.conf"], frames, ifaces=ifb)
    b = s.get("nf-ipsec", {})
    inner = [f for i, _, f in out if i == 0 and f[12:14] == b"\x08\x00"]
    ok = code == 0 and [f[14:] for f in inner] == [hop(f[14:], 2) for f in plain] and \
        all(f[0:6] == P.mac("02:00:00:00:00:02") and f[6:12] == P.mac("02:00:00:00:00:b0") for f in inner)
    ok = ok and b.get("decrypted") == 50 and b.get("dropped_replay") == 1 and b.get("dropped_too_old") == 1 and \
        b.get("dropped_auth") == 1 and \
        b.get("dropped_spi") == 1 and b.get("arp_answered") == 1
    if not ok:
        diag(json.dumps(b))
    check(ok, "nf-ipsec B: decrypts all 50 to the plain host's MAC (TTL - 2 after two routers); "
          "a replay, a too-old packet (window 16, counted apart), a flipped bit and a wrong SPI are dropped")
    # A later fragment is cut after its IP header, as the module cuts it
    # (kmod/cut_parser.c); offline mode once handed it over whole.
    later = P.packet("10.1.0.1", "10.2.0.1", P.UDP, bytes(range(200)), frag=0x0010,
                     smac="02:00:00:00:00:01", dmac="02:00:00:00:00:a0")
    code, out, s, _ = run("nf-ipsec", ["--config", "@TMP/a.conf"], [(0, 0, plain[49]), (0, 1, later)],
                          ifaces=ifa, cut="auto")
    check(code == 0 and not out and s["nf-ipsec"]["dropped_not_whole"] == 2,
          "nf-ipsec refuses cut packets (it needs them whole), a later fragment's too")
    # Configuration errors say what is wrong, and never print a key.
    for text, want, what in (
            (GW_A.replace(KEY_AB, KEY_AB[:-2]), "c.conf:7:1: sa-out: the key is not 40 or 72 hex digits", "short key"),
            (GW_A.replace(KEY_AB, KEY_AB[:-2] + "zz"), "c.conf:7:1: sa-out: the key is not hexadecimal", "key not hex"),
            (GW_A.replace("0x2002", "7"), "c.conf:8:1: sa-in: SPIs 0 to 255 are reserved", "reserved SPI"),
            (GW_A.replace("sa-out", "sa-ot"), "c.conf:7:1: sa-ot: unknown setting", "a mistyped SA line"),
            (GW_A.replace("sa-in 0x2002 " + KEY_BA, "sa-in " + KEY_BA), "c.conf:8:1: sa-in: it takes SPI and KEY",
             "an SA without its SPI"),
            # Both directions under one key: AES-GCM nonces reused across them.
            (GW_A.replace("sa-in 0x2002 " + KEY_BA, "sa-in 0x1001 " + KEY_AB),
             "c.conf:7 and 8: sa-out and sa-in have the same key", "one key for both SAs"),
            (GW_A.replace("sa-in 0x2002 " + KEY_BA, "sa-in 0x2002 " + KEY_AB[:-8] + "00000000"),
             "c.conf:7 and 8: sa-out and sa-in have the same key", "one key, another salt"),
            # Files as users write them: strict numbers, no setting twice.
            (GW_A.replace("replay-window 32", "replay-window 32x"), "c.conf:9:1: replay-window: not a number",
             "a window of '32x'"),
            (GW_A.replace("replay-window 32", "replay-window +32"), "c.conf:9:1: replay-window: not a number",
             "a window of '+32'"),
            (GW_A.replace("0x2002", "0x2002z"), "c.conf:8:1: sa-in: the SPI is not a 32-bit number", "an SPI of '0x2002z'"),
            (GW_A + "local 192.0.2.9\n", "c.conf:10:1: local: set twice (line 4)", "a setting given twice")):
        code, _, _, err = run("nf-ipsec", ["--config", "@TMP/c.conf"], [], ifaces=ifa, files={"c.conf": text})
        ok = code == 2 and want in err and KEY_AB[:20] not in err and KEY_BA[:20] not in err
        if not ok:
            diag("exit %d: %s" % (code, err))
        check(ok, "nf-ipsec: %s is refused with file:line and what is wrong, no key printed" % what)
    bad_config("nf-ipsec", ["--config", "@TMP/c.conf"], "are required", "missing SA",
               files={"c.conf": "\n".join(l for l in GW_A.splitlines() if not l.startswith("sa-in"))})
    code, _, _, err = run("nf-ipsec", ["--config", "@TMP/w.conf"], [], ifaces=ifa, files={"w.conf": GW_A})
    check("readable by others" in err, "nf-ipsec warns about a key file others can read")


def test_ipsec_router():
    """nf-ipsec as the router it is: DSCP and ECN to the outer header, ECN back (RFC 6040),
    TTL decremented each way, time exceeded to whoever sent the expiring packet."""
    ifa = [("p0", "02:00:00:00:00:a0"), ("t0", "02:00:00:00:00:a1")]
    ifb = [("p1", "02:00:00:00:00:b0"), ("t1", "02:00:00:00:00:b1")]
    for name, text in (("a.conf", GW_A), ("b.conf", GW_B)):
        with open(os.path.join(TMP, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(TMP, name), 0o600)
    udp = lambda i: P.udp("10.1.0.1", "10.2.0.1", 4000, 5000 + i, b"payload %d" % i)
    pkt = lambda i, tos, ttl: bytes(bytearray(P.eth("02:00:00:00:00:a0", "02:00:00:00:00:01", P.ETH_IP,
                                                    hop(P.ipv4("10.1.0.1", "10.2.0.1", P.UDP, udp(i), ttl=ttl), 0, tos))))
    plain = [pkt(0, 0xba, 64), pkt(1, 0x00, 64), pkt(2, 0x02, 2), pkt(3, 0x00, 1)]
    code, out, s, _ = run("nf-ipsec", ["--config", "@TMP/a.conf"], [(0, i, f) for i, f in enumerate(plain)], ifaces=ifa)
    esp = [f for i, _, f in out if i == 1]
    back = [f for i, _, f in out if i == 0]
    ok = code == 0 and len(esp) == 3 and [f[15] for f in esp] == [0xba, 0x00, 0x02]
    check(ok, "nf-ipsec: the outer header carries the inner DSCP and ECN (RFC 4301 5.1.2.1, RFC 6040)")
    e = P.Frame(back[0]) if len(back) == 1 else None
    ok = e is not None and e.proto == P.ICMP and e.saddr == "10.1.0.254" and e.daddr == "10.1.0.1" and \
        e.l4[0] == 11 and e.l4[1] == 0 and e.checksums_ok() and e.l4[8:] == plain[3][14:] and \
        back[0][0:6] == P.mac("02:00:00:00:00:01") and s["nf-ipsec"]["ttl_expired"] == 1
    if not ok:
        diag("%d frames back: %s" % (len(back), [f.hex() for f in back]))
    check(ok, "nf-ipsec: a plain packet with TTL 1 gets ICMP time exceeded from the gateway, quoting it")
    # Gateway B: CE outside over ECT(0) inside -> CE; over Not-ECT -> dropped; the TTL-2
    # packet arrives with TTL 1 and expires at B: its error goes back through the tunnel.
    sink_arp = P.arp_request("02:00:00:00:00:02", "10.2.0.1", "10.2.0.254")
    frames = [(0, 0, sink_arp), (1, 1, outer_ecn(esp[0], 3)), (1, 2, outer_ecn(esp[1], 3)), (1, 3, esp[2])]
    code, out, s, _ = run("nf-ipsec", ["--config", "@TMP/b.conf"], frames, ifaces=ifb)
    b = s.get("nf-ipsec", {})
    inner = [f for i, _, f in out if i == 0 and f[12:14] == b"\x08\x00"]
    tunnel = [f for i, _, f in out if i == 1]
    ok = code == 0 and len(inner) == 1 and inner[0][14:] == hop(plain[0][14:], 2, 0xbb) and \
        b.get("dropped_ecn") == 1 and b.get("ttl_expired") == 1
    if not ok:
        diag(json.dumps(b))
    check(ok, "nf-ipsec: CE outside marks an ECT packet CE inside and drops a Not-ECT one (RFC 6040 4.2)")
    try:
        err = esp_decrypt(tunnel[0], KEY_BA) if len(tunnel) == 1 else b""
        f = P.Frame(b"\0" * 12 + b"\x08\x00" + err)
        ok = f.proto == P.ICMP and f.saddr == "10.2.0.254" and f.daddr == "10.1.0.1" and f.l4[0] == 11 and \
            f.checksums_ok() and f.l4[8:] == hop(plain[2][14:], 1)
        check(ok, "nf-ipsec: a packet expiring after decapsulation gets time exceeded back through "
              "the tunnel, encrypted")
    except ImportError:
        skip(missing_module("cryptography", "python3-cryptography") or "no AES-GCM in python3-cryptography")


def esp_stream(n):
    """n ESP frames of SPI 0x1001, sequence 1..n, from gateway A offline (A's config)."""
    with open(os.path.join(TMP, "a.conf"), "w") as f:
        f.write(GW_A)
    os.chmod(os.path.join(TMP, "a.conf"), 0o600)
    plain = [(0, i, P.packet("10.1.0.1", "10.2.0.1", P.UDP, P.udp("10.1.0.1", "10.2.0.1", 4000, 5000, b"%06d" % i),
                               smac="02:00:00:00:00:01", dmac="02:00:00:00:00:a0")) for i in range(n)]
    code, out, _, _ = run("nf-ipsec", ["--config", "@TMP/a.conf", "-b", "256"], plain,
                          ifaces=[("p0", "02:00:00:00:00:a0"), ("t0", "02:00:00:00:00:a1")])
    assert code == 0 and len(out) == n
    return [f for _, _, f in out]


def ipsec_b_run(frames, window, args=()):
    """Gateway B offline with replay-window window over tunnel-side frames: its counters
    and the frames it sent."""
    conf = GW_B.replace("replay-window 16", "replay-window %d" % window)
    with open(os.path.join(TMP, "bw.conf"), "w") as f:
        f.write(conf)
    os.chmod(os.path.join(TMP, "bw.conf"), 0o600)
    sink_arp = P.arp_request("02:00:00:00:00:02", "10.2.0.1", "10.2.0.254")
    code, out, s, _ = run("nf-ipsec", ["--config", "@TMP/bw.conf"] + list(args),
                          [(0, 0, sink_arp)] + frames, ifaces=[("p1", "02:00:00:00:00:b0"), ("t1", "02:00:00:00:00:b1")])
    return (s.get("nf-ipsec", {}), out) if code == 0 else ({}, [])


def ipsec_b(frames, window, args=()):
    """Gateway B's counters (ipsec_b_run)."""
    return ipsec_b_run(frames, window, args)[0]


def test_ipsec_window():
    """nf-ipsec's replay window under reordering: exact, at every depth, and across slices."""
    w = 64
    # Depth d: packet b+d arrives before b..b+d-1, so b is d behind the newest.
    blocks, base = [], 0
    for d in range(1, w + 1):
        blocks.append([base + d] + list(range(base, base + d)))
        base += d + 1
    esp = esp_stream(base)
    order = [i for b in blocks for i in b]
    frames = [(1, 1 + k, esp[i]) for k, i in enumerate(order)]
    # Then the last block's delayed packets again: 63 duplicates inside the
    # window, and the one 64 behind, too old again.
    frames += [(1, 10 ** 6 + k, esp[i]) for k, i in enumerate(blocks[-1][1:])]
    b = ipsec_b(frames, w)
    ok = b.get("decrypted") == base - 1 and b.get("dropped_too_old") == 2 and \
        b.get("dropped_replay") == w - 1 and b.get("dropped_auth") == 0
    if not ok:
        diag(json.dumps(b))
    check(ok, "nf-ipsec, replay-window 64: packets reordered 1 to 63 deep are all accepted, the one "
          "64 deep is too old (counted apart); duplicates inside the window are replays")
    # In order on the wire, alternating between two queues: the second slice's batch
    # is processed first, a whole batch ahead of the first slice's older packets, a
    # reordering the window must cover (slices x batch) as it covers the peer's.
    frames = [(1, 1 + k, esp[k], None, k % 2) for k in range(1024)]
    for slices, window, name in (("0", w, "one slice"), ("0,1", 2 * w, "two slices")):
        b = ipsec_b(frames, window, ["-s", slices, "-b", "64"])
        ok = b.get("decrypted") == 1024 and b.get("dropped_too_old") == 0 and b.get("dropped_replay") == 0
        if not ok:
            diag(json.dumps(b))
        check(ok, "nf-ipsec, replay-window %d, on %s: 1,024 packets in order on the wire over two "
              "queues, each slice's batch of 64 processed after the other's, all accepted" % (window, name))
    b = ipsec_b(frames, w, ["-s", "0,1", "-b", "64"])
    ok = b.get("dropped_too_old", 0) > 0 and b.get("decrypted", 0) + b.get("dropped_too_old", 0) == 1024
    if not ok:
        diag(json.dumps(b))
    check(ok, "nf-ipsec, replay-window 64, on two slices with batches of 64: the packets a whole "
          "batch behind the other slice's are too old")
    # The same packets twice across the two slices: every copy is a replay, whichever slice has it.
    frames = [(1, 1 + k, esp[k], None, 0) for k in range(64)] + \
        [(1, 100 + k, esp[k], None, 1) for k in range(64)]
    b = ipsec_b(frames, w, ["-s", "0,1", "-b", "64"])
    ok = b.get("decrypted") == 64 and b.get("dropped_replay") == 64
    if not ok:
        diag(json.dumps(b))
    check(ok, "nf-ipsec on two slices: 64 packets on one queue and their copies on the other, "
          "the copies processed first: 64 accepted once, 64 replays")


def test_ipsec_window_slices():
    """replay-window is the SA's window, whichever slice decrypts: a packet as far behind the
    newest any slice accepted as the window is too old; inside it, accepted once."""
    esp = esp_stream(5000)  # sequence numbers 1..5000, esp_stream's packet n - 1 inside
    for window, steps in (
            # (sequence number, queue, verdict), one at a time (-b 1), in file order
            (64, [(5000, 1, "ok"), (100, 0, "too_old"), (4937, 0, "ok"), (4936, 0, "too_old"),
                  (4937, 1, "replay"), (5000, 0, "replay"), (100, 1, "too_old"), (4999, 1, "ok")]),
            (1, [(10, 1, "ok"), (9, 0, "too_old"), (10, 0, "replay"), (11, 0, "ok"), (11, 1, "replay"),
                 (10, 1, "too_old")]),
            (4096, [(5000, 1, "ok"), (904, 0, "too_old"), (905, 0, "ok"), (905, 1, "replay"),
                    (4999, 0, "ok"), (904, 1, "too_old")])):
        frames = [(1, 1 + k, esp[n - 1], None, q) for k, (n, q, _) in enumerate(steps)]
        b, out = ipsec_b_run(frames, window, ["-s", "0,1", "-b", "1"])
        # Each accepted packet leaves to the plain host, in turn: its UDP body names it.
        passed = [int(f[-6:]) + 1 for i, _, f in out if i == 0 and f[12:14] == b"\x08\x00"]
        got = (passed, b.get("dropped_too_old"), b.get("dropped_replay"))
        want = ([n for n, _, v in steps if v == "ok"], sum(v == "too_old" for _, _, v in steps),
                sum(v == "replay" for _, _, v in steps))
        if got != want:
            diag("replay-window %d: (accepted, too old, replays) %s, want %s" % (window, got, want))
        check(got == want, "nf-ipsec, replay-window %d, one SA over two slices: %s" % (
            window, ", ".join("%d on %d %s" % step for step in steps)))


def test_stream():
    """Offline mode streams: constant memory, output as input arrives, Linux cooked
    captures (tcpdump -i any), several pcapng sections."""
    import resource
    import select
    import struct
    frame = P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000, 53, b"s" * 1400))
    n = 70000
    cmd = [os.path.join(BIN, "nf-fwd"), "--pcap-in", "-", "--pcap-out", "/dev/null", "--json", "-m", "off"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    rec = struct.pack("<IIII", 1, 0, len(frame), len(frame)) + frame
    p.stdin.write(P.pcap_bytes([]))
    chunk = rec * 1000
    for _ in range(n // 1000):
        p.stdin.write(chunk)
    p.stdin.close()
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    try:
        sent = json.loads(out.decode().strip().splitlines()[-1])["total"]["tx_packets"]
    except (ValueError, KeyError, IndexError):
        sent = None
    mb = n * len(rec) / 2 ** 20
    diag("%.0f MiB of pcap through nf-fwd: peak RSS %.1f MiB" % (mb, ru.ru_maxrss / 1024))
    check(p.returncode == 0 and sent == n and ru.ru_maxrss < 32 * 1024,
          "offline mode streams: %.0f MiB of pcap on stdin, all %d frames sent, peak RSS under 32 MiB" % (mb, n))
    # A pipe that stays open: the first frame comes out before the input ends.
    cmd = [os.path.join(BIN, "nf-fwd"), "--pcap-in", "-", "--pcap-out", "-", "-m", "off"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write(P.pcapng_bytes(IFACES, [(0, 7, frame)]))
    p.stdin.flush()
    got = b""
    while len(got) < 400 and select.select([p.stdout], [], [], 10)[0]:
        data = os.read(p.stdout.fileno(), 65536)
        if not data:
            break
        got += data
    early = P.read_pcapng_ext(got)[1]
    p.stdin.close()
    got += p.stdout.read()
    p.wait(timeout=30)
    check(early == [(1, 7, frame, len(frame))] and P.read_pcapng_ext(got)[1] == early,
          "tcpdump -w - | nf-fwd --pcap-in - --pcap-out -: the frame is written while the input is still open")
    # Linux cooked captures: SLL (16-byte header) and SLL2 (20), as Ethernet.
    ip = frame[14:]
    src = P.mac("02:00:00:00:00:77")
    sll = struct.pack(">HHH", 0, 1, 6) + src + b"\0\0" + b"\x08\x00" + ip
    sll2 = b"\x08\x00" + b"\0\0" + struct.pack(">IHBB", 3, 1, 0, 6) + src + b"\0\0" + ip
    want = b"\0" * 6 + src + b"\x08\x00" + ip
    for name, link, body in (("SLL", 113, sll), ("SLL2", 276, sll2)):
        code, stdout, _ = offline_raw("nf-fwd", ["-m", "auto"], P.pcap_bytes([(5, 1, body), (5, 2, body[:10])], linktype=link))
        _, got = P.read_pcapng_ext(stdout)
        check(code == 2 and got == [(0, 5000001, want, len(want))],
              "a Linux cooked capture (%s, tcpdump -i any) is read as Ethernet: protocol and source "
              "address kept; a record shorter than its header is an error (exit 2)" % name)
    # Two pcapng sections (two captures concatenated): interfaces by name, times
    # in each section's own resolution; the second section's new interface is declared.
    first = P.pcapng_bytes(IFACES, [(0, 5, frame)])
    second = P.pcapng_bytes([IFACES[1], IFACES[0], ("new0", None)], [(1, 6000, frame), (2, 7000, frame)], tsresol=9)
    code, stdout, _ = offline_raw("nf-fwd", [], first + second)
    resol, got = P.read_pcapng_ext(stdout)
    ok = code == 0 and resol == [6, 6, 9] and [(i, t) for i, t, _, _ in got] == [(1, 5), (1, 6), (2, 7000)]
    if not ok:
        diag("%s %s" % (resol, [(i, t) for i, t, _, _ in got]))
    check(ok, "two pcapng sections: the second's in0 (its interface 1) is in0, leaves on out0; its "
          "new interface is added to the output")


class Streaming:
    """An NF offline on a pipe (--pcap-in -), its output to files under TMP."""

    def __init__(self, nf, args, tag):
        self.out, self.log, self.err = (os.path.join(TMP, "%s.%s" % (tag, x)) for x in ("pcapng", "json", "err"))
        if os.path.exists(self.out):
            os.unlink(self.out)
        cmd = [os.path.join(BIN, nf), "--pcap-in", "-", "--pcap-out", self.out, "--json"] + \
            [a.replace("@TMP", TMP) for a in args]
        with open(self.log, "wb") as o, open(self.err, "wb") as e:
            self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=o, stderr=e)

    def send(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def sent(self):
        """The frames written to the output so far (it is flushed as the input pauses)."""
        import struct
        try:
            return [f for _, _, f, _ in P.read_pcapng_ext(self.out)[1]]
        except (OSError, struct.error):
            return []

    def summaries(self):
        """The JSON lines printed so far."""
        try:
            return [json.loads(ln) for ln in read_file(self.log).splitlines()]
        except ValueError:
            return []

    def stderr(self):
        return read_file(self.err).decode(errors="replace")

    def finish(self, close=True):
        """Exit status (None: still running after 10 s, then killed) and the JSON summary."""
        if close:
            self.p.stdin.close()
        try:
            code = self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            code = None
        try:
            summary = json.loads(read_file(self.log).decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            summary = {}
        if code:
            diag(self.stderr())
        return code, summary


class MetricsStream(Streaming):
    """Streaming, with --metrics on a Unix socket, and its first frames sent."""

    def __init__(self, nf, args, ifaces=IFACES, frames=()):
        self.sock = os.path.join(TMP, "metrics-%s.sock" % nf)
        super().__init__(nf, args + ["--metrics", self.sock], "metrics-" + nf)
        self.send(P.pcapng_bytes(ifaces, list(frames)))

    def connect(self):
        import socket
        import time
        deadline = time.monotonic() + 20
        while True:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                c.connect(self.sock)
                return c
            except OSError:
                c.close()
                if time.monotonic() > deadline or self.p.poll() is not None:
                    raise
                time.sleep(0.05)

    def scrape(self, timeout=10):
        """The body of one GET /metrics."""
        c = self.connect()
        c.settimeout(timeout)
        c.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            d = c.recv(65536)
            if not d:
                break
            data += d
        c.close()
        return data.partition(b"\r\n\r\n")[2].decode()

    def scrape_when(self, pred, timeout=20):
        """Scrape until pred(body) holds (the NF has caught up with the stream), or the last body."""
        import time
        deadline = time.monotonic() + timeout
        while True:
            body = self.scrape()
            if pred(body) or time.monotonic() > deadline:
                return body
            time.sleep(0.05)


def test_metrics():
    """--metrics, offline on a stream as online: valid Prometheus text for every NF (real parser),
    labels escaped, typed, with HELP; a slow client holds the watcher a second at most."""
    import socket
    import struct
    import time
    flows = [(0, i, P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000 + i % 3, 53, b"m" * 40))) for i in range(6)]
    # A rules file whose path needs every escape: quote, backslash, newline, a stray byte.
    odd = os.path.join(TMP, 'we"ird\\dir\nx\udcff')
    os.makedirs(odd, exist_ok=True)
    with open(os.path.join(odd, "fw.rules"), "w") as f:
        f.write("default drop\naccept udp dport 53\n\ndrop tcp dport 22\n")
    cases = [
        ("nf-fwd", ["-m", "off"], IFACES, flows),
        ("nf-firewall", ["--rules", os.path.join(odd, "fw.rules")], IFACES, flows),
        ("nf-monitor", ["--top", "3"], IFACES, flows),
        ("nf-lb", ["--vip", VIP + ":80", "--client-if", "in0", "--backend-if", "out0"] +
         sum((["--backend", "%s@%s" % b] for b in BACKENDS[:3]), []), IFACES, flows[:1]),
        ("nf-nat", ["--inside", "in0", "--outside", "out0", "--public", PUB], [("in0", IN_MAC), ("out0", OUT_MAC)],
         flows[:1]),
        ("nf-ipsec", ["--config", "@TMP/a.conf"], [("p0", "02:00:00:00:00:a0"), ("t0", "02:00:00:00:00:a1")],
         flows[:1]),
    ]
    with open(os.path.join(TMP, "a.conf"), "w") as f:
        f.write(GW_A)
    os.chmod(os.path.join(TMP, "a.conf"), 0o600)
    # Without the parser the expositions go unjudged (no case), the watcher still is.
    why = missing_module("prometheus_client", "python3-prometheus-client")
    if why:
        skip(why)
    for nf, args, ifaces, frames in [] if why else cases:
        s = MetricsStream(nf, args, ifaces, frames)
        want = 'netslice_nf_rx_packets_total{nf="%s",slice="0"} %d' % (nf, len(frames))
        body = s.scrape_when(lambda b: want in b)
        fams, why = prom_parse(body)
        code, _ = s.finish()
        err = s.stderr()
        own = [f for f in fams if f.name.startswith("netslice_" + nf.replace("-", "_") + "_")]
        if why or code or want not in body or (not own and nf != "nf-fwd"):
            diag("%s: %s; exit %d; %s\n%s" % (nf, why, code, err.strip(), body))
        check(not why and code == 0 and want in body and (own or nf == "nf-fwd"),
              "%s --metrics: Prometheus' parser takes it; typed, with HELP, no series twice, counters "
              "end in _total; the NF's own families are there" % nf)
        got = prom_samples(fams)
        if nf == "nf-firewall":
            rf = ("rule_file", os.path.join(odd, "fw.rules").encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
            rules = {dict(k[1]).get("rule"): (dict(k[1]), v) for k, v in got.items()
                     if k[0] == "netslice_nf_firewall_rules_hits_total"}
            ok = set(rules) == {"accept udp dport 53", "drop tcp dport 22"} and \
                rules["accept udp dport 53"][1] == 6 and rules["drop tcp dport 22"][1] == 0 and \
                [(r["index"], r["line"], r["nf"], r["rule_file"]) for r, _ in
                 (rules["accept udp dport 53"], rules["drop tcp dport 22"])] == \
                [("0", "2", "nf-firewall", rf[1]), ("1", "4", "nf-firewall", rf[1])] and \
                not any(k[0].endswith("_line") for k in got)
            if not ok:
                diag(rules)
            check(ok, "nf-firewall: each rule's hits carry index, line, rule and the rules file (quote, "
                  "backslash, newline, a stray byte escaped) as labels; no line number as a value")
        if nf == "nf-monitor":
            top = [dict(k[1]) for k in got if k[0] == "netslice_nf_monitor_top_packets_total"]
            ok = sorted((t["sport"], t["dport"], t["proto"], t["src"], t["dst"], "index" in t) for t in top) == \
                [(str(1000 + p), "53", "17", HOST, REM, False) for p in range(3)]
            if not ok:
                diag(top)
            check(ok, "nf-monitor: the top flows are one series each, named by addresses, ports and "
                  "protocol (no rank, which would make a new series as ranks change)")
        if nf == "nf-lb":
            shares = sorted((dict(k[1])["index"], dict(k[1])["addr"]) for k in got
                            if k[0] == "netslice_nf_lb_backends_table_share")
            check(shares == [(str(i), b[0]) for i, b in enumerate(BACKENDS[:3])],
                  "nf-lb: each backend's series labelled with its index and address")
    # The watcher's second is the request's: a client that trickles a byte at a time is cut off.
    s = MetricsStream("nf-fwd", ["-m", "off"], IFACES, flows)
    s.scrape()
    slow = s.connect()
    t0 = time.monotonic()
    cut = None
    for ch in b"GET /metrics HTTP/1.0\r\nX-Slow: " + b"a" * 40:
        try:
            slow.send(bytes([ch]))
        except OSError:
            cut = time.monotonic() - t0
            break
        if select_readable(slow, 0.25):
            cut = time.monotonic() - t0
            break
    t1 = time.monotonic()
    body = s.scrape()
    took = time.monotonic() - t1
    slow.close()
    # A client gone before it reads its answer: no SIGPIPE for the NF.
    for _ in range(3):
        c = s.connect()
        c.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()
    alive = "netslice_nf_rx_packets_total" in s.scrape()
    code, _ = s.finish()
    err = s.stderr()
    diag("a client sending a byte every 0.25 s: answered or cut off after %s s; the next scrape took %.2f s"
         % ("%.2f" % cut if cut is not None else "never", took))
    check(cut is not None and "netslice_nf_rx_packets_total" in body,
          "a client that trickles its request in is answered or cut off within its second, "
          "not after every byte it sends")
    check(alive and code == 0, "clients that reset before reading their answer leave the NF running (exit %d)" % code)


def select_readable(sock, timeout):
    import select
    return bool(select.select([sock], [], [], timeout)[0])


def adds_up(c):
    """rx_packets + injected == tx_packets + nf_drops + tx_errors + held, for one counter set."""
    return c["rx_packets"] + c["injected"] == c["tx_packets"] + c["nf_drops"] + c["tx_errors"] + c["held"]


def test_counters():
    """Every NF's counters add up, per slice and in total, on two slices, frames of
    65,549 bytes and 256 KiB among the others."""
    with open(os.path.join(TMP, "a.conf"), "w") as f:
        f.write(GW_A)
    os.chmod(os.path.join(TMP, "a.conf"), 0o600)
    # Packets for a next hop not yet known wait for ARP: one is answered, one never (the
    # mixed frames are to no MAC of nf-nat's: it refuses them).
    nat_extra = [(0, 10 ** 6, P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000, 53, b"held"), smac=HOST_MAC, dmac=IN_MAC)),
                 (1, 10 ** 6 + 1, P.arp_reply(REM_MAC, REM, OUT_MAC, PUB)),
                 (0, 10 ** 6 + 2, P.packet(HOST, "192.0.2.77", P.UDP, P.udp(HOST, "192.0.2.77", 1000, 53, b"x"),
                                            smac=HOST_MAC, dmac=IN_MAC))]
    nfs = [("nf-fwd", [], []),
           ("nf-firewall", ["--rules", "@TMP/c.rules"], []),
           ("nf-nat", ["--inside", "in0", "--outside", "out0", "--public", PUB], nat_extra),
           ("nf-lb", ["--vip", VIP + ":80", "--client-if", "in0", "--backend-if", "out0",
                      "--backend", BACKENDS[0][0]], lb_flows(20)),
           ("nf-ipsec", ["--config", "@TMP/a.conf"], []),
           ("nf-monitor", [], [])]
    for nf, args, extra in nfs:
        # Mixed frames over both queues; the NF's own exchange on one, in order.
        frames = [(i if nf != "nf-ipsec" else 0, t, f, None, k % 2) for k, (i, t, f) in enumerate(mixed_frames(200))]
        frames += [(i, t, f, None, 0) for i, t, f in extra]
        # Loopback's largest frame and a BIG TCP one: each NF takes or refuses them, and counts.
        frames += [(0, 2 * 10 ** 6 + k, big_frame(n), None, k) for k, n in enumerate((65549, 256 * 1024))]
        ifaces = [("p0", IN_MAC), ("t0", OUT_MAC)] if nf == "nf-ipsec" else IFACES
        code, out, s, _ = run(nf, args + ["-s", "0,1"], frames, ifaces=ifaces,
                              files={"c.rules": "default accept\ndrop udp\n"})
        try:
            ok = code == 0 and all(adds_up(c) for c in s["slices"] + [s["total"]]) and \
                s["total"]["rx_packets"] == len(frames) and len(s["slices"]) == 2
            ok = ok and s["total"]["tx_packets"] == len(out)
            if nf == "nf-nat":
                n = s["nf-nat"]
                ok = ok and s["total"]["held"] >= 1 and s["total"]["injected"] >= 2 and n["held_sent"] == 1 and \
                    any(f[6:12] == P.mac(OUT_MAC) and f[0:6] == P.mac(REM_MAC) and b"held" in f for _, _, f in out)
        except KeyError as e:
            diag("no %s in %s" % (e, s.get("total")))
            ok = False
        if not ok:
            diag(json.dumps([s.get("slices"), s.get("total")]))
        check(ok, "%s on two slices: rx_packets + injected = tx_packets + nf_drops + tx_errors + held, "
              "per slice and in total%s" % (nf, "; a packet held for ARP and sent is sent, not dropped, "
                                           "one never answered is still held" if nf == "nf-nat" else ""))


def test_mutated_input():
    """The streaming reader on damaged input: 200 mutations (bit flips, cuts, garbage,
    lengths changed) of a pcapng with two sections, a cooked pcap and a classic pcap;
    each run ends with exit 0 or 2, never a crash (the san build aborts on any report)."""
    import random
    import struct
    rnd = random.Random(38)
    frame = P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000, 53, b"m" * 200))
    seeds = [P.pcapng_bytes(IFACES, [(0, 5, frame, None, 1), (1, 6, frame[:60], len(frame))]) +
             P.pcapng_bytes([IFACES[1], ("x0", None)], [(1, 7, frame)], tsresol=9),
             P.pcap_bytes([(1, 2, b"\0\0\0\1\0\6" + b"\2" * 8 + b"\x08\x00" + frame[14:])], linktype=113),
             P.pcap_bytes([(1, 2, frame), (3, 4, frame[:20])], nanosecond=True)]
    bad, codes = [], []
    for k in range(200):
        data = bytearray(rnd.choice(seeds))
        op = k % 4
        if op == 0:
            for _ in range(rnd.randint(1, 8)):
                data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
        elif op == 1:
            data = data[:rnd.randrange(len(data))]
        elif op == 2:
            at = rnd.randrange(len(data))
            data[at:at] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 64)))
        else:
            at = rnd.randrange(0, max(1, len(data) - 4), 4)
            data[at:at + 4] = struct.pack("<I", rnd.choice([0, 12, 0xffffffff, 0x7fffffff, 1 << 24, len(data)]))
        p = subprocess.run([os.path.join(BIN, "nf-fwd"), "--pcap-in", "-", "--pcap-out", "-", "-s", "0,1"],
                           input=bytes(data), capture_output=True, timeout=60)
        codes.append(p.returncode)
        if p.returncode not in (0, 2):
            bad.append((k, p.returncode, p.stderr[-300:]))
    for k, rc, err in bad[:3]:
        diag("mutation %d: exit %d: %s" % (k, rc, err.decode(errors="replace")))
    diag("exit 0: %d, exit 2: %d" % (codes.count(0), codes.count(2)))
    check(not bad and codes.count(0) and codes.count(2),
          "200 damaged captures through the streaming reader: each exits 0 or 2, none crashes")


def offline_raw(nf, args, data, out="-"):
    """Run nf offline on input bytes from stdin; returns (exit code, stdout, stderr bytes)."""
    cmd = [os.path.join(BIN, nf), "--pcap-in", "-", "--pcap-out", out, "--json"] + args
    p = subprocess.run(cmd, input=data, capture_output=True, timeout=60)
    if p.returncode:
        diag(p.stderr.decode(errors="replace"))
    return p.returncode, p.stdout, p.stderr


def test_time_jumps():
    """A trace whose time jumps (1970 to 2023, then to 2^53 us) runs at once."""
    src, dst = HOST, REM
    f = P.packet(src, dst, P.UDP, P.udp(src, dst, 1000, 53), dmac=IN_MAC, smac=HOST_MAC)
    frames = [(0, 0, f), (0, 1_700_000_000 * 10**6, f), (0, 2**53, f)]
    args = ["-b", "1", "--inside", "in0", "--outside", "out0", "--public", PUB]
    try:
        code, _, s, _ = run("nf-nat", args, frames, timeout=20)
        ok = code == 0 and "nf-nat" in s
    except subprocess.TimeoutExpired:
        diag("nf-nat still running after 20 s")
        ok = False
    check(ok, "nf-nat offline: a trace whose time jumps by decades ends at once")


def test_offline():
    """Offline mode reads what capture tools write: pcapng at any if_tsresol,
    snaplen-cut frames, jumbo frames, classic pcap, standard input and output."""
    ifaces = [("in0", IN_MAC), ("out0", OUT_MAC)]
    v4 = lambda s, d, l4b, proto, sm, dm: P.packet(s, d, proto, l4b, smac=sm, dmac=dm)
    # Nanosecond times: the UDP timeout (10 s) runs on the trace's seconds.
    out_udp = v4(HOST, REM, P.udp(HOST, REM, 5000, 53, b"q"), P.UDP, HOST_MAC, IN_MAC)
    answer = v4(REM, PUB, P.udp(REM, PUB, 53, 30000, b"a"), P.UDP, REM_MAC, OUT_MAC)
    # Through the NAT: one hop later, from its inside MAC.
    back = P.packet(REM, HOST, P.UDP, P.udp(REM, HOST, 53, 5000, b"a"), smac=IN_MAC, dmac=HOST_MAC, ttl=63)
    sec = 10 ** 9
    frames = [(1, 0, P.arp_request(REM_MAC, REM, PUB)), (0, 1 * sec, out_udp),
              (1, 6 * sec + 1, answer), (1, 20 * sec, answer)]
    path = os.path.join(TMP, "ns.pcapng")
    P.write_pcapng(path, ifaces, frames, tsresol=9)
    nat = ["-b", "1", "--inside", "in0", "--outside", "out0", "--public", PUB,
           "--ports", "30000-30000", "--timeout-udp", "10"]
    pout = os.path.join(TMP, "ns-out.pcapng")
    p = subprocess.run([os.path.join(BIN, "nf-nat"), "--pcap-in", path, "--pcap-out", pout] + nat,
                       capture_output=True, text=True, timeout=60)
    resol, got = P.read_pcapng_ext(pout) if os.path.exists(pout) else ([], [])
    ok = p.returncode == 0 and resol == [9, 9] and [(i, t, f) for i, t, f, _ in got] == \
        [(1, 0, P.arp_reply(OUT_MAC, PUB, REM_MAC, REM)),
         (1, 1 * sec, P.packet(PUB, REM, P.UDP, P.udp(PUB, REM, 30000, 53, b"q"), smac=OUT_MAC, dmac=REM_MAC, ttl=63)),
         (0, 6 * sec + 1, back)]
    if not ok:
        diag("%s %s %s" % (p.stderr, resol, [(i, t) for i, t, _, _ in got]))
    check(ok, "nanosecond pcapng (if_tsresol 9): an answer 5 s later passes, 19 s later has "
          "timed out (10 s); times written back to the nanosecond")
    # A frame the capture cut at 80 bytes: truncated, not malformed; its length kept.
    big = P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 5000, 53, bytes(range(256)) * 4))
    for mode in ("off", "auto"):
        code, out, s, _ = run("nf-firewall", ["--rules", "@TMP/t.rules"],
                              [(0, 0, big[:80], len(big))],
                              files={"t.rules": "default drop\naccept udp dport 53\n"}, cut=mode)
        _, ext = P.read_pcapng_ext(os.path.join(TMP, "out.pcapng"))
        fw = s.get("nf-firewall", {})
        ok = code == 0 and [(i, f, w) for i, _, f, w in ext] == [(1, big[:80], len(big))] and \
            fw.get("malformed") == 0 and s["total"]["rx_bytes"] == len(big)
        if not ok:
            diag(json.dumps(fw))
        check(ok, "nf-firewall -m %s: a frame cut by the capture's snaplen passes its rule as "
              "truncated, not malformed, and leaves with its original length" % mode)
    # Frames beyond the module's 2,048-byte buffers come through whole.
    jumbo = [(0, 0, P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 7, 9, bytes(k & 255 for k in range(n)))))
             for n in (3000, 8900, 1000)]
    for mode in ("off", "auto"):
        code, out, _, _ = run("nf-fwd", [], jumbo, cut=mode)
        check(code == 0 and [f for _, _, f in out] == [f for _, _, f in jumbo],
              "nf-fwd -m %s: frames of 3,000 and 8,900 bytes leave whole" % mode)
    # Classic pcap, little-endian microseconds and big-endian nanoseconds, from stdin to stdout.
    pkts = [P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000 + k, 53, b"x" * k)) for k in range(5)]
    for ns, be in ((False, False), (True, True)):
        data = P.pcap_bytes([(100 + k, 7 * k, f) for k, f in enumerate(pkts)], ns, be)
        code, stdout, stderr = offline_raw("nf-fwd", ["-m", "auto"], data)
        resol, got = P.read_pcapng_ext(stdout)
        scale = 10 ** 9 if ns else 10 ** 6
        ok = code == 0 and resol == [9 if ns else 6] and \
            [(i, t, f) for i, t, f, _ in got] == [(0, (100 + k) * scale + 7 * k, f) for k, f in enumerate(pkts)]
        try:
            ok = ok and json.loads(stderr.decode().strip().splitlines()[-1])["total"]["tx_packets"] == 5
        except (ValueError, KeyError, IndexError):
            ok = False
        if not ok:
            diag("exit %d, %d frames, resol %s; stderr %s" % (code, len(got), resol, stderr[-200:]))
        check(ok, "classic pcap (%s-endian, %s) on stdin: pcapng on stdout, times kept, the JSON "
              "summary on stderr" % ("big" if be else "little", "ns" if ns else "us"))
    why = missing_command("tcpdump", "tcpdump")
    if why:
        skip(why)
    else:
        tcpdump_round_trip(pkts, big, sec)
    # pcapng on stdin too; a file that is neither is refused.
    code, stdout, _ = offline_raw("nf-fwd", [], P.pcapng_bytes(IFACES, [(0, 5, pkts[1])]))
    check(code == 0 and P.read_pcapng_ext(stdout)[1] == [(1, 5, pkts[1], len(pkts[1]))],
          "pcapng on stdin, to the paired interface on stdout")
    code, _, stderr = offline_raw("nf-fwd", [], b"GIF89a" + b"\0" * 40, out=os.path.join(TMP, "x"))
    check(code == 2 and b"-: not a pcapng or pcap file" in stderr, "a file that is neither is refused (exit 2)")


def tcpdump_round_trip(pkts, big, sec):
    """libpcap (tcpdump) as the independent reader and writer: it writes classic
    pcap of a nanosecond pcapng (the last frame cut at 100 bytes), the NF reads it,
    tcpdump reads the result."""
    src = os.path.join(TMP, "tcpdump-in.pcapng")
    P.write_pcapng(src, IFACES, [(0, 3 * sec + k, f) for k, f in enumerate(pkts)] +
                   [(0, 3 * sec + 5, big[:100], len(big))], tsresol=9)
    classic = os.path.join(TMP, "tcpdump.pcap")
    p = subprocess.run(["tcpdump", "-r", src, "-w", classic, "--time-stamp-precision=nano"],
                       capture_output=True, timeout=60)
    with open(classic, "rb") as f:
        data = f.read()
    code, stdout, _ = offline_raw("nf-fwd", ["-m", "off"], data)
    dump = os.path.join(TMP, "tcpdump-out.pcapng")
    with open(dump, "wb") as f:
        f.write(stdout)
    r = subprocess.run(["tcpdump", "-r", dump, "-n", "-q", "-tt", "--time-stamp-precision=nano"],
                       capture_output=True, text=True, timeout=60)
    lines = r.stdout.splitlines()
    _, got = P.read_pcapng_ext(stdout)
    ok = p.returncode == 0 and code == 0 and r.returncode == 0 and len(lines) == 6 and \
        lines[5].startswith("3.000000005 IP 10.0.0.1.5000 > 192.0.2.1.53: UDP, length 1024") and \
        got[5][2] == big[:100] and got[5][3] == len(big)
    if not ok:
        diag("%s %s %s %s" % (p.stderr, r.stderr, lines[-2:], [(g[1], len(g[2]), g[3]) for g in got[-2:]]))
    check(ok, "tcpdump's classic pcap (ns, snaplen 100) through nf-fwd; tcpdump reads the "
          "pcapng out with the same times and lengths")


def big_frame(n, sport=40000):
    """An IPv4 TCP frame of n bytes (tcpdump -i lo's 65,549 at most with a true IP length;
    beyond, the IP length is 0, as a BIG TCP super-packet's)."""
    body = bytes(k * 7 & 255 for k in range(n - 54))
    if n <= 65549:
        return P.packet(HOST, REM, P.TCP, P.tcp(HOST, REM, sport, 80, 0x18, body=body))
    f = bytearray(P.packet(HOST, REM, P.TCP, P.tcp(HOST, REM, sport, 80, 0x18)))
    f[16:18] = b"\0\0"  # the IP length
    f[24:26] = b"\0\0"
    f[24:26] = P.csum(bytes(f[14:34])).to_bytes(2, "big")
    return bytes(f) + body


def test_big_frames():
    """Frames of 65,549 bytes (tcpdump -i lo) and 256 KiB are read and forwarded whole;
    a longer one is skipped and counted, and the frames after it still processed; a
    record length no frame can have is a damaged file (exit 2)."""
    import struct
    small = [P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000 + k, 53, b"s")) for k in range(4)]
    lo, big, over = big_frame(65549), big_frame(256 * 1024), big_frame(256 * 1024 + 1)
    frames = [(0, 1, small[0]), (0, 2, lo), (0, 3, small[1]), (0, 4, big), (0, 5, small[2]),
              (0, 6, over), (0, 7, small[3])]
    want = [f for _, _, f in frames if f is not over]
    said = b"a frame of 262145 bytes, over 262144: skipped"
    for mode in ("off", "auto"):
        code, out, s, err = run("nf-fwd", [], frames, cut=mode)
        ok = code == 0 and [f for _, _, f in out] == want and \
            s.get("input", {}).get("oversize_skipped") == 1 and s["total"]["rx_packets"] == 6 and \
            said.decode() in err
        if not ok:
            diag("exit %d, %d frames out %s, %s" % (code, len(out), [len(f) for _, _, f in out], err))
        check(ok, "nf-fwd -m %s, pcapng: frames of 65,549 bytes and 256 KiB leave whole; one of "
              "256 KiB + 1 is skipped, said and counted; every frame after them is processed" % mode)
    # libpcap reads them back whole (the interfaces' snaplen says no limit).
    why = missing_command("tcpdump", "tcpdump")
    if why:
        skip(why)
    else:
        r = subprocess.run(["tcpdump", "-r", os.path.join(TMP, "out.pcapng"), "-n", "-e"],
                           capture_output=True, text=True, timeout=60)
        lens = [ln.split(", length ")[1].split(":")[0] for ln in r.stdout.splitlines() if ", length " in ln]
        check(r.returncode == 0 and lens == ["43", "65549", "43", "262144", "43", "43"],
              "tcpdump reads the frames of 65,549 bytes and 256 KiB from the output whole")
    # Classic pcap on a pipe; then a record whose length no frame has.
    data = P.pcap_bytes([(1, k, f) for k, (_, _, f) in enumerate(frames)])
    code, stdout, stderr = offline_raw("nf-fwd", ["-m", "auto"], data)
    try:
        summary = json.loads(stderr.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        summary = {}
    got = [f for _, _, f, _ in P.read_pcapng_ext(stdout)[1]]
    ok = code == 0 and got == want and said in stderr and \
        summary.get("input", {}).get("oversize_skipped") == 1
    if not ok:
        diag("exit %d, %s" % (code, [len(f) for f in got]))
    check(ok, "nf-fwd, classic pcap on stdin: the 65,549-byte and 256 KiB frames leave whole, the "
          "longer one is skipped and counted, the frames after it processed")
    broken = data[:24 + 16 + len(small[0])] + struct.pack("<IIII", 1, 1, 0x7fffffff, 0x7fffffff) + small[1]
    code, stdout, stderr = offline_raw("nf-fwd", [], broken)
    check(code == 2 and b"bad packet record length 2147483647" in stderr and
          [f for _, _, f, _ in P.read_pcapng_ext(stdout)[1]] == [small[0]],
          "a pcap record of 2 GiB is a damaged file: what came before it is processed, then exit 2")
    # Linux cooked (SLL2, tcpdump -i any) at loopback's size.
    src = P.mac("02:00:00:00:00:77")
    sll2 = b"\x08\x00" + b"\0\0" + struct.pack(">IHBB", 1, 772, 0, 6) + src + b"\0\0"
    code, stdout, _ = offline_raw("nf-fwd", [], P.pcap_bytes([(1, 0, sll2 + f[14:]) for f in (lo, small[0])],
                                                             linktype=276))
    got = [f for _, _, f, _ in P.read_pcapng_ext(stdout)[1]]
    check(code == 0 and got == [b"\0" * 6 + src + f[12:] for f in (lo, small[0])],
          "a 65,549-byte frame of a Linux cooked capture (SLL2) is read whole, as Ethernet")


    # nf-ipsec sees the room its own buffer would have, whatever came before: a 65,549-byte
    # frame after a 100 KB one is too big for ESP (its outer IP length would not fit 16 bits).
    with open(os.path.join(TMP, "a.conf"), "w") as f:
        f.write(GW_A)
    os.chmod(os.path.join(TMP, "a.conf"), 0o600)
    plain = lambda body: P.packet("10.1.0.1", "10.2.0.1", P.UDP, P.udp("10.1.0.1", "10.2.0.1", 4000, 5000, body),
                                  smac="02:00:00:00:00:01", dmac="02:00:00:00:00:a0")
    pad, big = plain(b"small") + b"\0" * 100000, plain(b"B" * (65535 - 28))
    code, out, s, _ = run("nf-ipsec", ["--config", "@TMP/a.conf", "-b", "1"], [(0, 0, pad), (0, 1, big)],
                          ifaces=[("p0", "02:00:00:00:00:a0"), ("t0", "02:00:00:00:00:a1")])
    lens = [(len(f) - 14, int.from_bytes(f[16:18], "big")) for _, _, f in out]
    check(code == 0 and len(out) == 1 and all(a == b for a, b in lens) and
          s.get("nf-ipsec", {}).get("dropped_too_big") == 1,
          "nf-ipsec: a 65,549-byte frame after a 100 KB one is dropped_too_big, every ESP frame's "
          "IP length its own (%s)" % lens)


def wait_for(cond, timeout=10):
    """Poll cond() until it is true (returned) or timeout seconds pass (False)."""
    import time
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.01)
    return False


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def sig_ready(pid, sig):
    """Whether process pid catches sig (offline mode's handler is installed)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            cgt = [ln for ln in f if ln.startswith("SigCgt:")][0]
    except (OSError, IndexError):
        return False
    return int(cgt.split()[1], 16) >> (int(sig) - 1) & 1 == 1


def rchar(pid):
    """Bytes process pid has read (its /proc io accounting), or None."""
    try:
        with open("/proc/%d/io" % pid) as f:
            return int([ln for ln in f if ln.startswith("rchar:")][0].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def test_offline_signals():
    """Offline on a pipe, as online: SIGINT/SIGTERM end the run after the frames in hand
    with the summary and a whole output file (exit 0); SIGHUP reloads and the run goes on,
    no frame lost, even one half written when it comes."""
    import signal
    frames = [P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000 + k, 53, b"q" * k)) for k in range(3)]
    head = P.pcapng_bytes(IFACES, [])
    blocks = lambda fs: P.pcapng_bytes(IFACES, [(0, k, f) for k, f in enumerate(fs)])[len(head):]
    for sig in (signal.SIGINT, signal.SIGTERM):
        st = Streaming("nf-fwd", ["-m", "off"], "stop-" + sig.name)
        st.send(head + blocks(frames))
        seen = wait_for(lambda: len(st.sent()) == 3)
        st.p.send_signal(sig)
        code, s = st.finish(close=False)
        st.p.stdin.close()
        ok = seen and code == 0 and st.sent() == frames and s.get("total", {}).get("rx_packets") == 3 and \
            s["total"]["tx_packets"] == 3
        if not ok:
            diag("exit %s, %d frames out, summary %s" % (code, len(st.sent()), s.get("total")))
        check(ok, "%s while nf-fwd --pcap-in - waits for more: exit 0, the JSON summary counts the 3 "
              "frames, the output file holds them" % sig.name)
    # Before the first packet: once the interfaces are named, a summary of nothing; before
    # that, nothing was set up (nf-nat needs its interfaces), and it says so.
    nat = ["--inside", "in0", "--outside", "out0", "--public", PUB]
    for nf, args, sent in (("nf-fwd", [], head), ("nf-nat", nat, head), ("nf-nat", nat, b"")):
        st = Streaming(nf, args, "early")
        st.send(sent)
        ready = wait_for(lambda: sig_ready(st.p.pid, signal.SIGINT))
        st.p.send_signal(signal.SIGINT)
        code, s = st.finish(close=False)
        st.p.stdin.close()
        err = st.stderr()
        if sent:
            check(ready and code == 0 and s.get("total", {}).get("rx_packets") == 0 and st.sent() == [],
                  "%s: SIGINT before any packet came: exit 0 and a summary of nothing" % nf)
        else:
            check(ready and code == 0 and "stopped before the input's first packet" in err and
                  len(err.splitlines()) == 1 and not s,
                  "%s: SIGINT before the input's first byte: exit 0, saying so" % nf)
    # Stuck where no wait sees a stop (a FIFO no writer opens): the second SIGTERM ends it.
    fifo = os.path.join(TMP, "never.fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    p = subprocess.Popen([os.path.join(BIN, "nf-fwd"), "--pcap-in", fifo], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    ready = wait_for(lambda: sig_ready(p.pid, signal.SIGTERM))
    p.send_signal(signal.SIGTERM)
    try:
        first = p.wait(timeout=0.5)
    except subprocess.TimeoutExpired:
        first = None
    if first is None:
        p.send_signal(signal.SIGTERM)
    try:
        code = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        code = p.wait()
    check(ready and code == -signal.SIGTERM, "a run stuck opening a FIFO: a second SIGTERM ends it "
          "(exit %s)" % code)
    # SIGHUP: nf-firewall's rules change between frames.
    rules = os.path.join(TMP, "hup.rules")
    with open(rules, "w") as f:
        f.write("default accept\ndrop udp dport 53\n")
    udp = lambda port: P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000, port, b"h"))
    st = Streaming("nf-firewall", ["--rules", rules, "-b", "1"], "hup")
    st.send(head + blocks([udp(53), udp(54)]))
    ok = bool(wait_for(lambda: st.sent() == [udp(54)]))
    # A frame half written when SIGHUP comes: the reload waits for it, and it obeys the old rules.
    with open(rules, "w") as f:
        f.write("default accept\ndrop udp dport 54\n")
    half = blocks([udp(54)])
    before = rchar(st.p.pid)
    st.send(half[:20])
    if before is not None:
        ok = ok and bool(wait_for(lambda: rchar(st.p.pid) >= before + 20))
        st.p.send_signal(signal.SIGHUP)
        # It cannot reload before the frame is whole: nothing said yet.
        ok = ok and "reloaded" not in st.stderr()
        st.send(half[20:])
    else:
        skip("no /proc/PID/io: SIGHUP sent between frames only")
        st.send(half[20:])
        ok = ok and bool(wait_for(lambda: len(st.sent()) == 2))
        st.p.send_signal(signal.SIGHUP)
    ok = ok and bool(wait_for(lambda: "reloaded" in st.stderr()))
    ok = ok and bool(wait_for(lambda: len(st.sent()) == 2))
    st.send(blocks([udp(53), udp(54), udp(55)]))
    ok = ok and bool(wait_for(lambda: len(st.sent()) == 4))
    alive = st.p.poll() is None
    code, s = st.finish()
    fw = s.get("nf-firewall", {})
    ok = ok and alive and code == 0 and st.sent() == [udp(54), udp(54), udp(53), udp(55)] and \
        fw.get("reloads") == 1 and s["total"]["rx_packets"] == 6
    if not ok:
        diag("exit %s, out %s, %s, %s" % (code, [P.Frame(f).dport for f in st.sent()], fw, st.stderr()))
    check(ok, "SIGHUP to nf-firewall --pcap-in -: the rules reload (one counted), the run goes on; "
          "the frame half written then obeys the old rules, the frames after it the new ones")
    # An NF with nothing to reload says so and keeps running; SIGUSR1: the summary so far.
    st = Streaming("nf-fwd", [], "hup-fwd")
    st.send(head + blocks([frames[0]]))
    seen = wait_for(lambda: len(st.sent()) == 1)
    st.p.send_signal(signal.SIGHUP)
    said = wait_for(lambda: "SIGHUP: nothing to reload" in st.stderr())
    st.p.send_signal(signal.SIGUSR1)
    so_far = wait_for(st.summaries)
    st.send(blocks([frames[1]]))
    more = wait_for(lambda: len(st.sent()) == 2)
    code, s = st.finish()
    ok = seen and said and so_far and more and code == 0 and s.get("total", {}).get("tx_packets") == 2 and \
        so_far[0]["state"] == "running" and so_far[0]["total"]["tx_packets"] == 1
    if not ok:
        diag("so far: %s" % so_far)
    check(ok, "SIGHUP to nf-fwd --pcap-in -: nothing to reload, said; it keeps running; SIGUSR1 "
          "prints the summary so far (state running)")


def test_undeclared_iface():
    """A packet block naming an interface its section does not describe (512, far out of
    the table; 2, just past it) is a damaged file: exit 2, what came before processed."""
    frame = P.packet(HOST, REM, P.UDP, P.udp(HOST, REM, 1000, 53, b"u"))
    for iface in (512, 2):
        data = P.pcapng_bytes(IFACES, [(0, 1, frame), (iface, 2, frame), (0, 3, frame)])
        code, stdout, stderr = offline_raw("nf-fwd", [], data)
        got = P.read_pcapng_ext(stdout)[1]
        check(code == 2 and b"packet on undeclared interface %d" % iface in stderr and
              [(i, f) for i, _, f, _ in got] == [(1, frame)],
              "an EPB on interface %d of a section with 2: exit 2 naming it, the frame before it sent" % iface)


TESTS = [test_fwd, tests_firewall, test_nat, test_nat_router, test_nat_refuses, test_nat_bad_options,
         test_time_jumps, test_stream, test_mutated_input, test_monitor, test_lb, test_lb_capacity,
         test_lb_unicast, test_affinity, test_ipsec, test_ipsec_router, test_ipsec_window, test_counters,
         test_offline, test_big_frames, test_offline_signals, test_firewall_policy_once, test_messages_shown,
         test_proto_names, test_ipsec_window_slices, test_metrics, test_undeclared_iface]


def run_case(n, t):
    """Run test function t as subtest n; prints its result, returns False if it failed."""
    del case[:], skips[:]
    print("%s# Subtest: %s" % (INDENT, t.__name__), flush=True)
    why = None
    try:
        t()
    except Exception:  # a case that raises fails; the others still run
        diag(traceback.format_exc())
        why = "raised"
    if why is None and not case:
        why = "reported no result"
    if why is not None or False in case:
        if False not in case:
            results.append(False)  # a failure no check counted
        print("not ok %d %s%s" % (n, t.__name__, " # " + why if why else ""), flush=True)
        return False
    if None in case:
        print("ok %d %s # SKIP %s" % (n, t.__name__, "; ".join(dict.fromkeys(skips))), flush=True)
    else:
        print("ok %d %s" % (n, t.__name__), flush=True)
    return True


def main(argv=None, tests=None):
    tests = TESTS if tests is None else tests
    only = sys.argv[1:] if argv is None else argv
    unknown = [a for a in only if a not in [t.__name__ for t in tests]]
    if unknown:
        print("usage: test_nf.py [TEST...]; no test named %s" % " ".join(unknown), file=sys.stderr)
        return 2
    tests = [t for t in tests if not only or t.__name__ in only]
    print("KTAP version 1\n# suite: nf host tests\n1..%d" % len(tests), flush=True)
    for n, t in enumerate(tests, 1):
        run_case(n, t)
    print("# %d passed, %d failed, %d skipped" % (results.count(True), results.count(False),
                                                  results.count(None)))
    return 0 if False not in results else 1


if __name__ == "__main__":
    sys.exit(main())
