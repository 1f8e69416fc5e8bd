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
struct nsl_iface {
	struct net_device *dev;
	u32 port;		/* module-wide id: what read reports, write takes */
	u32 pair_port;		/* default egress: own port alone, 0 if the peer left */
	bool hashed;		/* driver records no RX queue: steer by hash */
	u16 slice_first;	/* its packets go to slices first..first+count-1 */
	u16 slice_count;
	struct list_head list;	/* in nsl_ifaces, under RTNL, RCU readers */
	struct rcu_head rcu;
};

/* Does iface feed slice id? */
static inline bool nsl_iface_feeds(const struct nsl_iface *iface, unsigned int id)
{
	return id >= iface->slice_first && id - iface->slice_first < iface->slice_count;
}

/* Walk the attached interfaces under rcu_read_lock(), or RTNL. */
extern struct list_head nsl_ifaces;

/* Under rcu_read_lock(): the attached interface with this ifindex in net. */
struct nsl_iface *nsl_iface_find_rcu(const struct net *net, int ifindex);
/* Under rcu_read_lock() (or RTNL): the attached interface with this port, or NULL. */
struct nsl_iface *nsl_iface_by_port_rcu(u32 port);
/* Under rcu_read_lock(): ifindex of iface's default egress, or 0 (display). */
int nsl_iface_pair_ifindex_rcu(const struct nsl_iface *iface);

/* The table's changes, all under RTNL (iface.c). */
int nsl_port_reserve(u32 *port);
void nsl_port_publish(struct nsl_iface *iface);
void nsl_port_unpublish(struct nsl_iface *iface);
void nsl_port_release(u32 port);
void nsl_ports_destroy(void);

#endif /* _NETSLICE_PORT_H */
