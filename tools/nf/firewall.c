// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-firewall: an ordered rule list, first match wins, per-rule hit
 * counters, a default policy; SIGHUP reloads the file while traffic flows.
 *
 * Rule file, one rule per line ('#' starts a comment):
 *
 *   default accept|drop            policy for IP packets no rule matches (accept)
 *   nonip accept|drop              ARP and other non-IP frames (accept)
 *   ACTION PROTO [src CIDR] [dst CIDR] [sport P[-Q]] [dport P[-Q]] [type T[/CODE]]
 *
 * ACTION is accept or drop; PROTO tcp, udp, icmp, icmpv6, any or a number.
 * The words are netslicectl's; from, to and icmp6 (before 0.5) are taken
 * too. Each keyword at most once, default and nonip at most once a file;
 * a bad line is refused with FILE:LINE:COL.
 * Ports need tcp or udp, type needs icmp or icmpv6. A later IP fragment
 * carries no ports: only rules without port or type match it. Malformed
 * IP packets are dropped and counted.
 *
 * Fail closed: a file that cannot be read whole (a directory, a read
 * error midway, a control byte) or parsed is refused, and
 * a file with no rule must say its policy with a "default" line: nothing
 * that goes wrong reading it ever makes the firewall more permissive.
 *
 * Reload: the new list is parsed aside (a bad file keeps the old one and
 * says why), published with one pointer store, and the old list is freed
 * after ns_run_synchronize(); a rule whose text is unchanged keeps its hits.
 *
 * Speed: a list's verdict is a function of the fields fw_match() reads,
 * so each worker remembers the verdicts of recent flows (a direct-mapped
 * cache, valid for the list it was decided under): a flow's packets after
 * its first cost a hash and a compare, not a scan of the list.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "msg.h"
#include "nf.h"
#include "proto.h"

enum { FW_ACCEPT, FW_DROP };

struct fw_rule {
	int action;
	int proto;		/* -1: any */
	int family;		/* 0: either */
	struct ns_prefix src, dst;	/* family 0: any */
	uint16_t sport[2], dport[2];	/* host order ranges */
	int icmp_type, icmp_code;	/* -1: any */
	unsigned int line;
	char text[96];
	uint64_t hits;
};

struct fw_rules {
	uint64_t gen;		/* unique per list loaded: cached verdicts name it */
	struct fw_rule *rules;
	unsigned int n;
	int policy, nonip;
	uint64_t policy_hits, nonip_hits, malformed;
};

struct fw {
	const char *path;
	struct fw_rules *cur;	/* read by workers; swapped on reload */
	unsigned int reloads;
};

static struct fw fw_state;

#define FW_CACHE_SLOTS 4096	/* per worker, a power of two */

/* What fw_match() reads of a packet. */
struct fw_key {
	struct ns_flow flow;
	uint8_t icmp[2];	/* type and code; 0 unless ICMP */
	uint8_t no_l4;		/* a later fragment: no ports, no type */
	uint8_t pad;		/* zero: keys compare with memcmp */
};

struct fw_verdict {
	struct fw_key key;
	uint64_t gen;		/* of the list it was decided under; 0: empty */
	uint64_t *hits;		/* the counter each packet of the flow bumps */
	int action;
};

static const char *const fw_actions[] = { "accept", "drop" };

static int fw_action(const char *s)
{
	if (!strcmp(s, "accept"))
		return FW_ACCEPT;
	if (!strcmp(s, "drop"))
		return FW_DROP;
	return -1;
}

/* P or P-Q, both present: "0-" and "-5" are no ranges. */
static int fw_range(const char *s, uint16_t r[2])
{
	unsigned long lo, hi;

	if (conf_range(s, 0, 65535, &lo, &hi))
		return -1;
	r[0] = (uint16_t)lo;
	r[1] = (uint16_t)hi;
	return 0;
}

/* T or T/C: "8/" is neither; code -1 when not given. */
static int fw_icmp_type(const char *s, int *type, int *code)
{
	const char *slash = strchr(s, '/');
	unsigned long t, c;
	char first[8];

	*code = -1;
	if (!slash)
		return conf_uint(s, 0, 255, false, &t) ? -1 : (*type = (int)t, 0);
	if ((size_t)(slash - s) >= sizeof(first))
		return -1;
	memcpy(first, s, (size_t)(slash - s));
	first[slash - s] = '\0';
	if (conf_uint(first, 0, 255, false, &t) || conf_uint(slash + 1, 0, 255, false, &c))
		return -1;
	*type = (int)t;
	*code = (int)c;
	return 0;
}

