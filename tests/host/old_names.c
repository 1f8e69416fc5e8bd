// SPDX-License-Identifier: GPL-2.0
/*
 * A program written against the names before 0.6 (tests/host/test_old_names.sh):
 * it must build, each old name warning with its replacement, and mean what
 * the new name means.
 */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <linux/netslice.h>
#include <linux/netslice_netlink.h>

#include "netslice.h"

#define SAME(old, new) static_assert((old) == (new), #old " is " #new)

SAME(NETSLICE_SLICE_GET, NETSLICE_CUT_GET);
SAME(NETSLICE_SLICE_SET, NETSLICE_CUT_SET);
SAME(NETSLICE_SLICE_OFF, NETSLICE_CUT_OFF);
SAME(NETSLICE_SLICE_FIXED, NETSLICE_CUT_FIXED);
SAME(NETSLICE_SLICE_AUTO, NETSLICE_CUT_AUTO);
SAME(NETSLICE_SLICE_TRIM, NETSLICE_CUT_TRIM);
SAME(NETSLICE_SLICE_GSO, NETSLICE_CUT_GSO);
SAME(NETSLICE_RX_SLICED, NETSLICE_RX_CUT);
SAME(NETSLICE_SLICING_MODE_OFF, NETSLICE_CUT_MODE_OFF);
SAME(NETSLICE_SLICING_MODE_FIXED, NETSLICE_CUT_MODE_FIXED);
SAME(NETSLICE_SLICING_MODE_AUTO, NETSLICE_CUT_MODE_AUTO);
SAME(NETSLICE_A_SLICE_SLICING_MODE, NETSLICE_A_SLICE_CUT_MODE);
SAME(NETSLICE_A_SLICE_SLICING_LENGTH, NETSLICE_A_SLICE_CUT_LENGTH);
SAME(NETSLICE_A_SLICE_SLICING_EXTRA, NETSLICE_A_SLICE_CUT_EXTRA);
SAME(NETSLICE_A_SLICE_SLICING_TRIM, NETSLICE_A_SLICE_CUT_TRIM);
SAME(NETSLICE_A_SLICE_SLICING_GSO, NETSLICE_A_SLICE_CUT_GSO);
SAME(NETSLICE_A_SLICE_RING_SIZE, NETSLICE_A_SLICE_RXQ_SIZE);
SAME(NS_SLICING_STRLEN, NS_CUT_STRLEN);
static_assert(sizeof(struct netslice_slicing) == sizeof(struct netslice_cut),
	      "struct netslice_slicing is struct netslice_cut");
static_assert(offsetof(struct netslice_info, slicing) == offsetof(struct netslice_info, cut),
	      "netslice_info's slicing is its cut");
static_assert(offsetof(struct netslice_info, ring_size) == offsetof(struct netslice_info, rxq_size),
	      "netslice_info's ring_size is its rxq_size");

int main(void)
{
	struct netslice_slicing was, now;
	char a[NS_SLICING_STRLEN], b[NS_CUT_STRLEN];

	if (ns_slicing_parse("fixed:128,trim", &was) || ns_cut_parse("fixed:128,trim", &now) ||
	    memcmp(&was, &now, sizeof(was)) || was.mode != NETSLICE_SLICE_FIXED ||
	    ns_slicing_format(&was, a, sizeof(a)) || ns_cut_format(&now, b, sizeof(b)) ||
	    strcmp(a, b)) {
		fprintf(stderr, "old_names: ns_slicing_parse/format differ from ns_cut_*\n");
		return 1;
	}
	/* No device here: the same failure either way. */
	if (ns_slicing_get(-1, &was) != ns_cut_get(-1, &now) ||
	    ns_slicing_set(-1, &was) != ns_cut_set(-1, &now)) {
		fprintf(stderr, "old_names: ns_slicing_get/set differ from ns_cut_*\n");
		return 1;
	}
	puts(a);
	return 0;
}
