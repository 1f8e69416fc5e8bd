// SPDX-License-Identifier: GPL-2.0
/*
 * Ring mode: a file exchanges packets with the kernel through a frame area
 * and three rings of descriptors mapped into the process (the layout and
 * the memory-ordering rules are in uapi/linux/netslice.h).
 *
 * Contexts and locks:
 *   RX softirq (nsl_ring_rx()): copies each packet (or its cut, parking
 *   the rest) into the frame of the next RX entry and keeps the skb for
 *   that entry (rx_skb[], which RX and kicks pass with xchg()), under
 *   rx_lock, which a kick also takes (BHs off) to move trimmed records in.
 *   Kick (ioctl, poll; process context): one at a time under tx_lock,
 *   which is never held with rx_lock. TX goes through write.c's send path
 *   (nsl_tx_ring()), the completions come back here.
 *   Payloads of cut packets: RX parks them in the ring's own store
 *   (rstore.c) under rx_lock, TX claims and frees them under tx_lock, and
 *   so does the ageing work (nsl_ring_ageing()): one producer, one
 *   consumer, no lock of the store's own.
 *   Setup and release: slice->ring is set under slice->lock and read under
 *   RCU by RX; release clears it and waits for RX (synchronize_net())
 *   before the file's parked payloads and the memory go.
 *
 * Everything user space writes (the consumer index of RX and completions,
 * the producer index and the entries of TX) is read once, into the
 * kernel's own copy, and checked there before it is used: the regions are
 * kernel memory the kernel never looks past, whatever the process does to
 * them.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <net/busy_poll.h>

#include <linux/netslice.h>

#include "compat.h"
#include "counters.h"
#include "deliver.h"
#include "params.h"
#include "ring.h"
#include "ring_rx.h"
#include "slice.h"
#include "write.h"

/*
 * NAPI poll budget per busy-poll round: sk_busy_loop()'s default, and
 * with NETSLICE_RING_BUSY_PREFER the usual NAPI weight, as AF_XDP users
 * raise SO_BUSY_POLL_BUDGET to: a round then takes what the device's
 * deferred interrupt would have polled.
 */
#define NSL_RING_BUSY_BUDGET	8
#define NSL_RING_PREFER_BUDGET	NAPI_POLL_WEIGHT
#define NSL_RING_MAX_BUSY_US	1000
/* Longest wait before pollers of a stopped egress try again. */
#define NSL_RING_TX_RETRY_MAX_MS	16

static const u64 nsl_ring_mmap_off[NSL_RING_REGIONS] = {
	[NSL_RING_FRAMES] = NETSLICE_MMAP_FRAMES,
	[NSL_RING_RX] = NETSLICE_MMAP_RX,
	[NSL_RING_TX] = NETSLICE_MMAP_TX,
	[NSL_RING_COMP] = NETSLICE_MMAP_COMP,
};

struct nsl_ring *nsl_ring_of(struct file *file)
{
	struct nsl_slice *slice = nsl_file_slice(file);
	struct nsl_ring *ring;

	rcu_read_lock();
	ring = rcu_dereference(slice->ring);
	if (ring && ring->file != file)
		ring = NULL;
	rcu_read_unlock();
	return ring;
}

static bool nsl_ring_rx_pending(const struct nsl_ring *ring)
{
	return READ_ONCE(ring->rx->consumer) != READ_ONCE(ring->rx_prod) ||
	       READ_ONCE(ring->rx_trim_waiting);
}

/* ---- TX: a kick consumes, completions go back ---- */

/* Free completion entries: the user's consumer index, checked (corrupt: none). */
static u32 nsl_ring_comp_room(struct nsl_ring *ring)
{
	u32 size = ring->comp_mask + 1, cons;

	lockdep_assert_held(&ring->tx_lock);
	/* Pairs with the process's release: it has read those completions. */
	cons = smp_load_acquire(&ring->comp->consumer);
	if (ring->comp_prod - cons <= size)
		ring->comp_cons = cons;
	return size - (ring->comp_prod - ring->comp_cons);
}