/* "any" (-1), a protocol's name or number, or -2. */
static int fw_proto(const char *s)
{
	int v = strcmp(s, "any") ? proto_parse(s) : -1;

	return v == -1 && strcmp(s, "any") ? -2 : v;
}

/* An error about word i of the rule (its protocol is word 0). */
#define FW_ERR(i, ...) return conf_error(c, first + (i), __VA_ARGS__)

enum { FW_KEY_SRC, FW_KEY_DST, FW_KEY_SPORT, FW_KEY_DPORT, FW_KEY_TYPE };

/* A rule's keywords, as netslicectl spells them, and the older spellings. */
static const struct { const char *name, *alias; } fw_keywords[] = {
	[FW_KEY_SRC] = { "src", "from" }, [FW_KEY_DST] = { "dst", "to" },
	[FW_KEY_SPORT] = { "sport", NULL }, [FW_KEY_DPORT] = { "dport", NULL },
	[FW_KEY_TYPE] = { "type", NULL },
};

static int fw_keyword(const char *s)
{
	unsigned int k;

	for (k = 0; k < sizeof(fw_keywords) / sizeof(fw_keywords[0]); k++)
		if (!strcmp(s, fw_keywords[k].name) ||
		    (fw_keywords[k].alias && !strcmp(s, fw_keywords[k].alias)))
			return (int)k;
	return -1;
}

/* Parse one rule's words after ACTION (c's words from first); each keyword at most once. */
static int fw_parse_rule(struct fw_rule *r, const struct conf *c, unsigned int first)
{
	char *const *w = c->word + first;
	int nw = (int)(c->n - first);
	unsigned int seen = 0;
	int i, ported, icmp;

	r->proto = fw_proto(w[0]);
	if (r->proto == -2 && proto_refused(w[0]))
		FW_ERR(0, "%s", proto_refused(w[0]));
	if (r->proto == -2)
		FW_ERR(0, "unknown protocol '%s' (any, %s, or 0 to 255)", w[0], proto_names());
	r->sport[1] = r->dport[1] = 65535;
	r->icmp_type = r->icmp_code = -1;
	ported = r->proto == IPPROTO_TCP || r->proto == IPPROTO_UDP;
	icmp = r->proto == IPPROTO_ICMP || r->proto == IPPROTO_ICMPV6;
	if (r->proto == IPPROTO_ICMP)
		r->family = AF_INET;
	if (r->proto == IPPROTO_ICMPV6)
		r->family = AF_INET6;
	for (i = 1; i < nw; i += 2) {
		const char *key = w[i], *val = i + 1 < nw ? w[i + 1] : NULL;
		struct ns_prefix *pfx = NULL;
		int k = fw_keyword(key);

		if (!val)
			FW_ERR(i, "'%s' needs a value", key);
		if (k < 0)
			FW_ERR(i, "unknown keyword '%s'", key);
		if (seen & (1U << k))
			FW_ERR(i, "'%s' given twice", fw_keywords[k].name);
		seen |= 1U << k;
		if (k == FW_KEY_SRC)
			pfx = &r->src;
		else if (k == FW_KEY_DST)
			pfx = &r->dst;
		if (pfx) {
			if (!strcmp(val, "any"))
				continue;
			if (ns_prefix_parse(val, pfx))
				FW_ERR(i + 1, "bad CIDR '%s'", val);
			if (r->family && r->family != pfx->family)
				FW_ERR(i + 1, "'%s' is not of the rule's address family", val);
			r->family = pfx->family;
		} else if (k == FW_KEY_SPORT || k == FW_KEY_DPORT) {
			if (!ported)
				FW_ERR(i, "%s needs protocol tcp or udp", key);
			if (fw_range(val, k == FW_KEY_SPORT ? r->sport : r->dport))
				FW_ERR(i + 1, "bad port range '%s' (P or P-Q, 0 to 65535)", val);
		} else {
			if (!icmp)
				FW_ERR(i, "type needs protocol icmp or icmpv6");
			if (fw_icmp_type(val, &r->icmp_type, &r->icmp_code))
				FW_ERR(i + 1, "bad ICMP type '%s' (T or T/CODE, 0 to 255)", val);
		}
	}
	return 0;
}

static void fw_free(struct fw_rules *rs)
{
	if (rs)
		free(rs->rules);
	free(rs);
}

