/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libnetslice packet helpers: bounds-checked views of the headers in a
 * received buffer, RFC 1624 incremental checksums for rewrites, 5-tuples,
 * flow hashes and address prefixes. Pure functions of their arguments:
 * no kernel, no global state, safe from any thread.
 *
 * A buffer may hold a whole frame or, when the slice cuts headers
 * (NETSLICE_RX_CUT), only its first bytes: parsing checks every header
 * against the bytes captured and the IP lengths against the wire length,
 * so the same code serves both. Multi-byte fields in the views are in
 * network order, as on the wire.
 *
 * Errors are negative errno values.
 */
#ifndef NETSLICE_PKT_H
#define NETSLICE_PKT_H

#include <stddef.h>
#include <stdint.h>

#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <net/ethernet.h>

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many 802.1Q/802.1ad tags and IPv6 extension headers are walked. */
#define NS_PKT_MAX_VLANS	2
#define NS_PKT_MAX_EXTHDRS	8

/* ns_pkt.frag */
#define NS_PKT_FRAG_FIRST	1	/* first fragment: L4 header present */
#define NS_PKT_FRAG_LATER	2	/* later fragment: no L4 header */

/*
 * A parsed frame. Offsets are from @data; an offset of 0 means the layer
 * is absent (or was not reached). Fill with ns_pkt_parse().
 */
struct ns_pkt {
	uint8_t *data;
	size_t caplen;		/* bytes at @data */
	size_t wire_len;	/* bytes of the frame on the wire (>= caplen) */
	uint16_t eth_type;	/* after any VLAN tags, host order */
	uint16_t vlan_off[NS_PKT_MAX_VLANS];	/* each tag's TPID */
	uint8_t vlans;
	uint8_t family;		/* AF_INET, AF_INET6, or 0 */
	uint8_t l4_proto;	/* IPPROTO_* after IPv6 extension headers; 0 if none */
	uint8_t frag;		/* 0 or NS_PKT_FRAG_* */
	uint16_t l3_off;
	uint16_t l4_off;	/* 0 for a later fragment or a cut-off L4 header */
	uint16_t payload_off;	/* first byte after the L4 header (0 if none) */
	uint32_t l3_len;	/* IP total length from the header (IPv6: 40 + payload) */
};

/*
 * Parse the Ethernet frame at buf (caplen bytes captured of wire_len).
 * Returns 0 when every header present was parsed and is consistent:
 * family 0 for a non-IP frame; l4_off 0 with l4_proto set for a later
 * fragment. Otherwise:
 *   -EMSGSIZE  a header runs past the captured bytes (views stay NULL
 *              from that layer on; earlier layers are valid)
 *   -EBADMSG   malformed: bad IP version or header length, an IP total
 *              length smaller than its header or larger than the frame,
 *              a TCP data offset < 5, a UDP length < 8 or beyond the IP
 *              payload, more VLAN tags or IPv6 extension headers than
 *              walked
 *   -EINVAL    buf NULL, or wire_len < caplen
 */
int ns_pkt_parse(struct ns_pkt *p, void *buf, size_t caplen, size_t wire_len);

/*
 * Views: NULL unless that header was parsed whole within the captured bytes.
 * Behind a 14-byte Ethernet header they are only 2-byte aligned: read the
 * 32-bit fields of iphdr, tcphdr and ip6_hdr (and tcphdr's bit-fields)
 * with memcpy() or byte by byte, not through the struct.
 */
struct ether_header *ns_pkt_eth(const struct ns_pkt *p);
struct iphdr *ns_pkt_ip4(const struct ns_pkt *p);
struct ip6_hdr *ns_pkt_ip6(const struct ns_pkt *p);
struct tcphdr *ns_pkt_tcp(const struct ns_pkt *p);
struct udphdr *ns_pkt_udp(const struct ns_pkt *p);
struct icmphdr *ns_pkt_icmp(const struct ns_pkt *p);	/* ICMP for IPv4 */
struct icmp6_hdr *ns_pkt_icmp6(const struct ns_pkt *p);

