// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-nat: IPv4 source NAT (masquerade behind one public address, port
 * allocation) and destination NAT (port forwarding) for TCP, UDP and ICMP
 * echo, with a connection table and timeouts. Headers only: every rewrite
 * fixes checksums incrementally, so cut packets need no payload.
 *
 * The NF stands between an inside and an outside interface as the inside
 * hosts' router, and owns the public address on the outside. ARP never
 * crosses: outside, the NF answers for the public address only (with the
 * outside interface's MAC); inside, it answers for its inside address
 * (--inside-address), or without one for any address not of a known
 * inside host (a point-to-point inside link). Translated packets leave
 * from the interface's MAC to the next hop's (the destination, or
 * --gateway), learned from ARP and inbound traffic; a packet for a next
 * hop not yet known asks by ARP and waits for the answer (nat_hold), while
 * the first packet of a port forward to an inside host not heard from is
 * dropped (the sender retries).
 *
 * RFC 4787/5508/7857 behaviour: a public port per connection (not the
 * endpoint-independent mapping 4787 asks for); address-and-port-dependent
 * filtering (only the remote endpoint of a connection reaches its public
 * port); unsolicited
 * outside IPv4 for any other address than the public one is dropped
 * (--pass-outside passes it); ICMP errors about a translated connection
 * are translated both ways, quoted header, ports and checksums included,
 * so path MTU discovery works through the NAT. IPv4 that cannot be
 * translated (other protocols, fragments) is dropped and counted; so is
 * everything else but ARP (IPv6 included: an IPv4 router does not bridge
 * it across).
 *
 * As a router (RFC 1812) it takes in no martian, multicast or broadcast
 * packet, nor a frame sent to a broadcast MAC or another host's
 * (nat_refusal(), each reason counted); it decrements the TTL of what it
 * forwards (translated packets and ICMP errors), answers one that would
 * expire with ICMP time exceeded from the address the sender knows
 * (public outside, inside address or public inside), answers pings to its
 * own addresses, and sends everything from its own MAC on each side. A
 * connection from inside to the public address (hairpin, RFC 4787 REQ-9)
 * is not supported: dropped and counted, never sent out from and to one
 * address.
 *
 * Each worker keeps the connections it opens in its own part of the table
 * (docs/nfs.md, "nf-nat on several slices"): a new connection's return
 * flow gets a steering rule to the worker's slice, committed before the
 * batch that opens it is written, so an established flow's two
 * directions meet in one worker and no state is shared for them. Public
 * ports are claimed atomically from one space, each worker's share first.
 * What still crosses parts, under the other part's lock: ICMP (no rule
 * tells echo identifiers apart), a port forward's answer before its rule,
 * and every return flow when rules are off (--no-rules, one worker,
 * offline, or a module that refuses them).
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "nat_packet.h"
#include "nat_router.h"
#include "nat_table.h"

