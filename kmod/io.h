/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_IO_H
#define _NETSLICE_IO_H

#include <linux/fs.h>
#include <linux/poll.h>

ssize_t ns_read(struct file *file, char __user *buf, size_t count, loff_t *ppos);
ssize_t ns_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos);
__poll_t ns_poll(struct file *file, poll_table *wait);

struct ns_slice;
size_t ns_batch_limit(const struct ns_slice *slice, size_t count, u32 multi_flag);

#endif /* _NETSLICE_IO_H */
