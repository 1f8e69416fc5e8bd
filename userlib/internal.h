/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Private to libnetslice: the error convention in one place. */
#ifndef NETSLICE_INTERNAL_H
#define NETSLICE_INTERNAL_H

#include <errno.h>
#include <sched.h>
#include <time.h>

/* Fail with err (positive): errno set, -err returned. */
static inline int ns_fail(int err)
{
	errno = err;
	return -err;
}

/* A system call's result in the library's convention. */
static inline long ns_sysret(long ret)
{
	return ret < 0 ? -errno : ret;
}

/* Monotonic milliseconds. */
static inline long long ns_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * A sender whose egress stopped waits for it: yields a few times, then
 * naps, and gives up once it made no progress for NS_STALL_MS. idle
 * counts the calls since the last progress (the caller zeroes it then).
 * Returns 1 when the wait is over and the caller should stop.
 */
#define NS_STALL_SPINS		16
#define NS_STALL_NAP_NS		50000L
#define NS_STALL_MS		1000

static inline int ns_stalled(unsigned int *idle, long long *start)
{
	const struct timespec nap = { .tv_nsec = NS_STALL_NAP_NS };

	if (!(*idle)++)
		*start = ns_mono_ms();
	else if (ns_mono_ms() - *start > NS_STALL_MS)
		return 1;
	if (*idle < NS_STALL_SPINS)
		sched_yield();
	else
		nanosleep(&nap, NULL);
	return 0;
}

#endif /* NETSLICE_INTERNAL_H */
