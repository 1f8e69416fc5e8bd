/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RING_H
#define _NETSLICE_RING_H

#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/types.h>

#include "ring_types.h"

/* The ring of file, or NULL: the file's own calls keep it alive. */
struct nsl_ring *nsl_ring_of(struct file *file);

long nsl_ring_setup(struct file *file, void __user *uarg);
long nsl_ring_kick(struct nsl_ring *ring);
int nsl_ring_mmap(struct file *file, struct vm_area_struct *vma);
__poll_t nsl_ring_poll(struct nsl_ring *ring, struct file *file, poll_table *wait);
/* On close, before the file's parked payloads are freed. */
void nsl_ring_release(struct file *file);

/* The payloads a slice's ring holds, for its counters (stats.c). */
void nsl_ring_store_counts(struct nsl_slice *slice, u32 *used, u32 *high_water);
void nsl_ring_store_reset(struct nsl_slice *slice);
/* The slice's store timeout changed: the ring's payloads age by it now. */
void nsl_ring_store_timeout_set(struct nsl_slice *slice);

#endif /* _NETSLICE_RING_H */
