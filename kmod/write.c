// SPDX-License-Identifier: GPL-2.0
/*
 * write(2) of a slice: each iov is one frame to send out of an attached
 * interface (on the slice's own TX queue), up the host stack, to the
 * next slice of a chain (chain.c, rx.c), or to drop:
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
 *
 * A payload handle is claimed from its store (nsl_payload_claim()) and
 * leaves by one way, nsl_payload_exit(): finished when its frame went,
 * parked again when it did not, freed when the writer drops it.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/pagemap.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>

#include <linux/netslice.h>

#include "chain.h"
#include "compat.h"
#include "counters.h"
#include "gso.h"
#include "port.h"
#include "rx.h"
#include "skb_cb.h"
#include "slice.h"
#include "splice.h"
#include "rstore.h"
#include "store.h"
#include "txerr.h"
#include "write.h"
#include "xmit.h"

/* Each code write reports: the errno a first bad iov returns, and its counter. */
static const struct {
	int code;
	enum nsl_stat stat;
} nsl_txerr[NSL_TXERR_UAPI_MAX + 1] = {
	[NSL_TXERR_INVALID] = { EINVAL, NSL_TX_ERR_INVALID },
	[NSL_TXERR_LENGTH] = { EMSGSIZE, NSL_TX_ERR_LENGTH },
	[NSL_TXERR_IFINDEX] = { ENODEV, NSL_TX_ERR_IFINDEX },
	[NSL_TXERR_FAULT] = { EFAULT, NSL_TX_ERR_FAULT },
	[NSL_TXERR_NOMEM] = { ENOMEM, NSL_TX_ERR_NOMEM },
	[NSL_TXERR_DOWN] = { ENETDOWN, NSL_TX_ERR_DOWN },
	[NSL_TXERR_STALE] = { ESTALE, NSL_TX_ERR_STALE },
	[NSL_TXERR_FOREIGN] = { EACCES, NSL_TX_ERR_FOREIGN },
	[NSL_TXERR_FORGED] = { EBADMSG, NSL_TX_ERR_FORGED },
	[NSL_TXERR_DROPPED] = { ENOBUFS, NSL_TX_ERR_DROPPED },
	[NSL_TXERR_GSO] = { EPROTO, NSL_TX_ERR_GSO },
	[NSL_TXERR_LOOP] = { ELOOP, NSL_TX_ERR_LOOP },
};

/* An iov being sent, and where its bytes are. */
struct nsl_tx_iov {
	const struct netslice_iov *iov;
	const void *kdata;		/* ring mode: its bytes, in the frame area; else NULL */
	struct sk_buff **reuse;		/* ring mode: an skb its whole frame may go out in */
	u32 index;			/* of the iov in the call */
};

/*
 * A frame of a run, built and not yet sent: what its accounting needs, and
 * what its payload needs to be parked again.
 */
struct nsl_tx_frame {
	u64 handle;		/* the payload spliced in, or 0 */
	u32 index;		/* of its iov in the call */
	u32 len;
	u32 rx_port;		/* the payload's, kept for a retry */
	u16 hlen;		/* header bytes a retry splices over */
	u16 gso_hdr;		/* a super-packet's, kept for a retry */
	u8 hops;		/* the payload's handoffs so far (chains) */
};

/*
 * Frames for one egress, built and not yet sent, and the egress itself:
 * held from its first iov to the end of the call, or until an iov names
 * another.
 */
struct nsl_tx_run {
	struct nsl_slice *slice;
	struct file *file;		/* the writer: the owner of the payloads it names */
	/* Where iov errors go: the caller's iovs (write), or errs[] (ring mode). */
	struct netslice_iov __user *uiov;
	u16 *errs;
	struct net_device *dev;
	u32 dev_port;			/* dev's port */
	u32 port;			/* the iov fields dev was resolved from */
	u32 ifindex;
	u16 action;
	enum nsl_txerr first_err;	/* the first iov's, if it failed */
	/* The egress's queue stopped: the call ends at iov stopped_at, unsent. */
	bool stopped;
	u32 stopped_at;
	struct netslice_iov port_iov;	/* an iov with its payload's port filled in */
	struct nsl_rstore *rs;		/* ring mode: the ring's payload store */
	/* Handles of the slice's store sent, their slots freed together (nsl_payload_commit()). */
	u64 finished[NSL_XMIT_BURST];
	unsigned int nr_finished;
	unsigned int count;
	/* The burst as nsl_xmit_burst() takes it, then each frame's own. */
	struct sk_buff *skb[NSL_XMIT_BURST];
	u8 res[NSL_XMIT_BURST];
	struct nsl_tx_frame frame[NSL_XMIT_BURST];
};

