// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl commands of a slice device. Each handler copies its fixed-size
 * argument in, checks reserved fields, and copies the result out; the
 * layouts and their rules are documented in uapi/linux/netslice.h.
 */
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <linux/netslice.h>

#include "compat.h"
#include "ioctl.h"
#include "params.h"
#include "port.h"
#include "ring.h"
#include "slice.h"
#include "cut.h"
#include "stats.h"

/*
 * A slice's configuration is shared by every file open on it and belongs
 * to the module, which the initial namespace owns: changing it takes
 * CAP_NET_ADMIN there, as its netlink twins do. Opening the node is the
 * data-path right only. A SET that changes nothing needs no privilege, so
 * an NF run by an unprivileged user can confirm what an admin set up.
 */
static long nsl_may_change(void)
{
	return capable(CAP_NET_ADMIN) ? 0 : -EPERM;
}

/* Bytes of a user CPU bitmap covering every possible CPU, in __u64 words. */
static size_t nsl_cpumask_user_size(void)
{
	return DIV_ROUND_UP(nr_cpu_ids, 64) * sizeof(u64);
}

/* Largest mask_size accepted: 65536 CPUs. */
#define NSL_CPUMASK_MAX_SIZE	8192

/*
 * Copy the request in and check it; on a bad size, tell the caller the
 * size needed.
 */
static int nsl_cpumask_begin(void __user *uarg, struct netslice_cpumask *req, size_t need)
{
	if (copy_from_user(req, uarg, sizeof(*req)))
		return -EFAULT;
	if (req->reserved)
		return -EINVAL;
	if (req->mask_size < need || req->mask_size % sizeof(u64) ||
	    req->mask_size > NSL_CPUMASK_MAX_SIZE) {
		req->mask_size = need;
		if (copy_to_user(uarg, req, sizeof(*req)))
			return -EFAULT;
		return -EINVAL;
	}
	return 0;
}

static int nsl_put_cpumask(u64 uptr, const u64 *words, size_t len, size_t size)
{
	void __user *dst = u64_to_user_ptr(uptr);

	if (copy_to_user(dst, words, len))
		return -EFAULT;
	if (clear_user(dst + len, size - len))
		return -EFAULT;
	return 0;
}

static long nsl_ioctl_cpumask_get(struct nsl_slice *slice, void __user *uarg)
{
	size_t need = nsl_cpumask_user_size();
	struct netslice_cpumask req;
	u64 *kernel_words, *user_words;
	long err;

	err = nsl_cpumask_begin(uarg, &req, need);
	if (err)
		return err;
	kernel_words = kcalloc(2, need, GFP_KERNEL);
	if (!kernel_words)
		return -ENOMEM;
	user_words = kernel_words + need / sizeof(u64);

	mutex_lock(&slice->lock);
	bitmap_to_arr64(kernel_words, cpumask_bits(slice->kernel_cpus), nr_cpu_ids);
	bitmap_to_arr64(user_words, cpumask_bits(slice->user_cpus), nr_cpu_ids);
	mutex_unlock(&slice->lock);

	err = nsl_put_cpumask(req.kernel_cpus, kernel_words, need, req.mask_size);
	if (!err)
		err = nsl_put_cpumask(req.user_cpus, user_words, need, req.mask_size);
	kfree(kernel_words);
	if (err)
		return err;

	req.mask_size = need;
	if (copy_to_user(uarg, &req, sizeof(req)))
		return -EFAULT;
	return 0;
}

/* A user bitmap of mask_size bytes as a cpumask; bits past nr_cpu_ids must be 0. */
static int nsl_get_cpumask(struct cpumask *mask, u64 uptr, u64 *words, size_t size)
{
	size_t i;

	if (copy_from_user(words, u64_to_user_ptr(uptr), size))
		return -EFAULT;
	for (i = nr_cpu_ids; i < size * BITS_PER_BYTE; i++)
		if (words[i / 64] & BIT_ULL(i % 64))
			return -EINVAL;
	bitmap_from_arr64(cpumask_bits(mask), words, nr_cpu_ids);
	return nsl_cpus_valid(mask) ? 0 : -EINVAL;
}

