// SPDX-License-Identifier: GPL-2.0
/*
 * netslicectl link and monitor: attach and detach interfaces, list them,
 * and print attach/detach notifications as they come.
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <linux/netslice_netlink.h>

#include "ctl.h"

static const char *const ctl_reasons[] = {
	[NETSLICE_DETACH_REASON_REQUEST] = "request",
	[NETSLICE_DETACH_REASON_UNREGISTER] = "unregister",
	[NETSLICE_DETACH_REASON_UNLOAD] = "unload",
};

struct ctl_link_filter {
	const char *dev;
	unsigned int shown;
	bool event;
};

static void ctl_link_print(struct nlattr **tb, uint8_t cmd, struct ctl_link_filter *f)
{
	uint32_t first = nla_get_u32(tb[NETSLICE_A_LINK_SLICE_FIRST]);
	uint32_t last = first + nla_get_u32(tb[NETSLICE_A_LINK_SLICE_COUNT]) - 1;
	uint32_t peer = nla_get_u32(tb[NETSLICE_A_LINK_PEER_IFINDEX]);
	uint32_t ifindex = nla_get_u32(tb[NETSLICE_A_LINK_IFINDEX]);
	const char *name = nla_get_string(tb[NETSLICE_A_LINK_IFNAME]);
	bool hashed = tb[NETSLICE_A_LINK_HASHED];
	char peer_name[IF_NAMESIZE] = "";
	const char *event = cmd == NETSLICE_CMD_LINK_ATTACH_NTF ? "attach" : "detach";
	uint32_t reason = tb[NETSLICE_A_LINK_REASON] ? nla_get_u32(tb[NETSLICE_A_LINK_REASON]) : 0;

	if (peer && peer != ifindex && !if_indextoname(peer, peer_name))
		snprintf(peer_name, sizeof(peer_name), "if%u", peer);
	f->shown++;
	if (ctl.json) {
		if (f->event) {
			json_open(&ctl.j, NULL, '{');
			json_str(&ctl.j, "event", event);
		} else {
			json_open(&ctl.j, NULL, '{');
		}
		json_u64(&ctl.j, "ifindex", ifindex);
		json_str(&ctl.j, "dev", name);
		json_u64(&ctl.j, "peer_ifindex", peer);
		if (*peer_name)
			json_str(&ctl.j, "peer", peer_name);
		json_u64(&ctl.j, "slice_first", first);
		json_u64(&ctl.j, "slice_count", last - first + 1);
		json_str(&ctl.j, "steering", hashed ? "hash" : "queue");
		json_u64(&ctl.j, "rx_queues", nla_get_u32(tb[NETSLICE_A_LINK_RX_QUEUES]));
		if (cmd == NETSLICE_CMD_LINK_DETACH_NTF && reason < 3)
			json_str(&ctl.j, "reason", ctl_reasons[reason]);
		json_close(&ctl.j, '}');
		if (f->event)
			json_end(&ctl.j);
		return;
	}
	if (f->event) {
		printf("%s dev %s", event, name);
		if (*peer_name)
			printf(" peer %s", peer_name);
		printf(" slices %u-%u", first, last);
		if (cmd == NETSLICE_CMD_LINK_DETACH_NTF && reason < 3)
			printf(" reason %s", ctl_reasons[reason]);
		printf("\n");
		fflush(stdout);
		return;
	}
	if (f->shown == 1)
		printf("%-7s %-16s %-16s %-9s %-8s %s\n", "IFINDEX", "DEV", "PEER", "SLICES",
		       "RXQUEUES", "STEERING");
	printf("%-7u %-16s %-16s %u-%-7u %-8u %s\n", ifindex, name, *peer_name ? peer_name : "-",
	       first, last, nla_get_u32(tb[NETSLICE_A_LINK_RX_QUEUES]),
	       hashed ? "hash" : "queue");
}

static int ctl_link_row(struct nlattr **tb, uint8_t cmd, void *arg)
{
	struct ctl_link_filter *f = arg;

	if (!tb[NETSLICE_A_LINK_IFINDEX] || !tb[NETSLICE_A_LINK_IFNAME] ||
	    !tb[NETSLICE_A_LINK_SLICE_FIRST] || !tb[NETSLICE_A_LINK_SLICE_COUNT] ||
	    !tb[NETSLICE_A_LINK_PEER_IFINDEX] || !tb[NETSLICE_A_LINK_RX_QUEUES])
		return 0;
	if (f->dev && strcmp(f->dev, nla_get_string(tb[NETSLICE_A_LINK_IFNAME])))
		return 0;
	ctl_link_print(tb, cmd, f);
	return 0;
}

static int ctl_link_show(int argc, char **argv)
{
	struct ctl_link_filter f = { 0 };
	int err;

	if (argc == 2 && ctl_is(argv[0], "dev"))
		f.dev = argv[1];
	else if (argc)
		return ctl_usage_error("link show takes [dev NAME]");
	if (ctl.json)
		json_open(&ctl.j, NULL, '[');
	err = ctl_do(ctl_msg(NETSLICE_CMD_LINK_GET, true), NETSLICE_A_LINK_MAX, ctl_link_row, &f);
	if (ctl.json) {
		json_close(&ctl.j, ']');
		json_end(&ctl.j);
	}
	if (err)
		return CTL_EXIT_KERNEL;
	if (f.dev && !f.shown) {
		msg_line("%sError: dev %s: interface is not attached.", ctl.where, f.dev);
		return CTL_EXIT_KERNEL;
	}
	return 0;
}

static int ctl_put_dev(struct nl_msg *msg, int attr, const char *role, const char *name)
{
	if (strlen(name) >= IF_NAMESIZE)
		return ctl_usage_error("%s \"%s\": interface names are at most %d characters", role,
				       name, IF_NAMESIZE - 1);
	ctl_subject_begin(msg, "%s %s", role, name);
	nla_put_string(msg, attr, name);
	ctl_subject_end(msg);
	return 0;
}

/* "A" or "A-B" as first and count. */
static int ctl_slice_range(const char *s, uint32_t *first, uint32_t *count)
{
	char buf[32], *dash;
	uint32_t last;

	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (ctl_u32("slices", buf, 255, first) ||
	    ctl_u32("slices", dash ? dash : buf, 255, &last))
		return -1;
	if (last < *first) {
		ctl_usage_error("slices %s: the range is backwards", s);
		return -1;
	}
	*count = last - *first + 1;
	return 0;
}

