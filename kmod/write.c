// SPDX-License-Identifier: GPL-2.0
/*
 * write(2) of a slice: each iov is one frame to send out of an attached
 * interface (on the slice's own TX queue), up the host stack, or to drop:
 * a whole frame copied from user space, or a header spliced onto the
 * payload its handle parked.
 *
 * Process context. Each iov is checked on its own; a bad one gets its
 * error code and counter and does not disturb the rest of the batch.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>

#include <linux/netslice.h>

#include "iface.h"
#include "io.h"
#include "rx.h"
#include "slice.h"
#include "splice.h"
#include "stats.h"
#include "store.h"

/* The egress queue is stopped: end the batch with a short count. */
#define NS_TX_BUSY	(-EBUSY)

static const int ns_txerr_errno[] = {
	[NETSLICE_TXERR_INVALID] = EINVAL,
	[NETSLICE_TXERR_LENGTH] = EMSGSIZE,
	[NETSLICE_TXERR_IFINDEX] = ENODEV,
	[NETSLICE_TXERR_FAULT] = EFAULT,
	[NETSLICE_TXERR_NOMEM] = ENOMEM,
	[NETSLICE_TXERR_DOWN] = ENETDOWN,
	[NETSLICE_TXERR_STALE] = ESTALE,
	[NETSLICE_TXERR_FOREIGN] = EACCES,
	[NETSLICE_TXERR_FORGED] = EBADMSG,
};

