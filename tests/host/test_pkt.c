// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for libnetslice's packet helpers: parsing (good,
 * truncated at every length, malformed), checksums against known values
 * and an independent reference sum, rewrites on whole and cut packets,
 * flows, prefixes, ARP. Built with ASan/UBSan, so a read past a buffer
 * fails the run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netslice.h"
#include "ktap.h"

/* Reference checksum: big-endian 16-bit words as integers, the textbook way. */
static uint16_t ref_csum(const uint8_t *b, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Reference L4 checksum of an IPv4/IPv6 packet at l3 (l4 at l4, len bytes). */
static uint16_t ref_l4(const uint8_t *l3, int v6, const uint8_t *l4, size_t len, uint8_t proto)
{
	uint32_t sum = proto + (uint32_t)len;
	size_t i, alen = v6 ? 32 : 8;
	const uint8_t *a = l3 + (v6 ? 8 : 12);

	if (proto == IPPROTO_ICMP)
		return ref_csum(l4, len, 0);
	for (i = 0; i < alen; i += 2)
		sum += (uint32_t)(a[i] << 8 | a[i + 1]);
	return ref_csum(l4, len, sum);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Build Ethernet [+ VLAN] + IPv4/IPv6 + proto with plen payload bytes into
 * f, checksums filled by the reference. Returns the frame length.
 */
static size_t build(uint8_t *f, int v6, uint8_t proto, size_t plen, int vlan)
{
	size_t off = 12, l4len, hl = 0, i;
	uint8_t *l3, *l4;

	memset(f, 0, 2048);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	if (vlan) {
		put16(f + off, 0x8100);
		put16(f + off + 2, 42);
		off += 4;
	}
	put16(f + off, v6 ? 0x86dd : 0x0800);
	l3 = f + off + 2;
	switch (proto) {
	case IPPROTO_TCP: hl = 20; break;
	default: hl = 8;
	}
	l4len = hl + plen;
	if (v6) {
		l3[0] = 0x60;
		put16(l3 + 4, (uint16_t)l4len);
		l3[6] = proto;
		l3[7] = 64;
		memcpy(l3 + 8, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
		memcpy(l3 + 24, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
		l4 = l3 + 40;
	} else {
		l3[0] = 0x45;
		put16(l3 + 2, (uint16_t)(20 + l4len));
		l3[8] = 64;
		l3[9] = proto;
		memcpy(l3 + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
		put16(l3 + 10, ref_csum(l3, 20, 0));
		l4 = l3 + 20;
	}
	for (i = 0; i < plen; i++)
		l4[hl + i] = (uint8_t)(i * 7 + 3);
	if (proto == IPPROTO_TCP) {
		put16(l4, 40000);
		put16(l4 + 2, 80);
		l4[12] = 5 << 4;
		l4[13] = 0x18;
		put16(l4 + 16, ref_l4(l3, v6, l4, l4len, proto));
	} else if (proto == IPPROTO_UDP) {
		put16(l4, 1234);
		put16(l4 + 2, 53);
		put16(l4 + 4, (uint16_t)l4len);
		put16(l4 + 6, ref_l4(l3, v6, l4, l4len, proto));
	} else {
		l4[0] = v6 ? ICMP6_ECHO_REQUEST : ICMP_ECHO;
		put16(l4 + 4, 0x1234);
		put16(l4 + 6, 1);
		put16(l4 + 2, ref_l4(l3, v6, l4, l4len, proto));
	}
	return (size_t)(l4 - f) + l4len;
}

/* Is every checksum of the whole frame right (by the reference)? */
static int frame_valid(uint8_t *f, size_t len)
{
	struct ns_pkt p;
	uint8_t *l3;
	size_t l4len;

	if (ns_pkt_parse(&p, f, len, len))
		return 0;
	l3 = f + p.l3_off;
	if (p.family == AF_INET && ref_csum(l3, 20, 0))
		return 0;
	l4len = p.l3_off + p.l3_len - p.l4_off;
	if (p.l4_proto == IPPROTO_UDP && p.family == AF_INET && !get16(f + p.l4_off + 6))
		return 1;
	return ref_l4(l3, p.family == AF_INET6, f + p.l4_off, l4len,
		      p.l4_proto == IPPROTO_ICMPV6 ? IPPROTO_ICMPV6 : p.l4_proto) == 0;
}

static void test_known_values(void)
{
	uint8_t ip[] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	uint16_t c = htons(0xdd2f);
	uint8_t f[2048];
	struct ns_pkt p;
	size_t len;

	ktap_check(ns_csum(ip, sizeof(ip)) == htons(0xb861), "IPv4 header checksum 0xb861");
	put16(ip + 10, 0xb861);
	ktap_check(ns_csum(ip, sizeof(ip)) == 0, "a header with its checksum sums to zero");
	ktap_check(ns_csum("\x01", 1) == htons(0xfeff), "odd length: last byte padded");
	/* RFC 1624 section 4: eqn. 3 gives 0x0000, eqn. 2 the wrong 0xffff. */
	ns_csum_update16(&c, htons(0x5555), htons(0x3285));
	ktap_check(c == 0, "RFC 1624 example: 0xdd2f, 0x5555 -> 0x3285 gives 0x0000");
	/* UDP 10.0.0.1:1234 > 10.0.0.2:53 "hello", checksum computed elsewhere. */
	len = build(f, 0, IPPROTO_UDP, 0, 0);
	memcpy(f + len, "hello", 5);
	put16(f + 16, 33);
	put16(f + 24, 0);
	put16(f + 24, ref_csum(f + 14, 20, 0));
	put16(f + 38, 13);
	put16(f + 40, 0);
	len += 5;
	ns_pkt_parse(&p, f, len, len);
	ktap_check(!ns_pkt_l4_csum(&p, &c) && c == htons(0xa2f8),
		   "UDP checksum of a known datagram is 0xa2f8 (got 0x%04x)", ntohs(c));
}

struct shape {
	const char *name;
	int v6;
	uint8_t proto;
	int vlan;
	size_t l4_off, payload_off;
};

static const struct shape shapes[] = {
	{ "ipv4/tcp", 0, IPPROTO_TCP, 0, 34, 54 },
	{ "ipv4/udp", 0, IPPROTO_UDP, 0, 34, 42 },
	{ "ipv4/icmp", 0, IPPROTO_ICMP, 0, 34, 42 },
	{ "vlan/ipv4/udp", 0, IPPROTO_UDP, 1, 38, 46 },
	{ "ipv6/tcp", 1, IPPROTO_TCP, 0, 54, 74 },
	{ "ipv6/udp", 1, IPPROTO_UDP, 0, 54, 62 },
	{ "ipv6/icmp6", 1, IPPROTO_ICMPV6, 0, 54, 62 },
	{ "vlan/ipv6/tcp", 1, IPPROTO_TCP, 1, 58, 78 },
};

static void test_parse_shapes(void)
{
	uint8_t f[2048];
	struct ns_pkt p;
	size_t i, len, cut;
	int ret, bad;
	uint16_t c;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];

		len = build(f, s->v6, s->proto, 100, s->vlan);
		ret = ns_pkt_parse(&p, f, len, len);
		ktap_check(!ret && p.family == (s->v6 ? AF_INET6 : AF_INET) &&
			   p.l4_proto == s->proto && p.l4_off == s->l4_off &&
			   p.payload_off == s->payload_off && p.vlans == (s->vlan ? 1 : 0) &&
			   (!s->vlan || ns_pkt_vlan_id(&p, 0) == 42) &&
			   !ns_pkt_l4_csum(&p, &c) && ntohs(c) == get16(f + p.l4_off +
				(s->proto == IPPROTO_TCP ? 16 : s->proto == IPPROTO_UDP ? 6 : 2)) &&
			   frame_valid(f, len),
			   "%s: parsed, offsets %zu/%zu, L4 checksum matches the reference",
			   s->name, s->l4_off, s->payload_off);
		/* Every shorter capture: an error or a partial parse, never a read past it. */
		bad = 0;
		for (cut = 0; cut < len; cut++) {
			uint8_t *copy = malloc(cut ? cut : 1);

			memcpy(copy, f, cut);
			ret = ns_pkt_parse(&p, copy, cut, len);
			if (cut < s->payload_off && ret != -EMSGSIZE)
				bad++;
			if (cut >= s->payload_off && (ret || p.l4_off != s->l4_off))
				bad++;
			if (cut < s->l4_off + 8 && (ns_pkt_tcp(&p) || ns_pkt_udp(&p)))
				bad++;
			free(copy);
		}
		ktap_check(!bad, "%s: captures of 0..%zu bytes: -EMSGSIZE before the payload, "
			   "headers-only parses after (%d wrong)", s->name, len - 1, bad);
	}
}

static void test_malformed(void)
{
	uint8_t f[2048];
	struct ns_pkt p;
	size_t len;
	int i;

#define MALFORMED(desc, v6, proto, mutate, want)			\
	do {								\
		len = build(f, v6, proto, 64, 0);			\
		mutate;							\
		ktap_check(ns_pkt_parse(&p, f, len, len) == (want), desc); \
	} while (0)

	MALFORMED("IPv4 version 5", 0, IPPROTO_UDP, f[14] = 0x55, -EBADMSG);
	MALFORMED("IPv4 IHL 4", 0, IPPROTO_UDP, f[14] = 0x44, -EBADMSG);
	MALFORMED("IPv4 IHL 15 past the capture", 0, IPPROTO_UDP, (f[14] = 0x4f, len = 40),
		  -EMSGSIZE);
	MALFORMED("IPv4 total length beyond the frame", 0, IPPROTO_UDP, put16(f + 16, 2000),
		  -EBADMSG);
	MALFORMED("IPv4 total length below the header", 0, IPPROTO_UDP, put16(f + 16, 12),
		  -EBADMSG);
	MALFORMED("TCP data offset 4", 0, IPPROTO_TCP, f[34 + 12] = 4 << 4, -EBADMSG);
	MALFORMED("TCP data offset 15 beyond the packet", 0, IPPROTO_TCP,
		  (f[34 + 12] = 15 << 4, put16(f + 16, 20 + 40), len = 74), -EBADMSG);
	MALFORMED("UDP length 7", 0, IPPROTO_UDP, put16(f + 38, 7), -EBADMSG);
	MALFORMED("UDP length beyond the IP payload", 0, IPPROTO_UDP, put16(f + 38, 500),
		  -EBADMSG);
	MALFORMED("IPv6 version 4 under ethertype IPv6", 1, IPPROTO_UDP, f[14] = 0x40, -EBADMSG);
	MALFORMED("IPv6 payload length beyond the frame", 1, IPPROTO_UDP, put16(f + 18, 3000),
		  -EBADMSG);
	MALFORMED("three VLAN tags", 0, IPPROTO_UDP,
		  (memmove(f + 24, f + 12, len - 12), put16(f + 12, 0x8100),
		   put16(f + 16, 0x88a8), put16(f + 20, 0x8100), len += 12), -EBADMSG);
	ktap_check(ns_pkt_parse(&p, NULL, 0, 0) == -EINVAL &&
		   ns_pkt_parse(&p, f, 60, 59) == -EINVAL, "NULL buffer, wire < capture: -EINVAL");

	/* IPv6 with 9 destination-options headers: more than walked. */
	len = build(f, 1, IPPROTO_UDP, 0, 0);
	f[14 + 6] = IPPROTO_DSTOPTS;
	memmove(f + 54 + 72, f + 54, 8);
	for (i = 0; i < 9; i++) {
		memset(f + 54 + 8 * i, 0, 8);
		f[54 + 8 * i] = i == 8 ? IPPROTO_UDP : IPPROTO_DSTOPTS;
	}
	put16(f + 18, 80);
	len += 72;
	ktap_check(ns_pkt_parse(&p, f, len, len) == -EBADMSG, "nine IPv6 extension headers");
	f[54 + 8 * 7] = IPPROTO_UDP;
	memmove(f + 54 + 64, f + 54 + 72, 8);
	put16(f + 18, 72);
	len -= 8;
	ktap_check(!ns_pkt_parse(&p, f, len, len) && p.l4_proto == IPPROTO_UDP &&
		   p.l4_off == 54 + 64, "eight IPv6 extension headers are walked");

	/* Fragments. */
	len = build(f, 0, IPPROTO_UDP, 64, 0);
	put16(f + 20, 0x2000);
	ktap_check(!ns_pkt_parse(&p, f, len, len) && p.frag == NS_PKT_FRAG_FIRST &&
		   ns_pkt_udp(&p), "IPv4 first fragment: L4 header parsed");
	put16(f + 20, 0x0010);
	ktap_check(!ns_pkt_parse(&p, f, len, len) && p.frag == NS_PKT_FRAG_LATER &&
		   !p.l4_off && !ns_pkt_udp(&p) && p.l4_proto == IPPROTO_UDP,
		   "IPv4 later fragment: no L4 view");
	/* A first fragment's UDP length is the whole datagram's, not its own. */
	put16(f + 20, 0x2000);
	put16(f + 14 + 20 + 4, 2000);
	ktap_check(!ns_pkt_parse(&p, f, len, len) && p.frag == NS_PKT_FRAG_FIRST &&
		   ns_pkt_udp(&p) && p.l4_off == 34,
		   "IPv4 first fragment of a longer datagram: L4 header parsed, not malformed");
	put16(f + 20, 0);
	ktap_check(ns_pkt_parse(&p, f, len, len) == -EBADMSG,
		   "a UDP length past an unfragmented packet's end: malformed");
	len = build(f, 1, IPPROTO_UDP, 64, 0);
	/* An IPv6 fragment header (first, more follow) in front of the UDP one. */
	memmove(f + 62, f + 54, len - 54);
	memcpy(f + 54, "\x11\x00\x00\x01\x00\x00\x00\x2a", 8);
	f[20] = IPPROTO_FRAGMENT;
	put16(f + 18, (uint16_t)(get16(f + 18) + 8));
	len += 8;
	put16(f + 62 + 4, 2000);
	ktap_check(!ns_pkt_parse(&p, f, len, len) && p.frag == NS_PKT_FRAG_FIRST &&
		   ns_pkt_udp(&p) && p.l4_off == 62,
		   "IPv6 first fragment of a longer datagram: L4 header parsed, not malformed");
	len = 60;
	memset(f + 12, 0, 48);
	put16(f + 12, 0x0806);
	ktap_check(!ns_pkt_parse(&p, f, len, len) && !p.family && p.eth_type == 0x0806 &&
		   !ns_pkt_ip4(&p) && p.l3_off == 14, "ARP: not IP, L3 offset set");
}

static void test_rewrites(void)
{
	static const uint8_t v4[4] = { 192, 0, 2, 7 };
	static const uint8_t v6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9 };
	uint8_t f[2048], whole[2048];
	struct ns_pkt p;
	size_t i, len;
	int ok;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];

		len = build(f, s->v6, s->proto, 333, s->vlan);
		ns_pkt_parse(&p, f, len, len);
		ok = !ns_pkt_set_addr(&p, 0, s->v6 ? (const void *)v6 : v4) &&
		     !ns_pkt_set_addr(&p, 1, s->v6 ? (const void *)v6 : v4) &&
		     !ns_pkt_set_port(&p, 0, htons(4242)) && !ns_pkt_dec_ttl(&p);
		if (s->proto != IPPROTO_ICMP && s->proto != IPPROTO_ICMPV6)
			ok = ok && !ns_pkt_set_port(&p, 1, htons(8080));
		ktap_check(ok && frame_valid(f, len),
			   "%s: addresses, port/id and TTL rewritten, every checksum valid", s->name);

		/* The same on the headers alone, as a cut packet arrives. */
		len = build(f, s->v6, s->proto, 333, s->vlan);
		memcpy(whole, f, len);
		ns_pkt_parse(&p, whole, s->payload_off, len);
		ok = !ns_pkt_set_addr(&p, 1, s->v6 ? (const void *)v6 : v4) &&
		     !ns_pkt_set_port(&p, 0, htons(1)) && !ns_pkt_dec_ttl(&p);
		ktap_check(ok && frame_valid(whole, len),
			   "%s cut: rewritten from %zu header bytes, the whole frame checks",
			   s->name, s->payload_off);
	}
	/* UDP over IPv4 without a checksum keeps none. */
	len = build(f, 0, IPPROTO_UDP, 10, 0);
	put16(f + 40, 0);
	ns_pkt_parse(&p, f, len, len);
	ns_pkt_set_addr(&p, 0, v4);
	ns_pkt_set_port(&p, 1, htons(9));
	ktap_check(get16(f + 40) == 0 && !ref_csum(f + 14, 20, 0),
		   "IPv4 UDP checksum 0 (none) stays 0 across rewrites");
	/* Cut inside the L4 header: nothing written. */
	len = build(f, 0, IPPROTO_TCP, 10, 0);
	memcpy(whole, f, len);
	ns_pkt_parse(&p, whole, 40, len);
	ktap_check(ns_pkt_set_addr(&p, 0, v4) == -EMSGSIZE && !memcmp(whole, f, len) &&
		   ns_pkt_set_port(&p, 0, 1) == -EMSGSIZE,
		   "L4 header cut short: -EMSGSIZE and the frame untouched");
	len = build(f, 0, IPPROTO_ICMP, 10, 0);
	f[34] = ICMP_DEST_UNREACH;
	ns_pkt_parse(&p, f, len, len);
	ktap_check(ns_pkt_set_port(&p, 0, 1) == -EPROTONOSUPPORT,
		   "ICMP other than echo has no identifier to rewrite");
	f[22] = 1;
	put16(f + 24, 0);
	put16(f + 24, ref_csum(f + 14, 20, 0));
	ns_pkt_parse(&p, f, len, len);
	ktap_check(ns_pkt_dec_ttl(&p) == -ETIME && f[22] == 1, "TTL 1 is not decremented");
}

