/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netslicectl chain, parsed into a request (req.h): argc and argv are the
 * words after "chain". Returns 0 or an exit status, a usage error printed.
 */
#ifndef CTL_CHAIN_H
#define CTL_CHAIN_H

#include "req.h"

int ctl_chain(int argc, char **argv, struct ctl_req *req);

#endif /* CTL_CHAIN_H */
