#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that the netslice netlink spec (uapi/netslice.yaml) and what
follows it agree.

  spec_check.py header          the uapi header's constants (compiled and
                                printed by a C program) and the counters'
                                order against struct netslice_stats; the
                                operations and permissions docs/control.md
                                and the man page give, and netslicectl's
                                slice settings
  spec_check.py policy FILE     a running module's policies, as
                                `genl ctrl policy name netslice` prints
                                them, against every operation's request

Prints KTAP-ish "ok N - ..." lines and a "# N passed, N failed" summary.
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "host"))
from optdeps import missing_module  # noqa: E402
SPEC = os.path.join(TOP, "uapi", "netslice.yaml")
results = []


def check(ok, what):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} - {what}")


def c_name(*parts):
    return "_".join(p.upper().replace("-", "_") for p in parts)


def expected_constants(spec):
    fam = spec["name"]
    want = {}
    for d in spec.get("definitions", []):
        if d["type"] == "const":
            want[c_name(fam, d["name"])] = d["value"]
            continue
        for i, e in enumerate(d["entries"]):
            name = e["name"] if isinstance(e, dict) else e
            want[c_name(fam, d["name"], name)] = 1 << i if d["type"] == "flags" else i
    for s in spec["attribute-sets"]:
        if "subset-of" in s:
            continue  # its attributes are its parent set's, with their values
        for i, a in enumerate(s["attributes"]):
            want[c_name(fam, "a", s["name"], a["name"])] = i + 1
        want[c_name(fam, "a", s["name"], "max")] = len(s["attributes"])
    ops = spec["operations"]["list"]
    for i, op in enumerate(ops):
        want[c_name(fam, "cmd", op["name"])] = i + 1
    want[c_name(fam, "cmd", "max")] = len(ops)
    want[c_name(fam, "family", "version")] = spec.get("version", 1)
    return want


def header_constants(names, header):
    """The values the header gives names, by compiling a program."""
    prog = f'#include <stdio.h>\n#include <{header}>\nint main(void)\n{{\n'
    for n in names:
        prog += f'\tprintf("{n} %lld\\n", (long long)({n}));\n'
    prog += '\tprintf("FAMILY_NAME %s\\n", NETSLICE_FAMILY_NAME);\n'
    prog += '\tprintf("MCGRP %s\\n", NETSLICE_MCGRP_MONITOR);\n\treturn 0;\n}\n'
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "c.c"), os.path.join(tmp, "c")
        with open(src, "w") as f:
            f.write(prog)
        cc = subprocess.run(["cc", "-I", os.path.join(TOP, "uapi"), "-o", exe, src],
                            capture_output=True, text=True)
        if cc.returncode:
            missing = re.findall(r"'(NETSLICE_\w+)' undeclared", cc.stderr)
            return None, missing or [cc.stderr[:500]]
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    got = {}
    for line in out.splitlines():
        k, v = line.split(" ", 1)
        got[k] = v if k in ("FAMILY_NAME", "MCGRP") else int(v)
    return got, []


def stats_fields():
    text = open(os.path.join(TOP, "uapi", "linux", "netslice.h")).read()
    body = re.search(r"#define NETSLICE_STATS_LIST\(X\)(.*?)\n\n", text, re.S).group(1)
    return re.findall(r"X\(\w+, (\w+)\)", body)


