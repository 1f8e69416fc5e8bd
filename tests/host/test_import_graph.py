#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The import graphs of kmod and the tools: who includes and calls whom,
and no circle in them.

Each DIR/X.c is a node, one graph per directory. A header X.h belongs to X.c: every function it
declares (a prototype, an extern) is defined in X.c, and a header with
no X.c (compat.h, skb_cb.h, counters.h) declares none, only types and
inline helpers. Then "A includes a header declaring something B.c
defines" is "A calls B", and the graph is who calls whom.

Checks, one KTAP line each:
  - the parser found what it judges: every header with a .c of its own
    declares something, and the graph has edges (a parser that finds
    nothing would pass the other two);
  - every declaration is defined in its header's own .c;
  - the graph has no circle.

Usage: test_import_graph.py [DIR...]   (default: DIRS, in the checkout)
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The directories whose files call down, never back up.
DIRS = ["kmod", "tools/ctl", "tools/nf"]

results = []


def check(ok, what):
    results.append(ok)
    print("%s %d %s" % ("ok" if ok else "not ok", len(results), what))


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def declared(header_text):
    """Functions and objects a header declares for another file to define."""
    text = strip_comments(header_text)
    # Drop inline bodies and macros: only top-level prototypes count.
    text = re.sub(r"^#[^\n]*(\\\n[^\n]*)*", "", text, flags=re.M)
    names = set()
    depth = 0
    stmt = ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            stmt = ""
        elif depth == 0:
            if ch == ";":
                s = " ".join(stmt.split())
                stmt = ""
                if s.startswith(("static ", "typedef ", "struct ", "enum ", "union ")) and "(" not in s:
                    continue
                if s.startswith("static "):
                    continue
                m = re.match(r"DECLARE_PER_CPU\(.*,\s*(\w+)\)$", s)
                if m:
                    names.add(m.group(1))
                    continue
                m = re.search(r"\b(\w+)\s*\((?!\s*\*)", s)
                if m and not s.startswith("extern "):
                    names.add(m.group(1))
                    continue
                m = re.match(r"extern\s+.*?\b(\w+)\s*(\[[^\]]*\])?$", s)
                if m:
                    names.add(m.group(1))
            else:
                stmt += ch
    return names


def defines(source_text, name):
    text = strip_comments(source_text)
    fn = re.search(r"^(?!static)[\w][\w \*]*\b%s\s*\([^;{]*\)\s*\{" % re.escape(name), text, flags=re.M)
    obj = re.search(r"^(?!static|extern)(DEFINE_PER_CPU\([^,]+,\s*%s\)|[\w][\w \*]*\b%s\b\s*(\[[^\]]*\])?\s*(=|;)|LIST_HEAD\(%s\))"
                    % ((re.escape(name),) * 3), text, flags=re.M)
    return bool(fn or obj)


def check_dir(top, subdir):
    """The three checks of one directory's graph, subdir (kmod, tools/ctl) named in them."""
    path = os.path.join(top, subdir)
    files = {f: open(os.path.join(path, f)).read() for f in os.listdir(path) if f.endswith((".c", ".h"))}
    nodes = sorted(f[:-2] for f in files if f.endswith(".c") and not f.endswith(".mod.c"))

    # Which node each header's declarations lead to.
    header_owners = {}
    misplaced = []
    for h in sorted(f for f in files if f.endswith(".h")):
        owners = set()
        for name in sorted(declared(files[h])):
            where = [n for n in nodes if defines(files[n + ".c"], name)]
            for n in where:
                owners.add(n)
                if n != h[:-2]:
                    misplaced.append("%s declares %s, which %s.c defines" % (h, name, n))
        if h[:-2] in nodes:
            owners.add(h[:-2])
        header_owners[h] = owners
    empty = sorted(h for h in files if h.endswith(".h") and h[:-2] in nodes and not declared(files[h]))
    decls = sum(len(declared(files[h])) for h in files if h.endswith(".h"))
    check(nodes and decls and not empty,
          "%s: the parser found %d declarations in %d headers" % (subdir, decls, len(header_owners)) +
          "".join("\n# %s declares nothing, though %s.c exists" % (h, h[:-2]) for h in empty))
    check(not misplaced, "%s: each header declares only what its own .c defines" % subdir +
          "".join("\n# " + m for m in misplaced))

    edges = {n: set() for n in nodes}
    for n in nodes:
        seen, todo = set(), [n + ".c"] + ([n + ".h"] if n + ".h" in files else [])
        while todo:
            f = todo.pop()
            for inc in re.findall(r'#include "([\w.]+)"', strip_comments(files.get(f, ""))):
                if inc in files and inc not in seen:
                    seen.add(inc)
                    todo.append(inc)
        for h in seen:
            edges[n] |= header_owners.get(h, set()) - {n}

    # Tarjan's strongly connected components: each one with two or more nodes is a circle.
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(comp)

    for v in nodes:
        if v not in index:
            visit(v)
    lines = "".join("\n# circle: " + ", ".join("%s -> %s" % (a, " ".join(sorted(edges[a] & c)))
                                                for a in sorted(c)) for c in circles)
    n_edges = sum(len(e) for e in edges.values())
    check(n_edges and not circles, "%s's import graph has no circle (%d nodes, %d edges)%s"
          % (subdir, len(nodes), n_edges, lines))


def main():
    for subdir in sys.argv[1:] or DIRS:
        check_dir(TOP, subdir)
    print("# %d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
