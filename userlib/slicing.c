// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Slicing modes written as text, for command lines. */
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
} ns_slicing_suffixes[] = {
	{ ",trim", NETSLICE_SLICE_TRIM },
	{ ",gso", NETSLICE_SLICE_GSO },
};

int ns_slicing_parse(const char *spec, struct netslice_slicing *slicing)
{
	const char *end = spec + strlen(spec);
	bool found = true;
	int err = 0;
	size_t i;

	memset(slicing, 0, sizeof(*slicing));
	while (found) {
		found = false;
		for (i = 0; i < sizeof(ns_slicing_suffixes) / sizeof(ns_slicing_suffixes[0]); i++) {
			size_t len = strlen(ns_slicing_suffixes[i].name);

			if ((size_t)(end - spec) > len && !(slicing->flags & ns_slicing_suffixes[i].flag) &&
			    !strncmp(end - len, ns_slicing_suffixes[i].name, len)) {
				slicing->flags |= ns_slicing_suffixes[i].flag;
				end -= len;
				found = true;
			}
		}
	}
	if ((size_t)(end - spec) == 3 && !strncmp(spec, "off", 3)) {
		slicing->mode = NETSLICE_SLICE_OFF;
	} else if ((size_t)(end - spec) == 4 && !strncmp(spec, "auto", 4)) {
		slicing->mode = NETSLICE_SLICE_AUTO;
	} else if (!strncmp(spec, "auto+", 5)) {
		slicing->mode = NETSLICE_SLICE_AUTO;
		err = ns_parse_uint(spec + 5, end, 0, NETSLICE_MAX_EXTRA, &slicing->extra);
	} else if (!strncmp(spec, "fixed:", 6)) {
		slicing->mode = NETSLICE_SLICE_FIXED;
		err = ns_parse_uint(spec + 6, end, 1, NETSLICE_MAX_HEADER, &slicing->length);
	} else {
		err = -1;
	}
	/* A super-packet kept whole needs a slice to park its payload in. */
	if (slicing->mode == NETSLICE_SLICE_OFF && slicing->flags & NETSLICE_SLICE_GSO)
		err = -1;
	return err ? ns_fail(EINVAL) : 0;
}

int ns_slicing_format(const struct netslice_slicing *slicing, char *buf, size_t size)
{
	char out[NS_SLICING_STRLEN];
	int len;

	if (slicing->mode == NETSLICE_SLICE_OFF)
		len = snprintf(out, sizeof(out), "off");
	else if (slicing->mode == NETSLICE_SLICE_FIXED)
		len = snprintf(out, sizeof(out), "fixed:%u", slicing->length);
	else if (slicing->mode == NETSLICE_SLICE_AUTO && slicing->extra)
		len = snprintf(out, sizeof(out), "auto+%u", slicing->extra);
	else if (slicing->mode == NETSLICE_SLICE_AUTO)
		len = snprintf(out, sizeof(out), "auto");
	else
		return ns_fail(EINVAL);
	/* The flags in one order, whatever order they were parsed in. */
	snprintf(out + len, sizeof(out) - (size_t)len, "%s%s",
		 slicing->flags & NETSLICE_SLICE_TRIM ? ",trim" : "",
		 slicing->flags & NETSLICE_SLICE_GSO ? ",gso" : "");
	if (strlen(out) >= size)
		return ns_fail(ENOSPC);
	memcpy(buf, out, strlen(out) + 1);
	return 0;
}
