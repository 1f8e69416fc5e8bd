/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/* What every netslice program says about its command line. */
#ifndef NF_CLI_H
#define NF_CLI_H

/*
 * One line on stderr for an option getopt_long() refused: c is what it
 * returned ('?' unknown, ':' no value; the option string starts with ':'
 * so getopt itself says nothing).
 */
void cli_bad_option(const char *prog, int c, char *const *argv);

#endif /* NF_CLI_H */
