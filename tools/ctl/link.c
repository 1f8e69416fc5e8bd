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
#include "link.h"
#include "msg.h"
#include "usage.h"
#include "view.h"
#include "word.h"

static const char *const ctl_reasons[] = {
	[NETSLICE_DETACH_REASON_REQUEST] = "request",
	[NETSLICE_DETACH_REASON_UNREGISTER] = "unregister",
	[NETSLICE_DETACH_REASON_UNLOAD] = "unload",
};

/* A link, or an attach or detach event (req->listen). */
static void ctl_link_print(struct nlattr **tb, uint8_t cmd, struct ctl_req *req)
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
	req->shown++;
	if (view.json) {
		if (req->listen) {
			json_open(&view.j, NULL, '{');
			json_str(&view.j, "event", event);
		} else {
			json_open(&view.j, NULL, '{');
		}
		json_u64(&view.j, "ifindex", ifindex);
		json_str(&view.j, "dev", name);
		json_u64(&view.j, "peer_ifindex", peer);
		if (*peer_name)
			json_str(&view.j, "peer", peer_name);
		json_u64(&view.j, "slice_first", first);
		json_u64(&view.j, "slice_count", last - first + 1);
		json_str(&view.j, "steering", hashed ? "hash" : "queue");
		json_u64(&view.j, "rx_queues", nla_get_u32(tb[NETSLICE_A_LINK_RX_QUEUES]));
		if (cmd == NETSLICE_CMD_LINK_DETACH_NTF && reason < 3)
			json_str(&view.j, "reason", ctl_reasons[reason]);
		json_close(&view.j, '}');
		if (req->listen)
			json_end(&view.j);
		return;
	}
	if (req->listen) {
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
	if (req->shown == 1)
		printf("%-7s %-16s %-16s %-9s %-8s %s\n", "IFINDEX", "DEV", "PEER", "SLICES",
		       "RXQUEUES", "STEERING");
	printf("%-7u %-16s %-16s %u-%-7u %-8u %s\n", ifindex, name, *peer_name ? peer_name : "-",
	       first, last, nla_get_u32(tb[NETSLICE_A_LINK_RX_QUEUES]),
	       hashed ? "hash" : "queue");
}

static int ctl_link_row(struct nlattr **tb, uint8_t cmd, struct ctl_req *req)
{
	if (!tb[NETSLICE_A_LINK_IFINDEX] || !tb[NETSLICE_A_LINK_IFNAME] ||
	    !tb[NETSLICE_A_LINK_SLICE_FIRST] || !tb[NETSLICE_A_LINK_SLICE_COUNT] ||
	    !tb[NETSLICE_A_LINK_PEER_IFINDEX] || !tb[NETSLICE_A_LINK_RX_QUEUES])
		return 0;
	if (req->dev && strcmp(req->dev, nla_get_string(tb[NETSLICE_A_LINK_IFNAME])))
		return 0;
	ctl_link_print(tb, cmd, req);
	return 0;
}

/* link show dev NAME: a dump without it is an error, as ip's. */
static int ctl_link_shown(struct ctl_req *req)
{
	if (req->dev && !req->shown) {
		msg_line("%sError: dev %s: interface is not attached.", usage_at.where, req->dev);
		return CTL_EXIT_KERNEL;
	}
	return 0;
}

static int ctl_link_show(int argc, char **argv, struct ctl_req *req)
{
	if (argc == 2 && word_is(argv[0], "dev"))
		req->dev = argv[1];
	else if (argc)
		return usage_error("link show takes [dev NAME]");
	ctl_req_msg(req, NETSLICE_CMD_LINK_GET, true);
	req->maxattr = NETSLICE_A_LINK_MAX;
	req->row = ctl_link_row;
	req->list = true;
	req->done = ctl_link_shown;
	return 0;
}

static int ctl_put_dev(struct ctl_req *req, int attr, const char *role, const char *name)
{
	if (strlen(name) >= IF_NAMESIZE)
		return usage_error("%s \"%s\": interface names are at most %d characters", role,
				       name, IF_NAMESIZE - 1);
	ctl_subject_begin(req, "%s %s", role, name);
	nla_put_string(req->msg, attr, name);
	ctl_subject_end(req);
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
	if (word_u32("slices", buf, 255, first) ||
	    word_u32("slices", dash ? dash : buf, 255, &last))
		return -1;
	if (last < *first) {
		usage_error("slices %s: the range is backwards", s);
		return -1;
	}
	*count = last - *first + 1;
	return 0;
}

static int ctl_link_attach(int argc, char **argv, struct ctl_req *req)
{
	struct nl_msg *msg = ctl_req_msg(req, NETSLICE_CMD_LINK_ATTACH, false);
	uint32_t first, count;
	bool dev = false;
	int i;

	for (i = 0; i + 1 < argc; i += 2) {
		if (word_is(argv[i], "dev") && !dev) {
			if (ctl_put_dev(req, NETSLICE_A_LINK_IFNAME, "dev", argv[i + 1]))
				return CTL_EXIT_USAGE;
			dev = true;
		} else if (word_is(argv[i], "peer")) {
			if (ctl_put_dev(req, NETSLICE_A_LINK_PEER_IFNAME, "peer", argv[i + 1]))
				return CTL_EXIT_USAGE;
		} else if (word_is(argv[i], "slices")) {
			if (ctl_slice_range(argv[i + 1], &first, &count))
				return CTL_EXIT_USAGE;
			ctl_subject_begin(req, "slices %s", argv[i + 1]);
			nla_put_u32(msg, NETSLICE_A_LINK_SLICE_FIRST, first);
			nla_put_u32(msg, NETSLICE_A_LINK_SLICE_COUNT, count);
			ctl_subject_end(req);
		} else {
			break;
		}
	}
	if (i != argc || !dev)
		return usage_error("link attach takes dev NAME [peer NAME] [slices A[-B]]");
	return 0;
}

static int ctl_link_detach(int argc, char **argv, struct ctl_req *req)
{
	if (argc != 2 || !word_is(argv[0], "dev"))
		return usage_error("link detach takes dev NAME");
	ctl_req_msg(req, NETSLICE_CMD_LINK_DETACH, false);
	return ctl_put_dev(req, NETSLICE_A_LINK_IFNAME, "dev", argv[1]) ? CTL_EXIT_USAGE : 0;
}

int ctl_link(int argc, char **argv, struct ctl_req *req)
{
	if (!argc || word_is(argv[0], "show") || word_is(argv[0], "list"))
		return ctl_link_show(argc ? argc - 1 : 0, argv + 1, req);
	if (word_is(argv[0], "attach"))
		return ctl_link_attach(argc - 1, argv + 1, req);
	if (word_is(argv[0], "detach"))
		return ctl_link_detach(argc - 1, argv + 1, req);
	return usage_error("link: unknown command \"%s\"", argv[0]);
}

static int ctl_monitor_event(struct nlattr **tb, uint8_t cmd, struct ctl_req *req)
{
	if (cmd != NETSLICE_CMD_LINK_ATTACH_NTF && cmd != NETSLICE_CMD_LINK_DETACH_NTF)
		return 0;
	return ctl_link_row(tb, cmd, req);
}

int ctl_monitor(int argc, char **argv, struct ctl_req *req)
{
	(void)argv;
	if (argc)
		return usage_error("monitor takes no arguments");
	req->listen = true;
	req->maxattr = NETSLICE_A_LINK_MAX;
	req->row = ctl_monitor_event;
	return 0;
}
