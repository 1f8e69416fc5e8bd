// SPDX-License-Identifier: GPL-2.0
/*
 * Slice objects and their default CPU placement.
 */
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "slice.h"

/* The n-th online CPU, wrapping around the online set. */
static unsigned int ns_nth_online_cpu(unsigned int n)
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
static void ns_slice_default_cpus(struct ns_slice *slice)
{
	unsigned int cpu = ns_nth_online_cpu(slice->id);

	cpumask_clear(slice->kernel_cpus);
	cpumask_set_cpu(cpu, slice->kernel_cpus);

	cpumask_and(slice->user_cpus, topology_sibling_cpumask(cpu), cpu_online_mask);
	if (cpumask_weight(slice->user_cpus) > 1)
		cpumask_clear_cpu(cpu, slice->user_cpus);
	else
		cpumask_copy(slice->user_cpus, slice->kernel_cpus);
}

static void ns_slice_free_masks(struct ns_slice *slice)
{
	free_cpumask_var(slice->user_cpus);
	free_cpumask_var(slice->kernel_cpus);
}

static int ns_slice_init(struct ns_slice *slice, unsigned int id)
{
	slice->id = id;
	if (!zalloc_cpumask_var(&slice->kernel_cpus, GFP_KERNEL))
		return -ENOMEM;
	if (!zalloc_cpumask_var(&slice->user_cpus, GFP_KERNEL))
		goto err_free_kernel_cpus;
	mutex_init(&slice->lock);
	ns_slice_default_cpus(slice);
	return 0;

err_free_kernel_cpus:
	free_cpumask_var(slice->kernel_cpus);
	return -ENOMEM;
}

void ns_slices_destroy(struct ns_slice *slices, unsigned int count)
{
	while (count--) {
		ns_slice_free_masks(&slices[count]);
		mutex_destroy(&slices[count].lock);
	}
	kfree(slices);
}

struct ns_slice *ns_slices_create(unsigned int count)
{
	struct ns_slice *slices;
	unsigned int i;
	int err;

	slices = kcalloc(count, sizeof(*slices), GFP_KERNEL);
	if (!slices)
		return ERR_PTR(-ENOMEM);

	cpus_read_lock();
	for (i = 0; i < count; i++) {
		err = ns_slice_init(&slices[i], i);
		if (err)
			goto err_destroy_initialized;
	}
	cpus_read_unlock();
	return slices;

err_destroy_initialized:
	cpus_read_unlock();
	ns_slices_destroy(slices, i);
	return ERR_PTR(err);
}
