// SPDX-License-Identifier: GPL-2.0
/*
 * queue_read SLICES COUNT IDLE_MS: read every slice (read/write mode) until
 * COUNT packets in all, or none for IDLE_MS; print, per slice and the RX
 * queue each packet reports, "slice S queue Q packets N" (queue "none"
 * where the driver records none). tests/guest/test_nic_queues.sh checks
 * with it that each RX queue of a multi-queue NIC feeds its own slice.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "netslice.h"

#define MAX_SLICES 16
#define MAX_QUEUES 64
#define BATCH 64

static unsigned long seen[MAX_SLICES][MAX_QUEUES + 1];	/* [MAX_QUEUES]: none */

int main(int argc, char **argv)
{
	static unsigned char buf[BATCH][2048];
	struct netslice_iov iov[BATCH];
	struct pollfd pfd[MAX_SLICES];
	unsigned long want, got = 0;
	int n, idle_ms, i, s, q;
	char path[64];

	if (argc != 4) {
		fprintf(stderr, "usage: queue_read SLICES COUNT IDLE_MS\n");
		return 2;
	}
	n = atoi(argv[1]);
	want = strtoul(argv[2], NULL, 10);
	idle_ms = atoi(argv[3]);
	if (n < 1 || n > MAX_SLICES)
		return 2;
	for (s = 0; s < n; s++) {
		snprintf(path, sizeof(path), "/dev/netslice-%d", s);
		pfd[s].fd = open(path, O_RDWR | O_NONBLOCK);
		pfd[s].events = POLLIN;
		if (pfd[s].fd < 0) {
			perror(path);
			return 1;
		}
	}
	/* Ready: the caller starts its traffic once it sees this line. */
	printf("reading %d slices\n", n);
	fflush(stdout);
	while (got < want) {
		int r = poll(pfd, n, idle_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (s = 0; s < n; s++) {
			ssize_t k;

			if (!(pfd[s].revents & POLLIN))
				continue;
			for (i = 0; i < BATCH; i++)
				iov[i] = (struct netslice_iov){ .base = (unsigned long)buf[i],
								.len = sizeof(buf[i]) };
			k = read(pfd[s].fd, iov, BATCH);
			for (i = 0; i < k; i++) {
				q = iov[i].queue == NETSLICE_QUEUE_NONE || iov[i].queue >= MAX_QUEUES ?
				    MAX_QUEUES : iov[i].queue;
				seen[s][q]++;
				got++;
			}
		}
	}
	for (s = 0; s < n; s++)
		for (q = 0; q <= MAX_QUEUES; q++)
			if (seen[s][q]) {
				if (q == MAX_QUEUES)
					printf("slice %d queue none packets %lu\n", s, seen[s][q]);
				else
					printf("slice %d queue %d packets %lu\n", s, q, seen[s][q]);
			}
	return 0;
}
