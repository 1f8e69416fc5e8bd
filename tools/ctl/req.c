// SPDX-License-Identifier: GPL-2.0
/*
 * A netslicectl request, built while the command is parsed, and the
 * subjects its error acks are mapped back to.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <netlink/genl/genl.h>

#include <linux/netslice_netlink.h>

#include "req.h"

struct nl_msg *ctl_req_msg(struct ctl_req *req, uint8_t cmd, bool dump)
{
	return ctl_req_msg_size(req, cmd, dump, 16 * 1024);
}

struct nl_msg *ctl_req_msg_size(struct ctl_req *req, uint8_t cmd, bool dump, size_t size)
{
	struct nl_msg *msg = nlmsg_alloc_size(size);

	if (!msg) {
		fprintf(stderr, "netslicectl: out of memory\n");
		exit(1);
	}
	/* The family is known once netlink is open: ctl_send() fills it in. */
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, 0, 0, dump ? NLM_F_DUMP : 0, cmd,
		    NETSLICE_FAMILY_VERSION);
	ctl_req_free(req);
	req->msg = msg;
	return msg;
}

void ctl_req_free(struct ctl_req *req)
{
	nlmsg_free(req->msg);
	req->msg = NULL;
	while (req->nr_subjects)
		free(req->subjects[--req->nr_subjects].name);
	free(req->subjects);
	req->subjects = NULL;
	req->cap_subjects = 0;
}

/* A new subject from the end of the request on; NULL without memory. */
static struct ctl_subject *ctl_subject_new(struct ctl_req *req)
{
	struct ctl_subject *sub;

	if (req->nr_subjects == req->cap_subjects) {
		unsigned int cap = req->cap_subjects ? req->cap_subjects * 2 : 64;
		struct ctl_subject *more = realloc(req->subjects, cap * sizeof(*more));

		if (!more)
			return NULL;	/* errors are then reported without a subject */
		req->subjects = more;
		req->cap_subjects = cap;
	}
	sub = &req->subjects[req->nr_subjects++];
	*sub = (struct ctl_subject){ .start = nlmsg_hdr(req->msg)->nlmsg_len, .end = ~0U };
	return sub;
}

void ctl_subject_begin(struct ctl_req *req, const char *fmt, ...)
{
	struct ctl_subject *sub = ctl_subject_new(req);
	va_list ap;

	if (!sub)
		return;
	va_start(ap, fmt);
	if (vasprintf(&sub->name, fmt, ap) < 0)
		sub->name = NULL;
	va_end(ap);
}

void ctl_subject_line(struct ctl_req *req, const char *file, unsigned int line)
{
	struct ctl_subject *sub = ctl_subject_new(req);

	if (sub) {
		sub->file = file;
		sub->line = line;
	}
}

void ctl_subject_end(struct ctl_req *req)
{
	struct ctl_subject *last = req->nr_subjects ? &req->subjects[req->nr_subjects - 1] : NULL;

	if (last && last->end == ~0U)
		last->end = nlmsg_hdr(req->msg)->nlmsg_len;
}

const char *ctl_subject_at(const struct ctl_req *req, unsigned int off, bool known, char *buf,
			   size_t size)
{
	const struct ctl_subject *found = NULL;
	unsigned int i;

	for (i = 0; known && i < req->nr_subjects; i++)
		if (off >= req->subjects[i].start && off < req->subjects[i].end)
			found = &req->subjects[i];
	if (!found && req->nr_subjects == 1)
		found = &req->subjects[0];
	if (!found || !found->file)
		return found ? found->name : NULL;
	snprintf(buf, size, "%s:%u", found->file, found->line);
	return buf;
}
