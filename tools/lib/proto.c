// SPDX-License-Identifier: GPL-2.0
/* IP protocol names (IANA's, as /etc/protocols spells them). */
#include <string.h>

#include "conf.h"
#include "proto.h"

static const struct {
	const char *name;
	int proto;
} proto_table[] = {
	{ "icmp", 1 }, { "igmp", 2 }, { "ipip", 4 }, { "tcp", 6 }, { "udp", 17 },
	{ "dccp", 33 }, { "ipv6", 41 }, { "rsvp", 46 }, { "gre", 47 }, { "esp", 50 }, { "ah", 51 },
	{ "icmpv6", 58 }, { "ospf", 89 }, { "pim", 103 }, { "vrrp", 112 }, { "l2tp", 115 },
	{ "sctp", 132 }, { "udplite", 136 }, { "mpls", 137 },
	{ "icmp6", 58 },	/* an older spelling, parsed only */
};

#define PROTO_COUNT (sizeof(proto_table) / sizeof(proto_table[0]))

int proto_parse(const char *s)
{
	unsigned long v;
	unsigned int i;

	for (i = 0; i < PROTO_COUNT; i++)
		if (!strcmp(s, proto_table[i].name))
			return proto_table[i].proto;
	return conf_uint(s, 0, 255, false, &v) ? -1 : (int)v;
}

const char *proto_name(int proto)
{
	unsigned int i;

	for (i = 0; i < PROTO_COUNT; i++)
		if (proto_table[i].proto == proto)
			return proto_table[i].name;
	return NULL;
}

const char *proto_names(void)
{
	static char names[256];
	unsigned int i;

	if (!names[0])
		for (i = 0; i + 1 < PROTO_COUNT; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", proto_table[i].name);
	return names;
}
