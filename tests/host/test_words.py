#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One word per idea: the words docs/design.md defines ("Files, and who calls whom"), kept.

  slice  the partition, /dev/netslice-N, one queue pair
  rxq    the slice's RX queue (and trimq, its header-only records'):
         ptr_rings, but never called "ring"
  ring   ring mode's mmapped structure (ring.c, rstore.c), nothing else
  cut    how many bytes of a frame the reader gets ("header slicing" is
         the feature's name; "slicing" or "sliced" alone is not a word)

Checks, one KTAP line each: every rule finds its own example line (a
rule that finds nothing would pass), and no rule finds a line in the
tree; each line found printed as "# FILE:LINE: RULE: text". Rules:
  ring-for-rxq    "ring" in kmod C (but ring.[ch], rstore.[ch] and their
                  KUnit cases) and uapi/linux/netslice.h that is not one
                  of ring mode's phrases (ALLOWED_RING); elsewhere (docs,
                  tools' messages, tests; not ring mode's own files and
                  tests), the phrases that meant the rxq (RXQ_AS_RING)
  slice-for-cut   "slicing"/"sliced"/"slice length"... for the cut
                  (SLICE_AS_CUT), outside the names before 0.6 kept as
                  deprecated aliases (OLD_NAMES) and the uapi counter
                  read_sliced
  dead-file       a file (X.c, X.h) named in a kmod comment that is not
                  in kmod/; in a uapi or userlib comment, not in the tree
  paren-align     a continuation line of a call or declaration in kmod C
                  not starting right after its open parenthesis (what
                  checkpatch --strict's PARENTHESIS_ALIGNMENT asks of the
                  first continuation line only: it judges a line by the
                  line before it, and a second continuation line's line
                  before opens no parenthesis)

Not checked: docs/bench/ (plots); bench/report.py's row names ("nf-fwd,
slicing auto") are allowed where the docs quote them.

