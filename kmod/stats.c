// SPDX-License-Identifier: GPL-2.0
/* Summing a slice's per-CPU counters for NETSLICE_STATS_GET. */
#include <linux/build_bug.h>
#include <linux/string.h>

#include "slice.h"
#include "stats.h"

static_assert(offsetof(struct netslice_stats, tx_err_forged) == NS_TX_ERR_FORGED * sizeof(u64));
static_assert(offsetof(struct netslice_stats, store_aged) == NS_STAT_COUNT * sizeof(u64));
static_assert(NS_TX_ERR_FORGED - NS_TX_ERR_INVALID ==
	      NETSLICE_TXERR_FORGED - NETSLICE_TXERR_INVALID);

/*
 * Counters only grow; a sum taken while packets flow is a consistent
 * lower bound of each (on 32-bit kernels a 64-bit counter may be read torn
 * while it is updated).
 */
void ns_stats_read(struct ns_slice *slice, struct netslice_stats *out)
{
	u64 *sum = (u64 *)out;
	unsigned int cpu, i;

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct ns_stats *s = per_cpu_ptr(slice->stats, cpu);

		for (i = 0; i < NS_STAT_COUNT; i++)
			sum[i] += READ_ONCE(s->v[i]);
	}

	spin_lock(&slice->store.lock);
	out->store_aged = slice->store.aged;
	out->store_closed = slice->store.closed;
	out->store_used = slice->store.used;
	out->store_high_water = slice->store.high_water;
	spin_unlock(&slice->store.lock);
}
