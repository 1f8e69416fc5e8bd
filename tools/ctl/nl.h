/* SPDX-License-Identifier: GPL-2.0 */
/* The netlink side of netslicectl: one socket to the netslice family. */
#ifndef CTL_NL_H
#define CTL_NL_H

#include <stddef.h>

#include "req.h"

/* Open the socket and resolve the family; print why not and return -1. */
int ctl_open(void);
void ctl_close(void);

/* Let the socket send a request of bytes; 0 or -errno. */
int ctl_sndbuf(size_t bytes);

/*
 * Send req->msg (freed) and wait for the ack; each reply goes to
 * req->row. On a refusal print "Error: [subject: ]message" and return
 * -errno.
 */
int ctl_send(struct ctl_req *req);

/* Join the monitor group and give each event to req->row; returns only on an error. */
int ctl_listen(struct ctl_req *req);

#endif /* CTL_NL_H */
