/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Messages to the user on stderr, "PROG: what", one line each and whole
 * whichever thread says it. What the user typed or a file held can be in
 * them, so every control character is shown as \xNN: C0 (ESC and newline
 * among them), DEL, and C1 (0x80 to 0x9f alone, or U+0080 to U+009F in
 * UTF-8). No message can move the cursor, recolour the terminal or forge
 * a line of its own; other UTF-8 text is kept as it is.
 */
#ifndef TOOLS_MSG_H
#define TOOLS_MSG_H

#include <stdarg.h>
#include <stddef.h>

/*
 * in with its control characters as \xNN, into out (room bytes, always
 * terminated; 4 * strlen(in) + 1 holds all of it). Returns its length.
 */
size_t msg_escape(char *out, size_t room, const char *in);

/*
 * Bytes of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * form, surrogate or code point past U+10FFFF; 1 for ASCII), or 0.
 */
size_t msg_utf8_len(const unsigned char *s);

/* A line to stderr, escaped as above, the newline added. */
void msg_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "PROG: what" to stderr, escaped as above. */
void msg_err(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void msg_verr(const char *prog, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* TOOLS_MSG_H */
