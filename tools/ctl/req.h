/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A netslicectl command, parsed: the request to send (built before
 * netlink is open, its family filled in when sent), what its attributes
 * stand for, and how its replies are printed.
 */
#ifndef CTL_REQ_H
#define CTL_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/netslice.h>

struct ctl_req;

/* Print one reply (or event); non-zero stops the dump. */
typedef int (*ctl_row_t)(struct nlattr **tb, uint8_t cmd, struct ctl_req *req);

/* What a byte range of the request stands for ("dev va", "slice 3", "FILE:12"). */
struct ctl_subject {
	unsigned int start, end;
	const char *file;	/* "FILE:LINE" when set (formatted on error only) */
	unsigned int line;
	char *name;		/* else this, owned */
};

struct ctl_req {
	struct nl_msg *msg;	/* to send; NULL: nothing (help was printed) */
	bool listen;		/* no request: join the monitor group, print events */
	/*
	 * Once netlink is open, before sending: builds msg from a file (rule
	 * load), which is read once and only if the module is there.
	 * Returns an exit status.
	 */
	int (*build)(struct ctl_req *req);
	/*
	 * Once netlink is open, instead of sending msg: a command of several
	 * requests, each depending on the answers before it (chain add),
	 * sent and printed by itself. Returns an exit status.
	 */
	int (*exec)(struct ctl_req *req);
	const char *file;	/* build's file */
	uint8_t cmd;		/* build's command */
	int maxattr;		/* of the replies */
	ctl_row_t row;		/* prints each reply, or NULL */
	bool list;		/* in JSON, the rows are an array */
	/* After the kernel's answer, the exit status: 0, or an error of our own. */
	int (*done)(struct ctl_req *req);
	const char *dev;	/* link show dev NAME: that interface only */
	uint8_t slices[NETSLICE_MAX_SLICES];	/* chain: the slices named, in order */
	unsigned int nr_slices;
	unsigned int shown;	/* rows printed */
	struct ctl_subject *subjects;
	unsigned int nr_subjects, cap_subjects;
};

/* A request of cmd (NETSLICE_CMD_*) into req->msg, NLM_F_DUMP with dump. */
struct nl_msg *ctl_req_msg(struct ctl_req *req, uint8_t cmd, bool dump);
/* The same, with room for size bytes. */
struct nl_msg *ctl_req_msg_size(struct ctl_req *req, uint8_t cmd, bool dump, size_t size);

/* The message and subjects freed; the rest of req kept. */
void ctl_req_free(struct ctl_req *req);

/*
 * Name what the attributes added from here to ctl_subject_end() stand
 * for, so an error the kernel points at one of them is reported with it.
 */
void ctl_subject_begin(struct ctl_req *req, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, named "FILE:LINE" (formatted only if an error names it). */
void ctl_subject_line(struct ctl_req *req, const char *file, unsigned int line);
void ctl_subject_end(struct ctl_req *req);

/*
 * The name of the innermost subject holding byte offset off of the
 * request (any offset if there is one subject), formatted into buf if
 * need be; NULL if none.
 */
const char *ctl_subject_at(const struct ctl_req *req, unsigned int off, bool known, char *buf,
			   size_t size);

#endif /* CTL_REQ_H */
