// SPDX-License-Identifier: GPL-2.0
/*
 * write(2) of a slice: each iov is one frame to send out of an attached
 * interface (on the slice's own TX queue), up the host stack, or to drop:
 * a whole frame copied from user space, or a header spliced onto the
 * payload its handle parked.
 *
 * Process context. Each iov is checked on its own; a bad one gets its
 * error code and counter and does not disturb the rest of the batch.
 *
 * Per batch, not per frame: the egress is resolved (and held) once for a
 * run of iovs that name the same one, and a run's frames are built first
 * and then sent in bursts (xmit.c). Anything else (another egress, the
 * host stack, a drop, an error) sends the run before it is dealt with, so
 * the iovs a call consumed are always a prefix of the batch: a burst that
 * finds the queue stopped ends the call at its first unsent frame.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/pagemap.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>

#include <linux/netslice.h>

#include "counters.h"
#include "gso.h"
#include "port.h"
#include "skb_cb.h"
#include "slice.h"
#include "splice.h"
#include "store.h"
#include "write.h"
#include "xmit.h"

/* Each NETSLICE_TXERR_*: the errno a first bad iov returns, and its counter. */
static const struct {
	int code;
	enum ns_stat stat;
} ns_txerr[] = {
	[NETSLICE_TXERR_INVALID] = { EINVAL, NS_TX_ERR_INVALID },
	[NETSLICE_TXERR_LENGTH] = { EMSGSIZE, NS_TX_ERR_LENGTH },
	[NETSLICE_TXERR_IFINDEX] = { ENODEV, NS_TX_ERR_IFINDEX },
	[NETSLICE_TXERR_FAULT] = { EFAULT, NS_TX_ERR_FAULT },
	[NETSLICE_TXERR_NOMEM] = { ENOMEM, NS_TX_ERR_NOMEM },
	[NETSLICE_TXERR_DOWN] = { ENETDOWN, NS_TX_ERR_DOWN },
	[NETSLICE_TXERR_STALE] = { ESTALE, NS_TX_ERR_STALE },
	[NETSLICE_TXERR_FOREIGN] = { EACCES, NS_TX_ERR_FOREIGN },
	[NETSLICE_TXERR_FORGED] = { EBADMSG, NS_TX_ERR_FORGED },
	[NETSLICE_TXERR_DROPPED] = { ENOBUFS, NS_TX_ERR_DROPPED },
	[NETSLICE_TXERR_GSO] = { EPROTO, NS_TX_ERR_GSO },
};

/*
 * Frames for one egress, built and not yet sent, and the egress itself:
 * held from its first iov to the end of the call, or until an iov names
 * another.
 */
struct ns_tx_run {
	/* Where iov errors go: the caller's iovs (write), or errs[] (ring mode). */
	struct netslice_iov __user *uiov;
	u16 *errs;
	struct net_device *dev;
	u32 port;			/* the iov fields dev was resolved from */
	u32 ifindex;
	u16 action;
	int first_err;			/* the first iov's NETSLICE_TXERR_*, or 0 */
	struct netslice_iov port_iov;	/* an iov with its payload's port filled in */
	unsigned int count;
	struct sk_buff *skb[NS_XMIT_BURST];
	u64 handle[NS_XMIT_BURST];	/* the payload spliced in, or 0 */
	u32 index[NS_XMIT_BURST];	/* of its iov in the call */
	u32 len[NS_XMIT_BURST];
	u16 hlen[NS_XMIT_BURST];	/* header bytes a retry splices over */
	u16 gso_hdr[NS_XMIT_BURST];	/* a super-packet's, kept for a retry */
	u8 res[NS_XMIT_BURST];
};

/* wire_len, queue, flags and gso_* are what read reported; write ignores them. */
static bool ns_iov_valid(const struct netslice_iov *iov)
{
	return iov->action <= NETSLICE_TX_PORT;
}

static bool ns_tx_to_dev(u16 action)
{
	return action != NETSLICE_TX_HOST && action != NETSLICE_TX_DROP;
}

/*
 * Not a uapi code: the iov's user memory is not at hand (swapped out, or
 * served by FUSE or userfaultfd). A write copies with page faults off
 * while it holds an egress, and faults the memory in only after letting
 * go of it: a fault may wait on user space forever, and a held device
 * cannot unregister meanwhile.
 */
#define NS_TX_REFAULT	0x100