/* Send up to n entries from tx_cons on; returns how many were consumed. */
static u32 nsl_ring_tx_chunk(struct nsl_ring *ring, u32 n)
{
	struct nsl_ring_region *frames = &ring->region[NSL_RING_FRAMES];
	int taken = 0;
	u32 i, sent;

	/* A copy of each entry: the process may rewrite them meanwhile. */
	for (i = 0; i < n; i++) {
		struct netslice_iov *iov = &ring->tx_batch[i];
		u64 slot;

		*iov = ring->tx_entries[(ring->tx_cons + i) & ring->tx_mask];
		slot = iov->base >> ring->frame_shift;
		/* Sent from where an RX entry put it: in the skb it came in. */
		ring->tx_reuse[i] = NULL;
		if (!iov->handle && slot <= ring->rx_mask &&
		    !(iov->base & (ring->frame_size - 1)))
			ring->tx_reuse[i] = xchg(&ring->rx_skb[slot], NULL);
		if (ring->tx_reuse[i])
			taken += ring->tx_reuse[i]->truesize;
	}
	if (taken)
		atomic_sub(taken, &ring->rx_kept);
	sent = nsl_tx_ring(ring->slice, ring->file, &ring->store, ring->tx_batch, n,
			   frames->mem, frames->len, ring->tx_errs, ring->tx_reuse);
	for (i = 0; i < sent; i++) {
		struct netslice_ring_comp *c =
			&ring->comp_entries[ring->comp_prod++ & ring->comp_mask];

		c->base = ring->tx_batch[i].base;
		c->error = ring->tx_errs[i];
		memset(c->reserved, 0, sizeof(c->reserved));
	}
	/* The completions before the index that shows them. */
	smp_store_release(&ring->comp->producer, ring->comp_prod);
	ring->tx_cons += sent;
	/* The entries were copied (tx_batch) before the process may reuse them. */
	smp_store_release(&ring->tx->consumer, ring->tx_cons);
	return sent;
}

/*
 * The egress stopped with entries left: no driver tells us when it wakes,
 * so pollers are woken to try again (nsl_ring_poll() kicks): a jiffy
 * later, then twice as late each time it is still stopped, up to
 * NSL_RING_TX_RETRY_MAX_MS, so that a long stop costs a sleeper few wakes.
 */
static void nsl_ring_tx_retry(struct timer_list *t)
{
	struct nsl_ring *ring = container_of(t, struct nsl_ring, tx_timer);

	wake_up_interruptible_poll(&ring->slice->wait, EPOLLOUT | EPOLLWRNORM);
}

static long nsl_ring_tx(struct nsl_ring *ring)
{
	u32 size = ring->tx_mask + 1, avail = 1, n, sent;
	long done = 0;

	lockdep_assert_held(&ring->tx_lock);
	/*
	 * At most a ring's worth per call, and not past a fatal signal: a
	 * process refilling the ring behind the kick must not keep it (and
	 * tx_lock, or an epoll's mutex) forever.
	 */
	while (done < size && !fatal_signal_pending(current)) {
		/* Pairs with the process's release: the entries it counts are written. */
		avail = smp_load_acquire(&ring->tx->producer) - ring->tx_cons;
		if (avail > size)
			return done ?: -EINVAL;
		n = min3(avail, nsl_ring_comp_room(ring), (u32)NSL_RING_TX_CHUNK);
		n = min_t(u32, n, size - done);
		if (!n)
			break;
		sent = nsl_ring_tx_chunk(ring, n);
		done += sent;
		WRITE_ONCE(ring->tx_busy, sent < n);
		if (sent < n)
			break;
		cond_resched();
	}
	if (!avail)
		WRITE_ONCE(ring->tx_busy, false);
	if (!ring->tx_busy) {
		ring->tx_retry = 1;
	} else {
		mod_timer(&ring->tx_timer, jiffies + ring->tx_retry);
		ring->tx_retry = min(2 * ring->tx_retry,
				     msecs_to_jiffies(NSL_RING_TX_RETRY_MAX_MS) ?: 1);
	}
	return done;
}

static bool nsl_ring_busy_end(void *arg, unsigned long start)
{
	struct nsl_ring *ring = arg;

	return nsl_ring_rx_pending(ring) || signal_pending(current) ||
	       time_after(busy_loop_current_time(), start + ring->busy_poll_us);
}

/* Poll the device's NAPI context for a while when nothing waits. */
static void nsl_ring_busy_poll(struct nsl_ring *ring)
{
	unsigned int napi_id = READ_ONCE(ring->napi_id);

	if (!ring->busy_poll_us || napi_id < MIN_NAPI_ID || nsl_ring_rx_pending(ring))
		return;
	napi_busy_loop(napi_id, nsl_ring_busy_end, ring, ring->busy_prefer,
		       ring->busy_prefer ? NSL_RING_PREFER_BUDGET : NSL_RING_BUSY_BUDGET);
}

