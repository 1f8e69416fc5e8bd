// SPDX-License-Identifier: GPL-2.0
/*
 * netslice-info: list the slices of the loaded module and their CPUs.
 *
 *   netslice-info [-s] [SLICE...] | --help | --version
 *
 * Without SLICE, every slice. -s adds each slice's attached interfaces and
 * counters, one "slice N: name=value ..." line each.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "netslice.h"

static int show_stats;

static int show_details(int fd, unsigned int slice)
{
	char cut[NS_CUT_STRLEN];
	struct netslice_stats st;
	struct netslice_info info;
	unsigned int i;

	if (ns_info_get(fd, &info) || ns_stats_get(fd, &st)) {
		fprintf(stderr, "netslice-info: slice %u: %s\n", slice, strerror(errno));
		return -1;
	}
	if (ns_cut_format(&info.cut, cut, sizeof(cut)))
		snprintf(cut, sizeof(cut), "?");
	printf("slice %u: rxq %u, cut %s (store %u, %u ms), %u interfaces:", slice,
	       info.rxq_size, cut, info.cut.store_size, info.cut.store_timeout_ms,
	       info.nr_ifaces);
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

static void usage(FILE *f)
{
	fputs("usage: netslice-info [-s] [SLICE]...\n"
	      "List the slices of the loaded netslice module and their CPUs.\n"
	      "\n"
	      "  -s, --stats     also each slice's interfaces, settings and counters\n"
	      "  -h, --help      this text\n"
	      "  -V, --version   the version\n"
	      "Exit status, as netslicectl's: 0 done, 1 a bad command line or no\n"
	      "such slice, 2 the module is not loaded or a slice cannot be read.\n", f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stats", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int count, i, c, failed = 0;
	char *end;

	while ((c = getopt_long(argc, argv, ":shV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			show_stats = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("netslice-info %s\n", NETSLICE_VERSION);
			return 0;
		default:
			cli_bad_option("netslice-info", c, argv);
			return 1;
		}
	}
	count = ns_slice_count();
	if (count < 0) {
		fprintf(stderr, "netslice-info: module not loaded? (%s)\n", strerror(errno));
		return 2;
	}
	if (optind == argc) {
		printf("%d slices\n", count);
		for (i = 0; i < count; i++)
			if (show_slice(i))
				failed = 2;
		return failed;
	}
	for (i = optind; i < argc; i++) {
		unsigned long slice = strtoul(argv[i], &end, 10);

		if (*end || end == argv[i] || slice >= (unsigned long)count) {
			fprintf(stderr, "netslice-info: no slice '%s' (0..%d)\n", argv[i], count - 1);
			failed = failed ? failed : 1;
			continue;
		}
		if (show_slice(slice))
			failed = 2;
	}
	return failed;
}
