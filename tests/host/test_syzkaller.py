#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/syzkaller/netslice.txt (by hand) and netslice_genl.txt (generated
from uapi/netslice.yaml) against the uapi headers: every ioctl, every
netlink request command and request attribute is described, every
netslice type they name is defined in one of them, and the sizes written
out by hand are the structures' sizes. (The descriptions are compiled
only in a syzkaller checkout; this keeps them from drifting.)
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
print("1..5")
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

with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "sizes.c")
    with open(src, "w") as f:
        f.write('#include <stdio.h>\n#include <linux/netslice.h>\n'
                'int main(void) { printf("%zu %zu\\n", sizeof(struct netslice_info), '
                'sizeof(struct netslice_stats) / 8); return 0; }\n')
    subprocess.run(["cc", "-I" + os.path.join(TOP, "uapi"), "-o", os.path.join(tmp, "sizes"), src],
                   check=True)
    info, stats = subprocess.run([os.path.join(tmp, "sizes")], capture_output=True, text=True,
                                 check=True).stdout.split()
want = "define NETSLICE_INFO_SIZE\t%s" % info
check(want in SYZ and "array[int64, %s]" % stats in SYZ,
      "info (%s bytes) and stats (%s words) sizes match the structures" % (info, stats))
print("# %d passed, %d failed" % (results.count(True), results.count(False)))
sys.exit(0 if all(results) else 1)
