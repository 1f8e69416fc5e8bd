// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Names of the slice counters, for tools that print them. */
#include <stddef.h>

#include "netslice.h"

static const char *const ns_stat_names[] = {
#define NS_STAT_NAME(NAME, name)	#name,
	NETSLICE_STATS_LIST(NS_STAT_NAME)
#undef NS_STAT_NAME
};

/* Each field of struct netslice_stats is where NETSLICE_STATS_LIST puts it. */
enum {
#define NS_STAT_INDEX(NAME, name)	NS_STAT_INDEX_##NAME,
	NETSLICE_STATS_LIST(NS_STAT_INDEX)
#undef NS_STAT_INDEX
};
#define NS_STAT_PLACED(NAME, name)						\
	_Static_assert(offsetof(struct netslice_stats, name) ==			\
		       NS_STAT_INDEX_##NAME * sizeof(__u64), #name " out of place");
NETSLICE_STATS_LIST(NS_STAT_PLACED)
#undef NS_STAT_PLACED

_Static_assert(sizeof(ns_stat_names) / sizeof(ns_stat_names[0]) ==
	       sizeof(struct netslice_stats) / sizeof(__u64),
	       "a name for every counter");

unsigned int ns_stat_count(void)
{
	return sizeof(ns_stat_names) / sizeof(ns_stat_names[0]);
}

const char *ns_stat_name(unsigned int i)
{
	return i < ns_stat_count() ? ns_stat_names[i] : NULL;
}

__u64 ns_stat_value(const struct netslice_stats *stats, unsigned int i)
{
	return i < ns_stat_count() ? ((const __u64 *)stats)[i] : 0;
}
