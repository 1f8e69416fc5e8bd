// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * ns_run(): one worker thread per slice, stopped cleanly by a signal.
 *
 * Workers read with O_NONBLOCK and, when their slice is empty, poll it
 * together with an eventfd that ns_run_stop() writes: a stop never races
 * with a blocking read, and no signal is sent to a worker. The calling
 * thread takes SIGINT/SIGTERM/SIGHUP with sigtimedwait() and runs the
 * tick and reload callbacks.
 *
 * ns_run_synchronize() is quiescent-state based reclamation: a worker
 * records the grace-period number it saw at the top of every batch, and
 * "offline" while it sleeps in poll(). A grace period has passed once
 * every worker recorded the new number or is offline.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "internal.h"
#include "netslice.h"
#include "ring.h"
#include "worker.h"

#define NS_RUN_BATCH		64
#define NS_RUN_BUF_SIZE		2048
#define NS_RUN_POLL_MS		200
#define NS_RUN_SETUP_POLL_MS	5
#define NS_QS_OFFLINE		UINT64_MAX

/* A worker as the library holds it: 0.7's public fields (worker.h), first. */
struct ns_worker_lib {
	struct ns_worker pub;
	uint64_t qs_seen;
	pthread_t thread;
	int keep_header;		/* the module takes rlen 0 with a handle */
	struct ns_ring *ring;		/* ring mode, or NULL: read/write */
};

struct ns_run {
	struct ns_run_config cfg;	/* the caller's, zero past its size */
	struct ns_worker_lib *workers;
	unsigned int nr_workers;
	int stop_fd;
	int stopping;
	unsigned int nr_set_up;	/* workers through their setup, into their loop */
	uint64_t gp;		/* grace-period number */
};

static struct ns_worker_lib *ns_worker_lib(struct ns_worker *w)
{
	return (struct ns_worker_lib *)((char *)w - offsetof(struct ns_worker_lib, pub));
}

static void ns_qs_set(struct ns_worker_lib *lw, uint64_t v)
{
	__atomic_store_n(&lw->qs_seen, v, __ATOMIC_SEQ_CST);
}

static void ns_qs_online(struct ns_worker_lib *lw)
{
	ns_qs_set(lw, __atomic_load_n(&lw->pub.run->gp, __ATOMIC_SEQ_CST));
}

void ns_run_stop(struct ns_run *run)
{
	uint64_t one = 1;

	__atomic_store_n(&run->stopping, 1, __ATOMIC_SEQ_CST);
	if (write(run->stop_fd, &one, sizeof(one)) < 0) {
		/* The counter is already non-zero: the wake is pending. */
	}
}

static int ns_run_stopping(struct ns_run *run)
{
	return __atomic_load_n(&run->stopping, __ATOMIC_SEQ_CST);
}

unsigned int ns_run_workers(const struct ns_run *run)
{
	return run->nr_workers;
}

struct ns_worker *ns_run_worker(struct ns_run *run, unsigned int i)
{
	return i < run->nr_workers ? &run->workers[i].pub : NULL;
}

int ns_worker_open(struct ns_worker **wp, unsigned int index, unsigned int slice)
{
	struct ns_worker_lib *lw = calloc(1, sizeof(*lw));

	*wp = NULL;
	if (!lw)
		return ns_fail(ENOMEM);
	lw->pub.index = index;
	lw->pub.slice = slice;
	lw->pub.fd = -1;
	lw->qs_seen = NS_QS_OFFLINE;
	*wp = &lw->pub;
	return 0;
}

void ns_worker_close(struct ns_worker *w)
{
	if (w)
		free(ns_worker_lib(w));
}

void ns_run_synchronize(struct ns_run *run)
{
	const struct timespec nap = { .tv_nsec = 100000 };
	uint64_t gp = __atomic_add_fetch(&run->gp, 1, __ATOMIC_SEQ_CST);
	unsigned int i;

	for (i = 0; i < run->nr_workers; i++)
		while (__atomic_load_n(&run->workers[i].qs_seen, __ATOMIC_SEQ_CST) < gp)
			nanosleep(&nap, NULL);
}

