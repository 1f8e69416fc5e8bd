/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal KTAP output for the C test programs, host and guest alike. */
#ifndef NETSLICE_TEST_KTAP_H
#define NETSLICE_TEST_KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int ktap_passed, ktap_failed, ktap_count;

static inline void ktap_header(const char *suite, int planned)
{
	printf("KTAP version 1\n# suite: %s\n1..%d\n", suite, planned);
}

static inline int __attribute__((format(printf, 2, 3)))
ktap_check(int ok, const char *fmt, ...)
{
	va_list ap;

	ktap_count++;
	printf("%s %d ", ok ? "ok" : "not ok", ktap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok)
		ktap_passed++;
	else
		ktap_failed++;
	fflush(stdout);
	return ok;
}

/* Prints the summary line and returns the process exit status. */
static inline int ktap_finish(void)
{
	printf("# %d passed, %d failed\n", ktap_passed, ktap_failed);
	return ktap_failed ? 1 : 0;
}

#endif /* NETSLICE_TEST_KTAP_H */
