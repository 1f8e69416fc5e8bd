// SPDX-License-Identifier: GPL-2.0
/*
 * nstraffic: a known set of UDP/IPv4 frames, sent and checked byte by byte.
 *
 *   nstraffic send IFACE DSTMAC COUNT [FLOWS]
 *   nstraffic recv [-f FLOWS] IFACE COUNT IDLE_MS READY_FILE
 *                  [rewritten | nat IPV4]
 *   nstraffic tcp-send IPV4 PORT BYTES
 *   nstraffic tcp-recv PORT BYTES READY_FILE
 *   nstraffic split COUNT CUT
 *
 * recv waits without limit until SIGUSR1 says the sender is done, then
 * until COUNT frames arrived or none did for IDLE_MS: a sender that is
 * slow to start is never taken for lost frames.
 *
 * Frame seq has length 60..1514 (a function of seq), UDP source port
 * 10000 + seq % FLOWS, and a payload that is a function of seq. Its IPv4
 * destination is on no host, so the receiving stack ignores it. recv exits
 * 0 when all COUNT frames arrived exactly once and byte-identical, and
 * prints what it saw; with "rewritten" it expects every frame as
 * cut_nf's rewrite mode leaves it (source address 10.99.1.2, source port
 * + 1000), checksums computed afresh here; with "nat IPV4" as a source
 * NAT leaves it (source address IPV4, any source port, the TTL one less
 * (a router), both checksums valid, all else unchanged). A frame's destination MAC must be IFACE's,
 * its source MAC the sender's (02:00:00:00:00:01; a NAT's own MAC, any,
 * with "nat"); with -f its source port must be exactly its flow's (else
 * any of the 1,000 after 10000). Every frame carries a UDP
 * checksum. recv's summary names the frames its socket dropped too (a
 * buffer full). tcp-recv exits 0 when it got exactly BYTES bytes of
 * the stream tcp-send writes (byte i is a function of i). split prints
 * how COUNT frames divide under a CUT-byte cut: "CUT WHOLE
 * WHOLE_BYTES" (a frame with fewer than NETSLICE_MIN_PARK bytes beyond
 * its cut is read whole).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "netslice.h"

#define MIN_LEN 60
#define MAX_LEN 1514
#define HDR_LEN (14 + 20 + 8)
#define MAGIC "NSLICE01"

static unsigned int frame_len(uint32_t seq)
{
	return MIN_LEN + (seq * 7919u) % (MAX_LEN - MIN_LEN + 1);
}

static uint32_t sum16(const uint8_t *p, int len, uint32_t sum)
{
	int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	if (len & 1)
		sum += p[len - 1] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

static uint16_t ip_csum(const uint8_t *p, int len)
{
	return fold(sum16(p, len, 0));
}

/* The UDP checksum of the datagram at udp, over its IPv4 pseudo-header. */
static uint16_t udp_csum(const uint8_t *ip, const uint8_t *udp, int len)
{
	uint16_t c = fold(sum16(ip + 12, 8, 17 + len) + sum16(udp, len, 0));

	return c ? c : 0xffff;
}

/* What a receiver expects an NF to have done to the frames. */
static struct {
	int port_shift;		/* added to the source port */
	int any_port;		/* source port rewritten to anything */
	unsigned int flows;	/* 0: the source port only in range */
	uint8_t src_ip[4];	/* source address */
	uint8_t dst_mac[6];	/* the receiving interface's */
	int any_src_mac;	/* rewritten by a NAT */
	int hops;		/* routers on the way: the TTL is less by as many */
} expect = { .src_ip = { 10, 99, 1, 1 } };

/* Every frame's source MAC, as sent. */
static const uint8_t src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static int parse_mac(const char *s, uint8_t *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3],
		      &mac[4], &mac[5]) == 6 ? 0 : -1;
}

static void build(uint8_t *f, uint32_t seq, const uint8_t *dst, const uint8_t *src,
		  unsigned int flows, int rewritten)
{
	unsigned int len = frame_len(seq), i;
	uint16_t sport = 10000 + seq % flows + (rewritten ? expect.port_shift : 0), v;
	uint8_t *ip = f + 14, *udp = ip + 20, *pl = udp + 8;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	v = htons(len - 14);
	memcpy(ip + 2, &v, 2);
	v = htons(seq & 0xffff);
	memcpy(ip + 4, &v, 2);
	ip[8] = (uint8_t)(64 - (rewritten ? expect.hops : 0));
	ip[9] = 17;
	if (rewritten)
		memcpy(ip + 12, expect.src_ip, 4);
	else
		memcpy(ip + 12, "\x0a\x63\x01\x01", 4);	/* 10.99.1.1 */
	ip[16] = 10; ip[17] = 99; ip[18] = 9; ip[19] = 9;
	v = htons(ip_csum(ip, 20));
	memcpy(ip + 10, &v, 2);
	v = htons(sport);
	memcpy(udp, &v, 2);
	v = htons(9);
	memcpy(udp + 2, &v, 2);
	v = htons(len - 34);
	memcpy(udp + 4, &v, 2);
	udp[6] = udp[7] = 0;
	memcpy(pl, MAGIC, 8);
	memcpy(pl + 8, &seq, 4);
	for (i = HDR_LEN + 12; i < len; i++)
		f[i] = (uint8_t)(seq * 31 + i * 17 + (seq >> 8));
	v = htons(udp_csum(ip, udp, len - 34));
	memcpy(udp + 6, &v, 2);
}

