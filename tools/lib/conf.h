/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Configuration files as users write them, read the same way by every NF
 * and netslicectl: lines of any length (getline), words split at blanks,
 * "#" starting a comment anywhere, errors as "PROG: FILE:LINE:COL: what"
 * on one line with control bytes escaped; and numbers parsed strictly.
 */
#ifndef TOOLS_CONF_H
#define TOOLS_CONF_H

#include <stdbool.h>
#include <stdio.h>

#define CONF_MAX_WORDS 128

struct conf {
	const char *path;
	FILE *f;
	char *line;			/* getline()'s buffer */
	size_t cap;
	unsigned int lineno;
	unsigned int n;			/* words on this line */
	char *word[CONF_MAX_WORDS];
	unsigned int col[CONF_MAX_WORDS];	/* each word's column, from 1 */
};

/* Open path ("-": standard input). 0, or -1 with errno set. */
int conf_open(struct conf *c, const char *path);
/*
 * The next line with words (1), the end (0), or -1 after printing why: a
 * read error (never taken for the end), a control byte, too many words.
 */
int conf_next(struct conf *c);
void conf_close(struct conf *c);

/*
 * "PROG: FILE:LINE:COL: what" for word i of the current line (i = c->n:
 * its end), to stderr, one line, control characters as \xNN (msg.h).
 * Returns -1.
 */
int conf_error(const struct conf *c, unsigned int i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "FILE:LINE:COL" of word i into buf. */
void conf_where(const struct conf *c, unsigned int i, char *buf, size_t len);

/*
 * Strict numbers: decimal digits only, or 0x and hex digits when hex is
 * true; no sign, blank, trailing text or empty string (all of which
 * strtoul() takes); within [min, max]. 0, or -1.
 */
int conf_uint(const char *s, unsigned long min, unsigned long max, bool hex,
	      unsigned long *out);
/* "N" or "N-M" (decimal, N <= M), both within [min, max]. 0, or -1. */
int conf_range(const char *s, unsigned long min, unsigned long max, unsigned long *lo,
	       unsigned long *hi);

#endif /* TOOLS_CONF_H */