/* Sleep until the slice has packets or the run stops. */
static void ns_worker_wait(struct ns_worker_lib *lw)
{
	struct ns_worker *w = &lw->pub;
	struct pollfd pfd[2] = {
		{ .fd = w->fd, .events = POLLIN },
		{ .fd = w->run->stop_fd, .events = POLLIN },
	};

	unsigned int every = w->run->cfg.wake_every_us;
	const struct timespec period = {
		.tv_sec = every / 1000000,
		.tv_nsec = (long)(every % 1000000) * 1000,
	};

	ns_qs_set(lw, NS_QS_OFFLINE);
	if (!ns_run_stopping(w->run))
		ppoll(pfd, 2, every ? &period : NULL, NULL);
}

ssize_t ns_worker_write(struct ns_worker *w, struct netslice_iov *iov, unsigned int n)
{
	struct ns_ring *ring = ns_worker_lib(w)->ring;
	ssize_t ret;
	unsigned int i;

	if (ring)
		return ns_ring_send_all(ring, iov, n);
	ret = ns_write_all(w->fd, iov, n);
	if (ret >= 0 && (unsigned int)ret < n) {
		for (i = (unsigned int)ret; i < n; i++)
			ns_iov_drop(&iov[i]);
		ret = ns_write_all(w->fd, &iov[ret], n - (unsigned int)ret);
		if (ret >= 0)
			ret = n;
	}
	return ret;
}

/* Write the batch; after a second-long stall, drop what is left. */
static int ns_worker_send(struct ns_worker *w, struct netslice_iov *batch, unsigned int n,
			  const uint32_t *rlen)
{
	uint64_t tx = 0, bytes = 0, drops = 0, errs = 0;
	struct netslice_iov *iov;
	unsigned int i;
	ssize_t ret;

	/* A module without NETSLICE_INFO_KEEP_HEADER gets the header as read. */
	if (!ns_worker_lib(w)->keep_header)
		for (i = 0; i < n; i++)
			if (batch[i].handle && !batch[i].rlen)
				batch[i].rlen = rlen[i];
	ret = ns_worker_write(w, batch, n);
	if (ret < 0)
		return (int)ret;
	for (i = 0; i < n; i++) {
		iov = &batch[i];
		if (iov->error) {
			errs++;
		} else if (iov->action == NETSLICE_TX_DROP) {
			drops++;
		} else {
			tx++;
			/* A cut packet leaves with its parked payload (rlen 0: as read). */
			bytes += iov->handle ? (iov->rlen ?: rlen[i]) + iov->wire_len - rlen[i] :
					       iov->rlen;
		}
	}
	ns_worker_add(&w->tx_packets, tx);
	ns_worker_add(&w->tx_bytes, bytes);
	ns_worker_add(&w->nf_drops, drops);
	ns_worker_add(&w->tx_errors, errs);
	return 0;
}

/* A batch read or peeked: counted, processed, written. */
static int ns_worker_batch(struct ns_worker *w, struct netslice_iov *iov, unsigned int n,
			   uint32_t *rlen)
{
	const struct ns_run_config *cfg = &w->run->cfg;
	uint64_t bytes = 0;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		bytes += iov[i].wire_len;
		rlen[i] = iov[i].rlen;
	}
	ns_worker_add(&w->rx_packets, n);
	ns_worker_add(&w->rx_bytes, bytes);
	if (cfg->process)
		cfg->process(w, iov, n, cfg->arg);
	err = ns_worker_send(w, iov, n, rlen);
	if (cfg->sent)
		cfg->sent(w, cfg->arg);
	return err;
}

