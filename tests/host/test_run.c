// SPDX-License-Identifier: GPL-2.0
/*
 * ns_run()'s ready callback, on the host: built with the linker's --wrap
 * (Makefile), the library's calls to ns_slice_count(), ns_open() and
 * ns_info_get() land here, so ns_run() runs workers on eventfds standing
 * in for slices (read/write mode, no pinning: nothing else reaches the
 * module). ready must come only once every worker's setup is done, and
 * never when one fails or the run is stopped first: a Type=notify unit
 * reports a start on it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "netslice.h"
#include "ktap.h"

#define SLICES		4
#define SLOW_MS		100	/* the slow worker's setup */

/* The fake module: which NETSLICE_INFO_GET of a run fails (0-based), or -1. */
static int info_fails = -1;
static unsigned int info_calls;

int __wrap_ns_slice_count(void)
{
	return SLICES;
}

int __wrap_ns_open(unsigned int slice, int flags)
{
	(void)slice;
	(void)flags;
	/* Never readable: a read is EAGAIN and poll() sleeps until the stop. */
	return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

int __wrap_ns_info_get(int fd, struct netslice_info *info)
{
	(void)fd;
	memset(info, 0, sizeof(*info));
	return (int)__atomic_fetch_add(&info_calls, 1, __ATOMIC_SEQ_CST) == info_fails ?
	       -ENOTTY : 0;
}

/* One run's story, as the callbacks saw it. */
struct story {
	unsigned int slow;		/* the worker whose setup takes SLOW_MS */
	int fail;			/* its worker_init's error, or 0 */
	int sig;			/* the slow one raises it first */
	unsigned int inits_done;	/* worker_inits returned 0 */
	int ready_calls;
	unsigned int inits_at_ready;
	int errs[SLICES];		/* each worker's err, at done */
};

static void sleep_ms(long ms)
{
	const struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int worker_init(struct ns_worker *w, void *arg)
{
	struct story *s = arg;

	if (ns_worker_index(w) == s->slow) {
		/* Blocked in every thread: pending until ns_run() takes it. */
		if (s->sig)
			kill(getpid(), s->sig);
		sleep_ms(SLOW_MS);
		if (s->fail)
			return s->fail;
	}
	__atomic_add_fetch(&s->inits_done, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void ready(struct ns_run *run, void *arg)
{
	struct story *s = arg;

	s->ready_calls++;
	s->inits_at_ready = __atomic_load_n(&s->inits_done, __ATOMIC_SEQ_CST);
	ns_run_stop(run);
}

static void done(struct ns_run *run, void *arg)
{
	struct story *s = arg;
	unsigned int i;

	for (i = 0; i < ns_run_workers(run) && i < SLICES; i++)
		s->errs[i] = -ns_worker_error(ns_run_worker(run, i));
}

static void reload(struct ns_run *run, void *arg)
{
	(void)run;
	(void)arg;
}

static int run(struct story *s, int with_reload)
{
	struct ns_run_config cfg = {
		.size = sizeof(cfg),
		.mode = NS_RUN_RW,
		.no_pin = 1,
		.arg = s,
		.worker_init = worker_init,
		.ready = ready,
		.done = done,
		.reload = with_reload ? reload : NULL,
	};

	return ns_run(&cfg);
}

int main(void)
{
	struct story s = { .slow = SLICES - 1 };
	int rc;

	ktap_header("libnetslice-run", 7);

	rc = run(&s, 0);
	ktap_check(rc == 0 && s.ready_calls == 1 && s.inits_at_ready == SLICES,
		   "ready comes once every worker's setup is done (rc %d, ready %d times, after %u of %d worker_inits)",
		   rc, s.ready_calls, s.inits_at_ready, SLICES);

	s = (struct story){ .slow = 1, .fail = -EADDRNOTAVAIL };
	rc = run(&s, 0);
	ktap_check(rc == -EADDRNOTAVAIL && !s.ready_calls && s.errs[1] == EADDRNOTAVAIL &&
		   !s.errs[0] && !s.errs[2] && !s.errs[3],
		   "a worker_init that fails: no ready, the run returns its error, in that worker's err (rc %d, ready %d times)",
		   rc, s.ready_calls);

	s = (struct story){ .slow = SLICES };
	info_calls = 0;
	info_fails = 2;
	rc = run(&s, 0);
	info_fails = -1;
	ktap_check(rc == -ENOTTY && !s.ready_calls,
		   "a setup that fails before worker_init (no slice info): no ready, its error (rc %d, ready %d times)",
		   rc, s.ready_calls);

	s = (struct story){ .slow = 0, .sig = SIGTERM };
	rc = run(&s, 0);
	ktap_check(rc == 0 && !s.ready_calls,
		   "SIGTERM while a worker sets up: the run stops cleanly, no ready (rc %d, ready %d times)",
		   rc, s.ready_calls);

	/* The process survives to check: a SIGHUP kept pending would kill it. */
	s = (struct story){ .slow = 1, .fail = -EADDRNOTAVAIL, .sig = SIGHUP };
	rc = run(&s, 1);
	ktap_check(rc == -EADDRNOTAVAIL && !s.ready_calls,
		   "SIGHUP (reload) while a setup fails: the run returns its error, the process lives (rc %d)",
		   rc);

	s = (struct story){ .slow = 0, .sig = SIGHUP };
	rc = run(&s, 0);
	ktap_check(rc == 0 && !s.ready_calls,
		   "SIGHUP with no reload while a worker sets up: a stop, no ready (rc %d, ready %d times)",
		   rc, s.ready_calls);
	/* A caller's own blocked SIGHUP is its own: still pending after. */
	{
		sigset_t hup, pending;

		sigemptyset(&hup);
		sigaddset(&hup, SIGHUP);
		sigprocmask(SIG_BLOCK, &hup, NULL);
		s = (struct story){ .slow = 1, .fail = -EADDRNOTAVAIL, .sig = SIGHUP };
		rc = run(&s, 1);
		sigpending(&pending);
		ktap_check(rc == -EADDRNOTAVAIL && sigismember(&pending, SIGHUP),
			   "a caller that blocked SIGHUP itself keeps one sent during the run (rc %d)",
			   rc);
		sigtimedwait(&hup, NULL, &(struct timespec){ 0 });
	}
	return ktap_finish();
}
