// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * The cut's parser: where a frame's headers end. One source, built into
 * the module (its RX path, once per packet of a slice with a cut) and into
 * user space (the NFs' offline mode, the host tests), so the two cannot
 * cut differently. It depends only on the uapi's types and constants.
 *
 * The parser is pure and works on bytes at offsets: it needs no protocol
 * structs of either side. It reads the frame only through
 * netslice_cut_read(): in the module src is an skb, read with
 * skb_header_pointer(), which reads a paged frame without linearising it;
 * in user space src is the frame's bytes, read after a bounds check. A
 * read never reaches past the frame, and the parser never writes it.
 *
 * The "auto" cut is just past the L4 header (TCP, UDP, ICMP, ICMPv6),
 * behind up to two VLAN tags and up to eight IPv6 extension headers:
 *
 * - a first IP fragment is cut after its L4 header, a later one after its
 *   IP header (IPv6: after the fragment header);
 * - an ICMP or ICMPv6 error counts as header through the end of its
 *   datagram, so it is never cut: the packet it quotes is what a NAT
 *   translates (RFC 5508);
 * - a header that is cut short or disagrees with the lengths around it
 *   (an IP total length past the frame, a TCP data offset past the
 *   datagram), an IPv6 jumbogram and any other protocol make the frame
 *   unparsable, and an unparsable frame is never cut.
 */
#ifdef __KERNEL__
#include <linux/skbuff.h>
#include <kunit/visibility.h>
#else
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

#include "cut_parser.h"

/*
 * A pointer to the len bytes at off of the frame src, of frame_len bytes
 * in all, copied into buf (len bytes) when they are not contiguous; NULL
 * when off + len passes the frame's end.
 */
static inline const __u8 *netslice_cut_read(const void *src, __u32 frame_len, __u32 off,
					    __u32 len, void *buf)
{
#ifdef __KERNEL__
	return skb_header_pointer(src, off, len, buf);
#else
	(void)buf;
	if (off > frame_len || len > frame_len - off)
		return (const __u8 *)0;
	return (const __u8 *)src + off;
#endif
}

static inline __u32 netslice_cut_be16(const __u8 *p)
{
	return (__u32)p[0] << 8 | p[1];
}

/*
 * ICMP: unreachable, source quench, redirect, time exceeded, parameter
 * problem. ICMPv6: unreachable, too big, time exceeded, parameter problem.
 */
static inline int netslice_cut_icmp_error(__u8 proto, __u8 type)
{
	if (proto == 1)
		return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
	return type >= 1 && type <= 4;
}

/* Past the L4 header at off, or 0; an ICMP error ends at end. */
static inline __u32 netslice_cut_l4(const void *src, __u32 frame_len, __u32 off, __u32 end,
				    __u8 proto, struct netslice_cut_hdrs *h)
{
	__u8 buf[20];
	const __u8 *p;

	h->l4_off = off;
	h->l4_proto = proto;
	switch (proto) {
	case 6:		/* TCP: the data offset, in 32-bit words */
		p = netslice_cut_read(src, frame_len, off, 20, buf);
		if (!p || p[12] >> 4 < 5)
			return 0;
		off += (p[12] >> 4) * 4;
		break;
	case 17:	/* UDP */
		off += 8;
		break;
	case 1:		/* ICMP */
	case 58:	/* ICMPv6 */
		p = netslice_cut_read(src, frame_len, off, 1, buf);
		if (!p)
			return 0;
		if (netslice_cut_icmp_error(proto, p[0]))
			return end;
		off += 8;
		break;
	default:
		return 0;
	}
	return off <= end ? off : 0;
}

static inline __u32 netslice_cut_ipv4(const void *src, __u32 frame_len, __u32 off,
				      struct netslice_cut_hdrs *h)
{
	__u8 buf[20];
	const __u8 *p;
	__u32 hlen, tot;

	p = netslice_cut_read(src, frame_len, off, 20, buf);
	if (!p || p[0] >> 4 != 4 || (p[0] & 0xf) < 5)
		return 0;
	hlen = (p[0] & 0xf) * 4;
	tot = netslice_cut_be16(p + 2);
	if (tot < hlen || tot > frame_len - off)
		return 0;
	/* A later fragment (a non-zero offset) carries no L4 header. */
	if (netslice_cut_be16(p + 6) & 0x1fff)
		return off + hlen;
	return netslice_cut_l4(src, frame_len, off + hlen, off + tot, p[9], h);
}

static inline __u32 netslice_cut_ipv6(const void *src, __u32 frame_len, __u32 off,
				      struct netslice_cut_hdrs *h)
{
	__u8 buf[40];
	const __u8 *p;
	__u32 end, i;
	__u8 nexthdr;

	p = netslice_cut_read(src, frame_len, off, 40, buf);
	if (!p || p[0] >> 4 != 6)
		return 0;
	/* A zero payload length (a jumbogram) is not for us. */
	end = netslice_cut_be16(p + 4);
	if (!end || end > frame_len - off - 40)
		return 0;
	end += off + 40;
	nexthdr = p[6];
	off += 40;

	for (i = 0; i < NETSLICE_CUT_MAX_EXTS; i++) {
		switch (nexthdr) {
		case 0:		/* hop-by-hop options */
		case 43:	/* routing */
		case 60:	/* destination options */
		case 51:	/* authentication: its length is in 32-bit words */
			p = netslice_cut_read(src, frame_len, off, 2, buf);
			if (!p)
				return 0;
			off += nexthdr == 51 ? (p[1] + 2) * 4 : (p[1] + 1) * 8;
			nexthdr = p[0];
			break;
		case 44:	/* fragment */
			p = netslice_cut_read(src, frame_len, off, 8, buf);
			if (!p)
				return 0;
			off += 8;
			if (netslice_cut_be16(p + 2) & 0xfff8)
				return off <= end ? off : 0;
			nexthdr = p[0];
			break;
		default:
			return netslice_cut_l4(src, frame_len, off, end, nexthdr, h);
		}
		if (off > end)
			return 0;
	}
	return 0;
}

__u32 netslice_cut_auto(const void *src, __u32 frame_len, struct netslice_cut_hdrs *h)
{
	__u32 off = 12;	/* the EtherType, past the two addresses */
	__u32 tags, proto;
	__u8 buf[2];
	const __u8 *p;

	h->l4_off = 0;
	h->l4_proto = 0;
	h->pad = 0;
	for (tags = 0;; tags++) {
		p = netslice_cut_read(src, frame_len, off, 2, buf);
		if (!p)
			return 0;
		off += 2;
		proto = netslice_cut_be16(p);
		if (proto != NETSLICE_CUT_ETH_8021Q && proto != NETSLICE_CUT_ETH_8021AD)
			break;
		if (tags == NETSLICE_CUT_MAX_TAGS)
			return 0;
		off += 2;	/* the tag's TCI */
	}
	h->l3_off = off;
	h->l3_proto = proto;
	switch (proto) {
	case NETSLICE_CUT_ETH_IP:
		return netslice_cut_ipv4(src, frame_len, off, h);
	case NETSLICE_CUT_ETH_IPV6:
		return netslice_cut_ipv6(src, frame_len, off, h);
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(netslice_cut_auto);

__u32 netslice_cut_len(const void *src, __u32 frame_len, __u32 mode, __u32 value)
{
	struct netslice_cut_hdrs h;
	__u32 cut;

	switch (mode) {
	case NETSLICE_CUT_FIXED:
		cut = value;
		break;
	case NETSLICE_CUT_AUTO:
		cut = netslice_cut_auto(src, frame_len, &h);
		if (!cut)
			return 0;
		cut += value;
		break;
	default:
		return 0;
	}
	return cut <= NETSLICE_MAX_HEADER && cut + NETSLICE_MIN_PARK <= frame_len ? cut : 0;
}
EXPORT_SYMBOL_IF_KUNIT(netslice_cut_len);
