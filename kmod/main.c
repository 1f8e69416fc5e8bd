// SPDX-License-Identifier: GPL-2.0
/*
 * netslice: partitioned, batched packet I/O for user-space network
 * functions (after Cornell's NetSlices), with header slicing (after
 * NFSlicer).
 *
 * Design
 *   The module owns an array of slices fixed at load time ("slices"
 *   parameter). Each slice is an independent unit of work, reached through
 *   /dev/netslice-N, with its own kernel-side and user-side CPU masks.
 *   Slices share no lock and no written cache line.
 *
 * Contexts
 *   - module init/exit: process context, no file can be open during exit
 *     (the file operations pin the module).
 *   - open/release/ioctl: process context, any CPU, possibly several files
 *     on one slice at once.
 *
 * Locking
 *   ns_slice::lock (mutex) protects a slice's configuration (CPU masks).
 *   It is the only lock so far and nests under nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include <linux/netslice.h>

#include "chrdev.h"
#include "slice.h"

/* 0 until given: then it means "one slice per online CPU". */
static unsigned int ns_nr_slices;

static int ns_param_set_slices(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < 1 || n > NETSLICE_MAX_SLICES) {
		pr_err("slices=%s rejected: give a count from 1 to %u\n",
		       val, NETSLICE_MAX_SLICES);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops ns_slices_param_ops = {
	.set = ns_param_set_slices,
	.get = param_get_uint,
};

module_param_cb(slices, &ns_slices_param_ops, &ns_nr_slices, 0444);
MODULE_PARM_DESC(slices, "number of slices, 1.." __stringify(NETSLICE_MAX_SLICES)
		 " (default: number of online CPUs)");

static struct ns_slice *ns_slices;

static int __init netslice_init(void)
{
	int err;

	if (!ns_nr_slices)
		ns_nr_slices = min_t(unsigned int, num_online_cpus(), NETSLICE_MAX_SLICES);

	ns_slices = ns_slices_create(ns_nr_slices);
	if (IS_ERR(ns_slices))
		return PTR_ERR(ns_slices);

	err = ns_chrdev_init(ns_slices, ns_nr_slices);
	if (err)
		goto err_destroy_slices;

	pr_info("loaded with %u slices\n", ns_nr_slices);
	return 0;

err_destroy_slices:
	ns_slices_destroy(ns_slices, ns_nr_slices);
	return err;
}

static void __exit netslice_exit(void)
{
	ns_chrdev_exit();
	ns_slices_destroy(ns_slices, ns_nr_slices);
}

module_init(netslice_init);
module_exit(netslice_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The netslice developers");
MODULE_DESCRIPTION("Partitioned, batched packet I/O for user-space network functions");
