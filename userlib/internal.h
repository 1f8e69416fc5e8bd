/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* Private to libnetslice: the error convention in one place. */
#ifndef NETSLICE_INTERNAL_H
#define NETSLICE_INTERNAL_H

#include <errno.h>
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

#endif /* NETSLICE_INTERNAL_H */
