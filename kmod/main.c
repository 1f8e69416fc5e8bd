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
 *   Attached interfaces (iface.c) carry an rx_handler (rx.c) that takes
 *   every received packet and queues it on one slice's bounded RX ring
 *   (a ptr_ring), by recorded RX queue or flow hash. Readers (read.c) copy
 *   batches of packets to user iovs; writers (write.c) build one skb per
 *   iov and send a run of them for one egress in bursts under one lock
 *   of the slice's TX queue of that device (xmit.c).
 *
 *   Header slicing: RX decides each packet's slice length (slicing.c,
 *   parse.c); a reader copies only that and parks the skb in the slice's
 *   payload store (store.c) under a handle; a write with the handle puts
 *   the new header in front of the parked payload (splice.c) and sends
 *   the same skb. With the trim option a full RX ring turns packets into
 *   header-only records on a second ring.
 *
 *   Ring mode (ring.c): one file per slice may take its packets through
 *   memory mapped into the process instead: RX copies each packet (or
 *   parks it, sliced) into a frame of the file's RX ring in softirq and
 *   keeps the skb as that frame's container; a kick (ioctl or poll)
 *   sends the TX ring's entries through the writers' path (a frame from
 *   an RX slot in its own skb) and returns completions.
 *
 *   Control plane: the "netslice" generic netlink family (netlink.c and
 *   nl_*.c) attaches and detaches interfaces at run time, configures
 *   slices, reads and resets counters and manages flow-steering rules
 *   (rules.c), which RX consults ahead of the queue/hash mapping.
 *
 * Contexts
 *   - RX: softirq, any CPU (RPS may move it); per-slice state is found
 *     from the packet, never from smp_processor_id().
 *   - open/release/read/write/poll/ioctl: process context, any CPU; a
 *     slice may have several open files.
 *   - attach/detach and the netdevice notifier: process context, RTNL.
 *   - netlink requests: process context, under the genetlink mutex.
 *   - module init/exit: no file can be open during exit (the file
 *     operations pin the module).
 *
 * Locking, outermost first
 *   genetlink mutex: one netlink request at a time; inside it, RTNL (link
 *     operations), the rule lock or a slice's lock.
 *   RTNL: the list of attached interfaces (writers); RX and TX walk it
 *     under RCU. Detaching unregisters the rx_handler (synchronize_net), so
 *     no RX runs on a detached interface; writers hold a device reference
 *     from the first iov naming it to the end of the call.
 *   a TX queue's xmit lock (HARD_TX_LOCK, BHs off): one burst at a time;
 *     nothing else is taken inside it.
 *   ns_slice::read_lock (mutex): one reader at a time takes a chunk of
 *     packets off the unread queue and the rings, never across a user
 *     access; a packet whose copy fails goes back to the unread queue
 *     (its own spinlock, taken inside read_lock or alone). A ring
 *     resize (slice-set, under ns_slice::lock) and a purge take it too.
 *   ns_ring::tx_lock (mutex): one kick at a time; the writers' path runs
 *     inside it (device xmit locks, the store lock).
 *   ns_ring::rx_lock (spinlock; softirq, or BHs off in a kick): producing
 *     a file's RX ring; inside it the store lock (parking) and the trim
 *     ring's consumer lock (moving records in). Never held with tx_lock.
 *   ptr_ring producer/consumer spinlocks: RX takes the producer lock in
 *     softirq; readers take the consumer lock with BHs off (_bh).
 *   rules lock (mutex, rule_batch.c): rule writers, one batch at a time;
 *     RX looks rules up under RCU in the published generation and never
 *     waits (rules.c).
 *   ns_slice::lock (mutex): a slice's configuration and counter base, and
 *     which file is in ring mode (RX reads ns_slice::ring under RCU);
 *     never taken on the packet path (RX reads the CPU mask, batch and slicing modes
 *     locklessly: each is one word, applied per packet).
 *   ns_store::lock (spinlock, BHs off, innermost): a slice's payload
 *     store. Readers take it after dropping read_lock (parking as they
 *     copy), ring-mode RX under rx_lock, writers alone; nothing is taken
 *     inside it, and skbs are freed after it is dropped.
 *   Counters are per CPU and lockless.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>

#include <linux/netslice.h>

#include "chrdev.h"
#include "iface.h"
#include "netlink.h"
#include "ring.h"
#include "rule_batch.h"
#include "rx.h"
#include "slice.h"
#include "store.h"

/* An unsigned parameter within [min, max]; anything else fails the load. */
struct ns_uint_range {
	unsigned int *value;
	unsigned int min, max;
	const char *unit;
};

static int ns_param_set_range(const char *val, const struct kernel_param *kp)
{
	const struct ns_uint_range *r = kp->arg;
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < r->min || n > r->max) {
		pr_err("%s=%s rejected: give a %s from %u to %u\n",
		       kp->name, val, r->unit, r->min, r->max);
		return -EINVAL;
	}
	*r->value = n;
	return 0;
}

static int ns_param_get_range(char *buf, const struct kernel_param *kp)
{
	const struct ns_uint_range *r = kp->arg;

	return sysfs_emit(buf, "%u\n", *r->value);
}

