/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NETSLICE_RING_RX_H
#define _NETSLICE_RING_RX_H

#include <linux/skbuff.h>

#include "ring_types.h"

struct nsl_ring;
struct nsl_slice;

/*
 * Softirq, or a chain's handoff with BHs off: deliver skb (its nsl_rx_cb
 * filled). 0: queued, the caller counts it; -ENOSPC: full, skb still the
 * caller's; -EIO: dropped and counted (a super-packet whose segments the
 * ring cannot all take is dropped whole).
 */
int nsl_ring_rx(struct nsl_ring *ring, struct sk_buff *skb);
/* Softirq: a trimmed record of this ring's slice waits in its trimq. */
void nsl_ring_trimmed(struct nsl_ring *ring);
/* Process: a purge put records back on the unread queue of slice. */
void nsl_ring_requeued(struct nsl_slice *slice);
/*
 * Process: an interface was detached (its RX handlers done). The NAPI
 * context RX last came from may be its, which busy polling must not
 * keep polling or preferring.
 */
void nsl_ring_forget_napi(struct nsl_slice *slice);

/* For a kick (ring.c), under rx_lock: move trimmed records in, and wake. */
void nsl_ring_rx_trimmed(struct nsl_ring *ring, struct sk_buff **dead);
bool nsl_ring_rx_wake_due(struct nsl_ring *ring, u32 prod_before);
void nsl_ring_age_start(struct nsl_ring *ring, unsigned long parks_before);
/* After rx_lock: wake the pollers if nsl_ring_rx_wake_due() said so. */
void nsl_ring_rx_wake(struct nsl_ring *ring, bool due);

#endif /* _NETSLICE_RING_RX_H */
