// SPDX-License-Identifier: GPL-2.0
/*
 * write(2) of a slice: each iov is one frame to send out of an attached
 * interface (on the slice's own TX queue), up the host stack, or to drop.
 *
 * Process context. Each iov is checked on its own; a bad one gets its
 * error code and counter and does not disturb the rest of the batch.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>

#include <linux/netslice.h>

#include "iface.h"
#include "io.h"
#include "rx.h"
#include "slice.h"
#include "stats.h"

/* The egress queue is stopped: end the batch with a short count. */
#define NS_TX_BUSY	(-EBUSY)

static const int ns_txerr_errno[] = {
	[NETSLICE_TXERR_INVALID] = EINVAL,
	[NETSLICE_TXERR_LENGTH] = EMSGSIZE,
	[NETSLICE_TXERR_IFINDEX] = ENODEV,
	[NETSLICE_TXERR_FAULT] = EFAULT,
	[NETSLICE_TXERR_NOMEM] = ENOMEM,
	[NETSLICE_TXERR_DOWN] = ENETDOWN,
};

/* wire_len, queue and flags are what read reported; write ignores them. */
static bool ns_iov_valid(const struct netslice_iov *iov)
{
	return !iov->reserved[0] && !iov->reserved[1] && iov->action <= NETSLICE_TX_DROP;
}

/* The device an iov goes to, held; NULL if it is not attached. */
static struct net_device *ns_tx_dev_get(const struct netslice_iov *iov)
{
	struct net_device *dev = NULL;
	struct ns_iface *iface;

	rcu_read_lock();
	iface = ns_iface_find_rcu(iov->ifindex);
	if (iface && iov->action == NETSLICE_TX_DEFAULT)
		iface = ns_iface_find_rcu(READ_ONCE(iface->pair_ifindex));
	if (iface) {
		dev = iface->dev;
		dev_hold(dev);
	}
	rcu_read_unlock();
	return dev;
}

static int ns_tx_xmit(struct ns_slice *slice, struct sk_buff *skb)
{
	struct net_device *dev = skb->dev;
	unsigned int len = skb->len;
	int ret;

	ret = __dev_direct_xmit(skb, slice->id % dev->real_num_tx_queues);
	if (!dev_xmit_complete(ret)) {
		kfree_skb(skb);
		return NS_TX_BUSY;
	}
	if (ret != NETDEV_TX_OK)
		return NETSLICE_TXERR_DOWN;
	ns_stat_inc(slice, NS_TX_PACKETS);
	ns_stat_add(slice, NS_TX_BYTES, len);
	return 0;
}

/* Send one iov. Returns 0, a NETSLICE_TXERR_* code, or NS_TX_BUSY. */
static int ns_tx_one(struct ns_slice *slice, const struct netslice_iov *iov)
{
	struct net_device *dev;
	struct sk_buff *skb;
	unsigned int hlen;
	int err;

	if (!ns_iov_valid(iov))
		return NETSLICE_TXERR_INVALID;
	if (iov->action == NETSLICE_TX_DROP) {
		ns_stat_inc(slice, NS_TX_NF_DROP);
		return 0;
	}
	dev = ns_tx_dev_get(iov);
	if (!dev)
		return NETSLICE_TXERR_IFINDEX;

	err = NETSLICE_TXERR_LENGTH;
	if (iov->rlen > iov->len || iov->rlen < ETH_HLEN ||
	    iov->rlen > dev->mtu + dev->hard_header_len + VLAN_HLEN)
		goto out_put_dev;

	err = NETSLICE_TXERR_NOMEM;
	hlen = LL_RESERVED_SPACE(dev);
	skb = alloc_skb(hlen + iov->rlen + dev->needed_tailroom, GFP_KERNEL);
	if (!skb)
		goto out_put_dev;
	skb_reserve(skb, hlen);
	if (copy_from_user(skb_put(skb, iov->rlen), u64_to_user_ptr(iov->base), iov->rlen)) {
		kfree_skb(skb);
		err = NETSLICE_TXERR_FAULT;
		goto out_put_dev;
	}
	ns_stat_add(slice, NS_WRITE_BYTES, iov->rlen);

	skb->dev = dev;
	skb_reset_mac_header(skb);
	if (iov->action == NETSLICE_TX_HOST) {
		ns_rx_to_host(skb);
		ns_stat_inc(slice, NS_TX_HOST);
		err = 0;
		goto out_put_dev;
	}
	skb_set_network_header(skb, ETH_HLEN);
	skb->protocol = eth_hdr(skb)->h_proto;
	err = ns_tx_xmit(slice, skb);

out_put_dev:
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
		err = ns_tx_one(slice, &iov);
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