/*
 * A "default" or "nonip" line into rs. Each is said once: a second one (a
 * line pasted in, say) replacing the first could open the firewall, so it
 * is refused, naming both lines. said[] holds the line of each so far.
 */
static int fw_policy(struct fw_rules *rs, const struct conf *c, unsigned int said[2])
{
	int nonip = !strcmp(c->word[0], "nonip"), a;

	a = c->n == 2 ? fw_action(c->word[1]) : -1;
	if (a < 0)
		return conf_error(c, c->n > 1 ? 1 : 0, "'%s' takes accept or drop", c->word[0]);
	if (said[nonip])
		return conf_error(c, 0, "'%s' given twice (first on line %u)", c->word[0],
				  said[nonip]);
	said[nonip] = c->lineno;
	*(nonip ? &rs->nonip : &rs->policy) = a;
	return 0;
}

/* Parse the file into a new list; NULL after printing the first error. */
static struct fw_rules *fw_load(const char *path)
{
	struct fw_rules *rs = calloc(1, sizeof(*rs));
	unsigned int said[2] = { 0, 0 };	/* the line of default, of nonip */
	struct fw_rule *r, *grown;
	unsigned int i;
	struct conf c;
	int a, got;

	static uint64_t gen;

	if (!rs)
		return NULL;
	rs->gen = ++gen;
	if (conf_open(&c, path)) {
		nf_err("cannot read rule file %s: %s", path, strerror(errno));
		goto err_free;
	}
	while ((got = conf_next(&c)) > 0) {
		if (!strcmp(c.word[0], "default") || !strcmp(c.word[0], "nonip")) {
			if (fw_policy(rs, &c, said))
				goto err_close;
			continue;
		}
		a = fw_action(c.word[0]);
		if (a < 0 || c.n < 2) {
			conf_error(&c, a < 0 ? 0 : 1, "a rule starts with accept or drop and a protocol");
			goto err_close;
		}
		grown = realloc(rs->rules, (rs->n + 1) * sizeof(*r));
		if (!grown)
			goto err_close;
		rs->rules = grown;
		r = memset(&rs->rules[rs->n], 0, sizeof(*r));
		r->action = a;
		r->line = c.lineno;
		if (fw_parse_rule(r, &c, 1))
			goto err_close;
		/* The rule's words, normalised, name it across reloads. */
		for (i = 0; i < c.n; i++)
			snprintf(r->text + strlen(r->text), sizeof(r->text) - strlen(r->text),
				 "%s%s", i ? " " : "", c.word[i]);
		rs->n++;
	}
	if (got < 0)
		goto err_close;
	if (!rs->n && !said[0]) {
		nf_err("%s: no rules and no 'default accept|drop' line: refusing to guess", path);
		goto err_close;
	}
	conf_close(&c);
	return rs;

err_close:
	conf_close(&c);
err_free:
	fw_free(rs);
	return NULL;
}

static int fw_port_in(uint16_t port_be, const uint16_t r[2])
{
	uint16_t p = ntohs(port_be);

	return p >= r[0] && p <= r[1];
}

static int fw_match(const struct fw_rule *r, const struct ns_pkt *p, const struct ns_flow *f)
{
	const uint8_t *l4 = p->data + p->l4_off;

	if (r->family && r->family != p->family)
		return 0;
	if (r->proto >= 0 && r->proto != p->l4_proto)
		return 0;
	if (r->src.family && !ns_prefix_match(&r->src, p->family, f->saddr))
		return 0;
	if (r->dst.family && !ns_prefix_match(&r->dst, p->family, f->daddr))
		return 0;
	if (r->sport[0] || r->sport[1] != 65535 || r->dport[0] || r->dport[1] != 65535) {
		if (!p->l4_off)
			return 0;
		if (!fw_port_in(f->sport, r->sport) || !fw_port_in(f->dport, r->dport))
			return 0;
	}
	if (r->icmp_type >= 0) {
		if (!p->l4_off || l4[0] != r->icmp_type ||
		    (r->icmp_code >= 0 && l4[1] != r->icmp_code))
			return 0;
	}
	return 1;
}

