// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* 5-tuples, flow hashes, address prefixes, MAC addresses and ARP answers. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netslice_pkt.h"

int ns_pkt_flow(const struct ns_pkt *p, struct ns_flow *flow)
{
	const uint8_t *ip = p->data + p->l3_off, *l4 = p->data + p->l4_off;

	memset(flow, 0, sizeof(*flow));
	if (p->family == AF_INET) {
		memcpy(flow->saddr, ip + 12, 4);
		memcpy(flow->daddr, ip + 16, 4);
	} else if (p->family == AF_INET6) {
		memcpy(flow->saddr, ip + 8, 16);
		memcpy(flow->daddr, ip + 24, 16);
	} else {
		return -EAFNOSUPPORT;
	}
	flow->family = p->family;
	flow->proto = p->l4_proto;
	if (!p->l4_off)
		return 0;
	switch (p->l4_proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
		memcpy(&flow->sport, l4, 2);
		memcpy(&flow->dport, l4 + 2, 2);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (ns_pkt_icmp_echo(p)) {
			memcpy(&flow->sport, l4 + 4, 2);
			flow->dport = flow->sport;
		}
		break;
	}
	return 0;
}

void ns_flow_reverse(struct ns_flow *flow)
{
	uint8_t a[16];
	uint16_t port;

	memcpy(a, flow->saddr, 16);
	memcpy(flow->saddr, flow->daddr, 16);
	memcpy(flow->daddr, a, 16);
	port = flow->sport;
	flow->sport = flow->dport;
	flow->dport = port;
}

static uint32_t rotl32(uint32_t x, int r)
{
	return x << r | x >> (32 - r);
}

/* murmur3's 32-bit block and finaliser steps. */
static uint32_t mix(uint32_t h, uint32_t k)
{
	k *= 0xcc9e2d51;
	k = rotl32(k, 15);
	k *= 0x1b873593;
	h ^= k;
	h = rotl32(h, 13);
	return h * 5 + 0xe6546b64;
}

static uint32_t fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	return h ^ (h >> 16);
}

static uint32_t hash_words(const uint8_t *a, const uint8_t *b, uint16_t pa, uint16_t pb,
			   uint8_t proto, uint32_t seed)
{
	uint32_t h = seed, w;
	int i;

	for (i = 0; i < 16; i += 4) {
		memcpy(&w, a + i, 4);
		h = mix(h, w);
		memcpy(&w, b + i, 4);
		h = mix(h, w);
	}
	h = mix(h, (uint32_t)pa << 16 | pb);
	h = mix(h, proto);
	return fmix(h ^ 37);
}

uint32_t ns_flow_hash(const struct ns_flow *f, uint32_t seed)
{
	return hash_words(f->saddr, f->daddr, f->sport, f->dport, f->proto, seed);
}

uint32_t ns_flow_hash_symmetric(const struct ns_flow *f, uint32_t seed)
{
	int c = memcmp(f->saddr, f->daddr, 16);

	if (c > 0 || (!c && f->sport > f->dport))
		return hash_words(f->daddr, f->saddr, f->dport, f->sport, f->proto, seed);
	return ns_flow_hash(f, seed);
}

int ns_flow_format(const struct ns_flow *f, char *buf, size_t size)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], proto[8];
	const char *name;
	int v6 = f->family == AF_INET6;

	inet_ntop(f->family, f->saddr, s, sizeof(s));
	inet_ntop(f->family, f->daddr, d, sizeof(d));
	switch (f->proto) {
	case IPPROTO_TCP: name = "tcp"; break;
	case IPPROTO_UDP: name = "udp"; break;
	case IPPROTO_ICMP: name = "icmp"; break;
	case IPPROTO_ICMPV6: name = "icmp6"; break;
	default:
		snprintf(proto, sizeof(proto), "ip%u", f->proto);
		name = proto;
	}
	return snprintf(buf, size, v6 ? "%s [%s]:%u > [%s]:%u" : "%s %s:%u > %s:%u", name, s,
			ntohs(f->sport), d, ntohs(f->dport));
}

int ns_prefix_parse(const char *s, struct ns_prefix *pfx)
{
	char addr[INET6_ADDRSTRLEN + 1], *end;
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long len;
	unsigned int i, max;

	memset(pfx, 0, sizeof(*pfx));
	if (!alen || alen >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, pfx->addr) == 1)
		pfx->family = AF_INET, max = 32;
	else if (inet_pton(AF_INET6, addr, pfx->addr) == 1)
		pfx->family = AF_INET6, max = 128;
	else
		return -EINVAL;
	len = max;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (errno || *end || len > max)
			return -EINVAL;
	}
	pfx->len = (uint8_t)len;
	for (i = 0; i < 16; i++) {
		if (i * 8 >= len)
			pfx->addr[i] = 0;
		else if (i * 8 + 8 > len)
			pfx->addr[i] &= (uint8_t)(0xff << (8 - (len - i * 8)));
	}
	return 0;
}

int ns_prefix_match(const struct ns_prefix *pfx, int family, const uint8_t *addr)
{
	unsigned int full = pfx->len / 8, rest = pfx->len % 8;

	if (pfx->family != family || memcmp(pfx->addr, addr, full))
		return 0;
	return !rest || !((addr[full] ^ pfx->addr[full]) & (uint8_t)(0xff << (8 - rest)));
}

int ns_mac_parse(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6 || strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* ARP for IPv4 over Ethernet (RFC 826). */
struct ns_arp {
	uint16_t htype, ptype;
	uint8_t hlen, plen;
	uint16_t oper;
	uint8_t sha[6], spa[4], tha[6], tpa[4];
} __attribute__((packed));

int ns_arp_answer(struct ns_pkt *p, uint32_t ip, const uint8_t mac[6])
{
	struct ns_arp *arp = (struct ns_arp *)(p->data + p->l3_off);
	uint8_t *eth = p->data;

	if (p->eth_type != ETHERTYPE_ARP || (size_t)p->l3_off + sizeof(*arp) > p->caplen ||
	    arp->htype != htons(1) || arp->ptype != htons(ETHERTYPE_IP) || arp->hlen != 6 ||
	    arp->plen != 4 || arp->oper != htons(1) || memcmp(arp->tpa, &ip, 4))
		return 0;
	arp->oper = htons(2);
	memcpy(arp->tha, arp->sha, 6);
	memcpy(arp->tpa, arp->spa, 4);
	memcpy(arp->sha, mac, 6);
	memcpy(arp->spa, &ip, 4);
	memcpy(eth, arp->tha, 6);
	memcpy(eth + 6, mac, 6);
	return 1;
}