Usage: test_words.py [TOP]   (default: this checkout)
"""
import os
import re
import subprocess
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCOPE = ("kmod/", "uapi/", "userlib/", "tools/", "scripts/", "tests/", "docs/", "README.md")
# The plots; this file's own patterns; 0.7's header, frozen as it shipped.
NOT_CHECKED = ("docs/bench/",
               "tests/host/test_words.py",
               "tests/host/abi-0.7/")
TEXT = re.compile(r"(\.(c|h|sh|py|md|8|inc|yaml|bash|txt)|Makefile|Kbuild|Kconfig|README\.md)$")

# Ring mode's own files: "ring" is theirs.
RING_FILES = re.compile(r"^kmod/(tests/)?(ring|ring_rx|ring_types|rstore)(_kunit)?\.[ch]$")
# Ring mode's tests, and those of the names before 0.6.
RING_TESTS = re.compile(r"^tests/(guest/(ring_check\.c|test_ring\.sh)|host/(old_names\.c|test_old_names\.sh))$")
# What "ring" may be elsewhere in kmod: ring mode, named as such.
ALLOWED_RING = re.compile(
    r"ring[- ]mode( rings)?|\b(RX|TX|completion|mapped|mmapped) rings?\b|rings? regions?"
    r"|\bfile's rings?\b|::ring\b"
    r"|\b(a|the|its|new|one|this) ring's (own |first )?(store|RX|TX|rx_lock|tx_lock|entries|"
    r"handles|file|poller|ageing|consumer index|payload|park|bit)"
    r"|\bring (bit|memory|setup|frames?)\b|\ball rings\b|\bring\.[ch]\b|\bring_\w+"
    r"|\w+_ring\w*|\bring->|->ring\b|\bNSL_HANDLE_RING\b|\brings its doorbell"
    r"|\b(a|the) ring('s)? (takes|parked|park)|\bstruct nsl_ring\b|\(ring\)|\bring [?:=]"
    r"|\bring \?|\bring\)|\"ring\"|\bring,|\bring;|\bring = |\bno (sliced )?ring\b|\bring's store",
    re.I)
# Phrases that called the rxq a ring, outside the module's C (whose rule
# is the stricter one above): docs, tools' messages, tests, the library.
RXQ_AS_RING = re.compile(
    r"per-slice (RX )?rings?|slice's (RX )?rings?\b|off the rings|share the ring\b|"
    r"queued on the ring|\bring[_ -]size\b(?! __NETSLICE_DEPRECATED)|\bring size\b|"
    r"\bthe ring was full|\bring shrunk|\bring of \d+", re.I)

SLICE_AS_CUT = re.compile(
    r"\bslicing\b(?<!header slicing)|\bsliced?\b(?=[ -](frames?|packets?|buffer|entry|entries|ring|"
    r"one|off|mode|modes|length|len))|\bsliced\b|\bslice[_ ]len(gth)?\b|\bheader slices?\b|"
    r"\bits slice\b(?=(, the rest| (is|are) (copied|read|cut)))|\bor its slice\b|\bset_slicing\b|\bauto[-_]slicing\b|\btest_slicing\b|"
    r"\bslice_(check|nf)\b|\bslicing[_ ]mode|\bSLICING\b|\bslicing_case\b|\bSLICED\b", re.I)
# The names before 0.6, kept as deprecated aliases, and the uapi
# counter: these lines may say them.
OLD_NAMES = re.compile(
    r"read_sliced|READ_SLICED|NETSLICE_RX_SLICED|NETSLICE_(A_SLICE_)?SLICING_\w+|netslice_slicing"
    r"|ns_slicing_\w+|NS_SLICING_STRLEN|\bslicing __NETSLICE_DEPRECATED|before 0\.6|\"slicing\b"
    r"|'slicing\b|\bslicing\|\b|@slicing\b|\.slicing\b|info, slicing\b|, slicing\)|cfg\.slicing"
    r"|deprecated|became the cut|\.BI slicing\b|\.BI \"slicing |\\-\\-slicing\b|\|slicing\)|`slicing`"
    r"|read-sliced|\bslicing\" is|slice set \S+ slicing\b|info's slicing\b"
    # bench/report.py's row names
    r"|nf-fwd, (ring mode, )?slicing (auto|off)",
    re.I)
FEATURE = re.compile(r"header[- ]slic(ing|ed)(?! mode)", re.I)

KMOD_FILE = re.compile(r"(?<![\w/.-])(?:kmod/)?([a-z_][\w-]*\.[ch])\b")
NOT_KMOD = {"netslice.h", "netslice_cut.h", "netslice_netlink.h", "netslice_pkt.h", "af_packet.c",
            "dev.c", "skbuff.c", "core.c", "gro.c", "xdp.c", "filter.c", "sock.c"}

findings = []


def find(path, no, rule, text):
    findings.append((path, no, rule, text.strip()))


def tree_files():
    """Tracked files and new ones not yet added; every file where TOP is no
    checkout of its own (a source package's tree, maybe inside another's)."""
    out = subprocess.run(["git", "-C", TOP, "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    if out.returncode == 0 and os.path.realpath(out.stdout.strip()) == os.path.realpath(TOP):
        out = subprocess.run(["git", "-C", TOP, "ls-files", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, text=True, check=True)
        return out.stdout.split()
    found = []
    for root, dirs, names in os.walk(TOP):
        dirs[:] = [d for d in dirs if d not in (".git", "build", "debian")]
        found += [os.path.relpath(os.path.join(root, n), TOP) for n in names]
    return found


def files():
    for p in sorted(set(tree_files())):
        if os.path.isfile(os.path.join(TOP, p)) and p.startswith(SCOPE) and not p.startswith(NOT_CHECKED) and TEXT.search(p):
            yield p


def comment_lines(text):
    """(line number, comment text) of each line with a comment in C text."""
    res = []
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, flags=re.S):
        first = text.count("\n", 0, m.start()) + 1
        for i, line in enumerate(m.group(0).split("\n")):
            res.append((first + i, line))
    return res


def check_ring(path, lines):
    c_like = path.endswith((".c", ".h"))
    if path.startswith("kmod/") and c_like and not RING_FILES.match(path) or \
       path == "uapi/linux/netslice.h":
        for no, line in enumerate(lines, 1):
            # "ring" at a line's end may go on as "mode" on the next.
            after = lines[no].split()[1:2] if no < len(lines) and \
                re.search(r"\bring$", line.rstrip()) else []
            rest = ALLOWED_RING.sub(" ", " ".join([line] + after))
            if re.search(r"\brings?\b", rest, re.I):
                find(path, no, "ring-for-rxq", line)
    elif not RING_FILES.match(path) and not RING_TESTS.match(path):
        for no, line in enumerate(lines, 1):
            # An old name's line (it says so, or names the new one), or a
            # man page's markup of it before.
            said = (lines[no - 2] if no > 1 else "") + line + (lines[no] if no < len(lines) else "")
            if RXQ_AS_RING.search(line) and "before 0.6" not in said and \
               "deprecated" not in said and "rxq" not in line.lower():
                find(path, no, "ring-for-rxq", line)


def check_cut(path, lines):
    for no, line in enumerate(lines, 1):
        rest = FEATURE.sub(" ", OLD_NAMES.sub(" ", line)) if not OLD_NAMES.search(line) or \
            "deprecated" not in line.lower() and "before 0.6" not in line else ""
        if rest and SLICE_AS_CUT.search(rest):
            find(path, no, "slice-for-cut", line)


def check_dead(path, text, names):
    for no, line in comment_lines(text):
        for m in KMOD_FILE.finditer(line):
            name = m.group(1)
            if name in NOT_KMOD or "/" in name:
                continue
            if name not in names:
                find(path, no, "dead-file", line)


def expand(s):
    return s.expandtabs(8)


def code_only(text):
    """text with comments and literals blanked, line breaks kept."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*|\"(\\.|[^\"\\\n])*\"|'(\\.|[^'\\\n])*'", blank, text,
                  flags=re.S)


