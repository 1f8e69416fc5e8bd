// SPDX-License-Identifier: GPL-2.0
/*
 * netslice-info: list the slices of the loaded module and their CPUs.
 *
 *   netslice-info [-s] [-j|-p] [SLICE...] | --help | --version
 *
 * Without SLICE, every slice. -s adds each slice's settings (its next
 * slice where it has one), attached interfaces and counters, one
 * "slice N: name=value ..." line each. -j prints the same
 * as one JSON array, an object per slice; -p indents it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "netslice.h"

static int show_stats;
static struct json *json;	/* -j: the output, else NULL */

/* What is shown of a slice: its CPUs, and with -s its settings and counters. */
struct slice_view {
	unsigned int slice;
	char kernel_cpus[256], user_cpus[256];
	struct netslice_info info;
	struct netslice_stats st;
	char cut[NS_CUT_STRLEN];
};

static int read_details(int fd, struct slice_view *v)
{
	if (ns_info_get(fd, &v->info) || ns_stats_get(fd, &v->st)) {
		fprintf(stderr, "netslice-info: slice %u: %s\n", v->slice, strerror(errno));
		return -1;
	}
	if (ns_cut_format(&v->info.cut, v->cut, sizeof(v->cut)))
		snprintf(v->cut, sizeof(v->cut), "?");
	return 0;
}

static int read_slice(unsigned int slice, struct slice_view *v)
{
	cpu_set_t kernel_cpus, user_cpus;
	int fd, err = -1;

	v->slice = slice;
	fd = ns_open(slice, 0);
	if (fd < 0) {
		fprintf(stderr, "netslice-info: /dev/%s%u: %s\n",
			NETSLICE_DEV_PREFIX, slice, strerror(errno));
		return -1;
	}
	if (ns_cpumask_get(fd, &kernel_cpus, &user_cpus))
		fprintf(stderr, "netslice-info: slice %u: CPUMASK_GET: %s\n",
			slice, strerror(errno));
	else if (!show_stats || !read_details(fd, v))
		err = 0;
	close(fd);
	if (err || ns_cpulist_format(&kernel_cpus, v->kernel_cpus, sizeof(v->kernel_cpus)) < 0 ||
	    ns_cpulist_format(&user_cpus, v->user_cpus, sizeof(v->user_cpus)) < 0)
		return -1;
	return 0;
}

static unsigned int shown_ifaces(const struct netslice_info *info)
{
	return info->nr_ifaces < NETSLICE_MAX_IFACES ? info->nr_ifaces : NETSLICE_MAX_IFACES;
}

static bool hashed(const struct netslice_iface_info *iface)
{
	return iface->flags & NETSLICE_IFACE_HASHED;
}

static void print_text(const struct slice_view *v)
{
	const struct netslice_info *info = &v->info;
	unsigned int i;

	if (show_stats) {
		printf("slice %u: rxq %u, cut %s (store %u, %u ms), ", v->slice, info->rxq_size,
		       v->cut, info->cut.store_size, info->cut.store_timeout_ms);
		if (info->flags & NETSLICE_INFO_CHAINED)
			printf("next %u, ", info->next_slice);
		printf("%u interfaces:", info->nr_ifaces);
		for (i = 0; i < shown_ifaces(info); i++)
			printf(" %u->%u(%s 0x%llx)", info->ifaces[i].ifindex,
			       info->ifaces[i].pair_ifindex,
			       hashed(&info->ifaces[i]) ? "hash" : "queues",
			       (unsigned long long)info->ifaces[i].queue_mask);
		printf("\nslice %u:", v->slice);
		for (i = 0; i < ns_stat_count(); i++)
			printf(" %s=%llu", ns_stat_name(i),
			       (unsigned long long)ns_stat_value(&v->st, i));
		printf("\n");
	}
	printf("slice %-3u /dev/%s%-3u kernel-cpus %-8s user-cpus %s\n",
	       v->slice, NETSLICE_DEV_PREFIX, v->slice, v->kernel_cpus, v->user_cpus);
}

