/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Private to libnetslice: a batch of iovs and their buffers. Up to 0.7
 * this was netslice.h's struct ns_batch, in the caller's memory, set up
 * by ns_batch_init() and freed by ns_batch_free(): programs built then
 * still call those two and read the fields by offset, so the layout stays
 * as it was and ns_batch_recv()/send() take both kinds. New state would
 * need ns_batch_open()'s batches told apart from those.
 */
#ifndef NETSLICE_BATCH_H
#define NETSLICE_BATCH_H

#include <stdint.h>

struct netslice_iov;

struct ns_batch {
	struct netslice_iov *iov;
	uint8_t *bufs;
	unsigned int size;	/* iovs */
	unsigned int count;	/* packets held after ns_batch_recv() */
	unsigned int buf_size;
	unsigned int dirty;	/* iovs to reset before the next read */
};

/* 0.6's: exported for the programs built against 0.7, no longer declared. */
int ns_batch_init(struct ns_batch *b, unsigned int size, unsigned int buf_size);
void ns_batch_free(struct ns_batch *b);

#endif /* NETSLICE_BATCH_H */
