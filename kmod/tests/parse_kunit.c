// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the "auto" header parser over crafted frames, each as a linear
 * skb and split across a page fragment at several points, and the slice
 * length each slicing mode gives.
 */
#include <kunit/test.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include <linux/netslice.h>

#include "../parse.h"
#include "../slicing.h"
#include "kunit_util.h"

/* A frame under construction, with the offsets length fields need. */
struct ns_frame {
	u8 b[NS_TEST_FRAME_MAX];
	unsigned int len;
	int ip4;		/* offset of the IPv4 header, or -1 */
	int ip6;		/* offset of the IPv6 header, or -1 */
};

static u8 *put(struct ns_frame *f, unsigned int n)
{
	u8 *p = f->b + f->len;

	memset(p, 0, n);
	f->len += n;
	return p;
}

static void put_be16(struct ns_frame *f, u16 v)
{
	*(__be16 *)put(f, 2) = htons(v);
}

/* Addresses, then the first EtherType. */
static void eth(struct ns_frame *f, u16 proto)
{
	memset(put(f, 2 * ETH_ALEN), 0x02, 2 * ETH_ALEN);
	put_be16(f, proto);
}

/* A VLAN tag's TCI and the EtherType after it. */
static void tag(struct ns_frame *f, u16 inner)
{
	put_be16(f, 100);
	put_be16(f, inner);
}

static void ipv4(struct ns_frame *f, u8 proto, unsigned int ihl, u16 frag)
{
	struct iphdr *iph;

	f->ip4 = f->len;
	iph = (struct iphdr *)put(f, ihl * 4);
	iph->version = 4;
	iph->ihl = ihl;
	iph->ttl = 64;
	iph->protocol = proto;
	iph->frag_off = htons(frag);
}

static void ipv6(struct ns_frame *f, u8 nexthdr)
{
	struct ipv6hdr *ip6h;

	f->ip6 = f->len;
	ip6h = (struct ipv6hdr *)put(f, sizeof(*ip6h));
	ip6h->version = 6;
	ip6h->nexthdr = nexthdr;
	ip6h->hop_limit = 64;
}

/* An options-style extension header of (len8 + 1) * 8 bytes. */
static void ext(struct ns_frame *f, u8 nexthdr, u8 len8)
{
	u8 *p = put(f, (len8 + 1) * 8);

	p[0] = nexthdr;
	p[1] = len8;
}

static void ah(struct ns_frame *f, u8 nexthdr, u8 len4)
{
	u8 *p = put(f, (len4 + 2) * 4);

	p[0] = nexthdr;
	p[1] = len4;
}

static void frag6(struct ns_frame *f, u8 nexthdr, u16 offset8)
{
	struct frag_hdr *fh = (struct frag_hdr *)put(f, sizeof(*fh));

	fh->nexthdr = nexthdr;
	fh->frag_off = htons(offset8 << 3);
}

static void tcp(struct ns_frame *f, unsigned int doff)
{
	u8 *p = put(f, doff * 4);

	p[12] = doff << 4;
}

/* Payload bytes, then the IP length fields that cover them. */
static void finish(struct ns_frame *f, unsigned int payload)
{
	unsigned int i;
	u8 *p = put(f, payload);

	for (i = 0; i < payload; i++)
		p[i] = 0xa0 + i;
	if (f->ip4 >= 0)
		((struct iphdr *)(f->b + f->ip4))->tot_len = htons(f->len - f->ip4);
	if (f->ip6 >= 0)
		((struct ipv6hdr *)(f->b + f->ip6))->payload_len =
			htons(f->len - f->ip6 - sizeof(struct ipv6hdr));
}

struct ns_parse_case {
	const char *name;
	void (*build)(struct ns_frame *f);
	unsigned int want;	/* offset past the L4 header; 0: unparsable */
};

static void b_ipv4_tcp(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, 0); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_tcp_opts(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, 0); tcp(f, 8); finish(f, 100);
}

static void b_ipv4_opts_tcp(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 6, 0); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_max_opts_udp(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_UDP, 15, 0); put(f, 8); finish(f, 100);
}

static void b_ipv4_udp(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_UDP, 5, 0); put(f, 8); finish(f, 100);
}

static void b_ipv4_icmp(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_ICMP, 5, 0); put(f, 8); finish(f, 56);
}

/* Destination unreachable quoting 28 bytes: read whole, never sliced. */
static void b_ipv4_icmp_error(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_ICMP, 5, 0); put(f, 8)[0] = ICMP_DEST_UNREACH;
	finish(f, 28);
}

static void b_ipv6_icmp6_error(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, IPPROTO_ICMPV6); put(f, 8)[0] = ICMPV6_PKT_TOOBIG;
	finish(f, 48);
}

static void b_vlan_udp(struct ns_frame *f)
{
	eth(f, ETH_P_8021Q); tag(f, ETH_P_IP); ipv4(f, IPPROTO_UDP, 5, 0); put(f, 8);
	finish(f, 100);
}