static void fw_hit(uint64_t *counter)
{
	__atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

/* The list's verdict on an IP packet: first match, else the policy. */
static void fw_decide(struct fw_rules *rs, const struct ns_pkt *p, const struct ns_flow *flow,
		      struct fw_verdict *v)
{
	unsigned int k;

	for (k = 0; k < rs->n; k++) {
		if (fw_match(&rs->rules[k], p, flow)) {
			v->hits = &rs->rules[k].hits;
			v->action = rs->rules[k].action;
			return;
		}
	}
	v->hits = &rs->policy_hits;
	v->action = rs->policy;
}

/* The verdict on an IP packet: remembered for its flow, or decided now. */
static int fw_verdict(struct fw_rules *rs, struct fw_verdict *cache, const struct ns_pkt *p)
{
	const uint8_t *l4 = p->data + p->l4_off;
	struct fw_verdict *v;
	struct fw_key key;

	memset(&key, 0, sizeof(key));
	ns_pkt_flow(p, &key.flow);
	key.no_l4 = !p->l4_off;
	if (p->l4_off && (p->l4_proto == IPPROTO_ICMP || p->l4_proto == IPPROTO_ICMPV6)) {
		key.icmp[0] = l4[0];
		key.icmp[1] = l4[1];
	}
	v = &cache[ns_flow_hash(&key.flow, key.icmp[0] << 9 | key.icmp[1] << 1 | key.no_l4) &
		   (FW_CACHE_SLOTS - 1)];
	if (v->gen != rs->gen || memcmp(&v->key, &key, sizeof(key))) {
		fw_decide(rs, p, &key.flow, v);
		v->key = key;
		v->gen = rs->gen;
	}
	fw_hit(v->hits);
	return v->action;
}

static int fw_worker_init(struct ns_worker *w, void *arg)
{
	(void)arg;
	ns_worker_set_priv(w, calloc(FW_CACHE_SLOTS, sizeof(struct fw_verdict)));
	return ns_worker_priv(w) ? 0 : -ENOMEM;
}

static void fw_worker_fini(struct ns_worker *w, void *arg)
{
	(void)arg;
	free(ns_worker_priv(w));
	ns_worker_set_priv(w, NULL);
}

/* Which rule (or policy) dropped p: decided again, as only a logged drop needs it. */
static void fw_log_drop(struct fw_rules *rs, const struct ns_pkt *p)
{
	const struct fw_rule *r;
	struct fw_verdict v;
	struct ns_flow flow;

	if (!p->family) {
		nf_log_drop(p, "nonip drop");
		return;
	}
	ns_pkt_flow(p, &flow);
	fw_decide(rs, p, &flow, &v);
	if (v.hits == &rs->policy_hits) {
		nf_log_drop(p, "default drop");
		return;
	}
	/* The rule whose hit counter the verdict names. */
	r = (const struct fw_rule *)((const char *)v.hits - offsetof(struct fw_rule, hits));
	nf_log_drop(p, "line %u: %s", r->line, r->text);
}

static void fw_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct fw *fw = arg;
	struct fw_rules *rs = __atomic_load_n(&fw->cur, __ATOMIC_ACQUIRE);
	struct ns_pkt p;
	unsigned int i;
	int action;

	for (i = 0; i < n; i++) {
		if (ns_pkt_parse(&p, ns_iov_data(&iov[i]), iov[i].rlen, iov[i].wire_len)) {
			fw_hit(&rs->malformed);
			ns_iov_drop(&iov[i]);
			nf_log_drop(NULL, "malformed");
			continue;
		}
		if (!p.family) {
			fw_hit(&rs->nonip_hits);
			action = rs->nonip;
		} else {
			action = fw_verdict(rs, ns_worker_priv(w), &p);
		}
		if (action == FW_DROP) {
			ns_iov_drop(&iov[i]);
			if (nf_drop_rate)
				fw_log_drop(rs, &p);
		} else {
			ns_iov_unchanged(&iov[i]);
		}
	}
}

static void fw_reload(struct ns_run *run, void *arg)
{
	struct fw *fw = arg;
	struct fw_rules *new = fw_load(fw->path), *old = fw->cur;
	unsigned int i, k;

	if (!new) {
		nf_err("reload failed; keeping the %u rules in force", old->n);
		return;
	}
	__atomic_store_n(&fw->cur, new, __ATOMIC_RELEASE);
	if (run)
		ns_run_synchronize(run);
	for (i = 0; i < new->n; i++)
		for (k = 0; k < old->n; k++)
			if (!strcmp(new->rules[i].text, old->rules[k].text)) {
				__atomic_add_fetch(&new->rules[i].hits, old->rules[k].hits,
						   __ATOMIC_RELAXED);
				break;
			}
	if (new->policy == old->policy)
		__atomic_add_fetch(&new->policy_hits, old->policy_hits, __ATOMIC_RELAXED);
	if (new->nonip == old->nonip)
		__atomic_add_fetch(&new->nonip_hits, old->nonip_hits, __ATOMIC_RELAXED);
	__atomic_add_fetch(&new->malformed, old->malformed, __ATOMIC_RELAXED);
	fw_free(old);
	fw->reloads++;
	nf_err("reloaded %s: %u rules", fw->path, new->n);
}

