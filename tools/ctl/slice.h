/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netslicectl slice and stats, parsed into a request (req.h): argc and
 * argv are the words after the object's name. Each returns 0 or an exit
 * status, a usage error printed; a deprecated word is noted once, here.
 */
#ifndef CTL_SLICE_H
#define CTL_SLICE_H

#include "req.h"

int ctl_slice(int argc, char **argv, struct ctl_req *req);
int ctl_stats(int argc, char **argv, struct ctl_req *req);

#endif /* CTL_SLICE_H */
