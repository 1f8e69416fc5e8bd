/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_COUNTERS_H
#define _NETSLICE_COUNTERS_H

#include <linux/percpu.h>
#include <linux/stddef.h>
#include <linux/types.h>

#include <linux/netslice.h>

/*
 * Per-slice counters, per CPU so that RX softirqs on several CPUs and
 * readers and writers never write a shared cache line. The indices follow
 * the fields of struct netslice_stats, which is all __u64; the few fields
 * kept elsewhere leave their per-CPU words unused.
 */
enum ns_stat {
	NS_RX_PACKETS,
	NS_RX_BYTES,
	NS_RX_DROP_RING_FULL,
	NS_RX_DROP_NO_READER,
	NS_RX_DROP_ERROR,
	NS_RX_SEGMENTS,
	NS_RX_OFF_CPU,
	NS_RX_TRIMMED,
	NS_READ_PACKETS,
	NS_READ_BYTES,
	NS_READ_TRUNCATED,
	NS_READ_SLICED,
	NS_READ_WHOLE,
	NS_READ_STORE_FULL,
	NS_WRITE_BYTES,
	NS_TX_PACKETS,
	NS_TX_BYTES,
	NS_TX_HOST,
	NS_TX_NF_DROP,
	NS_TX_BUSY,
	NS_TX_SPLICED,
	NS_TX_ERR_INVALID,	/* followed by one per NETSLICE_TXERR_* in order */
	NS_TX_ERR_LENGTH,
	NS_TX_ERR_IFINDEX,
	NS_TX_ERR_FAULT,
	NS_TX_ERR_NOMEM,
	NS_TX_ERR_DOWN,
	NS_TX_ERR_STALE,
	NS_TX_ERR_FOREIGN,
	NS_TX_ERR_FORGED,
	/* Not here: store_aged .. rx_purged, the store's own and rx_purged. */
	NS_TX_ERR_DROPPED = offsetof(struct netslice_stats, tx_err_dropped) / sizeof(__u64),
	NS_RX_GSO_PACKETS,
	NS_RX_GSO_SEGMENTS,
	NS_TX_GSO,
	NS_TX_ERR_GSO,
	NS_STAT_COUNT
};

struct ns_stats {
	u64 v[NS_STAT_COUNT];
};

/* Safe in any context: this_cpu_add() needs no preemption control. */
#define ns_stat_add(slice, idx, n)	this_cpu_add((slice)->stats->v[idx], n)
#define ns_stat_inc(slice, idx)		ns_stat_add(slice, idx, 1)

#endif /* _NETSLICE_COUNTERS_H */
