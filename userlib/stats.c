// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Names of the slice counters, for tools that print them. */
#include <stddef.h>

#include "netslice.h"

static const char *const ns_stat_names[] = {
	"rx_packets", "rx_bytes", "rx_drop_ring_full", "rx_drop_no_reader",
	"rx_drop_error", "rx_segments", "rx_off_cpu", "rx_trimmed", "read_packets",
	"read_bytes", "read_truncated", "read_sliced", "read_whole", "read_store_full",
	"write_bytes", "tx_packets", "tx_bytes", "tx_host", "tx_nf_drop", "tx_busy",
	"tx_spliced", "tx_err_invalid", "tx_err_length", "tx_err_ifindex", "tx_err_fault",
	"tx_err_nomem", "tx_err_down", "tx_err_stale", "tx_err_foreign", "tx_err_forged",
	"store_aged", "store_closed", "store_used", "store_high_water", "rx_purged",
	"tx_err_dropped", "rx_gso_packets", "rx_gso_segments", "tx_gso", "tx_err_gso",
};

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
