/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The header cut's test frames, built byte by byte, with the cut each
 * must give: one table for the KUnit suite (cut_kunit.c, over skbs
 * split at several points) and the host test (tests/host/test_cut.c,
 * over flat buffers, as offline mode reads them), so both run the cut's
 * parser (kmod/cut_parser.c) on the same bytes. The including file provides
 * memset() and the __u8 family.
 */
#ifndef _NETSLICE_CUT_VECTORS_H
#define _NETSLICE_CUT_VECTORS_H

#define NSL_CUT_FRAME_MAX	1024

/* A frame under construction, with the offsets length fields need. */
struct nsl_frame {
	__u8 b[NSL_CUT_FRAME_MAX];
	unsigned int len;
	int ip4;		/* offset of the IPv4 header, or -1 */
	int ip6;		/* offset of the IPv6 header, or -1 */
};

static inline void nsl_frame_init(struct nsl_frame *f)
{
	f->len = 0;
	f->ip4 = -1;
	f->ip6 = -1;
}

static __u8 *put(struct nsl_frame *f, unsigned int n)
{
	__u8 *p = f->b + f->len;

	memset(p, 0, n);
	f->len += n;
	return p;
}

static void be16(__u8 *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be16(struct nsl_frame *f, unsigned int v)
{
	be16(put(f, 2), v);
}

/* Addresses, then the first EtherType. */
static void eth(struct nsl_frame *f, unsigned int proto)
{
	memset(put(f, 12), 0x02, 12);
	put_be16(f, proto);
}

/* A VLAN tag's TCI and the EtherType after it. */
static void tag(struct nsl_frame *f, unsigned int inner)
{
	put_be16(f, 100);
	put_be16(f, inner);
}

static void ipv4(struct nsl_frame *f, __u8 proto, unsigned int ihl, unsigned int frag)
{
	__u8 *p;

	f->ip4 = f->len;
	p = put(f, ihl * 4);
	p[0] = 0x40 | ihl;
	be16(p + 6, frag);
	p[8] = 64;
	p[9] = proto;
}

static void ipv6(struct nsl_frame *f, __u8 nexthdr)
{
	__u8 *p;

	f->ip6 = f->len;
	p = put(f, 40);
	p[0] = 0x60;
	p[6] = nexthdr;
	p[7] = 64;
}

/* An options-style extension header of (len8 + 1) * 8 bytes. */
static void ext(struct nsl_frame *f, __u8 nexthdr, __u8 len8)
{
	__u8 *p = put(f, (len8 + 1) * 8);

	p[0] = nexthdr;
	p[1] = len8;
}

static void ah(struct nsl_frame *f, __u8 nexthdr, __u8 len4)
{
	__u8 *p = put(f, (len4 + 2) * 4);

	p[0] = nexthdr;
	p[1] = len4;
}

static void frag6(struct nsl_frame *f, __u8 nexthdr, unsigned int offset8)
{
	__u8 *p = put(f, 8);

	p[0] = nexthdr;
	be16(p + 2, offset8 << 3);
}

static void tcp(struct nsl_frame *f, unsigned int doff)
{
	__u8 *p = put(f, doff * 4);

	p[12] = doff << 4;
}

/* Payload bytes, then the IP length fields that cover them. */
static void finish(struct nsl_frame *f, unsigned int payload)
{
	unsigned int i;
	__u8 *p = put(f, payload);

	for (i = 0; i < payload; i++)
		p[i] = 0xa0 + i;
	if (f->ip4 >= 0)
		be16(f->b + f->ip4 + 2, f->len - f->ip4);
	if (f->ip6 >= 0)
		be16(f->b + f->ip6 + 4, f->len - f->ip6 - 40);
}

struct nsl_cut_case {
	const char *name;
	void (*build)(struct nsl_frame *f);
	unsigned int want;	/* offset past the L4 header; 0: unparsable */
};

static void b_ipv4_tcp(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 0); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_tcp_opts(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 0); tcp(f, 8); finish(f, 100);
}

static void b_ipv4_opts_tcp(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 6, 0); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_max_opts_udp(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 17, 15, 0); put(f, 8); finish(f, 100);
}

static void b_ipv4_udp(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 17, 5, 0); put(f, 8); finish(f, 100);
}

static void b_ipv4_icmp(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 1, 5, 0); put(f, 8); finish(f, 56);
}

/* Destination unreachable quoting 28 bytes: read whole, never cut. */
static void b_ipv4_icmp_error(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 1, 5, 0); put(f, 8)[0] = 3;
	finish(f, 28);
}

