/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal KTAP output for the C test programs, host and guest alike. */
#ifndef NETSLICE_TEST_KTAP_H
#define NETSLICE_TEST_KTAP_H

#include <stdarg.h>
#include <stdio.h>

static int ktap_passed, ktap_failed, ktap_skipped, ktap_count, ktap_planned = -1;

static inline void ktap_header(const char *suite, int planned)
{
	ktap_planned = planned;
	printf("KTAP version 1\n# suite: %s\n1..%d\n", suite, planned);
}

/* A case that cannot run here: "ok N NAME # SKIP WHY", neither pass nor fail. */
static inline void ktap_skip(const char *name, const char *why)
{
	ktap_count++;
	ktap_skipped++;
	printf("ok %d %s # SKIP %s\n", ktap_count, name, why);
	fflush(stdout);
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

/*
 * Prints the summary line and returns the process exit status; results
 * that do not match the plan fail.
 */
static inline int ktap_finish(void)
{
	if (ktap_planned >= 0 && ktap_count != ktap_planned) {
		printf("# planned %d results, printed %d\n", ktap_planned, ktap_count);
		ktap_failed++;
	}
	printf("# %d passed, %d failed, %d skipped\n", ktap_passed, ktap_failed, ktap_skipped);
	return ktap_failed ? 1 : 0;
}

#endif /* NETSLICE_TEST_KTAP_H */