static void fw_report(struct json *j, FILE *f, void *arg)
{
	struct fw *fw = arg;
	struct fw_rules *rs = fw->cur;
	char path[1024];
	unsigned int i;

	if (j) {
		json_str(j, "rule_file", fw->path);
		json_counter(j, "reloads", fw->reloads, "Times the rules file was read again.");
		json_open(j, "rules", '[');
		for (i = 0; i < rs->n; i++) {
			json_open(j, NULL, '{');
			json_label_u64(j, "line", rs->rules[i].line);
			json_str(j, "rule", rs->rules[i].text);
			json_counter(j, "hits", ns_worker_counter(&rs->rules[i].hits),
				     "Packets the rule decided.");
			json_close(j, '}');
		}
		json_close(j, ']');
		json_open(j, "default", '{');
		json_str(j, "action", fw_actions[rs->policy]);
		json_counter(j, "hits", ns_worker_counter(&rs->policy_hits),
			     "IP packets no rule matched.");
		json_close(j, '}');
		json_open(j, "nonip", '{');
		json_str(j, "action", fw_actions[rs->nonip]);
		json_counter(j, "hits", ns_worker_counter(&rs->nonip_hits),
			     "Packets that are not IP.");
		json_close(j, '}');
		json_counter(j, "malformed", ns_worker_counter(&rs->malformed),
			     "IP packets too short or malformed to match.");
		return;
	}
	/* The summary may go to stderr (--pcap-out -): the path as nf_err() shows it. */
	msg_escape(path, sizeof(path), fw->path);
	fprintf(f, "  rules from %s (%u reloads):\n  %12s  %-5s rule\n", path, fw->reloads,
		"hits", "line");
	for (i = 0; i < rs->n; i++)
		fprintf(f, "  %12llu  %-5u %s\n",
			(unsigned long long)ns_worker_counter(&rs->rules[i].hits),
			rs->rules[i].line, rs->rules[i].text);
	fprintf(f, "  %12llu  %-5s default %s\n  %12llu  %-5s nonip %s\n"
		"  %12llu  %-5s malformed, dropped\n",
		(unsigned long long)ns_worker_counter(&rs->policy_hits), "-",
		fw_actions[rs->policy], (unsigned long long)ns_worker_counter(&rs->nonip_hits),
		"-", fw_actions[rs->nonip], (unsigned long long)ns_worker_counter(&rs->malformed),
		"-");
}

enum { OPT_RULES = NF_OPT_BASE };

static int fw_option(void *arg, int val, const char *value)
{
	struct fw *fw = arg;

	if (val == OPT_RULES)
		fw->path = value;
	return 0;
}

static int fw_setup(void *arg)
{
	struct fw *fw = arg;

	if (!fw->path) {
		nf_err("no rule file (--rules FILE)");
		return -1;
	}
	fw->cur = fw_load(fw->path);
	return fw->cur ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "rules", required_argument, NULL, OPT_RULES },
		{ NULL, 0, NULL, 0 },
	};
	static const struct nf firewall = {
		.name = "nf-firewall",
		.summary = "Filter IP packets by an ordered rule list; count hits per rule.",
		.usage = "      --rules FILE     the rule file (required); SIGHUP reloads it\n"
			 "File: 'default accept|drop', 'nonip accept|drop', and rules\n"
			 "  ACTION PROTO [src CIDR] [dst CIDR] [sport P[-Q]] [dport P[-Q]] [type T[/C]]\n",
		.cut = "auto",
		.gso = true,
		.options = options,
		.arg = &fw_state,
		.option = fw_option,
		.setup = fw_setup,
		.worker_init = fw_worker_init,
		.worker_fini = fw_worker_fini,
		.process = fw_process,
		.reload = fw_reload,
		.report = fw_report,
	};
	int ret = nf_main(argc, argv, &firewall);

	fw_free(fw_state.cur);
	return ret;
}