/*
 * Read what write needs of an iov and clear its error, in one user-access
 * section, page faults off (-EAGAIN: fault it in and retry). Clearing
 * first means an iov that cannot take its result is not sent, so no frame
 * goes out that the count leaves out.
 */
static int ns_tx_iov_get(struct netslice_iov __user *uiov, struct netslice_iov *iov)
{
	int err = -EAGAIN;

	pagefault_disable();
	if (!user_access_begin(uiov, sizeof(*uiov)))
		goto out;
	unsafe_get_user(iov->base, &uiov->base, efault);
	unsafe_get_user(iov->len, &uiov->len, efault);
	unsafe_get_user(iov->rlen, &uiov->rlen, efault);
	unsafe_get_user(iov->ifindex, &uiov->ifindex, efault);
	unsafe_get_user(iov->action, &uiov->action, efault);
	unsafe_get_user(iov->handle, &uiov->handle, efault);
	unsafe_get_user(iov->port, &uiov->port, efault);
	unsafe_put_user(0, &uiov->error, efault);
	err = 0;
efault:
	user_access_end();
out:
	pagefault_enable();
	return err;
}

static void ns_tx_put_error(struct netslice_iov __user *uiov, int err)
{
	pagefault_disable();
	(void)put_user((u16)err, &uiov->error);
	pagefault_enable();
}

/* The error code and counter of the call's index-th iov. */
static void ns_tx_fail(struct ns_slice *slice, const struct ns_tx_run *run, u32 index, int err)
{
	if (run->errs)
		run->errs[index] = err;
	else
		/*
		 * Written a moment ago, by ns_tx_iov_get(); with an egress
		 * held this may not wait on a fault: a racing munmap or
		 * write-protection only loses the code.
		 */
		ns_tx_put_error(&run->uiov[index], err);
	ns_stat_inc(slice, ns_txerr[err].stat);
}

/*
 * len bytes of an iov's data: at kdata (ring mode), else at its user base,
 * page faults off (NS_TX_REFAULT: not at hand, or not there at all).
 */
static int ns_tx_fetch(void *dst, const struct netslice_iov *iov, const void *kdata,
		       unsigned int len)
{
	if (kdata) {
		memcpy(dst, kdata, len);
		return 0;
	}
	return copy_from_user_nofault(dst, u64_to_user_ptr(iov->base), len) ? NS_TX_REFAULT : 0;
}

/*
 * The device an iov goes to, held; NULL if it is not attached or does not
 * feed this slice (opening a slice gives the right to its own interfaces
 * only). A port names the interface the same in every namespace; an
 * ifindex (TX_IFINDEX, or a zero port) is the writer's namespace's.
 */
static struct net_device *ns_tx_dev_get(const struct ns_slice *slice,
					const struct netslice_iov *iov)
{
	struct net_device *dev = NULL;
	struct ns_iface *iface;

	rcu_read_lock();
	if (iov->action == NETSLICE_TX_PORT || (iov->port && iov->action != NETSLICE_TX_IFINDEX))
		iface = ns_iface_by_port_rcu(iov->port);
	else
		iface = ns_iface_find_rcu(current->nsproxy->net_ns, iov->ifindex);
	if (iface && iov->action == NETSLICE_TX_DEFAULT)
		iface = ns_iface_by_port_rcu(READ_ONCE(iface->pair_port));
	if (iface && ns_iface_feeds(iface, slice->id)) {
		dev = iface->dev;
		dev_hold(dev);
	}
	rcu_read_unlock();
	return dev;
}

/* Longest frame dev takes: MTU, link header and one VLAN tag. */
static unsigned int ns_tx_max_len(const struct net_device *dev)
{
	return dev->mtu + dev->hard_header_len + VLAN_HLEN;
}

/*
 * A received skb as the container of a whole frame of len bytes for dev
 * (ring mode: the skb its RX frame came in), reset as a new frame; false
 * if it has not the room.
 */
static bool ns_tx_reuse(struct sk_buff *skb, struct net_device *dev, unsigned int len)
{
	if (skb_headroom(skb) < LL_RESERVED_SPACE(dev) ||
	    len > skb_headlen(skb) + skb_tailroom(skb) || skb_tailroom(skb) < dev->needed_tailroom)
		return false;
	if (len > skb->len)
		__skb_put(skb, len - skb->len);
	else
		__skb_trim(skb, len);
	skb_scrub_packet(skb, true);
	memset(skb->cb, 0, sizeof(skb->cb));
	skb->ip_summed = CHECKSUM_NONE;
	return true;
}

