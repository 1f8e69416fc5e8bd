/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Private to libnetslice: a mapped ring's state behind the opaque
 * struct ns_ring of netslice.h. tests/guest/ring_check.c includes it to
 * drive the kernel's rings by hand; nothing installed does.
 */
#ifndef NETSLICE_RING_H
#define NETSLICE_RING_H

#include <stdint.h>

#include <linux/netslice.h>

struct ns_ring {
	int fd;
	struct netslice_ring_setup setup;	/* as the kernel returned it */
	uint8_t *frames;
	struct netslice_ring_hdr *rx, *tx, *comp;
	struct netslice_iov *rx_desc, *tx_desc;
	struct netslice_ring_comp *comp_desc;
	uint32_t rx_cons, rx_peeked;	/* released, and handed out */
	uint32_t tx_prod, tx_done;	/* queued, and completed */
	uint32_t comp_cons;
	uint32_t *tx_pool;		/* free pool frames */
	uint32_t tx_free;
	uint32_t *tx_frame;		/* per TX slot: its pool frame, or UINT32_MAX */
};

#endif /* NETSLICE_RING_H */
