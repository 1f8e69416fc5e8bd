/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_PARSE_H
#define _NETSLICE_PARSE_H

#include <linux/skbuff.h>

/* Where the headers of the frame at skb->data are, as parsed. */
struct ns_hdrs {
	unsigned int l3_off;	/* the IP header, past any VLAN tags */
	unsigned int l4_off;	/* the L4 header (0: none reached) */
	__be16 l3_proto;	/* ETH_P_IP or ETH_P_IPV6 (when parsed) */
	u8 l4_proto;
};

/* Offset just past the L4 header of the frame at skb->data, or 0. */
unsigned int ns_parse_l4_end(const struct sk_buff *skb);
/* The same, and where the headers before it are (in *h). */
unsigned int ns_parse_headers(const struct sk_buff *skb, struct ns_hdrs *h);

#endif /* _NETSLICE_PARSE_H */
