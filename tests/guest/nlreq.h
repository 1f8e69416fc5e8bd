/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlreq: just enough raw netlink for the guest fault loops to create and
 * delete veth pairs and attach them, and for chain_check to set and read
 * slices' chains (one process, no programs started).
 */
#ifndef NLREQ_H
#define NLREQ_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

struct nlreq {
	struct nlmsghdr nh;
	char buf[1024];
};

/* A request of @type and @flags (| NLM_F_REQUEST | NLM_F_ACK) with @hdr. */
void nlreq_init(struct nlreq *req, uint16_t type, uint16_t flags, const void *hdr, size_t len);
void nlreq_put(struct nlreq *req, uint16_t type, const void *data, size_t len);
/* Raw bytes (a nested header such as a veth peer's ifinfomsg). */
void nlreq_append(struct nlreq *req, const void *data, size_t len);
/* Nests: nlreq_nest() returns the offset that nlreq_end() closes. */
size_t nlreq_nest(struct nlreq *req, uint16_t type);
void nlreq_end(struct nlreq *req, size_t nest);
/* Sends @req on @fd, waits for its ack: 0 or -errno. */
int nlreq_talk(int fd, struct nlreq *req);

/*
 * Sends @req as a get (no ack asked) on @fd and looks for attribute @type
 * in the reply, past its @hdrlen bytes of family header: up to @len bytes
 * of it copied to @val. 1 found, 0 not there, or -errno (a netlink error).
 */
int nlreq_get(int fd, struct nlreq *req, size_t hdrlen, uint16_t type, void *val, size_t len);

/* A NETLINK_GENERIC socket's family id by name; 0 if there is none. */
uint16_t nlreq_genl_family(int fd, const char *name);

#endif /* NLREQ_H */
