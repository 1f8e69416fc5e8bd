// SPDX-License-Identifier: GPL-2.0
/*
 * cut_nf: test network functions on slice 0 that work on headers only.
 *
 *   cut_nf rewrite [CUT]         source address .1 -> .2 and UDP source
 *                                port + 1000 (nstraffic frames), fixing
 *                                the IPv4 and UDP checksums incrementally
 *   cut_nf vlan [CUT]            pop an 802.1Q tag if there is one, else
 *                                push tag 100: the header shrinks or grows
 *   cut_nf hold:N [CUT]          read until N payloads are parked, then
 *                                hold them (print "holding N") until killed
 *
 * CUT is a cut for ns_cut_parse() (default "auto"). Frames go out
 * of their default egress. Prints "serving" when ready; on SIGTERM, the
 * counts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netslice.h"

#define BATCH 64
#define BUF_SIZE 2048

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* RFC 1624: checksum at c after a 16-bit word changes from old to new. */
static void csum_replace(uint8_t *c, uint16_t old, uint16_t new)
{
	uint32_t sum = (uint16_t)~(c[0] << 8 | c[1]) + (uint16_t)~old + new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (uint16_t)~sum;
	c[0] = sum >> 8;
	c[1] = sum & 0xff;
}

static uint16_t word(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static void set_word(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* Rewrite an IPv4/UDP header (no options) in place; 0 if not one. */
static int rewrite(uint8_t *f, unsigned int len)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint16_t old_addr, new_addr, old_port, new_port;

	if (len < 42 || word(f + 12) != 0x0800 || ip[0] != 0x45 || ip[9] != 17)
		return 0;
	old_addr = word(ip + 14);
	new_addr = (old_addr & 0xff00) | 2;
	old_port = word(udp);
	new_port = old_port + 1000;
	set_word(ip + 14, new_addr);
	csum_replace(ip + 10, old_addr, new_addr);
	set_word(udp, new_port);
	if (word(udp + 6)) {
		/* The UDP checksum covers the address (pseudo-header) and the port. */
		csum_replace(udp + 6, old_addr, new_addr);
		csum_replace(udp + 6, old_port, new_port);
		if (!word(udp + 6))
			set_word(udp + 6, 0xffff);
	}
	return 1;
}

/* Pop an 802.1Q tag, or push one; returns the new length. */
static unsigned int vlan(uint8_t *f, unsigned int len)
{
	if (len >= 18 && word(f + 12) == 0x8100) {
		memmove(f + 12, f + 16, len - 16);
		return len - 4;
	}
	memmove(f + 16, f + 12, len - 12);
	set_word(f + 12, 0x8100);
	set_word(f + 14, 100);
	return len + 4;
}

int main(int argc, char **argv)
{
	struct netslice_iov iov[BATCH];
	struct netslice_cut cut;
	unsigned long long in = 0, n_cut = 0, rewritten = 0, errors = 0;
	unsigned int hold = 0, i;
	const char *mode;
	struct sigaction sa;
	uint8_t *bufs;
	ssize_t n;
	int fd;

	if (argc < 2 || argc > 3 || ns_cut_parse(argc == 3 ? argv[2] : "auto", &cut)) {
		fprintf(stderr, "usage: cut_nf rewrite|vlan|hold:N [CUT]\n");
		return 2;
	}
	mode = argv[1];
	if (!strncmp(mode, "hold:", 5))
		hold = strtoul(mode + 5, NULL, 0);
	else if (strcmp(mode, "rewrite") && strcmp(mode, "vlan"))
		return 2;

	fd = ns_open(0, 0);
	if (fd < 0 || ns_cut_set(fd, &cut)) {
		perror("cut_nf: slice 0");
		return 1;
	}
	/* Holding means keeping the buffers of every packet read. */
	bufs = malloc((size_t)(hold ? hold + BATCH : BATCH) * BUF_SIZE);
	if (!bufs)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("cut_nf: serving (%s)\n", mode);
	fflush(stdout);

	while (!stopping) {
		uint8_t *base = bufs + (hold ? n_cut * BUF_SIZE : 0);

		for (i = 0; i < BATCH; i++)
			iov[i] = (struct netslice_iov) {
				.base = (__u64)(unsigned long)(base + i * BUF_SIZE),
				.len = BUF_SIZE - 4,	/* room to push a tag */
			};
		n = ns_read(fd, iov, hold && hold - n_cut < BATCH ? hold - n_cut : BATCH);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("cut_nf: read");
			return 1;
		}
		in += n;
		for (i = 0; i < (unsigned int)n; i++) {
			uint8_t *f = (uint8_t *)(unsigned long)iov[i].base;

			n_cut += !!(iov[i].flags & NETSLICE_RX_CUT);
			if (!strcmp(mode, "rewrite"))
				rewritten += rewrite(f, iov[i].rlen);
			else if (!strcmp(mode, "vlan"))
				iov[i].rlen = vlan(f, iov[i].rlen);
		}
		if (hold) {
			if (n_cut >= hold) {
				printf("cut_nf: holding %llu\n", n_cut);
				fflush(stdout);
				while (!stopping)
					pause();
			}
			continue;
		}
		if (ns_write_all(fd, iov, n) < 0) {
			perror("cut_nf: write");
			return 1;
		}
		for (i = 0; i < (unsigned int)n; i++)
			errors += !!iov[i].error;
	}
	printf("cut_nf: in %llu cut %llu rewritten %llu errors %llu\n",
	       in, n_cut, rewritten, errors);
	return errors ? 1 : 0;
}
