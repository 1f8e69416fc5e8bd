/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_NETLINK_H
#define _NETSLICE_NETLINK_H

int nsl_genl_init(void);
void nsl_genl_exit(void);

#endif /* _NETSLICE_NETLINK_H */
