// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Cuts written as text, for command lines. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "netslice.h"

/* A decimal number in [min, max] that ends at *end. */
static int ns_parse_uint(const char *s, const char *end, unsigned int min, unsigned int max,
			 __u32 *out)
{
	unsigned long v;
	char *stop;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &stop, 10);
	if (errno || stop != end || v < min || v > max)
		return -1;
	*out = (__u32)v;
	return 0;
}

/* Flag suffixes of a mode: ",trim", ",gso", in any order, once each. */
static const struct {
	const char *name;
	__u32 flag;
} ns_cut_suffixes[] = {
	{ ",trim", NETSLICE_CUT_TRIM },
	{ ",gso", NETSLICE_CUT_GSO },
};

int ns_cut_parse(const char *spec, struct netslice_cut *cut)
{
	const char *end = spec + strlen(spec);
	bool found = true;
	int err = 0;
	size_t i;

	memset(cut, 0, sizeof(*cut));
	while (found) {
		found = false;
		for (i = 0; i < sizeof(ns_cut_suffixes) / sizeof(ns_cut_suffixes[0]); i++) {
			size_t len = strlen(ns_cut_suffixes[i].name);

			if ((size_t)(end - spec) > len && !(cut->flags & ns_cut_suffixes[i].flag) &&
			    !strncmp(end - len, ns_cut_suffixes[i].name, len)) {
				cut->flags |= ns_cut_suffixes[i].flag;
				end -= len;
				found = true;
			}
		}
	}
	if ((size_t)(end - spec) == 3 && !strncmp(spec, "off", 3)) {
		cut->mode = NETSLICE_CUT_OFF;
	} else if ((size_t)(end - spec) == 4 && !strncmp(spec, "auto", 4)) {
		cut->mode = NETSLICE_CUT_AUTO;
	} else if (!strncmp(spec, "auto+", 5)) {
		cut->mode = NETSLICE_CUT_AUTO;
		err = ns_parse_uint(spec + 5, end, 0, NETSLICE_MAX_EXTRA, &cut->extra);
	} else if (!strncmp(spec, "fixed:", 6)) {
		cut->mode = NETSLICE_CUT_FIXED;
		err = ns_parse_uint(spec + 6, end, 1, NETSLICE_MAX_HEADER, &cut->length);
	} else {
		err = -1;
	}
	/* A super-packet kept whole needs a slice to park its payload in. */
	if (cut->mode == NETSLICE_CUT_OFF && cut->flags & NETSLICE_CUT_GSO)
		err = -1;
	return err ? ns_fail(EINVAL) : 0;
}

int ns_cut_format(const struct netslice_cut *cut, char *buf, size_t size)
{
	char out[NS_CUT_STRLEN];
	int len;

	if (cut->mode == NETSLICE_CUT_OFF)
		len = snprintf(out, sizeof(out), "off");
	else if (cut->mode == NETSLICE_CUT_FIXED)
		len = snprintf(out, sizeof(out), "fixed:%u", cut->length);
	else if (cut->mode == NETSLICE_CUT_AUTO && cut->extra)
		len = snprintf(out, sizeof(out), "auto+%u", cut->extra);
	else if (cut->mode == NETSLICE_CUT_AUTO)
		len = snprintf(out, sizeof(out), "auto");
	else
		return ns_fail(EINVAL);
	/* The flags in one order, whatever order they were parsed in. */
	snprintf(out + len, sizeof(out) - (size_t)len, "%s%s",
		 cut->flags & NETSLICE_CUT_TRIM ? ",trim" : "",
		 cut->flags & NETSLICE_CUT_GSO ? ",gso" : "");
	if (strlen(out) >= size)
		return ns_fail(ENOSPC);
	memcpy(buf, out, strlen(out) + 1);
	return 0;
}
