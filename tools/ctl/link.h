/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netslicectl link and monitor, parsed into a request (req.h): argc and
 * argv are the words after the object's name. Each returns 0 or an exit
 * status, a usage error printed.
 */
#ifndef CTL_LINK_H
#define CTL_LINK_H

#include "req.h"

int ctl_link(int argc, char **argv, struct ctl_req *req);
int ctl_monitor(int argc, char **argv, struct ctl_req *req);

#endif /* CTL_LINK_H */
