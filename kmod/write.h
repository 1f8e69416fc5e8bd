/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_WRITE_H
#define _NETSLICE_WRITE_H

#include <linux/fs.h>

struct netslice_iov;
struct nsl_rstore;
struct nsl_slice;
struct sk_buff;

/* write(2) of a file not in ring mode (chrdev.c dispatches). */
ssize_t nsl_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos);

/* Ring mode's TX: a kick's frames, sent as write(2) sends iovs. */
size_t nsl_tx_ring(struct nsl_slice *slice, struct file *file, struct nsl_rstore *rs,
		   struct netslice_iov *iovs, size_t n, const void *frames, size_t frames_len,
		   u16 *errs, struct sk_buff **reuse);

#endif /* _NETSLICE_WRITE_H */
