// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching interfaces: an rx_handler per device (one allowed per device,
 * so a bridge or bond port cannot be attached), and a netdevice notifier
 * that detaches a device being unregistered. Attached interfaces are
 * entered in the port table (port.c), where the data path finds them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "compat.h"
#include "iface.h"
#include "nl_link_msg.h"
#include "params.h"
#include "port.h"
#include "ring_rx.h"
#include "rx.h"
#include "slice.h"

/* Set under RTNL when the module unloads: nothing attaches any more. */
static bool nsl_ifaces_closed;

static struct nsl_iface *nsl_iface_find_rtnl(const struct net_device *dev)
{
	struct nsl_iface *iface;

	ASSERT_RTNL();
	list_for_each_entry(iface, &nsl_ifaces, list)
		if (iface->dev == dev)
			return iface;
	return NULL;
}

/*
 * veth keeps the sender's TX queue in queue_mapping, so its "recorded" RX
 * queue is off by one or absent; steer such devices by flow hash.
 */
static bool nsl_dev_records_rx_queue(const struct net_device *dev)
{
	return !(dev->rtnl_link_ops && !strcmp(dev->rtnl_link_ops->kind, "veth"));
}

/* 0, or the errno for a dev that cannot be attached, with the reason in extack. */
static int nsl_iface_refusal(const struct net_device *dev, struct netlink_ext_ack *extack)
{
	if (nsl_ifaces_closed) {
		NL_SET_ERR_MSG(extack, "netslice is being unloaded");
		return -ENODEV;
	}
	if (nsl_iface_find_rtnl(dev)) {
		NL_SET_ERR_MSG(extack, "interface is already attached");
		return -EEXIST;
	}
	if (dev->flags & IFF_LOOPBACK) {
		NL_SET_ERR_MSG(extack, "a loopback interface cannot be attached");
		return -EOPNOTSUPP;
	}
	if (dev->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG(extack, "only Ethernet interfaces can be attached");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* A new, unlisted iface for dev with its port id; feeds nothing yet. */
static struct nsl_iface *nsl_iface_create(struct net_device *dev, u16 slice_first,
					  u16 slice_count)
{
	struct nsl_iface *iface;
	u32 port;

	ASSERT_RTNL();
	iface = kzalloc_obj(*iface, GFP_KERNEL);
	if (!iface)
		return NULL;
	if (nsl_port_reserve(&port)) {
		kfree(iface);
		return NULL;
	}
	iface->dev = dev;
	iface->port = port;
	iface->pair_port = port;
	iface->hashed = !nsl_dev_records_rx_queue(dev);
	iface->slice_first = slice_first;
	iface->slice_count = slice_count;
	return iface;
}

static void nsl_iface_free(struct nsl_iface *iface)
{
	nsl_port_release(iface->port);
	kfree_rcu(iface, rcu);
}

/*
 * Start iface's RX: its packets reach slices from now on, so its pair
 * must be set already (TX_DEFAULT must never hairpin).
 */
static int nsl_iface_start(struct nsl_iface *iface, struct netlink_ext_ack *extack)
{
	struct net_device *dev = iface->dev;
	int err;

	ASSERT_RTNL();
	err = nsl_iface_refusal(dev, extack);
	if (err)
		return err;
	/*
	 * A bump in the wire takes every frame, not only those to its own
	 * MAC: as the bridge does, a count that detach gives back, so a
	 * user's own promiscuous setting survives.
	 */
	err = dev_set_promiscuity(dev, 1);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot put the interface in promiscuous mode");
		return err;
	}
	/* Merged frames cannot be forwarded as they are: as the bridge does. */
	dev_disable_lro(dev);
	err = netdev_rx_handler_register(dev, nsl_rx_handler, iface);
	if (err) {
		if (err == -EBUSY)
			NL_SET_ERR_MSG(extack,
				       "interface already has an rx_handler (a bridge or bond port?)");
		else if (err == -EINVAL)
			NL_SET_ERR_MSG(extack,
				       "interface does not allow an rx_handler (IFF_NO_RX_HANDLER)");
		else
			NL_SET_ERR_MSG(extack, "cannot register an rx_handler");
		goto err_promisc;
	}

	dev_hold(dev);
	nsl_port_publish(iface);
	pr_info("attached %s as port %u (%s, slices %u-%u)\n", dev->name, iface->port,
		iface->hashed ? "flow hash steering" : "RX queue steering",
		iface->slice_first, iface->slice_first + iface->slice_count - 1);
	return 0;

err_promisc:
	dev_set_promiscuity(dev, -1);
	return err;
}

/*
 * reason: a netslice_detach_reason, or NSL_DETACH_SILENT for no event (told
 * already, or an attach undone).
 */
#define NSL_DETACH_SILENT	(-1)

static void nsl_iface_detach(struct nsl_iface *iface, int reason)
{
	struct nsl_iface *other;
	unsigned int i;

	ASSERT_RTNL();
	/* Waits for RX handlers in flight (synchronize_net). */
	netdev_rx_handler_unregister(iface->dev);
	dev_set_promiscuity(iface->dev, -1);
	nsl_port_unpublish(iface);
	/* A chain's handoff in flight sees the port gone, or queues before the purge. */
	synchronize_net();
	/*
	 * A peer left alone has no default egress (0): its frames are not
	 * sent to a dead port, nor reflected to where they came from.
	 */
	list_for_each_entry(other, &nsl_ifaces, list)
		if (other->pair_port == iface->port)
			WRITE_ONCE(other->pair_port, 0);
	/*
	 * Its packets still queued, wherever rules or hashing put them, would
	 * pin its memory until read. In ring mode RX moves the rest in.
	 */
	for (i = 0; i < nsl_nr_slices; i++) {
		if (nsl_slice_purge(&nsl_slices[i], iface->port))
			nsl_ring_requeued(&nsl_slices[i]);
		nsl_ring_forget_napi(&nsl_slices[i]);
	}
	if (reason != NSL_DETACH_SILENT)
		nsl_nl_link_notify(iface, NETSLICE_CMD_LINK_DETACH_NTF, reason);
	pr_info("detached %s\n", iface->dev->name);
	dev_put(iface->dev);
	nsl_iface_free(iface);
}

int nsl_iface_attach_pair(struct net_device *dev, struct net_device *pair, u16 slice_first,
			  u16 slice_count, struct netlink_ext_ack *extack,
			  struct net_device **culprit)
{
	struct nsl_iface *a, *b = NULL;
	int err;

	ASSERT_RTNL();
	*culprit = pair;
	if (pair == dev) {
		NL_SET_ERR_MSG(extack, "an interface cannot be its own peer");
		return -EINVAL;
	}
	if (pair) {
		/* Refuse before anything is attached: a failure changes nothing. */
		err = nsl_iface_refusal(pair, extack);
		if (err)
			return err;
	}
	*culprit = dev;
	a = nsl_iface_create(dev, slice_first, slice_count);
	if (!a)
		return -ENOMEM;
	if (pair) {
		b = nsl_iface_create(pair, slice_first, slice_count);
		if (!b) {
			err = -ENOMEM;
			goto err_free_a;
		}
		a->pair_port = b->port;
		b->pair_port = a->port;
	}
	err = nsl_iface_start(a, extack);
	if (err)
		goto err_free_b;
	if (b) {
		*culprit = pair;
		err = nsl_iface_start(b, extack);
		if (err)
			goto err_detach_a;
	}
	nsl_nl_link_notify(a, NETSLICE_CMD_LINK_ATTACH_NTF, 0);
	if (b)
		nsl_nl_link_notify(b, NETSLICE_CMD_LINK_ATTACH_NTF, 0);
	return 0;

err_detach_a:
	nsl_iface_detach(a, NSL_DETACH_SILENT);
	a = NULL;
err_free_b:
	if (b)
		nsl_iface_free(b);
err_free_a:
	if (a)
		nsl_iface_free(a);
	return err;
}

/* Detach dev, and its peer with it: a pair was attached as one. */
int nsl_iface_detach_dev(struct net_device *dev, struct netlink_ext_ack *extack)
{
	struct nsl_iface *iface = nsl_iface_find_rtnl(dev), *peer;

	ASSERT_RTNL();
	if (!iface) {
		NL_SET_ERR_MSG(extack, "interface is not attached");
		return -ENOENT;
	}
	peer = NULL;
	if (iface->pair_port != iface->port) {
		peer = nsl_iface_by_port_rcu(iface->pair_port);
		if (peer && peer->pair_port != iface->port)
			peer = NULL;
	}
	/* Both events name their peer: the peer's goes out while it has one. */
	if (peer)
		nsl_nl_link_notify(peer, NETSLICE_CMD_LINK_DETACH_NTF,
				   NETSLICE_DETACH_REASON_REQUEST);
	nsl_iface_detach(iface, NETSLICE_DETACH_REASON_REQUEST);
	if (peer)
		nsl_iface_detach(peer, NSL_DETACH_SILENT);
	return 0;
}

/* Attach NAME, and PAIR_NAME as its pair if given, in the initial netns. */
static int nsl_iface_attach_names(const char *name, const char *pair_name, u16 slice_first,
				  u16 slice_count)
{
	struct net_device *dev, *pair = NULL, *culprit;
	struct netlink_ext_ack extack = {};
	int err = -ENODEV;

	rtnl_lock();
	dev = __dev_get_by_name(&init_net, name);
	if (!dev) {
		pr_err("cannot attach %s: no such interface\n", name);
		goto out_unlock;
	}
	if (pair_name) {
		pair = __dev_get_by_name(&init_net, pair_name);
		if (!pair) {
			pr_err("cannot attach %s: no such interface\n", pair_name);
			goto out_unlock;
		}
	}
	/* As a netlink request would be told why, and the log says it. */
	err = nsl_iface_attach_pair(dev, pair, slice_first, slice_count, &extack, &culprit);
	if (err && extack._msg)
		pr_err("cannot attach %s: %s\n", culprit->name, extack._msg);
	else if (err)
		pr_err("cannot attach %s: error %d\n", culprit->name, err);
out_unlock:
	rtnl_unlock();
	return err;
}

/*
 * An entry's "@FIRST[-LAST]" slice range (cut off the entry), or every
 * slice without one.
 */
static int nsl_iface_parse_slices(char *entry, u16 *first, u16 *count)
{
	char *at = strrchr(entry, '@'), *dash;
	unsigned int lo, hi;

	*first = 0;
	*count = nsl_nr_slices;
	if (!at)
		return 0;
	*at++ = '\0';
	dash = strchr(at, '-');
	if (dash)
		*dash++ = '\0';
	if (kstrtouint(at, 10, &lo))
		lo = nsl_nr_slices;
	hi = lo;
	if (dash && kstrtouint(dash, 10, &hi))
		hi = nsl_nr_slices;
	if (lo > hi || hi >= nsl_nr_slices) {
		pr_err("cannot attach %s: bad slice range (slices are 0-%u)\n", entry,
		       nsl_nr_slices - 1);
		return -EINVAL;
	}
	*first = lo;
	*count = hi - lo + 1;
	return 0;
}

/*
 * "va:vb@0-1,vc": va and vb as a pair feeding slices 0 and 1, vc alone
 * feeding every slice. Every entry is tried; the result is the number
 * attached, or the first error if none was.
 */
int nsl_iface_attach_list(const char *spec)
{
	char *copy, *cur, *entry, *pair;
	int attached = 0, first_err = 0, err;
	u16 first, count;

	copy = kstrdup(spec, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	while ((entry = strsep(&cur, ",")) != NULL) {
		if (!*entry)
			continue;
		err = nsl_iface_parse_slices(entry, &first, &count);
		if (err) {
			first_err = first_err ?: err;
			continue;
		}
		pair = strchr(entry, ':');
		if (pair)
			*pair++ = '\0';
		err = nsl_iface_attach_names(entry, pair, first, count);
		if (!err)
			attached++;
		else if (!first_err)
			first_err = err;
	}
	kfree(copy);
	return attached ? attached : first_err;
}

void nsl_iface_detach_all(void)
{
	struct nsl_iface *iface, *tmp;

	rtnl_lock();
	nsl_ifaces_closed = true;
	list_for_each_entry_safe(iface, tmp, &nsl_ifaces, list)
		nsl_iface_detach(iface, NETSLICE_DETACH_REASON_UNLOAD);
	nsl_ports_destroy();
	rtnl_unlock();
}

static int nsl_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct nsl_iface *iface;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	iface = nsl_iface_find_rtnl(dev);
	if (iface)
		nsl_iface_detach(iface, NETSLICE_DETACH_REASON_UNREGISTER);
	return NOTIFY_DONE;
}

static struct notifier_block nsl_netdev_notifier = {
	.notifier_call = nsl_netdev_event,
};

int nsl_iface_notifier_register(void)
{
	return register_netdevice_notifier(&nsl_netdev_notifier);
}

void nsl_iface_notifier_unregister(void)
{
	unregister_netdevice_notifier(&nsl_netdev_notifier);
}
