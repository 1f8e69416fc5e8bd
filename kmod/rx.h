/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RX_H
#define _NETSLICE_RX_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>

rx_handler_result_t nsl_rx_handler(struct sk_buff **pskb);

#endif /* _NETSLICE_RX_H */
