/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_CHRDEV_H
#define _NETSLICE_CHRDEV_H

struct nsl_slice;

int nsl_chrdev_init(struct nsl_slice *slices, unsigned int count);
void nsl_chrdev_exit(void);

#endif /* _NETSLICE_CHRDEV_H */
