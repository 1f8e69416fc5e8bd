// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Header views of a received frame. Every header is checked against the
 * bytes captured (a cut packet holds only its headers) and every IP
 * length against the bytes on the wire.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "netslice_pkt.h"

#define ETH_P_8021Q_	0x8100
#define ETH_P_8021AD_	0x88a8
#define IP_MF_		0x2000
#define IP_OFFMASK_	0x1fff

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The L4 header at off (protocol p->l4_proto), within the IP packet. */
static int ns_pkt_parse_l4(struct ns_pkt *p, size_t off)
{
	size_t ip_end = (size_t)p->l3_off + p->l3_len, need;
	const uint8_t *h = p->data + off;

	switch (p->l4_proto) {
	case IPPROTO_TCP:
		need = 20;
		break;
	case IPPROTO_UDP:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		need = 8;
		break;
	default:
		/* Not ours to look into: the L4 header starts here. */
		p->l4_off = (uint16_t)off;
		p->payload_off = (uint16_t)off;
		return 0;
	}
	if (off + need > ip_end)
		return -EBADMSG;
	if (off + need > p->caplen)
		return -EMSGSIZE;
	if (p->l4_proto == IPPROTO_TCP) {
		need = (size_t)(h[12] >> 4) * 4;
		if (need < 20 || off + need > ip_end)
			return -EBADMSG;
		if (off + need > p->caplen)
			return -EMSGSIZE;
	} else if (p->l4_proto == IPPROTO_UDP) {
		/* A first fragment's UDP length is the datagram's: longer than it. */
		if (get16(h + 4) < 8 ||
		    (p->frag != NS_PKT_FRAG_FIRST && off + get16(h + 4) > ip_end))
			return -EBADMSG;
	}
	p->l4_off = (uint16_t)off;
	p->payload_off = (uint16_t)(off + need);
	return 0;
}

static int ns_pkt_parse_ip4(struct ns_pkt *p)
{
	const uint8_t *h = p->data + p->l3_off;
	size_t ihl, frag;

	if ((size_t)p->l3_off + 20 > p->caplen)
		return -EMSGSIZE;
	ihl = (size_t)(h[0] & 0x0f) * 4;
	if (h[0] >> 4 != 4 || ihl < 20)
		return -EBADMSG;
	if (p->l3_off + ihl > p->caplen)
		return -EMSGSIZE;
	p->l3_len = get16(h + 2);
	if (p->l3_len < ihl || p->l3_off + p->l3_len > p->wire_len)
		return -EBADMSG;
	p->family = AF_INET;
	p->l4_proto = h[9];
	frag = get16(h + 6);
	if (frag & IP_OFFMASK_) {
		p->frag = NS_PKT_FRAG_LATER;
		return 0;
	}
	if (frag & IP_MF_)
		p->frag = NS_PKT_FRAG_FIRST;
	return ns_pkt_parse_l4(p, p->l3_off + ihl);
}

static int ns_pkt_parse_ip6(struct ns_pkt *p)
{
	const uint8_t *h = p->data + p->l3_off;
	size_t off, len, end;
	uint8_t next;
	int i;

	if ((size_t)p->l3_off + 40 > p->caplen)
		return -EMSGSIZE;
	if (h[0] >> 4 != 6)
		return -EBADMSG;
	p->l3_len = 40 + get16(h + 4);
	if (p->l3_off + p->l3_len > p->wire_len)
		return -EBADMSG;
	p->family = AF_INET6;
	next = h[6];
	off = p->l3_off + 40;
	end = (size_t)p->l3_off + p->l3_len;
	for (i = 0; i <= NS_PKT_MAX_EXTHDRS; i++) {
		switch (next) {
		case IPPROTO_HOPOPTS:
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
		case IPPROTO_FRAGMENT:
		case IPPROTO_AH:
			break;
		default:
			p->l4_proto = next;
			if (next == IPPROTO_NONE)
				return 0;
			return ns_pkt_parse_l4(p, off);
		}
		if (i == NS_PKT_MAX_EXTHDRS)
			break;
		if (off + 8 > end)
			return -EBADMSG;
		if (off + 8 > p->caplen)
			return -EMSGSIZE;
		h = p->data + off;
		if (next == IPPROTO_FRAGMENT) {
			len = 8;
			if (get16(h + 2) & 0xfff8) {
				p->frag = NS_PKT_FRAG_LATER;
				p->l4_proto = h[0];
				return 0;
			}
			if (get16(h + 2) & 1)
				p->frag = NS_PKT_FRAG_FIRST;
		} else if (next == IPPROTO_AH) {
			len = ((size_t)h[1] + 2) * 4;
		} else {
			len = ((size_t)h[1] + 1) * 8;
		}
		next = h[0];
		off += len;
		if (off > end)
			return -EBADMSG;
	}
	return -EBADMSG;
}

