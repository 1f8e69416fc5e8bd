// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* What every netslice program says about its command line. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "msg.h"

void cli_bad_option(const char *prog, int c, char *const *argv)
{
	const char *word = argv[optind - 1];
	char opt[3] = { '-', (char)optopt, 0 };

	/* A short option in a cluster ("-jx") is named alone. */
	if (word[0] == '-' && word[1] != '-' && optopt > 0 && optopt < 128)
		word = opt;
	msg_err(prog, "%s '%s' (see %s --help)",
		c == ':' ? "missing value for option" : "unknown option", word, prog);
}