/*
 * A written handle's payload is in the ring's store if the ring parked it
 * (NSL_HANDLE_RING), else in the slice's: parked by read, or in ring mode
 * since left (a handle from the other store is foreign there).
 */
static bool nsl_payload_in_ring(const struct nsl_tx_run *run, u64 handle)
{
	return run->rs && handle & NSL_HANDLE_RING;
}

/* The port a parked payload arrived on, or 0 (no such payload). */
static u32 nsl_payload_port(const struct nsl_tx_run *run, u64 handle)
{
	if (nsl_payload_in_ring(run, handle))
		return nsl_rstore_port(run->rs, handle);
	return nsl_store_port(&run->slice->store, handle, run->file);
}

/* Take a parked payload for a frame: it then leaves by nsl_payload_exit(). */
static enum nsl_txerr nsl_payload_claim(const struct nsl_tx_run *run, u64 handle,
					struct sk_buff **skb, unsigned int *off)
{
	if (nsl_payload_in_ring(run, handle))
		return nsl_rstore_claim(run->rs, handle, skb, off);
	return nsl_store_claim(&run->slice->store, handle, run->file, skb, off);
}

/* How a claimed payload leaves the write path. */
enum nsl_payload_fate {
	NSL_PAYLOAD_SENT,	/* out, up the stack or lost on the way: its slot is free */
	NSL_PAYLOAD_PARKED,	/* not sent: parked again, frame->hlen header bytes in front */
	NSL_PAYLOAD_FREED,	/* dropped by the writer: freed, and its slot */
};

/* The slice's store frees the slots of the payloads sent in one lock round. */
static void nsl_payload_commit(struct nsl_tx_run *run)
{
	if (run->nr_finished)
		nsl_store_finish_many(&run->slice->store, run->finished, run->nr_finished);
	run->nr_finished = 0;
}

/*
 * The one way out of the write path for the payload of frame, claimed by
 * nsl_payload_claim() (skb): finished, unclaimed or freed, in the store
 * it came from. A slot of the slice's store is freed at the next
 * nsl_payload_commit(): the end of the iov, or of the burst.
 */
static void nsl_payload_exit(struct nsl_tx_run *run, const struct nsl_tx_frame *frame,
			     struct sk_buff *skb, enum nsl_payload_fate how)
{
	bool in_ring = nsl_payload_in_ring(run, frame->handle);

	if (how == NSL_PAYLOAD_PARKED) {
		if (in_ring)
			nsl_rstore_unclaim(run->rs, frame->handle, frame->hlen);
		else
			nsl_store_unclaim(&run->slice->store, frame->handle, frame->hlen);
		return;
	}
	if (in_ring) {
		nsl_rstore_finish(run->rs, frame->handle);
	} else {
		if (run->nr_finished == ARRAY_SIZE(run->finished))
			nsl_payload_commit(run);
		run->finished[run->nr_finished++] = frame->handle;
	}
	if (how == NSL_PAYLOAD_FREED)
		consume_skb(skb);
}

/* wire_len, queue, flags and gso_* are what read reported; write ignores them. */
static bool nsl_iov_valid(const struct netslice_iov *iov)
{
	return iov->action <= NETSLICE_TX_NEXT;
}

static bool nsl_tx_to_dev(u16 action)
{
	return action != NETSLICE_TX_HOST && action != NETSLICE_TX_DROP &&
	       action != NETSLICE_TX_NEXT;
}

/*
 * Read what write needs of an iov and clear its error, in one user-access
 * section, page faults off (-EAGAIN: fault it in and retry). Clearing
 * first means an iov that cannot take its result is not sent, so no frame
 * goes out that the count leaves out.
 */
static int nsl_tx_iov_get(struct netslice_iov __user *uiov, struct netslice_iov *iov)
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

