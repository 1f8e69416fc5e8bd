// SPDX-License-Identifier: GPL-2.0
/*
 * nfclient: the TCP ends and the wire watcher of the NF guest tests.
 *
 *   nfclient serve PORT TAG         answer each request line with "TAG PEERADDR\n"
 *                                   (a process per connection, until killed)
 *   nfclient ask ADDR PORT          one request; print the answer; exit 0 if answered
 *   nfclient flows ADDR PORT N SPORT  N connections from source ports SPORT..,
 *                                   one request each; print "TAG count" per server
 *   nfclient hold ADDR PORT SPORT N FILE  N connections from source ports
 *                                   SPORT..: ask on each, then write FILE, wait
 *                                   for FILE.go, ask again on each; exit 0 if
 *                                   every connection's server answered twice
 *   nfclient watch IFACE FILE       count frames received on IFACE by kind until
 *                                   SIGTERM, then write "esp N arp N other N" to FILE
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TIMEOUT_S 5

static int tcp_connect(const char *addr, int port, int sport)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = TIMEOUT_S };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (sport) {
		struct sockaddr_in src = { .sin_family = AF_INET, .sin_port = htons(sport) };

		if (bind(fd, (struct sockaddr *)&src, sizeof(src)))
			goto err;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto err;
	return fd;
err:
	close(fd);
	return -1;
}

/* Send a request line, read the answer line into buf. */
static int ask(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	if (write(fd, "?\n", 2) != 2)
		return -1;
	while (got < size - 1) {
		n = read(fd, buf + got, 1);
		if (n <= 0)
			return -1;
		if (buf[got++] == '\n')
			break;
	}
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int do_serve(int port, const char *tag)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) }, peer;
	socklen_t len;
	int lfd = socket(AF_INET, SOCK_STREAM, 0), fd, one = 1;
	char line[128], c;

	signal(SIGCHLD, SIG_IGN);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 512)) {
		perror("serve");
		return 1;
	}
	printf("serving %d\n", port);
	fflush(stdout);
	for (;;) {
		len = sizeof(peer);
		fd = accept(lfd, (struct sockaddr *)&peer, &len);
		if (fd < 0)
			continue;
		if (!fork()) {
			close(lfd);
			snprintf(line, sizeof(line), "%s %s\n", tag, inet_ntoa(peer.sin_addr));
			while (read(fd, &c, 1) == 1)
				if (c == '\n' && write(fd, line, strlen(line)) < 0)
					break;
			_exit(0);
		}
		close(fd);
	}
}

static int do_ask(const char *addr, int port)
{
	char buf[128];
	int fd = tcp_connect(addr, port, 0);

	if (fd < 0 || ask(fd, buf, sizeof(buf))) {
		perror("ask");
		return 1;
	}
	printf("%s\n", buf);
	close(fd);
	return 0;
}

static int do_flows(const char *addr, int port, int n, int sport)
{
	char tags[16][64] = { { 0 } }, buf[128];
	int counts[16] = { 0 }, i, k, fd, failed = 0;

	for (i = 0; i < n; i++) {
		fd = tcp_connect(addr, port, sport + i);
		if (fd < 0 || ask(fd, buf, sizeof(buf))) {
			fprintf(stderr, "flow from port %d: %s\n", sport + i, strerror(errno));
			failed++;
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		buf[strcspn(buf, " ")] = '\0';
		for (k = 0; k < 16 && tags[k][0] && strcmp(tags[k], buf); k++)
			;
		if (k == 16)
			continue;
		snprintf(tags[k], sizeof(tags[k]), "%.63s", buf);
		counts[k]++;
	}
	for (k = 0; k < 16 && tags[k][0]; k++)
		printf("%s %d\n", tags[k], counts[k]);
	printf("failed %d\n", failed);
	return failed ? 1 : 0;
}

#define HOLD_MAX 256

static int do_hold(const char *addr, int port, int sport, int n, const char *file)
{
	static char first[HOLD_MAX][128];
	char second[128], go[512];
	int fd[HOLD_MAX], i, moved = 0;
	struct stat st;
	FILE *f;

	if (n < 1 || n > HOLD_MAX)
		return 2;
	for (i = 0; i < n; i++) {
		fd[i] = tcp_connect(addr, port, sport + i);
		if (fd[i] < 0 || ask(fd[i], first[i], sizeof(first[i]))) {
			fprintf(stderr, "hold, flow from port %d: %s\n", sport + i, strerror(errno));
			return 1;
		}
	}
	f = fopen(file, "w");
	if (!f)
		return 1;
	fprintf(f, "%d held\n", n);
	fclose(f);
	snprintf(go, sizeof(go), "%s.go", file);
	for (i = 0; i < 600 && stat(go, &st); i++)
		usleep(50000);
	for (i = 0; i < n; i++) {
		if (ask(fd[i], second, sizeof(second))) {
			fprintf(stderr, "hold, flow from port %d, second request: %s\n", sport + i,
				strerror(errno));
			return 1;
		}
		if (strcmp(first[i], second)) {
			printf("flow from port %d: first %s, then %s\n", sport + i, first[i], second);
			moved++;
		}
		close(fd[i]);
	}
	printf("%d flows held, %d changed server\n", n, moved);
	return moved ? 1 : 0;
}

static volatile sig_atomic_t watching = 1;

static void stop_watch(int sig)
{
	(void)sig;
	watching = 0;
}

static int do_watch(const char *ifname, const char *file)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	unsigned long esp = 0, arp = 0, other = 0;
	unsigned char f[2048];
	struct sigaction sa = { .sa_handler = stop_watch };
	FILE *out;
	ssize_t n;
	int fd;

	sigaction(SIGTERM, &sa, NULL);
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (fd < 0 || !sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("watch");
		return 1;
	}
	printf("watching %s\n", ifname);
	fflush(stdout);
	while (watching) {
		n = recv(fd, f, sizeof(f), 0);
		if (n < 14)
			continue;
		if (f[12] == 0x08 && f[13] == 0x06)
			arp++;
		else if (f[12] == 0x08 && f[13] == 0x00 && n >= 34 && f[23] == IPPROTO_ESP)
			esp++;
		else
			other++;
	}
	out = fopen(file, "w");
	if (!out)
		return 1;
	fprintf(out, "esp %lu arp %lu other %lu\n", esp, arp, other);
	fclose(out);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return do_serve(atoi(argv[2]), argv[3]);
	if (argc == 4 && !strcmp(argv[1], "ask"))
		return do_ask(argv[2], atoi(argv[3]));
	if (argc == 6 && !strcmp(argv[1], "flows"))
		return do_flows(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "hold"))
		return do_hold(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), argv[6]);
	if (argc == 4 && !strcmp(argv[1], "watch"))
		return do_watch(argv[2], argv[3]);
	fprintf(stderr, "usage: see the head of nfclient.c\n");
	return 2;
}
