// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* Configuration files as users write them: see conf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "msg.h"

int conf_open(struct conf *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	return c->f ? 0 : -1;
}

void conf_close(struct conf *c)
{
	if (c->f && c->f != stdin)
		fclose(c->f);
	free(c->line);
	c->f = NULL;
	c->line = NULL;
}

void conf_where(const struct conf *c, unsigned int i, char *buf, size_t len)
{
	unsigned int col = i < c->n ? c->col[i] : 1;

	/* At the end of the line: just past its last word. */
	if (i >= c->n && c->n)
		col = c->col[c->n - 1] + (unsigned int)strlen(c->word[c->n - 1]);
	snprintf(buf, len, "%s:%u:%u", c->path, c->lineno, col);
}

int conf_error(const struct conf *c, unsigned int i, const char *fmt, ...)
{
	char where[512], what[1024];
	va_list ap;

	conf_where(c, i, where, sizeof(where));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	msg_err(program_invocation_short_name, "%s: %s", where, what);
	return -1;
}

int conf_next(struct conf *c)
{
	ssize_t len;
	char *p, *end;

	for (;;) {
		errno = 0;
		len = getline(&c->line, &c->cap, c->f);
		if (len < 0) {
			/* getline() says -1 for an error (EISDIR, EIO) as for the end. */
			if (ferror(c->f) || errno) {
				msg_err(program_invocation_short_name,
					"%s: cannot read after line %u: %s", c->path, c->lineno,
					strerror(errno ? errno : EIO));
				return -1;
			}
			return 0;
		}
		c->lineno++;
		c->n = 0;
		end = c->line + len;
		for (p = c->line; p < end; p++) {
			if (*p == '#')
				break;
			if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
				*p = '\0';
				continue;
			}
			if ((unsigned char)*p < 0x20 || *p == 0x7f) {
				c->col[0] = (unsigned int)(p - c->line) + 1;
				c->n = 1;
				c->word[0] = "";
				return conf_error(c, 0, "control byte 0x%02x", (unsigned char)*p);
			}
			if (p == c->line || !p[-1]) {
				if (c->n == CONF_MAX_WORDS)
					return conf_error(c, c->n - 1, "more than %d words",
							  CONF_MAX_WORDS);
				c->word[c->n] = p;
				c->col[c->n++] = (unsigned int)(p - c->line) + 1;
			}
		}
		*p = '\0';
		if (c->n)
			return 1;
	}
}

int conf_uint(const char *s, unsigned long min, unsigned long max, bool hex,
	      unsigned long *out)
{
	unsigned long v = 0, base = 10, d, limit;
	const char *p = s;

	if (hex && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!*p)
		return -1;
	limit = max / base;	/* v at most this: v * base does not wrap */
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			d = (unsigned long)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned long)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned long)(*p - 'A' + 10);
		else
			return -1;
		if (d > max || v > limit || v * base > max - d)
			return -1;	/* beyond max, and never wraps */
		v = v * base + d;
	}
	if (v < min)
		return -1;
	*out = v;
	return 0;
}

int conf_range(const char *s, unsigned long min, unsigned long max, unsigned long *lo,
	       unsigned long *hi)
{
	const char *dash = strchr(s, '-');
	char first[32];

	if (!dash)
		return conf_uint(s, min, max, false, lo) ? -1 : (*hi = *lo, 0);
	if ((size_t)(dash - s) >= sizeof(first))
		return -1;
	memcpy(first, s, (size_t)(dash - s));
	first[dash - s] = '\0';
	if (conf_uint(first, min, max, false, lo) || conf_uint(dash + 1, min, max, false, hi))
		return -1;
	return *lo <= *hi ? 0 : -1;
}