static void test_flows(void)
{
	struct ns_flow a, b;
	uint8_t f[2048];
	struct ns_pkt p;
	char text[128];
	size_t len;

	len = build(f, 0, IPPROTO_TCP, 0, 0);
	ns_pkt_parse(&p, f, len, len);
	ns_pkt_flow(&p, &a);
	ns_flow_format(&a, text, sizeof(text));
	ktap_check(!strcmp(text, "tcp 10.0.0.1:40000 > 10.0.0.2:80"), "flow text: %s", text);
	b = a;
	ns_flow_reverse(&b);
	ktap_check(ns_flow_hash_symmetric(&a, 7) == ns_flow_hash_symmetric(&b, 7) &&
		   ns_flow_hash(&a, 7) != ns_flow_hash(&b, 7) &&
		   ns_flow_hash(&a, 7) != ns_flow_hash(&a, 8),
		   "symmetric hash equal both ways; plain hash and seeds differ");
	len = build(f, 1, IPPROTO_ICMPV6, 0, 0);
	ns_pkt_parse(&p, f, len, len);
	ns_pkt_flow(&p, &a);
	ns_flow_format(&a, text, sizeof(text));
	ktap_check(a.sport == htons(0x1234) && a.dport == a.sport &&
		   !strcmp(text, "icmp6 [2001:db8::1]:4660 > [2001:db8::2]:4660"),
		   "ICMPv6 echo: the identifier is the port: %s", text);
	memset(f, 0, 60);
	put16(f + 12, 0x0806);
	ns_pkt_parse(&p, f, 60, 60);
	ktap_check(ns_pkt_flow(&p, &a) == -EAFNOSUPPORT, "no flow for ARP");
}