# The generated policies carry the spec's numbers; the module's logic uses
# its constants. Each limit below must be the same in both.
LIMITS = [  # (attribute set, attribute, check, expression of the constants)
    ("link", "slice-first", "max", "NETSLICE_MAX_SLICES - 1"),
    ("link", "slice-count", "max", "NETSLICE_MAX_SLICES"),
    ("slice", "id", "max", "NETSLICE_MAX_SLICES - 1"),
    ("slice", "rxq-size", "max", "NSL_MAX_RXQ_SIZE"),
    ("slice", "cut-length", "max", "NETSLICE_MAX_HEADER"),
    ("slice", "cut-extra", "max", "NETSLICE_MAX_EXTRA"),
    ("slice", "store-size", "max", "NSL_STORE_MAX_SIZE"),
    ("slice", "store-timeout-ms", "max", "NSL_MAX_STORE_TIMEOUT_MS"),
    ("slice", "batch-max", "max", "NETSLICE_MAX_BATCH"),
    ("stats", "slice", "max", "NETSLICE_MAX_SLICES - 1"),
    ("rule", "slice", "max", "NETSLICE_MAX_SLICES - 1"),
]


def c_defines(*paths):
    """Numeric #defines of the files, by name."""
    out = {}
    for p in paths:
        text = open(os.path.join(TOP, p)).read()
        for name, value in re.findall(r"^#define\s+(\w+)\s+(\d+)\b", text, re.M):
            out[name] = int(value)
    return out


def check_limits(spec):
    consts = c_defines("uapi/linux/netslice.h", "kmod/params.h")
    wrong = []
    for set_name, attr, key, expr in LIMITS:
        a = next(x for s in spec["attribute-sets"] if s["name"] == set_name
                 for x in s["attributes"] if x["name"] == attr)
        want = eval(expr, {}, consts)  # names of the two headers only
        if a.get("checks", {}).get(key) != want:
            wrong.append(f"{set_name}.{attr} {key} {a.get('checks', {}).get(key)} != {expr} ({want})")
    check(not wrong, f"{len(LIMITS)} limits of the spec equal the module's constants" +
          "".join("\n#   " + w for w in wrong))


def check_header(spec):
    want = expected_constants(spec)
    got, missing = header_constants(sorted(want), "linux/" + os.path.basename(spec["uapi-header"]))
    check(got is not None, "header declares every constant of the spec"
          + (f" (missing: {' '.join(missing)})" if missing else ""))
    if got is None:
        return
    wrong = [f"{k}={got[k]} (spec {v})" for k, v in sorted(want.items()) if got[k] != v]
    check(not wrong, f"{len(want)} header values equal the spec's" +
          (": " + ", ".join(wrong) if wrong else ""))
    check(got["FAMILY_NAME"] == spec["name"], "family name")
    groups = [g["name"] for g in spec["mcast-groups"]["list"]]
    check(got["MCGRP"] in groups, "monitor multicast group")
    counters = next(s for s in spec["attribute-sets"] if s["name"] == "counters")
    names = [a["name"].replace("-", "_") for a in counters["attributes"] if a["type"] != "pad"]
    check(names == stats_fields(), "the spec's counters follow NETSLICE_STATS_LIST (struct netslice_stats) field by field")
    check_limits(spec)
    # Every attribute an operation names exists in its set.
    sets = {s["name"]: {a["name"] for a in s["attributes"]} for s in spec["attribute-sets"]}
    bad = []
    for op in spec["operations"]["list"]:
        for kind in ("do", "dump", "event"):
            part = op.get(kind) or {}
            for msg in ("request", "reply"):
                for a in (part.get(msg) or {}).get("attributes", []):
                    if a not in sets[op["attribute-set"]]:
                        bad.append(f"{op['name']}.{kind}.{msg}.{a}")
            for a in part.get("attributes", []) if kind == "event" else []:
                if a not in sets[op["attribute-set"]]:
                    bad.append(f"{op['name']}.event.{a}")
    check(not bad, "operations name only attributes of their set" + (": " + " ".join(bad) if bad else ""))


