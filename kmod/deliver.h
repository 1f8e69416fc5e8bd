/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_DELIVER_H
#define _NETSLICE_DELIVER_H

#include <linux/fs.h>
#include <linux/skbuff.h>

struct netslice_iov;
struct ns_slice;

/* Where a packet read goes: a user buffer, or a kernel one (a ring frame). */
struct ns_deliver_dst {
	void __user *ubuf;
	void *kbuf;
};

/* ns_deliver_fill(): the packet became segments to deliver instead. */
#define NS_DELIVER_SEGMENTED	1

int ns_deliver_fill(struct ns_slice *slice, struct file *file, struct sk_buff **skbp,
		    const struct ns_deliver_dst *dst, struct netslice_iov *iov);
void ns_deliver_count(struct ns_slice *slice, const struct netslice_iov *iov);
void ns_deliver_segment(struct ns_slice *slice, struct sk_buff **skbp);
/* Free a list (skb->next) of packets delivered whole. */
void ns_deliver_free(struct sk_buff *skb);

#endif /* _NETSLICE_DELIVER_H */