static struct nat nat_state = {
	.port_lo = 20000,
	.port_hi = 59999,
	.max_conns = 65536,
	.timeout = { 7440, 240, 300, 60 },
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Refused by a router's rules (RFC 1812): the counter's HELP. */
static void nat_refusal_help(char *help, size_t len, unsigned int i)
{
	snprintf(help, len, "Packets not forwarded: %s.", nat_refusal_names[i].why);
}

static void nat_report(struct json *j, FILE *f, void *arg)
{
	static const struct {
		const char *name, *help;
	} counters[] = {
		{ "created", "Connections made." },
		{ "expired", "Connections timed out." },
		{ "out_packets", "Packets translated on the way out." },
		{ "in_packets", "Packets translated on the way in." },
		{ "icmp_errors", "ICMP errors translated." },
		{ "arp_answered", "ARP requests for the public address answered." },
		{ "arp_answered_inside", "ARP requests for the inside address answered." },
		{ "arp_probes", "ARP requests sent inside." },
		{ "arp_probes_outside", "ARP requests sent outside." },
		{ "dropped_arp", "ARP packets dropped." },
		{ "dropped_no_conn", "Packets in dropped: no connection of theirs." },
		{ "dropped_not_public", "Packets in dropped: not to the public address." },
		{ "dropped_no_mac", "Packets dropped: no MAC known for the next hop." },
		{ "dropped_untranslatable", "Packets dropped: a protocol nf-nat cannot translate." },
		{ "dropped_fragments", "Fragments dropped." },
		{ "dropped_no_ports", "Packets out dropped: no public port was free." },
		{ "dropped_table_full", "Packets out dropped: the connection table was full." },
		{ "dropped_malformed", "Packets dropped: malformed." },
		{ "passed", "Packets passed on untranslated: another pair's, or --pass-outside." },
		{ "held_for_arp", "Packets held while their next hop's MAC was asked." },
		{ "held_sent", "Held packets sent once the MAC was known." },
		{ "neighbours_full", "Neighbours not learnt: the table was full." },
		{ "dropped_not_ipv4", "Packets dropped: not IPv4." },
		{ "ttl_expired", "Packets whose TTL ran out: time exceeded sent." },
		{ "echo_answered", "Pings to nf-nat's own addresses answered." },
		{ "dropped_hairpin", "Packets from inside to nf-nat's own address dropped." },
		{ "foreign", "Packets of a connection another slice owns." },
		{ "rules_set", "Steering rules set." },
		{ "rules_deleted", "Steering rules deleted." },
		{ "rule_errors", "Steering rules the module refused." },
	};
	struct nat *nat = arg;
	struct nat_counts t = { 0 };
	unsigned long active = 0;
	unsigned int i, p;
	char help[96];

	for (p = 0; p < nat->nr_parts; p++) {
		const struct nat_counts *n = &nat->parts[p].n;

		pthread_mutex_lock(&nat->parts[p].lock);
		active += nat->parts[p].active;
		/* Every member a uint64_t: added as the array they are laid out as. */
		for (i = 0; i < sizeof(t) / sizeof(uint64_t); i++)
			((uint64_t *)&t)[i] += ((const uint64_t *)n)[i];
		pthread_mutex_unlock(&nat->parts[p].lock);
	}
	{
		const uint64_t v[] = {
			t.created, t.expired, t.out_packets, t.in_packets, t.icmp_errors,
			t.arp_answered, t.arp_answered_inside, nat->neigh.probes,
			nat->out_neigh.probes, t.arp_dropped, t.no_conn, t.not_public,
			t.no_mac, t.untranslatable, t.fragments, t.no_ports, t.table_full,
			t.malformed, t.passed, t.held_arp, t.held_sent,
			nat->neigh.overflow + nat->out_neigh.overflow, t.not_ipv4, t.ttl_expired,
			t.echo_answered, t.hairpin, t.foreign, t.rules_set, t.rules_deleted,
			t.rule_errors,
		};
		const unsigned int nv = sizeof(v) / sizeof(v[0]);

		_Static_assert(sizeof(v) / sizeof(v[0]) == sizeof(counters) / sizeof(counters[0]),
			       "a name for every counter");
		if (j)
			json_gauge(j, "active", active, "Connections in the table.");
		else
			fprintf(f, "  connections: %lu active", active);
		/* Then what a router refuses, each reason its own counter. */
		for (i = 0; i < nv + NAT_REFUSALS; i++) {
			const char *name = i < nv ? counters[i].name :
					   nat_refusal_names[i - nv].counter;
			uint64_t value = i < nv ? v[i] : t.refused[i - nv];

			if (j && i < nv) {
				json_counter(j, name, value, counters[i].help);
			} else if (j) {
				nat_refusal_help(help, sizeof(help), i - nv);
				json_counter(j, name, value, help);
			} else {
				fprintf(f, "%s%s %llu", i % 4 ? ", " : "\n  ", name,
					(unsigned long long)value);
			}
		}
		if (!j)
			fputc('\n', f);
	}
}

enum {
	OPT_INSIDE = NF_OPT_BASE, OPT_OUTSIDE, OPT_PUBLIC, OPT_PORTS, OPT_FORWARD, OPT_MAX_CONNS,
	OPT_TIMEOUT_TCP, OPT_TIMEOUT_TRANSITORY, OPT_TIMEOUT_UDP, OPT_TIMEOUT_ICMP,
	OPT_INSIDE_ADDRESS, OPT_GATEWAY, OPT_PASS_OUTSIDE, OPT_NO_RULES,
};

static const struct option nat_options[] = {
	{ "inside", required_argument, NULL, OPT_INSIDE },
	{ "outside", required_argument, NULL, OPT_OUTSIDE },
	{ "public", required_argument, NULL, OPT_PUBLIC },
	{ "ports", required_argument, NULL, OPT_PORTS },
	{ "forward", required_argument, NULL, OPT_FORWARD },
	{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
	{ "timeout-tcp", required_argument, NULL, OPT_TIMEOUT_TCP },
	{ "timeout-tcp-transitory", required_argument, NULL, OPT_TIMEOUT_TRANSITORY },
	{ "timeout-udp", required_argument, NULL, OPT_TIMEOUT_UDP },
	{ "timeout-icmp", required_argument, NULL, OPT_TIMEOUT_ICMP },
	{ "inside-address", required_argument, NULL, OPT_INSIDE_ADDRESS },
	{ "gateway", required_argument, NULL, OPT_GATEWAY },
	{ "pass-outside", no_argument, NULL, OPT_PASS_OUTSIDE },
	{ "no-rules", no_argument, NULL, OPT_NO_RULES },
	{ NULL, 0, NULL, 0 },
};

/*
 * An option with a value given twice: the second would silently replace
 * the first, so it is refused; only --forward repeats. Its name (with the
 * dashes, for messages) into name.
 */
static int nat_option_once(struct nat *nat, int val, char *name, size_t size)
{
	const struct option *o = nat_options;
	unsigned int bit = 1U << (val - NF_OPT_BASE);

	while (o->val != val)
		o++;
	snprintf(name, size, "--%s", o->name);
	if (o->has_arg == no_argument || val == OPT_FORWARD || !(nat->given & bit)) {
		nat->given |= bit;
		return 0;
	}
	nf_err("%s given twice (once only)", name);
	return -1;
}

/* A unicast host address (network order): not 0.0.0.0/8, loopback, multicast or broadcast. */
static int nat_unicast(const char *opt, const char *value, uint32_t addr)
{
	const char *why = nf_not_unicast(addr);

	if (why) {
		nf_err("bad %s address '%s' (%s; a unicast address: not 0.0.0.0/8, loopback, "
		       "multicast, class E or broadcast)", opt, value, why);
		return -1;
	}
	return 0;
}

static int nat_addr(const char *opt, const char *value, uint32_t *addr)
{
	if (inet_pton(AF_INET, value, addr) != 1) {
		nf_err("bad %s address '%s' (an IPv4 address)", opt, value);
		return -1;
	}
	return nat_unicast(opt, value, *addr);
}

/* ADDR or ADDR@MAC: a gateway whose MAC is given is never asked by ARP. */
static int nat_gateway(struct nat *nat, const char *value)
{
	char addr[INET_ADDRSTRLEN];
	const char *at = strchr(value, '@');
	size_t len = at ? (size_t)(at - value) : strlen(value);

	if (len >= sizeof(addr) || (at && ns_mac_parse(at + 1, nat->gateway_mac))) {
		nf_err("bad --gateway '%s' (ADDR or ADDR@MAC)", value);
		return -1;
	}
	memcpy(addr, value, len);
	addr[len] = '\0';
	nat->has_gateway_mac = !!at;
	return nat_addr("--gateway", addr, &nat->gateway);
}

/* PROTO:PORT=ADDR:PORT, each public port once. */
static int nat_parse_forward(struct nat *nat, const char *s)
{
	struct nat_forward *fw = &nat->forwards[nat->nr_forwards];
	char buf[64], *pub, *addr, *in;
	unsigned long pub_port, in_port;
	unsigned int i;

	if (nat->nr_forwards == NAT_MAX_FORWARDS) {
		nf_err("at most %d --forward rules", NAT_MAX_FORWARDS);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	pub = strchr(buf, ':');
	addr = pub ? strchr(pub, '=') : NULL;
	in = addr ? strrchr(addr, ':') : NULL;
	if (pub)
		*pub++ = '\0';
	if (addr)
		*addr++ = '\0';
	if (in)
		*in++ = '\0';
	if (strlen(s) >= sizeof(buf) || !in || (strcmp(buf, "tcp") && strcmp(buf, "udp")) ||
	    conf_uint(pub, 1, 65535, false, &pub_port) || conf_uint(in, 1, 65535, false, &in_port) ||
	    inet_pton(AF_INET, addr, &fw->in_addr) != 1) {
		nf_err("bad --forward '%s' (tcp|udp:PUBLIC_PORT=INSIDE_ADDR:PORT)", s);
		return -1;
	}
	if (nat_unicast("--forward", addr, fw->in_addr))
		return -1;
	fw->proto = buf[0] == 't' ? IPPROTO_TCP : IPPROTO_UDP;
	fw->pub_port = htons((uint16_t)pub_port);
	fw->in_port = htons((uint16_t)in_port);
	for (i = 0; i < nat->nr_forwards; i++)
		if (nat->forwards[i].proto == fw->proto && nat->forwards[i].pub_port == fw->pub_port) {
			nf_err("--forward '%s': %s port %lu is forwarded twice", s, buf, pub_port);
			return -1;
		}
	nat->nr_forwards++;
	return 0;
}

static int nat_option(void *arg, int val, const char *value)
{
	struct nat *nat = arg;
	char name[32];

	if (nat_option_once(nat, val, name, sizeof(name)))
		return -1;
	switch (val) {
	case OPT_INSIDE:
		nat->inside_name = value;
		return 0;
	case OPT_OUTSIDE:
		nat->outside_name = value;
		return 0;
	case OPT_PUBLIC:
		return nat_addr("--public", value, &nat->public_addr);
	case OPT_INSIDE_ADDRESS:
		return nat_addr("--inside-address", value, &nat->inside_addr);
	case OPT_GATEWAY:
		return nat_gateway(nat, value);
	case OPT_PASS_OUTSIDE:
		nat->pass_outside = 1;
		return 0;
	case OPT_NO_RULES:
		nat->no_rules = 1;
		return 0;
	case OPT_PORTS:
		if (!strchr(value, '-') ||
		    conf_range(value, 1, 65535, &nat->port_lo, &nat->port_hi)) {
			nf_err("bad --ports '%s' (LOW-HIGH within 1-65535)", value);
			return -1;
		}
		return 0;
	case OPT_FORWARD:
		return nat_parse_forward(nat, value);
	case OPT_MAX_CONNS:
		return nf_parse_uint("--max-conns", value, 16, 1UL << 24, &nat->max_conns);
	}
	return nf_parse_uint(name, value, 1, 86400, &nat->timeout[val - OPT_TIMEOUT_TCP]);
}

static int nat_setup(void *arg)
{
	struct nat *nat = arg;
	unsigned long i;
	int p;

	if (!nat->inside_name || !nat->outside_name || !nat->public_addr) {
		nf_err("--inside IF, --outside IF and --public ADDR are required");
		return -1;
	}
	nat->inside = nf_ifindex(nat->inside_name);
	nat->outside = nf_ifindex(nat->outside_name);
	if (!nat->inside || !nat->outside || nf_ifmac(nat->outside_name, nat->public_mac) ||
	    nf_ifmac(nat->inside_name, nat->inside_mac))
		return -1;
	if (nat->inside == nat->outside) {
		nf_err("--inside and --outside name the same interface");
		return -1;
	}
	nf_neigh_init(&nat->neigh);
	nf_neigh_init(&nat->out_neigh);
	/* The table split evenly among the workers. */
	nat->nr_parts = nf_nr_run_workers();
	nat->parts = calloc(nat->nr_parts, sizeof(*nat->parts));
	for (i = 0; nat->parts && i < nat->nr_parts; i++)
		if (nat_part_init(&nat->parts[i], (nat->max_conns + nat->nr_parts - 1) /
						  nat->nr_parts))
			break;
	for (p = 0; p < NAT_PROTOS; p++)
		nat->port_used[p] = calloc(65536, 1);
	if (!nat->parts || i < nat->nr_parts || !nat->port_used[NAT_TCP] ||
	    !nat->port_used[NAT_UDP] || !nat->port_used[NAT_ICMP]) {
		nf_err("out of memory for %lu connections", nat->max_conns);
		return -1;
	}
	/* Forwarded ports are never handed out to outbound connections. */
	for (i = 0; i < nat->nr_forwards; i++)
		nat->port_used[nat_proto_index(nat->forwards[i].proto)]
			[ntohs(nat->forwards[i].pub_port)] = 2;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct nf nat = {
		.name = "nf-nat",
		.summary = "Masquerade an inside network behind one IPv4 address; forward ports in.",
		.usage = "      --inside IF      the inside interface (required)\n"
			 "      --outside IF     the outside interface (required); its MAC is the\n"
			 "                       public address's\n"
			 "      --public ADDR    the public IPv4 address (required)\n"
			 "      --inside-address ADDR  the inside hosts' router address; ARP is\n"
			 "                       answered inside for it only (default: for any\n"
			 "                       address not of a known inside host)\n"
			 "      --gateway ADDR[@MAC]  the outside next hop (default: each\n"
			 "                       destination), its MAC if it is not to be asked\n"
			 "      --pass-outside   pass outside IPv4 for other addresses than the\n"
			 "                       public one (dropped by default)\n"
			 "      --ports LO-HI    public ports for outbound connections (20000-59999)\n"
			 "      --no-rules       on several slices, never steer a connection's\n"
			 "                       return flow to its worker by a rule\n"
			 "      --forward tcp|udp:PORT=ADDR:PORT  port forward to an inside host\n"
			 "                       (repeatable)\n"
			 "      --max-conns N    connection table size (65536)\n"
			 "      --timeout-tcp SEC, --timeout-tcp-transitory SEC, --timeout-udp SEC,\n"
			 "      --timeout-icmp SEC   idle timeouts (7440, 240, 300, 60)\n",
		.cut = "auto",
		.gso = true,
		.options = nat_options,
		.arg = &nat_state,
		.option = nat_option,
		.setup = nat_setup,
		.worker_init = nat_worker_init,
		.worker_fini = nat_worker_fini,
		.process = nat_process,
		.tick = nat_tick,
		.report = nat_report,
	};
	int ret = nf_main(argc, argv, &nat), p;
	unsigned int i;

	if (nat_state.tick_rules)
		ns_rules_close(nat_state.tick_rules);
	for (i = 0; nat_state.parts && i < nat_state.nr_parts; i++)
		nat_part_fini(&nat_state.parts[i]);
	free(nat_state.parts);
	for (p = 0; p < NAT_PROTOS; p++)
		free(nat_state.port_used[p]);
	return ret;
}