static long nsl_ioctl_cpumask_set(struct nsl_slice *slice, void __user *uarg)
{
	cpumask_var_t kernel_cpus, user_cpus;
	struct netslice_cpumask req;
	u64 *words;
	long err;

	err = nsl_cpumask_begin(uarg, &req, nsl_cpumask_user_size());
	if (err)
		return err;
	words = kmalloc(req.mask_size, GFP_KERNEL);
	if (!words)
		return -ENOMEM;
	err = -ENOMEM;
	if (!zalloc_cpumask_var(&kernel_cpus, GFP_KERNEL))
		goto out_free_words;
	if (!zalloc_cpumask_var(&user_cpus, GFP_KERNEL))
		goto out_free_kernel_cpus;

	cpus_read_lock();
	err = nsl_get_cpumask(kernel_cpus, req.kernel_cpus, words, req.mask_size);
	if (!err)
		err = nsl_get_cpumask(user_cpus, req.user_cpus, words, req.mask_size);
	if (!err) {
		mutex_lock(&slice->lock);
		if (!cpumask_equal(kernel_cpus, slice->kernel_cpus) ||
		    !cpumask_equal(user_cpus, slice->user_cpus))
			err = nsl_may_change();
		if (!err)
			nsl_slice_set_cpus(slice, kernel_cpus, user_cpus);
		mutex_unlock(&slice->lock);
	}
	cpus_read_unlock();

	free_cpumask_var(user_cpus);
out_free_kernel_cpus:
	free_cpumask_var(kernel_cpus);
out_free_words:
	kfree(words);
	return err;
}

static long nsl_ioctl_rw_multi_get(struct nsl_slice *slice, void __user *uarg)
{
	struct netslice_rw_multi rw;

	mutex_lock(&slice->lock);
	rw.flags = slice->rw_flags;
	rw.max_batch = slice->max_batch;
	mutex_unlock(&slice->lock);
	return copy_to_user(uarg, &rw, sizeof(rw)) ? -EFAULT : 0;
}

static long nsl_ioctl_rw_multi_set(struct nsl_slice *slice, void __user *uarg)
{
	struct netslice_rw_multi rw;
	long err;

	if (copy_from_user(&rw, uarg, sizeof(rw)))
		return -EFAULT;
	if (rw.flags & ~(NETSLICE_MULTI_READ | NETSLICE_MULTI_WRITE) ||
	    !rw.max_batch || rw.max_batch > NETSLICE_MAX_BATCH)
		return -EINVAL;
	mutex_lock(&slice->lock);
	err = rw.flags == slice->rw_flags && rw.max_batch == slice->max_batch ? 0 :
									       nsl_may_change();
	if (!err)
		nsl_slice_set_batch(slice, rw.flags, rw.max_batch);
	mutex_unlock(&slice->lock);
	return err;
}

static long nsl_ioctl_slice_get(struct nsl_slice *slice, void __user *uarg)
{
	struct netslice_cut req;

	nsl_slice_cut(slice, &req);
	return copy_to_user(uarg, &req, sizeof(req)) ? -EFAULT : 0;
}

static long nsl_ioctl_slice_set(struct nsl_slice *slice, void __user *uarg)
{
	struct netslice_cut req;
	long err;
	u32 cfg;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (nsl_cut_from_user(&req, &cfg))
		return -EINVAL;
	mutex_lock(&slice->lock);
	err = cfg == slice->cut ? 0 : nsl_may_change();
	if (!err)
		nsl_slice_set_cut(slice, cfg);
	mutex_unlock(&slice->lock);
	return err;
}

/* The RX queues of dev that map to this slice, as a bitmap of the first 64. */
static u64 nsl_queue_mask(const struct nsl_slice *slice, const struct nsl_iface *iface)
{
	unsigned int nq = min_t(unsigned int, iface->dev->real_num_rx_queues, 64), q;
	u64 mask = 0;

	for (q = slice->id - iface->slice_first; q < nq; q += iface->slice_count)
		mask |= BIT_ULL(q);
	return mask;
}

