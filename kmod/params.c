// SPDX-License-Identifier: GPL-2.0
/*
 * The module's parameters, each checked at load against its range (a
 * value out of range fails the load, naming the range). All are
 * read-only once loaded, so any file reads them without a lock; main.c
 * fills in the defaults that depend on the machine before anything else
 * runs (nsl_params_init()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include <linux/netslice.h>

#include "params.h"

/* An unsigned parameter within [min, max]; anything else fails the load. */
struct nsl_uint_range {
	unsigned int *value;
	unsigned int min, max;
	const char *unit;
};

static int nsl_param_set_range(const char *val, const struct kernel_param *kp)
{
	const struct nsl_uint_range *r = kp->arg;
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < r->min || n > r->max) {
		pr_err("%s=%s rejected: give a %s from %u to %u\n",
		       kp->name, val, r->unit, r->min, r->max);
		return -EINVAL;
	}
	*r->value = n;
	return 0;
}

static int nsl_param_get_range(char *buf, const struct kernel_param *kp)
{
	const struct nsl_uint_range *r = kp->arg;

	return sysfs_emit(buf, "%u\n", *r->value);
}

static const struct kernel_param_ops nsl_range_param_ops = {
	.set = nsl_param_set_range,
	.get = nsl_param_get_range,
};

/* 0 until given: then it means "one slice per online CPU". */
unsigned int nsl_nr_slices;
static struct nsl_uint_range nsl_slices_range = {
	&nsl_nr_slices, 1, NETSLICE_MAX_SLICES, "count"
};
module_param_cb(slices, &nsl_range_param_ops, &nsl_slices_range, 0444);
MODULE_PARM_DESC(slices, "number of slices, 1.." __stringify(NETSLICE_MAX_SLICES)
		 " (default: number of online CPUs)");

unsigned int nsl_rxq_size = 1024;
static struct nsl_uint_range nsl_rxq_size_range = {
	&nsl_rxq_size, 2, NSL_MAX_RXQ_SIZE, "packet count"
};
module_param_cb(rxq_size, &nsl_range_param_ops, &nsl_rxq_size_range, 0444);
MODULE_PARM_DESC(rxq_size, "RX queue capacity per slice in packets (default 1024)");
/* Its name before 0.6: one variable, so the last of the two given wins. */
module_param_cb(ring_size, &nsl_range_param_ops, &nsl_rxq_size_range, 0444);
MODULE_PARM_DESC(ring_size, "deprecated name of rxq_size");

/* Parked payloads pin driver pages: keep the store well below rxq sizes. */
unsigned int nsl_store_size = 256;
static struct nsl_uint_range nsl_store_size_range = {
	&nsl_store_size, 1, NSL_STORE_MAX_SIZE, "payload count"
};
module_param_cb(store_size, &nsl_range_param_ops, &nsl_store_size_range, 0444);
MODULE_PARM_DESC(store_size, "payload store capacity per slice (default 256)");

unsigned int nsl_store_timeout_ms = 1000;
static struct nsl_uint_range nsl_store_timeout_range = {
	&nsl_store_timeout_ms, 1, NSL_MAX_STORE_TIMEOUT_MS, "time in ms"
};
module_param_cb(store_timeout_ms, &nsl_range_param_ops, &nsl_store_timeout_range, 0444);
MODULE_PARM_DESC(store_timeout_ms, "how long a payload may stay parked (default 1000 ms)");

bool nsl_symmetric_hash = true;
module_param_named(symmetric_hash, nsl_symmetric_hash, bool, 0444);
MODULE_PARM_DESC(symmetric_hash, "steer both directions of a flow to one slice (default on)");

/* Exact rules cost one hash lookup each however many there are. */
unsigned int nsl_max_rules = 1048576;
static struct nsl_uint_range nsl_max_rules_range = {
	&nsl_max_rules, 1, 1 << 24, "rule count"
};
module_param_cb(max_rules, &nsl_range_param_ops, &nsl_max_rules_range, 0444);
MODULE_PARM_DESC(max_rules, "most flow-steering rules (default 1048576)");

/* Ring mode's memory, all rings together (ring.c); 0: a quarter of RAM. */
static unsigned int nsl_ring_max_mb;
static struct nsl_uint_range nsl_ring_max_mb_range = {
	&nsl_ring_max_mb, 0, 1 << 24, "ring memory"
};
module_param_cb(ring_max_mb, &nsl_range_param_ops, &nsl_ring_max_mb_range, 0444);
MODULE_PARM_DESC(ring_max_mb, "most MiB all ring-mode rings may take (default 0: a quarter of RAM)");

unsigned long nsl_ring_max_pages;

void nsl_params_init(void)
{
	if (!nsl_nr_slices)
		nsl_nr_slices = min_t(unsigned int, num_online_cpus(), NETSLICE_MAX_SLICES);
	nsl_ring_max_pages = nsl_ring_max_mb ? (unsigned long)nsl_ring_max_mb << (20 - PAGE_SHIFT) :
					     totalram_pages() / 4;
}