static int ns_worker_loop(struct ns_worker_lib *lw, struct ns_batch *b, uint32_t *rlen)
{
	struct ns_worker *w = &lw->pub;
	unsigned int got;
	int n, err;

	for (;;) {
		ns_qs_online(lw);
		if (ns_run_stopping(w->run))
			return 0;
		if (lw->ring) {
			/* Ring mode: no system call while packets keep coming. */
			got = ns_ring_peek(lw->ring, b->iov, b->size);
			if (!got) {
				/*
				 * Sleep, not spin: measured, a worker that spun
				 * took packets one or two at a time, a kick each.
				 */
				if (ns_ring_can_sleep(lw->ring))
					ns_worker_wait(lw);
				continue;
			}
			err = ns_worker_batch(w, b->iov, got, rlen);
			ns_ring_release(lw->ring, got);
			if (err)
				return err;
			continue;
		}
		n = ns_batch_recv(w->fd, b);
		if (n == -EAGAIN) {
			ns_worker_wait(lw);
			continue;
		}
		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		err = ns_worker_batch(w, b->iov, b->count, rlen);
		if (err)
			return err;
	}
}

/* Ring mode where asked, or by default where the module offers it. */
static int ns_worker_ring(struct ns_worker_lib *lw, const struct netslice_info *info,
			  unsigned int batch)
{
	const struct ns_run_config *cfg = &lw->pub.run->cfg;
	struct netslice_ring_setup setup;

	if (cfg->mode == NS_RUN_RW ||
	    (cfg->mode == NS_RUN_AUTO && !(info->flags & NETSLICE_INFO_RING)))
		return cfg->busy_poll_us ? -ENOTTY : 0;
	ns_ring_config_default(&setup, batch);
	if (cfg->busy_poll_us) {
		setup.flags = NETSLICE_RING_BUSY_POLL |
			      (cfg->busy_prefer ? NETSLICE_RING_BUSY_PREFER : 0);
		setup.busy_poll_us = cfg->busy_poll_us;
	}
	/* As deep as the slice's own rxq (the rxq_size the admin chose). */
	while (setup.rx_size < info->rxq_size && setup.rx_size < NETSLICE_RING_MAX_SIZE)
		setup.rx_size *= 2;
	setup.frame_count = setup.rx_size + setup.tx_size;
	return ns_ring_open(&lw->ring, lw->pub.fd, &setup);
}

static void *ns_worker_main(void *arg)
{
	struct ns_worker_lib *lw = arg;
	struct ns_worker *w = &lw->pub;
	const struct ns_run_config *cfg = &w->run->cfg;
	struct netslice_info info;
	struct ns_batch b;
	uint32_t *rlen = NULL;
	int err;

	err = ns_batch_init(&b, cfg->batch ? cfg->batch : NS_RUN_BATCH,
			    cfg->buf_size ? cfg->buf_size : NS_RUN_BUF_SIZE);
	if (err)
		goto out;
	rlen = calloc(b.size, sizeof(*rlen));
	if (!rlen) {
		err = -ENOMEM;
		goto out_free_batch;
	}
	err = ns_info_get(w->fd, &info);
	if (err)
		goto out_free_rlen;
	lw->keep_header = !!(info.flags & NETSLICE_INFO_KEEP_HEADER);
	if (!cfg->no_pin) {
		err = ns_pin_to_user_cpus(w->fd);
		if (err)
			goto out_free_rlen;
	}
	err = ns_worker_ring(lw, &info, b.size);
	if (err)
		goto out_free_rlen;
	if (cfg->worker_init) {
		err = cfg->worker_init(w, cfg->arg);
		if (err)
			goto out_unring;
	}
	__atomic_add_fetch(&w->run->nr_set_up, 1, __ATOMIC_RELEASE);
	err = ns_worker_loop(lw, &b, rlen);
	if (cfg->worker_fini)
		cfg->worker_fini(w, cfg->arg);
out_unring:
	ns_ring_close(lw->ring);
	lw->ring = NULL;
out_free_rlen:
	free(rlen);
out_free_batch:
	ns_batch_free(&b);
out:
	ns_qs_set(lw, NS_QS_OFFLINE);
	__atomic_store_n(&w->err, -err, __ATOMIC_RELAXED);
	if (err)
		ns_run_stop(w->run);
	return NULL;
}

