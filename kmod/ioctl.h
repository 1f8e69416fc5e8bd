/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_IOCTL_H
#define _NETSLICE_IOCTL_H

struct file;

long nsl_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _NETSLICE_IOCTL_H */