# netslicectl's word for each slice-set attribute (None: the slice number).
SLICE_SET_WORDS = {
    "id": None, "kernel-cpus": "kernel-cpus", "user-cpus": "user-cpus",
    "cut-mode": "cut", "cut-length": "fixed:", "cut-extra": "auto+",
    "cut-trim": "trim", "batch-flags": "multi-read", "batch-max": "batch",
    "cut-gso": "gso", "rxq-size": "rxq-size", "store-size": "store-size",
    "store-timeout-ms": "store-timeout", "chain-next": "next", "chain-end": "next",
}
# Labels of a permission cell's parts ("get: ...; set: ..."), by the ops they cover.
PERM_LABELS = {"get": ("get",), "dump": ("get",), "set": ("set",), "reset": ("reset",),
               "changes": ("add", "del", "replace", "batch", "flush", "attach", "detach")}
ADMIN = "CAP_NET_ADMIN (initial userns)"


def op_permission(op_name, cell):
    """The part of a permission cell that covers op_name."""
    verb = op_name.rsplit("-", 1)[-1]
    for part in cell.split(";"):
        label, _, text = part.strip().partition(":")
        if text and verb in PERM_LABELS.get(label.strip(), ()):
            return text.strip()
    return cell.strip()


def in_usage(word, usage):
    """A setting's word in netslicectl's usage: a word of its own, or (a MODE's
    "fixed:" or "auto+") the start of one."""
    if word[-1] in ":+":
        return re.search(r"[\s|]" + re.escape(word), usage) is not None
    return f"[{word}" in usage or f"{word} " in usage


def check_docs(spec):
    """docs/control.md's operations and permissions, and the man page, follow the spec."""
    ops = {o["name"]: o for o in spec["operations"]["list"]}
    with open(os.path.join(TOP, "docs", "control.md")) as f:
        rows = [line.split("|")[1:-1] for line in f if line.startswith("| `")]
    listed, wrong = set(), []
    for first, _, perm in rows:
        for name in re.findall(r"`([a-z-]+)`", first):
            listed.add(name)
            op = ops.get(name)
            if not op or "event" in op:
                continue
            admin = "admin-perm" in op.get("flags", [])
            says = op_permission(name, perm)
            if admin != says.startswith(ADMIN):
                wrong.append(f"{name}: \"{says}\"")
    check(listed == set(ops), "docs/control.md lists every operation of the spec, and no other" +
          (f": {sorted(listed ^ set(ops))}" if listed != set(ops) else ""))
    check(not wrong, "docs/control.md gives each operation the spec's permission" +
          (": " + "; ".join(wrong) if wrong else ""))
    changes = [n for n, o in ops.items() if "event" not in o and not n.endswith("-get")]
    open_changes = [n for n in changes if "admin-perm" not in ops[n].get("flags", [])]
    with open(os.path.join(TOP, "docs", "man", "netslicectl.8")) as f:
        man = f.read()
    check(not open_changes and "Every change" in man and
          "needs CAP_NET_ADMIN in\nthe initial user namespace" in man,
          "every change is admin-perm, as the man page says" +
          (f": {open_changes}" if open_changes else ""))
    slice_set = next(o for o in spec["operations"]["list"] if o["name"] == "slice-set")
    with open(os.path.join(TOP, "tools", "ctl", "cmd.c")) as f:
        usage = f.read()
    section = man[man.index(".B slice set"):man.index(".B stats")]
    missing = []
    for a in slice_set["do"]["request"]["attributes"]:
        if a not in SLICE_SET_WORDS:
            missing.append(f"{a} (no netslicectl word)")
        elif SLICE_SET_WORDS[a] and (SLICE_SET_WORDS[a] not in section or
                                     not in_usage(SLICE_SET_WORDS[a], usage)):
            missing.append(a)
    check(not missing, "every slice-set attribute has its netslicectl setting, in the man "
          "page and the usage" + (": " + ", ".join(missing) if missing else ""))
    check_ctl_ranges(spec)


