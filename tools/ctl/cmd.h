/* SPDX-License-Identifier: GPL-2.0 */
/* netslicectl's objects: the usage, and a command parsed by its object's file. */
#ifndef CTL_CMD_H
#define CTL_CMD_H

#include <stdio.h>

#include "req.h"

/* The whole usage, to out. */
void ctl_help(FILE *out);

/*
 * OBJECT COMMAND ARGS parsed into req; "help" and "OBJECT help" print
 * and leave req empty. Returns 0 or the exit status of a usage error
 * (printed).
 */
int ctl_parse(int argc, char **argv, struct ctl_req *req);

#endif /* CTL_CMD_H */