/*
 * A whole frame from user space (or the frame area), for dev, in *reuse
 * if it can be (then taken: *reuse NULL) or a new skb; *skbp NULL on error.
 */
static int ns_tx_copy(struct ns_slice *slice, struct net_device *dev,
		      const struct netslice_iov *iov, const void *kdata, struct sk_buff **reuse,
		      struct sk_buff **skbp)
{
	unsigned int size = LL_RESERVED_SPACE(dev) + iov->rlen + dev->needed_tailroom;
	struct sk_buff *skb;

	if (iov->rlen > iov->len || iov->rlen < ETH_HLEN || iov->rlen > ns_tx_max_len(dev))
		return NETSLICE_TXERR_LENGTH;
	if (reuse && *reuse && ns_tx_reuse(*reuse, dev, iov->rlen)) {
		skb = *reuse;
		*reuse = NULL;
		memcpy(skb->data, kdata, iov->rlen);
		goto out;
	}
	/*
	 * The head from this CPU's NAPI skb cache (BHs off is the context
	 * it needs), which read refills (ns_deliver_free()): no slab allocation.
	 * Not __netdev_alloc_skb()'s page fragments: measured, refilling
	 * them cost more than the slab. Only without memory at hand, wait.
	 */
	local_bh_disable();
	skb = __alloc_skb(size, GFP_NOWAIT | __GFP_NOWARN, SKB_ALLOC_NAPI, NUMA_NO_NODE);
	local_bh_enable();
	if (!skb)
		skb = alloc_skb(size, GFP_KERNEL);
	if (!skb)
		return NETSLICE_TXERR_NOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	if (ns_tx_fetch(skb_put(skb, iov->rlen), iov, kdata, iov->rlen)) {
		kfree_skb(skb);
		return NS_TX_REFAULT;
	}
out:
	ns_stat_add(slice, NS_WRITE_BYTES, iov->rlen);
	skb->dev = dev;
	*skbp = skb;
	return 0;
}

/*
 * A header from user space in front of the payload its handle parked, for
 * dev; with rlen 0, the header it was parked with, copying nothing. A
 * super-packet kept whole is made ready for segmentation (ns_gso_prepare())
 * and *gso_hdr is what a retry needs of it. On success the payload stays
 * claimed until the frame is sent (ns_store_finish) or found busy
 * (ns_store_unclaim, with *hlen, the header bytes it now has, and
 * *gso_hdr back in its RX metadata). Whatever fails here leaves the
 * payload parked under the same handle, so the iov can be written again.
 */
static int ns_tx_splice(struct ns_slice *slice, struct file *file, struct net_device *dev,
			const struct netslice_iov *iov, const void *kdata, struct sk_buff **skbp,
			unsigned int *hlen, u16 *gso_hdr)
{
	struct ns_store *store = &slice->store;
	struct sk_buff *skb;
	bool gso, too_long;
	unsigned int off;
	int err;

	if (iov->rlen > iov->len || (iov->rlen && iov->rlen < ETH_HLEN) ||
	    iov->rlen > NETSLICE_MAX_HEADER)
		return NETSLICE_TXERR_LENGTH;
	err = ns_store_claim(store, iov->handle, file, &skb, &off);
	if (err)
		return err;

	/* A super-packet's segments must fit dev, not the whole of it. */
	gso = skb_is_gso(skb);
	too_long = !gso && skb->len - off + (iov->rlen ?: off) > ns_tx_max_len(dev);
	if (iov->rlen) {
		err = NETSLICE_TXERR_NOMEM;
		if (ns_splice_front(skb, off, iov->rlen))
			goto err_unclaim;
		/* From here on a retry splices in place of the bytes just made room for. */
		off = iov->rlen;
		err = ns_tx_fetch(skb->data, iov, kdata, iov->rlen);
		if (err)
			goto err_unclaim;
		ns_stat_add(slice, NS_WRITE_BYTES, iov->rlen);
	}
	*gso_hdr = gso ? ns_rx_cb(skb)->gso_hdr_len : 0;
	if (too_long) {
		/* Too long for dev: only TCP can be cut to fit. */
		err = NETSLICE_TXERR_LENGTH;
		*gso_hdr = ns_gso_from_tcp(skb);
		if (!*gso_hdr)
			goto err_unclaim;
		gso = true;
	}
	if (gso) {
		err = ns_gso_prepare(skb, dev, *gso_hdr);
		if (err) {
			/* Parked again as it came: a packet, not a super-packet. */
			if (too_long)
				skb_gso_reset(skb);
			goto err_unclaim;
		}
	}

	/* A received skb goes out as a new frame: no RX state, no stale checksum. */
	skb_scrub_packet(skb, true);
	memset(skb->cb, 0, sizeof(skb->cb));
	if (!gso)
		skb->ip_summed = CHECKSUM_NONE;
	skb->dev = dev;
	*skbp = skb;
	*hlen = off;
	return 0;

err_unclaim:
	ns_store_unclaim(store, iov->handle, off);
	return err;
}

