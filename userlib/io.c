// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Packet I/O on a slice: read(2) and write(2) of iov arrays. */
#include <errno.h>
#include <sched.h>
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