/* wire_len, queue and flags are what read reported; write ignores them. */
static bool ns_iov_valid(const struct netslice_iov *iov)
{
	return !iov->reserved && iov->action <= NETSLICE_TX_PORT;
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
 * Send a built frame (skb->dev set, skb->data at its link-layer header)
 * where action says. Returns 0 or NETSLICE_TXERR_DOWN with skb consumed,
 * or NS_TX_BUSY with skb still the caller's.
 */
static int ns_tx_send(struct ns_slice *slice, struct sk_buff *skb, u16 action)
{
	struct net_device *dev = skb->dev;
	unsigned int len = skb->len;
	unsigned int txqs;
	int ret;

	skb_reset_mac_header(skb);
	if (action == NETSLICE_TX_HOST) {
		ns_rx_to_host(skb);
		ns_stat_inc(slice, NS_TX_HOST);
		return 0;
	}
	/*
	 * The writer holds dev, but it may be unregistering: past
	 * NETDEV_UNREGISTER its queue count drops to 0.
	 */
	txqs = READ_ONCE(dev->real_num_tx_queues);
	if (unlikely(!txqs)) {
		kfree_skb(skb);
		return NETSLICE_TXERR_DOWN;
	}
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = eth_hdr(skb)->h_proto;
	ret = __dev_direct_xmit(skb, slice->id % txqs);
	if (!dev_xmit_complete(ret))
		return NS_TX_BUSY;
	if (ret != NETDEV_TX_OK)
		return NETSLICE_TXERR_DOWN;
	ns_stat_inc(slice, NS_TX_PACKETS);
	ns_stat_add(slice, NS_TX_BYTES, len);
	return 0;
}

/* A whole frame from user space. */
static int ns_tx_copy(struct ns_slice *slice, struct net_device *dev,
		      const struct netslice_iov *iov)
{
	struct sk_buff *skb;
	int err;

	if (iov->rlen > iov->len || iov->rlen < ETH_HLEN || iov->rlen > ns_tx_max_len(dev))
		return NETSLICE_TXERR_LENGTH;
	skb = alloc_skb(LL_RESERVED_SPACE(dev) + iov->rlen + dev->needed_tailroom, GFP_KERNEL);
	if (!skb)
		return NETSLICE_TXERR_NOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	if (copy_from_user(skb_put(skb, iov->rlen), u64_to_user_ptr(iov->base), iov->rlen)) {
		kfree_skb(skb);
		return NETSLICE_TXERR_FAULT;
	}
	ns_stat_add(slice, NS_WRITE_BYTES, iov->rlen);
	skb->dev = dev;
	err = ns_tx_send(slice, skb, iov->action);
	if (err == NS_TX_BUSY)
		kfree_skb(skb);
	return err;
}

/*
 * A header from user space in front of the payload its handle parked.
 * Whatever fails before the frame is handed on leaves the payload parked
 * under the same handle, so the iov can be written again.
 */
static int ns_tx_splice(struct ns_slice *slice, struct file *file, struct net_device *dev,
			const struct netslice_iov *iov)
{
	struct ns_store *store = &slice->store;
	struct sk_buff *skb;
	unsigned int off;
	int err;

	if (iov->rlen > iov->len || iov->rlen < ETH_HLEN || iov->rlen > NETSLICE_MAX_HEADER)
		return NETSLICE_TXERR_LENGTH;
	err = ns_store_claim(store, iov->handle, file, &skb, &off);
	if (err)
		return err;

	err = NETSLICE_TXERR_LENGTH;
	if (skb->len - off + iov->rlen > ns_tx_max_len(dev))
		goto err_unclaim;
	err = NETSLICE_TXERR_NOMEM;
	if (ns_splice_front(skb, off, iov->rlen))
		goto err_unclaim;
	/* From here on a retry splices in place of the bytes just made room for. */
	off = iov->rlen;
	err = NETSLICE_TXERR_FAULT;
	if (copy_from_user(skb->data, u64_to_user_ptr(iov->base), iov->rlen))
		goto err_unclaim;
	ns_stat_add(slice, NS_WRITE_BYTES, iov->rlen);

	/* A received skb goes out as a new frame: no RX state, no stale checksum. */
	skb_scrub_packet(skb, true);
	memset(skb->cb, 0, sizeof(skb->cb));
	skb->ip_summed = CHECKSUM_NONE;
	skb->dev = dev;
	err = ns_tx_send(slice, skb, iov->action);
	if (err == NS_TX_BUSY)
		goto err_unclaim;
	ns_store_finish(store, iov->handle);
	if (!err)
		ns_stat_inc(slice, NS_TX_SPLICED);
	return err;

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

/* Send one iov. Returns 0, a NETSLICE_TXERR_* code, or NS_TX_BUSY. */
static int ns_tx_one(struct ns_slice *slice, struct file *file, const struct netslice_iov *iov)
{
	struct net_device *dev;
	int err;

	if (!ns_iov_valid(iov))
		return NETSLICE_TXERR_INVALID;
	if (iov->action == NETSLICE_TX_DROP) {
		err = iov->handle ? ns_tx_release(slice, file, iov->handle) : 0;
		if (!err)
			ns_stat_inc(slice, NS_TX_NF_DROP);
		return err;
	}
	dev = ns_tx_dev_get(slice, iov);
	if (!dev)
		return NETSLICE_TXERR_IFINDEX;
	if (iov->handle)
		err = ns_tx_splice(slice, file, dev, iov);
	else
		err = ns_tx_copy(slice, dev, iov);
	dev_put(dev);
	return err;
}

ssize_t ns_write(struct file *file, const char __user *buf, size_t count, loff_t *ppos)
{
	struct netslice_iov __user *uiov = (struct netslice_iov __user *)buf;
	struct ns_slice *slice = file->private_data;
	size_t n = ns_batch_limit(slice, count, NETSLICE_MULTI_WRITE);
	struct netslice_iov iov;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		/*
		 * Clear error first: an iov that cannot take its result is
		 * not sent, so no frame goes out that the count leaves out.
		 */
		if (copy_from_user(&iov, &uiov[i], sizeof(iov)) || put_user(0, &uiov[i].error))
			return i ? i : -EFAULT;
		err = ns_tx_one(slice, file, &iov);
		if (err == NS_TX_BUSY) {
			ns_stat_inc(slice, NS_TX_BUSY);
			if (!i && (file->f_flags & O_NONBLOCK))
				return -EAGAIN;
			break;
		}
		if (err) {
			/* Writable a moment ago; a racing munmap only loses the code. */
			(void)put_user((u16)err, &uiov[i].error);
			ns_stat_inc(slice, NS_TX_ERR_INVALID + err - NETSLICE_TXERR_INVALID);
			if (!i)
				return -ns_txerr_errno[err];
		}
	}
	return i;
}
