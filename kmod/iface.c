// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching interfaces: an rx_handler per device (one allowed per device,
 * so a bridge or bond port cannot be attached), a netdevice notifier that
 * detaches a device being unregistered, and lookup by ifindex for TX.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "iface.h"
#include "rx.h"
#include "slice.h"

LIST_HEAD(ns_ifaces);

struct ns_iface *ns_iface_find_rcu(int ifindex)
{
	struct ns_iface *iface;

	list_for_each_entry_rcu(iface, &ns_ifaces, list)
		if (iface->dev->ifindex == ifindex)
			return iface;
	return NULL;
}

static struct ns_iface *ns_iface_find_rtnl(const struct net_device *dev)
{
	struct ns_iface *iface;

	ASSERT_RTNL();
	list_for_each_entry(iface, &ns_ifaces, list)
		if (iface->dev == dev)
			return iface;
	return NULL;
}

/*
 * veth keeps the sender's TX queue in queue_mapping, so its "recorded" RX
 * queue is off by one or absent; steer such devices by flow hash.
 */
static bool ns_dev_records_rx_queue(const struct net_device *dev)
{
	return !(dev->rtnl_link_ops && !strcmp(dev->rtnl_link_ops->kind, "veth"));
}

static int ns_iface_attach_dev(struct net_device *dev, u16 slice_first, u16 slice_count)
{
	struct ns_iface *iface;
	int err;

	ASSERT_RTNL();
	if (ns_iface_find_rtnl(dev))
		return 0;

	iface = kzalloc(sizeof(*iface), GFP_KERNEL);
	if (!iface)
		return -ENOMEM;
	iface->dev = dev;
	iface->pair_ifindex = dev->ifindex;
	iface->hashed = !ns_dev_records_rx_queue(dev);
	iface->slice_first = slice_first;
	iface->slice_count = slice_count;

	err = netdev_rx_handler_register(dev, ns_rx_handler, iface);
	if (err == -EBUSY)
		pr_err("cannot attach %s: it already has an rx_handler (a bridge, bond, macvlan or OVS port?)\n",
		       dev->name);
	else if (err == -EINVAL)
		pr_err("cannot attach %s: the device does not allow an rx_handler (IFF_NO_RX_HANDLER)\n",
		       dev->name);
	else if (err)
		pr_err("cannot attach %s: %d\n", dev->name, err);
	if (err)
		goto err_free_iface;

	dev_hold(dev);
	list_add_tail_rcu(&iface->list, &ns_ifaces);
	pr_info("attached %s (%s, slices %u-%u)\n", dev->name,
		iface->hashed ? "flow hash steering" : "RX queue steering",
		slice_first, slice_first + slice_count - 1);
	return 0;

err_free_iface:
	kfree(iface);
	return err;
}

static void ns_iface_detach(struct ns_iface *iface)
{
	ASSERT_RTNL();
	/* Waits for RX handlers in flight (synchronize_net). */
	netdev_rx_handler_unregister(iface->dev);
	list_del_rcu(&iface->list);
	pr_info("detached %s\n", iface->dev->name);
	dev_put(iface->dev);
	kfree_rcu(iface, rcu);
}

/* Attach NAME, and PAIR_NAME as its pair if given, to the slice range. */
static int ns_iface_attach_locked(const char *name, const char *pair_name, u16 slice_first,
				  u16 slice_count)
{
	struct net_device *dev, *pair = NULL;
	struct ns_iface *a, *b;
	int err;

	ASSERT_RTNL();
	dev = __dev_get_by_name(&init_net, name);
	if (!dev) {
		pr_err("cannot attach %s: no such interface\n", name);
		return -ENODEV;
	}
	if (pair_name) {
		pair = __dev_get_by_name(&init_net, pair_name);
		if (!pair) {
			pr_err("cannot attach %s: no such interface\n", pair_name);
			return -ENODEV;
		}
		if (pair == dev) {
			pr_err("cannot pair %s with itself\n", name);
			return -EINVAL;
		}
	}

	err = ns_iface_attach_dev(dev, slice_first, slice_count);
	if (err)
		return err;
	if (!pair)
		return 0;
	err = ns_iface_attach_dev(pair, slice_first, slice_count);
	if (err) {
		ns_iface_detach(ns_iface_find_rtnl(dev));
		return err;
	}
	a = ns_iface_find_rtnl(dev);
	b = ns_iface_find_rtnl(pair);
	WRITE_ONCE(a->pair_ifindex, pair->ifindex);
	WRITE_ONCE(b->pair_ifindex, dev->ifindex);
	return 0;
}

int ns_iface_attach(const char *name, const char *pair_name, u16 slice_first, u16 slice_count)
{
	int err;

	rtnl_lock();
	err = ns_iface_attach_locked(name, pair_name, slice_first, slice_count);
	rtnl_unlock();
	return err;
}

/*
 * An entry's "@FIRST[-LAST]" slice range (cut off the entry), or every
 * slice without one.
 */
static int ns_iface_parse_slices(char *entry, u16 *first, u16 *count)
{
	char *at = strrchr(entry, '@'), *dash;
	unsigned int lo, hi;

	*first = 0;
	*count = ns_nr_slices;
	if (!at)
		return 0;
	*at++ = '\0';
	dash = strchr(at, '-');
	if (dash)
		*dash++ = '\0';
	if (kstrtouint(at, 10, &lo))
		lo = ns_nr_slices;
	hi = lo;
	if (dash && kstrtouint(dash, 10, &hi))
		hi = ns_nr_slices;
	if (lo > hi || hi >= ns_nr_slices) {
		pr_err("cannot attach %s: bad slice range (slices are 0-%u)\n", entry,
		       ns_nr_slices - 1);
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
int ns_iface_attach_list(const char *spec)
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
		err = ns_iface_parse_slices(entry, &first, &count);
		if (err) {
			first_err = first_err ?: err;
			continue;
		}
		pair = strchr(entry, ':');
		if (pair)
			*pair++ = '\0';
		err = ns_iface_attach(entry, pair, first, count);
		if (!err)
			attached++;
		else if (!first_err)
			first_err = err;
	}
	kfree(copy);
	return attached ? attached : first_err;
}

void ns_iface_detach_all(void)
{
	struct ns_iface *iface, *tmp;

	rtnl_lock();
	list_for_each_entry_safe(iface, tmp, &ns_ifaces, list)
		ns_iface_detach(iface);
	rtnl_unlock();
}

static int ns_netdev_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct ns_iface *iface;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	iface = ns_iface_find_rtnl(dev);
	if (iface)
		ns_iface_detach(iface);
	return NOTIFY_DONE;
}

static struct notifier_block ns_netdev_notifier = {
	.notifier_call = ns_netdev_event,
};

int ns_iface_notifier_register(void)
{
	return register_netdevice_notifier(&ns_netdev_notifier);
}

void ns_iface_notifier_unregister(void)
{
	unregister_netdevice_notifier(&ns_netdev_notifier);
}
