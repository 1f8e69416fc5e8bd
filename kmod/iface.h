/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_IFACE_H
#define _NETSLICE_IFACE_H

#include <linux/netdevice.h>

int ns_iface_attach_list(const char *spec);
/* Under RTNL. On failure *culprit is the device at fault. */
int ns_iface_attach_pair(struct net_device *dev, struct net_device *pair, u16 slice_first,
			 u16 slice_count, struct netlink_ext_ack *extack,
			 struct net_device **culprit);
int ns_iface_detach_dev(struct net_device *dev, struct netlink_ext_ack *extack);
void ns_iface_detach_all(void);
int ns_iface_notifier_register(void);
void ns_iface_notifier_unregister(void);

#endif /* _NETSLICE_IFACE_H */
