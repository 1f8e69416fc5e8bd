// SPDX-License-Identifier: GPL-2.0
/*
 * nsfuzz: a seeded, multi-threaded fuzzer of netslice's character devices
 * and generic netlink family (see docs/reliability.md).
 *
 *   nsfuzz [-s SEED] [-t DEV_THREADS] [-d DEVICE_OPS] [-n NETLINK_MSGS]
 *          [-r RULES [-R BATCHES]] [-T SECONDS] -l LINK,PEER -f FEED,FEED
 *   nsfuzz -x
 *
 * LINK and PEER are the interfaces the netlink thread attaches (as a pair)
 * and detaches; FEED are their veth peers, where the traffic thread sends
 * frames in. Runs until both counts are reached (or SECONDS pass: then it
 * fails), then prints what it did and the seed. Each thread draws from
 * its own generator seeded from SEED, so a thread's sequence of calls is
 * reproducible; the interleaving of threads is not. -r adds the rule
 * storm (rules.c): two more netlink threads replacing, deleting and
 * flushing RULES distinct rules in batches, BATCHES in all (default
 * RULES / 2). Two threads always run chains of slices (chain.c): one
 * sets and clears next slices and closes the relay's files, the other
 * (the relay) hands packets from slice to slice past the hop limit.
 *
 * Exit status: 0 when the counts were reached and no call broke a promise
 * of the ABI (each broken one is printed). Kernel reports are for the
 * runner to find in the kernel log.
 *
 * -x only scans: every GET ioctl on every slice and every netlink dump
 * once, failing if a reply holds what looks like a kernel address (the
 * fuzzing run scans every reply it gets, too).
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/netslice.h>

#include "fuzz.h"

#define MAX_THREADS	16

struct fz fz;

void fz_fail(const char *what, ...)
{
	va_list ap;

	if (atomic_fetch_add(&fz.failures, 1) >= 20)
		return;	/* the first ones tell the story */
	va_start(ap, what);
	fprintf(stderr, "nsfuzz: FAIL (seed %llu): ", (unsigned long long)fz.seed);
	vfprintf(stderr, what, ap);
	fputc('\n', stderr);
	va_end(ap);
}

unsigned int fz_scan_addrs(const void *p, size_t len, size_t step)
{
	const unsigned char *b = p;
	unsigned int hits = 0;
	uint64_t v;

	for (size_t off = 0; off + 8 <= len; off += step) {
		memcpy(&v, b + off, 8);
		hits += fz_kernel_addr(v);
	}
	return hits;
}

int fz_open_nr(unsigned int n)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/" NETSLICE_DEV_PREFIX "%u", n);
	return open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

int fz_open_slice(struct fz_rng *r, int *slice)
{
	unsigned int n = fz_below(r, fz.nslices);

	if (slice)
		*slice = (int)n;
	return fz_open_nr(n);
}