static void b_ipv6_icmp6_error(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 58); put(f, 8)[0] = 2;
	finish(f, 48);
}

static void b_vlan_udp(struct nsl_frame *f)
{
	eth(f, 0x8100); tag(f, 0x0800); ipv4(f, 17, 5, 0); put(f, 8);
	finish(f, 100);
}

static void b_qinq_tcp(struct nsl_frame *f)
{
	eth(f, 0x88a8); tag(f, 0x8100); tag(f, 0x0800);
	ipv4(f, 6, 5, 0); tcp(f, 5); finish(f, 100);
}

static void b_three_tags(struct nsl_frame *f)
{
	eth(f, 0x88a8); tag(f, 0x8100); tag(f, 0x8100); tag(f, 0x0800);
	ipv4(f, 6, 5, 0); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_frag_first(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 0x2000); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_frag_later(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 185); finish(f, 100);
}

static void b_ipv6_tcp(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 6); tcp(f, 5); finish(f, 100);
}

static void b_ipv6_udp(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 17); put(f, 8); finish(f, 100);
}

static void b_ipv6_icmp6(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 58); put(f, 8); finish(f, 56);
}

static void b_ipv6_hop_udp(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 0); ext(f, 17, 0); put(f, 8);
	finish(f, 100);
}

static void b_ipv6_chain_tcp(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 0); ext(f, 60, 0);
	ext(f, 43, 1); ext(f, 6, 2); tcp(f, 5); finish(f, 100);
}

static void b_ipv6_ah_tcp(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 51); ah(f, 6, 4); tcp(f, 5);
	finish(f, 100);
}

static void b_ipv6_frag_first(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 44); frag6(f, 17, 0); put(f, 8);
	finish(f, 100);
}

static void b_ipv6_frag_later(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 44); frag6(f, 17, 100);
	finish(f, 100);
}

static void b_ipv4_padded(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 17, 5, 0); put(f, 8); finish(f, 0);
	put(f, 18);	/* Ethernet padding past the datagram */
}

static void b_arp(struct nsl_frame *f)
{
	eth(f, 0x0806); finish(f, 46);
}

static void b_ipv4_gre(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 47, 5, 0); finish(f, 100);
}

static void b_cut_eth(struct nsl_frame *f)
{
	put(f, 12);
	put(f, 1)[0] = 0x08;
}

static void b_cut_vlan(struct nsl_frame *f)
{
	eth(f, 0x8100); put(f, 1);
}

static void b_cut_ipv4(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 0); f->len -= 8;
}

static void b_cut_tcp(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 0); put(f, 10); finish(f, 0);
}

static void b_tcp_doff_small(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 0); tcp(f, 5); finish(f, 100);
	f->b[14 + 20 + 12] = 4 << 4;
}

static void b_tcp_doff_past_datagram(struct nsl_frame *f)
{
	eth(f, 0x0800); ipv4(f, 6, 5, 0); tcp(f, 5); finish(f, 20);
	f->b[14 + 20 + 12] = 15 << 4;
	put(f, 40);	/* bytes beyond the datagram do not count */
}

static void b_ipv4_ihl_small(struct nsl_frame *f)
{
	b_ipv4_tcp(f);
	f->b[14] = 0x44;
}

static void b_ipv4_totlen_short(struct nsl_frame *f)
{
	b_ipv4_tcp(f);
	be16(f->b + f->ip4 + 2, 16);
}

static void b_ipv4_totlen_past_frame(struct nsl_frame *f)
{
	b_ipv4_tcp(f);
	be16(f->b + f->ip4 + 2, f->len);
}

static void b_ipv4_version6(struct nsl_frame *f)
{
	b_ipv4_tcp(f);
	f->b[14] = 0x65;
}

static void b_ipv6_jumbo(struct nsl_frame *f)
{
	b_ipv6_tcp(f);
	be16(f->b + f->ip6 + 4, 0);
}

static void b_ipv6_long_chain(struct nsl_frame *f)
{
	int i;

	eth(f, 0x86dd); ipv6(f, 60);
	for (i = 0; i < 8; i++)
		ext(f, 60, 0);
	ext(f, 17, 0); put(f, 8); finish(f, 100);
}

static void b_ipv6_ext_past_datagram(struct nsl_frame *f)
{
	eth(f, 0x86dd); ipv6(f, 0); ext(f, 17, 0); finish(f, 0);
	f->b[f->len - 7] = 20;	/* hop-by-hop now claims 168 bytes */
	put(f, 200);
}

