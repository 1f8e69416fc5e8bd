/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_PORT_H
#define _NETSLICE_PORT_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>

/*
 * An interface attached to netslice: its rx_handler feeds the slices.
 * Created and destroyed under RTNL (iface.c); looked up under RCU.
 */
struct ns_iface {
	struct net_device *dev;
	u32 port;		/* module-wide id: what read reports, write takes */
	u32 pair_port;		/* default egress: own port alone, 0 if the peer left */
	bool hashed;		/* driver records no RX queue: steer by hash */
	u16 slice_first;	/* its packets go to slices first..first+count-1 */
	u16 slice_count;
	struct list_head list;	/* in ns_ifaces, under RTNL, RCU readers */
	struct rcu_head rcu;
};

/* Does iface feed slice id? */
static inline bool ns_iface_feeds(const struct ns_iface *iface, unsigned int id)
{
	return id >= iface->slice_first && id - iface->slice_first < iface->slice_count;
}

/* Walk the attached interfaces under rcu_read_lock(), or RTNL. */
extern struct list_head ns_ifaces;

/* Under rcu_read_lock(): the attached interface with this ifindex in net. */
struct ns_iface *ns_iface_find_rcu(const struct net *net, int ifindex);
/* Under rcu_read_lock() (or RTNL): the attached interface with this port, or NULL. */
struct ns_iface *ns_iface_by_port_rcu(u32 port);
/* Under rcu_read_lock(): ifindex of iface's default egress, or 0 (display). */
int ns_iface_pair_ifindex_rcu(const struct ns_iface *iface);

/* The table's changes, all under RTNL (iface.c). */
int ns_port_reserve(u32 *port);
void ns_port_publish(struct ns_iface *iface);
void ns_port_unpublish(struct ns_iface *iface);
void ns_port_release(u32 port);
void ns_ports_destroy(void);

#endif /* _NETSLICE_PORT_H */
