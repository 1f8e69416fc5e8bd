// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* Messages to the user on stderr, control characters made visible: see msg.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"

size_t msg_utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;	/* the second byte's range */
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;	/* no overlong form */
		hi = s[0] == 0xed ? 0x9f : 0xbf;	/* no surrogate */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;	/* up to U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	/* Stops at the terminating NUL, which is no continuation byte. */
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* How many bytes at s to show as they are (0: escape the first). */
static size_t msg_plain_len(const unsigned char *s)
{
	size_t n;

	if (s[0] < 0x20 || s[0] == 0x7f)
		return 0;
	if (s[0] < 0x80)
		return 1;
	n = msg_utf8_len(s);
	if (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
		return 0;	/* U+0080 to U+009F: C1, in UTF-8 */
	if (n)
		return n;
	/* Not UTF-8: a lone 0x80 to 0x9f is C1 to an 8-bit terminal. */
	return s[0] <= 0x9f ? 0 : 1;
}

size_t msg_escape(char *out, size_t room, const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, n;

	if (!room)
		return 0;
	while (*s) {
		n = msg_plain_len(s);
		if (!n) {
			if (o + 4 >= room)
				break;
			snprintf(out + o, room - o, "\\x%02x", *s++);
			o += 4;
			continue;
		}
		if (o + n >= room)
			break;
		memcpy(out + o, s, n);
		o += n;
		s += n;
	}
	out[o] = '\0';
	return o;
}

/* prefix (or NULL) and the formatted text, escaped, as one line in one write. */
static void msg_vwrite(const char *prefix, const char *fmt, va_list ap)
{
	char *text = NULL, *line, fallback[1024];
	size_t room, n = 0;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	/* Every byte \xNN at worst, then ": ", the newline and the NUL. */
	room = 4 * ((prefix ? strlen(prefix) : 0) + (text ? strlen(text) : 0)) + 4;
	line = malloc(room);
	if (!line) {
		line = fallback;
		room = sizeof(fallback);
	}
	if (prefix) {
		n = msg_escape(line, room - 3, prefix);
		line[n++] = ':';
		line[n++] = ' ';
	}
	n += msg_escape(line + n, room - n - 1, text ? text : "(out of memory for this message)");
	line[n++] = '\n';
	/* One write: the line whole, whichever thread says it. */
	flockfile(stderr);
	fwrite(line, 1, n, stderr);
	funlockfile(stderr);
	if (line != fallback)
		free(line);
	free(text);
}

void msg_verr(const char *prog, const char *fmt, va_list ap)
{
	msg_vwrite(prog, fmt, ap);
}

void msg_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_vwrite(NULL, fmt, ap);
	va_end(ap);
}

void msg_err(const char *prog, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_verr(prog, fmt, ap);
	va_end(ap);
}