static int open_sock(const char *ifname, int *ifindex)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP) };
	int fd, sz = 64 << 20;

	*ifindex = if_nametoindex(ifname);
	if (!*ifindex) {
		perror(ifname);
		exit(2);
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	sll.sll_ifindex = *ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("bind");
		exit(2);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
	return fd;
}

static int if_mac(int fd, const char *ifname, uint8_t *mac)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		perror(ifname);
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

static int do_send(char **argv)
{
	uint8_t dst[6], f[MAX_LEN];
	uint32_t count = strtoul(argv[2], NULL, 0), seq;
	unsigned int flows = argv[3] ? strtoul(argv[3], NULL, 0) : 64;
	int fd, ifindex;

	if (parse_mac(argv[1], dst) || !flows)
		return 2;
	fd = open_sock(argv[0], &ifindex);
	for (seq = 0; seq < count; seq++) {
		build(f, seq, dst, src_mac, flows, 0);
		while (send(fd, f, frame_len(seq), 0) < 0) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				perror("send");
				return 1;
			}
			usleep(100);
		}
	}
	printf("sent %u\n", count);
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The MACs and UDP source port are as expected and the checksum holds. */
static int frame_ok(const uint8_t *f, ssize_t n, uint32_t seq, int rewritten)
{
	unsigned int sport = f[34] << 8 | f[35], base = 10000 + (rewritten ? expect.port_shift : 0);
	uint8_t udp[MAX_LEN];
	int port_ok;

	if (expect.any_port)
		port_ok = 1;
	else if (expect.flows)
		port_ok = sport == base + seq % expect.flows;
	else
		port_ok = sport >= base && sport < base + 1000;
	memcpy(udp, f + 34, n - 34);
	udp[6] = udp[7] = 0;
	return port_ok && !memcmp(f, expect.dst_mac, 6) &&
	       (expect.any_src_mac || !memcmp(f + 6, src_mac, 6)) &&
	       udp_csum(f + 14, udp, n - 34) == (f[40] << 8 | f[41]);
}

static volatile sig_atomic_t sender_done;

static void on_sender_done(int sig)
{
	(void)sig;
	sender_done = 1;
}

static int do_recv(char **argv)
{
	struct sigaction sa = { .sa_handler = on_sender_done };
	uint32_t count = strtoul(argv[1], NULL, 0), seq, uniq = 0, dup = 0, bad = 0, other = 0;
	long long idle_ms = strtoll(argv[2], NULL, 0), last;
	uint8_t f[MAX_LEN + 64], want[MAX_LEN], *seen;
	struct sockaddr_ll from;
	struct tpacket_stats st = { 0 };
	socklen_t fl, stl = sizeof(st);
	struct pollfd pfd;
	int fd, ifindex, rewritten;
	ssize_t n;
	FILE *ready;

	rewritten = argv[4] != NULL;
	if (rewritten && !strcmp(argv[4], "rewritten")) {
		memcpy(expect.src_ip, "\x0a\x63\x01\x02", 4);	/* 10.99.1.2 */
		expect.port_shift = 1000;
	} else if (rewritten && (strcmp(argv[4], "nat") || !argv[5] ||
				 inet_pton(AF_INET, argv[5], expect.src_ip) != 1)) {
		fprintf(stderr, "nstraffic: recv: expected \"rewritten\" or \"nat IPV4\"\n");
		return 2;
	} else if (rewritten) {
		expect.any_port = 1;
		expect.any_src_mac = 1;
		expect.hops = 1;	/* a NAT is a router */
	}
	seen = calloc(count ? count : 1, 1);
	fd = open_sock(argv[0], &ifindex);
	if (if_mac(fd, argv[0], expect.dst_mac))
		return 2;
	sigaction(SIGUSR1, &sa, NULL);
	ready = fopen(argv[3], "w");
	if (ready)
		fclose(ready);
	pfd.fd = fd;
	pfd.events = POLLIN;
	last = now_ms();
	while (uniq < count && (!sender_done || now_ms() - last < idle_ms)) {
		if (poll(&pfd, 1, 100) <= 0) {
			if (sender_done == 1) {
				/* The idle limit counts from the sender's end. */
				sender_done = 2;
				last = now_ms();
			}
			continue;
		}
		fl = sizeof(from);
		n = recvfrom(fd, f, sizeof(f), 0, (struct sockaddr *)&from, &fl);
		if (n < 0 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		last = now_ms();
		if (n < HDR_LEN + 12 || memcmp(f + HDR_LEN, MAGIC, 8)) {
			other++;
			continue;
		}
		memcpy(&seq, f + HDR_LEN + 8, 4);
		if (seq >= count) {
			bad++;
			continue;
		}
		build(want, seq, f, f + 6, 1, rewritten);
		/* Ports differ by flow: compare the rest, check the port and checksum. */
		if ((size_t)n != frame_len(seq) || memcmp(f + 12, want + 12, 22) ||
		    memcmp(f + HDR_LEN, want + HDR_LEN, n - HDR_LEN) || !frame_ok(f, n, seq, rewritten)) {
			bad++;
			continue;
		}
		if (seen[seq]++)
			dup++;
		else
			uniq++;
	}
	/* Frames the socket itself dropped (its buffer full), a place of loss to name. */
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &stl))
		st.tp_drops = 0;
	printf("received unique %u of %u, duplicates %u, corrupt %u, other %u, missing %u, socket drops %u\n",
	       uniq, count, dup, bad, other, count - uniq, st.tp_drops);
	return uniq == count && !dup && !bad ? 0 : 1;
}

