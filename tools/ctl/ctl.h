/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netslicectl: the netslice control CLI, on libnl-genl-3. Each verb file
 * (link.c, slice.c, rule.c) builds requests with ctl_msg(), sends them
 * with ctl_do() or ctl_dump(), and prints tables or JSON.
 */
#ifndef NETSLICECTL_H
#define NETSLICECTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "conf.h"
#include "json.h"
#include "msg.h"
#include "proto.h"

/* Exit codes, as iproute2: usage errors 1, requests the kernel refused 2. */
#define CTL_EXIT_USAGE	1
#define CTL_EXIT_KERNEL	2

struct ctl {
	bool checking;		/* first pass: parse the command line, send nothing */
	bool json;
	bool pretty;		/* -p: JSON, indented */
	int stats;		/* -s given: more counters */
	struct json j;
	const char *where;	/* "FILE:LINE: " in batch mode, else "" */
	const struct conf *conf;	/* the file a line is from, or NULL */
	unsigned int word;	/* the word of conf's line a usage error is about */
};

extern struct ctl ctl;

/* A usage error from here on is about this word (if it is one of ctl.conf's). */
void ctl_mark(char *const *word);

/*
 * The command line is well formed: in the checking pass, return to main()
 * (which then opens netlink and runs the command again); else return.
 * ctl_do() and ctl_listen() call it first; a command that reads a file
 * calls it before reading.
 */
void ctl_parsed(void);

/* Open the socket and resolve the family; print why not and return -1. */
int ctl_open(void);
void ctl_close(void);

/* A request of cmd (NETSLICE_CMD_*), NLM_F_DUMP with dump; room for size bytes. */
struct nl_msg *ctl_msg(uint8_t cmd, bool dump);
struct nl_msg *ctl_msg_size(uint8_t cmd, bool dump, size_t size);

/* Let the socket send a request of bytes; 0 or -errno. */
int ctl_sndbuf(size_t bytes);

/*
 * Name what the attributes added from here to ctl_subject_end() stand
 * for ("dev va", "slice 3", "FILE:12"), so an error the kernel points at
 * one of them is reported with it.
 */
void ctl_subject_begin(struct nl_msg *msg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, named "FILE:LINE" (formatted only if an error names it). */
void ctl_subject_line(struct nl_msg *msg, const char *file, unsigned int line);
void ctl_subject_end(struct nl_msg *msg);


/*
 * Send msg (freed) and wait for the ack; each reply goes to parse. On a
 * refusal print "Error: [subject: ]message" and return -errno.
 */
typedef int (*ctl_parse_t)(struct nlattr **tb, uint8_t cmd, void *arg);
int ctl_do(struct nl_msg *msg, int maxattr, ctl_parse_t parse, void *arg);

/* Subscribe to the monitor group; then ctl_listen() delivers events. */
int ctl_listen(int maxattr, ctl_parse_t parse, void *arg);

/* Print a usage or syntax error and return CTL_EXIT_USAGE. */
int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same, as -1 for helpers that return 0 or -1. */
#define CTL_BAD(...)	(ctl_usage_error(__VA_ARGS__), -1)

/*
 * Argument helpers: 0 or -1 with an error printed. A number's error
 * gives its range, that of the attribute it goes into (uapi/netslice.yaml's
 * checks), so that a bad one is refused before anything is sent.
 */
int ctl_range(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *out);
int ctl_u32(const char *what, const char *s, uint32_t max, uint32_t *out);
bool ctl_is(const char *arg, const char *word);
int ctl_on_off(const char *what, const char *s, bool *out);

int ctl_link(int argc, char **argv);
int ctl_monitor(int argc, char **argv);
int ctl_slice(int argc, char **argv);
int ctl_stats(int argc, char **argv);
int ctl_rule(int argc, char **argv);

/* Most lines of one rule-batch request: at most 256 KiB, what the socket takes by default. */
#define CTL_RULES_PER_MSG	2048

/*
 * Batch mode: a "rule add|del|replace RULE" line joins the pending
 * rule-batch request, named FILE:LINE in errors. Returns 1 if queued, 0
 * if argv is no such line, -1 for a bad one (error printed).
 */
int ctl_rule_queue(int argc, char **argv, const char *file, unsigned int line);
unsigned int ctl_rule_queued(void);
/* Send the pending rule-batch request: 0, or CTL_EXIT_KERNEL. */
int ctl_rule_send_queue(void);

#endif /* NETSLICECTL_H */
