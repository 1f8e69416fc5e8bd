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
 *   every received packet and queues it on one slice's bounded RX queue
 *   (a ptr_ring), by recorded RX queue or flow hash. Readers (read.c) copy
 *   batches of packets to user iovs; writers (write.c) build one skb per
 *   iov and send a run of them for one egress in bursts under one lock
 *   of the slice's TX queue of that device (xmit.c).
 *
 *   Header slicing: RX decides where each packet is cut (cut.c,
 *   cut_parser.c); a reader copies only that and parks the skb in the slice's
 *   payload store (store.c) under a handle; a write with the handle puts
 *   the new header in front of the parked payload (splice.c) and sends
 *   the same skb. With the trim option a full RX queue turns packets into
 *   header-only records on a second queue: the slice's rxq and trimq,
 *   ptr_rings both (docs/design.md names the words).
 *
 *   Ring mode (ring.c): one file per slice may take its packets through
 *   memory mapped into the process instead: RX copies each packet (or
 *   parks it, cut) into a frame of the file's RX ring in softirq and
 *   keeps the skb as that frame's container; a kick (ioctl or poll)
 *   sends the TX ring's entries through the writers' path (a frame from
 *   an RX slot in its own skb) and returns completions. Its cut
 *   packets park in the ring's own store (rstore.c), with one
 *   producer (RX) and one consumer (kicks): no lock of its own.
 *
 *   Chains (chain.c): a slice may have a next slice, set by netlink; its
 *   writer's NETSLICE_TX_DEFAULT and NETSLICE_TX_NEXT frames are handed
 *   to it (rx.c, nsl_rx_handoff()) as if received there, a cut packet's
 *   parked skb itself, so its payload is never copied on the way.
 *
 *   Control plane: the "netslice" generic netlink family (netlink.c and
 *   nl_*.c) attaches and detaches interfaces at run time, configures
 *   slices, reads and resets counters and manages flow-steering rules
 *   (rules.c), which RX consults ahead of the queue/hash mapping.
 *
 *   Files call down, never back up (tests/host/test_import_graph.py):
 *   chrdev.c picks read/write (read.c, write.c) or ring mode (ring.c) for
 *   a file, and hands ioctls to ioctl.c; RX (rx.c) hands packets to the
 *   slice's rxq or a ring's RX (ring_rx.c), and so does a chain's handoff
 *   from write.c; read and ring mode both deliver a packet through
 *   deliver.c, and ring mode sends through write.c's TX. Below
 *   them: the slices (slice.c, stats.c), the stores (store.c, rstore.c),
 *   splice, the cut and its parser (cut.c, cut_parser.c), gso, xmit
 *   (egress and the host stack), the rules (rules.c, which rule_batch.c
 *   changes), the table of attached interfaces (port.c, which iface.c
 *   changes) and the module parameters (params.c). In the control plane
 *   netlink.c's operation table calls the nl_*.c handlers, which like
 *   iface.c's link events (nl_link_msg.c) build their messages with the
 *   family of nl_family.c, below them all: it gets the operations when
 *   netlink.c registers it. skb_cb.h, counters.h, txerr.h, compat.h and
 *   the generated nl_policy.h hold types, inline helpers and constant
 *   tables only.
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
 *   nsl_slice::lock (mutex): a slice's configuration and counter base,
 *     which file is in ring mode (RX reads nsl_slice::ring under RCU) and
 *     how many open files have read (a file's first read, its close and a
 *     ring setup meet under it); never taken on the packet path (RX reads
 *     the CPU mask, batch mode and cut locklessly: each is one word,
 *     applied per packet).
 *   nsl_chain_lock (mutex, chain.c): every slice's next slice, changed by
 *     slice-set inside nsl_slice::lock; the data path reads the chain
 *     without it. Inside it only what slice-set does next (the sizes).
 *   nsl_slice::read_lock (mutex): one reader at a time takes a chunk of
 *     packets off the unread queue, trimq and rxq, never across a user
 *     access; a packet whose copy fails goes back to the unread queue
 *     (its own spinlock, taken inside read_lock or alone). A queue
 *     resize (slice-set, under nsl_slice::lock; inside it the resize's
 *     own mutex) and a purge take it too.
 *   nsl_ring::tx_lock (mutex): one kick, or one run of the ring's ageing
 *     work, at a time: the consumer of the ring's store. The writers' path
 *     runs inside it (device xmit locks, the slice's store lock for
 *     payloads parked before the ring).
 *   nsl_ring::rx_lock (spinlock; softirq, or BHs off in a kick or a
 *     chain's handoff): producing a file's RX ring and parking in the
 *     ring's store; inside it the trimq's consumer lock (moving records
 *     in). Never held with the same file's tx_lock; a handoff from a
 *     writer in ring mode takes the next slice's inside the writer's tx_lock.
 *   ptr_ring producer/consumer spinlocks: RX takes the producer lock in
 *     softirq, a chain's handoff with BHs off; readers take the consumer
 *     lock with BHs off (_bh).
 *   rules lock (mutex, rule_batch.c): rule writers, one batch at a time;
 *     RX looks rules up under RCU in the published generation and never
 *     waits (rules.c). A batch may wait for a grace period inside it (a
 *     table's masks full of dead rules, or 65,536 replaces waiting to be
 *     cut): no RCU reader or callback takes it. Inside it, the hit
 *     counters' slot lock (mutex, rule_hits.c), which nothing is taken
 *     inside.
 *   a TX queue's xmit lock (HARD_TX_LOCK, BHs off): one burst at a time;
 *     nothing else is taken inside it.
 *   nsl_store::lock (spinlock, BHs off, innermost): a slice's payload
 *     store. Readers take it after dropping read_lock (parking once the
 *     header is copied), writers alone or under a ring's tx_lock; nothing is taken
 *     inside it, and skbs are freed after it is dropped.
 *   Counters are per CPU and lockless.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include <linux/netslice.h>

#include "chrdev.h"
#include "iface.h"
#include "netlink.h"
#include "params.h"
#include "rule_batch.h"
#include "slice.h"

static char *ifaces = "";
module_param(ifaces, charp, 0444);
MODULE_PARM_DESC(ifaces,
		 "interfaces to attach: \"va:vb@0-1,vc\" pairs va with vb on slices 0-1, vc alone on all");

static int __init netslice_init(void)
{
	int err;

	nsl_params_init();
	nsl_slices = nsl_slices_create(nsl_nr_slices, nsl_rxq_size);
	if (IS_ERR(nsl_slices))
		return PTR_ERR(nsl_slices);

	err = nsl_rules_init();
	if (err)
		goto err_destroy_slices;

	err = nsl_iface_notifier_register();
	if (err)
		goto err_exit_rules;

	err = nsl_genl_init();
	if (err)
		goto err_unregister_notifier;

	/* A bad interface is reported by name and skipped; the rest attach. */
	if (*ifaces)
		nsl_iface_attach_list(ifaces);

	err = nsl_chrdev_init(nsl_slices, nsl_nr_slices);
	if (err)
		goto err_detach_ifaces;

	pr_info("loaded with %u slices\n", nsl_nr_slices);
	return 0;

err_detach_ifaces:
	/* Also closes attaching: a request may have come in meanwhile. */
	nsl_iface_detach_all();
	nsl_genl_exit();
err_unregister_notifier:
	nsl_iface_notifier_unregister();
err_exit_rules:
	nsl_rules_exit();
err_destroy_slices:
	nsl_slices_destroy(nsl_slices, nsl_nr_slices);
	return err;
}

static void __exit netslice_exit(void)
{
	nsl_chrdev_exit();
	nsl_iface_detach_all();
	nsl_genl_exit();
	nsl_iface_notifier_unregister();
	nsl_rules_exit();
	nsl_slices_destroy(nsl_slices, nsl_nr_slices);
}

module_init(netslice_init);
module_exit(netslice_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The netslice developers");
MODULE_DESCRIPTION("Partitioned, batched packet I/O for user-space network functions");
