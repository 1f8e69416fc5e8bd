/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_STATS_H
#define _NETSLICE_STATS_H

#include <linux/types.h>

#include <linux/netslice.h>

/* A slice's counters, summed over CPUs and its store (stats.c). */
struct ns_slice;

/* The counters of struct netslice_stats: all of it. */
#define NS_STATS_FIELDS	(sizeof(struct netslice_stats) / sizeof(__u64))

void ns_stats_read(struct ns_slice *slice, struct netslice_stats *out);
void ns_stats_reset(struct ns_slice *slice);

#endif /* _NETSLICE_STATS_H */
