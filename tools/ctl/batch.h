/* SPDX-License-Identifier: GPL-2.0 */
/* netslicectl -b FILE: the commands of a file, one a line. */
#ifndef CTL_BATCH_H
#define CTL_BATCH_H

/*
 * Run each line of file ("-": stdin), netlink open; rate > 0: at most
 * that many a second. Returns the exit status of the first that failed.
 */
int ctl_batch(const char *file, double rate);

#endif /* CTL_BATCH_H */
