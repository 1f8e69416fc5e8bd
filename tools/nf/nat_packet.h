/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/* nf-nat's packet path. */
#ifndef NF_NAT_PACKET_H
#define NF_NAT_PACKET_H

#include "nat_state.h"

void nat_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg);

#endif /* NF_NAT_PACKET_H */
