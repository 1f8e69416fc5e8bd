#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write syzkaller's descriptions of the netslice generic netlink family
from uapi/netslice.yaml: one sendmsg$ per command, and per attribute set a
policy whose attributes take the spec's types and ranges (one past each
bound, so the fuzzer also sends what the policy refuses). The devices and
ioctls are described by hand in tests/syzkaller/netslice.txt, which also
defines the few types named in HINTS below.

usage: ynl_syz.py SPEC OUT
"""
import sys

import yaml

# What the spec cannot say: an attribute's meaning to syzkaller, as a type
# of syzkaller's (ifindex, devname) or of netslice.txt's.
HINTS = {
    ("link", "ifindex"): "ifindex",
    ("link", "peer-ifindex"): "ifindex",
    ("link", "ifname"): "devname",
    ("link", "peer-ifname"): "devname",
    ("slice", "kernel-cpus"): "string[netslice_cpu_lists]",
    ("slice", "user-cpus"): "string[netslice_cpu_lists]",
    ("rule", "src"): "netslice_rule_addr",
    ("rule", "dst"): "netslice_rule_addr",
    # Few ids, so that rules collide, replace and delete each other.
    ("rule", "id"): "int32[0:64]",
}
INTS = {"u8": "int8", "u16": "int16", "u32": "int32", "u64": "int64"}


def c_name(*parts):
    return "_".join(p.replace("-", "_") for p in parts).upper()


def syz_name(*parts):
    return "_".join(p.replace("-", "_") for p in parts).lower()


class Spec:
    def __init__(self, path):
        with open(path) as f:
            self.raw = yaml.safe_load(f)
        self.family = self.raw["name"]
        self.defs = {d["name"]: d for d in self.raw.get("definitions", [])}
        self.sets = {s["name"]: s for s in self.raw["attribute-sets"]}

    def attrs(self, set_name):
        """A set's attributes, a subset's with its parent's types."""
        aset = self.sets[set_name]
        parent = self.sets.get(aset.get("subset-of"), aset)
        full = {a["name"]: a for a in parent["attributes"]}
        return parent["name"], [full[a["name"]] for a in aset["attributes"]]

    def entries(self, enum):
        return [e["name"] if isinstance(e, dict) else e for e in self.defs[enum]["entries"]]


def attr_type(spec, owner, attr, flag_sets):
    hint = HINTS.get((owner, attr["name"]))
    if hint:
        return hint
    kind, checks = attr["type"], attr.get("checks", {})
    if kind in INTS:
        if "enum" in attr and "max" not in checks:
            return "%s[0:%d]" % (INTS[kind], len(spec.entries(attr["enum"])))
        if "max" in checks:
            return "%s[0:%d]" % (INTS[kind], checks["max"] + 1)
        return INTS[kind]
    if kind == "flag":
        return "void"
    if kind == "string":
        return "string"
    if kind == "binary":
        return "array[int8, 0:%d]" % (checks.get("max-len", 64) + 1)
    if kind == "bitfield32":
        flag_sets[attr["enum"]] = [c_name(spec.family, attr["enum"], e)
                                   for e in spec.entries(attr["enum"])]
        return "netslice_bitfield32[%s]" % syz_name(spec.family, attr["enum"])
    if kind == "nest":
        return "array[%s]" % syz_name(spec.family, attr["nested-attributes"], "policy")
    raise SystemExit("ynl_syz: %s: no syzkaller type for %s" % (attr["name"], kind))


def policy(spec, set_name, flag_sets, out):
    owner, attrs = spec.attrs(set_name)
    lines = []
    for attr in attrs:
        if attr["type"] == "pad":
            continue
        const = c_name(spec.family, "a", owner, attr["name"])
        wrap = "nlnest" if attr["type"] == "nest" else "nlattr"
        lines.append("\t%s\t%s[%s, %s]" % (const, wrap, const,
                                          attr_type(spec, owner, attr, flag_sets)))
    out.append("%s [" % syz_name(spec.family, set_name, "policy"))
    out.extend(lines)
    out.append("] [varlen]")
    out.append("")
    return [a["nested-attributes"] for a in attrs if a["type"] == "nest"]


def main():
    spec_path, out_path = sys.argv[1:3]
    spec = Spec(spec_path)
    fam = spec.family
    msghdr = "msghdr_" + fam
    out = [
        "# SPDX-License-Identifier: GPL-2.0",
        "# Do not edit: scripts/ynl-gen.sh writes this file from uapi/netslice.yaml",
        "# (scripts/ynl_syz.py). syzkaller's descriptions of the %s generic" % fam,
        "# netlink family; tests/syzkaller/netslice.txt describes the devices.",
        "",
        "include <uapi/linux/netslice_netlink.h>",
        "",
        "resource genl_%s_family_id[int16]" % fam,
        "",
        "type %s[CMD, POLICY] msghdr_netlink[netlink_msg_t[genl_%s_family_id, "
        "genlmsghdr_t[CMD], POLICY]]" % (msghdr, fam),
        "",
        "# struct nla_bitfield32: the bits to set, and which bits the request changes.",
        "type netslice_bitfield32[FLAGS] {",
        "\tvalue\t\tflags[FLAGS, int32]",
        "\tselector\tflags[FLAGS, int32]",
        "}",
        "",
        'syz_genetlink_get_family_id$%s(name ptr[in, string["%s"]], fd sock_nl_generic) '
        "genl_%s_family_id" % (fam, fam, fam),
        "",
    ]
    wanted = []
    for op in spec.raw["operations"]["list"]:
        if "do" not in op and "dump" not in op:
            continue    # a notification: the kernel sends it, nobody asks
        cmd = c_name(fam, "cmd", op["name"])
        request = [m["request"]["attributes"] for m in (op.get("do"), op.get("dump"))
                   if m and m.get("request", {}).get("attributes")]
        pol = syz_name(fam, op["attribute-set"], "policy") if request else "void"
        if request and op["attribute-set"] not in wanted:
            wanted.append(op["attribute-set"])
        out.append("sendmsg$%s(fd sock_nl_generic, msg ptr[in, %s[%s, %s]], "
                   "f flags[send_flags])" % (cmd, msghdr, cmd, pol))
    out.append("")
    flag_sets, done = {}, set()
    while wanted:
        name = wanted.pop(0)
        if name in done:
            continue
        done.add(name)
        wanted.extend(policy(spec, name, flag_sets, out))
    for enum, consts in flag_sets.items():
        out.append("%s = %s" % (syz_name(fam, enum), ", ".join(consts)))
    with open(out_path, "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