/* 1 for an ICMP or ICMPv6 echo request or reply (the header captured), else 0. */
int ns_pkt_icmp_echo(const struct ns_pkt *p);

/*
 * 1 for an ICMP error (destination unreachable, source quench, redirect,
 * time exceeded, parameter problem) or ICMPv6 error (types 1 to 4), the
 * header captured; else 0. The "auto" cut reads errors whole.
 */
int ns_pkt_icmp_error(const struct ns_pkt *p);

/*
 * The packet an ICMPv4 error quotes (RFC 792: its IP header and the first
 * 8 bytes after it), as a view q into p's buffer: family, l3_off, l3_len
 * (the quoted packet's total length, usually more than was quoted),
 * l4_proto, frag, and l4_off when 8 bytes of its L4 header are quoted
 * (ports, or an echo identifier); caplen ends with p's datagram.
 *   -ENOENT  p is no ICMPv4 error     -EMSGSIZE  the quoted header is cut short
 *   -EBADMSG the quote is no IPv4 header
 */
int ns_pkt_icmp_quote(const struct ns_pkt *p, struct ns_pkt *q);

/*
 * Rewrite the quoted packet's source (dst 0) or destination (dst 1)
 * address (4 bytes, network order) and, unless port is 0, the matching
 * TCP/UDP port or the echo identifier: what a NAT does to an ICMP error
 * about a connection it translated (RFC 5508 section 4.2). Fixes the
 * quoted IP header checksum, the quoted TCP/UDP/ICMP checksum when it was
 * quoted, and the ICMP error's own checksum. -EPROTONOSUPPORT for a port
 * of another protocol.
 */
int ns_pkt_icmp_quote_rewrite(struct ns_pkt *p, const struct ns_pkt *q, int dst,
			      const void *addr, uint16_t port);

/*
 * Build at out (room bytes, not overlapping p) the ICMPv4 error a router
 * sends about the IPv4 packet p (RFC 1812 4.3.2.3: its IP header and as
 * much more as keeps the error within 576 bytes): type, code, rest (the 4
 * bytes after the checksum, host order: the next-hop MTU of fragmentation
 * needed), from src (network order) to p's source, in an Ethernet frame
 * from mac to p's source MAC. Returns the frame's length;
 *   -EMSGSIZE  room is too small
 *   -EINVAL    no error is sent about p (not IPv4, a later fragment, an
 *              ICMP error, a source of 0 or multicast, to a broadcast or
 *              multicast address: RFC 1122 3.2.2, RFC 1812 4.3.2.7)
 */
int ns_icmp_error_build(uint8_t *out, size_t room, const struct ns_pkt *p, uint8_t type,
			uint8_t code, uint32_t rest, uint32_t src, const uint8_t mac[6]);

/* The VLAN ID of tag i (0 = outermost), or -ENOENT. */
int ns_pkt_vlan_id(const struct ns_pkt *p, unsigned int i);

/*
 * Internet checksum (RFC 1071) pieces. ns_csum_partial() adds buf's 16-bit
 * words (network order, odd last byte padded) to sum; ns_csum_fold()
 * folds and complements it; ns_csum() is both at once.
 */
uint32_t ns_csum_partial(const void *buf, size_t len, uint32_t sum);
uint16_t ns_csum_fold(uint32_t sum);
uint16_t ns_csum(const void *buf, size_t len);

/*
 * RFC 1624 incremental update (eqn. 3: HC' = ~(~HC + ~m + m')) of the
 * checksum at *csum (network order) when the 16-bit words at from (len
 * bytes, len even) become those at to. The field itself is not written.
 */
void ns_csum_update(uint16_t *csum, const void *from, const void *to, size_t len);
void ns_csum_update16(uint16_t *csum, uint16_t from, uint16_t to);
void ns_csum_update32(uint16_t *csum, uint32_t from, uint32_t to);

