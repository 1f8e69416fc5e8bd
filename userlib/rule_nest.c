// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * One rule's netlink nest, written raw: the rule-batch requests of
 * ns_rules (rule.c) and `netslicectl rule load`'s million-rule request are
 * the same bytes. Its own object, so that netslicectl links it beside the
 * shared library, which keeps it private.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/netslice_netlink.h>

#include "rule_nest.h"

char *ns_nla_put(char *p, uint16_t type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };

	memcpy(p, &a, sizeof(a));
	memcpy(p + NLA_HDRLEN, data, len);
	memset(p + NLA_HDRLEN + len, 0, NLA_ALIGN(a.nla_len) - a.nla_len);
	return p + NLA_ALIGN(a.nla_len);
}

static char *ns_nla_put_u8(char *p, uint16_t type, uint8_t v)
{
	return ns_nla_put(p, type, &v, sizeof(v));
}

static char *ns_nla_put_u16(char *p, uint16_t type, uint16_t v)
{
	return ns_nla_put(p, type, &v, sizeof(v));
}

static char *ns_nla_put_u32(char *p, uint16_t type, uint32_t v)
{
	return ns_nla_put(p, type, &v, sizeof(v));
}

static bool ns_rule_ports(uint16_t lo, uint16_t hi)
{
	return lo || hi;
}

/* A port range, the upper end only when it differs (the kernel takes min for it). */
static char *ns_nla_put_ports(char *p, uint16_t min_type, uint16_t lo, uint16_t hi)
{
	p = ns_nla_put_u16(p, min_type, lo);
	return hi == lo ? p : ns_nla_put_u16(p, min_type + 1, hi);
}

size_t ns_rule_nest(void *buf, int op, const struct ns_rule *rule, unsigned int flags)
{
	unsigned int bytes = rule->family == AF_INET6 ? 16 : 4;
	char *p = (char *)buf + NLA_HDRLEN;
	struct nlattr nest = { .nla_type = NETSLICE_A_RULES_RULE | NLA_F_NESTED };

	if (op >= 0)
		p = ns_nla_put_u8(p, NETSLICE_A_RULE_OP, (uint8_t)op);
	/* The address's length says the family; only a rule without one names it. */
	if (rule->family && !rule->src_len && !rule->dst_len)
		p = ns_nla_put_u8(p, NETSLICE_A_RULE_FAMILY, rule->family == AF_INET6 ?
				  NETSLICE_RULE_FAMILY_IPV6 : NETSLICE_RULE_FAMILY_IPV4);
	if (rule->proto)
		p = ns_nla_put_u8(p, NETSLICE_A_RULE_PROTO, rule->proto);
	if (rule->src_len) {
		p = ns_nla_put(p, NETSLICE_A_RULE_SRC, rule->src, bytes);
		if (rule->src_len != bytes * 8)
			p = ns_nla_put_u8(p, NETSLICE_A_RULE_SRC_LEN, rule->src_len);
	}
	if (rule->dst_len) {
		p = ns_nla_put(p, NETSLICE_A_RULE_DST, rule->dst, bytes);
		if (rule->dst_len != bytes * 8)
			p = ns_nla_put_u8(p, NETSLICE_A_RULE_DST_LEN, rule->dst_len);
	}
	if ((flags & NS_RULE_NEST_SPORT) || ns_rule_ports(rule->sport_min, rule->sport_max))
		p = ns_nla_put_ports(p, NETSLICE_A_RULE_SPORT_MIN, rule->sport_min, rule->sport_max);
	if ((flags & NS_RULE_NEST_DPORT) || ns_rule_ports(rule->dport_min, rule->dport_max))
		p = ns_nla_put_ports(p, NETSLICE_A_RULE_DPORT_MIN, rule->dport_min, rule->dport_max);
	if (rule->pref)
		p = ns_nla_put_u32(p, NETSLICE_A_RULE_PREF, rule->pref);
	if (flags & NS_RULE_NEST_SLICE)
		p = ns_nla_put_u32(p, NETSLICE_A_RULE_SLICE, rule->slice);
	nest.nla_len = (uint16_t)(p - (char *)buf);
	memcpy(buf, &nest, sizeof(nest));
	return nest.nla_len;
}

