// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl: manage a running netslice module over generic netlink,
 * in the manner of ip(8). See docs/man/netslicectl.8.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "batch.h"
#include "cli.h"
#include "cmd.h"
#include "ctl.h"
#include "nl.h"
#include "run.h"
#include "usage.h"
#include "view.h"

/*
 * The command on the command line, as iproute2 runs one: parsed whole
 * into a request before netlink is opened (help and syntax errors need
 * no module), then sent.
 */
static int ctl_command(int argc, char **argv)
{
	struct ctl_req req = { 0 };
	int err;

	err = ctl_parse(argc, argv, &req);
	if (!err && (req.msg || req.build || req.exec || req.listen)) {
		if (ctl_open()) {
			err = CTL_EXIT_KERNEL;
		} else {
			err = ctl_run(&req);
			ctl_close();
		}
	}
	ctl_req_free(&req);
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

	usage_at.prog = "netslicectl";
	/* Options come before the object, as in ip(8): "rule del ... -1" is no option. */
	while ((c = getopt_long(argc, argv, "+:jpsb:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			view.json = true;
			break;
		case 'p':
			view.json = true;
			view.pretty = true;
			break;
		case 's':
			view.stats++;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'r':
			rate = strtod(optarg, &end);
			if (*end || rate <= 0)
				return usage_error("--rate wants a positive number");
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
		return usage_error("-b runs a file: no command on the command line");
	if (!batch && optind == argc) {
		ctl_help(stderr);
		return CTL_EXIT_USAGE;
	}
	json_init(&view.j, stdout);
	if (view.pretty)
		json_pretty(&view.j);
	if (!batch)
		return ctl_command(argc - optind, argv + optind);
	/* A batch file is read once, as it runs: netlink first. */
	if (ctl_open())
		return CTL_EXIT_KERNEL;
	err = ctl_batch(batch, rate);
	ctl_close();
	return err;
}