static void nsl_tx_put_error(struct netslice_iov __user *uiov, enum nsl_txerr err)
{
	pagefault_disable();
	(void)put_user((u16)err, &uiov->error);
	pagefault_enable();
}

/* The error code and counter of the call's index-th iov. */
static void nsl_tx_fail(const struct nsl_tx_run *run, u32 index, enum nsl_txerr err)
{
	if (run->errs)
		run->errs[index] = err;
	else
		/*
		 * Written a moment ago, by nsl_tx_iov_get(); with an egress
		 * held this may not wait on a fault: a racing munmap or
		 * write-protection only loses the code.
		 */
		nsl_tx_put_error(&run->uiov[index], err);
	nsl_stat_inc(run->slice, nsl_txerr[err].stat);
}

/*
 * len bytes of an iov's data: at kdata (ring mode), else at its user base,
 * page faults off (NSL_TXERR_REFAULT: not at hand, or not there at all).
 */
static enum nsl_txerr nsl_tx_fetch(void *dst, const struct nsl_tx_iov *in, unsigned int len)
{
	if (in->kdata) {
		memcpy(dst, in->kdata, len);
		return NSL_TXERR_NONE;
	}
	return copy_from_user_nofault(dst, u64_to_user_ptr(in->iov->base), len) ?
	       NSL_TXERR_REFAULT : NSL_TXERR_NONE;
}

/*
 * The device an iov goes to, held, and its port; NULL if it is not
 * attached or does not feed this slice or one before it in a chain
 * (opening a slice gives the right to its own interfaces only). A port
 * names the interface the same in every namespace; an ifindex
 * (TX_IFINDEX, or a zero port) is the writer's namespace's. For the host
 * stack and the next slice, the interface the frame arrives on.
 */
static struct net_device *nsl_tx_dev_get(const struct nsl_slice *slice,
					 const struct netslice_iov *iov, u32 *port)
{
	struct net_device *dev = NULL;
	struct nsl_iface *iface;

	rcu_read_lock();
	if (iov->action == NETSLICE_TX_PORT || (iov->port && iov->action != NETSLICE_TX_IFINDEX))
		iface = nsl_iface_by_port_rcu(iov->port);
	else
		iface = nsl_iface_find_rcu(current->nsproxy->net_ns, iov->ifindex);
	if (iface && iov->action == NETSLICE_TX_DEFAULT)
		iface = nsl_iface_by_port_rcu(READ_ONCE(iface->pair_port));
	if (iface && nsl_chain_feeds(slice, iface)) {
		dev = iface->dev;
		*port = iface->port;
		dev_hold(dev);
	}
	rcu_read_unlock();
	return dev;
}

/* Longest frame dev takes: MTU, link header and one VLAN tag. */
static unsigned int nsl_tx_max_len(const struct net_device *dev)
{
	return dev->mtu + dev->hard_header_len + VLAN_HLEN;
}

/*
 * A received skb as the container of a whole frame of len bytes for dev
 * (ring mode: the skb its RX frame came in), reset as a new frame; false
 * if it has not the room.
 */
static bool nsl_tx_reuse(struct sk_buff *skb, struct net_device *dev, unsigned int len)
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
	/* New bytes from user space: whatever a NIC decrypted is gone. */
	nsl_skb_clear_decrypted(skb);
	return true;
}

/*
 * A whole frame from user space (or the frame area), for the run's
 * egress, in *in->reuse if it can be (then taken: *in->reuse NULL) or a
 * new skb; *skbp NULL on error.
 */
static enum nsl_txerr nsl_tx_copy(const struct nsl_tx_run *run, const struct nsl_tx_iov *in,
				  struct sk_buff **skbp)
{
	const struct netslice_iov *iov = in->iov;
	struct net_device *dev = run->dev;
	unsigned int size = LL_RESERVED_SPACE(dev) + iov->rlen + dev->needed_tailroom;
	struct sk_buff *skb;

