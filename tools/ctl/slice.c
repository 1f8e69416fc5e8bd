// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl slice and stats: show and change slices, read and reset
 * their counters.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/netlink.h>

#include <linux/netslice.h>
#include <linux/netslice_netlink.h>

#include "ctl.h"
#include "msg.h"
#include "netslice.h"
#include "slice.h"
#include "view.h"
#include "word.h"

static const char *const ctl_modes[] = { "off", "fixed", "auto" };

/* The ioctl's (and libnetslice's) mode of each netlink cut-mode, and back. */
static const uint32_t ctl_netlink_modes[] = {
	[NETSLICE_CUT_MODE_OFF] = NETSLICE_CUT_OFF,
	[NETSLICE_CUT_MODE_FIXED] = NETSLICE_CUT_FIXED,
	[NETSLICE_CUT_MODE_AUTO] = NETSLICE_CUT_AUTO,
};
static const uint32_t ctl_ioctl_modes[] = {
	[NETSLICE_CUT_OFF] = NETSLICE_CUT_MODE_OFF,
	[NETSLICE_CUT_FIXED] = NETSLICE_CUT_MODE_FIXED,
	[NETSLICE_CUT_AUTO] = NETSLICE_CUT_MODE_AUTO,
};

static uint32_t ctl_get_u32(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : 0;
}

static const char *ctl_get_str(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_string(tb[attr]) : "";
}

/* The bits set; a dump's selector names every bit the module knows. */
static uint32_t ctl_get_batch_flags(struct nlattr **tb)
{
	struct nla_bitfield32 bf = { 0 };

	if (tb[NETSLICE_A_SLICE_BATCH_FLAGS] &&
	    nla_len(tb[NETSLICE_A_SLICE_BATCH_FLAGS]) >= (int)sizeof(bf))
		memcpy(&bf, nla_data(tb[NETSLICE_A_SLICE_BATCH_FLAGS]), sizeof(bf));
	return bf.value & bf.selector;
}

