/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Frames that are not one read frame in, one written out. A frame the NF
 * keeps to send later (waiting for ARP, say) is marked dropped in its
 * batch and nf_hold() called: it counts as held, not dropped, until
 * nf_send_held() sends it (from any worker: holder is the ns_worker_index() of the
 * one that held it; then counted sent) or nf_held_dropped() gives it up.
 * A held frame leaves as its batch would have sent it: by the default
 * egress of the interface it arrived on, which is the next slice's RX when
 * the slice has one (a chain), so the NFs after this one see it too.
 * Frames the NF makes itself go out with nf_inject() and count as sent
 * and injected. At any time each slice's counters and the total add up:
 *   rx_packets + injected = tx_packets + nf_drops + tx_errors + held
 */
#ifndef NF_HELD_H
#define NF_HELD_H

#include <stdint.h>

#include "netslice.h"

/*
 * Send a frame the NF made itself (an ARP request, say) out of interface
 * ifindex, now, outside the batch; counted as sent and injected. 0 or a
 * negative errno.
 */
int nf_inject(struct ns_worker *w, const void *frame, uint32_t len, int ifindex);

void nf_hold(struct ns_worker *w);
/* Send a held frame as if received on ifindex (NETSLICE_TX_DEFAULT). */
int nf_send_held(struct ns_worker *w, unsigned int holder, const void *frame, uint32_t len,
		 int ifindex);
void nf_held_dropped(unsigned int holder);

/* A worker's counters as the NF reports them (see above). */
struct nf_counts {
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes, nf_drops, tx_errors, held, injected;
};

/* The counters of n workers, added up into t. */
void nf_counts_sum(struct ns_worker *const *w, unsigned int n, struct nf_counts *t);

#endif /* NF_HELD_H */