/*
 * Set a cut; a module without super-packets kept whole
 * (NETSLICE_INFO_GSO) gets the mode without them, and reads them
 * segmented, as it always did.
 */
static int ns_run_cut_set(int fd, const struct netslice_cut *cut)
{
	struct netslice_cut mode = *cut;
	struct netslice_info info;
	int err;

	if (mode.flags & NETSLICE_CUT_GSO) {
		err = ns_info_get(fd, &info);
		if (err)
			return err;
		if (!(info.flags & NETSLICE_INFO_GSO))
			mode.flags &= ~NETSLICE_CUT_GSO;
	}
	return ns_cut_set(fd, &mode);
}

/* Open the slices and set their cut, before any worker reads. */
static int ns_run_open(struct ns_run *run, const unsigned int *slices, unsigned int n)
{
	const struct ns_run_config *cfg = &run->cfg;
	int count = ns_slice_count(), fd, err;
	struct ns_worker *w;
	unsigned int i;

	if (count < 0)
		return count;
	for (i = 0; i < n; i++) {
		if (slices && slices[i] >= (unsigned int)count)
			return ns_fail(ENODEV);
		w = &run->workers[i].pub;
		w->run = run;
		w->index = i;
		w->slice = slices ? slices[i] : i;
		run->workers[i].qs_seen = NS_QS_OFFLINE;
		fd = ns_open(w->slice, O_NONBLOCK);
		if (fd < 0)
			return fd;
		w->fd = fd;
		run->nr_workers = i + 1;
		if (cfg->cut) {
			err = ns_run_cut_set(fd, cfg->cut);
			if (err)
				return err;
		}
	}
	return 0;
}

static void ns_run_close(struct ns_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nr_workers; i++)
		close(run->workers[i].pub.fd);
}

/* The calling thread: signals, ticks, reloads, until asked to stop. */
static void ns_run_wait(struct ns_run *run, const sigset_t *sigs)
{
	const struct ns_run_config *cfg = &run->cfg;
	long long next_tick = ns_mono_ms() + cfg->tick_ms, wait_ms;
	struct timespec ts;
	int sig;

	while (!ns_run_stopping(run)) {
		wait_ms = NS_RUN_POLL_MS;
		if (cfg->tick && cfg->tick_ms) {
			wait_ms = next_tick - ns_mono_ms();
			if (wait_ms <= 0) {
				cfg->tick(run, cfg->arg);
				next_tick += cfg->tick_ms;
				continue;
			}
			if (wait_ms > NS_RUN_POLL_MS)
				wait_ms = NS_RUN_POLL_MS;
		}
		ts.tv_sec = wait_ms / 1000;
		ts.tv_nsec = (wait_ms % 1000) * 1000000;
		sig = sigtimedwait(sigs, NULL, &ts);
		if (sig == SIGHUP && cfg->reload)
			cfg->reload(run, cfg->arg);
		else if (sig > 0)
			ns_run_stop(run);
	}
}

/*
 * Until every worker has its ring, its CPUs and its worker_init done: a
 * ready that came sooner would promise slices nobody serves yet. Only a
 * stop is taken meanwhile (a SIGHUP for reload waits, as do ticks; one
 * with no reload stops, as in ns_run_wait); a worker whose setup failed
 * stops the run. 1 once all are set up, 0 if the run stops.
 */
