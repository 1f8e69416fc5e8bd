// SPDX-License-Identifier: GPL-2.0
/*
 * Rule hit counters, per CPU, in chunks: a rule takes a slot (an IDA
 * number) and counts in its chunk's per-CPU array. Chunks are made as
 * slots first reach them (the first stored wins a race) and kept until
 * the module goes: as many as the most rules ever alive at once needed.
 * A slot comes back when its rule is freed, after a grace period, so no
 * RX still counts on it when the next rule zeroes it. No lock of ours:
 * the IDA and the xarray lock themselves.
 */
#include <kunit/visibility.h>
#include <linux/idr.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "rule_hits.h"

static DEFINE_IDA(nsl_hit_slots);
static DEFINE_XARRAY(nsl_hit_chunks);	/* chunk index -> its per-CPU counters */

int nsl_rule_hits_get(struct nsl_rule_hits *hits)
{
	unsigned long index;
	u64 __percpu *chunk, *other;
	int slot, cpu;

	slot = ida_alloc(&nsl_hit_slots, GFP_KERNEL_ACCOUNT);
	if (slot < 0)
		return slot;
	index = (unsigned long)slot / NSL_HITS_PER_CHUNK;
	chunk = xa_load(&nsl_hit_chunks, index);
	if (!chunk) {
		chunk = __alloc_percpu_gfp(sizeof(u64) * NSL_HITS_PER_CHUNK, sizeof(u64),
					   GFP_KERNEL_ACCOUNT);
		if (!chunk)
			goto err_free_slot;
		other = xa_cmpxchg(&nsl_hit_chunks, index, NULL, chunk, GFP_KERNEL_ACCOUNT);
		if (xa_is_err(other))
			goto err_free_chunk;
		if (other) {
			free_percpu(chunk);
			chunk = other;
		}
	}
	hits->slot = slot;
	hits->count = chunk + slot % NSL_HITS_PER_CHUNK;
	/* The slot's last rule was freed a grace period ago: nothing counts on it. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(hits->count, cpu), 0, sizeof(u64));
	return 0;

err_free_chunk:
	free_percpu(chunk);
err_free_slot:
	ida_free(&nsl_hit_slots, slot);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_hits_get);

void nsl_rule_hits_put(struct nsl_rule_hits *hits)
{
	ida_free(&nsl_hit_slots, hits->slot);
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_hits_put);

u64 nsl_rule_hits_sum(const struct nsl_rule_hits *hits)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(hits->count, cpu);
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_hits_sum);

/* Every rule is freed (rcu_barrier() done): no slot is taken. */
void nsl_rule_hits_exit(void)
{
	u64 __percpu *chunk;
	unsigned long index;

	xa_for_each(&nsl_hit_chunks, index, chunk)
		free_percpu(chunk);
	xa_destroy(&nsl_hit_chunks);
	ida_destroy(&nsl_hit_slots);
}
