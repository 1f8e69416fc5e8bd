// SPDX-License-Identifier: GPL-2.0
/*
 * Slice objects and their default CPU placement.
 */
#include <linux/cpu.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include <linux/netslice.h>

#include "compat.h"
#include "counters.h"
#include "params.h"
#include "skb_cb.h"
#include "slice.h"
#include "cut.h"

/* The n-th online CPU, wrapping around the online set. */
static unsigned int nsl_nth_online_cpu(unsigned int n)
{
	unsigned int cpu;

	n %= num_online_cpus();
	for_each_online_cpu(cpu)
		if (n-- == 0)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

/*
 * Kernel side: one online CPU per slice, round robin. User side: its SMT
 * siblings, so NF and softirq share a core's caches without competing for
 * one hardware thread; without SMT, the CPU itself.
 */
static void nsl_slice_default_cpus(struct nsl_slice *slice)
{
	unsigned int cpu = nsl_nth_online_cpu(slice->id);

	cpumask_clear(slice->kernel_cpus);
	cpumask_set_cpu(cpu, slice->kernel_cpus);

	cpumask_and(slice->user_cpus, topology_sibling_cpumask(cpu), cpu_online_mask);
	if (cpumask_weight(slice->user_cpus) > 1)
		cpumask_clear_cpu(cpu, slice->user_cpus);
	else
		cpumask_copy(slice->user_cpus, slice->kernel_cpus);
}

bool nsl_cpus_valid(const struct cpumask *mask)
{
	return !cpumask_empty(mask) && cpumask_subset(mask, cpu_online_mask);
}

void nsl_slice_set_cpus(struct nsl_slice *slice, const struct cpumask *kernel_cpus,
			const struct cpumask *user_cpus)
{
	lockdep_assert_held(&slice->lock);
	if (kernel_cpus)
		cpumask_copy(slice->kernel_cpus, kernel_cpus);
	if (user_cpus)
		cpumask_copy(slice->user_cpus, user_cpus);
}

int nsl_slice_add_reader(struct nsl_slice *slice, struct file *file)
{
	struct nsl_file *nf = file->private_data;
	int err = 0;

	mutex_lock(&slice->lock);
	/* Under the lock ring setup holds: a setup sees this reader, or this sees slice->ring. */
	if (rcu_access_pointer(slice->ring)) {
		err = -EBUSY;
	} else if (!nf->reader) {
		WRITE_ONCE(nf->reader, true);
		WRITE_ONCE(slice->readers, slice->readers + 1);
	}
	mutex_unlock(&slice->lock);
	return err;
}

void nsl_slice_drop_reader(struct nsl_slice *slice, struct file *file)
{
	struct nsl_file *nf = file->private_data;

	/* Set only by this file's reads, which are over. */
	if (!nf->reader)
		return;
	mutex_lock(&slice->lock);
	WRITE_ONCE(slice->readers, slice->readers - 1);
	WRITE_ONCE(nf->reader, false);
	mutex_unlock(&slice->lock);
}

bool nsl_slice_other_readers(struct nsl_slice *slice, struct file *file)
{
	return READ_ONCE(slice->readers) > (nsl_file_is_reader(file) ? 1U : 0U);
}

void nsl_slice_set_batch(struct nsl_slice *slice, u32 rw_flags, u32 max_batch)
{
	lockdep_assert_held(&slice->lock);
	WRITE_ONCE(slice->rw_flags, rw_flags);
	WRITE_ONCE(slice->max_batch, max_batch);
}

void nsl_slice_set_cut(struct nsl_slice *slice, u32 cfg)
{
	lockdep_assert_held(&slice->lock);
	WRITE_ONCE(slice->cut, cfg);
}

/* The slice's cut, its store's size and timeout included. */
void nsl_slice_cut(struct nsl_slice *slice, struct netslice_cut *out)
{
	nsl_cut_to_user(READ_ONCE(slice->cut), out);
	nsl_store_limits(&slice->store, &out->store_size, &out->store_timeout_ms);
}

/*
 * ptr_ring_resize()'s destroy has no context: the packets of one resize,
 * and their count. It runs under the queue's consumer lock with hard IRQs
 * off, where an skb must not be freed (a page_pool page's return asserts
 * it is not in hard IRQ context, and a BH enable there could run NET_RX
 * into the producer lock this CPU holds): they are freed after.
 */
static DEFINE_MUTEX(nsl_resize_lock);	/* protects nsl_resize_dead, nsl_resize_dropped */
static struct sk_buff *nsl_resize_dead;
static unsigned int nsl_resize_dropped;

/* A packet a smaller rxq has no room for: kept for nsl_slice_rxq_resize_commit() to free. */
static void nsl_slice_resize_drop(void *ptr)
{
	struct sk_buff *skb = ptr;

	skb->next = nsl_resize_dead;
	nsl_resize_dead = skb;
	nsl_resize_dropped++;
}

int nsl_slice_rxq_resize_prepare(struct nsl_slice *slice, unsigned int size,
				 struct nsl_rxq_resize *rs)
{
	lockdep_assert_held(&slice->lock);
	memset(rs, 0, sizeof(*rs));
	if (size == slice->rxq_size)
		return 0;
	rs->rx_queue = nsl_ptr_ring_queue_alloc(size, GFP_KERNEL);
	rs->trim_queue = nsl_ptr_ring_queue_alloc(size, GFP_KERNEL);
	if (!rs->rx_queue || !rs->trim_queue) {
		nsl_slice_rxq_resize_abort(rs);
		return -ENOMEM;
	}
	rs->size = size;
	return 0;
}

void nsl_slice_rxq_resize_abort(struct nsl_rxq_resize *rs)
{
	kvfree(rs->rx_queue);
	kvfree(rs->trim_queue);
	memset(rs, 0, sizeof(*rs));
}

/* ptr_ring_resize() with the queue allocated ahead; returns the old queue. */
static void **nsl_ptr_ring_swap(struct ptr_ring *r, void **queue, unsigned int size)
{
	unsigned long flags;
	void **old;

	spin_lock_irqsave(&r->consumer_lock, flags);
	spin_lock(&r->producer_lock);
	old = __ptr_ring_swap_queue(r, queue, size, GFP_KERNEL, nsl_slice_resize_drop);
	spin_unlock(&r->producer_lock);
	spin_unlock_irqrestore(&r->consumer_lock, flags);
	return old;
}

/*
 * Resize the rxq (and the trimq with it) while packets flow: what
 * a smaller queue has no room for is freed and counted as purged.
 */
void nsl_slice_rxq_resize_commit(struct nsl_slice *slice, struct nsl_rxq_resize *rs)
{
	lockdep_assert_held(&slice->lock);
	if (!rs->rx_queue)
		return;
	/* Readers test the trimq without its lock, under read_lock. */
	mutex_lock(&slice->read_lock);
	mutex_lock(&nsl_resize_lock);
	nsl_resize_dropped = 0;
	rs->trim_queue = nsl_ptr_ring_swap(&slice->trimq, rs->trim_queue, rs->size);
	rs->rx_queue = nsl_ptr_ring_swap(&slice->rxq, rs->rx_queue, rs->size);
	WRITE_ONCE(slice->rxq_size, rs->size);
	atomic64_add(nsl_resize_dropped, &slice->rx_purged);
	/* IRQs on again: free as any consumer of rxq and trimq does. */
	local_bh_disable();
	kfree_skb_list(nsl_resize_dead);
	local_bh_enable();
	nsl_resize_dead = NULL;
	mutex_unlock(&nsl_resize_lock);
	mutex_unlock(&slice->read_lock);
	/* The old queues. */
	nsl_slice_rxq_resize_abort(rs);
}

/*
 * Free what a queue still holds, BHs off as every consumer of the queues
 * takes their lock (ring-mode RX consumes the trimq in softirq).
 */
static void nsl_ptr_ring_drain(struct ptr_ring *r)
{
	struct sk_buff *skb;

	while ((skb = ptr_ring_consume_bh(r)))
		kfree_skb(skb);
}

/*
 * Everything queued moves to the unread queue, which readers (and
 * ring mode's RX and kicks) drain first, so the packets kept stay in
 * the order they arrived in; those of port go. True when packets were
 * kept: readers are woken, and a ring-mode file's RX should be told
 * (nsl_ring_requeued()), which the caller does.
 * Readers hold read_lock only to take packets, never across a user copy,
 * so this waits for no user space (it runs under RTNL on detach).
 */
bool nsl_slice_purge(struct nsl_slice *slice, u32 port)
{
	struct sk_buff_head queued, dead;
	struct sk_buff *skb, *tmp;

	__skb_queue_head_init(&queued);
	__skb_queue_head_init(&dead);
	mutex_lock(&slice->read_lock);
	spin_lock_bh(&slice->unread.lock);
	skb_queue_splice_init(&slice->unread, &queued);
	spin_unlock_bh(&slice->unread.lock);
	while ((skb = ptr_ring_consume_bh(&slice->trimq)))
		__skb_queue_tail(&queued, skb);
	while ((skb = ptr_ring_consume_bh(&slice->rxq)))
		__skb_queue_tail(&queued, skb);
	skb_queue_walk_safe(&queued, skb, tmp) {
		if (port && nsl_rx_cb(skb)->port != port)
			continue;
		__skb_unlink(skb, &queued);
		__skb_queue_tail(&dead, skb);
	}
	spin_lock_bh(&slice->unread.lock);
	skb_queue_splice_tail(&queued, &slice->unread);
	spin_unlock_bh(&slice->unread.lock);
	mutex_unlock(&slice->read_lock);

	atomic64_add(skb_queue_len(&dead), &slice->rx_purged);
	__skb_queue_purge(&dead);
	if (skb_queue_empty_lockless(&slice->unread))
		return false;
	wake_up_interruptible_poll(&slice->wait, EPOLLIN | EPOLLRDNORM);
	return true;
}

static int nsl_slice_init(struct nsl_slice *slice, unsigned int id, unsigned int rxq_size)
{
	int err = -ENOMEM;

	slice->id = id;
	slice->next = NSL_CHAIN_NONE;
	slice->rxq_size = rxq_size;
	slice->rw_flags = NETSLICE_MULTI_READ | NETSLICE_MULTI_WRITE;
	slice->max_batch = NETSLICE_MAX_BATCH;
	if (!zalloc_cpumask_var(&slice->kernel_cpus, GFP_KERNEL))
		return -ENOMEM;
	if (!zalloc_cpumask_var(&slice->user_cpus, GFP_KERNEL))
		goto err_free_kernel_cpus;
	/* A failure is reported by the caller, naming the slice. */
	slice->stats = alloc_percpu_gfp(struct nsl_stats, GFP_KERNEL | __GFP_NOWARN);
	if (!slice->stats)
		goto err_free_user_cpus;
	err = ptr_ring_init(&slice->rxq, rxq_size, GFP_KERNEL | __GFP_NOWARN);
	if (err)
		goto err_free_stats;
	err = ptr_ring_init(&slice->trimq, rxq_size, GFP_KERNEL | __GFP_NOWARN);
	if (err)
		goto err_cleanup_rxq;
	err = nsl_store_init(&slice->store, id, nsl_store_size, nsl_store_timeout_ms);
	if (err)
		goto err_cleanup_trimq;
	skb_queue_head_init(&slice->unread);
	atomic64_set(&slice->rx_purged, 0);
	init_waitqueue_head(&slice->wait);
	mutex_init(&slice->read_lock);
	mutex_init(&slice->lock);
	atomic_set(&slice->open_files, 0);
	nsl_slice_default_cpus(slice);
	return 0;

err_cleanup_trimq:
	ptr_ring_cleanup(&slice->trimq, NULL);
err_cleanup_rxq:
	ptr_ring_cleanup(&slice->rxq, NULL);
err_free_stats:
	free_percpu(slice->stats);
err_free_user_cpus:
	free_cpumask_var(slice->user_cpus);
err_free_kernel_cpus:
	free_cpumask_var(slice->kernel_cpus);
	return err;
}

/* No RX handler and no file may reach the slice any more. */
static void nsl_slice_exit(struct nsl_slice *slice)
{
	mutex_destroy(&slice->lock);
	mutex_destroy(&slice->read_lock);
	nsl_store_destroy(&slice->store);
	skb_queue_purge(&slice->unread);
	nsl_ptr_ring_drain(&slice->trimq);
	ptr_ring_cleanup(&slice->trimq, NULL);
	nsl_ptr_ring_drain(&slice->rxq);
	ptr_ring_cleanup(&slice->rxq, NULL);
	free_percpu(slice->stats);
	free_cpumask_var(slice->user_cpus);
	free_cpumask_var(slice->kernel_cpus);
}

void nsl_slices_destroy(struct nsl_slice *slices, unsigned int count)
{
	while (count--)
		nsl_slice_exit(&slices[count]);
	kfree(slices);
}

struct nsl_slice *nsl_slices;

struct nsl_slice *nsl_slices_create(unsigned int count, unsigned int rxq_size)
{
	struct nsl_slice *slices;
	unsigned int i;
	int err;

	slices = kcalloc(count, sizeof(*slices), GFP_KERNEL);
	if (!slices)
		return ERR_PTR(-ENOMEM);

	cpus_read_lock();
	for (i = 0; i < count; i++) {
		err = nsl_slice_init(&slices[i], i, rxq_size);
		if (err)
			goto err_destroy_initialized;
	}
	cpus_read_unlock();
	return slices;

err_destroy_initialized:
	cpus_read_unlock();
	nsl_slices_destroy(slices, i);
	return ERR_PTR(err);
}
