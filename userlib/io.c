// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Batched packet I/O on a slice: read(2) and write(2) of iov arrays. */
#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "netslice.h"

ssize_t ns_read(int fd, struct netslice_iov *iov, unsigned int n)
{
	return read(fd, iov, n);
}

ssize_t ns_write(int fd, struct netslice_iov *iov, unsigned int n)
{
	return write(fd, iov, n);
}

ssize_t ns_write_all(int fd, struct netslice_iov *iov, unsigned int n)
{
	unsigned int done = 0;
	ssize_t w;

	while (done < n) {
		w = write(fd, &iov[done], n - done);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			/* A bad first iov: its error field says why; skip it. */
			if (iov[done].error) {
				done++;
				continue;
			}
			return -1;
		}
		if (!w)
			sched_yield();
		done += w;
	}
	return n;
}
