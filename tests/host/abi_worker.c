// SPDX-License-Identifier: GPL-2.0
/*
 * A program of ns_run() workers and a batch, built twice by
 * tests/host/test_abi.sh: with NS_ABI_0_7 against 0.7's netslice.h
 * (tests/host/abi-0.7/), reading the structs' fields as programs built
 * then do, and without it against today's header, through the
 * functions. Both run on today's library, on tests/host/fake_slices.c's
 * two slices: worker 0 passes every packet on, worker 1 drops them all.
 * Prints "ok" and exits 0 when every field and counter says so.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "netslice.h"

#define SLICES		2
#define FAKE_LEN	64	/* fake_slices.c's packets */
#define TICKS		5

#ifdef NS_ABI_0_7
#define W_INDEX(w)		((w)->index)
#define W_SLICE(w)		((w)->slice)
#define W_FD(w)			((w)->fd)
#define W_PRIV(w)		((w)->priv)
#define W_SET_PRIV(w, p)	((w)->priv = (p))
#define W_ERROR(w)		(-(w)->err)
#define W_STAT(w, f, F)		ns_worker_counter(&(w)->f)
#else
#define W_INDEX(w)		ns_worker_index(w)
#define W_SLICE(w)		ns_worker_slice(w)
#define W_FD(w)			ns_worker_fd(w)
#define W_PRIV(w)		ns_worker_priv(w)
#define W_SET_PRIV(w, p)	ns_worker_set_priv(w, p)
#define W_ERROR(w)		ns_worker_error(w)
#define W_STAT(w, f, F)		ns_worker_stat(w, NS_WORKER_##F)
#endif

struct seen {
	int fd;
	unsigned long long packets;	/* as process() was given them */
};

static struct seen seen[SLICES];
static unsigned int ticks;
static int failed;

static void check(int ok, const char *what, unsigned int i)
{
	if (!ok) {
		printf("worker %u: %s\n", i, what);
		failed = 1;
	}
}

static int worker_init(struct ns_worker *w, void *arg)
{
	(void)arg;
	seen[W_INDEX(w)].fd = W_FD(w);
	W_SET_PRIV(w, &seen[W_INDEX(w)]);
	return 0;
}

static void process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct seen *s = W_PRIV(w);
	unsigned int i;

	(void)arg;
	s->packets += n;
	for (i = 0; i < n && W_INDEX(w) == 1; i++)
		ns_iov_drop(&iov[i]);
}

static void tick(struct ns_run *run, void *arg)
{
	(void)arg;
	if (++ticks == TICKS)
		ns_run_stop(run);
}

/* After the workers stopped: their counters hold still. */
static void done(struct ns_run *run, void *arg)
{
	struct ns_worker *w;
	unsigned long long rx;
	unsigned int i;

	(void)arg;
	for (i = 0; i < ns_run_workers(run); i++) {
		w = ns_run_worker(run, i);
		rx = W_STAT(w, rx_packets, RX_PACKETS);
		check(W_INDEX(w) == i && W_SLICE(w) == i && W_FD(w) == seen[i].fd &&
		      W_FD(w) >= 0 && W_PRIV(w) == &seen[i] && !W_ERROR(w), "fields", i);
		check(rx && rx == seen[i].packets &&
		      W_STAT(w, rx_bytes, RX_BYTES) == rx * FAKE_LEN &&
		      !W_STAT(w, tx_errors, TX_ERRORS), "rx counters", i);
		check(W_STAT(w, tx_packets, TX_PACKETS) == (i ? 0 : rx) &&
		      W_STAT(w, tx_bytes, TX_BYTES) == (i ? 0 : rx * FAKE_LEN) &&
		      W_STAT(w, nf_drops, NF_DROPS) == (i ? rx : 0), "tx counters", i);
	}
}

/* A batch read from a fake slice and written back. */
static void batch(void)
{
	int fd = ns_open(0, 0), n;
#ifdef NS_ABI_0_7
	struct ns_batch b;

	n = ns_batch_init(&b, 8, 256) ? -1 : ns_batch_recv(fd, &b);
	check(n == 4 && b.count == 4 && b.size == 8 && b.buf_size == 256 &&
	      b.iov[3].rlen == FAKE_LEN && b.iov[1].base == (uintptr_t)(b.bufs + 256) &&
	      ns_batch_send(fd, &b) == 4, "0.7 batch", 0);
	ns_batch_free(&b);
#else
	struct ns_batch *b;

	n = ns_batch_open(&b, 8, 256) ? -1 : ns_batch_recv(fd, b);
	check(n == 4 && ns_batch_count(b) == 4 && ns_batch_iov(b)[3].rlen == FAKE_LEN &&
	      ns_batch_iov(b)[1].base - ns_batch_iov(b)[0].base == 256 &&
	      ns_batch_send(fd, b) == 4, "batch", 0);
	ns_batch_close(b);
#endif
	close(fd);
}

#ifndef NS_ABI_0_7
/* A worker of no run, as the NFs' offline mode drives one. */
static void detached(void)
{
	struct netslice_iov iov = { .len = 0 };
	struct ns_worker *w;

	if (ns_worker_open(&w, 3, 7)) {
		check(0, "ns_worker_open", 3);
		return;
	}
	ns_worker_count(w, NS_WORKER_TX_BYTES, 40);
	ns_worker_count(w, NS_WORKER_TX_BYTES, 2);
	check(ns_worker_index(w) == 3 && ns_worker_slice(w) == 7 && ns_worker_fd(w) == -1 &&
	      !ns_worker_priv(w) && ns_worker_stat(w, NS_WORKER_TX_BYTES) == 42 &&
	      !ns_worker_stat(w, NS_WORKER_RX_PACKETS) &&
	      !ns_worker_stat(w, (enum ns_worker_stat)99) &&
	      ns_worker_write(w, &iov, 1) == -EBADF, "detached", 3);
	ns_worker_close(w);
}
#endif

int main(void)
{
	struct ns_run_config cfg = {
		.size = sizeof(cfg),
		.no_pin = 1,
		.mode = NS_RUN_RW,
		.worker_init = worker_init,
		.process = process,
		.tick = tick,
		.tick_ms = 20,
		.done = done,
	};
	int err;

	batch();
#ifndef NS_ABI_0_7
	detached();
#endif
	err = ns_run(&cfg);
	check(!err && ticks == TICKS, "ns_run", 0);
	if (!failed)
		printf("ok\n");
	return failed;
}