/* Trimmed records in, then TX out; with nowait, skip a kick in progress. */
static long nsl_ring_service(struct nsl_ring *ring, bool nowait)
{
	struct sk_buff *dead = NULL;
	unsigned long parks_before;
	u32 prod_before;
	long done;
	bool wake;

	if (READ_ONCE(ring->rx_trim_waiting)) {
		spin_lock_bh(&ring->rx_lock);
		prod_before = ring->rx_prod;
		parks_before = ring->store.parks;
		nsl_ring_rx_trimmed(ring, &dead);
		/* Another thread of the process may sleep on them (EPOLLET). */
		wake = nsl_ring_rx_wake_due(ring, prod_before);
		nsl_ring_age_start(ring, parks_before);
		spin_unlock_bh(&ring->rx_lock);
		nsl_ring_rx_wake(ring, wake);
		nsl_deliver_free(dead);
	}
	if (nowait) {
		if (!mutex_trylock(&ring->tx_lock))
			return 0;
	} else if (mutex_lock_interruptible(&ring->tx_lock)) {
		return -ERESTARTSYS;
	}
	done = nsl_ring_tx(ring);
	mutex_unlock(&ring->tx_lock);
	return done;
}

long nsl_ring_kick(struct nsl_ring *ring)
{
	long done = nsl_ring_service(ring, false);

	/*
	 * Preferring, the process's next look after a wake-up polls: one now
	 * would find the context empty and spin for nothing.
	 */
	if (!ring->busy_prefer)
		nsl_ring_busy_poll(ring);
	return done;
}

