/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * systemd's readiness protocol (sd_notify(3)) without libsystemd: a line
 * such as "READY=1" to the datagram socket $NOTIFY_SOCKET names. Nothing
 * happens when the variable is unset (not started by a Type=notify unit).
 */
#ifndef NF_SDNOTIFY_H
#define NF_SDNOTIFY_H

/* Send state (e.g. "READY=1\nSTATUS=..."): 1 sent, 0 no socket, or a negative errno. */
int sd_notify_state(const char *state);

#endif