static int ctl_slice_row(struct nlattr **tb, uint8_t cmd, struct ctl_req *req)
{
	uint32_t mode = ctl_get_u32(tb, NETSLICE_A_SLICE_CUT_MODE);
	uint32_t flags = ctl_get_batch_flags(tb);
	bool trim = tb[NETSLICE_A_SLICE_CUT_TRIM] &&
		    nla_get_u8(tb[NETSLICE_A_SLICE_CUT_TRIM]);
	bool gso = tb[NETSLICE_A_SLICE_CUT_GSO] &&
		   nla_get_u8(tb[NETSLICE_A_SLICE_CUT_GSO]);
	struct netslice_cut mode_set = {
		.mode = ctl_netlink_modes[mode < 3 ? mode : 0],
		.length = ctl_get_u32(tb, NETSLICE_A_SLICE_CUT_LENGTH),
		.extra = ctl_get_u32(tb, NETSLICE_A_SLICE_CUT_EXTRA),
		.flags = (trim ? NETSLICE_CUT_TRIM : 0) | (gso ? NETSLICE_CUT_GSO : 0),
	};
	char cut[NS_CUT_STRLEN], next[16] = "-";

	(void)cmd;
	if (mode > NETSLICE_CUT_MODE_AUTO || !tb[NETSLICE_A_SLICE_ID])
		return 0;
	if (view.json) {
		json_open(&view.j, NULL, '{');
		json_u64(&view.j, "slice", ctl_get_u32(tb, NETSLICE_A_SLICE_ID));
		json_u64(&view.j, "rxq_size", ctl_get_u32(tb, NETSLICE_A_SLICE_RXQ_SIZE));
		json_u64(&view.j, "readers", ctl_get_u32(tb, NETSLICE_A_SLICE_READERS));
		json_str(&view.j, "kernel_cpus", ctl_get_str(tb, NETSLICE_A_SLICE_KERNEL_CPUS));
		json_str(&view.j, "user_cpus", ctl_get_str(tb, NETSLICE_A_SLICE_USER_CPUS));
		json_str(&view.j, "cut", ctl_modes[mode]);
		if (mode == NETSLICE_CUT_MODE_FIXED)
			json_u64(&view.j, "length", ctl_get_u32(tb, NETSLICE_A_SLICE_CUT_LENGTH));
		if (mode == NETSLICE_CUT_MODE_AUTO)
			json_u64(&view.j, "extra", ctl_get_u32(tb, NETSLICE_A_SLICE_CUT_EXTRA));
		json_str(&view.j, "trim", trim ? "on" : "off");
		json_str(&view.j, "gso", gso ? "on" : "off");
		json_u64(&view.j, "store_size", ctl_get_u32(tb, NETSLICE_A_SLICE_STORE_SIZE));
		json_u64(&view.j, "store_timeout_ms",
			 ctl_get_u32(tb, NETSLICE_A_SLICE_STORE_TIMEOUT_MS));
		json_u64(&view.j, "batch", ctl_get_u32(tb, NETSLICE_A_SLICE_BATCH_MAX));
		json_str(&view.j, "multi_read",
			 flags & NETSLICE_BATCH_FLAGS_MULTI_READ ? "on" : "off");
		json_str(&view.j, "multi_write",
			 flags & NETSLICE_BATCH_FLAGS_MULTI_WRITE ? "on" : "off");
		if (tb[NETSLICE_A_SLICE_CHAIN_NEXT])
			json_u64(&view.j, "next", ctl_get_u32(tb, NETSLICE_A_SLICE_CHAIN_NEXT));
		json_close(&view.j, '}');
		return 0;
	}
	/* Spelled as the NFs' -m and slice set take it. */
	if (ns_cut_format(&mode_set, cut, sizeof(cut)))
		snprintf(cut, sizeof(cut), "?");
	if (tb[NETSLICE_A_SLICE_CHAIN_NEXT])
		snprintf(next, sizeof(next), "%u", ctl_get_u32(tb, NETSLICE_A_SLICE_CHAIN_NEXT));
	if (!req->shown++)
		printf("%-5s %-7s %-7s %-11s %-11s %-20s %-12s %-5s %-10s %s\n", "SLICE", "RXQ",
		       "READERS", "KERNEL-CPUS", "USER-CPUS", "CUT", "STORE", "BATCH", "MULTI",
		       "NEXT");
	printf("%-5u %-7u %-7u %-11s %-11s %-20s %5u/%-6u %-5u %-10s %s\n",
	       ctl_get_u32(tb, NETSLICE_A_SLICE_ID), ctl_get_u32(tb, NETSLICE_A_SLICE_RXQ_SIZE),
	       ctl_get_u32(tb, NETSLICE_A_SLICE_READERS),
	       ctl_get_str(tb, NETSLICE_A_SLICE_KERNEL_CPUS),
	       ctl_get_str(tb, NETSLICE_A_SLICE_USER_CPUS), cut,
	       ctl_get_u32(tb, NETSLICE_A_SLICE_STORE_SIZE),
	       ctl_get_u32(tb, NETSLICE_A_SLICE_STORE_TIMEOUT_MS),
	       ctl_get_u32(tb, NETSLICE_A_SLICE_BATCH_MAX),
	       (flags & 3) == 3 ? "read,write" : flags & 1 ? "read" : flags & 2 ? "write" : "-",
	       next);
	return 0;
}

/* A show of one slice (do) or all (dump). */
static int ctl_show(struct ctl_req *req, uint8_t cmd, int id_attr, int maxattr, int argc,
		    char **argv, ctl_row_t row, const char *usage)
{
	uint32_t id;

	if (argc > 1 || (argc == 1 && word_u32("slice", argv[0], 255, &id)))
		return argc > 1 ? usage_error("%s", usage) : CTL_EXIT_USAGE;
	ctl_req_msg(req, cmd, !argc);
	if (argc) {
		ctl_subject_begin(req, "slice %u", id);
		nla_put_u32(req->msg, id_attr, id);
		ctl_subject_end(req);
	}
	req->maxattr = maxattr;
	req->row = row;
	req->list = true;
	return 0;
}

/* A setting that takes a number: its attribute and the range the module takes. */
struct ctl_number {
	const char *name;
	int attr;
	uint32_t min, max;
};

/*
 * The ranges are uapi/netslice.yaml's checks of each attribute, which
 * tests/spec_check.py holds this table to.
 */
static const struct ctl_number ctl_numbers[] = {
	{ "batch", NETSLICE_A_SLICE_BATCH_MAX, 1, NETSLICE_MAX_BATCH },
	{ "rxq-size", NETSLICE_A_SLICE_RXQ_SIZE, 2, 65536 },
	{ "store-size", NETSLICE_A_SLICE_STORE_SIZE, 1, 65536 },
	{ "store-timeout", NETSLICE_A_SLICE_STORE_TIMEOUT_MS, 1, 600000 },
};

