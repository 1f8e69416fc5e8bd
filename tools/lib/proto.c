// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * IP protocol names: /etc/protocols' (IANA's keywords, as Debian's netbase
 * spells them), each meaning what it means there. IPv4 in IPv4 (Linux's
 * ipip tunnels) is ipencap, 4. The word ipip is refused: /etc/protocols
 * gives it 94 (IANA's "IP-within-IP"), earlier versions read it as 4, and
 * a rule file written for either must not change meaning unseen; 94 is
 * shown as a number. icmpv6 is the rule words' own name for 58
 * (/etc/protocols: ipv6-icmp).
 */
#include <string.h>

#include "conf.h"
#include "proto.h"

struct proto_entry {
	const char *name;
	int proto;
};

/* The names shown: in messages, by proto_name(), in netslicectl's completion. */
static const struct proto_entry proto_table[] = {
	{ "icmp", 1 }, { "igmp", 2 }, { "ipencap", 4 }, { "tcp", 6 }, { "udp", 17 },
	{ "dccp", 33 }, { "ipv6", 41 }, { "rsvp", 46 }, { "gre", 47 }, { "esp", 50 },
	{ "ah", 51 }, { "icmpv6", 58 }, { "ospf", 89 }, { "pim", 103 },
	{ "vrrp", 112 }, { "l2tp", 115 }, { "sctp", 132 }, { "udplite", 136 },
	{ "mpls-in-ip", 137 },
};

/* Other spellings, parsed only. */
static const struct proto_entry proto_also[] = {
	{ "ipv6-icmp", 58 },	/* /etc/protocols' */
	{ "icmp6", 58 },	/* the rule words' before 0.5 */
	{ "mpls", 137 },	/* this table's before it followed /etc/protocols */
};

#define PROTO_COUNT(t) (sizeof(t) / sizeof((t)[0]))

static int proto_find(const struct proto_entry *t, unsigned int n, const char *s)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, t[i].name))
			return t[i].proto;
	return -1;
}

int proto_parse(const char *s)
{
	unsigned long v;
	int p = proto_find(proto_table, PROTO_COUNT(proto_table), s);

	if (p < 0)
		p = proto_find(proto_also, PROTO_COUNT(proto_also), s);
	if (p >= 0)
		return p;
	return conf_uint(s, 0, 255, false, &v) ? -1 : (int)v;
}

const char *proto_name(int proto)
{
	unsigned int i;

	for (i = 0; i < PROTO_COUNT(proto_table); i++)
		if (proto_table[i].proto == proto)
			return proto_table[i].name;
	return NULL;
}

const char *proto_refused(const char *s)
{
	if (!strcmp(s, "ipip"))
		return "'ipip' is ambiguous: /etc/protocols' ipip is 94, earlier versions read it "
		       "as 4; write ipencap (4, IPv4 in IPv4) or 94";
	return NULL;
}

const char *proto_names(void)
{
	static char names[256];
	unsigned int i;

	if (!names[0])
		for (i = 0; i < PROTO_COUNT(proto_table); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", proto_table[i].name);
	return names;
}