int ns_pkt_parse(struct ns_pkt *p, void *buf, size_t caplen, size_t wire_len)
{
	size_t off = sizeof(struct ether_header);
	uint16_t type;

	memset(p, 0, sizeof(*p));
	if (!buf || wire_len < caplen)
		return -EINVAL;
	p->data = buf;
	p->caplen = caplen;
	p->wire_len = wire_len;
	if (caplen < off)
		return -EMSGSIZE;
	type = get16(p->data + 12);
	while (type == ETH_P_8021Q_ || type == ETH_P_8021AD_) {
		if (p->vlans == NS_PKT_MAX_VLANS)
			return -EBADMSG;
		if (off + 4 > caplen)
			return -EMSGSIZE;
		p->vlan_off[p->vlans++] = (uint16_t)(off - 2);
		type = get16(p->data + off + 2);
		off += 4;
	}
	p->eth_type = type;
	p->l3_off = (uint16_t)off;
	if (type == ETHERTYPE_IP)
		return ns_pkt_parse_ip4(p);
	if (type == ETHERTYPE_IPV6)
		return ns_pkt_parse_ip6(p);
	return 0;
}

struct ether_header *ns_pkt_eth(const struct ns_pkt *p)
{
	return p->l3_off ? (struct ether_header *)p->data : NULL;
}

struct iphdr *ns_pkt_ip4(const struct ns_pkt *p)
{
	return p->family == AF_INET ? (struct iphdr *)(p->data + p->l3_off) : NULL;
}

struct ip6_hdr *ns_pkt_ip6(const struct ns_pkt *p)
{
	return p->family == AF_INET6 ? (struct ip6_hdr *)(p->data + p->l3_off) : NULL;
}

static void *ns_pkt_l4(const struct ns_pkt *p, int family, uint8_t proto)
{
	if (!p->l4_off || p->l4_proto != proto || (family && p->family != family))
		return NULL;
	return p->data + p->l4_off;
}

struct tcphdr *ns_pkt_tcp(const struct ns_pkt *p)
{
	return ns_pkt_l4(p, 0, IPPROTO_TCP);
}

struct udphdr *ns_pkt_udp(const struct ns_pkt *p)
{
	return ns_pkt_l4(p, 0, IPPROTO_UDP);
}

struct icmphdr *ns_pkt_icmp(const struct ns_pkt *p)
{
	return ns_pkt_l4(p, AF_INET, IPPROTO_ICMP);
}

struct icmp6_hdr *ns_pkt_icmp6(const struct ns_pkt *p)
{
	return ns_pkt_l4(p, AF_INET6, IPPROTO_ICMPV6);
}

int ns_pkt_icmp_echo(const struct ns_pkt *p)
{
	const uint8_t *l4 = p->data + p->l4_off;

	if (!p->l4_off)
		return 0;
	if (p->family == AF_INET && p->l4_proto == IPPROTO_ICMP)
		return l4[0] == ICMP_ECHO || l4[0] == ICMP_ECHOREPLY;
	if (p->family == AF_INET6 && p->l4_proto == IPPROTO_ICMPV6)
		return l4[0] == ICMP6_ECHO_REQUEST || l4[0] == ICMP6_ECHO_REPLY;
	return 0;
}

int ns_pkt_vlan_id(const struct ns_pkt *p, unsigned int i)
{
	if (i >= p->vlans)
		return -ENOENT;
	return get16(p->data + p->vlan_off[i] + 2) & 0x0fff;
}