/* The number setting key names, or NULL. */
static const struct ctl_number *ctl_slice_number(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(ctl_numbers) / sizeof(ctl_numbers[0]); i++)
		if (word_is(key, ctl_numbers[i].name))
			return &ctl_numbers[i];
	return NULL;
}

/*
 * "slicing fixed LEN" and "slicing auto EXTRA", the spelling before "cut"
 * took the NFs' one: mode and number only, trim and gso as they were.
 * Deprecated.
 */
static int ctl_cut_old(struct nl_msg *msg, int argc, char **argv, int *i)
{
	const char *mode = argv[*i + 1];
	bool fixed = word_is(mode, "fixed");
	uint32_t v;

	if (word_range(fixed ? "fixed length" : "auto extra", *i + 2 < argc ? argv[*i + 2] : NULL,
		      fixed ? 1 : 0, fixed ? NETSLICE_MAX_HEADER : NETSLICE_MAX_EXTRA, &v))
		return -1;
	msg_line("netslicectl: \"slicing %s %s\" is deprecated: write \"cut %s%s%s\"", mode,
		 argv[*i + 2], mode, fixed ? ":" : "+", argv[*i + 2]);
	nla_put_u32(msg, NETSLICE_A_SLICE_CUT_MODE,
		    fixed ? NETSLICE_CUT_MODE_FIXED : NETSLICE_CUT_MODE_AUTO);
	nla_put_u32(msg, fixed ? NETSLICE_A_SLICE_CUT_LENGTH : NETSLICE_A_SLICE_CUT_EXTRA, v);
	*i += 2;
	return 0;
}

/* Settings renamed in 0.6, still read for one release. */
static const struct { const char *old, *now; } ctl_renamed[] = {
	{ "slicing", "cut" },
	{ "ring-size", "rxq-size" },
};

/* The new word for an old one, noted in *seen; any other word as it is. */
static const char *ctl_slice_word(const char *key, unsigned int *seen)
{
	size_t i;

	for (i = 0; i < sizeof(ctl_renamed) / sizeof(ctl_renamed[0]); i++) {
		if (word_is(key, ctl_renamed[i].old)) {
			*seen |= 1u << i;
			return ctl_renamed[i].now;
		}
	}
	return key;
}

/* Once the command is good (a usage error stays one line): the old words it used. */
static void ctl_renamed_said(unsigned int seen)
{
	size_t i;

	for (i = 0; i < sizeof(ctl_renamed) / sizeof(ctl_renamed[0]); i++)
		if (seen & 1u << i)
			fprintf(stderr, "netslicectl: \"%s\" is deprecated: write \"%s\"\n",
				ctl_renamed[i].old, ctl_renamed[i].now);
}

/* The old spelling: "fixed" (its length follows), or "auto" and a number. */
static bool ctl_cut_is_old(int argc, char **argv, int i)
{
	const char *next = i + 2 < argc ? argv[i + 2] : "";

	return word_is(argv[i + 1], "fixed") ||
	       (word_is(argv[i + 1], "auto") && next[0] >= '0' && next[0] <= '9');
}

/*
 * "cut MODE", as the NFs' -m spells it: the whole of it (mode, length
 * or extra, trim and gso), but for a trim or gso setting of its own,
 * which has the last word.
 */
static void ctl_cut_put(struct nl_msg *msg, const struct netslice_cut *mode, int trim,
			    int gso)
{
	nla_put_u32(msg, NETSLICE_A_SLICE_CUT_MODE, ctl_ioctl_modes[mode->mode]);
	if (mode->mode == NETSLICE_CUT_FIXED)
		nla_put_u32(msg, NETSLICE_A_SLICE_CUT_LENGTH, mode->length);
	if (mode->mode == NETSLICE_CUT_AUTO)
		nla_put_u32(msg, NETSLICE_A_SLICE_CUT_EXTRA, mode->extra);
	if (trim < 0)
		nla_put_u8(msg, NETSLICE_A_SLICE_CUT_TRIM, !!(mode->flags & NETSLICE_CUT_TRIM));
	if (gso < 0)
		nla_put_u8(msg, NETSLICE_A_SLICE_CUT_GSO, !!(mode->flags & NETSLICE_CUT_GSO));
}

