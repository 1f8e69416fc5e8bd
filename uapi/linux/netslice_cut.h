/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Where a cut mode cuts a frame: the layout of what the cut's parser
 * reports and the protocol constants it works by. The parser itself is
 * not part of the uapi: it is one C source (kmod/cut_parser.c) built into
 * the module and into the user space that must cut as the module does
 * (the NFs' offline mode).
 *
 * The "auto" cut is just past the L4 header (TCP, UDP, ICMP, ICMPv6),
 * behind up to NETSLICE_CUT_MAX_TAGS VLAN tags and up to
 * NETSLICE_CUT_MAX_EXTS IPv6 extension headers; an unparsable frame is
 * never cut. The semantics of the modes themselves are documented with
 * struct netslice_cut in <linux/netslice.h>.
 */
#ifndef _UAPI_LINUX_NETSLICE_CUT_H
#define _UAPI_LINUX_NETSLICE_CUT_H

#include <linux/types.h>
#include <linux/netslice.h>

/* Where the headers before the cut are, as parsed. */
struct netslice_cut_hdrs {
	__u32 l3_off;	/* the IP header, past any VLAN tags */
	__u32 l4_off;	/* the L4 header; 0: none reached */
	__u16 l3_proto;	/* the EtherType there, host order */
	__u8 l4_proto;	/* when l4_off is set */
	__u8 pad;
};

#define NETSLICE_CUT_ETH_IP	0x0800
#define NETSLICE_CUT_ETH_IPV6	0x86dd
#define NETSLICE_CUT_ETH_8021Q	0x8100
#define NETSLICE_CUT_ETH_8021AD	0x88a8
#define NETSLICE_CUT_MAX_TAGS	2	/* 802.1ad outer + 802.1Q inner */
#define NETSLICE_CUT_MAX_EXTS	8	/* IPv6 extension headers */

#endif /* _UAPI_LINUX_NETSLICE_CUT_H */