static int ctl_link_attach(int argc, char **argv)
{
	struct nl_msg *msg = ctl_msg(NETSLICE_CMD_LINK_ATTACH, false);
	uint32_t first, count;
	bool dev = false;
	int i;

	for (i = 0; i + 1 < argc; i += 2) {
		if (ctl_is(argv[i], "dev") && !dev) {
			if (ctl_put_dev(msg, NETSLICE_A_LINK_IFNAME, "dev", argv[i + 1]))
				goto err_usage;
			dev = true;
		} else if (ctl_is(argv[i], "peer")) {
			if (ctl_put_dev(msg, NETSLICE_A_LINK_PEER_IFNAME, "peer", argv[i + 1]))
				goto err_usage;
		} else if (ctl_is(argv[i], "slices")) {
			if (ctl_slice_range(argv[i + 1], &first, &count))
				goto err_usage;
			ctl_subject_begin(msg, "slices %s", argv[i + 1]);
			nla_put_u32(msg, NETSLICE_A_LINK_SLICE_FIRST, first);
			nla_put_u32(msg, NETSLICE_A_LINK_SLICE_COUNT, count);
			ctl_subject_end(msg);
		} else {
			break;
		}
	}
	if (i != argc || !dev) {
		nlmsg_free(msg);
		return ctl_usage_error("link attach takes dev NAME [peer NAME] [slices A[-B]]");
	}
	return ctl_do(msg, 0, NULL, NULL) ? CTL_EXIT_KERNEL : 0;

err_usage:
	nlmsg_free(msg);
	return CTL_EXIT_USAGE;
}

static int ctl_link_detach(int argc, char **argv)
{
	struct nl_msg *msg;

	if (argc != 2 || !ctl_is(argv[0], "dev"))
		return ctl_usage_error("link detach takes dev NAME");
	msg = ctl_msg(NETSLICE_CMD_LINK_DETACH, false);
	if (ctl_put_dev(msg, NETSLICE_A_LINK_IFNAME, "dev", argv[1])) {
		nlmsg_free(msg);
		return CTL_EXIT_USAGE;
	}
	return ctl_do(msg, 0, NULL, NULL) ? CTL_EXIT_KERNEL : 0;
}

int ctl_link(int argc, char **argv)
{
	if (!argc || ctl_is(argv[0], "show") || ctl_is(argv[0], "list"))
		return ctl_link_show(argc ? argc - 1 : 0, argv + 1);
	if (ctl_is(argv[0], "attach"))
		return ctl_link_attach(argc - 1, argv + 1);
	if (ctl_is(argv[0], "detach"))
		return ctl_link_detach(argc - 1, argv + 1);
	return ctl_usage_error("link: unknown command \"%s\"", argv[0]);
}

static int ctl_monitor_event(struct nlattr **tb, uint8_t cmd, void *arg)
{
	if (cmd != NETSLICE_CMD_LINK_ATTACH_NTF && cmd != NETSLICE_CMD_LINK_DETACH_NTF)
		return 0;
	return ctl_link_row(tb, cmd, arg);
}

int ctl_monitor(int argc, char **argv)
{
	struct ctl_link_filter f = { .event = true };

	(void)argv;
	if (argc)
		return ctl_usage_error("monitor takes no arguments");
	return ctl_listen(NETSLICE_A_LINK_MAX, ctl_monitor_event, &f) ? CTL_EXIT_KERNEL : 0;
}
