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

static const char *const stat_names[] = {
	"rx_packets", "rx_bytes", "rx_drop_ring_full", "rx_drop_no_reader",
	"rx_drop_error", "rx_segments", "rx_off_cpu", "rx_trimmed", "read_packets",
	"read_bytes", "read_truncated", "read_sliced", "read_whole", "read_store_full",
	"write_bytes", "tx_packets", "tx_bytes", "tx_host", "tx_nf_drop", "tx_busy",
	"tx_spliced", "tx_err_invalid", "tx_err_length", "tx_err_ifindex", "tx_err_fault",
	"tx_err_nomem", "tx_err_down", "tx_err_stale", "tx_err_foreign", "tx_err_forged",
	"store_aged", "store_closed", "store_used", "store_high_water",
};

_Static_assert(sizeof(stat_names) / sizeof(stat_names[0]) ==
	       offsetof(struct netslice_stats, reserved) / sizeof(__u64),
	       "a name for every counter");

static const char *const slicing_modes[] = { "off", "fixed", "auto" };

static int show_stats;

static int show_details(int fd, unsigned int slice)
{
	struct netslice_stats st;
	struct netslice_info info;
	const __u64 *v = (const __u64 *)&st;
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
	printf("%s (store %u, %u ms), %u interfaces:",
	       info.slicing.flags & NETSLICE_SLICE_TRIM ? ",trim" : "",
	       info.slicing.store_size, info.slicing.store_timeout_ms, info.nr_ifaces);
	for (i = 0; i < info.nr_ifaces && i < NETSLICE_MAX_IFACES; i++)
		printf(" %u->%u(%s 0x%llx)", info.ifaces[i].ifindex, info.ifaces[i].pair_ifindex,
		       info.ifaces[i].flags & NETSLICE_IFACE_HASHED ? "hash" : "queues",
		       (unsigned long long)info.ifaces[i].queue_mask);
	printf("\nslice %u:", slice);
	for (i = 0; i < sizeof(stat_names) / sizeof(stat_names[0]); i++)
		printf(" %s=%llu", stat_names[i], (unsigned long long)v[i]);
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