static void b_qinq_tcp(struct ns_frame *f)
{
	eth(f, ETH_P_8021AD); tag(f, ETH_P_8021Q); tag(f, ETH_P_IP);
	ipv4(f, IPPROTO_TCP, 5, 0); tcp(f, 5); finish(f, 100);
}

static void b_three_tags(struct ns_frame *f)
{
	eth(f, ETH_P_8021AD); tag(f, ETH_P_8021Q); tag(f, ETH_P_8021Q); tag(f, ETH_P_IP);
	ipv4(f, IPPROTO_TCP, 5, 0); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_frag_first(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, IP_MF); tcp(f, 5); finish(f, 100);
}

static void b_ipv4_frag_later(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, 185); finish(f, 100);
}

static void b_ipv6_tcp(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, IPPROTO_TCP); tcp(f, 5); finish(f, 100);
}

static void b_ipv6_udp(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, IPPROTO_UDP); put(f, 8); finish(f, 100);
}

static void b_ipv6_icmp6(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, IPPROTO_ICMPV6); put(f, 8); finish(f, 56);
}

static void b_ipv6_hop_udp(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, NEXTHDR_HOP); ext(f, IPPROTO_UDP, 0); put(f, 8);
	finish(f, 100);
}

static void b_ipv6_chain_tcp(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, NEXTHDR_HOP); ext(f, NEXTHDR_DEST, 0);
	ext(f, NEXTHDR_ROUTING, 1); ext(f, IPPROTO_TCP, 2); tcp(f, 5); finish(f, 100);
}

static void b_ipv6_ah_tcp(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, NEXTHDR_AUTH); ah(f, IPPROTO_TCP, 4); tcp(f, 5);
	finish(f, 100);
}

static void b_ipv6_frag_first(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, NEXTHDR_FRAGMENT); frag6(f, IPPROTO_UDP, 0); put(f, 8);
	finish(f, 100);
}

static void b_ipv6_frag_later(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, NEXTHDR_FRAGMENT); frag6(f, IPPROTO_UDP, 100);
	finish(f, 100);
}

static void b_ipv4_padded(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_UDP, 5, 0); put(f, 8); finish(f, 0);
	put(f, 18);	/* Ethernet padding past the datagram */
}

static void b_arp(struct ns_frame *f)
{
	eth(f, ETH_P_ARP); finish(f, 46);
}

static void b_ipv4_gre(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_GRE, 5, 0); finish(f, 100);
}

static void b_cut_eth(struct ns_frame *f)
{
	put(f, 12);
	put(f, 1)[0] = 0x08;
}

static void b_cut_vlan(struct ns_frame *f)
{
	eth(f, ETH_P_8021Q); put(f, 1);
}

static void b_cut_ipv4(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, 0); f->len -= 8;
}

static void b_cut_tcp(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, 0); put(f, 10); finish(f, 0);
}

static void b_tcp_doff_small(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, 0); tcp(f, 5); finish(f, 100);
	f->b[ETH_HLEN + 20 + 12] = 4 << 4;
}

static void b_tcp_doff_past_datagram(struct ns_frame *f)
{
	eth(f, ETH_P_IP); ipv4(f, IPPROTO_TCP, 5, 0); tcp(f, 5); finish(f, 20);
	f->b[ETH_HLEN + 20 + 12] = 15 << 4;
	put(f, 40);	/* bytes beyond the datagram do not count */
}

static void b_ipv4_ihl_small(struct ns_frame *f)
{
	b_ipv4_tcp(f);
	f->b[ETH_HLEN] = 0x44;
}

static void b_ipv4_totlen_short(struct ns_frame *f)
{
	b_ipv4_tcp(f);
	((struct iphdr *)(f->b + f->ip4))->tot_len = htons(16);
}

static void b_ipv4_totlen_past_frame(struct ns_frame *f)
{
	b_ipv4_tcp(f);
	((struct iphdr *)(f->b + f->ip4))->tot_len = htons(f->len);
}

static void b_ipv4_version6(struct ns_frame *f)
{
	b_ipv4_tcp(f);
	f->b[ETH_HLEN] = 0x65;
}

static void b_ipv6_jumbo(struct ns_frame *f)
{
	b_ipv6_tcp(f);
	((struct ipv6hdr *)(f->b + f->ip6))->payload_len = 0;
}

static void b_ipv6_long_chain(struct ns_frame *f)
{
	int i;

	eth(f, ETH_P_IPV6); ipv6(f, NEXTHDR_DEST);
	for (i = 0; i < 8; i++)
		ext(f, NEXTHDR_DEST, 0);
	ext(f, IPPROTO_UDP, 0); put(f, 8); finish(f, 100);
}

static void b_ipv6_ext_past_datagram(struct ns_frame *f)
{
	eth(f, ETH_P_IPV6); ipv6(f, NEXTHDR_HOP); ext(f, IPPROTO_UDP, 0); finish(f, 0);
	f->b[f->len - 7] = 20;	/* hop-by-hop now claims 168 bytes */
	put(f, 200);
}

