#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/syzkaller/netslice.txt (by hand) and netslice_genl.txt (generated
from uapi/netslice.yaml) against the uapi headers: every ioctl, every
netlink request command and request attribute is described, every
netslice type they name is defined in one of them, every write action,
iov error and info flag is in a flag set, the structures described by
hand have the uapi structures' fields at their offsets, and the sizes
and numbers written out by hand are right. (The descriptions are
compiled only in a syzkaller checkout; this keeps them from drifting.)
KTAP output, "# N passed, N failed" last."""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UAPI = os.path.join(TOP, "uapi", "linux")
SYZ = "".join(open(os.path.join(TOP, "tests", "syzkaller", f)).read()
              for f in ("netslice.txt", "netslice_genl.txt"))
results = []


def check(ok, name, detail=""):
    results.append(bool(ok))
    print(("ok" if ok else "not ok"), len(results), name)
    if not ok and detail:
        print("# " + detail)


def described(names):
    return [n for n in names if not re.search(r"\b%s\b" % n, SYZ)]


ioctl_h = open(os.path.join(UAPI, "netslice.h")).read()
nl_h = open(os.path.join(UAPI, "netslice_netlink.h")).read()
ioctls = re.findall(r"#define (NETSLICE_\w+)\s+_IO", ioctl_h)
cmds = [c for c in re.findall(r"\b(NETSLICE_CMD_\w+)", nl_h)
        if not c.endswith(("_NTF", "_MAX"))]
attrs = [a for a in re.findall(r"\b(NETSLICE_A_\w+)", nl_h)
         if not a.startswith("NETSLICE_A_COUNTERS_") and not a.endswith(("_MAX", "_PAD", "_"))]
print("KTAP version 1")
print("1..7")
missing = described(ioctls)
check(ioctls and not missing, "every ioctl (%d) has a description" % len(ioctls), str(missing))
missing = described(sorted(set(cmds)))
check(cmds and not missing, "every netlink command (%d) is sent" % len(set(cmds)), str(missing))
missing = described(sorted(set(attrs)))
check(attrs and not missing, "every request attribute (%d) is in a policy" % len(set(attrs)),
      str(missing))

# A type one file names and neither defines fails only in syzkaller's
# compiler, which is not here.
body = "\n".join(l for l in SYZ.splitlines() if not l.startswith(("include", "#")))
defined = set(re.findall(r"^(?:type |resource )?(netslice_\w+)\b.*?[\[{=]", body, re.M))
used = set(re.findall(r"\b(netslice_\w+)", body))
missing = sorted(used - defined)
check(used and not missing, "every netslice type named (%d) is defined" % len(used), str(missing))

# Values of the header's enumerations, as flag sets: a new action, iov
# error or info flag that syzkaller does not know would never be written.
flags = re.findall(r"#define (NETSLICE_(?:TX|TXERR|INFO|IFACE)_\w+)\s+(?!_IO)", ioctl_h)
missing = [n for n in flags if not re.search(r"^netslice_\w+ = .*\b%s\b" % n, body, re.M)]
check(flags and not missing, "every write action, iov error and info flag (%d) is in a flag set"
      % len(flags), str(missing))

# Hand-written structures and the uapi structure each stands for.
MIRRORS = {"netslice_iov_read": "netslice_iov", "netslice_iov_write": "netslice_iov",
           "netslice_cpumask": "netslice_cpumask", "netslice_rw_multi": "netslice_rw_multi",
           "netslice_cut": "netslice_cut", "netslice_ring_setup": "netslice_ring_setup",
           "netslice_info": "netslice_info", "netslice_iface_info": "netslice_iface_info"}
# Each field: its name and type, without a direction attribute.
structs = {name: re.findall(r"^\s*(\w+)\s+(.*?)(?:\s+\(\w+\))?\s*$", fields, re.M)
           for name, fields in re.findall(r"^(netslice_\w+) \{\n(.*?)^\}", body, re.M | re.S)}


def split_args(opts):
    """"a, b[c, d], e" -> ["a", "b[c, d]", "e"]"""
    out, depth, cur = [], 0, ""
    for ch in opts:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and not depth:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()]


def size_of(syz):
    """A C expression for the size of a syzkaller type (those used here)."""
    name, _, opts = syz.partition("[")
    args = split_args(opts[:-1]) if opts else []
    ints = {"int8": "1", "int16": "2", "int32": "4", "int64": "8", "intptr": "sizeof(long)",
            "ifindex": "4", "netslice_handle": "8", "ptr64": "8", "ptr": "sizeof(void *)"}
    if name in ints:
        return ints[name]
    if name in ("const", "flags", "len"):
        return size_of(args[1]) if len(args) > 1 else "sizeof(long)"
    if name == "array":
        return "(%s) * (%s)" % (size_of(args[0]), args[1])
    if name in structs:
        return "(%s)" % " + ".join(size_of(t) for _, t in structs[name])
    raise SystemExit("test_syzkaller: no size for %s" % syz)


asserts = []
for syz, c in MIRRORS.items():
    at = "0"
    for field, typ in structs.get(syz, []):
        asserts.append('_Static_assert(offsetof(struct %s, %s) == %s, "%s.%s at its offset");'
                       % (c, field, at, syz, field))
        at += " + " + size_of(typ)
    asserts.append('_Static_assert(sizeof(struct %s) == %s, "%s is struct %s\'s size");'
                   % (c, at, syz, c))

with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "layout.c")
    with open(src, "w") as f:
        f.write("#include <stddef.h>\n#include <linux/netslice.h>\n" + "\n".join(asserts) + "\n")
    cc = subprocess.run(["cc", "-fsyntax-only", "-I" + os.path.join(TOP, "uapi"), src],
                        capture_output=True, text=True)
    missing = sorted(set(MIRRORS) - set(structs))
    check(cc.returncode == 0 and not missing,
          "the structures described by hand (%d) are the uapi's, field by field" % len(MIRRORS),
          " ".join(["not described: %s" % missing] * bool(missing) +
                   re.findall(r"error: (.*)", cc.stderr)))

    src = os.path.join(tmp, "sizes.c")
    with open(src, "w") as f:
        f.write('#include <stddef.h>\n#include <stdio.h>\n#include <linux/netslice.h>\n'
                '#define OLD offsetof(struct netslice_stats, tx_chained)\n'
                'int main(void) { printf("%zu %zu %#x\\n", sizeof(struct netslice_stats) / 8, '
                'OLD / 8, (unsigned int)_IOR(NETSLICE_IOC_MAGIC, 0x06, __u8[OLD])); return 0; }\n')
    subprocess.run(["cc", "-I" + os.path.join(TOP, "uapi"), "-o", os.path.join(tmp, "sizes"), src],
                   check=True)
    stats, old, old_cmd = subprocess.run([os.path.join(tmp, "sizes")], capture_output=True,
                                         text=True, check=True).stdout.split()
want = ["cmd const[NETSLICE_STATS_GET], arg ptr[out, array[int64, %s]]" % stats,
        "cmd const[%s], arg ptr[out, array[int64, %s]]" % (old_cmd, old)]
check(all(w in SYZ for w in want),
      "stats (%s words; %s under 0.8's number %s) sizes match the structure" % (stats, old, old_cmd),
      str([w for w in want if w not in SYZ]))
print("# %d passed, %d failed" % (results.count(True), results.count(False)))
sys.exit(0 if all(results) else 1)
