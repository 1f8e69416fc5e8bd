/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * The NFs' messages: one line on stderr, prefixed with the NF's name. The
 * bottom of tools/nf: it calls nothing else here, so every part can say
 * what went wrong.
 */
#ifndef NF_LOG_H
#define NF_LOG_H

/* The prefix of every message from now on ("nf" until set). */
void nf_log_name(const char *name);

/*
 * A message to stderr prefixed with the NF's name, one line, control
 * characters in it shown as \xNN (msg.h): pass user text as it is.
 */
void nf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* NF_LOG_H */
