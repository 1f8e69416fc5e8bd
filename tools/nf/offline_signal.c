// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * Offline mode's signals, as online: SIGINT and SIGTERM end the run after
 * the frames in hand (summary printed, output finished), SIGHUP reloads,
 * SIGUSR1 prints the summary so far.
 *
 * A handler notes the signal and writes a byte to a pipe that the pcapng
 * reader polls together with its input, so a wait for a pipe that stays
 * quiet ends when one comes, and none can slip in between a look at a
 * flag and the poll that blocks. The signals are not blocked: a run stuck
 * elsewhere (a FIFO's open, a full --pcap-out pipe) is ended by a second
 * SIGINT or SIGTERM, which the handler leaves to the default action. A
 * reload or a report runs between frames: the reader ends its wait for
 * one only at a block boundary, so no frame is cut; a stop ends any wait
 * (a frame half written then is lost: the writer had not finished it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "offline_signal.h"
#include "pcapng.h"

static struct {
	int pipe[2];
	volatile sig_atomic_t stop, reload, report;
	int ready;		/* the NF is set up: what a SIGHUP reloads is there */
} offline_sig = { .pipe = { -1, -1 } };

static void offline_sig_handler(int sig)
{
	int saved = errno;

	if (sig == SIGHUP) {
		offline_sig.reload = 1;
	} else if (sig == SIGUSR1) {
		offline_sig.report = 1;
	} else if (offline_sig.stop) {
		/* The second stop: the run is stuck where no wait sees the first. */
		signal(sig, SIG_DFL);
		raise(sig);
	} else {
		offline_sig.stop = 1;
	}
	/* Full: a byte is there already, the reader wakes all the same. */
	if (write(offline_sig.pipe[1], "", 1) < 0)
		(void)0;
	errno = saved;
}

/* Empty the pipe; what came stays noted in the flags. */
static void offline_sig_drain(void)
{
	char buf[64];

	while (read(offline_sig.pipe[0], buf, sizeof(buf)) > 0)
		;
}

/* A reload or a report waits for the NF to be set up, and for a block's end. */
static int offline_sig_woken(void *arg, int between)
{
	(void)arg;
	offline_sig_drain();
	return offline_sig.stop ||
	       ((offline_sig.reload || offline_sig.report) && between && offline_sig.ready);
}

int nf_offline_signals(struct pcapng_wake *wake)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1 };
	struct sigaction sa = { .sa_handler = offline_sig_handler, .sa_flags = SA_RESTART };
	unsigned int i;

	if (pipe2(offline_sig.pipe, O_NONBLOCK | O_CLOEXEC)) {
		nf_err("cannot watch for signals: %s", strerror(errno));
		return -1;
	}
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	*wake = (struct pcapng_wake) { .fd = offline_sig.pipe[0], .fn = offline_sig_woken };
	return 0;
}

void nf_offline_signals_ready(void)
{
	offline_sig.ready = 1;
}

int nf_offline_stopped(void)
{
	return offline_sig.stop;
}

unsigned int nf_offline_signal(void)
{
	unsigned int what;

	if (offline_sig.pipe[0] < 0)
		return 0;
	offline_sig_drain();
	what = offline_sig.stop ? NF_OFFLINE_STOP : 0;
	if (!offline_sig.ready)
		return what;
	/* One that comes after its flag is read is there for the next look. */
	if (offline_sig.reload) {
		offline_sig.reload = 0;
		what |= NF_OFFLINE_RELOAD;
	}
	if (offline_sig.report) {
		offline_sig.report = 0;
		what |= NF_OFFLINE_REPORT;
	}
	return what;
}