static const struct kernel_param_ops ns_range_param_ops = {
	.set = ns_param_set_range,
	.get = ns_param_get_range,
};

/* 0 until given: then it means "one slice per online CPU". */
unsigned int ns_nr_slices;
static struct ns_uint_range ns_slices_range = {
	&ns_nr_slices, 1, NETSLICE_MAX_SLICES, "count"
};
module_param_cb(slices, &ns_range_param_ops, &ns_slices_range, 0444);
MODULE_PARM_DESC(slices, "number of slices, 1.." __stringify(NETSLICE_MAX_SLICES)
		 " (default: number of online CPUs)");

unsigned int ns_ring_size = 1024;
static struct ns_uint_range ns_ring_size_range = {
	&ns_ring_size, 2, NS_MAX_RING_SIZE, "packet count"
};
module_param_cb(ring_size, &ns_range_param_ops, &ns_ring_size_range, 0444);
MODULE_PARM_DESC(ring_size, "RX ring capacity per slice in packets (default 1024)");

/* Parked payloads pin driver pages: keep the store well below ring sizes. */
unsigned int ns_store_size = 256;
static struct ns_uint_range ns_store_size_range = {
	&ns_store_size, 1, NS_STORE_MAX_SIZE, "payload count"
};
module_param_cb(store_size, &ns_range_param_ops, &ns_store_size_range, 0444);
MODULE_PARM_DESC(store_size, "payload store capacity per slice (default 256)");

unsigned int ns_store_timeout_ms = 1000;
static struct ns_uint_range ns_store_timeout_range = {
	&ns_store_timeout_ms, 1, NS_MAX_STORE_TIMEOUT_MS, "time in ms"
};
module_param_cb(store_timeout_ms, &ns_range_param_ops, &ns_store_timeout_range, 0444);
MODULE_PARM_DESC(store_timeout_ms, "how long a payload may stay parked (default 1000 ms)");

static char *ifaces = "";
module_param(ifaces, charp, 0444);
MODULE_PARM_DESC(ifaces,
		 "interfaces to attach: \"va:vb@0-1,vc\" pairs va with vb on slices 0-1, vc alone on all");

bool ns_symmetric_hash = true;
module_param_named(symmetric_hash, ns_symmetric_hash, bool, 0444);
MODULE_PARM_DESC(symmetric_hash, "steer both directions of a flow to one slice (default on)");

/* Exact rules cost one hash lookup each however many there are. */
unsigned int ns_max_rules = 1048576;
static struct ns_uint_range ns_max_rules_range = {
	&ns_max_rules, 1, 1 << 24, "rule count"
};
module_param_cb(max_rules, &ns_range_param_ops, &ns_max_rules_range, 0444);
MODULE_PARM_DESC(max_rules, "most flow-steering rules (default 1048576)");

/* Ring mode's memory, all rings together (ring.c); 0: a quarter of RAM. */
static unsigned int ns_ring_max_mb;
static struct ns_uint_range ns_ring_max_mb_range = {
	&ns_ring_max_mb, 0, 1 << 24, "ring memory"
};
module_param_cb(ring_max_mb, &ns_range_param_ops, &ns_ring_max_mb_range, 0444);
MODULE_PARM_DESC(ring_max_mb, "most MiB all ring-mode rings may take (default 0: a quarter of RAM)");

struct ns_slice *ns_slices;

static int __init netslice_init(void)
{
	int err;

	if (!ns_nr_slices)
		ns_nr_slices = min_t(unsigned int, num_online_cpus(), NETSLICE_MAX_SLICES);
	ns_ring_max_pages = ns_ring_max_mb ? (unsigned long)ns_ring_max_mb << (20 - PAGE_SHIFT) :
					     totalram_pages() / 4;

	ns_slices = ns_slices_create(ns_nr_slices, ns_ring_size);
	if (IS_ERR(ns_slices))
		return PTR_ERR(ns_slices);

	err = ns_rules_init();
	if (err)
		goto err_destroy_slices;

	err = ns_iface_notifier_register();
	if (err)
		goto err_exit_rules;

	err = ns_genl_init();
	if (err)
		goto err_unregister_notifier;

	/* A bad interface is reported by name and skipped; the rest attach. */
	if (*ifaces)
		ns_iface_attach_list(ifaces);

	err = ns_chrdev_init(ns_slices, ns_nr_slices);
	if (err)
		goto err_detach_ifaces;

	pr_info("loaded with %u slices\n", ns_nr_slices);
	return 0;

err_detach_ifaces:
	/* Also closes attaching: a request may have come in meanwhile. */
	ns_iface_detach_all();
	ns_genl_exit();
err_unregister_notifier:
	ns_iface_notifier_unregister();
err_exit_rules:
	ns_rules_exit();
err_destroy_slices:
	ns_slices_destroy(ns_slices, ns_nr_slices);
	return err;
}

static void __exit netslice_exit(void)
{
	ns_chrdev_exit();
	ns_iface_detach_all();
	ns_genl_exit();
	ns_iface_notifier_unregister();
	ns_rules_exit();
	ns_slices_destroy(ns_slices, ns_nr_slices);
}

module_init(netslice_init);
module_exit(netslice_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The netslice developers");
MODULE_DESCRIPTION("Partitioned, batched packet I/O for user-space network functions");
