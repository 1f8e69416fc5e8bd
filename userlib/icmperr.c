// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * ICMP errors and the packet they quote (RFC 792, RFC 4443): recognising
 * them, parsing the quote, rewriting its addresses and ports as a NAT
 * must for the error to reach the host it is about (RFC 5508), and
 * building the error a router sends (RFC 1812).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "netslice_pkt.h"

int ns_pkt_icmp_error(const struct ns_pkt *p)
{
	uint8_t type;

	if (!p->l4_off)
		return 0;
	type = p->data[p->l4_off];
	if (p->family == AF_INET && p->l4_proto == IPPROTO_ICMP)
		return type == ICMP_DEST_UNREACH || type == ICMP_SOURCEQUENCH ||
		       type == ICMP_REDIRECT || type == ICMP_TIME_EXCEEDED ||
		       type == ICMP_PARAMETERPROB;
	if (p->family == AF_INET6 && p->l4_proto == IPPROTO_ICMPV6)
		return type >= ICMP6_DST_UNREACH && type <= ICMP6_PARAM_PROB;
	return 0;
}

/* Where the outer datagram's captured bytes end. */
static size_t ns_quote_end(const struct ns_pkt *p)
{
	size_t end = (size_t)p->l3_off + p->l3_len;

	return end < p->caplen ? end : p->caplen;
}

int ns_pkt_icmp_quote(const struct ns_pkt *p, struct ns_pkt *q)
{
	size_t end = ns_quote_end(p), off = (size_t)p->l4_off + 8, hlen;
	const uint8_t *ip;
	uint16_t frag;

	if (p->family != AF_INET || !ns_pkt_icmp_error(p))
		return -ENOENT;
	if (off + 20 > end)
		return -EMSGSIZE;
	ip = p->data + off;
	hlen = (size_t)(ip[0] & 0x0f) * 4;
	if (ip[0] >> 4 != 4 || hlen < 20)
		return -EBADMSG;
	if (off + hlen > end)
		return -EMSGSIZE;
	memset(q, 0, sizeof(*q));
	q->data = p->data;
	q->caplen = end;
	q->wire_len = end;
	q->eth_type = ETHERTYPE_IP;
	q->family = AF_INET;
	q->l4_proto = ip[9];
	q->l3_off = (uint16_t)off;
	q->l3_len = (uint32_t)ip[2] << 8 | ip[3];
	frag = (uint16_t)((ip[6] & 0x1f) << 8 | ip[7]);
	if (frag)
		q->frag = NS_PKT_FRAG_LATER;
	else if (ip[6] & 0x20)
		q->frag = NS_PKT_FRAG_FIRST;
	/* RFC 792 quotes 8 bytes of the L4 header: ports, or an echo identifier. */
	if (!frag && off + hlen + 8 <= end)
		q->l4_off = (uint16_t)(off + hlen);
	return 0;
}

/* Update *csum for the 2 bytes at b becoming v (network order). */
static void ns_quote_put16(uint8_t *b, uint16_t v, uint8_t *csum, size_t end, size_t at)
{
	uint16_t c, old;

	memcpy(&old, b, 2);
	memcpy(b, &v, 2);
	if (at + 2 > end)
		return;
	memcpy(&c, csum, 2);
	ns_csum_update(&c, &old, &v, 2);
	memcpy(csum, &c, 2);
}

