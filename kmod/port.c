// SPDX-License-Identifier: GPL-2.0
/*
 * The port table: the attached interfaces, by port id and by ifindex.
 * The data path (RX, write, ioctl) looks them up under RCU; iface.c,
 * which attaches and detaches them, changes the table under RTNL.
 *
 * Port ids: module-wide, so that an NF never depends on the network
 * namespace it runs in (ifindexes collide across namespaces). Handed out
 * cyclically, so a detached interface's port is not soon reused: a
 * packet read before a detach is not sent out of whatever attached next.
 * An attached port's entry is its iface; a port whose iface is being made
 * or torn down stays reserved (a NULL entry) until ns_port_release().
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "port.h"

LIST_HEAD(ns_ifaces);

static DEFINE_XARRAY_ALLOC1(ns_ports);
static u32 ns_port_next;	/* the cyclic allocator's cursor; RTNL */

struct ns_iface *ns_iface_by_port_rcu(u32 port)
{
	return xa_load(&ns_ports, port);
}

int ns_iface_pair_ifindex_rcu(const struct ns_iface *iface)
{
	const struct ns_iface *pair = ns_iface_by_port_rcu(READ_ONCE(iface->pair_port));

	return pair ? pair->dev->ifindex : 0;
}

struct ns_iface *ns_iface_find_rcu(const struct net *net, int ifindex)
{
	struct ns_iface *iface;

	list_for_each_entry_rcu(iface, &ns_ifaces, list)
		if (iface->dev->ifindex == ifindex && net_eq(dev_net(iface->dev), net))
			return iface;
	return NULL;
}

/* A new port id, reserved: 0, or -errno. */
int ns_port_reserve(u32 *port)
{
	ASSERT_RTNL();
	return xa_alloc_cyclic(&ns_ports, port, NULL, XA_LIMIT(1, INT_MAX), &ns_port_next,
			       GFP_KERNEL) < 0 ? -ENOMEM : 0;
}

/* iface's port finds it from now on, and so does a walk of ns_ifaces. */
void ns_port_publish(struct ns_iface *iface)
{
	ASSERT_RTNL();
	xa_store(&ns_ports, iface->port, iface, GFP_KERNEL);
	list_add_tail_rcu(&iface->list, &ns_ifaces);
}

/* Neither finds it any more (RCU readers may still hold it); the port stays reserved. */
void ns_port_unpublish(struct ns_iface *iface)
{
	ASSERT_RTNL();
	list_del_rcu(&iface->list);
	xa_store(&ns_ports, iface->port, NULL, GFP_KERNEL);
}

void ns_port_release(u32 port)
{
	xa_erase(&ns_ports, port);
}

void ns_ports_destroy(void)
{
	ASSERT_RTNL();
	xa_destroy(&ns_ports);
}