	if (iov->rlen > iov->len || iov->rlen < ETH_HLEN || iov->rlen > nsl_tx_max_len(dev))
		return NSL_TXERR_LENGTH;
	if (in->reuse && *in->reuse && nsl_tx_reuse(*in->reuse, dev, iov->rlen)) {
		skb = *in->reuse;
		*in->reuse = NULL;
		memcpy(skb->data, in->kdata, iov->rlen);
		goto out;
	}
	/*
	 * The head from this CPU's NAPI skb cache (BHs off is the context
	 * it needs), which read refills (nsl_deliver_free()): no slab allocation.
	 * Not __netdev_alloc_skb()'s page fragments: measured, refilling
	 * them cost more than the slab. Only without memory at hand, wait.
	 */
	local_bh_disable();
	skb = __alloc_skb(size, GFP_NOWAIT | __GFP_NOWARN, SKB_ALLOC_NAPI, NUMA_NO_NODE);
	local_bh_enable();
	if (!skb)
		skb = alloc_skb(size, GFP_KERNEL);
	if (!skb)
		return NSL_TXERR_NOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	if (nsl_tx_fetch(skb_put(skb, iov->rlen), in, iov->rlen)) {
		kfree_skb(skb);
		return NSL_TXERR_REFAULT;
	}
out:
	nsl_stat_add(run->slice, NSL_WRITE_BYTES, iov->rlen);
	skb->dev = dev;
	*skbp = skb;
	return NSL_TXERR_NONE;
}

/*
 * A header from user space in front of the payload frame->handle parked,
 * for the run's egress; with rlen 0, the header it was parked with,
 * copying nothing. A super-packet kept whole is made ready for
 * segmentation (nsl_gso_prepare()). On success the payload stays claimed
 * until it leaves by nsl_payload_exit(), and frame holds what that needs:
 * hlen, the header bytes it now has, and the RX port and gso_hdr a
 * parking again puts back. Whatever fails here leaves the payload parked
 * under the same handle, so the iov can be written again.
 */
static enum nsl_txerr nsl_tx_splice(struct nsl_tx_run *run, const struct nsl_tx_iov *in,
				    struct nsl_tx_frame *frame, struct sk_buff **skbp)
{
	const struct netslice_iov *iov = in->iov;
	struct net_device *dev = run->dev;
	struct sk_buff *skb;
	bool gso, too_long;
	enum nsl_txerr err;
	unsigned int off;

	if (iov->rlen > iov->len || (iov->rlen && iov->rlen < ETH_HLEN) ||
	    iov->rlen > NETSLICE_MAX_HEADER)
		return NSL_TXERR_LENGTH;
	err = nsl_payload_claim(run, frame->handle, &skb, &off);
	if (err)
		return err;

	/*
	 * A super-packet's segments must fit dev, not the whole of it. The
	 * next slice of a chain takes any length: its writer fits it.
	 */
	gso = skb_is_gso(skb);
	too_long = !gso && iov->action != NETSLICE_TX_NEXT &&
		   skb->len - off + (iov->rlen ?: off) > nsl_tx_max_len(dev);
	if (iov->rlen) {
		err = NSL_TXERR_NOMEM;
		if (nsl_splice_front(skb, off, iov->rlen))
			goto err_park;
		/* From here on a retry splices in place of the bytes just made room for. */
		off = iov->rlen;
		err = nsl_tx_fetch(skb->data, in, iov->rlen);
		if (err)
			goto err_park;
		nsl_stat_add(run->slice, NSL_WRITE_BYTES, iov->rlen);
	}
	frame->gso_hdr = gso ? nsl_rx_cb(skb)->gso_hdr_len : 0;
	if (too_long) {
		/* Too long for dev: only TCP can be cut to fit. */
		err = NSL_TXERR_LENGTH;
		frame->gso_hdr = nsl_gso_from_tcp(skb);
		if (!frame->gso_hdr)
			goto err_park;
		gso = true;
	}
	if (gso) {
		/* Handed on, its segments fit the egress the last slice picks. */
		err = nsl_gso_prepare(skb, iov->action == NETSLICE_TX_NEXT ? NULL : dev,
				      frame->gso_hdr);
		if (err) {
			/* Parked again as it came: a packet, not a super-packet. */
			if (too_long)
				skb_gso_reset(skb);
			goto err_park;
		}
	}

