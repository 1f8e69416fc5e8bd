/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Private to libnetslice and netslicectl (which links rule_nest.o beside
 * the shared library): one rule's netlink nest, written raw. The rule-batch
 * requests of ns_rules and `netslicectl rule load`'s million-rule request
 * are the same bytes, so one encoder writes both.
 */
#ifndef NETSLICE_RULE_NEST_H
#define NETSLICE_RULE_NEST_H

#include <stddef.h>
#include <stdint.h>

#include "netslice.h"

/* Most bytes one nest takes (IPv6, every attribute). */
#define NS_RULE_NEST_MAX	128

/* What ns_rule_nest() writes besides the rule's non-zero fields. */
#define NS_RULE_NEST_SPORT	0x1	/* the source port range even if 0-0 */
#define NS_RULE_NEST_DPORT	0x2	/* the destination port range even if 0-0 */
#define NS_RULE_NEST_SLICE	0x4	/* the slice (every op but a delete) */

/*
 * Rule's nest at buf (NS_RULE_NEST_MAX bytes of room, 4-byte aligned),
 * op a NETSLICE_RULE_OP_* or -1 for none (the command says it). Only what
 * the kernel cannot infer: no family beside an address, no full prefix
 * length, no upper port equal to the lower. Returns the bytes written.
 */
size_t ns_rule_nest(void *buf, int op, const struct ns_rule *rule, unsigned int flags);

/* An attribute at p, its padding zeroed; returns the byte after it. */
char *ns_nla_put(char *p, uint16_t type, const void *data, size_t len);

#endif /* NETSLICE_RULE_NEST_H */
