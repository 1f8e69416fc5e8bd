// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl: manage a running netslice module over generic netlink,
 * in the manner of ip(8). See docs/man/netslicectl.8.
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "ctl.h"

struct ctl ctl = { .where = "" };

static jmp_buf ctl_checked;

void ctl_parsed(void)
{
	if (ctl.checking)
		longjmp(ctl_checked, 1);
}

/* An object's commands, as the usage shows them, and the words they use. */
static const struct ctl_object {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
	const char *words;
} ctl_objects[] = {
	{ "link", ctl_link,
	  "  link attach dev NAME [peer NAME] [slices A[-B]]\n"
	  "  link detach dev NAME\n"
	  "  link show [dev NAME]\n", NULL },
	{ "slice", ctl_slice,
	  "  slice show [N]\n"
	  "  slice set N [cut MODE] [trim on|off] [gso on|off]\n"
	  "              [batch N] [multi-read on|off] [multi-write on|off]\n"
	  "              [kernel-cpus LIST] [user-cpus LIST]\n"
	  "              [rxq-size N] [store-size N] [store-timeout MS]\n",
	  "  MODE := off | auto | auto+EXTRA | fixed:LEN, then ,trim and ,gso\n"
	  "          (spelled as an NF's -m)\n" },
	{ "stats", ctl_stats,
	  "  stats [show] [slice N]          (-s: every counter)\n"
	  "  stats reset [slice N]\n", NULL },
	{ "rule", ctl_rule,
	  "  rule add RULE | replace RULE | del RULE | del id N\n"
	  "  rule show | flush | load FILE [replace]\n",
	  "  RULE := [family ipv4|ipv6] [proto P] [src PREFIX] [dst PREFIX]\n"
	  "          [sport N[-M]] [dport N[-M]] [pref N] slice N\n" },
	{ "monitor", ctl_monitor,
	  "  monitor\n", NULL },
};

#define CTL_OBJECTS	(sizeof(ctl_objects) / sizeof(ctl_objects[0]))

static void ctl_help(FILE *out)
{
	size_t i;

	fputs("usage: netslicectl [-j] [-p] [-s] OBJECT COMMAND [ARGS]\n"
	      "       netslicectl [-j] [-p] [-s] -b FILE [--rate N]\n"
	      "       netslicectl OBJECT help\n"
	      "\n", out);
	for (i = 0; i < CTL_OBJECTS; i++)
		fputs(ctl_objects[i].usage, out);
	fputs("\n", out);
	for (i = 0; i < CTL_OBJECTS; i++)
		if (ctl_objects[i].words)
			fputs(ctl_objects[i].words, out);
	fputs("\n"
	      "  -j, --json     JSON output\n"
	      "  -p, --pretty   JSON output, indented (implies -j)\n"
	      "  -s, --stats    more detail\n"
	      "  -b, --batch    run the commands of FILE (\"-\": stdin), one per line\n"
	      "      --rate N   in batch mode, at most N commands per second\n"
	      "  -V, --version\n"
	      "Exit status: 0 done, 1 bad command line, 2 the kernel refused (Error: ...).\n",
	      out);
}

/*
 * OBJECT help: that object's part of the usage, each command a usage
 * line of its own, as ip's "OBJECT help" prints them.
 */
static int ctl_object_help(const struct ctl_object *o)
{
	static const char prefix[] = "netslicectl [-j] [-p] [-s] ";
	const char *line = o->usage, *end;
	bool first = true;

	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		/* "  NAME ...": a command; else the one above it continues. */
		if (!strncmp(line + 2, o->name, strlen(o->name)))
			printf("%s%s", first ? "usage: " : "       ", prefix);
		else
			printf("%*s", (int)(sizeof("usage: ") + sizeof(prefix) - 2), "");
		printf("%.*s\n", (int)(end - line - 2), line + 2);
		first = false;
	}
	if (o->words)
		printf("\n%s", o->words);
	return 0;
}

static int ctl_run(int argc, char **argv)
{
	size_t i;

	if (!argc)
		return ctl_usage_error("say what to do");
	for (i = 0; i < CTL_OBJECTS; i++) {
		if (strcmp(argv[0], ctl_objects[i].name))
			continue;
		if (argc == 2 && !strcmp(argv[1], "help"))
			return ctl_object_help(&ctl_objects[i]);
		return ctl_objects[i].run(argc - 1, argv + 1);
	}
	if (!strcmp(argv[0], "help")) {
		ctl_help(stdout);
		return 0;
	}
	return ctl_usage_error("unknown object \"%s\"", argv[0]);
}

/*
 * The command is run once before netlink is opened, sending nothing, so
 * help and syntax errors need no module: it stops where it would first
 * send (ctl_parsed()). -1 then; else help's or the error's exit status.
 */
