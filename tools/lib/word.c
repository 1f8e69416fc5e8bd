// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* A command's words: keywords, numbers in a range, on or off. */
#include <string.h>

#include "conf.h"
#include "usage.h"
#include "word.h"

bool word_is(const char *arg, const char *word)
{
	return arg && !strcmp(arg, word);
}

int word_range(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long v;

	if (!s || conf_uint(s, min, max, true, &v)) {
		usage_error("%s: \"%s\" is not a number from %u to %u", what, s ? s : "", min, max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int word_u32(const char *what, const char *s, uint32_t max, uint32_t *out)
{
	return word_range(what, s, 0, max, out);
}

int word_u32_none(const char *what, const char *s, uint32_t max, uint32_t *out, bool *none)
{
	unsigned long v;

	*none = word_is(s, "none");
	if (*none)
		return 0;
	if (!s || conf_uint(s, 0, max, true, &v)) {
		usage_error("%s: \"%s\" is not a number from 0 to %u, nor none", what, s ? s : "",
			    max);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int word_on_off(const char *what, const char *s, bool *out)
{
	if (word_is(s, "on") || word_is(s, "off")) {
		*out = word_is(s, "on");
		return 0;
	}
	usage_error("%s: say on or off, not \"%s\"", what, s ? s : "");
	return -1;
}