	/* A received skb goes out as a new frame: no RX state, no stale checksum. */
	skb_scrub_packet(skb, true);
	/* A retry's "back where it came from" needs it (nsl_rstore_port()). */
	frame->rx_port = nsl_rx_cb(skb)->port;
	frame->hops = nsl_rx_cb(skb)->hops;
	memset(skb->cb, 0, sizeof(skb->cb));
	if (!gso)
		skb->ip_summed = CHECKSUM_NONE;
	skb->dev = dev;
	*skbp = skb;
	frame->hlen = off;
	return NSL_TXERR_NONE;

err_park:
	frame->hlen = off;
	nsl_payload_exit(run, frame, skb, NSL_PAYLOAD_PARKED);
	return err;
}

/* Free a parked payload unsent (NETSLICE_TX_DROP with a handle). */
static enum nsl_txerr nsl_tx_release(struct nsl_tx_run *run, const struct nsl_tx_frame *frame)
{
	struct sk_buff *skb;
	enum nsl_txerr err;
	unsigned int off;

	err = nsl_payload_claim(run, frame->handle, &skb, &off);
	if (err)
		return err;
	nsl_payload_exit(run, frame, skb, NSL_PAYLOAD_FREED);
	return NSL_TXERR_NONE;
}

static void nsl_tx_run_end(struct nsl_tx_run *run)
{
	if (run->dev)
		dev_put(run->dev);
	run->dev = NULL;
}

/* The iov names the egress the run resolved last (the same fields). */
static bool nsl_tx_run_names(const struct nsl_tx_run *run, const struct netslice_iov *iov)
{
	return iov->action == run->action && iov->port == run->port &&
	       iov->ifindex == run->ifindex;
}

/* The egress of an iov (held by the run), resolved only if it is another. */
static struct net_device *nsl_tx_run_dev(struct nsl_tx_run *run, const struct netslice_iov *iov)
{
	if (run->dev && nsl_tx_run_names(run, iov))
		return run->dev;
	nsl_tx_run_end(run);
	run->dev = nsl_tx_dev_get(run->slice, iov, &run->dev_port);
	run->action = iov->action;
	run->port = iov->port;
	run->ifindex = iov->ifindex;
	return run->dev;
}

static bool nsl_tx_run_joins(const struct nsl_tx_run *run, const struct netslice_iov *iov)
{
	return run->count < NSL_XMIT_BURST && nsl_tx_to_dev(iov->action) &&
	       nsl_tx_run_names(run, iov);
}

/*
 * A frame of a burst the stopped queue did not take: the run stops at
 * the first; each is freed, or its payload parked again as it came.
 */
static void nsl_tx_unsent(struct nsl_tx_run *run, const struct nsl_tx_frame *frame,
			  struct sk_buff *skb)
{
	if (!run->stopped) {
		run->stopped = true;
		run->stopped_at = frame->index;
	}
	if (!frame->handle) {
		kfree_skb(skb);
		return;
	}
	/* The qdisc's cb now: put back what a retry needs of the RX metadata. */
	memset(skb->cb, 0, sizeof(skb->cb));
	nsl_rx_cb(skb)->port = frame->rx_port;
	nsl_rx_cb(skb)->gso_hdr_len = frame->gso_hdr;
	nsl_rx_cb(skb)->hops = frame->hops;
	nsl_payload_exit(run, frame, skb, NSL_PAYLOAD_PARKED);
}

/* What became of a frame the device queue took, or refused, in its counters. */
static void nsl_tx_account(struct nsl_tx_run *run, const struct nsl_tx_frame *frame, u8 res)
{
	struct nsl_slice *slice = run->slice;
	enum nsl_txerr err;

	if (res == NSL_XMIT_SENT) {
		nsl_stat_inc(slice, NSL_TX_PACKETS);
		nsl_stat_add(slice, NSL_TX_BYTES, frame->len);
		if (frame->handle)
			nsl_stat_inc(slice, NSL_TX_SPLICED);
		if (frame->gso_hdr)
			nsl_stat_inc(slice, NSL_TX_GSO);
		return;
	}
	err = res == NSL_XMIT_DOWN ? NSL_TXERR_DOWN : NSL_TXERR_DROPPED;
	nsl_tx_fail(run, frame->index, err);
	if (!frame->index)
		run->first_err = err;
}

/*
 * Send the run's frames. If the queue stopped, the first frame it did not
 * take, and all after it, are freed or their payloads parked again: the
 * run is then stopped at that frame's iov (and true is returned).
 */