static const struct ns_parse_case ns_parse_cases[] = {
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

static void ns_parse_case_desc(const struct ns_parse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ns_parse, ns_parse_cases, ns_parse_case_desc);

/* Where the skb's head ends: everything linear, or split inside headers. */
static const unsigned int ns_splits[] = { NS_TEST_FRAME_MAX, 0, 1, ETH_HLEN, 23, 40 };

static void ns_parse_test(struct kunit *test)
{
	const struct ns_parse_case *c = test->param_value;
	struct ns_frame *f;
	struct sk_buff *skb;
	unsigned int i;

	/* Arrange */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ip4 = -1;
	f->ip6 = -1;
	c->build(f);
	KUNIT_ASSERT_LE(test, f->len, (unsigned int)NS_TEST_FRAME_MAX);

	for (i = 0; i < ARRAY_SIZE(ns_splits); i++) {
		skb = ns_test_skb(test, f->b, f->len, ns_splits[i]);
		/* Act, Assert */
		KUNIT_EXPECT_EQ_MSG(test, ns_parse_l4_end(skb), c->want,
				    "head of %u bytes", skb_headlen(skb));
		kfree_skb(skb);
	}
}

static u32 ns_cfg(u32 mode, u32 length, u32 extra, u32 flags)
{
	struct netslice_slicing req = {
		.mode = mode, .length = length, .extra = extra, .flags = flags,
	};
	u32 cfg = 0;

	if (ns_slicing_from_user(&req, &cfg))
		return U32_MAX;
	return cfg;
}

static void ns_slice_len_test(struct kunit *test)
{
	struct ns_frame *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct sk_buff *skb;

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->ip4 = -1;
	f->ip6 = -1;
	b_ipv4_tcp(f);		/* 54 bytes of headers, 154 in all */
	skb = ns_test_skb(test, f->b, f->len, 64);

	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_OFF, 0, 0, 0)), 0U);
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_AUTO, 0, 0, 0)), 54U);
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_AUTO, 0, 16, 0)), 70U);
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_AUTO, 0, 100, 0)), 0U);
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_FIXED, 64, 0, 0)), 64U);
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_FIXED, 90, 0, 0)), 90U);
	/* Fewer than NETSLICE_MIN_PARK bytes beyond the slice: never parked. */
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_FIXED, 91, 0, 0)), 0U);
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_FIXED, 154, 0, 0)), 0U);
	KUNIT_EXPECT_EQ(test, ns_slice_len(skb, ns_cfg(NETSLICE_SLICE_FIXED, 512, 0, 0)), 0U);
	kfree_skb(skb);
}

static void ns_slicing_from_user_test(struct kunit *test)
{
	struct netslice_slicing req = { .mode = NETSLICE_SLICE_FIXED, .length = 64 };
	struct netslice_slicing out;
	u32 cfg;

	KUNIT_EXPECT_EQ(test, ns_slicing_from_user(&req, &cfg), 0);
	ns_slicing_to_user(cfg, &out);
	KUNIT_EXPECT_EQ(test, out.mode, (u32)NETSLICE_SLICE_FIXED);
	KUNIT_EXPECT_EQ(test, out.length, 64U);

	KUNIT_EXPECT_NE(test, ns_cfg(NETSLICE_SLICE_AUTO, 0, 8, NETSLICE_SLICE_TRIM), U32_MAX);
	KUNIT_EXPECT_NE(test, ns_cfg(NETSLICE_SLICE_OFF, 0, 0, NETSLICE_SLICE_TRIM), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_FIXED, 0, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_FIXED, NETSLICE_MAX_HEADER + 1, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_FIXED, 64, 1, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_AUTO, 1, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_AUTO, 0, NETSLICE_MAX_EXTRA + 1, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_OFF, 1, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(3, 0, 0, 0), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_AUTO, 0, 0, 4), U32_MAX);
	/* Super-packets kept whole need a slice to park in. */
	KUNIT_EXPECT_NE(test, ns_cfg(NETSLICE_SLICE_AUTO, 0, 0, NETSLICE_SLICE_GSO), U32_MAX);
	KUNIT_EXPECT_NE(test, ns_cfg(NETSLICE_SLICE_FIXED, 64, 0,
				     NETSLICE_SLICE_GSO | NETSLICE_SLICE_TRIM), U32_MAX);
	KUNIT_EXPECT_EQ(test, ns_cfg(NETSLICE_SLICE_OFF, 0, 0, NETSLICE_SLICE_GSO), U32_MAX);
	req.reserved[1] = 1;
	KUNIT_EXPECT_EQ(test, ns_slicing_from_user(&req, &cfg), -EINVAL);
}

static struct kunit_case ns_parse_test_cases[] = {
	KUNIT_CASE_PARAM(ns_parse_test, ns_parse_gen_params),
	KUNIT_CASE(ns_slice_len_test),
	KUNIT_CASE(ns_slicing_from_user_test),
	{}
};

static struct kunit_suite ns_parse_suite = {
	.name = "netslice_parse",
	.test_cases = ns_parse_test_cases,
};

kunit_test_suite(ns_parse_suite);