/* Free a parked payload unsent (NETSLICE_TX_DROP with a handle). */
static int ns_tx_release(struct ns_slice *slice, struct file *file, u64 handle)
{
	struct sk_buff *skb;
	unsigned int off;
	int err;

	err = ns_store_claim(&slice->store, handle, file, &skb, &off);
	if (err)
		return err;
	ns_store_finish(&slice->store, handle);
	consume_skb(skb);
	return 0;
}

static void ns_tx_run_end(struct ns_tx_run *run)
{
	if (run->dev)
		dev_put(run->dev);
	run->dev = NULL;
}

/* The iov names the egress the run resolved last (the same fields). */
static bool ns_tx_run_names(const struct ns_tx_run *run, const struct netslice_iov *iov)
{
	return iov->action == run->action && iov->port == run->port &&
	       iov->ifindex == run->ifindex;
}

/* The egress of an iov (held by the run), resolved only if it is another. */
static struct net_device *ns_tx_run_dev(struct ns_slice *slice, struct ns_tx_run *run,
					const struct netslice_iov *iov)
{
	if (run->dev && ns_tx_run_names(run, iov))
		return run->dev;
	ns_tx_run_end(run);
	run->dev = ns_tx_dev_get(slice, iov);
	run->action = iov->action;
	run->port = iov->port;
	run->ifindex = iov->ifindex;
	return run->dev;
}

static bool ns_tx_run_joins(const struct ns_tx_run *run, const struct netslice_iov *iov)
{
	return run->count < NS_XMIT_BURST && ns_tx_to_dev(iov->action) && ns_tx_run_names(run, iov);
}

/*
 * Send the run's frames. Returns the index of the first iov left unsent
 * because the queue stopped (its frame freed or its payload parked again,
 * as are all after it), or -1 when the queue took them all.
 */
static long ns_tx_run_flush(struct ns_slice *slice, struct ns_tx_run *run)
{
	struct net_device *dev = run->dev;
	unsigned int i, txqs, n = run->count, done = 0;
	long stopped = -1;

	if (!n)
		return -1;
	run->count = 0;
	/* dev is held, but may be unregistering: its queue count then is 0. */
	txqs = READ_ONCE(dev->real_num_tx_queues);
	if (likely(txqs)) {
		ns_xmit_burst(dev, slice->id % txqs, run->skb, n, run->res);
	} else {
		for (i = 0; i < n; i++) {
			kfree_skb(run->skb[i]);
			run->res[i] = NS_XMIT_DOWN;
		}
	}

	for (i = 0; i < n; i++) {
		u64 handle = run->handle[i];

		if (run->res[i] == NS_XMIT_BUSY) {
			if (stopped < 0)
				stopped = run->index[i];
			if (handle) {
				ns_rx_cb(run->skb[i])->gso_hdr_len = run->gso_hdr[i];
				ns_store_unclaim(&slice->store, handle, run->hlen[i]);
			} else {
				kfree_skb(run->skb[i]);
			}
			continue;
		}
		/* Gone either way: its slot is freed with the run's others below. */
		if (handle)
			run->handle[done++] = handle;
		if (run->res[i] == NS_XMIT_SENT) {
			ns_stat_inc(slice, NS_TX_PACKETS);
			ns_stat_add(slice, NS_TX_BYTES, run->len[i]);
			if (handle)
				ns_stat_inc(slice, NS_TX_SPLICED);
			if (run->gso_hdr[i])
				ns_stat_inc(slice, NS_TX_GSO);
		} else {
			int err = run->res[i] == NS_XMIT_DOWN ? NETSLICE_TXERR_DOWN :
								NETSLICE_TXERR_DROPPED;

			ns_tx_fail(slice, run, run->index[i], err);
			if (!run->index[i])
				run->first_err = err;
		}
	}
	if (done)
		ns_store_finish_many(&slice->store, run->handle, done);
	if (stopped >= 0)
		ns_stat_inc(slice, NS_TX_BUSY);
	return stopped;
}