static bool nsl_tx_run_flush(struct nsl_tx_run *run)
{
	unsigned int i, txqs, n = run->count;
	struct net_device *dev = run->dev;

	/* A stopped run holds no frames: stopped is set only below. */
	if (!n)
		return false;
	run->count = 0;
	/* dev is held, but may be unregistering: its queue count then is 0. */
	txqs = READ_ONCE(dev->real_num_tx_queues);
	if (likely(txqs)) {
		nsl_xmit_burst(dev, run->slice->id % txqs, run->skb, n, run->res);
	} else {
		for (i = 0; i < n; i++) {
			kfree_skb(run->skb[i]);
			run->res[i] = NSL_XMIT_DOWN;
		}
	}

	for (i = 0; i < n; i++) {
		const struct nsl_tx_frame *frame = &run->frame[i];

		if (run->res[i] == NSL_XMIT_BUSY) {
			nsl_tx_unsent(run, frame, run->skb[i]);
			continue;
		}
		/* Gone either way. */
		if (frame->handle)
			nsl_payload_exit(run, frame, run->skb[i], NSL_PAYLOAD_SENT);
		nsl_tx_account(run, frame, run->res[i]);
	}
	nsl_payload_commit(run);
	if (run->stopped)
		nsl_stat_inc(run->slice, NSL_TX_BUSY);
	return run->stopped;
}

/*
 * The iov as the write path takes it (a copy in the run, when it differs):
 * NETSLICE_TX_DEFAULT of a slice with a next slice is NETSLICE_TX_NEXT;
 * and back where it came from with port 0, a payload read knows its port,
 * which the iov's ifindex (its namespace's number) may not name in the
 * writer's namespace.
 */
static const struct netslice_iov *nsl_tx_own_iov(struct nsl_tx_run *run,
						 const struct netslice_iov *iov)
{
	bool to_next = iov->action == NETSLICE_TX_DEFAULT && nsl_chain_next(run->slice);
	struct netslice_iov *own = &run->port_iov;
	u32 port = 0;

	if (iov->handle && !iov->port &&
	    (iov->action == NETSLICE_TX_DEFAULT || iov->action == NETSLICE_TX_HOST ||
	     iov->action == NETSLICE_TX_NEXT))
		port = nsl_payload_port(run, iov->handle);
	if (!to_next && !port)
		return iov;
	*own = *iov;
	if (to_next)
		own->action = NETSLICE_TX_NEXT;
	if (port)
		own->port = port;
	return own;
}

/*
 * To next, the slice after this one, as if received on the run's egress
 * (the frame's arrival interface). Its payload, if any, left this
 * slice's store whatever becomes of it: handed on, or freed.
 */
static enum nsl_txerr nsl_tx_to_next(struct nsl_tx_run *run, struct nsl_slice *next,
				     const struct nsl_tx_frame *frame, struct sk_buff *skb)
{
	enum nsl_txerr err;

	if (frame->handle)
		nsl_payload_exit(run, frame, skb, NSL_PAYLOAD_SENT);
	/* Only a payload counts its hops: a whole frame is a new packet each time. */
	if (frame->hops >= NETSLICE_CHAIN_MAX_HOPS) {
		kfree_skb(skb);
		return NSL_TXERR_LOOP;
	}
	err = nsl_rx_handoff(next, skb, run->dev, run->dev_port, frame->hops + 1);
	if (err)
		return err;
	nsl_stat_inc(run->slice, NSL_TX_CHAINED);
	if (frame->handle)
		nsl_stat_inc(run->slice, NSL_TX_SPLICED);
	if (frame->gso_hdr)
		nsl_stat_inc(run->slice, NSL_TX_GSO);
	return NSL_TXERR_NONE;
}

/* Up the host stack, as if received on the run's egress. */
static void nsl_tx_to_host(struct nsl_tx_run *run, const struct nsl_tx_frame *frame,
			   struct sk_buff *skb)
{
	struct nsl_slice *slice = run->slice;

	if (frame->handle) {
		nsl_payload_exit(run, frame, skb, NSL_PAYLOAD_SENT);
		nsl_stat_inc(slice, NSL_TX_SPLICED);
	}
	if (frame->gso_hdr)
		nsl_stat_inc(slice, NSL_TX_GSO);
	nsl_xmit_to_host(skb);
	nsl_stat_inc(slice, NSL_TX_HOST);
}

