#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the module's netlink request policies from uapi/netslice.yaml with
the kernel's own generator, tools/net/ynl/pyynl/ynl_gen_c.py: its policy
printers, in the order its "--mode kernel --source" prints them, and not
its operation table and family. Those are genl_split_ops (Linux 6.2) with
parallel_ops; the module builds for 6.1 and serialises its requests, so
kmod/netlink.c keeps its own genl_ops table, naming these policies: one
per command, the do request's where a command has a dump too.

usage: ynl_policies.py YNL_GEN_C SPEC OUT
"""
import importlib.util
import sys


def main():
    gen_path, spec_path, out = sys.argv[1:4]
    spec = importlib.util.spec_from_file_location("ynl_gen_c", gen_path)
    g = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(g)

    family = g.Family(spec_path, [], None)
    cw = g.CodeWriter(g.BaseNlLib(), out)
    cw.p(f"/* SPDX-License-Identifier: {family.license} */")
    cw.p("/* Do not edit directly, auto-generated from: */")
    cw.p("/*\tuapi/netslice.yaml */")
    cw.p("/* YNL-GEN kernel policies: ynl_gen_c.py's, by scripts/ynl_policies.py */")
    cw.p("/* To regenerate run: scripts/ynl-gen.sh */")
    cw.nl()
    cw.p("#ifndef _NETSLICE_NL_POLICY_H")
    cw.p("#define _NETSLICE_NL_POLICY_H")
    cw.nl()
    cw.p("#include <net/netlink.h>")
    cw.nl()
    cw.p("#include <linux/netslice_netlink.h>")
    cw.nl()

    g.print_kernel_policy_ranges(family, cw)
    g.print_kernel_policy_sparse_enum_validates(family, cw)
    nested = [s for _, s in sorted(family.pure_nested_structs.items()) if s.request]
    if nested:
        cw.p("/* Common nested types */")
    for struct in nested:
        g.print_req_policy_fwd(cw, struct)
    for struct in nested:
        g.print_req_policy(cw, struct)
    # A genl_ops entry has one policy for its doit and its dumpit: print
    # the do request's, which must then be the dump request's too.
    for name, op in family.ops.items():
        modes = [m for m in ("do", "dump") if m in op and "request" in op[m]]
        if not modes:
            continue
        if len(modes) == 2 and (op["do"]["request"]["attributes"] !=
                                op["dump"]["request"]["attributes"]):
            sys.exit(f"ynl_policies: {name}: do and dump requests differ, "
                     "but a genl_ops entry has one policy")
        cw.p(f"/* {op.enum_name} - {modes[0]} */")
        ri = g.RenderInfo(cw, family, "kernel", op, modes[0])
        g.print_req_policy(cw, ri.struct["request"], ri=ri)
        cw.nl()
    cw.p("#endif /* _NETSLICE_NL_POLICY_H */")
    cw.close_out_file()


if __name__ == "__main__":
    main()
