/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_READ_H
#define _NETSLICE_READ_H

#include <linux/fs.h>
#include <linux/poll.h>

/* read(2) and poll(2) of a file not in ring mode (chrdev.c dispatches). */
ssize_t nsl_read(struct file *file, char __user *buf, size_t count, loff_t *ppos);
__poll_t nsl_poll(struct file *file, poll_table *wait);

#endif /* _NETSLICE_READ_H */
