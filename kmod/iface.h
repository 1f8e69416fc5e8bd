/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_IFACE_H
#define _NETSLICE_IFACE_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>

/*
 * An interface attached to netslice: its rx_handler feeds the slices.
 * Created and destroyed under RTNL; looked up under RCU.
 */
struct ns_iface {
	struct net_device *dev;
	int pair_ifindex;	/* default egress; its own ifindex when alone */
	bool hashed;		/* driver records no RX queue: steer by hash */
	struct list_head list;	/* in ns_ifaces, under RTNL, RCU readers */
	struct rcu_head rcu;
};

int ns_iface_attach_list(const char *spec);
int ns_iface_attach(const char *name, const char *pair_name);
void ns_iface_detach_all(void);
int ns_iface_notifier_register(void);
void ns_iface_notifier_unregister(void);

/* Under rcu_read_lock(): the attached interface with this ifindex. */
struct ns_iface *ns_iface_find_rcu(int ifindex);

/* Walk the attached interfaces under rcu_read_lock(). */
extern struct list_head ns_ifaces;

#endif /* _NETSLICE_IFACE_H */
