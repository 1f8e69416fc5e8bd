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
#include <sys/types.h>

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

/* Set both masks (NETSLICE_CPUMASK_SET). */
int ns_cpumask_set(int fd, const cpu_set_t *kernel_cpus, const cpu_set_t *user_cpus);

/* Pin the calling thread to the slice's user-side CPUs. */
int ns_pin_to_user_cpus(int fd);

/* Batching mode: NETSLICE_MULTI_* flags and the largest batch. */
int ns_rw_multi_get(int fd, struct netslice_rw_multi *rw);
int ns_rw_multi_set(int fd, __u32 flags, __u32 max_batch);

/* Header slicing mode of the slice (NETSLICE_SLICE_GET/SET). */
int ns_slicing_get(int fd, struct netslice_slicing *slicing);
int ns_slicing_set(int fd, const struct netslice_slicing *slicing);

/*
 * Parse a slicing mode: "off", "auto", "auto+EXTRA", "fixed:LENGTH", any
 * of them followed by ",trim" (NETSLICE_SLICE_TRIM). -1 with errno EINVAL
 * on anything else or a length out of range.
 */
int ns_slicing_parse(const char *spec, struct netslice_slicing *slicing);

int ns_info_get(int fd, struct netslice_info *info);
int ns_stats_get(int fd, struct netslice_stats *stats);

/*
 * Up to n packets into iov[0..n-1] (each iov's base and len set by the
 * caller). Returns the number read, or -1 with errno.
 */
ssize_t ns_read(int fd, struct netslice_iov *iov, unsigned int n);

/* Send iov[0..n-1]; returns the number consumed, or -1 with errno. */
ssize_t ns_write(int fd, struct netslice_iov *iov, unsigned int n);

/*
 * Send all n iovs, writing again after short counts (a busy egress queue).
 * A bad iov does not stop it: its error field tells. Returns n, or -1
 * with errno on a fatal error.
 */
ssize_t ns_write_all(int fd, struct netslice_iov *iov, unsigned int n);

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
