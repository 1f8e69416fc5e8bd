// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for libnetslice's cut-mode parser, and for the cut's
 * parser the module and offline mode share (kmod/cut_parser.c): over flat
 * buffers, on the frames KUnit runs over skbs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netslice.h"
#include "ktap.h"
#include "../../kmod/cut_parser.h"
#include "../../kmod/tests/cut_vectors.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The cut of f read as exactly len bytes of a buffer that size, so
 * AddressSanitizer fails a read past the frame.
 */
static __u32 cut_of(const struct nsl_frame *f, __u32 len)
{
	struct netslice_cut_hdrs h;
	__u8 *copy = malloc(len ? len : 1);
	__u32 cut;

	memcpy(copy, f->b, len);
	cut = netslice_cut_auto(copy, len, &h);
	free(copy);
	return cut;
}

/* Each frame's cut, and every prefix of it cut inside the prefix or not at all. */
static void check_cut_cases(void)
{
	const struct nsl_cut_case *c;
	struct nsl_frame f;
	__u32 len, cut, bad;

	for (c = nsl_cut_cases; c < nsl_cut_cases + ARRAY_LEN(nsl_cut_cases); c++) {
		nsl_frame_init(&f);
		c->build(&f);
		cut = cut_of(&f, f.len);
		for (bad = 0, len = 0; len < f.len && !bad; len++)
			if (cut_of(&f, len) > len)
				bad = len;
		ktap_check(cut == c->want && !bad, "cut: %s: %u (want %u)%s", c->name, cut,
			   c->want, bad ? ", a prefix cut past its end" : "");
	}
}

/* The bytes each mode hands over, as netslice_cut_len() says for offline mode. */
static void check_cut_len_cases(void)
{
	const struct nsl_cut_len_case *c;
	struct nsl_frame f;
	__u32 len;

	nsl_frame_init(&f);
	b_ipv4_tcp(&f);
	for (c = nsl_cut_len_cases; c < nsl_cut_len_cases + ARRAY_LEN(nsl_cut_len_cases); c++) {
		len = netslice_cut_len(f.b, f.len, c->mode, c->value);
		ktap_check(len == c->want, "cut length: mode %u value %u: %u (want %u)",
			   c->mode, c->value, len, c->want);
	}
}

struct cut_case {
	const char *in;
	int ok;
	__u32 mode, length, extra, flags;
	const char *canon;	/* as ns_cut_format() writes it, if not in */
};

static const struct cut_case cases[] = {
	{ "off", 1, NETSLICE_CUT_OFF, 0, 0, 0, NULL },
	{ "auto", 1, NETSLICE_CUT_AUTO, 0, 0, 0, NULL },
	{ "auto+16", 1, NETSLICE_CUT_AUTO, 0, 16, 0, NULL },
	{ "auto+256", 1, NETSLICE_CUT_AUTO, 0, 256, 0, NULL },
	{ "fixed:128", 1, NETSLICE_CUT_FIXED, 128, 0, 0, NULL },
	{ "fixed:1", 1, NETSLICE_CUT_FIXED, 1, 0, 0, NULL },
	{ "fixed:512", 1, NETSLICE_CUT_FIXED, 512, 0, 0, NULL },
	{ "auto,trim", 1, NETSLICE_CUT_AUTO, 0, 0, NETSLICE_CUT_TRIM, NULL },
	{ "off,trim", 1, NETSLICE_CUT_OFF, 0, 0, NETSLICE_CUT_TRIM, NULL },
	{ "fixed:64,trim", 1, NETSLICE_CUT_FIXED, 64, 0, NETSLICE_CUT_TRIM, NULL },
	{ "auto,gso", 1, NETSLICE_CUT_AUTO, 0, 0, NETSLICE_CUT_GSO, NULL },
	{ "auto+8,gso,trim", 1, NETSLICE_CUT_AUTO, 0, 8, NETSLICE_CUT_GSO | NETSLICE_CUT_TRIM,
	  "auto+8,trim,gso" },
	{ "fixed:64,trim,gso", 1, NETSLICE_CUT_FIXED, 64, 0, NETSLICE_CUT_GSO | NETSLICE_CUT_TRIM,
	  NULL },
	{ .in = "" },
	{ .in = "auto+" },
	{ .in = "auto+257" },
	{ .in = "auto+-1" },
	{ .in = "fixed:0" },
	{ .in = "fixed:513" },
	{ .in = "fixed:" },
	{ .in = "fixed:12x" },
	{ .in = "fixed:99999999999999999999" },
	{ .in = "autox" },
	{ .in = "offf" },
	{ .in = "auto,trim,trim" },
	{ .in = "auto,tri" },
	{ .in = "off,gso" },
	{ .in = "auto,gso,gso" },
	{ .in = ",gso" },
	{ .in = "AUTO" },
};

/* The mode spelled back as it is parsed, and parsed again to the same. */
static void check_format(const struct netslice_cut *s, const char *want)
{
	char buf[NS_CUT_STRLEN];
	struct netslice_cut again;

	ktap_check(ns_cut_format(s, buf, sizeof(buf)) == 0 && !strcmp(buf, want) &&
		   !ns_cut_parse(buf, &again) && !memcmp(&again, s, sizeof(again)),
		   "\"%s\" formats back as itself", want);
}

static void check_format_errors(void)
{
	struct netslice_cut s = { .mode = NETSLICE_CUT_FIXED, .length = 4294967295u,
				      .flags = NETSLICE_CUT_TRIM | NETSLICE_CUT_GSO };
	char buf[NS_CUT_STRLEN];

	ktap_check(ns_cut_format(&s, buf, sizeof(buf)) == 0 &&
		   !strcmp(buf, "fixed:4294967295,trim,gso"), "the longest fits NS_CUT_STRLEN");
	memset(buf, 'x', sizeof(buf));
	ktap_check(ns_cut_format(&s, buf, 25) == -ENOSPC && errno == ENOSPC && buf[0] == 'x',
		   "one byte short: ENOSPC, nothing written");
	ktap_check(ns_cut_format(&s, buf, 26) == 0 && strlen(buf) == 25, "exactly enough: written");
	s.mode = 3;
	ktap_check(ns_cut_format(&s, buf, sizeof(buf)) == -EINVAL && errno == EINVAL,
		   "mode 3: EINVAL");
}

int main(void)
{
	const unsigned int n = sizeof(cases) / sizeof(cases[0]);
	struct netslice_cut s;
	unsigned int i, ok = 0;
	int rc;

	for (i = 0; i < n; i++)
		ok += cases[i].ok;
	ktap_header("libnetslice-cut",
		    (int)(n + ok + 4 + ARRAY_LEN(nsl_cut_cases) + ARRAY_LEN(nsl_cut_len_cases)));
	for (i = 0; i < n; i++) {
		const struct cut_case *c = &cases[i];

		memset(&s, 0xa5, sizeof(s));
		errno = 0;
		rc = ns_cut_parse(c->in, &s);
		if (c->ok)
			ktap_check(rc == 0 && s.mode == c->mode && s.length == c->length &&
				   s.extra == c->extra && s.flags == c->flags && !s.reserved[0] &&
				   !s.reserved[1], "\"%s\" parses", c->in);
		else
			ktap_check(rc == -EINVAL && errno == EINVAL, "\"%s\" is rejected with EINVAL", c->in);
		if (c->ok)
			check_format(&s, c->canon ? c->canon : c->in);
	}
	check_format_errors();
	check_cut_cases();
	check_cut_len_cases();
	return ktap_finish();
}
