/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_STATS_H
#define _NETSLICE_STATS_H

#include <linux/types.h>

#include <linux/netslice.h>

/* A slice's counters, summed over CPUs and its store (stats.c). */
struct nsl_slice;

/* The counters of struct netslice_stats: all of it. */
#define NSL_STATS_FIELDS	(sizeof(struct netslice_stats) / sizeof(__u64))

void nsl_stats_read(struct nsl_slice *slice, struct netslice_stats *out);
void nsl_stats_reset(struct nsl_slice *slice);

#endif /* _NETSLICE_STATS_H */
