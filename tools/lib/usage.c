// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* Usage errors, said where the command came from. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "msg.h"
#include "usage.h"

struct usage_at usage_at = { .prog = "", .where = "" };

void usage_mark(char *const *word)
{
	const struct conf *c = usage_at.conf;

	if (c && word >= c->word && word < c->word + c->n)
		usage_at.word = (unsigned int)(word - c->word);
}

int usage_error(const char *fmt, ...)
{
	char where[512], *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	/* The user's words are in it: shown escaped (msg.h). */
	if (usage_at.conf) {
		conf_where(usage_at.conf, usage_at.word, where, sizeof(where));
		msg_line("%s: %s: %s (see %s --help)", usage_at.prog, where,
			 text ? text : "out of memory", usage_at.prog);
	} else {
		msg_line("%s%s: %s (see %s --help)", usage_at.where, usage_at.prog,
			 text ? text : "out of memory", usage_at.prog);
	}
	free(text);
	return USAGE_EXIT;
}