def check_ctl_ranges(spec):
    """netslicectl refuses a number out of its attribute's range before it sends
    anything, naming the range (tools/ctl/slice.c's ctl_numbers): the spec's."""
    consts = c_defines("uapi/linux/netslice.h")
    attrs = {a["name"]: a for s in spec["attribute-sets"] if s["name"] == "slice"
             for a in s["attributes"]}
    with open(os.path.join(TOP, "tools", "ctl", "slice.c")) as f:
        rows = re.findall(r'\{ "([a-z-]+)", NETSLICE_A_SLICE_(\w+), (\w+), (\w+) \}', f.read())
    wrong = []
    for word, attr, lo, hi in rows:
        name = attr.lower().replace("_", "-")
        checks = attrs.get(name, {}).get("checks", {})
        got = tuple(int(v) if v.isdigit() else consts.get(v) for v in (lo, hi))
        want = (checks.get("min", 0), checks.get("max", 2 ** 32 - 1))
        if got != want or SLICE_SET_WORDS.get(name) != word:
            wrong.append(f"{word} {got}: {name} {want}")
    check(len(rows) >= 4 and not wrong, f"netslicectl's {len(rows)} number settings take the "
          "spec's range of their attribute" + "".join("\n#   " + w for w in wrong))


INT_BITS = {"u8": 8, "u16": 16, "u32": 32, "u64": 64}
KERNEL_TYPE = {"u8": "U8", "u16": "U16", "u32": "U32", "u64": "U64", "string": "NUL_STRING",
               "binary": "BINARY", "flag": "FLAG", "nest": "NESTED", "bitfield32": "BITFIELD32"}


def flags_mask(spec, enum):
    d = next(d for d in spec["definitions"] if d["name"] == enum)
    return (1 << len(d["entries"])) - 1


def expected_attr(spec, a):
    """What the kernel's policy dump should say of spec attribute a."""
    t, checks = a["type"], a.get("checks", {})
    want = {"type": KERNEL_TYPE[t]}
    if (t in INT_BITS or t == "bitfield32") and a.get("enum-as-flags"):
        # The generator masks a flags attribute with its enum's flags, and
        # the kernel reports the mask (NL_POLICY_TYPE_ATTR_MASK, or
        # _BITFIELD32_MASK).
        want["mask"] = flags_mask(spec, a["enum"])
    elif t in INT_BITS:
        want["range"] = (checks.get("min", 0), checks.get("max", (1 << INT_BITS[t]) - 1))
    if "max-len" in checks:
        want["max len"] = checks["max-len"]
    if t == "nest":
        want["nested"] = a["nested-attributes"]
    return want


def parse_policy_dump(text):
    ops, policies = {}, {}
    for line in text.splitlines():
        m = re.search(r"op (\d+) policies:(.*)", line)
        if m:
            ops[int(m.group(1))] = dict((k, int(v)) for k, v in re.findall(r"(do|dump)=(\d+)", m.group(2)))
            continue
        m = re.search(r"policy\[(\d+)\]:attr\[(\d+)\]: type=(\w+)(.*)", line)
        if not m:
            continue
        attr = {"type": m.group(3)}
        rest = m.group(4)
        r = re.search(r"range:\[(-?\d+),(-?\d+)\]", rest)
        if r:
            attr["range"] = (int(r.group(1)), int(r.group(2)))
        r = re.search(r"max len:(\d+)", rest)
        if r:
            attr["max len"] = int(r.group(1))
        r = re.search(r"mask:(0x[0-9a-f]+)", rest)
        if r:
            attr["mask"] = int(r.group(1), 16)
        r = re.search(r"policy:(\d+)", rest)
        if r:
            attr["policy"] = int(r.group(1))
        policies.setdefault(int(m.group(1)), {})[int(m.group(2))] = attr
    return ops, policies


def set_attrs(spec, set_name):
    """A set's attributes in value order, a subset's from its parent set."""
    s = next(s for s in spec["attribute-sets"] if s["name"] == set_name)
    if "subset-of" in s:
        return set_attrs(spec, s["subset-of"])
    return s["attributes"]


