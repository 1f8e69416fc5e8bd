/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_IFACE_H
#define _NETSLICE_IFACE_H

#include <linux/netdevice.h>

int nsl_iface_attach_list(const char *spec);
/* Under RTNL. On failure *culprit is the device at fault. */
int nsl_iface_attach_pair(struct net_device *dev, struct net_device *pair, u16 slice_first,
			  u16 slice_count, struct netlink_ext_ack *extack,
			  struct net_device **culprit);
int nsl_iface_detach_dev(struct net_device *dev, struct netlink_ext_ack *extack);
void nsl_iface_detach_all(void);
int nsl_iface_notifier_register(void);
void nsl_iface_notifier_unregister(void);

#endif /* _NETSLICE_IFACE_H */
