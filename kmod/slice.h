/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_SLICE_H
#define _NETSLICE_SLICE_H

#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/types.h>

/*
 * One slice: the unit of spatial partitioning. Slices share nothing; each
 * is reached through its own character device.
 */
struct ns_slice {
	unsigned int id;
	struct mutex lock;		/* protects kernel_cpus, user_cpus */
	cpumask_var_t kernel_cpus;
	cpumask_var_t user_cpus;
};

struct ns_slice *ns_slices_create(unsigned int count);
void ns_slices_destroy(struct ns_slice *slices, unsigned int count);

#endif /* _NETSLICE_SLICE_H */
