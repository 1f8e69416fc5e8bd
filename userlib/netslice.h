/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libnetslice: the user-space side of netslice.
 *
 * Functions return 0 (or a non-negative count/fd) on success and -1 with
 * errno set on failure, like the system calls they wrap.
 *
 * Build with -D_GNU_SOURCE (cpu_set_t) and `pkg-config --cflags --libs
 * netslice`.
 */
#ifndef NETSLICE_USER_H
#define NETSLICE_USER_H

#include <sched.h>
#include <stddef.h>

#include <linux/netslice.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of slices of the loaded module (from sysfs). */
int ns_slice_count(void);

/* Open /dev/netslice-<slice>; flags as for open(2) (O_RDWR is implied). */
int ns_open(unsigned int slice, int flags);

/* The slice's kernel-side and user-side CPUs (NETSLICE_CPUMASK_GET). */
int ns_cpumask_get(int fd, cpu_set_t *kernel_cpus, cpu_set_t *user_cpus);

/* Pin the calling thread to the slice's user-side CPUs. */
int ns_pin_to_user_cpus(int fd);

/*
 * Format a CPU set as a list ("0-3,8,10-11"; "" when empty) into buf.
 * Returns the length written, or -1 with errno ENOSPC if buf is too small.
 */
int ns_cpulist_format(const cpu_set_t *set, char *buf, size_t size);

/* Parse a CPU list ("0-3,8") into set. -1 with errno EINVAL on bad input. */
int ns_cpulist_parse(const char *list, cpu_set_t *set);

#ifdef __cplusplus
}
#endif

#endif /* NETSLICE_USER_H */
