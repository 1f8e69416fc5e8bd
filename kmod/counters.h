/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_COUNTERS_H
#define _NETSLICE_COUNTERS_H

#include <linux/percpu.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include <linux/netslice.h>

/*
 * Per-slice counters, per CPU so that RX softirqs on several CPUs and
 * readers and writers never write a shared cache line: one index per
 * field of struct netslice_stats (NETSLICE_STATS_LIST), NSL_RX_PACKETS and
 * on. The few kept elsewhere (the store's, rx_purged) leave their per-CPU
 * words unused.
 */
enum nsl_stat {
#define NSL_STAT_INDEX(NAME, ...)	NSL_##NAME,
	NETSLICE_STATS_LIST(NSL_STAT_INDEX)
#undef NSL_STAT_INDEX
	NSL_STAT_COUNT
};

struct nsl_stats {
	u64 v[NSL_STAT_COUNT];
};

/* Safe in any context: this_cpu_add() needs no preemption control. */
#define nsl_stat_add(slice, idx, n)	this_cpu_add((slice)->stats->v[idx], n)
#define nsl_stat_inc(slice, idx)		nsl_stat_add(slice, idx, 1)

#endif /* _NETSLICE_COUNTERS_H */
