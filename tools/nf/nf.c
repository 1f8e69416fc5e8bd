// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* The shared frame of the bundled NFs: the command line, then online or offline mode. */
#include <string.h>

#include "cli.h"
#include "conf.h"
#include "metrics.h"
#include "nf.h"
#include "offline.h"
#include "online.h"

#define NF_BATCH_DEFAULT 64

enum {
	OPT_PCAP_IN = 200,
	OPT_PCAP_OUT,
	OPT_NO_PIN,
	OPT_NO_GSO,
	OPT_METRICS,
	OPT_LOG_DROPS,
	OPT_BUSY_POLL,
	OPT_PREFER_BUSY_POLL,
	OPT_WAKE_EVERY,
};

static const struct option nf_common_options[] = {
	{ "slices", required_argument, NULL, 's' },
	{ "batch", required_argument, NULL, 'b' },
	{ "cut", required_argument, NULL, 'm' },
	{ "slicing", required_argument, NULL, 'm' },	/* before 0.6 */
	{ "io", required_argument, NULL, 'M' },
	{ "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "no-pin", no_argument, NULL, OPT_NO_PIN },
	{ "no-gso", no_argument, NULL, OPT_NO_GSO },
	{ "pcap-in", required_argument, NULL, OPT_PCAP_IN },
	{ "pcap-out", required_argument, NULL, OPT_PCAP_OUT },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "log-drops", required_argument, NULL, OPT_LOG_DROPS },
	{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
	{ "prefer-busy-poll", no_argument, NULL, OPT_PREFER_BUSY_POLL },
	{ "wake-every", required_argument, NULL, OPT_WAKE_EVERY },
};

#define NF_COMMON_OPTIONS (sizeof(nf_common_options) / sizeof(nf_common_options[0]))
#define NF_MAX_OPTIONS 48

/* A common option handled: go on with the next. */
#define NF_OPT_NEXT	(-1)
/* Not a common option of this group. */
#define NF_OPT_OTHER	(-2)

int nf_parse_uint(const char *opt, const char *s, unsigned long min, unsigned long max,
		  unsigned long *out)
{
	/* Digits (or 0x and hex): "+6", "-0" and "10x" are mistakes, not numbers. */
	if (conf_uint(s, min, max, true, out)) {
		nf_err("bad value '%s' for %s (%lu..%lu)", s, opt, min, max);
		return -1;
	}
	return 0;
}

static void nf_usage(const struct nf *nf, FILE *f)
{
	fprintf(f, "usage: %s [OPTION]...\n%s\n\n", nf->name, nf->summary);
	fprintf(f,
		"Common options:\n"
		"  -s, --slices LIST    slices to serve, \"0-3,8\" or \"all\" (default all);\n"
		"                       one worker thread each, pinned to the slice's user CPUs\n"
		"  -b, --batch N        packets per read, 1..%u (default %u)\n"
		"  -m, --cut MODE       off | auto[+EXTRA] | fixed:LEN, optionally ,trim\n"
		"                       and ,gso (default %s)\n"
		"  -M, --io MODE        ring | rw: packets through mapped rings, or read(2)\n"
		"                       and write(2) (default: ring where the module has it)\n"
		"  -i, --interval SEC   print live counters every SEC seconds\n"
		"  -j, --json           JSON output: live lines and the final summary\n"
		"      --metrics SPEC   serve the counters in Prometheus' text format over\n"
		"                       HTTP: on a Unix socket (SPEC a path), or on PORT\n"
		"                       (127.0.0.1) or ADDR:PORT\n"
		"      --log-drops N    log dropped packets to stderr, at most N a second\n"
		"      --no-pin         leave the workers unpinned\n"
		"      --busy-poll US   ring mode: an idle look busy-polls the device for up\n"
		"                       to US microseconds, 1..1000 (CAP_NET_ADMIN)\n"
		"      --prefer-busy-poll\n"
		"                       with --busy-poll: prefer it to the device's deferred\n"
		"                       interrupt (napi_defer_hard_irqs, gro_flush_timeout)\n"
		"      --wake-every US  an idle worker looks again every US microseconds\n"
		"                       without waiting to be woken by a packet\n"
		"%s"
		"      --pcap-in FILE   offline: take packets from a pcapng or pcap file\n"
		"                       (\"-\": stdin; no module); its interface names\n"
		"                       stand for real ones\n"
		"      --pcap-out FILE  offline: write the packets the NF sends, as pcapng\n"
		"                       (\"-\": stdout; the summary goes to stderr)\n"
		"  -h, --help           this text\n"
		"  -V, --version        the version\n",
		NETSLICE_MAX_BATCH, NF_BATCH_DEFAULT, nf->cut,
		nf->gso ? "      --no-gso         read TCP/UDP super-packets segmented even under\n"
			  "                       a cut (by default one header for each)\n" : "");
	if (nf->usage)
		fprintf(f, "\n%s options:\n%s", nf->name, nf->usage);
	fprintf(f, "\nSIGINT/SIGTERM stop it and print the summary; SIGUSR1 prints the summary\n"
		"so far.%s\n", nf->reload ? " SIGHUP reloads its configuration." : "");
}

/* What the workers read and how: NF_OPT_NEXT, NF_OPT_OTHER or an exit status. */
static int nf_run_option(struct nf_opts *o, int c, const char *value)
{
	unsigned long v;

	switch (c) {
	case 's':
		o->slices = value;
		return NF_OPT_NEXT;
	case 'b':
		if (nf_parse_uint("--batch", value, 1, NETSLICE_MAX_BATCH, &v))
			return 2;
		o->batch = (unsigned int)v;
		return NF_OPT_NEXT;
	case 'm':
		if (ns_cut_parse(value, &o->cut)) {
			nf_err("bad cut mode '%s' (off, auto[+EXTRA] or fixed:LEN, then ,trim and ,gso)",
			       value);
			return 2;
		}
		return NF_OPT_NEXT;
	case 'M':
		if (!strcmp(value, "ring")) {
			o->mode = NS_RUN_RING;
		} else if (!strcmp(value, "rw")) {
			o->mode = NS_RUN_RW;
		} else {
			nf_err("bad I/O mode '%s' (ring or rw)", value);
			return 2;
		}
		return NF_OPT_NEXT;
	case OPT_NO_PIN:
		o->no_pin = 1;
		return NF_OPT_NEXT;
	case OPT_NO_GSO:
		o->no_gso = 1;
		return NF_OPT_NEXT;
	case OPT_PCAP_IN:
		o->pcap_in = value;
		return NF_OPT_NEXT;
	case OPT_PCAP_OUT:
		o->pcap_out = value;
		return NF_OPT_NEXT;
	}
	return NF_OPT_OTHER;
}

/* --busy-poll, --prefer-busy-poll, --wake-every: how an idle worker waits. */
static int nf_poll_option(struct nf_opts *o, int c, const char *value)
{
	unsigned long v;

	switch (c) {
	case OPT_BUSY_POLL:
		if (nf_parse_uint("--busy-poll", value, 1, 1000, &v))
			return 2;
		o->busy_poll_us = (unsigned int)v;
		return NF_OPT_NEXT;
	case OPT_PREFER_BUSY_POLL:
		o->busy_prefer = 1;
		return NF_OPT_NEXT;
	case OPT_WAKE_EVERY:
		if (nf_parse_uint("--wake-every", value, 1, 10000000, &v))
			return 2;
		o->wake_every_us = (unsigned int)v;
		return NF_OPT_NEXT;
	}
	return NF_OPT_OTHER;
}

/* What the NF says and where. */
static int nf_output_option(const struct nf *nf, struct nf_opts *o, int c, const char *value)
{
	unsigned long v;

	switch (c) {
	case 'i':
		if (nf_parse_uint("--interval", value, 1, 3600, &v))
			return 2;
		o->interval = (unsigned int)v;
		return NF_OPT_NEXT;
	case 'j':
		o->json = 1;
		return NF_OPT_NEXT;
	case 'h':
		nf_usage(nf, stdout);
		return 0;
	case 'V':
		printf("%s %s\n", nf->name, NETSLICE_VERSION);
		return 0;
	case OPT_METRICS:
		return nf_metrics_parse(value) ? 2 : NF_OPT_NEXT;
	case OPT_LOG_DROPS:
		if (nf_parse_uint("--log-drops", value, 0, 100000, &v))
			return 2;
		nf_drop_rate = (unsigned int)v;
		return NF_OPT_NEXT;
	}
	return NF_OPT_OTHER;
}

/* One option, common or the NF's own: NF_OPT_NEXT or an exit status. */
static int nf_option(const struct nf *nf, struct nf_opts *o, int c, char **argv)
{
	int ret = nf_run_option(o, c, optarg);

	if (ret == NF_OPT_OTHER)
		ret = nf_poll_option(o, c, optarg);
	if (ret == NF_OPT_OTHER)
		ret = nf_output_option(nf, o, c, optarg);
	if (ret != NF_OPT_OTHER)
		return ret;
	if (c >= NF_OPT_BASE && nf->option)
		return nf->option(nf->arg, c, optarg) ? 2 : NF_OPT_NEXT;
	cli_bad_option(nf->name, c, argv);
	return 2;
}

/* The common options, then the NF's own (zero-terminated). */
static void nf_long_options(const struct nf *nf, struct option *opts)
{
	unsigned int n = NF_COMMON_OPTIONS, i;

	memcpy(opts, nf_common_options, sizeof(nf_common_options));
	for (i = 0; nf->options && nf->options[i].name && n < NF_MAX_OPTIONS; i++)
		opts[n++] = nf->options[i];
	memset(&opts[n], 0, sizeof(opts[n]));
}

/* Options that need another, or exclude one: 0, or 2 after saying why. */
static int nf_options_check(struct nf_opts *o)
{
	if (o->pcap_out && !o->pcap_in) {
		nf_err("--pcap-out needs --pcap-in");
		return 2;
	}
	if (o->busy_prefer && !o->busy_poll_us) {
		nf_err("--prefer-busy-poll needs --busy-poll");
		return 2;
	}
	if (o->busy_poll_us && o->mode == NS_RUN_RW) {
		nf_err("--busy-poll needs ring mode (-M ring)");
		return 2;
	}
	return 0;
}

/* The command line into o: NF_OPT_NEXT (run), or the exit status. */
static int nf_options(const struct nf *nf, struct nf_opts *o, int argc, char **argv)
{
	struct option opts[NF_MAX_OPTIONS + 1];
	int c, ret;

	nf_long_options(nf, opts);
	while ((c = getopt_long(argc, argv, ":s:b:m:M:i:jhV", opts, NULL)) != -1) {
		ret = nf_option(nf, o, c, argv);
		if (ret != NF_OPT_NEXT)
			return ret;
	}
	if (optind < argc) {
		nf_err("unexpected argument '%s' (see --help)", argv[optind]);
		return 2;
	}
	if (nf_options_check(o))
		return 2;
	/* Busy polling is ring mode's: no falling back to read/write. */
	if (o->busy_poll_us)
		o->mode = NS_RUN_RING;
	/* A per-header NF takes super-packets whole whenever it slices. */
	if (nf->gso && !o->no_gso && o->cut.mode != NETSLICE_CUT_OFF)
		o->cut.flags |= NETSLICE_CUT_GSO;
	return NF_OPT_NEXT;
}

int nf_main(int argc, char **argv, const struct nf *nf)
{
	struct nf_opts o = { .slices = "all", .batch = NF_BATCH_DEFAULT, .mode = NS_RUN_AUTO };
	int ret;

	nf_log_name(nf->name);
	ns_cut_parse(nf->cut, &o.cut);
	ret = nf_options(nf, &o, argc, argv);
	if (ret != NF_OPT_NEXT)
		return ret;
	if (o.pcap_in) {
		nf_io_use(&nf_offline_io);
		return nf_offline(nf, &o);
	}
	nf_io_use(&nf_online_io);
	return nf_online(nf, &o);
}
