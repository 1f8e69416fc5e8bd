// SPDX-License-Identifier: GPL-2.0
/*
 * netslice-info: list the slices of the loaded module and their CPUs.
 *
 *   netslice-info [-s] [SLICE...]
 *
 * Without SLICE, every slice. -s adds each slice's attached interfaces and
 * counters, one "slice N: name=value ..." line each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netslice.h"

static const char *const slicing_modes[] = { "off", "fixed", "auto" };

static int show_stats;

static int show_details(int fd, unsigned int slice)
{
	struct netslice_stats st;
	struct netslice_info info;
	unsigned int i;

	if (ns_info_get(fd, &info) || ns_stats_get(fd, &st)) {
		fprintf(stderr, "netslice-info: slice %u: %s\n", slice, strerror(errno));
		return -1;
	}
	printf("slice %u: ring %u, slicing %s", slice, info.ring_size,
	       info.slicing.mode < 3 ? slicing_modes[info.slicing.mode] : "?");
	if (info.slicing.mode == NETSLICE_SLICE_FIXED)
		printf(":%u", info.slicing.length);
	if (info.slicing.mode == NETSLICE_SLICE_AUTO && info.slicing.extra)
		printf("+%u", info.slicing.extra);
	printf("%s%s (store %u, %u ms), %u interfaces:",
	       info.slicing.flags & NETSLICE_SLICE_TRIM ? ",trim" : "",
	       info.slicing.flags & NETSLICE_SLICE_GSO ? ",gso" : "",
	       info.slicing.store_size, info.slicing.store_timeout_ms, info.nr_ifaces);
	for (i = 0; i < info.nr_ifaces && i < NETSLICE_MAX_IFACES; i++)
		printf(" %u->%u(%s 0x%llx)", info.ifaces[i].ifindex, info.ifaces[i].pair_ifindex,
		       info.ifaces[i].flags & NETSLICE_IFACE_HASHED ? "hash" : "queues",
		       (unsigned long long)info.ifaces[i].queue_mask);
	printf("\nslice %u:", slice);
	for (i = 0; i < ns_stat_count(); i++)
		printf(" %s=%llu", ns_stat_name(i), (unsigned long long)ns_stat_value(&st, i));
	printf("\n");
	return 0;
}

static int show_slice(unsigned int slice)
{
	cpu_set_t kernel_cpus, user_cpus;
	char klist[256], ulist[256];
	int fd;

	fd = ns_open(slice, 0);
	if (fd < 0) {
		fprintf(stderr, "netslice-info: /dev/%s%u: %s\n",
			NETSLICE_DEV_PREFIX, slice, strerror(errno));
		return -1;
	}
	if (ns_cpumask_get(fd, &kernel_cpus, &user_cpus)) {
		fprintf(stderr, "netslice-info: slice %u: CPUMASK_GET: %s\n",
			slice, strerror(errno));
		close(fd);
		return -1;
	}
	if (show_stats && show_details(fd, slice)) {
		close(fd);
		return -1;
	}
	close(fd);
	if (ns_cpulist_format(&kernel_cpus, klist, sizeof(klist)) < 0 ||
	    ns_cpulist_format(&user_cpus, ulist, sizeof(ulist)) < 0)
		return -1;
	printf("slice %-3u /dev/%s%-3u kernel-cpus %-8s user-cpus %s\n",
	       slice, NETSLICE_DEV_PREFIX, slice, klist, ulist);
	return 0;
}

int main(int argc, char **argv)
{
	int count, i, failed = 0;
	char *end;

	count = ns_slice_count();
	if (count < 0) {
		fprintf(stderr, "netslice-info: module not loaded? (%s)\n", strerror(errno));
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "-s")) {
		show_stats = 1;
		argv++;
		argc--;
	}
	if (argc == 1) {
		printf("%d slices\n", count);
		for (i = 0; i < count; i++)
			failed |= show_slice(i);
		return failed ? 1 : 0;
	}
	for (i = 1; i < argc; i++) {
		unsigned long slice = strtoul(argv[i], &end, 10);

		if (*end || end == argv[i] || slice >= (unsigned long)count) {
			fprintf(stderr, "netslice-info: no slice '%s' (0..%d)\n", argv[i], count - 1);
			failed = 1;
			continue;
		}
		failed |= show_slice(slice);
	}
	return failed ? 1 : 0;
}
