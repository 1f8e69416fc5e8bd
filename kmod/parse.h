/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_PARSE_H
#define _NETSLICE_PARSE_H

#include <linux/skbuff.h>

/* Offset just past the L4 header of the frame at skb->data, or 0. */
unsigned int ns_parse_l4_end(const struct sk_buff *skb);

#endif /* _NETSLICE_PARSE_H */
