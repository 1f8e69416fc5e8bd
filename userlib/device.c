// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Opening slices and reading their configuration. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"
#include "netslice.h"

#define NS_SLICES_PARAM "/sys/module/netslice/parameters/slices"

int ns_slice_count(void)
{
	unsigned int n;
	FILE *f;
	int ok;

	f = fopen(NS_SLICES_PARAM, "re");
	if (!f)
		return ns_fail(ENOENT);
	ok = fscanf(f, "%u", &n) == 1;
	fclose(f);
	if (!ok || n > NETSLICE_MAX_SLICES)
		return ns_fail(EPROTO);
	return (int)n;
}

int ns_open(unsigned int slice, int flags)
{
	char path[64];

	if (slice >= NETSLICE_MAX_SLICES)
		return ns_fail(EINVAL);
	snprintf(path, sizeof(path), "/dev/" NETSLICE_DEV_PREFIX "%u", slice);
	return (int)ns_sysret(open(path, (flags & ~O_ACCMODE) | O_RDWR | O_CLOEXEC));
}

int ns_cpumask_get(int fd, cpu_set_t *kernel_cpus, cpu_set_t *user_cpus)
{
	struct netslice_cpumask req = {
		.mask_size = sizeof(cpu_set_t),
		.kernel_cpus = (__u64)(unsigned long)kernel_cpus,
		.user_cpus = (__u64)(unsigned long)user_cpus,
	};

	return (int)ns_sysret(ioctl(fd, NETSLICE_CPUMASK_GET, &req));
}

int ns_cpumask_set(int fd, const cpu_set_t *kernel_cpus, const cpu_set_t *user_cpus)
{
	struct netslice_cpumask req = {
		.mask_size = sizeof(cpu_set_t),
		.kernel_cpus = (__u64)(unsigned long)kernel_cpus,
		.user_cpus = (__u64)(unsigned long)user_cpus,
	};

	return (int)ns_sysret(ioctl(fd, NETSLICE_CPUMASK_SET, &req));
}

int ns_rw_multi_get(int fd, struct netslice_rw_multi *rw)
{
	return (int)ns_sysret(ioctl(fd, NETSLICE_RW_MULTI_GET, rw));
}

int ns_rw_multi_set(int fd, __u32 flags, __u32 max_batch)
{
	struct netslice_rw_multi rw = { .flags = flags, .max_batch = max_batch };

	return (int)ns_sysret(ioctl(fd, NETSLICE_RW_MULTI_SET, &rw));
}

int ns_cut_get(int fd, struct netslice_cut *cut)
{
	return (int)ns_sysret(ioctl(fd, NETSLICE_CUT_GET, cut));
}

int ns_cut_set(int fd, const struct netslice_cut *cut)
{
	return (int)ns_sysret(ioctl(fd, NETSLICE_CUT_SET, cut));
}

int ns_info_get(int fd, struct netslice_info *info)
{
	return (int)ns_sysret(ioctl(fd, NETSLICE_INFO_GET, info));
}

int ns_stats_get(int fd, struct netslice_stats *stats)
{
	return (int)ns_sysret(ioctl(fd, NETSLICE_STATS_GET, stats));
}

int ns_pin_to_user_cpus(int fd)
{
	cpu_set_t kernel_cpus, user_cpus;

	int err = ns_cpumask_get(fd, &kernel_cpus, &user_cpus);

	if (err)
		return err;
	return (int)ns_sysret(sched_setaffinity(0, sizeof(user_cpus), &user_cpus));
}
