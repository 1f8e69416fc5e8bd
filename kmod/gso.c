// SPDX-License-Identifier: GPL-2.0
/*
 * Super-packets (GSO/GRO skbs): segmenting them for readers that get
 * wire-size packets, and, on a slice with NETSLICE_CUT_GSO, keeping a
 * TCP or UDP one whole so that its reader sees one header for it and the
 * egress segments it (TSO, or software GSO in nsl_xmit_burst()) only as it
 * leaves. A kept super-packet's header comes back from user space, so
 * before it is sent everything segmentation relies on is checked or
 * rebuilt here: the protocols and header lengths it was received with,
 * the length fields, the header offsets, the IPv4 header checksum and the
 * L4 pseudo-header checksum, and a segment size that fits the egress.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <kunit/visibility.h>

#include <linux/netslice.h>

#include "compat.h"
#include "cut.h"
#include "gso.h"

/* One of these: what a kept super-packet may be. */
#define NSL_GSO_TYPES	(SKB_GSO_TCPV4 | SKB_GSO_TCPV6 | SKB_GSO_UDP_L4)
/* And these beside it; any other bit (a tunnel, SCTP) is segmented on RX. */
#define NSL_GSO_KEPT	(NSL_GSO_TYPES | SKB_GSO_TCP_ECN | SKB_GSO_TCP_FIXEDID | SKB_GSO_DODGY)

/* Do the parsed headers carry what the GSO type says they do? */
static bool nsl_gso_matches(unsigned int type, const struct netslice_cut_hdrs *h)
{
	if (type & SKB_GSO_UDP_L4)
		return h->l4_proto == IPPROTO_UDP;
	if (h->l4_proto != IPPROTO_TCP)
		return false;
	return h->l3_proto == (type & SKB_GSO_TCPV4 ? ETH_P_IP : ETH_P_IPV6);
}

/*
 * RX: the bytes from the IP header to the payload of a super-packet a
 * slice may keep whole, or 0 if it must be segmented. A count of
 * segments left to the segmenter (an untrusted, "dodgy" source's) is
 * filled in, as segmentation would.
 */
unsigned int nsl_gso_keep(struct sk_buff *skb)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	unsigned int type = shinfo->gso_type, end;
	struct netslice_cut_hdrs h;

	if (type & ~NSL_GSO_KEPT || hweight32(type & NSL_GSO_TYPES) != 1 || !shinfo->gso_size)
		return 0;
	end = nsl_cut_headers(skb, &h);
	if (!end || !h.l4_off || !nsl_gso_matches(type, &h) || end >= skb->len)
		return 0;
	if (!shinfo->gso_segs)
		shinfo->gso_segs = DIV_ROUND_UP(skb->len - end, shinfo->gso_size);
	return end - h.l3_off;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_gso_keep);

/* What read reports of a kept super-packet: its iov flags, size, segments. */
void nsl_gso_flags(const struct sk_buff *skb, u16 *flags, u16 *size, u16 *segs)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);

	*flags |= NETSLICE_RX_GSO;
	if (shinfo->gso_type & SKB_GSO_TCPV4)
		*flags |= NETSLICE_RX_GSO_TCPV4;
	if (shinfo->gso_type & SKB_GSO_TCPV6)
		*flags |= NETSLICE_RX_GSO_TCPV6;
	if (shinfo->gso_type & SKB_GSO_UDP_L4)
		*flags |= NETSLICE_RX_GSO_UDP_L4;
	if (shinfo->gso_type & SKB_GSO_TCP_ECN)
		*flags |= NETSLICE_RX_GSO_ECN;
	*size = shinfo->gso_size;
	*segs = shinfo->gso_segs;
}

/*
 * Segment a super-packet built on receive (GRO, LRO/RSC, a tap writer's
 * GSO frame) with the receive-path segmentation: the wire-size segments,
 * each with fresh checksums (TCP segmentation recomputes every
 * segment's), linked by skb->next, and skb consumed; or NULL, skb still
 * the caller's. A super-packet with no checksum state at all (a tap
 * writer that set no NEEDS_CSUM) is marked as verified first:
 * segmentation recomputes its checksums all the same, and the core would
 * otherwise take it for a transmit-path bug and warn.
 */
struct sk_buff *nsl_gso_segment(struct sk_buff *skb)
{
	struct sk_buff *segs;

	/*
	 * Unless the checksum is partial, segmentation first rewrites the L4
	 * checksum field of the head, which a packet tap's clone may share.
	 */
	if (skb->ip_summed != CHECKSUM_PARTIAL && skb_cow_head(skb, 0))
		return NULL;
	if (skb->ip_summed == CHECKSUM_NONE)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	segs = __skb_gso_segment(skb, 0, false);
	if (IS_ERR_OR_NULL(segs))
		return NULL;
	consume_skb(skb);
	return segs;
}

/*
 * A TCP packet too long for its egress made a super-packet of one
 * segment, which nsl_gso_prepare() then cuts to the egress MTU (a path
 * narrower than the sender's, where an L2 NF has no ICMP to send back).
 * Returns its IP-to-payload length, or 0 if it is not TCP.
 */
