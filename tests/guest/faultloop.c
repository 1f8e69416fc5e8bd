// SPDX-License-Identifier: GPL-2.0
/*
 * faultloop: the many-round faults of test_faults.sh, in one process (a
 * shell loop spends seconds per round starting programs under emulation).
 *
 *   faultloop kill ROUNDS
 *	A forwarder child reads and writes back batches on every slice (with
 *	"auto" header slicing, so payloads are parked while it works); once
 *	it has moved packets it is SIGKILLed, mid-batch, and the next starts.
 *	After each kill no payload may stay parked.
 *   faultloop rmmod ROUNDS MODULE [PARAMS]
 *	Each round loads MODULE with PARAMS, runs such a forwarder until it
 *	moves packets, kills it and unloads the module, under traffic.
 *
 *   faultloop hold SECONDS
 *	Reads every slice with "auto" slicing for SECONDS and never writes a
 *	handle back, so the payload stores fill up; prints what it read.
 *
 * Prints "faultloop: N rounds" and exits 0 when every round did its part.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/netslice.h>

#define BATCH	64
#define MAX_FDS	NETSLICE_MAX_SLICES

static volatile unsigned long *moved;	/* shared with the children */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Opens every slice (non-blocking) into @fds; returns how many. */
static int open_slices(int *fds)
{
	char path[64];
	int n;

	for (n = 0; n < MAX_FDS; n++) {
		snprintf(path, sizeof(path), "/dev/" NETSLICE_DEV_PREFIX "%d", n);
		fds[n] = open(path, O_RDWR | O_NONBLOCK);
		if (fds[n] < 0)
			break;
	}
	return n;
}

/* One batch from @fd into fresh iovs over @buf (BATCH buffers of @size). */
static ssize_t read_batch(int fd, struct netslice_iov *iov, unsigned char *buf, size_t size)
{
	memset(iov, 0, BATCH * sizeof(*iov));
	for (int i = 0; i < BATCH; i++) {
		iov[i].base = (unsigned long)(buf + i * size);
		iov[i].len = (__u32)size;
	}
	return read(fd, iov, BATCH);
}

/* The child: forward forever, counting packets moved, until killed. */
static void forward(void)
{
	static unsigned char buf[BATCH][2048];
	struct netslice_iov iov[BATCH];
	int fds[MAX_FDS], n = open_slices(fds);

	if (!n)
		_exit(1);
	for (;;) {
		for (int s = 0; s < n; s++) {
			ssize_t got = read_batch(fds[s], iov, buf[0], sizeof(buf[0]));

			if (got <= 0)
				continue;
			for (ssize_t i = 0; i < got; i++)
				iov[i].action = NETSLICE_TX_DEFAULT;
			/* A short count (busy egress) leaves the rest unsent: fine here. */
			if (write(fds[s], iov, (size_t)got) > 0)
				__atomic_add_fetch(moved, (unsigned long)got, __ATOMIC_RELAXED);
		}
	}
}

/*
 * For every slice: set "auto" slicing (@auto) and return the sum of
 * store_used, or -1 if no slice opens.
 */
static long slices_visit(bool auto_slicing)
{
	struct netslice_slicing sl = { .mode = NETSLICE_SLICE_AUTO };
	struct netslice_stats st;
	long used = 0;
	int n;

	for (n = 0; n < MAX_FDS; n++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/dev/" NETSLICE_DEV_PREFIX "%d", n);
		fd = open(path, O_RDWR);
		if (fd < 0)
			break;
		if ((auto_slicing && ioctl(fd, NETSLICE_SLICE_SET, &sl)) ||
		    ioctl(fd, NETSLICE_STATS_GET, &st))
			used = -1;
		else if (used >= 0)
			used += (long)st.store_used;
		close(fd);
	}
	return n ? used : -1;
}

/* One forwarder: started, seen to move packets, SIGKILLed. 0 on success. */
static int kill_one(int round)
{
	unsigned long before = __atomic_load_n(moved, __ATOMIC_RELAXED);
	long deadline = now_ms() + 10000;
	pid_t pid;
	int status;
	long used;

	if (slices_visit(true) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		forward();
	while (__atomic_load_n(moved, __ATOMIC_RELAXED) == before && now_ms() < deadline)
		usleep(1000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (__atomic_load_n(moved, __ATOMIC_RELAXED) == before) {
		fprintf(stderr, "faultloop: round %d: the forwarder moved nothing in 10 s\n", round);
		return -1;
	}
	/* Its files closed at exit, and with them everything it had parked. */
	used = slices_visit(false);
	if (used) {
		fprintf(stderr, "faultloop: round %d: store_used %ld after the kill\n", round, used);
		return -1;
	}
	return 0;
}

static int load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = (int)syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

/* Read without writing back: parked payloads pile up until the store is full. */
static int hold(int seconds)
{
	static unsigned char buf[BATCH][256];
	struct netslice_iov iov[BATCH];
	unsigned long read_n = 0, sliced = 0, full = 0;
	long end = now_ms() + seconds * 1000L;
	int fds[MAX_FDS], n;

	if (slices_visit(true) < 0)
		return 1;
	n = open_slices(fds);
	while (now_ms() < end) {
		for (int s = 0; s < n; s++) {
			ssize_t got = read_batch(fds[s], iov, buf[0], sizeof(buf[0]));

			for (ssize_t i = 0; i < got; i++) {
				read_n++;
				sliced += !!(iov[i].flags & NETSLICE_RX_SLICED);
				full += !!(iov[i].flags & NETSLICE_RX_STORE_FULL);
			}
		}
		usleep(1000);
	}
	printf("faultloop: held %lu packets read, %lu sliced, %lu whole for a full store\n",
	       read_n, sliced, full);
	return sliced && full ? 0 : 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 0, i;
	bool unload;

	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]));
	if (argc < 3 || (strcmp(argv[1], "kill") && (strcmp(argv[1], "rmmod") || argc < 4))) {
		fprintf(stderr, "usage: faultloop kill ROUNDS | rmmod ROUNDS MODULE [PARAMS] | hold SECONDS\n");
		return 2;
	}
	unload = !strcmp(argv[1], "rmmod");
	moved = mmap(NULL, sizeof(*moved), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (moved == MAP_FAILED)
		return 1;
	for (i = 0; i < rounds; i++) {
		if (unload && load(argv[3], argc > 4 ? argv[4] : "")) {
			fprintf(stderr, "faultloop: round %d: load: %s\n", i, strerror(errno));
			break;
		}
		if (kill_one(i))
			break;
		if (unload && syscall(SYS_delete_module, "netslice", O_NONBLOCK)) {
			fprintf(stderr, "faultloop: round %d: unload: %s\n", i, strerror(errno));
			break;
		}
	}
	printf("faultloop: %d rounds, %lu packets moved\n", i, *moved);
	return i == rounds ? 0 : 1;
}