static long nsl_ioctl_info_get(struct nsl_slice *slice, void __user *uarg)
{
	struct netslice_iface_info *ii;
	struct netslice_info *info;
	struct nsl_iface *iface;
	long err = 0;
	u16 next;

	info = kzalloc_obj(*info, GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	info->slice = slice->id;
	info->nr_slices = nsl_nr_slices;
	info->rxq_size = READ_ONCE(slice->rxq_size);
	info->flags = NETSLICE_INFO_KEEP_HEADER | NETSLICE_INFO_GSO | NETSLICE_INFO_RING |
		      NETSLICE_INFO_CHAIN;
	next = READ_ONCE(slice->next);
	if (next != NSL_CHAIN_NONE) {
		info->flags |= NETSLICE_INFO_CHAINED;
		info->next_slice = next;
	}
	if (nsl_symmetric_hash)
		info->flags |= NETSLICE_INFO_SYMMETRIC_HASH;
	nsl_slice_cut(slice, &info->cut);

	rcu_read_lock();
	list_for_each_entry_rcu(iface, &nsl_ifaces, list) {
		if (!nsl_iface_feeds(iface, slice->id))
			continue;
		if (info->nr_ifaces < NETSLICE_MAX_IFACES) {
			ii = &info->ifaces[info->nr_ifaces];
			ii->ifindex = iface->dev->ifindex;
			ii->pair_ifindex = nsl_iface_pair_ifindex_rcu(iface);
			ii->rx_queues = iface->dev->real_num_rx_queues;
			if (iface->hashed)
				ii->flags = NETSLICE_IFACE_HASHED;
			else
				ii->queue_mask = nsl_queue_mask(slice, iface);
		}
		info->nr_ifaces++;
	}
	rcu_read_unlock();

	if (copy_to_user(uarg, info, sizeof(*info)))
		err = -EFAULT;
	kfree(info);
	return err;
}

/*
 * The counters before chains (0.8): NETSLICE_STATS_GET of a program built
 * then, whose number says the smaller size, gets the fields it knows.
 */
#define NSL_STATS_GET_0_8 \
	_IOR(NETSLICE_IOC_MAGIC, 0x06, __u8[offsetof(struct netslice_stats, tx_chained)])

static long nsl_ioctl_stats_get(struct nsl_slice *slice, void __user *uarg, size_t size)
{
	struct netslice_stats stats;

	nsl_stats_read(slice, &stats);
	return copy_to_user(uarg, &stats, size) ? -EFAULT : 0;
}

long nsl_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct nsl_slice *slice = nsl_file_slice(file);
	void __user *uarg = (void __user *)arg;
	struct nsl_ring *ring;

	switch (cmd) {
	case NETSLICE_CPUMASK_GET:
		return nsl_ioctl_cpumask_get(slice, uarg);
	case NETSLICE_CPUMASK_SET:
		return nsl_ioctl_cpumask_set(slice, uarg);
	case NETSLICE_RW_MULTI_GET:
		return nsl_ioctl_rw_multi_get(slice, uarg);
	case NETSLICE_RW_MULTI_SET:
		return nsl_ioctl_rw_multi_set(slice, uarg);
	case NETSLICE_INFO_GET:
		return nsl_ioctl_info_get(slice, uarg);
	case NETSLICE_STATS_GET:
	case NSL_STATS_GET_0_8:
		return nsl_ioctl_stats_get(slice, uarg, _IOC_SIZE(cmd));
	case NETSLICE_CUT_GET:
		return nsl_ioctl_slice_get(slice, uarg);
	case NETSLICE_CUT_SET:
		return nsl_ioctl_slice_set(slice, uarg);
	case NETSLICE_RING_SETUP:
		return nsl_ring_setup(file, uarg);
	case NETSLICE_RING_KICK:
		ring = nsl_ring_of(file);
		return ring ? nsl_ring_kick(ring) : -EINVAL;
	default:
		return -ENOTTY;
	}
}