static uint8_t stream_byte(uint64_t i)
{
	return (uint8_t)(i * 131 + (i >> 11));
}

static int do_tcp_send(char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[1])) };
	uint64_t total = strtoull(argv[2], NULL, 0), off = 0;
	uint8_t buf[65536];
	size_t i, n;
	ssize_t w;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || inet_pton(AF_INET, argv[0], &sa.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("tcp-send");
		return 1;
	}
	while (off < total) {
		n = total - off < sizeof(buf) ? total - off : sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = stream_byte(off + i);
		w = write(fd, buf, n);
		if (w <= 0) {
			perror("write");
			return 1;
		}
		off += w;
	}
	close(fd);
	return 0;
}

static int do_tcp_recv(char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[0])) };
	uint64_t total = strtoull(argv[1], NULL, 0), off = 0, bad = 0;
	uint8_t buf[65536];
	int lfd, fd, one = 1;
	ssize_t n, i;
	FILE *ready;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
		perror("tcp-recv");
		return 1;
	}
	ready = fopen(argv[2], "w");
	if (ready)
		fclose(ready);
	fd = accept(lfd, NULL, NULL);
	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++)
			bad += buf[i] != stream_byte(off + i);
		off += n;
	}
	printf("tcp: received %llu of %llu bytes, %llu differ\n", (unsigned long long)off,
	       (unsigned long long)total, (unsigned long long)bad);
	return off == total && !bad ? 0 : 1;
}

static int do_split(char **argv)
{
	uint32_t count = strtoul(argv[0], NULL, 0), cut = strtoul(argv[1], NULL, 0), seq;
	unsigned long long n_cut = 0, whole = 0, whole_bytes = 0;

	for (seq = 0; seq < count; seq++) {
		if (frame_len(seq) >= cut + NETSLICE_MIN_PARK) {
			n_cut++;
		} else {
			whole++;
			whole_bytes += frame_len(seq);
		}
	}
	printf("%llu %llu %llu\n", n_cut, whole, whole_bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "tcp-send"))
		return do_tcp_send(argv + 2);
	if (argc == 5 && !strcmp(argv[1], "tcp-recv"))
		return do_tcp_recv(argv + 2);
	if (argc >= 5 && !strcmp(argv[1], "send"))
		return do_send(argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "recv")) {
		for (; argc >= 4 && argv[2][0] == '-'; argc -= 2, argv += 2) {
			if (!strcmp(argv[2], "-f") && atoi(argv[3]) > 0)
				expect.flows = (unsigned int)atoi(argv[3]);
			else
				break;
		}
		if (argc >= 6 && argc <= 8 && argv[2][0] != '-')
			return do_recv(argv + 2);
	}
	if (argc == 4 && !strcmp(argv[1], "split"))
		return do_split(argv + 2);
	fprintf(stderr, "usage: nstraffic send IFACE DSTMAC COUNT [FLOWS]\n"
			"       nstraffic recv [-f FLOWS] IFACE COUNT IDLE_MS READY_FILE\n"
			"                      [rewritten | nat IPV4]\n"
			"       nstraffic tcp-send IPV4 PORT BYTES\n"
			"       nstraffic tcp-recv PORT BYTES READY_FILE\n"
			"       nstraffic split COUNT CUT\n");
	return 2;
}