static int ns_run_wait_setup(struct ns_run *run, const sigset_t *sigs)
{
	const struct timespec ts = { .tv_nsec = NS_RUN_SETUP_POLL_MS * 1000000 };
	sigset_t stops = *sigs;

	if (run->cfg.reload)
		sigdelset(&stops, SIGHUP);
	while (!ns_run_stopping(run)) {
		if (__atomic_load_n(&run->nr_set_up, __ATOMIC_ACQUIRE) == run->nr_workers)
			return 1;
		if (sigtimedwait(&stops, NULL, &ts) > 0)
			ns_run_stop(run);
	}
	return 0;
}

/*
 * A SIGHUP held for reload through a setup that failed or a stop: taken
 * here, or unblocking it would end the process by its default action,
 * silently and with a status systemd counts as clean.
 */
static void ns_run_drain_hup(void)
{
	const struct timespec now = { 0 };
	sigset_t hup;

	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	while (sigtimedwait(&hup, NULL, &now) == SIGHUP)
		;
}

/* The config of 0.6, the first with a size: what every caller sets. */
#define NS_RUN_CONFIG_SIZE_0_6	(offsetof(struct ns_run_config, mode) + sizeof(enum ns_run_mode))

/* As the kernel's copy_struct_from_user(): unknown fields must be zero. */
static int ns_run_config_copy(struct ns_run_config *dst, const struct ns_run_config *src)
{
	const unsigned char *bytes = (const unsigned char *)src;
	size_t i;

	if (src->size < NS_RUN_CONFIG_SIZE_0_6)
		return ns_fail(EINVAL);
	for (i = sizeof(*dst); i < src->size; i++)
		if (bytes[i])
			return ns_fail(E2BIG);
	memset(dst, 0, sizeof(*dst));
	memcpy(dst, src, src->size < sizeof(*dst) ? src->size : sizeof(*dst));
	dst->pad_0_6 = 0;
	if (dst->reserved || (dst->busy_prefer && !dst->busy_poll_us) ||
	    (dst->busy_poll_us && dst->mode == NS_RUN_RW))
		return ns_fail(EINVAL);
	return 0;
}

int ns_run(const struct ns_run_config *config)
{
	struct ns_run run = { .stop_fd = -1 };
	const struct ns_run_config *cfg = &run.cfg;
	unsigned int n, i, started = 0;
	sigset_t sigs, old;
	int err, count;

	err = ns_run_config_copy(&run.cfg, config);
	if (err)
		return err;
	n = cfg->slices ? cfg->nr_slices : 0;
	if (!cfg->slices) {
		count = ns_slice_count();
		if (count < 0)
			return count;
		n = (unsigned int)count;
	}
	if (!n)
		return ns_fail(ENODEV);
	run.workers = calloc(n, sizeof(*run.workers));
	if (!run.workers)
		return ns_fail(ENOMEM);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);

	run.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (run.stop_fd < 0) {
		err = -errno;
		goto out_unblock;
	}
	err = ns_run_open(&run, cfg->slices, n);
	if (err)
		goto out_close;
	for (i = 0; i < n; i++) {
		err = -pthread_create(&run.workers[i].thread, NULL, ns_worker_main,
				      &run.workers[i]);
		if (err)
			break;
		started++;
	}
	if (!err && ns_run_wait_setup(&run, &sigs)) {
		if (cfg->ready)
			cfg->ready(&run, cfg->arg);
		ns_run_wait(&run, &sigs);
	}
	ns_run_stop(&run);
	for (i = 0; i < started; i++)
		pthread_join(run.workers[i].thread, NULL);
	for (i = 0; i < started && !err; i++)
		err = -run.workers[i].pub.err;
	if (started == n && cfg->done)
		cfg->done(&run, cfg->arg);
out_close:
	ns_run_close(&run);
	close(run.stop_fd);
out_unblock:
	/* A caller that held SIGHUP blocked before keeps its own. */
	if (!sigismember(&old, SIGHUP))
		ns_run_drain_hup();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	free(run.workers);
	return err ? ns_fail(-err) : 0;
}