/*
 * Deal with one iov: a frame for the run's egress joins the run (the
 * caller has sent any run it does not join); anything else is done now.
 * The frame is built in the run's next slot, which it takes only if it
 * joins. Returns why it failed, if it did.
 */
static enum nsl_txerr nsl_tx_one(struct nsl_tx_run *run, const struct nsl_tx_iov *in)
{
	struct nsl_tx_frame *frame = &run->frame[run->count];
	const struct netslice_iov *iov = in->iov;
	struct nsl_slice *next = NULL;
	struct sk_buff *skb;
	enum nsl_txerr err;

	if (!nsl_iov_valid(iov))
		return NSL_TXERR_INVALID;
	/* One read of the chain: the frame goes where it said when it was built. */
	if (iov->action == NETSLICE_TX_NEXT) {
		next = nsl_chain_next(run->slice);
		if (!next)
			return NSL_TXERR_IFINDEX;
	}
	*frame = (struct nsl_tx_frame){ .handle = iov->handle, .index = in->index };
	if (iov->action == NETSLICE_TX_DROP) {
		err = iov->handle ? nsl_tx_release(run, frame) : NSL_TXERR_NONE;
		if (!err)
			nsl_stat_inc(run->slice, NSL_TX_NF_DROP);
		return err;
	}
	if (!nsl_tx_run_dev(run, iov))
		return NSL_TXERR_IFINDEX;
	if (iov->handle)
		err = nsl_tx_splice(run, in, frame, &skb);
	else
		err = nsl_tx_copy(run, in, &skb);
	if (err)
		return err;
	skb_reset_mac_header(skb);
	if (next)
		return nsl_tx_to_next(run, next, frame, skb);
	if (!nsl_tx_to_dev(iov->action)) {
		nsl_tx_to_host(run, frame, skb);
		return NSL_TXERR_NONE;
	}
	/* A super-packet's headers were found by nsl_gso_prepare(). */
	if (!frame->gso_hdr) {
		skb_set_network_header(skb, ETH_HLEN);
		skb->protocol = eth_hdr(skb)->h_proto;
	}
	frame->len = skb->len;
	run->skb[run->count++] = skb;
	return NSL_TXERR_NONE;
}

static void nsl_tx_run_init(struct nsl_tx_run *run, struct nsl_slice *slice, struct file *file,
			    struct netslice_iov __user *uiov, u16 *errs, struct nsl_rstore *rs)
{
	run->slice = slice;
	run->file = file;
	run->uiov = uiov;
	run->rs = rs;
	run->errs = errs;
	run->dev = NULL;
	run->nr_finished = 0;
	run->count = 0;
	run->first_err = NSL_TXERR_NONE;
	run->stopped = false;
}

/* iov index fails with err: send what came before first, so that the count covers it. */
static void nsl_tx_reject(struct nsl_tx_run *run, u32 index, enum nsl_txerr err)
{
	if (!nsl_tx_run_flush(run))
		nsl_tx_fail(run, index, err);
}

/*
 * The call's in->index-th iov, after those before it; the call ends if
 * the run stops here. Returns the iov's own failure, if any, its error
 * and counter already set (not NSL_TXERR_REFAULT's: the caller faults the
 * memory in, with no egress held, and retries).
 */
static enum nsl_txerr nsl_tx_step(struct nsl_tx_run *run, const struct nsl_tx_iov *in)
{
	struct nsl_tx_iov own = *in;
	enum nsl_txerr err;

	/*
	 * The run is judged on the egress the frame takes, its payload's port
	 * filled in: judged on the iov as written, a frame could re-resolve
	 * the egress under frames queued for another device.
	 */
	own.iov = nsl_tx_own_iov(run, in->iov);
	if (run->count && !nsl_tx_run_joins(run, own.iov) && nsl_tx_run_flush(run))
		return NSL_TXERR_NONE;
	err = nsl_tx_one(run, &own);
	/* A payload sent up the stack, or dropped, frees its slot now. */
	nsl_payload_commit(run);
	if (err && err != NSL_TXERR_REFAULT)
		nsl_tx_reject(run, in->index, err);
	return err;
}