def compare_policy(spec, set_name, names, policies, idx, where, seen):
    """Policy idx against attributes names of set_name; recurses into nests."""
    attrs = set_attrs(spec, set_name)
    ids = {a["name"]: i + 1 for i, a in enumerate(attrs)}
    got = policies.get(idx, {})
    errors = []
    if set(got) != {ids[n] for n in names}:
        errors.append(f"{where}: attributes {sorted(got)} != spec {sorted(ids[n] for n in names)}")
    for n in names:
        a = attrs[ids[n] - 1]
        want, have = expected_attr(spec, a), dict(got.get(ids[n], {}))
        nested = want.pop("nested", None)
        sub = have.pop("policy", None)
        if "mask" in want and "mask" not in have:
            # iproute2 before 6.4 does not print NL_POLICY_TYPE_ATTR_MASK, and
            # none prints _BITFIELD32_MASK.
            want.pop("mask")
            not_compared.append(f"{where}.{n}: its mask (this iproute2 does not print masks)")
        if "max len" in want and "max len" not in have and want["type"] == "BINARY":
            # The dump shows a binary's length range, not NLA_POLICY_MAX_LEN's
            # maximum alone; test_ctl.sh sends one byte too many instead.
            want.pop("max len")
            not_compared.append(f"{where}.{n}: its max-len (a dump does not show a binary's)")
        if have != want:
            errors.append(f"{where}.{n}: kernel {have} != spec {want}")
        if nested and sub is None:
            not_compared.append(f"{where}.{n}: its nested policy (the dump names no index)")
        if nested and sub is not None and (sub, nested) not in seen:
            seen.add((sub, nested))
            listed = {x["name"] for x in next(s for s in spec["attribute-sets"]
                                              if s["name"] == nested)["attributes"]}
            inner = [x["name"] for x in set_attrs(spec, nested)
                     if x["name"] in listed and x["type"] != "pad"]
            errors += compare_policy(spec, nested, inner, policies, sub, f"{where}.{n}", seen)
    return errors


# What a policy dump could not show, said rather than passed over.
not_compared = []


def check_policy(spec, dump_file):
    ops, policies = parse_policy_dump(open(dump_file).read())
    check(bool(ops), f"the module reports policies for {len(ops)} operations")
    for i, op in enumerate(spec["operations"]["list"]):
        cmd = i + 1
        if "do" not in op and "dump" not in op:
            check(cmd not in ops, f"{op['name']}: a notification, no policy")
            continue
        errors = []
        for kind in ("do", "dump"):
            if kind not in op:
                if kind in ops.get(cmd, {}):
                    errors.append(f"{kind}: the kernel has one, the spec has none")
                continue
            if kind not in ops.get(cmd, {}):
                errors.append(f"{kind}: missing in the kernel")
                continue
            names = ((op[kind] or {}).get("request") or {}).get("attributes", [])
            errors += compare_policy(spec, op["attribute-set"], names, policies,
                                     ops[cmd][kind], f"{op['name']}.{kind}", set())
        check(not errors, f"{op['name']}: kernel policy follows the spec" +
              ("".join("\n#   " + e for e in errors)))
    for line in not_compared:
        print(f"# not compared: {line}")
    if not_compared:
        print(f"# {len(not_compared)} properties not compared (above): the dump lacks them")


def main():
    header = sys.argv[1:] == ["header"]
    if not header and not (len(sys.argv) == 3 and sys.argv[1] == "policy"):
        print(__doc__, file=sys.stderr)
        return 2
    # PyYAML is one of make check-host's optional dependencies.
    why = missing_module("yaml", "python3-yaml")
    if why:
        print(f"ok 1 uapi/netslice.yaml against what follows it # SKIP {why}")
        print("# spec: 0 passed, 0 failed, 1 skipped")
        return 0
    import yaml
    spec = yaml.safe_load(open(SPEC))
    if header:
        check_header(spec)
        check_docs(spec)
    else:
        check_policy(spec, sys.argv[2])
    failed = results.count(False)
    print(f"# spec: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
