/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_SPLICE_H
#define _NETSLICE_SPLICE_H

#include <linux/skbuff.h>

int nsl_splice_front(struct sk_buff *skb, unsigned int off, unsigned int hlen);

#endif /* _NETSLICE_SPLICE_H */
