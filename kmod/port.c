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
 * or torn down stays reserved (a NULL entry) until nsl_port_release().
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "port.h"

LIST_HEAD(nsl_ifaces);

static DEFINE_XARRAY_ALLOC1(nsl_ports);
static u32 nsl_port_next;	/* the cyclic allocator's cursor; RTNL */

struct nsl_iface *nsl_iface_by_port_rcu(u32 port)
{
	return xa_load(&nsl_ports, port);
}

int nsl_iface_pair_ifindex_rcu(const struct nsl_iface *iface)
{
	const struct nsl_iface *pair = nsl_iface_by_port_rcu(READ_ONCE(iface->pair_port));

	return pair ? pair->dev->ifindex : 0;
}

struct nsl_iface *nsl_iface_find_rcu(const struct net *net, int ifindex)
{
	struct nsl_iface *iface;

	list_for_each_entry_rcu(iface, &nsl_ifaces, list)
		if (iface->dev->ifindex == ifindex && net_eq(dev_net(iface->dev), net))
			return iface;
	return NULL;
}

/* A new port id, reserved: 0, or -errno. */
int nsl_port_reserve(u32 *port)
{
	ASSERT_RTNL();
	return xa_alloc_cyclic(&nsl_ports, port, NULL, XA_LIMIT(1, INT_MAX), &nsl_port_next,
			       GFP_KERNEL) < 0 ? -ENOMEM : 0;
}

/* iface's port finds it from now on, and so does a walk of nsl_ifaces. */
void nsl_port_publish(struct nsl_iface *iface)
{
	ASSERT_RTNL();
	xa_store(&nsl_ports, iface->port, iface, GFP_KERNEL);
	list_add_tail_rcu(&iface->list, &nsl_ifaces);
}

/* Neither finds it any more (RCU readers may still hold it); the port stays reserved. */
void nsl_port_unpublish(struct nsl_iface *iface)
{
	ASSERT_RTNL();
	list_del_rcu(&iface->list);
	xa_store(&nsl_ports, iface->port, NULL, GFP_KERNEL);
}

void nsl_port_release(u32 port)
{
	xa_erase(&nsl_ports, port);
}

void nsl_ports_destroy(void)
{
	ASSERT_RTNL();
	xa_destroy(&nsl_ports);
}
