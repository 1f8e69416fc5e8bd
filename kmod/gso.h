/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_GSO_H
#define _NETSLICE_GSO_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "txerr.h"

unsigned int nsl_gso_keep(struct sk_buff *skb);
struct sk_buff *nsl_gso_segment(struct sk_buff *skb);
unsigned int nsl_gso_from_tcp(struct sk_buff *skb);
enum nsl_txerr nsl_gso_prepare(struct sk_buff *skb, const struct net_device *dev,
			       unsigned int hdr_len);
void nsl_gso_flags(const struct sk_buff *skb, u16 *flags, u16 *size, u16 *segs);

#endif /* _NETSLICE_GSO_H */
