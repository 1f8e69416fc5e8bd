/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_IO_H
#define _NETSLICE_IO_H

#include <linux/fs.h>
#include <linux/poll.h>

ssize_t ns_read(struct file *file, char __user *buf, size_t count, loff_t *ppos);
ssize_t ns_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos);
__poll_t ns_poll(struct file *file, poll_table *wait);

struct netslice_iov;
struct ns_slice;
struct sk_buff;

size_t ns_batch_limit(const struct ns_slice *slice, size_t count, u32 multi_flag);

/* Where a packet read goes: a user buffer, or a kernel one (a ring frame). */
struct ns_read_dst {
	void __user *ubuf;
	void *kbuf;
};

/* ns_read_fill(): the packet became segments to deliver instead. */
#define NS_READ_SEGMENTED	1

int ns_read_fill(struct ns_slice *slice, struct file *file, struct sk_buff **skbp,
		 const struct ns_read_dst *dst, struct netslice_iov *iov);
void ns_read_count(struct ns_slice *slice, const struct netslice_iov *iov);
void ns_read_segment(struct ns_slice *slice, struct sk_buff **skbp);
/* Free a list (skb->next) of packets delivered whole. */
void ns_read_free(struct sk_buff *skb);

size_t ns_tx_ring(struct ns_slice *slice, struct file *file, struct netslice_iov *iovs,
		  size_t n, const void *frames, size_t frames_len, u16 *errs,
		  struct sk_buff **reuse);

#endif /* _NETSLICE_IO_H */
