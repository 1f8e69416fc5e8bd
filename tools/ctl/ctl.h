/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netslicectl: the netslice control CLI, on libnl-genl-3. Each command
 * is parsed once into a request (req.h) by its object's file (link.c,
 * slice.c, chain.c, rule.c), before netlink is open; run.c then sends it and
 * prints the replies, as tables or JSON (view.h).
 */
#ifndef NETSLICECTL_H
#define NETSLICECTL_H

#include "usage.h"

/* Exit codes, as iproute2: usage errors 1, requests the kernel refused 2. */
#define CTL_EXIT_USAGE	USAGE_EXIT
#define CTL_EXIT_KERNEL	2

/* A usage error, as -1 for helpers that return 0 or -1. */
#define CTL_BAD(...)	(usage_error(__VA_ARGS__), -1)

#endif /* NETSLICECTL_H */
