// SPDX-License-Identifier: GPL-2.0
/*
 * Rule hit counters, per CPU, in chunks: a rule takes a slot and counts
 * in its chunk's per-CPU array. Chunks are made as slots first reach them
 * and kept until the module goes: as many as the most rules ever alive at
 * once needed. A slot comes back when its rule is freed, after a grace
 * period (an RCU callback, so any context), by a bit in its chunk's free
 * map; the next rule zeroes it.
 *
 * Taking a slot is a bulk load's per-rule cost, so it is cheap: a slot
 * never used before while none is free (a counter under the lock), else
 * a set bit, looked for from the chunk the last one was found in. Giving
 * back takes no lock (set_bit, then the count of free slots).
 */
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "compat.h"
#include "rule_hits.h"

struct nsl_hit_chunk {
	u64 __percpu *count;
	DECLARE_BITMAP(free, NSL_HITS_PER_CHUNK);	/* slots given back */
};

static struct {
	struct mutex lock;	/* protects used, scan and the chunks' creation */
	u32 used;		/* slots ever handed out: 0 .. used - 1 */
	unsigned long scan;	/* the chunk the last search found a slot in */
	atomic_t nr_free;	/* bits set in the free maps, or fewer (set first) */
	struct xarray chunks;	/* chunk index -> struct nsl_hit_chunk */
} nsl_hits = {
	.lock = __MUTEX_INITIALIZER(nsl_hits.lock),
	.chunks = XARRAY_INIT(nsl_hits.chunks, 0),
};

/* A given-back slot of chunk c, claimed into *slot; false if none. */
static bool nsl_hits_claim(struct nsl_hit_chunk *c, unsigned long index, int *slot)
{
	unsigned int bit;

	for_each_set_bit(bit, c->free, NSL_HITS_PER_CHUNK)
		if (test_and_clear_bit(bit, c->free)) {
			atomic_dec(&nsl_hits.nr_free);
			nsl_hits.scan = index;
			*slot = (int)(index * NSL_HITS_PER_CHUNK + bit);
			return true;
		}
	return false;
}

/*
 * A given-back slot into *slot and its chunk, or NULL: from the chunk the
 * last claim found one in on, round to it again, so claiming a whole
 * table's slots back walks the chunks once.
 */
static struct nsl_hit_chunk *nsl_hits_reuse(int *slot)
{
	unsigned long index, start = nsl_hits.scan;
	struct nsl_hit_chunk *c;

	lockdep_assert_held(&nsl_hits.lock);
	if (!atomic_read(&nsl_hits.nr_free))
		return NULL;
	xa_for_each_start(&nsl_hits.chunks, index, c, start)
		if (nsl_hits_claim(c, index, slot))
			return c;
	xa_for_each_range(&nsl_hits.chunks, index, c, 0, start)
		if (nsl_hits_claim(c, index, slot))
			return c;
	return NULL;	/* the bits were not set yet: a new slot serves */
}

/* Slot's chunk, made if it is the first slot there. */
static struct nsl_hit_chunk *nsl_hits_chunk(u32 slot)
{
	unsigned long index = slot / NSL_HITS_PER_CHUNK;
	struct nsl_hit_chunk *c = xa_load(&nsl_hits.chunks, index);
	int err;

	lockdep_assert_held(&nsl_hits.lock);
	if (c)
		return c;
	c = kzalloc_obj(*c, GFP_KERNEL_ACCOUNT);
	if (!c)
		return NULL;
	c->count = __alloc_percpu_gfp(sizeof(u64) * NSL_HITS_PER_CHUNK, sizeof(u64),
				      GFP_KERNEL_ACCOUNT);
	if (!c->count)
		goto err_free_chunk;
	err = xa_err(xa_store(&nsl_hits.chunks, index, c, GFP_KERNEL_ACCOUNT));
	if (err)
		goto err_free_count;
	return c;

err_free_count:
	free_percpu(c->count);
err_free_chunk:
	kfree(c);
	return NULL;
}

int nsl_rule_hits_get(struct nsl_rule_hits *hits)
{
	struct nsl_hit_chunk *c;
	int slot, cpu;

	mutex_lock(&nsl_hits.lock);
	c = nsl_hits_reuse(&slot);
	if (!c) {
		if (nsl_hits.used == INT_MAX)
			goto err_unlock;
		c = nsl_hits_chunk(nsl_hits.used);
		if (!c)
			goto err_unlock;
		slot = (int)nsl_hits.used++;
	}
	mutex_unlock(&nsl_hits.lock);
	hits->slot = slot;
	hits->count = c->count + slot % NSL_HITS_PER_CHUNK;
	/* The slot's last rule was freed a grace period ago: nothing counts on it. */
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(hits->count, cpu), 0, sizeof(u64));
	return 0;

err_unlock:
	mutex_unlock(&nsl_hits.lock);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(nsl_rule_hits_get);

void nsl_rule_hits_put(struct nsl_rule_hits *hits)
{
	unsigned long index = hits->slot / NSL_HITS_PER_CHUNK;
	struct nsl_hit_chunk *c = xa_load(&nsl_hits.chunks, index);

	/* A taker that sees the count before the bit takes a new slot instead. */
	set_bit(hits->slot % NSL_HITS_PER_CHUNK, c->free);
	atomic_inc(&nsl_hits.nr_free);
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
	struct nsl_hit_chunk *c;
	unsigned long index;

	xa_for_each(&nsl_hits.chunks, index, c) {
		free_percpu(c->count);
		kfree(c);
	}
	xa_destroy(&nsl_hits.chunks);
	nsl_hits.used = 0;
	atomic_set(&nsl_hits.nr_free, 0);
}
