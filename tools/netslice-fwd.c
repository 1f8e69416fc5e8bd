// SPDX-License-Identifier: GPL-2.0
/*
 * netslice-fwd: the minimal forwarder. One thread per slice, pinned to the
 * slice's user-side CPUs, reads a batch and writes it back out (default
 * egress: the ingress interface's pair). Stops on SIGINT or SIGTERM and
 * prints per-slice packet counts.
 *
 * With -m, it first sets each slice's slicing mode ("auto", "fixed:128",
 * ... as ns_slicing_parse() reads them): a forwarder needs no byte past
 * the headers, and handles pass through it untouched.
 *
 *   netslice-fwd [-b BATCH] [-m SLICING] [-s SLICE]...
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netslice.h"

#define MAX_BATCH 256
#define BUF_SIZE 2048

struct worker {
	pthread_t thread;
	unsigned int slice;
	unsigned int batch;
	unsigned long long in, out;
	int err;
};

static volatile sig_atomic_t stopping;

static void on_wake(int sig)
{
	(void)sig;
}

static void *worker_run(void *arg)
{
	struct netslice_iov iov[MAX_BATCH];
	struct worker *w = arg;
	unsigned char *bufs;
	ssize_t n, i;
	int fd;

	fd = ns_open(w->slice, 0);
	if (fd < 0 || ns_pin_to_user_cpus(fd)) {
		w->err = errno;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	bufs = malloc((size_t)w->batch * BUF_SIZE);
	if (!bufs) {
		w->err = ENOMEM;
		close(fd);
		return NULL;
	}
	while (!stopping) {
		for (i = 0; i < w->batch; i++)
			iov[i] = (struct netslice_iov) {
				.base = (__u64)(unsigned long)(bufs + i * BUF_SIZE),
				.len = BUF_SIZE,
			};
		n = ns_read(fd, iov, w->batch);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			w->err = errno;
			break;
		}
		w->in += n;
		/* The iovs go back as read: rlen bytes, default egress. */
		if (ns_write_all(fd, iov, n) < 0) {
			w->err = errno;
			break;
		}
		for (i = 0; i < n; i++)
			w->out += !iov[i].error;
	}
	free(bufs);
	close(fd);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: netslice-fwd [-b BATCH (1..%d)] [-m off|auto[+EXTRA]|fixed:LEN[,trim]]"
		" [-s SLICE]...\n", MAX_BATCH);
	exit(2);
}

int main(int argc, char **argv)
{
	struct worker workers[NETSLICE_MAX_SLICES];
	struct netslice_slicing slicing;
	int set_slicing = 0, fd;
	unsigned int batch = 64, nw = 0, i;
	int count, opt, sig, failed = 0;
	struct sigaction sa;
	struct timespec ts;
	sigset_t set;

	count = ns_slice_count();
	if (count < 0) {
		fprintf(stderr, "netslice-fwd: module not loaded? (%s)\n", strerror(errno));
		return 1;
	}
	while ((opt = getopt(argc, argv, "b:m:s:")) != -1) {
		switch (opt) {
		case 'b':
			batch = strtoul(optarg, NULL, 0);
			if (!batch || batch > MAX_BATCH)
				usage();
			break;
		case 'm':
			if (ns_slicing_parse(optarg, &slicing))
				usage();
			set_slicing = 1;
			break;
		case 's':
			workers[nw].slice = strtoul(optarg, NULL, 0);
			if (workers[nw].slice >= (unsigned int)count || nw == NETSLICE_MAX_SLICES)
				usage();
			nw++;
			break;
		default:
			usage();
		}
	}
	if (!nw)
		for (nw = 0; nw < (unsigned int)count; nw++)
			workers[nw].slice = nw;

	/* Before the first read, so that every packet is sliced alike. */
	for (i = 0; set_slicing && i < nw; i++) {
		fd = ns_open(workers[i].slice, 0);
		if (fd < 0 || ns_slicing_set(fd, &slicing)) {
			fprintf(stderr, "netslice-fwd: slice %u: %s\n", workers[i].slice,
				strerror(errno));
			return 1;
		}
		close(fd);
	}

	/* Workers get SIGUSR1 to leave a blocking read; main waits for signals. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_wake;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	for (i = 0; i < nw; i++) {
		workers[i].batch = batch;
		workers[i].in = workers[i].out = 0;
		workers[i].err = 0;
		pthread_create(&workers[i].thread, NULL, worker_run, &workers[i]);
	}
	printf("netslice-fwd: forwarding on %u slices, batch %u\n", nw, batch);
	fflush(stdout);

	sigwait(&set, &sig);
	stopping = 1;
	for (i = 0; i < nw; i++) {
		/* Again until it leaves: the first signal may come before its read. */
		do {
			pthread_kill(workers[i].thread, SIGUSR1);
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 50 * 1000 * 1000;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
		} while (pthread_timedjoin_np(workers[i].thread, NULL, &ts) == ETIMEDOUT);
		printf("slice %u: in %llu out %llu%s%s\n", workers[i].slice,
		       workers[i].in, workers[i].out, workers[i].err ? " error: " : "",
		       workers[i].err ? strerror(workers[i].err) : "");
		failed |= workers[i].err != 0;
	}
	return failed;
}