__poll_t nsl_ring_poll(struct nsl_ring *ring, struct file *file, poll_table *wait)
{
	struct nsl_slice *slice = ring->slice;
	__poll_t mask = 0;
	u32 queued;

	poll_wait(file, &slice->wait, wait);
	/* On the wait queue before the ring is looked at: pairs with nsl_ring_rx_wake_due(). */
	smp_mb();
	nsl_ring_service(ring, true);
	/*
	 * Preferring, only a pass after a wake-up or timeout polls (poll and
	 * select look again without a wait queue then): the pass before
	 * sleeping would spin on what the last poll emptied, and the
	 * device's interrupt stays deferred until the process looks again.
	 */
	if (!ring->busy_prefer || !nsl_poll_may_sleep(wait))
		nsl_ring_busy_poll(ring);
	if (nsl_ring_rx_pending(ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	queued = READ_ONCE(ring->tx->producer) - READ_ONCE(ring->tx_cons);
	if (queued < ring->tx_mask + 1 && !READ_ONCE(ring->tx_busy))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* ---- the ring's payload store ---- */

/*
 * Free what is parked past the timeout; run again while anything is
 * parked. Stopping races with RX parking (nsl_ring_age_start()): the work
 * sets ageing_off and then looks whether anything was parked since its
 * look, RX parks and then looks at ageing_off; with a barrier between
 * each pair, one of them sees the other and the work runs again.
 */
static void nsl_ring_ageing(struct work_struct *work)
{
	struct nsl_ring *ring = container_of(to_delayed_work(work), struct nsl_ring, ageing);
	struct nsl_store *st = &ring->slice->store;
	unsigned long next = 0;
	unsigned long parks;
	u64 aged = 0;
	bool again;

	parks = nsl_rstore_parks(&ring->store);
	again = nsl_rstore_expire(&ring->store, jiffies, nsl_store_timeout(st), &next, &aged);
	/*
	 * A poll that found tx_lock held meanwhile did not kick (nowait): if
	 * entries wait, wake it to look again. The barrier pairs with
	 * nsl_ring_poll()'s: either its trylock came after the unlock, or
	 * this sees the producer index the process wrote before polling.
	 */
	smp_mb();
	if (READ_ONCE(ring->tx->producer) != READ_ONCE(ring->tx_cons))
		wake_up_interruptible_poll(&ring->slice->wait,
					   EPOLLIN | EPOLLRDNORM | EPOLLOUT | EPOLLWRNORM);
	if (aged)
		nsl_store_count_freed(st, aged, 0, 0);
	if (!again) {
		WRITE_ONCE(ring->ageing_off, true);
		/* Pairs with the smp_mb() before nsl_ring_age_start(). */
		smp_mb();
		if (nsl_rstore_parks(&ring->store) == parks)
			return;
		WRITE_ONCE(ring->ageing_off, false);
		next = jiffies + nsl_store_timeout(st) + 1;
	}
	queue_delayed_work(system_power_efficient_wq, &ring->ageing,
			   time_after(next, jiffies) ? next - jiffies : 1);
}

void nsl_ring_store_counts(struct nsl_slice *slice, u32 *used, u32 *high_water)
{
	struct nsl_ring *ring;

	rcu_read_lock();
	ring = rcu_dereference(slice->ring);
	if (ring) {
		*used += nsl_rstore_used(&ring->store);
		*high_water = max(*high_water, READ_ONCE(ring->store.high_water));
	}
	rcu_read_unlock();
}

void nsl_ring_store_reset(struct nsl_slice *slice)
{
	struct nsl_ring *ring;

	rcu_read_lock();
	ring = rcu_dereference(slice->ring);
	if (ring)
		nsl_rstore_reset_high_water(&ring->store);
	rcu_read_unlock();
}

/* Release waits for this RCU reader before it cancels the work for good. */
void nsl_ring_store_timeout_set(struct nsl_slice *slice)
{
	struct nsl_ring *ring;

	rcu_read_lock();
	ring = rcu_dereference(slice->ring);
	if (ring && !READ_ONCE(ring->ageing_off))
		mod_delayed_work(system_power_efficient_wq, &ring->ageing, 0);
	rcu_read_unlock();
}

/* ---- mmap ---- */

static void nsl_ring_vm_open(struct vm_area_struct *vma)
{
	struct nsl_ring_region *r = vma->vm_private_data;

	atomic_inc(&r->maps);
}

static void nsl_ring_vm_close(struct vm_area_struct *vma)
{
	struct nsl_ring_region *r = vma->vm_private_data;

	atomic_dec(&r->maps);
}

static const struct vm_operations_struct nsl_ring_vm_ops = {
	.open	= nsl_ring_vm_open,
	.close	= nsl_ring_vm_close,
};

int nsl_ring_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long size = vma->vm_end - vma->vm_start;
	struct nsl_ring *ring = nsl_ring_of(file);
	struct nsl_ring_region *r = NULL;
	int i, err;

	if (!ring)
		return -EINVAL;
	for (i = 0; i < NSL_RING_REGIONS; i++)
		if (off == nsl_ring_mmap_off[i])
			r = &ring->region[i];
	if (!r || size > r->len || !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (atomic_cmpxchg(&r->maps, 0, 1))
		return -EBUSY;
	/* Not yet ours to count: a failed mmap never calls close. */
	err = remap_vmalloc_range(vma, r->mem, 0);
	if (err) {
		atomic_dec(&r->maps);
		return err;
	}
	vma->vm_private_data = r;
	vma->vm_ops = &nsl_ring_vm_ops;
	return 0;
}

/* ---- setup and release ---- */

static bool nsl_ring_size_valid(u32 n)
{
	return n >= 2 && n <= NETSLICE_RING_MAX_SIZE && is_power_of_2(n);
}

static int nsl_ring_setup_check(const struct netslice_ring_setup *req)
{
	if (req->reserved || req->flags & ~(NETSLICE_RING_BUSY_POLL | NETSLICE_RING_BUSY_PREFER))
		return -EINVAL;
	if ((req->flags & NETSLICE_RING_BUSY_PREFER) && !(req->flags & NETSLICE_RING_BUSY_POLL))
		return -EINVAL;
	if (!!(req->flags & NETSLICE_RING_BUSY_POLL) != !!req->busy_poll_us ||
	    req->busy_poll_us > NSL_RING_MAX_BUSY_US)
		return -EINVAL;
	if (!is_power_of_2(req->frame_size) || req->frame_size < NETSLICE_RING_MIN_FRAME ||
	    req->frame_size > NETSLICE_RING_MAX_FRAME)
		return -EINVAL;
	if (!nsl_ring_size_valid(req->rx_size) || !nsl_ring_size_valid(req->tx_size) ||
	    !nsl_ring_size_valid(req->comp_size) || req->comp_size < req->tx_size)
		return -EINVAL;
	if (req->frame_count < req->rx_size ||
	    req->frame_count > NETSLICE_RING_MAX_AREA / req->frame_size)
		return -EINVAL;
	return 0;
}

/* The bytes of each region a setup maps, page-aligned. */
static void nsl_ring_region_lens(const struct netslice_ring_setup *req, size_t *len)
{
	const size_t hdr = sizeof(struct netslice_ring_hdr);

	len[NSL_RING_FRAMES] = PAGE_ALIGN((size_t)req->frame_count * req->frame_size);
	len[NSL_RING_RX] = PAGE_ALIGN(hdr + req->rx_size * sizeof(struct netslice_iov));
	len[NSL_RING_TX] = PAGE_ALIGN(hdr + req->tx_size * sizeof(struct netslice_iov));
	len[NSL_RING_COMP] = PAGE_ALIGN(hdr + req->comp_size * sizeof(struct netslice_ring_comp));
}

/*
 * Ring memory is user-sized kernel memory that stays as long as the file:
 * every ring's pages count against a module-wide cap (ring_max_mb), and
 * against the user's RLIMIT_MEMLOCK as AF_XDP charges its umem (not for
 * CAP_IPC_LOCK). -ENOBUFS past the user's limit, -ENOMEM past the cap.
 */
static atomic_long_t nsl_ring_pages = ATOMIC_LONG_INIT(0);

static int nsl_ring_charge(struct nsl_ring *ring, unsigned long npages)
{
	struct user_struct *user = NULL;
	unsigned long limit, old;

	if (!capable(CAP_IPC_LOCK)) {
		limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
		user = get_uid(current_user());
		do {
			old = atomic_long_read(&user->locked_vm);
			if (old + npages > limit) {
				free_uid(user);
				return -ENOBUFS;
			}
		} while (atomic_long_cmpxchg(&user->locked_vm, old, old + npages) != old);
	}
	if (atomic_long_add_return(npages, &nsl_ring_pages) > READ_ONCE(nsl_ring_max_pages)) {
		atomic_long_sub(npages, &nsl_ring_pages);
		if (user) {
			atomic_long_sub(npages, &user->locked_vm);
			free_uid(user);
		}
		return -ENOMEM;
	}
	ring->user = user;
	ring->npages = npages;
	return 0;
}

static void nsl_ring_uncharge(struct nsl_ring *ring)
{
	if (ring->user) {
		atomic_long_sub(ring->npages, &ring->user->locked_vm);
		free_uid(ring->user);
	}
	atomic_long_sub(ring->npages, &nsl_ring_pages);
}

static void nsl_ring_free(struct nsl_ring *ring)
{
	u32 i;

	if (ring->rx_skb)
		for (i = 0; i <= ring->rx_mask; i++)
			consume_skb(ring->rx_skb[i]);
	kvfree(ring->rx_skb);
	nsl_rstore_destroy(&ring->store);
	for (i = 0; i < NSL_RING_REGIONS; i++)
		vfree(ring->region[i].mem);
	nsl_ring_uncharge(ring);
	kvfree(ring);
}

/* The ring's regions, zeroed, and its pointers into them; charged first. */
static struct nsl_ring *nsl_ring_alloc(const struct netslice_ring_setup *req, int *err)
{
	const size_t hdr = sizeof(struct netslice_ring_hdr);
	size_t len[NSL_RING_REGIONS];
	unsigned long npages = 0;
	struct nsl_ring *ring;
	int i;

	nsl_ring_region_lens(req, len);
	for (i = 0; i < NSL_RING_REGIONS; i++)
		npages += len[i] >> PAGE_SHIFT;
	*err = -ENOMEM;
	ring = kvzalloc_obj(*ring, GFP_KERNEL_ACCOUNT);
	if (!ring)
		return NULL;
	*err = nsl_ring_charge(ring, npages);
	if (*err) {
		kvfree(ring);
		return NULL;
	}
	*err = -ENOMEM;
	for (i = 0; i < NSL_RING_REGIONS; i++) {
		ring->region[i].len = len[i];
		ring->region[i].mem = vmalloc_user(ring->region[i].len);
		if (!ring->region[i].mem)
			goto err_free;
	}
	ring->frame_size = req->frame_size;
	ring->frame_shift = ilog2(req->frame_size);
	ring->busy_poll_us = req->busy_poll_us;
	ring->busy_prefer = !!(req->flags & NETSLICE_RING_BUSY_PREFER);
	ring->rx = ring->region[NSL_RING_RX].mem;
	ring->rx_entries = ring->region[NSL_RING_RX].mem + hdr;
	ring->rx_mask = req->rx_size - 1;
	ring->tx = ring->region[NSL_RING_TX].mem;
	ring->tx_entries = ring->region[NSL_RING_TX].mem + hdr;
	ring->tx_mask = req->tx_size - 1;
	ring->comp = ring->region[NSL_RING_COMP].mem;
	ring->comp_entries = ring->region[NSL_RING_COMP].mem + hdr;
	ring->comp_mask = req->comp_size - 1;
	ring->rx_keep_max = req->rx_size * req->frame_size;
	ring->rx_skb = kvcalloc(req->rx_size, sizeof(*ring->rx_skb), GFP_KERNEL_ACCOUNT);
	if (!ring->rx_skb)
		goto err_free;
	/* The module needs a kick to send: always, for now. */
	ring->tx->flags = NETSLICE_RING_NEED_WAKEUP;
	spin_lock_init(&ring->rx_lock);
	mutex_init(&ring->tx_lock);
	timer_setup(&ring->tx_timer, nsl_ring_tx_retry, 0);
	ring->tx_retry = 1;
	INIT_DELAYED_WORK(&ring->ageing, nsl_ring_ageing);
	ring->ageing_off = true;
	return ring;

err_free:
	nsl_ring_free(ring);
	return NULL;
}

long nsl_ring_setup(struct file *file, void __user *uarg)
{
	struct nsl_slice *slice = nsl_file_slice(file);
	struct netslice_ring_setup req;
	struct nsl_ring *ring;
	int alloc_err;
	long err;

	/* The rings carry packets both ways. */
	if ((file->f_mode & (FMODE_READ | FMODE_WRITE)) != (FMODE_READ | FMODE_WRITE))
		return -EBADF;
	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	err = nsl_ring_setup_check(&req);
	if (err)
		return err;
	/*
	 * Busy polling spins on a NIC's NAPI context for up to a millisecond
	 * a call: what SO_BUSY_POLL allows only CAP_NET_ADMIN to raise.
	 */
	if (req.busy_poll_us && !capable(CAP_NET_ADMIN))
		return -EPERM;
	/* Another file reads the slice: ring mode would take its packets. */
	if (rcu_access_pointer(slice->ring) || nsl_slice_other_readers(slice, file))
		return -EBUSY;
	ring = nsl_ring_alloc(&req, &alloc_err);
	if (!ring)
		return alloc_err;
	ring->slice = slice;
	ring->file = file;
	req.frames_len = ring->region[NSL_RING_FRAMES].len;
	req.rx_len = ring->region[NSL_RING_RX].len;
	req.tx_len = ring->region[NSL_RING_TX].len;
	req.comp_len = ring->region[NSL_RING_COMP].len;
	err = -EFAULT;
	if (copy_to_user(uarg, &req, sizeof(req)))
		goto err_free;

	mutex_lock(&slice->lock);
	err = rcu_access_pointer(slice->ring) || nsl_slice_other_readers(slice, file) ? -EBUSY : 0;
	/* The slice's store size, which cannot change while the ring is set up. */
	if (!err) {
		u32 capacity, timeout_ms;

		nsl_store_limits(&slice->store, &capacity, &timeout_ms);
		err = nsl_rstore_init(&ring->store, slice->id, capacity, &ring->rx_lock,
				      &ring->tx_lock);
	}
	if (!err)
		rcu_assign_pointer(slice->ring, ring);
	mutex_unlock(&slice->lock);
	if (err)
		goto err_free;
	/* Packets queued for read before: nobody will read them now. */
	synchronize_net();
	nsl_slice_purge(slice, 0);
	return 0;

err_free:
	nsl_ring_free(ring);
	return err;
}

void nsl_ring_release(struct file *file)
{
	struct nsl_slice *slice = nsl_file_slice(file);
	struct nsl_ring *ring = nsl_ring_of(file);
	u32 high_water;
	u64 closed;

	if (!ring)
		return;
	mutex_lock(&slice->lock);
	RCU_INIT_POINTER(slice->ring, NULL);
	mutex_unlock(&slice->lock);
	/* No RX may still copy into the frames, or park for this file. */
	synchronize_net();
	/* No kick is left to arm it: this file's calls are over. */
	timer_shutdown_sync(&ring->tx_timer);
	/* Nor RX, nor a timeout change (nsl_ring_store_timeout_set()), to queue this. */
	cancel_delayed_work_sync(&ring->ageing);
	high_water = READ_ONCE(ring->store.high_water);
	closed = nsl_rstore_destroy(&ring->store);
	nsl_store_count_freed(&slice->store, 0, closed, high_water);
	mutex_destroy(&ring->tx_lock);
	nsl_ring_free(ring);
	/*
	 * Records queued for the ring are not another file's to read; the
	 * slice's other files may read again (nsl_poll()).
	 */
	nsl_slice_purge(slice, 0);
	wake_up_interruptible_poll(&slice->wait, EPOLLIN | EPOLLRDNORM);
}
