#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Licences as a distribution checks them: every SPDX tag in the tree
names licences and exceptions whose text is in LICENSES/, and
debian/copyright (machine-readable) gives each file the licence its tag
says. KTAP."""
import fnmatch
import os
import re
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPDX = re.compile(r"SPDX-License-Identifier:\s*(.+?)\s*(\*/|-->|\"|$)")
# SPDX ids as DEP-5 short names (debian/copyright)
DEP5 = {"GPL-2.0": "GPL-2", "LGPL-2.1": "LGPL-2.1", "BSD-2-Clause": "BSD-2-clause",
        "BSD-3-Clause": "BSD-3-clause"}
DEP5_EXC = {"Linux-syscall-note": "Linux-syscall-note",
            "LicenseRef-netslice-OpenSSL-exception": "OpenSSL"}

results = []


def result(name, ok, diag=()):
    for d in diag:
        print("# " + d)
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")


def tree_files():
    try:
        out = subprocess.run(["git", "-C", TOP, "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), TOP)
                 for d, subdirs, names in os.walk(TOP)
                 if not os.path.relpath(d, TOP).startswith(("build", ".git"))
                 for f in names]
    return [f for f in files if os.path.isfile(os.path.join(TOP, f))]


def spdx_tag(path):
    try:
        with open(os.path.join(TOP, path), encoding="utf-8", errors="replace") as f:
            head = [next(f, "") for _ in range(3)]
    except OSError:
        return None
    for line in head:
        m = SPDX.search(line)
        if m:
            return m.group(1)
    return None


def words(expr):
    return re.findall(r"[A-Za-z0-9.+-]+", expr)


def as_dep5(expr):
    """'(GPL-2.0 WITH X) OR BSD-3-Clause' -> 'GPL-2 with X exception or BSD-3-clause'"""
    out = []
    for alt in re.split(r"\s+OR\s+", expr.strip("() ")):
        lic, _, exc = alt.strip("() ").partition(" WITH ")
        name = DEP5.get(lic.strip(), lic.strip())
        if exc:
            name += f" with {DEP5_EXC.get(exc.strip(), exc.strip())} exception"
        out.append(name)
    return " or ".join(out)


def copyright_stanzas():
    text = open(os.path.join(TOP, "debian", "copyright"), encoding="utf-8").read()
    stanzas = []
    for para in text.split("\n\n"):
        fields, key = {}, None
        for line in para.splitlines():
            if line.startswith((" ", "\t")) and key:
                # A licence's text follows its name; Files continue.
                if key != "License":
                    fields[key] += " " + line.strip()
            elif ":" in line:
                key, _, val = line.partition(":")
                fields[key] = val.strip()
        stanzas.append(fields)
    return stanzas


def main():
    print("KTAP version 1")
    print("1..4")
    files = tree_files()
    tags = {f: spdx_tag(f) for f in files}
    have = set(os.listdir(os.path.join(TOP, "LICENSES", "preferred"))) | \
        set(os.listdir(os.path.join(TOP, "LICENSES", "exceptions")))
    bad = [f"{f}: {t}" for f, t in tags.items() if t and "{" not in t and
           any(w not in have for w in words(t) if w not in ("OR", "WITH", "AND"))]
    result(f"the {sum(1 for t in tags.values() if t)} SPDX tags name licences and exceptions "
           f"LICENSES/ holds ({', '.join(sorted(have))})", not bad, bad[:5])

    stanzas = copyright_stanzas()
    files_stanzas = [s for s in stanzas if "Files" in s]
    texts = {s["License"] for s in stanzas if "License" in s and "Files" not in s}
    wrong = []
    for f, t in sorted(tags.items()):
        if not t or "{" in t:
            continue
        lic = None
        for s in files_stanzas:
            if any(fnmatch.fnmatchcase(f, p) for p in s["Files"].split()):
                lic = s["License"]
        if lic != as_dep5(t):
            wrong.append(f"{f}: tag {t}, debian/copyright {lic}")
    result("debian/copyright gives every tagged file its tag's licence", not wrong, wrong[:5])

    # nf-ipsec links OpenSSL, everything of tools/nf/ and tools/lib/ and the cut's parser.
    plain = [f"{f}: {t}" for f, t in sorted(tags.items())
             if (f.startswith(("tools/nf/", "tools/lib/")) or f.startswith("kmod/cut_parser."))
             and f.endswith((".c", ".h"))
             and "LicenseRef-netslice-OpenSSL-exception" not in (t or "")]
    result("every file linked into nf-ipsec (tools/nf/, tools/lib/, kmod/cut_parser.c) has the "
           "OpenSSL exception",
           not plain, plain[:5])

    used = {alt for s in files_stanzas for alt in s["License"].split(" or ")}
    missing = sorted(used - texts)
    result("debian/copyright has the text of every licence its Files stanzas name",
           not missing, missing)
    print(f"# {results.count(True)} passed, {results.count(False)} failed, 0 skipped")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