unsigned int nsl_gso_from_tcp(struct sk_buff *skb)
{
	struct skb_shared_info *shinfo;
	unsigned int end;
	struct netslice_cut_hdrs h;

	end = nsl_cut_headers(skb, &h);
	if (!end || h.l4_proto != IPPROTO_TCP || end >= skb->len ||
	    skb_unclone(skb, GFP_KERNEL))
		return 0;
	shinfo = skb_shinfo(skb);
	shinfo->gso_type = h.l3_proto == ETH_P_IP ? SKB_GSO_TCPV4 : SKB_GSO_TCPV6;
	shinfo->gso_size = min_t(unsigned int, skb->len - end, U16_MAX);
	shinfo->gso_segs = 1;
	return end - h.l3_off;
}

/* The IP length fields of the parsed headers say what skb holds. */
static bool nsl_gso_lengths_ok(const struct sk_buff *skb, const struct netslice_cut_hdrs *h)
{
	unsigned int l3_len = skb->len - h->l3_off;
	const struct udphdr *uh;

	if (h->l3_proto == ETH_P_IP) {
		if (ntohs(ip_hdr(skb)->tot_len) != l3_len)
			return false;
	} else if (ntohs(ipv6_hdr(skb)->payload_len) != l3_len - sizeof(struct ipv6hdr)) {
		return false;
	}
	if (h->l4_proto != IPPROTO_UDP)
		return true;
	uh = udp_hdr(skb);
	return ntohs(uh->len) == skb->len - h->l4_off;
}

/*
 * Make a kept super-packet, its header as a writer left it at skb->data,
 * ready to send out of dev (or up its stack; NULL: to a chain's next slice,
 * whose writer fits it to its egress). hdr_len is its IP-to-payload
 * length as received (nsl_gso_keep()). Returns 0 or NSL_TXERR_GSO (not
 * segmentable as it is), NSL_TXERR_LENGTH (its segments do not fit dev
 * and cannot be made smaller) or NSL_TXERR_NOMEM; skb may
 * have been changed either way, and the same call on it again redoes it
 * all.
 */
enum nsl_txerr nsl_gso_prepare(struct sk_buff *skb, const struct net_device *dev,
			       unsigned int hdr_len)
{
	struct skb_shared_info *shinfo;
	unsigned int end, l4_len, mss;
	struct netslice_cut_hdrs h;
	__sum16 pseudo;

	end = nsl_cut_headers(skb, &h);
	if (!end || !h.l4_off || !nsl_gso_matches(skb_shinfo(skb)->gso_type, &h) ||
	    end - h.l3_off != hdr_len)
		return NSL_TXERR_GSO;
	/* Its headers and GSO state are changed below: no clone (a tap's) may share them. */
	if (skb_unclone(skb, GFP_KERNEL) || skb_ensure_writable(skb, end))
		return NSL_TXERR_NOMEM;
	/* Only now: a new head comes with a new shinfo. */
	shinfo = skb_shinfo(skb);
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, h.l3_off);
	skb_set_transport_header(skb, h.l4_off);
	skb->mac_len = h.l3_off;
	/*
	 * A kept type is never a tunnel, whatever RX left here (a driver's
	 * encapsulation offload, its checksum level): segmentation must not
	 * follow stale inner offsets.
	 */
	skb->encapsulation = 0;
	skb->csum_level = 0;
	skb_reset_inner_headers(skb);
	/* The outermost type: segmentation walks any VLAN tags from there. */
	skb->protocol = eth_hdr(skb)->h_proto;
	if (!nsl_gso_lengths_ok(skb, &h))
		return NSL_TXERR_GSO;

	/* The egress computes each segment's L4 checksum from the pseudo-header sum. */
	l4_len = skb->len - h.l4_off;
	if (h.l3_proto == ETH_P_IP) {
		struct iphdr *iph = ip_hdr(skb);

		ip_send_check(iph);
		pseudo = ~csum_tcpudp_magic(iph->saddr, iph->daddr, l4_len, h.l4_proto, 0);
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(skb);

		pseudo = ~csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr, l4_len, h.l4_proto, 0);
	}
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	if (h.l4_proto == IPPROTO_TCP) {
		skb->csum_offset = offsetof(struct tcphdr, check);
		tcp_hdr(skb)->check = pseudo;
	} else {
		skb->csum_offset = offsetof(struct udphdr, check);
		udp_hdr(skb)->check = pseudo;
	}

	/* A smaller MTU on the way: TCP may be cut anywhere, UDP may not. */
	mss = shinfo->gso_size;
	if (dev && hdr_len + mss > dev->mtu) {
		if (shinfo->gso_type & SKB_GSO_UDP_L4 || dev->mtu <= hdr_len)
			return NSL_TXERR_LENGTH;
		mss = dev->mtu - hdr_len;
		shinfo->gso_size = mss;
	}
	shinfo->gso_segs = DIV_ROUND_UP(skb->len - end, mss);
	return NSL_TXERR_NONE;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_gso_prepare);