static void test_prefixes(void)
{
	static const char *const bad[] = { "", "10.0.0.0/", "10.0.0.0/33", "10.0.0/8",
					   "10.0.0.0/8x", "::/129", "/8", "10.0.0.0/-1",
					   "host", "1.2.3.4 " };
	struct ns_prefix pfx;
	uint8_t a4[4] = { 10, 1, 2, 3 }, a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff };
	size_t i;
	int nbad = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		nbad += ns_prefix_parse(bad[i], &pfx) == -EINVAL;
	ktap_check(nbad == (int)(sizeof(bad) / sizeof(bad[0])),
		   "bad prefixes refused with -EINVAL (%d of %zu)", nbad, i);
	ktap_check(!ns_prefix_parse("10.1.2.200/25", &pfx) && pfx.len == 25 &&
		   pfx.addr[3] == 128 && ns_prefix_match(&pfx, AF_INET, (uint8_t[]){ 10, 1, 2, 129 }) &&
		   !ns_prefix_match(&pfx, AF_INET, a4), "10.1.2.200/25 masks to .128 and matches .129, not .3");
	ktap_check(!ns_prefix_parse("0.0.0.0/0", &pfx) && ns_prefix_match(&pfx, AF_INET, a4) &&
		   !ns_prefix_match(&pfx, AF_INET6, a6), "/0 matches every IPv4 address, no IPv6");
	ktap_check(!ns_prefix_parse("2001:db8::/32", &pfx) && ns_prefix_match(&pfx, AF_INET6, a6) &&
		   !ns_prefix_parse("10.1.2.3", &pfx) && pfx.len == 32 &&
		   ns_prefix_match(&pfx, AF_INET, a4), "IPv6 /32; a bare address is a host prefix");
}

