// SPDX-License-Identifier: GPL-2.0
/* A small streaming JSON writer. */
#include <inttypes.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = 0;
}

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, surrogates or code points past U+10FFFF), or 0.
 */
static int json_utf8_len(const unsigned char *s)
{
	unsigned int c = s[0], lo = 0x80, hi = 0xbf;
	int n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* The second byte's range rules out the overlong and the out of range. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return n;
}

/*
 * A JSON string of s: quotes, backslashes and control characters escaped;
 * a byte that is not part of well-formed UTF-8 (a file name, an interface
 * name, a string cut short) becomes U+FFFD, as Go's encoder does, so the
 * output is always valid JSON.
 */
static void json_quote(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (*u) {
		n = json_utf8_len(u);
		if (!n) {
			fputs("\\ufffd", f);
			u++;
		} else if (*u == '"' || *u == '\\') {
			fprintf(f, "\\%c", *u++);
		} else if (*u < 0x20) {
			fprintf(f, "\\u%04x", *u++);
		} else {
			fwrite(u, 1, (size_t)n, f);
			u += n;
		}
	}
	fputc('"', f);
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = 1;
	if (key) {
		json_quote(j->f, key);
		fputc(':', j->f);
	}
}

void json_open(struct json *j, const char *key, char bracket)
{
	json_key(j, key);
	fputc(bracket, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = 0;
}

void json_close(struct json *j, char bracket)
{
	fputc(bracket, j->f);
	if (j->depth)
		j->depth--;
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	fprintf(j->f, "%.3f", v);
}

void json_str(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_quote(j->f, s);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
	j->need_comma[0] = 0;
}
