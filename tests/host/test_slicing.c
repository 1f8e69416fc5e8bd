// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for libnetslice's slicing-mode parser. */
#include <errno.h>
#include <string.h>

#include "netslice.h"
#include "ktap.h"

struct slicing_case {
	const char *in;
	int ok;
	__u32 mode, length, extra, flags;
};

static const struct slicing_case cases[] = {
	{ "off", 1, NETSLICE_SLICE_OFF, 0, 0, 0 },
	{ "auto", 1, NETSLICE_SLICE_AUTO, 0, 0, 0 },
	{ "auto+16", 1, NETSLICE_SLICE_AUTO, 0, 16, 0 },
	{ "auto+256", 1, NETSLICE_SLICE_AUTO, 0, 256, 0 },
	{ "fixed:128", 1, NETSLICE_SLICE_FIXED, 128, 0, 0 },
	{ "fixed:1", 1, NETSLICE_SLICE_FIXED, 1, 0, 0 },
	{ "fixed:512", 1, NETSLICE_SLICE_FIXED, 512, 0, 0 },
	{ "auto,trim", 1, NETSLICE_SLICE_AUTO, 0, 0, NETSLICE_SLICE_TRIM },
	{ "off,trim", 1, NETSLICE_SLICE_OFF, 0, 0, NETSLICE_SLICE_TRIM },
	{ "fixed:64,trim", 1, NETSLICE_SLICE_FIXED, 64, 0, NETSLICE_SLICE_TRIM },
	{ "auto,gso", 1, NETSLICE_SLICE_AUTO, 0, 0, NETSLICE_SLICE_GSO },
	{ "auto+8,gso,trim", 1, NETSLICE_SLICE_AUTO, 0, 8, NETSLICE_SLICE_GSO | NETSLICE_SLICE_TRIM },
	{ "fixed:64,trim,gso", 1, NETSLICE_SLICE_FIXED, 64, 0, NETSLICE_SLICE_GSO | NETSLICE_SLICE_TRIM },
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

int main(void)
{
	const unsigned int n = sizeof(cases) / sizeof(cases[0]);
	struct netslice_slicing s;
	unsigned int i;
	int rc;

	ktap_header("libnetslice-slicing", (int)n);
	for (i = 0; i < n; i++) {
		const struct slicing_case *c = &cases[i];

		memset(&s, 0xa5, sizeof(s));
		errno = 0;
		rc = ns_slicing_parse(c->in, &s);
		if (c->ok)
			ktap_check(rc == 0 && s.mode == c->mode && s.length == c->length &&
				   s.extra == c->extra && s.flags == c->flags && !s.reserved[0] &&
				   !s.reserved[1], "\"%s\" parses", c->in);
		else
			ktap_check(rc == -EINVAL && errno == EINVAL, "\"%s\" is rejected with EINVAL", c->in);
	}
	return ktap_finish();
}