/*
 * Deal with one iov: a frame for the run's egress joins the run (the
 * caller has sent any run it does not join); anything else is done now.
 * Returns 0 or the iov's NETSLICE_TXERR_* code.
 */
static int ns_tx_one(struct ns_slice *slice, struct file *file, struct ns_tx_run *run,
		     const struct netslice_iov *iov, const void *kdata, struct sk_buff **reuse,
		     u32 index)
{
	unsigned int hlen = 0;
	struct net_device *dev;
	struct sk_buff *skb;
	u16 gso_hdr = 0;
	int err;

	if (!ns_iov_valid(iov))
		return NETSLICE_TXERR_INVALID;
	if (iov->action == NETSLICE_TX_DROP) {
		err = iov->handle ? ns_tx_release(slice, file, iov->handle) : 0;
		if (!err)
			ns_stat_inc(slice, NS_TX_NF_DROP);
		return err;
	}
	/*
	 * Back where it came from, port 0: a payload read knows its port,
	 * which the iov's ifindex (its namespace's number) may not name in
	 * the writer's namespace.
	 */
	if (iov->handle && !iov->port &&
	    (iov->action == NETSLICE_TX_DEFAULT || iov->action == NETSLICE_TX_HOST)) {
		struct netslice_iov *own = &run->port_iov;

		*own = *iov;
		own->port = ns_store_port(&slice->store, iov->handle, file);
		if (own->port)
			iov = own;
	}
	dev = ns_tx_run_dev(slice, run, iov);
	if (!dev)
		return NETSLICE_TXERR_IFINDEX;
	if (iov->handle)
		err = ns_tx_splice(slice, file, dev, iov, kdata, &skb, &hlen, &gso_hdr);
	else
		err = ns_tx_copy(slice, dev, iov, kdata, reuse, &skb);
	if (err)
		return err;
	skb_reset_mac_header(skb);
	if (!ns_tx_to_dev(iov->action)) {
		/* Up the host stack, as if received on dev. */
		if (iov->handle) {
			ns_store_finish(&slice->store, iov->handle);
			ns_stat_inc(slice, NS_TX_SPLICED);
		}
		if (gso_hdr)
			ns_stat_inc(slice, NS_TX_GSO);
		ns_xmit_to_host(skb);
		ns_stat_inc(slice, NS_TX_HOST);
		return 0;
	}
	/* A super-packet's headers were found by ns_gso_prepare(). */
	if (!gso_hdr) {
		skb_set_network_header(skb, ETH_HLEN);
		skb->protocol = eth_hdr(skb)->h_proto;
	}
	run->skb[run->count] = skb;
	run->handle[run->count] = iov->handle;
	run->index[run->count] = index;
	run->len[run->count] = skb->len;
	run->hlen[run->count] = hlen;
	run->gso_hdr[run->count] = gso_hdr;
	run->count++;
	return 0;
}

static void ns_tx_run_init(struct ns_tx_run *run, struct netslice_iov __user *uiov, u16 *errs)
{
	run->uiov = uiov;
	run->errs = errs;
	run->dev = NULL;
	run->count = 0;
	run->first_err = 0;
}

/*
 * iov index fails with err: send what came before first, so that the
 * count covers this iov. Returns as ns_tx_run_flush().
 */
static long ns_tx_reject(struct ns_slice *slice, struct ns_tx_run *run, u32 index, int err)
{
	long stopped = ns_tx_run_flush(slice, run);

	if (stopped < 0)
		ns_tx_fail(slice, run, index, err);
	return stopped;
}

/*
 * The call's index-th iov, after those before it. Returns -1 to go on, or
 * the index of the first iov left unsent because the egress stopped (the
 * call ends there). *err is the iov's own NETSLICE_TXERR_*, or 0, with
 * its error and counter already set.
 */
static long ns_tx_step(struct ns_slice *slice, struct file *file, struct ns_tx_run *run,
		       const struct netslice_iov *iov, const void *kdata, struct sk_buff **reuse,
		       u32 index, int *err)
{
	long stopped;

	if (run->count && !ns_tx_run_joins(run, iov)) {
		stopped = ns_tx_run_flush(slice, run);
		if (stopped >= 0)
			return stopped;
	}
	*err = ns_tx_one(slice, file, run, iov, kdata, reuse, index);
	/* The caller faults the memory in, with no egress held, and retries. */
	if (!*err || *err == NS_TX_REFAULT)
		return -1;
	return ns_tx_reject(slice, run, index, *err);
}

