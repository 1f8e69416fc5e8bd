/* SPDX-License-Identifier: GPL-2.0 */
/* A parsed netslicectl command, run: sent, its replies printed. */
#ifndef CTL_RUN_H
#define CTL_RUN_H

#include "req.h"

/*
 * Build (if need be) and send req, netlink open, and print its replies;
 * req's message is freed. Returns the exit status: 0, CTL_EXIT_USAGE for
 * a file build could not read, CTL_EXIT_KERNEL for a refusal.
 */
int ctl_run(struct ctl_req *req);

#endif /* CTL_RUN_H */
