/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Usage errors, said where the command came from: the command line, or
 * a line of a file (batch mode), its word pointed at as conf.h does.
 */
#ifndef TOOLS_USAGE_H
#define TOOLS_USAGE_H

#include "conf.h"

/* The exit status of a usage error, as iproute2's. */
#define USAGE_EXIT	1

/* Where the command being run came from; set by the program's main loop. */
struct usage_at {
	const char *prog;		/* "netslicectl" */
	const char *where;		/* "FILE:LINE: " in batch mode, else "" */
	const struct conf *conf;	/* the file a line is from, or NULL */
	unsigned int word;		/* the word of conf's line an error is about */
};

extern struct usage_at usage_at;

/* A usage error from here on is about this word (if it is one of usage_at.conf's). */
void usage_mark(char *const *word);

/* Print "PROG: what (see PROG --help)", escaped (msg.h); return USAGE_EXIT. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* TOOLS_USAGE_H */
