// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for libnetslice's CPU list helpers and argument checks. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "netslice.h"
#include "ktap.h"

struct list_case {
	const char *in;
	const char *canonical;	/* NULL: must be rejected */
};

static const struct list_case cases[] = {
	{ "0", "0" },
	{ "0-3", "0-3" },
	{ "3,1,2", "1-3" },
	{ "0-1,4,6-7", "0-1,4,6-7" },
	{ "5-5", "5" },
	{ "1023", "1023" },
	{ "0,0,0", "0" },
	{ "", NULL },
	{ "-1", NULL },
	{ "3-1", NULL },
	{ "1,", NULL },
	{ ",1", NULL },
	{ "1-", NULL },
	{ "a", NULL },
	{ "1 2", NULL },
	{ "1024", NULL },
	{ "99999999999999999999", NULL },
};

/*
 * ns_run() reads its config by size: too small for 0.6 is EINVAL, a field
 * past what this library knows is E2BIG if set and ignored if zero. No
 * slice to run (ENODEV) means the config was taken.
 */
static void run_config_size(void)
{
	static const unsigned int none[1];
	struct {
		struct ns_run_config cfg;
		uint64_t later;		/* a field of a later library */
	} big = { .cfg = { .size = sizeof(big), .slices = none, .nr_slices = 0 } };
	struct ns_run_config cfg = { .slices = none, .nr_slices = 0 };

	ktap_check(ns_run(&cfg) == -EINVAL && errno == EINVAL, "ns_run: size 0 is EINVAL");
	cfg.size = offsetof(struct ns_run_config, mode);
	ktap_check(ns_run(&cfg) == -EINVAL, "ns_run: a size short of 0.6's config is EINVAL");
	cfg.size = sizeof(cfg);
	ktap_check(ns_run(&cfg) == -ENODEV, "ns_run: sizeof(struct ns_run_config) is taken");
	big.later = 1;
	ktap_check(ns_run(&big.cfg) == -E2BIG && errno == E2BIG,
		   "ns_run: a later field set is E2BIG");
	big.later = 0;
	ktap_check(ns_run(&big.cfg) == -ENODEV, "ns_run: a later field left zero is ignored");
	/* 0.6's config ended with padding after mode, which may hold anything. */
	cfg.size = offsetof(struct ns_run_config, busy_poll_us);
	cfg.pad_0_6 = 0xdeadbeef;
	ktap_check(cfg.size == offsetof(struct ns_run_config, mode) + 8 && ns_run(&cfg) == -ENODEV,
		   "ns_run: 0.6's config with junk in its tail padding is taken");
	cfg.size = sizeof(cfg);
	cfg.reserved = 1;
	ktap_check(ns_run(&cfg) == -EINVAL, "ns_run: reserved set is EINVAL");
	cfg.reserved = 0;
	cfg.busy_prefer = 1;
	ktap_check(ns_run(&cfg) == -EINVAL, "ns_run: busy_prefer without busy_poll_us is EINVAL");
	cfg.busy_poll_us = 5;
	cfg.mode = NS_RUN_RW;
	ktap_check(ns_run(&cfg) == -EINVAL, "ns_run: busy polling in read/write mode is EINVAL");
}

int main(void)
{
	char buf[64], tiny[4];
	cpu_set_t set;
	unsigned int i;
	int rc;

	ktap_header("libnetslice-host", (int)(sizeof(cases) / sizeof(cases[0])) + 14);

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct list_case *c = &cases[i];

		rc = ns_cpulist_parse(c->in, &set);
		if (!c->canonical) {
			ktap_check(rc == -EINVAL && errno == EINVAL && CPU_COUNT(&set) == 0,
				   "parse rejects \"%s\"", c->in);
			continue;
		}
		ktap_check(rc == 0 && ns_cpulist_format(&set, buf, sizeof(buf)) >= 0 &&
			   !strcmp(buf, c->canonical),
			   "parse \"%s\" formats as \"%s\" (got \"%s\")", c->in,
			   c->canonical, rc == 0 ? buf : "error");
	}

	CPU_ZERO(&set);
	ktap_check(ns_cpulist_format(&set, buf, sizeof(buf)) == 0 && buf[0] == '\0',
		   "empty set formats as empty string");

	ns_cpulist_parse("0-2,10-12", &set);
	rc = ns_cpulist_format(&set, tiny, sizeof(tiny));
	ktap_check(rc == -ENOSPC && errno == ENOSPC && strlen(tiny) < sizeof(tiny),
		   "too small buffer gives ENOSPC and stays terminated (\"%s\")", tiny);
	ktap_check(ns_cpulist_format(&set, buf, 0) == -ENOSPC,
		   "zero-size buffer gives ENOSPC");

	ktap_check(ns_open(NETSLICE_MAX_SLICES, 0) == -EINVAL,
		   "ns_open rejects slice %d with EINVAL", NETSLICE_MAX_SLICES);
	ktap_check(ns_cpumask_get(-1, &set, &set) == -EBADF,
		   "ns_cpumask_get on a bad fd gives EBADF");

	run_config_size();
	return ktap_finish();
}
