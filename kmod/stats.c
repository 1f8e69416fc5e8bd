// SPDX-License-Identifier: GPL-2.0
/* Summing a slice's per-CPU counters for NETSLICE_STATS_GET. */
#include <linux/build_bug.h>
#include <linux/lockdep.h>
#include <linux/string.h>

#include "counters.h"
#include "ring.h"
#include "slice.h"
#include "stats.h"

/* One index per field (libnetslice's build checks each field's place). */
static_assert(NSL_STAT_COUNT == NSL_STATS_FIELDS);

/* The gauges among the store's counters; a reset leaves them be. */
static bool nsl_stat_is_gauge(unsigned int i)
{
	return i == NSL_STORE_USED || i == NSL_STORE_HIGH_WATER;
}

/*
 * Counters only grow; a sum taken while packets flow is a consistent
 * lower bound of each (on 32-bit kernels a 64-bit counter may be read torn
 * while it is updated).
 */
static void nsl_stats_read_raw(struct nsl_slice *slice, struct netslice_stats *out)
{
	u64 *sum = (u64 *)out;
	unsigned int cpu, i;
	u32 used, high_water;

	lockdep_assert_held(&slice->lock);

	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		const struct nsl_stats *s = per_cpu_ptr(slice->stats, cpu);

		for (i = 0; i < NSL_STAT_COUNT; i++)
			sum[i] += READ_ONCE(s->v[i]);
	}

	/* The slice's store, and a ring's store if a file of the slice is in ring mode. */
	spin_lock_bh(&slice->store.lock);
	out->store_aged = slice->store.aged;
	out->store_closed = slice->store.closed;
	used = slice->store.used;
	high_water = slice->store.high_water;
	spin_unlock_bh(&slice->store.lock);
	nsl_ring_store_counts(slice, &used, &high_water);
	out->store_used = used;
	out->store_high_water = max(high_water, used);
	out->rx_purged = atomic64_read(&slice->rx_purged);
}

/*
 * Since the module loaded or the slice's last reset. The sums are taken
 * under the lock that orders resets, so a read never sees a base newer
 * than its sums (which would make a counter wrap below zero).
 */
void nsl_stats_read(struct nsl_slice *slice, struct netslice_stats *out)
{
	const u64 *base = (const u64 *)&slice->stats_base;
	u64 *v = (u64 *)out;
	unsigned int i;

	mutex_lock(&slice->lock);
	nsl_stats_read_raw(slice, out);
	for (i = 0; i < NSL_STATS_FIELDS; i++)
		if (!nsl_stat_is_gauge(i))
			v[i] -= base[i];
	mutex_unlock(&slice->lock);
}

/*
 * Counters are per CPU and written without locks, so a reset keeps the
 * current sums as a base that reads subtract; the high-water mark starts
 * again from what is parked now.
 */
void nsl_stats_reset(struct nsl_slice *slice)
{
	mutex_lock(&slice->lock);
	nsl_stats_read_raw(slice, &slice->stats_base);
	mutex_unlock(&slice->lock);

	spin_lock_bh(&slice->store.lock);
	slice->store.high_water = slice->store.used;
	spin_unlock_bh(&slice->store.lock);
	nsl_ring_store_reset(slice);
}
