// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Batches: n iovs with a buffer each, read and written whole. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "internal.h"
#include "netslice.h"

int ns_batch_init(struct ns_batch *b, unsigned int size, unsigned int buf_size)
{
	memset(b, 0, sizeof(*b));
	if (!size || size > NETSLICE_MAX_BATCH || !buf_size)
		return ns_fail(EINVAL);
	b->iov = calloc(size, sizeof(*b->iov));
	b->bufs = malloc((size_t)size * buf_size);
	if (!b->iov || !b->bufs) {
		ns_batch_free(b);
		return ns_fail(ENOMEM);
	}
	b->size = size;
	b->buf_size = buf_size;
	b->dirty = size;
	return 0;
}

void ns_batch_free(struct ns_batch *b)
{
	free(b->iov);
	free(b->bufs);
	memset(b, 0, sizeof(*b));
}

int ns_batch_recv(int fd, struct ns_batch *b)
{
	unsigned int i;
	ssize_t n;

	/* Only the iovs the kernel filled and the NF saw can have changed. */
	for (i = 0; i < b->dirty; i++)
		b->iov[i] = (struct netslice_iov) {
			.base = (uintptr_t)(b->bufs + (size_t)i * b->buf_size),
			.len = b->buf_size,
		};
	n = ns_read(fd, b->iov, b->size);
	b->count = n > 0 ? (unsigned int)n : 0;
	/* A read that failed before any packet wrote nothing, except on a fault. */
	b->dirty = n > 0 ? b->count : (n == -EAGAIN || n == -EINTR) ? 0 : b->size;
	return (int)n;
}

int ns_batch_send(int fd, struct ns_batch *b)
{
	return (int)ns_write_all(fd, b->iov, b->count);
}

int ns_batch_open(struct ns_batch **bp, unsigned int size, unsigned int buf_size)
{
	struct ns_batch *b = malloc(sizeof(*b));
	int err;

	*bp = NULL;
	if (!b)
		return ns_fail(ENOMEM);
	err = ns_batch_init(b, size, buf_size);
	if (err) {
		free(b);
		return ns_fail(-err);
	}
	*bp = b;
	return 0;
}

void ns_batch_close(struct ns_batch *b)
{
	if (!b)
		return;
	ns_batch_free(b);
	free(b);
}

struct netslice_iov *ns_batch_iov(struct ns_batch *b)
{
	return b->iov;
}

unsigned int ns_batch_count(const struct ns_batch *b)
{
	return b->count;
}
