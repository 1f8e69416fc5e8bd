// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Internet checksums: whole (RFC 1071) and incremental (RFC 1624), and the
 * header rewrites NFs make with them. Sums are kept over 16-bit words as
 * they lie in memory, so every value in and out is in network order.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "netslice_pkt.h"

uint32_t ns_csum_partial(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *b = buf;
	uint16_t w;

	for (; len >= 2; len -= 2, b += 2) {
		memcpy(&w, b, 2);
		sum += w;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (len) {
		w = 0;
		memcpy(&w, b, 1);
		sum += w;
	}
	return sum;
}

uint16_t ns_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint16_t ns_csum(const void *buf, size_t len)
{
	return ns_csum_fold(ns_csum_partial(buf, len, 0));
}

void ns_csum_update(uint16_t *csum, const void *old, const void *new, size_t len)
{
	const uint8_t *o = old, *n = new;
	uint32_t sum = (uint16_t)~*csum;
	uint16_t w;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		memcpy(&w, o + i, 2);
		sum += (uint16_t)~w;
		memcpy(&w, n + i, 2);
		sum += w;
	}
	*csum = ns_csum_fold(sum);
}

void ns_csum_update16(uint16_t *csum, uint16_t old, uint16_t new)
{
	ns_csum_update(csum, &old, &new, 2);
}

void ns_csum_update32(uint16_t *csum, uint32_t old, uint32_t new)
{
	ns_csum_update(csum, &old, &new, 4);
}

/* Where the L4 checksum sits, and whether the pseudo-header covers it. */
static uint16_t *ns_pkt_l4_csum_field(const struct ns_pkt *p, int *pseudo)
{
	uint8_t *l4 = p->data + p->l4_off;

	*pseudo = 1;
	switch (p->l4_proto) {
	case IPPROTO_TCP:
		return (uint16_t *)(l4 + 16);
	case IPPROTO_UDP:
		return (uint16_t *)(l4 + 6);
	case IPPROTO_ICMPV6:
		return (uint16_t *)(l4 + 2);
	case IPPROTO_ICMP:
		*pseudo = 0;
		return (uint16_t *)(l4 + 2);
	}
	return NULL;
}

int ns_pkt_l4_csum(const struct ns_pkt *p, uint16_t *csum)
{
	size_t alen = p->family == AF_INET ? 4 : 16, l4len;
	const uint8_t *ip = p->data + p->l3_off;
	uint16_t *field, saved, w;
	uint32_t sum = 0;
	int pseudo;

	if (!p->family || !p->l4_off || !(field = ns_pkt_l4_csum_field(p, &pseudo)))
		return -EPROTONOSUPPORT;
	if (p->frag || (size_t)p->l3_off + p->l3_len > p->caplen)
		return -EMSGSIZE;
	l4len = (size_t)p->l3_off + p->l3_len - p->l4_off;
	if (pseudo) {
		sum = ns_csum_partial(ip + (alen == 4 ? 12 : 8), 2 * alen, 0);
		w = htons(p->l4_proto);
		sum = ns_csum_partial(&w, 2, sum);
		w = htons((uint16_t)l4len);
		sum = ns_csum_partial(&w, 2, sum);
	}
	/* The sum as if the field were zero: add its one's complement back. */
	memcpy(&saved, field, 2);
	sum = ns_csum_partial(p->data + p->l4_off, l4len, sum) + (uint16_t)~saved;
	*csum = ns_csum_fold(sum);
	if (!*csum && p->l4_proto == IPPROTO_UDP)
		*csum = 0xffff;
	return 0;
}

/* Fold old -> new (len bytes) into the L4 checksum if the pseudo-header covers it. */
static void ns_pkt_fix_l4(const struct ns_pkt *p, const void *old, const void *new,
			  size_t len, int in_pseudo)
{
	uint16_t *field, c;
	int pseudo;

	if (!p->l4_off || !(field = ns_pkt_l4_csum_field(p, &pseudo)) || (in_pseudo && !pseudo))
		return;
	memcpy(&c, field, 2);
	if (p->l4_proto == IPPROTO_UDP && !c && p->family == AF_INET)
		return;		/* no checksum */
	ns_csum_update(&c, old, new, len);
	if (!c && p->l4_proto == IPPROTO_UDP)
		c = 0xffff;
	memcpy(field, &c, 2);
}

/* Can the L4 checksum be fixed if the header changes? */
static int ns_pkt_l4_fixable(const struct ns_pkt *p)
{
	int known = p->l4_proto == IPPROTO_TCP || p->l4_proto == IPPROTO_UDP ||
		    p->l4_proto == IPPROTO_ICMPV6;

	return !known || p->frag == NS_PKT_FRAG_LATER || p->l4_off;
}

int ns_pkt_set_addr(struct ns_pkt *p, int dst, const void *addr)
{
	uint8_t *ip = p->data + p->l3_off, *field, old[16];
	size_t alen;

	if (p->family == AF_INET)
		field = ip + (dst ? 16 : 12), alen = 4;
	else if (p->family == AF_INET6)
		field = ip + (dst ? 24 : 8), alen = 16;
	else
		return -EAFNOSUPPORT;
	if (!ns_pkt_l4_fixable(p))
		return -EMSGSIZE;
	memcpy(old, field, alen);
	memcpy(field, addr, alen);
	if (alen == 4) {
		uint16_t c;

		memcpy(&c, ip + 10, 2);
		ns_csum_update(&c, old, addr, 4);
		memcpy(ip + 10, &c, 2);
	}
	ns_pkt_fix_l4(p, old, addr, alen, 1);
	return 0;
}

int ns_pkt_set_port(struct ns_pkt *p, int dst, uint16_t port)
{
	uint8_t *l4 = p->data + p->l4_off, *field;
	uint16_t old;

	switch (p->l4_proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		field = l4 + (dst ? 2 : 0);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (p->l4_off && !ns_pkt_icmp_echo(p))
			return -EPROTONOSUPPORT;
		field = l4 + 4;
		break;
	default:
		return -EPROTONOSUPPORT;
	}
	if (!p->l4_off || p->family == 0)
		return -EMSGSIZE;
	memcpy(&old, field, 2);
	memcpy(field, &port, 2);
	ns_pkt_fix_l4(p, &old, &port, 2, 0);
	return 0;
}

int ns_pkt_dec_ttl(struct ns_pkt *p)
{
	uint8_t *ip = p->data + p->l3_off;
	uint16_t c, old, new;

	if (p->family == AF_INET6) {
		if (ip[7] <= 1)
			return -ETIME;
		ip[7]--;
		return 0;
	}
	if (p->family != AF_INET)
		return -EAFNOSUPPORT;
	if (ip[8] <= 1)
		return -ETIME;
	memcpy(&old, ip + 8, 2);
	ip[8]--;
	memcpy(&new, ip + 8, 2);
	memcpy(&c, ip + 10, 2);
	ns_csum_update16(&c, old, new);
	memcpy(ip + 10, &c, 2);
	return 0;
}