int ns_pkt_icmp_quote_rewrite(struct ns_pkt *p, const struct ns_pkt *q, int dst,
			      const void *addr, uint16_t port)
{
	uint8_t *ip = q->data + q->l3_off, *l4 = q->data + q->l4_off, *icmp, before[80];
	size_t end = q->caplen, span, ck = 0;
	uint16_t c, w[2];
	int i;

	if (q->family != AF_INET || q->data != p->data)
		return -EINVAL;
	/* Every byte this may change, to fix the ICMP checksum once at the end. */
	span = end - q->l3_off < sizeof(before) ? end - q->l3_off : sizeof(before);
	memcpy(before, ip, span);
	if (q->l4_off) {
		if (q->l4_proto == IPPROTO_TCP && q->l4_off + 18u <= end)
			ck = 16;
		else if (q->l4_proto == IPPROTO_UDP && (l4[6] | l4[7]))
			ck = 6;
		else if (q->l4_proto == IPPROTO_ICMP)
			ck = 2;
	}
	/* The address: the quoted IP checksum, and TCP/UDP's over the pseudo-header. */
	for (i = 0; i < 2; i++) {
		memcpy(&w[i], (const uint8_t *)addr + 2 * i, 2);
		if (ck && q->l4_proto != IPPROTO_ICMP)
			ns_quote_put16(ip + (dst ? 16 : 12) + 2 * i, w[i], l4 + ck, end,
				       q->l4_off + ck);
		else
			memcpy(ip + (dst ? 16 : 12) + 2 * i, &w[i], 2);
	}
	memcpy(&c, ip + 10, 2);
	ns_csum_update(&c, before + (dst ? 16 : 12), addr, 4);
	memcpy(ip + 10, &c, 2);
	/* The port, or an echo request's identifier (both ends share it). */
	if (port && q->l4_off) {
		if (q->l4_proto == IPPROTO_TCP || q->l4_proto == IPPROTO_UDP)
			ns_quote_put16(l4 + (dst ? 2 : 0), port, l4 + ck, ck ? end : 0,
				       q->l4_off + ck);
		else if (q->l4_proto == IPPROTO_ICMP)
			ns_quote_put16(l4 + 4, port, l4 + 2, end, q->l4_off + 2);
		else
			return -EPROTONOSUPPORT;
	}
	if (ck && !(l4[ck] | l4[ck + 1]) && q->l4_proto == IPPROTO_UDP)
		l4[ck] = l4[ck + 1] = 0xff;	/* 0 means none for UDP */
	/* The ICMP checksum covers the quote: everything changed above. */
	icmp = p->data + p->l4_off;
	memcpy(&c, icmp + 2, 2);
	ns_csum_update(&c, before, ip, span & ~(size_t)1);
	memcpy(icmp + 2, &c, 2);
	return 0;
}

int ns_icmp_error_build(uint8_t *out, size_t room, const struct ns_pkt *p, uint8_t type,
			uint8_t code, uint32_t rest, uint32_t src, const uint8_t mac[6])
{
	const uint8_t *ip = p->data + p->l3_off;
	size_t quote = p->caplen - p->l3_off, len;
	uint32_t dst, rest_be = htonl(rest);
	uint16_t c, v;
	uint8_t *oip, *icmp;

	if (p->family != AF_INET || p->frag == NS_PKT_FRAG_LATER || ns_pkt_icmp_error(p))
		return -EINVAL;
	memcpy(&dst, ip + 12, 4);
	/* Never about a packet from nowhere, or to many (RFC 1812 4.3.2.7). */
	if (!dst || (ip[12] & 0xf0) == 0xe0 || dst == 0xffffffff ||
	    (ip[16] & 0xf0) == 0xe0 || !memcmp(ip + 16, "\xff\xff\xff\xff", 4))
		return -EINVAL;
	if (quote > p->l3_len)
		quote = p->l3_len;
	if (quote > 576 - 20 - 8)
		quote = 576 - 20 - 8;
	len = 14 + 20 + 8 + quote;
	if (len > room)
		return -EMSGSIZE;
	memcpy(out, p->data + 6, 6);	/* back to the sender's MAC */
	memcpy(out + 6, mac, 6);
	out[12] = 0x08;
	out[13] = 0x00;
	oip = out + 14;
	memset(oip, 0, 20);
	oip[0] = 0x45;
	oip[1] = 0xc0;		/* internetwork control, as routers send errors */
	v = htons((uint16_t)(20 + 8 + quote));
	memcpy(oip + 2, &v, 2);
	oip[8] = 64;
	oip[9] = IPPROTO_ICMP;
	memcpy(oip + 12, &src, 4);
	memcpy(oip + 16, &dst, 4);
	c = ns_csum(oip, 20);
	memcpy(oip + 10, &c, 2);
	icmp = oip + 20;
	icmp[0] = type;
	icmp[1] = code;
	icmp[2] = icmp[3] = 0;
	memcpy(icmp + 4, &rest_be, 4);
	memcpy(icmp + 8, ip, quote);
	c = ns_csum(icmp, 8 + quote);
	memcpy(icmp + 2, &c, 2);
	return (int)len;
}
