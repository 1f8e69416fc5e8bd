// SPDX-License-Identifier: GPL-2.0
/*
 * Offline mode's signals, as online: SIGINT and SIGTERM end the run after
 * the frames in hand (summary printed, output finished), SIGHUP reloads,
 * SIGUSR1 prints the summary so far.
 *
 * They are blocked and read from a signalfd that the pcapng reader polls
 * together with its input, so a wait for a pipe that stays quiet ends
 * when one comes, and no signal can slip in between a look at a flag and
 * the read that blocks (as it could with a handler and EINTR). A reload
 * or a report runs between frames: the reader ends its wait for one only
 * at a block boundary, so no frame is cut; a stop ends any wait (a frame
 * half written then is lost: the writer had not finished it).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "nf.h"
#include "pcapng.h"

static struct {
	int fd;
	int stop, reload, report;
	int ready;		/* the NF is set up: what a SIGHUP reloads is there */
} offline_sig = { .fd = -1 };

/*
 * Take what came. Before setup a SIGHUP is dropped (setup reads the
 * configuration after it), and so is a SIGUSR1 (there is nothing to say).
 */
static void offline_sig_drain(void)
{
	struct signalfd_siginfo si;

	while (read(offline_sig.fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			offline_sig.reload = offline_sig.ready;
		else if (si.ssi_signo == SIGUSR1)
			offline_sig.report = offline_sig.ready;
		else
			offline_sig.stop = 1;
	}
}

static int offline_sig_woken(void *arg, int between)
{
	(void)arg;
	offline_sig_drain();
	return offline_sig.stop || ((offline_sig.reload || offline_sig.report) && between);
}

int nf_offline_signals(struct pcapng_wake *wake)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	offline_sig.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (offline_sig.fd < 0) {
		nf_err("cannot watch for signals: %s", strerror(errno));
		return -1;
	}
	*wake = (struct pcapng_wake) { .fd = offline_sig.fd, .fn = offline_sig_woken };
	return 0;
}

void nf_offline_signals_ready(void)
{
	offline_sig.ready = 1;
}

unsigned int nf_offline_signal(void)
{
	unsigned int what;

	if (offline_sig.fd < 0)
		return 0;
	offline_sig_drain();
	what = (offline_sig.stop ? NF_OFFLINE_STOP : 0) |
	       (offline_sig.reload ? NF_OFFLINE_RELOAD : 0) |
	       (offline_sig.report ? NF_OFFLINE_REPORT : 0);
	offline_sig.reload = offline_sig.report = 0;
	return what;
}
