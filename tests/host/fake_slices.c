// SPDX-License-Identifier: GPL-2.0
/*
 * A module of two slices that is not there, for a program run with this
 * library in LD_PRELOAD (tests/host/test_cli.sh: netslice-info's output
 * with no module loaded). The slice count is read from the module's
 * parameter, /dev/netslice-N opens /dev/null, and the info, counter and
 * CPU-mask ioctls on such a file answer with made-up values that name
 * their slice: slice N has N + 1 interfaces, rxq 1000 + N, counter i
 * 100 * N + i, kernel CPU N and user CPUs N + 2 and N + 3; slice 0's
 * next slice is 1. A read gives
 * up to FAKE_BATCH packets of FAKE_LEN bytes (their bytes unset), a write
 * takes every iov (tests/host/test_abi.sh: ns_run()'s workers busy).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/netslice.h>

#define FAKE_SLICES	2
#define FAKE_FDS	1024
#define FAKE_BATCH	4
#define FAKE_LEN	64

static int fake_slice[FAKE_FDS];	/* slice + 1 of each fake fd, or 0 */

static int fake_fd(int fd)
{
	return fd >= 0 && fd < FAKE_FDS && fake_slice[fd];
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);

	if (!strcmp(path, "/sys/module/netslice/parameters/slices"))
		return fmemopen((void *)"2\n", 2, "r");
	if (!real)
		real = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
	return real(path, mode);
}

/* /dev/netslice-N: /dev/null, remembered as slice N; anything else: the real open. */
static int fake_open(const char *path, int flags, mode_t mode)
{
	static int (*real)(const char *, int, ...);
	unsigned int slice;
	int fd;

	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (sscanf(path, "/dev/" NETSLICE_DEV_PREFIX "%u", &slice) != 1)
		return real(path, flags, mode);
	if (slice >= FAKE_SLICES) {
		errno = ENOENT;
		return -1;
	}
	fd = real("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fd < FAKE_FDS)
		fake_slice[fd] = (int)slice + 1;
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return fake_open(path, flags, mode);
}

/* What a build with _FORTIFY_SOURCE (Debian's hardening) calls instead. */
int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
	return fake_open(path, flags, 0);
}

/* The 64-bit names are the same calls on a 64-bit build. */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));
int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags) __attribute__((alias("__open_2")));

static void fake_info(unsigned int slice, struct netslice_info *info)
{
	unsigned int i;

	memset(info, 0, sizeof(*info));
	info->slice = slice;
	info->nr_slices = FAKE_SLICES;
	info->rxq_size = 1000 + slice;
	info->nr_ifaces = slice + 1;
	info->cut.mode = slice ? NETSLICE_CUT_FIXED : NETSLICE_CUT_AUTO;
	info->cut.length = slice ? 128 : 0;
	info->cut.flags = slice ? NETSLICE_CUT_TRIM : 0;
	info->cut.store_size = 4096;
	info->cut.store_timeout_ms = 2000 + slice;
	info->flags = NETSLICE_INFO_CHAIN;
	if (!slice) {
		info->flags |= NETSLICE_INFO_CHAINED;
		info->next_slice = 1;
	}
	for (i = 0; i < info->nr_ifaces; i++) {
		info->ifaces[i].ifindex = 10 + i;
		info->ifaces[i].pair_ifindex = 20 + i;
		info->ifaces[i].rx_queues = 4;
		info->ifaces[i].flags = i ? NETSLICE_IFACE_HASHED : 0;
		info->ifaces[i].queue_mask = i ? 0 : 0x5;
	}
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	struct netslice_cpumask *mask;
	unsigned int slice, i;
	void *arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (!fake_fd(fd))
		return real(fd, req, arg);
	slice = (unsigned int)fake_slice[fd] - 1;
	switch (req) {
	case NETSLICE_INFO_GET:
		fake_info(slice, arg);
		return 0;
	case NETSLICE_STATS_GET:
		for (i = 0; i < sizeof(struct netslice_stats) / sizeof(__u64); i++)
			((__u64 *)arg)[i] = 100 * slice + i;
		return 0;
	case NETSLICE_CPUMASK_GET:
		mask = arg;
		CPU_ZERO_S(mask->mask_size, (cpu_set_t *)(unsigned long)mask->kernel_cpus);
		CPU_ZERO_S(mask->mask_size, (cpu_set_t *)(unsigned long)mask->user_cpus);
		CPU_SET_S(slice, mask->mask_size, (cpu_set_t *)(unsigned long)mask->kernel_cpus);
		CPU_SET_S(slice + 2, mask->mask_size, (cpu_set_t *)(unsigned long)mask->user_cpus);
		CPU_SET_S(slice + 3, mask->mask_size, (cpu_set_t *)(unsigned long)mask->user_cpus);
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	struct netslice_iov *iov = buf;
	size_t i;

	if (!real)
		real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	if (!fake_fd(fd))
		return real(fd, buf, n);
	/* A slice's read(2) takes a count of iovs, not bytes. */
	for (i = 0; i < n && i < FAKE_BATCH; i++) {
		iov[i].rlen = FAKE_LEN;
		iov[i].wire_len = FAKE_LEN;
	}
	return (ssize_t)i;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	return fake_fd(fd) ? (ssize_t)n : real(fd, buf, n);
}