static void test_arp_mac(void)
{
	static const uint8_t mac[6] = { 0x02, 0xaa, 0, 0, 0, 1 };
	uint8_t f[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 9, 0x08, 0x06,
			  0, 1, 8, 0, 6, 4, 0, 1, 0x02, 0, 0, 0, 0, 9, 10, 0, 0, 9,
			  0, 0, 0, 0, 0, 0, 10, 0, 0, 100 };
	uint32_t ip, other;
	struct ns_pkt p;
	uint8_t m[6];

	inet_pton(AF_INET, "10.0.0.100", &ip);
	inet_pton(AF_INET, "10.0.0.101", &other);
	ns_pkt_parse(&p, f, sizeof(f), sizeof(f));
	ktap_check(ns_arp_answer(&p, other, mac) == 0 && f[21] == 1,
		   "ARP request for another address: left alone");
	ktap_check(ns_arp_answer(&p, ip, mac) == 1 && f[21] == 2 && !memcmp(f, f + 32, 6) &&
		   !memcmp(f + 6, mac, 6) && !memcmp(f + 22, mac, 6) &&
		   !memcmp(f + 28, &ip, 4) && f[41] == 9,
		   "ARP request for our address: turned into the reply, to the asker");
	ktap_check(ns_arp_answer(&p, ip, mac) == 0, "a reply is not answered again");
	ktap_check(!ns_mac_parse("02:aa:00:00:00:01", m) && !memcmp(m, mac, 6) &&
		   ns_mac_parse("02:aa:00:00:00", m) == -EINVAL &&
		   ns_mac_parse("02:aa:00:00:00:01:", m) == -EINVAL, "MAC addresses parsed strictly");
}

int main(void)
{
	ktap_header("libnetslice packet helpers", 74);
	test_known_values();
	test_parse_shapes();
	test_malformed();
	test_rewrites();
	test_flows();
	test_prefixes();
	test_arp_mac();
	return ktap_finish();
}