/*
 * Before a fault on user memory: send the run and let go of its egress.
 * Returns as ns_tx_run_flush().
 */
static long ns_tx_unhold(struct ns_slice *slice, struct ns_tx_run *run)
{
	long stopped = ns_tx_run_flush(slice, run);

	ns_tx_run_end(run);
	return stopped;
}

/* Send the run left and let go of its egress: as ns_tx_step(). */
static long ns_tx_finish(struct ns_slice *slice, struct ns_tx_run *run, long stopped)
{
	if (stopped < 0)
		stopped = ns_tx_run_flush(slice, run);
	ns_tx_run_end(run);
	return stopped;
}

/*
 * Ring mode (ring.c): send iovs[0..n), copies of TX ring entries whose
 * @base is an offset in the frame area frames of frames_len bytes. Each
 * entry's error goes in errs[]; a bad one fails alone. reuse[i], if not
 * NULL, is an skb the caller hands over for entry i's whole frame to go
 * out in: taken, or freed here. Returns the number consumed, fewer than
 * n when the egress stopped.
 */
size_t ns_tx_ring(struct ns_slice *slice, struct file *file, struct netslice_iov *iovs,
		  size_t n, const void *frames, size_t frames_len, u16 *errs,
		  struct sk_buff **reuse)
{
	struct ns_tx_run run;
	long stopped = -1;
	size_t i;
	int err;

	ns_tx_run_init(&run, NULL, errs);
	for (i = 0; i < n && stopped < 0; i++) {
		struct netslice_iov *iov = &iovs[i];

		errs[i] = 0;
		/* The entry names its frame by offset: checked, then kernel memory. */
		iov->len = iov->rlen;
		if (iov->rlen > frames_len || iov->base > frames_len - iov->rlen) {
			stopped = ns_tx_reject(slice, &run, i, NETSLICE_TXERR_FAULT);
			continue;
		}
		stopped = ns_tx_step(slice, file, &run, iov, frames + iov->base, &reuse[i], i,
				     &err);
	}
	stopped = ns_tx_finish(slice, &run, stopped);
	/* Containers not used: a bad entry, a handle, too small, not reached. */
	for (i = 0; i < n; i++)
		consume_skb(reuse[i]);
	return stopped >= 0 ? stopped : n;
}

ssize_t ns_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct netslice_iov __user *uiov = (struct netslice_iov __user *)buf;
	struct ns_slice *slice = file->private_data;
	size_t n = ns_batch_limit(slice, count, NETSLICE_MULTI_WRITE);
	struct netslice_iov iov;
	struct ns_tx_run run;
	bool fault = false;
	long stopped = -1;
	size_t i;
	int err;

	ns_tx_run_init(&run, uiov, NULL);
	for (i = 0; i < n; i++) {
		/* At most one fault-in each for the iov and its data: then, a fault. */
		unsigned int refaults = 0;

again:
		if (ns_tx_iov_get(&uiov[i], &iov)) {
			if (refaults++ < 2) {
				stopped = ns_tx_unhold(slice, &run);
				if (stopped >= 0)
					break;
				if (!fault_in_writeable((char __user *)&uiov[i], sizeof(*uiov)))
					goto again;
			}
			fault = true;
			break;
		}
		err = 0;
		stopped = ns_tx_step(slice, file, &run, &iov, NULL, NULL, i, &err);
		if (stopped >= 0)
			break;
		if (err == NS_TX_REFAULT) {
			if (refaults++ < 2) {
				stopped = ns_tx_unhold(slice, &run);
				if (stopped >= 0)
					break;
				if (!fault_in_readable(u64_to_user_ptr(iov.base), iov.rlen))
					goto again;
			}
			err = NETSLICE_TXERR_FAULT;
			stopped = ns_tx_reject(slice, &run, i, err);
			if (stopped >= 0)
				break;
		}
		if (err && !i) {
			/* A first bad iov ends the call, so the caller sees it at once. */
			run.first_err = err;
			i++;
			break;
		}
	}
	stopped = ns_tx_finish(slice, &run, stopped);

	if (stopped >= 0)
		i = stopped;
	if (i == 1 && run.first_err)
		return -ns_txerr[run.first_err].code;
	if (!i && fault)
		return -EFAULT;
	if (!i && stopped >= 0 && (file->f_flags & O_NONBLOCK))
		return -EAGAIN;
	return i;
}
