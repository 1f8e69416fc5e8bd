// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl's objects: their usage, and which file parses each one's
 * commands.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "chain.h"
#include "cmd.h"
#include "link.h"
#include "rule.h"
#include "slice.h"
#include "usage.h"

/* An object's commands, as the usage shows them, and the words they use. */
static const struct ctl_object {
	const char *name;
	int (*parse)(int argc, char **argv, struct ctl_req *req);
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
	  "              [rxq-size N] [store-size N] [store-timeout MS]\n"
	  "              [next N|none]\n",
	  "  MODE := off | auto | auto+EXTRA | fixed:LEN, then ,trim and ,gso\n"
	  "          (spelled as an NF's -m)\n" },
	{ "chain", ctl_chain,
	  "  chain [show]\n"
	  "  chain add S1 [->] S2 [[->] S3]...\n"
	  "  chain del S [S]... | flush\n",
	  "  S := a slice number; S1 -> S2: S1's packets go on to S2\n"
	  "          (in a shell, quote the -> or leave it out)\n" },
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

void ctl_help(FILE *out)
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

int ctl_parse(int argc, char **argv, struct ctl_req *req)
{
	size_t i;

	if (!argc)
		return usage_error("say what to do");
	for (i = 0; i < CTL_OBJECTS; i++) {
		if (strcmp(argv[0], ctl_objects[i].name))
			continue;
		if (argc == 2 && !strcmp(argv[1], "help"))
			return ctl_object_help(&ctl_objects[i]);
		return ctl_objects[i].parse(argc - 1, argv + 1, req);
	}
	if (!strcmp(argv[0], "help")) {
		ctl_help(stdout);
		return 0;
	}
	return usage_error("unknown object \"%s\"", argv[0]);
}