static int ctl_check(int argc, char **argv)
{
	static FILE *null;	/* static: longjmp keeps it */
	volatile int err = -1;

	null = fopen("/dev/null", "w");
	if (!null) {
		perror("netslicectl: /dev/null");
		return CTL_EXIT_USAGE;
	}
	json_init(&ctl.j, null);
	ctl.checking = true;
	if (!setjmp(ctl_checked))
		err = ctl_run(argc, argv);
	ctl.checking = false;
	fclose(null);
	return err;
}

static double ctl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t ctl_stop;

static void ctl_on_signal(int sig)
{
	(void)sig;
	ctl_stop = 1;
}

/*
 * One command per line; the first failure ends the batch, as in ip -batch.
 * Consecutive rule add, del and replace lines go to the kernel together,
 * as rule-batch requests of up to CTL_RULES_PER_MSG lines: each applied
 * all or none, so a refused line leaves none of its request's lines in
 * place. With a rate, each line is due at its time, and the lines due
 * while the last request was in flight make the next one.
 * SIGINT or SIGTERM ends it after the command in hand, and it says how far
 * it got (a paced batch under a time limit is a benchmark's load).
 */
static int ctl_batch(const char *file, double rate)
{
	struct sigaction sa = { .sa_handler = ctl_on_signal };
	double start = ctl_now(), due;
	unsigned long done = 0;
	char where[520];
	struct conf c;
	int more = 0, queued, err = 0;

	if (conf_open(&c, file)) {
		msg_line("netslicectl: %s: %s", file, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!err && !ctl_stop && (more = conf_next(&c)) > 0) {
		if (rate > 0 && ctl_now() < (due = start + done / rate)) {
			/* Early: what is queued goes now, then wait for this line's time. */
			err = ctl_rule_send_queue();
			while (!err && !ctl_stop && ctl_now() < due) {
				struct timespec ts = { 0, (long)((due - ctl_now()) * 1e9) };

				nanosleep(&ts, NULL);
			}
		}
		if (err || ctl_stop)
			break;
		/* A rule line's errors name their word (ctl.conf); where is for the rest. */
		ctl.conf = &c;
		ctl.word = 0;
		queued = ctl_rule_queue((int)c.n, c.word, file, c.lineno);
		ctl.conf = NULL;
		if (queued < 0) {
			err = CTL_EXIT_USAGE;
			break;
		}
		if (queued) {
			done++;
			if (ctl_rule_queued() >= CTL_RULES_PER_MSG)
				err = ctl_rule_send_queue();
			continue;
		}
		err = ctl_rule_send_queue();
		if (err)
			break;
		snprintf(where, sizeof(where), "%s:%u: ", file, c.lineno);
		ctl.where = where;
		ctl.conf = &c;
		ctl.word = 0;
		err = ctl_run((int)c.n, c.word);
		ctl.where = "";
		ctl.conf = NULL;
		done++;
	}
	if (!err && more < 0)
		err = CTL_EXIT_USAGE;
	if (!err)
		err = ctl_rule_send_queue();
	if (ctl_stop)
		fprintf(stderr, "netslicectl: stopped after %lu commands in %.3f s\n", done,
			ctl_now() - start);
	conf_close(&c);
	return err;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "rate", required_argument, NULL, 'r' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *batch = NULL;
	double rate = 0;
	char *end;
	int c, err;

	/* Options come before the object, as in ip(8): "rule del ... -1" is no option. */
	while ((c = getopt_long(argc, argv, "+:jpsb:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			ctl.json = true;
			break;
		case 'p':
			ctl.json = true;
			ctl.pretty = true;
			break;
		case 's':
			ctl.stats++;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'r':
			rate = strtod(optarg, &end);
			if (*end || rate <= 0)
				return ctl_usage_error("--rate wants a positive number");
			break;
		case 'V':
			printf("netslicectl %s\n", NETSLICE_VERSION);
			return 0;
		case 'h':
			ctl_help(stdout);
			return 0;
		default:
			cli_bad_option("netslicectl", c, argv);
			return CTL_EXIT_USAGE;
		}
	}
	if (batch && optind != argc)
		return ctl_usage_error("-b runs a file: no command on the command line");
	if (!batch && optind == argc) {
		ctl_help(stderr);
		return CTL_EXIT_USAGE;
	}
	/* A batch file is read once, as it runs. */
	if (!batch) {
		err = ctl_check(argc - optind, argv + optind);
		if (err >= 0)
			return err;
	}
	json_init(&ctl.j, stdout);
	if (ctl.pretty)
		json_pretty(&ctl.j);
	if (ctl_open())
		return CTL_EXIT_KERNEL;
	err = batch ? ctl_batch(batch, rate) : ctl_run(argc - optind, argv + optind);
	ctl_close();
	return err;
}