/* Before a fault on user memory: send the run and let go of its egress. */
static void nsl_tx_unhold(struct nsl_tx_run *run)
{
	nsl_tx_run_flush(run);
	nsl_tx_run_end(run);
}

/* At the end of the call: send what is left, unless stopped, and let go. */
static void nsl_tx_finish(struct nsl_tx_run *run)
{
	if (!run->stopped)
		nsl_tx_run_flush(run);
	nsl_tx_run_end(run);
}

/*
 * Ring mode (ring.c): send iovs[0..n), copies of TX ring entries whose
 * @base is an offset in the frame area frames of frames_len bytes. Each
 * entry's error goes in errs[]; a bad one fails alone. reuse[i], if not
 * NULL, is an skb the caller hands over for entry i's whole frame to go
 * out in: taken, or freed here. A handle the ring parked names a payload
 * in rs, its store. Returns the number consumed, fewer than n when the
 * egress stopped.
 */
size_t nsl_tx_ring(struct nsl_slice *slice, struct file *file, struct nsl_rstore *rs,
		   struct netslice_iov *iovs, size_t n, const void *frames, size_t frames_len,
		   u16 *errs, struct sk_buff **reuse)
{
	struct nsl_tx_run run;
	size_t i;

	nsl_tx_run_init(&run, slice, file, NULL, errs, rs);
	for (i = 0; i < n && !run.stopped; i++) {
		struct nsl_tx_iov in = { .iov = &iovs[i], .reuse = &reuse[i], .index = i };

		errs[i] = 0;
		/* The entry names its frame by offset: checked, then kernel memory. */
		iovs[i].len = iovs[i].rlen;
		if (iovs[i].rlen > frames_len || iovs[i].base > frames_len - iovs[i].rlen) {
			nsl_tx_reject(&run, i, NSL_TXERR_FAULT);
			continue;
		}
		in.kdata = frames + iovs[i].base;
		nsl_tx_step(&run, &in);
	}
	nsl_tx_finish(&run);
	/* Containers not used: a bad entry, a handle, too small, not reached. */
	for (i = 0; i < n; i++)
		if (reuse[i])
			consume_skb(reuse[i]);
	return run.stopped ? run.stopped_at : n;
}

ssize_t nsl_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct netslice_iov __user *uiov = (struct netslice_iov __user *)buf;
	struct nsl_slice *slice = nsl_file_slice(file);
	size_t n = nsl_batch_limit(slice, count, NETSLICE_MULTI_WRITE);
	struct netslice_iov iov;
	struct nsl_tx_iov in = { .iov = &iov };
	struct nsl_tx_run run;
	bool fault = false;
	enum nsl_txerr err;
	size_t i;

	nsl_tx_run_init(&run, slice, file, uiov, NULL, NULL);
	for (i = 0; i < n; i++) {
		/* At most one fault-in each for the iov and its data: then, a fault. */
		unsigned int refaults = 0;

again:
		if (nsl_tx_iov_get(&uiov[i], &iov)) {
			if (refaults++ < 2) {
				nsl_tx_unhold(&run);
				if (run.stopped)
					break;
				if (!fault_in_writeable((char __user *)&uiov[i], sizeof(*uiov)))
					goto again;
			}
			fault = true;
			break;
		}
		in.index = i;
		err = nsl_tx_step(&run, &in);
		if (run.stopped)
			break;
		if (err == NSL_TXERR_REFAULT) {
			if (refaults++ < 2) {
				nsl_tx_unhold(&run);
				if (run.stopped)
					break;
				if (!fault_in_readable(u64_to_user_ptr(iov.base), iov.rlen))
					goto again;
			}
			err = NSL_TXERR_FAULT;
			nsl_tx_reject(&run, i, err);
			if (run.stopped)
				break;
		}
		if (err && !i) {
			/* A first bad iov ends the call, so the caller sees it at once. */
			run.first_err = err;
			i++;
			break;
		}
	}
	nsl_tx_finish(&run);

	if (run.stopped)
		i = run.stopped_at;
	if (i == 1 && run.first_err)
		return -nsl_txerr[run.first_err].code;
	if (!i && fault)
		return -EFAULT;
	if (!i && run.stopped && (file->f_flags & O_NONBLOCK))
		return -EAGAIN;
	return i;
}