/*
 * Full L4 checksum (TCP, UDP, ICMPv6 over the pseudo-header; ICMP without
 * one) of a whole, unfragmented packet, in network order, to compare with
 * or store in the header. -EMSGSIZE unless the packet is captured whole;
 * -EPROTONOSUPPORT for other protocols.
 */
int ns_pkt_l4_csum(const struct ns_pkt *p, uint16_t *csum);

/*
 * Rewrite the source (dst 0) or destination (dst 1) address: 4 bytes for
 * IPv4, 16 for IPv6, network order. Fixes the IPv4 header checksum and the
 * TCP/UDP/ICMPv6 checksum incrementally; a UDP checksum of zero (none,
 * IPv4) stays zero. Works on cut packets (the payload's sum is untouched).
 *   -EAFNOSUPPORT  not IP          -EMSGSIZE  header not captured
 */
int ns_pkt_set_addr(struct ns_pkt *p, int dst, const void *addr);

/*
 * Rewrite the TCP/UDP source (dst 0) or destination (dst 1) port, network
 * order, fixing the checksum; for an ICMP/ICMPv6 echo request or reply,
 * the identifier (both dst values). -EPROTONOSUPPORT for other protocols,
 * -EMSGSIZE when the L4 header is absent (later fragment, cut short).
 */
int ns_pkt_set_port(struct ns_pkt *p, int dst, uint16_t port);

/* Decrement the IPv4 TTL (fixing the checksum) or IPv6 hop limit; -ETIME at 0 or 1. */
int ns_pkt_dec_ttl(struct ns_pkt *p);

/*
 * A flow's 5-tuple. Addresses are 16 bytes (IPv4 in the first 4, rest
 * zero); ports network order. For ICMP echo the identifier is both ports;
 * other ICMP and port-less protocols have ports 0, as do later fragments.
 */
struct ns_flow {
	uint8_t saddr[16];
	uint8_t daddr[16];
	uint16_t sport;
	uint16_t dport;
	uint8_t family;
	uint8_t proto;
	uint8_t pad[2];		/* zero: flows compare with memcmp */
};

/* The packet's 5-tuple; -EAFNOSUPPORT for non-IP. */
int ns_pkt_flow(const struct ns_pkt *p, struct ns_flow *flow);

/* Swap source and destination. */
void ns_flow_reverse(struct ns_flow *flow);

/*
 * A 32-bit hash of the flow (seeded, keyed mixing of all fields).
 * ns_flow_hash_symmetric() gives both directions the same value.
 */
uint32_t ns_flow_hash(const struct ns_flow *flow, uint32_t seed);
uint32_t ns_flow_hash_symmetric(const struct ns_flow *flow, uint32_t seed);

/* "tcp 10.0.0.1:1234 > 10.0.0.2:80"; returns snprintf's count. */
int ns_flow_format(const struct ns_flow *flow, char *buf, size_t size);

/* An address prefix ("10.0.0.0/8", "2001:db8::/32", "10.1.2.3" = /32). */
struct ns_prefix {
	uint8_t addr[16];	/* masked to len bits */
	uint8_t family;
	uint8_t len;
};

/* -EINVAL for anything but an address with an optional in-range /len. */
int ns_prefix_parse(const char *s, struct ns_prefix *pfx);

/* 1 if addr (of family) lies in pfx, else 0. */
int ns_prefix_match(const struct ns_prefix *pfx, int family, const uint8_t *addr);

/*
 * If the frame is an Ethernet ARP request for IPv4 address ip (network
 * order), turn it in place into the reply "ip is at mac" addressed to the
 * requester and return 1 (send it back out the interface it came in on);
 * 0 if it is not such a request.
 */
int ns_arp_answer(struct ns_pkt *p, uint32_t ip, const uint8_t mac[6]);

/* Parse "aa:bb:cc:dd:ee:ff"; -EINVAL otherwise. */
int ns_mac_parse(const char *s, uint8_t mac[6]);

#ifdef __cplusplus
}
#endif

#endif /* NETSLICE_PKT_H */
