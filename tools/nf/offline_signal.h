/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Offline mode's signals: SIGINT, SIGTERM, SIGHUP and SIGUSR1 caught,
 * each a byte on a pipe that the reader waits on with its input (wake).
 * A second SIGINT or SIGTERM takes the default action. Until
 * nf_offline_signals_ready() (the NF set up) SIGHUP and SIGUSR1 wait.
 */
#ifndef NF_OFFLINE_SIGNAL_H
#define NF_OFFLINE_SIGNAL_H

struct pcapng_wake;

/* Catch them, waking the reader through wake: 0, or -1 after printing why. */
int nf_offline_signals(struct pcapng_wake *wake);
void nf_offline_signals_ready(void);
/* A SIGINT or SIGTERM came. */
int nf_offline_stopped(void);

/*
 * What came since the last look: NF_OFFLINE_STOP (SIGINT, SIGTERM; for
 * good), NF_OFFLINE_RELOAD (SIGHUP), NF_OFFLINE_REPORT (SIGUSR1), or 0.
 */
#define NF_OFFLINE_STOP		1U
#define NF_OFFLINE_RELOAD	2U
#define NF_OFFLINE_REPORT	4U
unsigned int nf_offline_signal(void);

#endif /* NF_OFFLINE_SIGNAL_H */