/* What the text says, in netslicectl -j's words (its slice and link show). */
static void print_json(struct json *j, const struct slice_view *v)
{
	const struct netslice_info *info = &v->info;
	char dev[32];
	unsigned int i;

	snprintf(dev, sizeof(dev), "/dev/%s%u", NETSLICE_DEV_PREFIX, v->slice);
	json_open(j, NULL, '{');
	json_u64(j, "slice", v->slice);
	json_str(j, "device", dev);
	json_str(j, "kernel_cpus", v->kernel_cpus);
	json_str(j, "user_cpus", v->user_cpus);
	if (show_stats) {
		json_u64(j, "rxq_size", info->rxq_size);
		json_str(j, "cut", v->cut);
		json_u64(j, "store_size", info->cut.store_size);
		json_u64(j, "store_timeout_ms", info->cut.store_timeout_ms);
		if (info->flags & NETSLICE_INFO_CHAINED)
			json_u64(j, "next", info->next_slice);
		json_u64(j, "nr_ifaces", info->nr_ifaces);
		json_open(j, "ifaces", '[');
		for (i = 0; i < shown_ifaces(info); i++) {
			json_open(j, NULL, '{');
			json_u64(j, "ifindex", info->ifaces[i].ifindex);
			json_u64(j, "peer_ifindex", info->ifaces[i].pair_ifindex);
			json_str(j, "steering", hashed(&info->ifaces[i]) ? "hash" : "queue");
			json_u64(j, "rx_queues", info->ifaces[i].rx_queues);
			json_u64(j, "queue_mask", info->ifaces[i].queue_mask);
			json_close(j, '}');
		}
		json_close(j, ']');
		json_open(j, "counters", '{');
		for (i = 0; i < ns_stat_count(); i++)
			json_u64(j, ns_stat_name(i), ns_stat_value(&v->st, i));
		json_close(j, '}');
	}
	json_close(j, '}');
}

static int show_slice(unsigned int slice)
{
	struct slice_view v;

	memset(&v, 0, sizeof(v));
	if (read_slice(slice, &v))
		return -1;
	if (json)
		print_json(json, &v);
	else
		print_text(&v);
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: netslice-info [-s] [-j|-p] [SLICE]...\n"
	      "List the slices of the loaded netslice module and their CPUs.\n"
	      "\n"
	      "  -s, --stats     also each slice's interfaces, settings and counters\n"
	      "  -j, --json      JSON output: an array, an object per slice\n"
	      "  -p, --pretty    JSON output, indented (implies -j)\n"
	      "  -h, --help      this text\n"
	      "  -V, --version   the version\n"
	      "Exit status, as netslicectl's: 0 done, 1 a bad command line or no\n"
	      "such slice, 2 the module is not loaded or a slice cannot be read.\n", f);
}

/* Every slice: 0, or 2 if one could not be read. */
static int show_all(int count)
{
	int i, failed = 0;

	for (i = 0; i < count; i++)
		if (show_slice(i))
			failed = 2;
	return failed;
}

/* The slices named: 0, 1 for a slice there is not, 2 for one that could not be read. */
static int show_listed(int count, int n, char **names)
{
	unsigned long slice;
	int i, failed = 0;
	char *end;

	for (i = 0; i < n; i++) {
		slice = strtoul(names[i], &end, 10);
		if (*end || end == names[i] || slice >= (unsigned long)count) {
			fprintf(stderr, "netslice-info: no slice '%s' (0..%d)\n", names[i],
				count - 1);
			failed = failed ? failed : 1;
			continue;
		}
		if (show_slice(slice))
			failed = 2;
	}
	return failed;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stats", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct json j;
	int count, c, failed, pretty = 0;

	while ((c = getopt_long(argc, argv, ":sjphV", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			show_stats = 1;
			break;
		case 'p':
			pretty = 1;
			/* fall through */
		case 'j':
			json = &j;
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
	if (json) {
		json_init(json, stdout);
		if (pretty)
			json_pretty(json);
		json_open(json, NULL, '[');
	} else if (optind == argc) {
		printf("%d slices\n", count);
	}
	if (optind == argc)
		failed = show_all(count);
	else
		failed = show_listed(count, argc - optind, argv + optind);
	if (json) {
		json_close(json, ']');
		json_end(json);
	}
	return failed;
}
