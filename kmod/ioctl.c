// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl commands of a slice device. Each handler copies its fixed-size
 * argument in, checks reserved fields, and copies the result out; the
 * layouts and their rules are documented in uapi/linux/netslice.h.
 */
#include <linux/bitmap.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <linux/netslice.h>

#include "ioctl.h"
#include "slice.h"

/* Bytes of a user CPU bitmap covering every possible CPU, in __u64 words. */
static size_t ns_cpumask_user_size(void)
{
	return DIV_ROUND_UP(nr_cpu_ids, 64) * sizeof(u64);
}

static int ns_put_cpumask(u64 uptr, const u64 *words, size_t len, size_t size)
{
	void __user *dst = u64_to_user_ptr(uptr);

	if (copy_to_user(dst, words, len))
		return -EFAULT;
	if (clear_user(dst + len, size - len))
		return -EFAULT;
	return 0;
}

static long ns_ioctl_cpumask_get(struct ns_slice *slice, void __user *uarg)
{
	size_t need = ns_cpumask_user_size();
	struct netslice_cpumask req;
	u64 *kernel_words, *user_words;
	long err;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.reserved)
		return -EINVAL;
	if (req.mask_size < need || req.mask_size % sizeof(u64)) {
		req.mask_size = need;
		if (copy_to_user(uarg, &req, sizeof(req)))
			return -EFAULT;
		return -EINVAL;
	}

	kernel_words = kcalloc(2, need, GFP_KERNEL);
	if (!kernel_words)
		return -ENOMEM;
	user_words = kernel_words + need / sizeof(u64);

	mutex_lock(&slice->lock);
	bitmap_to_arr64(kernel_words, cpumask_bits(slice->kernel_cpus), nr_cpu_ids);
	bitmap_to_arr64(user_words, cpumask_bits(slice->user_cpus), nr_cpu_ids);
	mutex_unlock(&slice->lock);

	err = ns_put_cpumask(req.kernel_cpus, kernel_words, need, req.mask_size);
	if (!err)
		err = ns_put_cpumask(req.user_cpus, user_words, need, req.mask_size);
	kfree(kernel_words);
	if (err)
		return err;

	req.mask_size = need;
	if (copy_to_user(uarg, &req, sizeof(req)))
		return -EFAULT;
	return 0;
}

long ns_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct ns_slice *slice = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case NETSLICE_CPUMASK_GET:
		return ns_ioctl_cpumask_get(slice, uarg);
	default:
		return -ENOTTY;
	}
}
