// SPDX-License-Identifier: GPL-2.0
/*
 * The header parser of "auto" slicing: where the L4 header of a frame
 * ends. It runs in RX softirq on every packet of an auto-slicing slice and
 * reads only through skb_header_pointer(): it never reads past the packet,
 * never writes, and needs no linear copy of a paged skb.
 *
 * ICMP and ICMPv6 errors count as header through the end of the datagram,
 * so they are never sliced: the quoted packet is what a NAT translates.
 *
 * A header that is cut short or disagrees with the lengths around it
 * (an IP total length past the frame, a TCP data offset past the
 * datagram) makes the frame unparsable: it is then delivered whole, which
 * is always safe.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <kunit/visibility.h>

#include "parse.h"

#define NS_MAX_VLAN_TAGS	2	/* 802.1ad outer + 802.1Q inner */
#define NS_MAX_IPV6_EXTS	8

static bool ns_icmp_is_error(u8 type)
{
	return type == ICMP_DEST_UNREACH || type == ICMP_SOURCE_QUENCH ||
	       type == ICMP_REDIRECT || type == ICMP_TIME_EXCEEDED ||
	       type == ICMP_PARAMETERPROB;
}

static bool ns_icmpv6_is_error(u8 type)
{
	return type >= ICMPV6_DEST_UNREACH && type <= ICMPV6_PARAMPROB;
}

/* Past the L4 header at off (an ICMP error: past the datagram, at end). */
static unsigned int ns_parse_l4(const struct sk_buff *skb, unsigned int off,
				unsigned int end, u8 proto, struct ns_hdrs *h)
{
	struct tcphdr _th;
	const struct tcphdr *th;
	u8 _type;
	const u8 *type;

	h->l4_off = off;
	h->l4_proto = proto;

	switch (proto) {
	case IPPROTO_TCP:
		th = skb_header_pointer(skb, off, sizeof(_th), &_th);
		if (!th || th->doff < sizeof(_th) / 4)
			return 0;
		off += th->doff * 4;
		break;
	case IPPROTO_UDP:
		off += sizeof(struct udphdr);
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		/*
		 * An error's "header" is the whole message: what a NAT or a
		 * tunnel translates is the packet it quotes (RFC 5508), and
		 * errors are small (RFC 1812: at most 576 bytes).
		 */
		type = skb_header_pointer(skb, off, sizeof(_type), &_type);
		if (!type)
			return 0;
		if (proto == IPPROTO_ICMP ? ns_icmp_is_error(*type) : ns_icmpv6_is_error(*type))
			return end;
		off += proto == IPPROTO_ICMP ? sizeof(struct icmphdr) : sizeof(struct icmp6hdr);
		break;
	default:
		return 0;
	}
	return off <= end ? off : 0;
}

static unsigned int ns_parse_ipv4(const struct sk_buff *skb, unsigned int off,
				  struct ns_hdrs *h)
{
	struct iphdr _iph;
	const struct iphdr *iph;
	unsigned int hlen, tot;

	iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
	if (!iph || iph->version != 4 || iph->ihl < sizeof(_iph) / 4)
		return 0;
	hlen = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	if (tot < hlen || off + tot > skb->len)
		return 0;
	/* A non-first fragment carries no L4 header. */
	if (iph->frag_off & htons(IP_OFFSET))
		return off + hlen;
	return ns_parse_l4(skb, off + hlen, off + tot, iph->protocol, h);
}

static unsigned int ns_parse_ipv6(const struct sk_buff *skb, unsigned int off,
				  struct ns_hdrs *h)
{
	struct ipv6hdr _ip6h;
	const struct ipv6hdr *ip6h;
	struct frag_hdr _fh;
	const struct frag_hdr *fh;
	struct ipv6_opt_hdr _oh;
	const struct ipv6_opt_hdr *oh;
	unsigned int end, i;
	u8 nexthdr;

	ip6h = skb_header_pointer(skb, off, sizeof(_ip6h), &_ip6h);
	if (!ip6h || ip6h->version != 6)
		return 0;
	/* A zero payload length (jumbogram) is not for us. */
	end = off + sizeof(_ip6h) + ntohs(ip6h->payload_len);
	if (end == off + sizeof(_ip6h) || end > skb->len)
		return 0;
	nexthdr = ip6h->nexthdr;
	off += sizeof(_ip6h);

	for (i = 0; i < NS_MAX_IPV6_EXTS; i++) {
		switch (nexthdr) {
		case NEXTHDR_HOP:
		case NEXTHDR_ROUTING:
		case NEXTHDR_DEST:
		case NEXTHDR_AUTH:
			oh = skb_header_pointer(skb, off, sizeof(_oh), &_oh);
			if (!oh)
				return 0;
			off += nexthdr == NEXTHDR_AUTH ? ipv6_authlen(oh) : ipv6_optlen(oh);
			nexthdr = oh->nexthdr;
			break;
		case NEXTHDR_FRAGMENT:
			fh = skb_header_pointer(skb, off, sizeof(_fh), &_fh);
			if (!fh)
				return 0;
			off += sizeof(_fh);
			if (fh->frag_off & htons(IP6_OFFSET))
				return off <= end ? off : 0;
			nexthdr = fh->nexthdr;
			break;
		default:
			return ns_parse_l4(skb, off, end, nexthdr, h);
		}
		if (off > end)
			return 0;
	}
	return 0;
}

unsigned int ns_parse_headers(const struct sk_buff *skb, struct ns_hdrs *h)
{
	unsigned int off = offsetof(struct ethhdr, h_proto);
	unsigned int tags;
	__be16 _proto;
	const __be16 *proto;

	for (tags = 0;; tags++) {
		proto = skb_header_pointer(skb, off, sizeof(_proto), &_proto);
		if (!proto)
			return 0;
		off += sizeof(_proto);
		if (*proto != htons(ETH_P_8021Q) && *proto != htons(ETH_P_8021AD))
			break;
		if (tags == NS_MAX_VLAN_TAGS)
			return 0;
		off += sizeof(__be16);	/* the tag's TCI */
	}
	h->l3_off = off;
	h->l3_proto = *proto;
	h->l4_off = 0;
	switch (*proto) {
	case htons(ETH_P_IP):
		return ns_parse_ipv4(skb, off, h);
	case htons(ETH_P_IPV6):
		return ns_parse_ipv6(skb, off, h);
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ns_parse_headers);

unsigned int ns_parse_l4_end(const struct sk_buff *skb)
{
	struct ns_hdrs h;

	return ns_parse_headers(skb, &h);
}
EXPORT_SYMBOL_IF_KUNIT(ns_parse_l4_end);
