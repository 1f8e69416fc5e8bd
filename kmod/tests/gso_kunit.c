// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: super-packets kept whole. Which are kept (TCP and UDP, not a
 * tunnel), and what writing one back checks and rebuilds: a header whose
 * protocol, header length or IP length changed is refused; a good one
 * gets its IPv4 checksum, its pseudo-header checksum and its segment
 * count; a narrower MTU cuts TCP segments and refuses UDP.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>

#include <linux/netslice.h>

#include "../compat.h"
#include "../gso.h"
#include "kunit_util.h"

nsl_kunit_import_ns();

#define NSL_GSO_PAYLOAD	900	/* three segments of 300 */
#define NSL_GSO_MSS	300

/* An IPv4 super-packet of proto (TCP or UDP) with NSL_GSO_PAYLOAD bytes. */
static struct sk_buff *nsl_gso_skb(struct kunit *test, u8 proto, unsigned int gso_type)
{
	unsigned int l4 = proto == IPPROTO_TCP ? sizeof(struct tcphdr) : sizeof(struct udphdr);
	unsigned int len = ETH_HLEN + sizeof(struct iphdr) + l4 + NSL_GSO_PAYLOAD;
	u8 *b = kunit_kzalloc(test, len, GFP_KERNEL);
	struct iphdr *iph = (void *)(b + ETH_HLEN);
	struct sk_buff *skb;

	KUNIT_ASSERT_NOT_NULL(test, b);
	((struct ethhdr *)b)->h_proto = htons(ETH_P_IP);
	iph->version = 4;
	iph->ihl = 5;
	iph->ttl = 64;
	iph->protocol = proto;
	iph->tot_len = htons(len - ETH_HLEN);
	iph->saddr = htonl(0x0a000001);
	iph->daddr = htonl(0x0a000002);
	if (proto == IPPROTO_TCP)
		((struct tcphdr *)(iph + 1))->doff = 5;
	else
		((struct udphdr *)(iph + 1))->len = htons(l4 + NSL_GSO_PAYLOAD);
	skb = nsl_test_skb(test, b, len, len);
	skb_shinfo(skb)->gso_type = gso_type;
	skb_shinfo(skb)->gso_size = NSL_GSO_MSS;
	skb_shinfo(skb)->gso_segs = NSL_GSO_PAYLOAD / NSL_GSO_MSS;
	return skb;
}

static void nsl_gso_keep_test(struct kunit *test)
{
	struct sk_buff *skb;

	skb = nsl_gso_skb(test, IPPROTO_TCP, SKB_GSO_TCPV4);
	KUNIT_EXPECT_EQ(test, nsl_gso_keep(skb), 40U);
	/* A type the headers do not carry, and a tunnel: segmented instead. */
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV6;
	KUNIT_EXPECT_EQ(test, nsl_gso_keep(skb), 0U);
	skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4 | SKB_GSO_GRE;
	KUNIT_EXPECT_EQ(test, nsl_gso_keep(skb), 0U);
	kfree_skb(skb);

	skb = nsl_gso_skb(test, IPPROTO_UDP, SKB_GSO_UDP_L4);
	KUNIT_EXPECT_EQ(test, nsl_gso_keep(skb), 28U);
	kfree_skb(skb);
}

static void nsl_gso_prepare_test(struct kunit *test)
{
	struct net_device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct sk_buff *skb;
	struct iphdr *iph;
	__sum16 pseudo;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->mtu = 1500;
	skb = nsl_gso_skb(test, IPPROTO_TCP, SKB_GSO_TCPV4);
	iph = (void *)(skb->data + ETH_HLEN);

	/* Refused, and fine again once put back. */
	iph->protocol = IPPROTO_UDP;
	KUNIT_EXPECT_EQ(test, nsl_gso_prepare(skb, dev, 40), NETSLICE_TXERR_GSO);
	iph->protocol = IPPROTO_TCP;
	iph->tot_len = htons(ntohs(iph->tot_len) - 1);
	KUNIT_EXPECT_EQ(test, nsl_gso_prepare(skb, dev, 40), NETSLICE_TXERR_GSO);
	iph->tot_len = htons(ntohs(iph->tot_len) + 1);
	KUNIT_EXPECT_EQ(test, nsl_gso_prepare(skb, dev, 44), NETSLICE_TXERR_GSO);

	/*
	 * A rewritten source address: checksums rebuilt, segments counted;
	 * what RX left of a tunnel (encapsulation, inner offsets, checksum
	 * level) cleared.
	 */
	iph->saddr = htonl(0x0a000063);
	iph->check = 0;
	skb->encapsulation = 1;
	skb->csum_level = 2;
	skb_set_inner_network_header(skb, 70);
	skb_set_inner_transport_header(skb, 90);
	KUNIT_ASSERT_EQ(test, nsl_gso_prepare(skb, dev, 40), 0);
	KUNIT_EXPECT_FALSE(test, skb->encapsulation);
	KUNIT_EXPECT_FALSE(test, skb->csum_level);
	KUNIT_EXPECT_EQ(test, skb_inner_network_offset(skb), ETH_HLEN);
	KUNIT_EXPECT_EQ(test, skb_inner_transport_offset(skb), ETH_HLEN + 20);
	iph = ip_hdr(skb);
	KUNIT_EXPECT_EQ(test, ip_fast_csum(iph, iph->ihl), (__sum16)0);
	pseudo = ~csum_tcpudp_magic(iph->saddr, iph->daddr, skb->len - skb_transport_offset(skb),
				    IPPROTO_TCP, 0);
	KUNIT_EXPECT_EQ(test, tcp_hdr(skb)->check, pseudo);
	KUNIT_EXPECT_TRUE(test, skb->ip_summed == CHECKSUM_PARTIAL);
	KUNIT_EXPECT_EQ(test, skb_checksum_start_offset(skb), ETH_HLEN + 20);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_segs, 3);

	/* An egress MTU of 240: TCP cut to 200-byte segments. */
	dev->mtu = 240;
	KUNIT_EXPECT_EQ(test, nsl_gso_prepare(skb, dev, 40), 0);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_size, 200);
	KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_segs, 5);
	kfree_skb(skb);

	/* UDP datagrams cannot be cut. */
	skb = nsl_gso_skb(test, IPPROTO_UDP, SKB_GSO_UDP_L4);
	KUNIT_EXPECT_EQ(test, nsl_gso_prepare(skb, dev, 28), NETSLICE_TXERR_LENGTH);
	dev->mtu = 1500;
	KUNIT_EXPECT_EQ(test, nsl_gso_prepare(skb, dev, 28), 0);
	kfree_skb(skb);
}

static struct kunit_case nsl_gso_test_cases[] = {
	KUNIT_CASE(nsl_gso_keep_test),
	KUNIT_CASE(nsl_gso_prepare_test),
	{}
};

static struct kunit_suite nsl_gso_suite = {
	.name = "netslice_gso",
	.test_cases = nsl_gso_test_cases,
};

kunit_test_suite(nsl_gso_suite);
