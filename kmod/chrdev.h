/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_CHRDEV_H
#define _NETSLICE_CHRDEV_H

struct ns_slice;

int ns_chrdev_init(struct ns_slice *slices, unsigned int count);
void ns_chrdev_exit(void);

#endif /* _NETSLICE_CHRDEV_H */