static const struct nsl_cut_case nsl_cut_cases[] = {
	{ "ipv4 tcp", b_ipv4_tcp, 14 + 20 + 20 },
	{ "ipv4 tcp with options", b_ipv4_tcp_opts, 14 + 20 + 32 },
	{ "ipv4 options, tcp", b_ipv4_opts_tcp, 14 + 24 + 20 },
	{ "ipv4 60-byte header, udp", b_ipv4_max_opts_udp, 14 + 60 + 8 },
	{ "ipv4 udp", b_ipv4_udp, 14 + 20 + 8 },
	{ "ipv4 icmp", b_ipv4_icmp, 14 + 20 + 8 },
	{ "ipv4 icmp error, whole", b_ipv4_icmp_error, 14 + 20 + 8 + 28 },
	{ "802.1Q ipv4 udp", b_vlan_udp, 18 + 20 + 8 },
	{ "802.1ad+802.1Q ipv4 tcp", b_qinq_tcp, 22 + 20 + 20 },
	{ "three VLAN tags", b_three_tags, 0 },
	{ "ipv4 first fragment", b_ipv4_frag_first, 14 + 20 + 20 },
	{ "ipv4 later fragment", b_ipv4_frag_later, 14 + 20 },
	{ "ipv6 tcp", b_ipv6_tcp, 14 + 40 + 20 },
	{ "ipv6 udp", b_ipv6_udp, 14 + 40 + 8 },
	{ "ipv6 icmpv6", b_ipv6_icmp6, 14 + 40 + 8 },
	{ "ipv6 icmpv6 error, whole", b_ipv6_icmp6_error, 14 + 40 + 8 + 48 },
	{ "ipv6 hop-by-hop udp", b_ipv6_hop_udp, 14 + 40 + 8 + 8 },
	{ "ipv6 hop, dst, routing, tcp", b_ipv6_chain_tcp, 14 + 40 + 8 + 16 + 24 + 20 },
	{ "ipv6 AH tcp", b_ipv6_ah_tcp, 14 + 40 + 24 + 20 },
	{ "ipv6 first fragment udp", b_ipv6_frag_first, 14 + 40 + 8 + 8 },
	{ "ipv6 later fragment", b_ipv6_frag_later, 14 + 40 + 8 },
	{ "ipv4 with ethernet padding", b_ipv4_padded, 14 + 20 + 8 },
	{ "arp", b_arp, 0 },
	{ "ipv4 gre", b_ipv4_gre, 0 },
	{ "ethernet cut short", b_cut_eth, 0 },
	{ "vlan tag cut short", b_cut_vlan, 0 },
	{ "ipv4 header cut short", b_cut_ipv4, 0 },
	{ "tcp header cut short", b_cut_tcp, 0 },
	{ "tcp data offset < 5", b_tcp_doff_small, 0 },
	{ "tcp data offset past datagram", b_tcp_doff_past_datagram, 0 },
	{ "ipv4 ihl < 5", b_ipv4_ihl_small, 0 },
	{ "ipv4 total length < header", b_ipv4_totlen_short, 0 },
	{ "ipv4 total length past frame", b_ipv4_totlen_past_frame, 0 },
	{ "ipv4 ethertype, version 6", b_ipv4_version6, 0 },
	{ "ipv6 jumbogram", b_ipv6_jumbo, 0 },
	{ "ipv6 chain of 9 extensions", b_ipv6_long_chain, 0 },
	{ "ipv6 extension past datagram", b_ipv6_ext_past_datagram, 0 },
};

/* The cut each mode gives the frame of b_ipv4_tcp: 54 bytes of headers, 154 in all. */
struct nsl_cut_len_case {
	__u32 mode, value;	/* the fixed length or the auto extra bytes */
	__u32 want;		/* 0: the whole frame */
};

static const struct nsl_cut_len_case nsl_cut_len_cases[] = {
	{ NETSLICE_CUT_OFF, 0, 0 },
	{ NETSLICE_CUT_AUTO, 0, 54 },
	{ NETSLICE_CUT_AUTO, 16, 70 },
	{ NETSLICE_CUT_AUTO, 100, 0 },
	{ NETSLICE_CUT_FIXED, 64, 64 },
	{ NETSLICE_CUT_FIXED, 90, 90 },
	/* Fewer than NETSLICE_MIN_PARK bytes beyond the cut: never parked. */
	{ NETSLICE_CUT_FIXED, 91, 0 },
	{ NETSLICE_CUT_FIXED, 154, 0 },
	{ NETSLICE_CUT_FIXED, 512, 0 },
};

#endif /* _NETSLICE_CUT_VECTORS_H */
