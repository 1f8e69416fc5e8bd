// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Batched packet I/O on a slice: read(2) and write(2) of iov arrays. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "netslice.h"

ssize_t ns_read(int fd, struct netslice_iov *iov, unsigned int n)
{
	return ns_sysret(read(fd, iov, n));
}

ssize_t ns_write(int fd, struct netslice_iov *iov, unsigned int n)
{
	return ns_sysret(write(fd, iov, n));
}

ssize_t ns_write_all(int fd, struct netslice_iov *iov, unsigned int n)
{
	unsigned int done = 0, idle = 0;
	long long stall_start = 0;
	ssize_t w;

	while (done < n) {
		w = write(fd, &iov[done], n - done);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			/* A bad first iov: its error field says why; skip it. */
			if (errno != EAGAIN && iov[done].error) {
				done++;
				continue;
			}
			if (errno != EAGAIN)
				return -errno;
			w = 0;
		}
		if (w) {
			done += w;
			idle = 0;
			continue;
		}
		/* The egress queue is stopped: let it drain, but not forever. */
		if (ns_stalled(&idle, &stall_start))
			break;	/* the caller decides what to do with the rest */
	}
	return done;
}

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