static int ctl_slice_set(int argc, char **argv, struct ctl_req *req)
{
	uint32_t id, v, flags = 0, flags_set = 0;
	unsigned int renamed = 0;
	struct nl_msg *msg, *settings;
	const struct ctl_number *number;
	struct netslice_cut mode;
	bool on, none, have_mode = false;
	int trim = -1, gso = -1;
	int i;

	if (argc < 1 || word_u32("slice", argv[0], 255, &id))
		return argc < 1 ? usage_error("slice set takes N and settings") : CTL_EXIT_USAGE;
	/* The settings, parsed whole before anything is sent. */
	msg = nlmsg_alloc();
	if (!msg) {
		fprintf(stderr, "netslicectl: out of memory\n");
		return CTL_EXIT_USAGE;
	}
	for (i = 1; i < argc; i++) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (word_is(key, "slicing") && val && ctl_cut_is_old(argc, argv, i)) {
			if (ctl_cut_old(msg, argc, argv, &i))
				goto err_usage;
			continue;
		}
		key = ctl_slice_word(key, &renamed);
		if (word_is(key, "cut")) {
			if (!val || have_mode || ns_cut_parse(val, &mode)) {
				usage_error("cut takes one MODE: off, auto[+EXTRA] or "
						"fixed:LEN, then ,trim and ,gso (\"%s\")",
						val ? val : "");
				goto err_usage;
			}
			have_mode = true;
			i++;
		} else if (word_is(key, "trim") || word_is(key, "gso")) {
			if (word_on_off(key, val, &on))
				goto err_usage;
			*(word_is(key, "trim") ? &trim : &gso) = on;
			nla_put_u8(msg, word_is(key, "trim") ? NETSLICE_A_SLICE_CUT_TRIM :
				   NETSLICE_A_SLICE_CUT_GSO, on);
			i++;
		} else if ((number = ctl_slice_number(key))) {
			/* An error names the word given (an old one too). */
			if (word_range(argv[i], val, number->min, number->max, &v))
				goto err_usage;
			nla_put_u32(msg, number->attr, v);
			i++;
		} else if (word_is(key, "multi-read") || word_is(key, "multi-write")) {
			uint32_t bit = word_is(key, "multi-read") ? NETSLICE_BATCH_FLAGS_MULTI_READ :
								  NETSLICE_BATCH_FLAGS_MULTI_WRITE;

			if (word_on_off(key, val, &on))
				goto err_usage;
			flags_set |= bit;
			flags = on ? flags | bit : flags & ~bit;
			i++;
		} else if (word_is(key, "next")) {
			/* Its chain (netslicectl chain): the next slice, or none. */
			if (word_u32_none("next", val, NETSLICE_MAX_SLICES - 1, &v, &none))
				goto err_usage;
			if (none)
				nla_put_flag(msg, NETSLICE_A_SLICE_CHAIN_END);
			else
				nla_put_u32(msg, NETSLICE_A_SLICE_CHAIN_NEXT, v);
			i++;
		} else if (word_is(key, "kernel-cpus") || word_is(key, "user-cpus")) {
			if (!val) {
				usage_error("%s needs a CPU list", key);
				goto err_usage;
			}
			nla_put_string(msg, word_is(key, "kernel-cpus") ? NETSLICE_A_SLICE_KERNEL_CPUS :
				       NETSLICE_A_SLICE_USER_CPUS, val);
			i++;
		} else {
			usage_error("slice set: unknown setting \"%s\"", key);
			goto err_usage;
		}
	}
	if (argc == 1) {
		usage_error("slice set %u: nothing to set", id);
		goto err_usage;
	}
	ctl_renamed_said(renamed);
	if (have_mode)
		ctl_cut_put(msg, &mode, trim, gso);
	settings = msg;
	msg = ctl_req_msg(req, NETSLICE_CMD_SLICE_SET, false);
	ctl_subject_begin(req, "slice %u", id);
	nla_put_u32(msg, NETSLICE_A_SLICE_ID, id);
	nlmsg_append(msg, nlmsg_data(nlmsg_hdr(settings)), nlmsg_datalen(nlmsg_hdr(settings)), 0);
	nlmsg_free(settings);
	if (flags_set) {
		/* The selector names only the flags given: the others stay as they are. */
		struct nla_bitfield32 bf = { .value = flags, .selector = flags_set };

		nla_put(msg, NETSLICE_A_SLICE_BATCH_FLAGS, sizeof(bf), &bf);
	}
	ctl_subject_end(req);
	return 0;

err_usage:
	nlmsg_free(msg);
	return CTL_EXIT_USAGE;
}

