/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_PARSE_H
#define _NETSLICE_PARSE_H

#include <linux/skbuff.h>

#include <linux/netslice_cut.h>

/* The shared cut reads a frame through skb_header_pointer(). */
static inline const __u8 *netslice_cut_read(const void *src, __u32 frame_len,
					    __u32 off, __u32 len, void *buf)
{
	return skb_header_pointer(src, off, len, buf);
}

/* Offset just past the L4 header of the frame at skb->data, or 0. */
unsigned int nsl_parse_l4_end(const struct sk_buff *skb);
/* The same, and where the headers before it are (in *h). */
unsigned int nsl_parse_headers(const struct sk_buff *skb, struct netslice_cut_hdrs *h);
/* netslice_cut_len() of the frame at skb->data: 0 for the whole frame. */
unsigned int nsl_parse_cut_len(const struct sk_buff *skb, u32 mode, u32 value);

#endif /* _NETSLICE_PARSE_H */