def check_align(path, text):
    raw = text.split("\n")
    code = code_only(text).split("\n")
    opens = []          # columns of the open parentheses, across lines
    for i, line in enumerate(code):
        if opens and line.strip() and not raw[i].lstrip().startswith("#"):
            indent = len(expand(raw[i])) - len(expand(raw[i]).lstrip())
            want = opens[-1] + 1
            # A continuation whose line before ended with an open
            # parenthesis has no column to match (kernel style indents it).
            if not code[i - 1].rstrip().endswith("(") and indent != want and \
               not line.lstrip().startswith(")"):
                find(path, i + 1, "paren-align", raw[i])
        if raw[i].lstrip().startswith("#"):
            continue
        col = 0
        for ch in line:
            if ch == "\t":
                col = (col // 8 + 1) * 8
                continue
            if ch == "(":
                opens.append(col)
            elif ch == ")" and opens:
                opens.pop()
            elif ch in ";{}":
                opens = []
            col += 1


def check_file(path, text, kmod_files, all_files):
    lines = text.split("\n")
    check_ring(path, lines)
    check_cut(path, lines)
    if path.startswith(("kmod/", "uapi/", "userlib/")) and path.endswith((".c", ".h")):
        # kmod's comments name kmod's files; the others', any file.
        check_dead(path, text, kmod_files if path.startswith("kmod/") else all_files)
    if path.startswith("kmod/") and path.endswith((".c", ".h")):
        check_align(path, text)


# One line each rule must find (a rule that finds nothing would pass).
EXAMPLES = {
    "ring-for-rxq": ("kmod/x.c", "/* Packets taken off the ring at once. */\n"),
    "slice-for-cut": ("kmod/x.c", "/* A sliced packet's payload is parked. */\n"),
    "dead-file": ("kmod/x.c", "/* See gone.c. */\n"),
    "paren-align": ("kmod/x.c", "int f(int a,\n\tint b);\n"),
}


def main():
    print("KTAP version 1\n1..2")
    kmod_files = {f for f in os.listdir(os.path.join(TOP, "kmod"))} | \
        {f for f in os.listdir(os.path.join(TOP, "kmod", "tests"))}
    for rule, (path, text) in EXAMPLES.items():
        check_file(path, text, kmod_files, set())
    found = {f[2] for f in findings}
    ok = found == set(EXAMPLES) and len(findings) == len(EXAMPLES)
    print("%s 1 each rule finds its example, and only that%s" % (
        "ok" if ok else "not ok", "" if ok else " (found: %s)" % findings))
    results = [ok]
    del findings[:]

    all_files = {os.path.basename(p) for p in files()}
    n = 0
    for path in files():
        with open(os.path.join(TOP, path), encoding="utf-8", errors="replace") as f:
            check_file(path, f.read(), kmod_files, all_files)
        n += 1
    for path, no, rule, text in findings:
        print("# %s:%d: %s: %s" % (path, no, rule, text[:100]))
    ok = n > 100 and not findings
    print("%s 2 one word per idea in %d files (%d lines found)" % ("ok" if ok else "not ok", n,
                                                                    len(findings)))
    results.append(ok)
    print("# %d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