int ctl_slice(int argc, char **argv, struct ctl_req *req)
{
	if (!argc || word_is(argv[0], "show") || word_is(argv[0], "list"))
		return ctl_show(req, NETSLICE_CMD_SLICE_GET, NETSLICE_A_SLICE_ID,
				NETSLICE_A_SLICE_MAX, argc ? argc - 1 : 0, argv + 1, ctl_slice_row,
				"slice show takes [N]");
	if (word_is(argv[0], "set"))
		return ctl_slice_set(argc - 1, argv + 1, req);
	return usage_error("slice: unknown command \"%s\"", argv[0]);
}

/*
 * The brief view: what came in, what user space got, what left (out of
 * an interface, or on to the next slice of a chain), drops.
 */
static const int ctl_brief[] = {
	NETSLICE_A_COUNTERS_RX_PACKETS, NETSLICE_A_COUNTERS_READ_PACKETS,
	NETSLICE_A_COUNTERS_TX_PACKETS, NETSLICE_A_COUNTERS_TX_CHAINED,
	NETSLICE_A_COUNTERS_RX_DROP_RING_FULL,
	NETSLICE_A_COUNTERS_RX_DROP_NO_READER,
};

static int ctl_stats_row(struct nlattr **tb, uint8_t cmd, struct ctl_req *req)
{
	struct nlattr *c[NETSLICE_A_COUNTERS_MAX + 1];
	unsigned int i, n = ns_stat_count();
	uint64_t v[64] = { 0 };

	(void)cmd;
	if (!tb[NETSLICE_A_STATS_SLICE] || !tb[NETSLICE_A_STATS_COUNTERS] ||
	    nla_parse_nested(c, NETSLICE_A_COUNTERS_MAX, tb[NETSLICE_A_STATS_COUNTERS], NULL))
		return 0;
	for (i = 0; i < n && i < NETSLICE_A_COUNTERS_PAD - 1; i++)
		v[i] = c[i + 1] ? nla_get_u64(c[i + 1]) : 0;
	if (view.json) {
		json_open(&view.j, NULL, '{');
		json_u64(&view.j, "slice", nla_get_u32(tb[NETSLICE_A_STATS_SLICE]));
		for (i = 0; i < n; i++)
			json_u64(&view.j, ns_stat_name(i), v[i]);
		json_close(&view.j, '}');
		return 0;
	}
	if (view.stats) {
		printf("slice %u:\n", nla_get_u32(tb[NETSLICE_A_STATS_SLICE]));
		for (i = 0; i < n; i++)
			printf("    %-20s %" PRIu64 "\n", ns_stat_name(i), v[i]);
		return 0;
	}
	if (!req->shown++) {
		printf("%-5s", "SLICE");
		for (i = 0; i < sizeof(ctl_brief) / sizeof(ctl_brief[0]); i++)
			printf(" %18s", ns_stat_name(ctl_brief[i] - 1));
		printf("\n");
	}
	printf("%-5u", nla_get_u32(tb[NETSLICE_A_STATS_SLICE]));
	/* Attribute N + 1 is counter N. */
	for (i = 0; i < sizeof(ctl_brief) / sizeof(ctl_brief[0]); i++)
		printf(" %18" PRIu64, v[ctl_brief[i] - 1]);
	printf("\n");
	return 0;
}

int ctl_stats(int argc, char **argv, struct ctl_req *req)
{
	uint32_t id;

	if (argc && word_is(argv[0], "show")) {
		argc--;
		argv++;
	}
	if (argc && word_is(argv[0], "reset")) {
		if (argc != 1 && (argc != 3 || !word_is(argv[1], "slice")))
			return usage_error("stats reset takes [slice N]");
		if (argc == 3 && word_u32("slice", argv[2], 255, &id))
			return CTL_EXIT_USAGE;
		ctl_req_msg(req, NETSLICE_CMD_STATS_RESET, false);
		if (argc == 3) {
			ctl_subject_begin(req, "slice %u", id);
			nla_put_u32(req->msg, NETSLICE_A_STATS_SLICE, id);
			ctl_subject_end(req);
		}
		return 0;
	}
	if (argc && word_is(argv[0], "slice")) {
		argc--;
		argv++;
	}
	return ctl_show(req, NETSLICE_CMD_STATS_GET, NETSLICE_A_STATS_SLICE, NETSLICE_A_STATS_MAX,
			argc, argv, ctl_stats_row, "stats takes [slice N] or reset [slice N]");
}