static unsigned int count_slices(void)
{
	char path[64];
	unsigned int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/dev/" NETSLICE_DEV_PREFIX "%u", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

static int split_pair(char *arg, const char *out[2])
{
	char *comma = strchr(arg, ',');

	if (!comma)
		return -1;
	*comma = '\0';
	out[0] = arg;
	out[1] = comma + 1;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr, "usage: nsfuzz [-s SEED] [-t DEV_THREADS] [-d DEVICE_OPS] [-n NETLINK_MSGS]\n"
			"              [-r RULES [-R BATCHES]] [-T SECONDS] -l LINK,PEER -f FEED,FEED\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int threads = 3, i;
	double limit = 600, start, took;
	pthread_t tid[MAX_THREADS + 2], storm[2], chain[2];
	bool reached, scan_only = false;
	int opt;

	fz.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid();
	fz.dev_target = 100000;
	fz.nl_target = 10000;
	while ((opt = getopt(argc, argv, "s:t:d:n:r:R:T:l:f:x")) != -1) {
		switch (opt) {
		case 's': fz.seed = strtoull(optarg, NULL, 0); break;
		case 't': threads = (unsigned int)atoi(optarg); break;
		case 'd': fz.dev_target = atol(optarg); break;
		case 'n': fz.nl_target = atol(optarg); break;
		case 'r': fz.rule_pool = (unsigned int)atoi(optarg); break;
		case 'R': fz.rule_target = atol(optarg); break;
		case 'T': limit = atof(optarg); break;
		case 'l': if (split_pair(optarg, fz.link)) usage(); break;
		case 'f': if (split_pair(optarg, fz.feed)) usage(); break;
		case 'x': scan_only = true; break;
		default: usage();
		}
	}
	if (!scan_only && (!fz.link[0] || !fz.feed[0] || !threads || threads > MAX_THREADS ||
			   fz.rule_pool == 1 || fz.rule_pool > 65536))
		usage();
	if (!fz.rule_target)
		fz.rule_target = fz.rule_pool / 2;
	fz.nslices = count_slices();
	if (!fz.nslices) {
		fprintf(stderr, "nsfuzz: no /dev/" NETSLICE_DEV_PREFIX "N (module loaded?)\n");
		return 1;
	}
	if (scan_only) {
		long ioctls, msgs;

		if (fz_nl_open())
			return 1;
		ioctls = fz_dev_scan_all();
		msgs = fz_nl_scan_all();
		printf("nsfuzz: scanned %ld ioctl replies and %ld netlink replies: %ld failures\n",
		       ioctls, msgs, atomic_load(&fz.failures));
		return ioctls && msgs && !atomic_load(&fz.failures) ? 0 : 1;
	}
	fz.ifindex[0] = if_nametoindex(fz.link[0]);
	fz.ifindex[1] = if_nametoindex(fz.link[1]);
	fz.ifindex[2] = if_nametoindex(fz.feed[0]);
	fz.ifindex[3] = if_nametoindex(fz.feed[1]);
	fz.guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fz.rdonly = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fz.guard == MAP_FAILED || fz.rdonly == MAP_FAILED)
		return 1;
	/*
	 * Every socket exists before the first slice file: a number the
	 * device threads find in fds[] then always names a slice file (or
	 * nothing), whatever closes and reopens race with it.
	 */
	if (fz_nl_open() || fz_traffic_open() || fz_rules_open() || fz_chain_open())
		return 1;
	if (fz_ring_probe_limits(fz.nslices - 1))
		return 1;
	for (i = 0; i < FZ_FDS; i++) {
		struct fz_rng r = { fz.seed + i };
		int nr;

		fz.fds[i] = fz_open_slice(&r, &nr);
		fz.fd_slice[i] = fz.fds[i] >= 0 ? nr : -1;
	}
	for (i = 0; i < FZ_SLICES_MAX; i++)
		fz.relay_fds[i] = -1;
	fz.relay_next = -1;
	printf("nsfuzz: seed %llu, %u device threads, %u slices, targets %ld device ops, %ld netlink messages\n",
	       (unsigned long long)fz.seed, threads, fz.nslices, fz.dev_target, fz.nl_target);
	fflush(stdout);

	start = now_s();
	for (i = 0; i < threads; i++)
		pthread_create(&tid[i], NULL, fz_dev_thread, (void *)(uintptr_t)(i + 1));
	pthread_create(&tid[threads], NULL, fz_nl_thread, NULL);
	pthread_create(&tid[threads + 1], NULL, fz_traffic_thread, NULL);
	for (i = 0; fz.rule_pool && i < 2; i++)
		pthread_create(&storm[i], NULL, fz_rule_thread, (void *)(uintptr_t)i);
	pthread_create(&chain[0], NULL, fz_chain_thread, NULL);
	pthread_create(&chain[1], NULL, fz_relay_thread, NULL);
	for (;;) {
		reached = atomic_load(&fz.dev_ops) >= fz.dev_target &&
			  atomic_load(&fz.nl_msgs) >= fz.nl_target &&
			  atomic_load(&fz.rule_batches) >= fz.rule_target;
		if (reached || now_s() - start > limit || atomic_load(&fz.failures) >= 20)
			break;
		usleep(20000);
	}
	atomic_store(&fz.stop, true);
	for (i = 0; i < threads + 2; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; fz.rule_pool && i < 2; i++) {
		pthread_join(storm[i], NULL);
		close(fz.rule_sock[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(chain[i], NULL);
	/* Nothing changes chains now: what they ended as must hold together. */
	fz_chain_settle();
	for (i = 0; i < 2; i++)
		close(fz.chain_sock[i]);
	for (i = 0; i < FZ_FDS; i++)
		if (fz.fds[i] >= 0)
			close(fz.fds[i]);
	for (i = 0; i < fz.nslices; i++)
		if (fz.relay_fds[i] >= 0)
			close(fz.relay_fds[i]);
	took = now_s() - start;

	printf("nsfuzz: device ops %ld (read %ld: %ld packets; write %ld: %ld iovs consumed; ioctl %ld; reopen %ld)\n",
	       atomic_load(&fz.dev_ops), atomic_load(&fz.reads), atomic_load(&fz.packets_read),
	       atomic_load(&fz.writes), atomic_load(&fz.iovs_written), atomic_load(&fz.ioctls),
	       atomic_load(&fz.reopens));
	printf("nsfuzz: ring setups %ld (%ld over a memory limit), mappings %ld, kicks %ld, echoes %ld\n",
	       atomic_load(&fz.ring_setups), atomic_load(&fz.ring_over_limit),
	       atomic_load(&fz.ring_maps), atomic_load(&fz.ring_kicks),
	       atomic_load(&fz.ring_echoes));
	printf("nsfuzz: netlink messages %ld (acked %ld, refused %ld, replies %ld); frames sent %ld\n",
	       atomic_load(&fz.nl_msgs), atomic_load(&fz.nl_acks), atomic_load(&fz.nl_errors),
	       atomic_load(&fz.nl_dumps), atomic_load(&fz.frames_sent));
	if (fz.rule_pool)
		printf("nsfuzz: rule storm over %u rules: %ld batches (%ld refused), %ld operations, %ld flushes\n",
		       fz.rule_pool, atomic_load(&fz.rule_batches), atomic_load(&fz.rule_refused),
		       atomic_load(&fz.rule_ops), atomic_load(&fz.rule_flushes));
	printf("nsfuzz: chains: %ld set (%ld refused as loops, %ld otherwise), %ld ended, %ld read back\n",
	       atomic_load(&fz.chain_sets), atomic_load(&fz.chain_loops),
	       atomic_load(&fz.chain_refused), atomic_load(&fz.chain_ends),
	       atomic_load(&fz.chain_gets));
	printf("nsfuzz: relay: %ld flips, %ld packets handed on, %ld past the hop limit, %ld to a slice with no file, %ld closes of the next slice's file, %ld handles stale after handoff\n",
	       atomic_load(&fz.relay_flips), atomic_load(&fz.relay_handed),
	       atomic_load(&fz.relay_hops_over), atomic_load(&fz.relay_down),
	       atomic_load(&fz.relay_closes), atomic_load(&fz.relay_stale));
	printf("nsfuzz: %.1f s, %ld failures, seed %llu%s\n", took, atomic_load(&fz.failures),
	       (unsigned long long)fz.seed, reached ? "" : " (time limit before the targets)");
	return reached && !atomic_load(&fz.failures) ? 0 : 1;
}
