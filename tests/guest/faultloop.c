// SPDX-License-Identifier: GPL-2.0
/*
 * faultloop: the many-round faults of test_faults.sh, in one process (a
 * shell loop spends seconds per round starting programs under emulation).
 *
 *   faultloop kill ROUNDS
 *	A forwarder child reads and writes back batches on every slice (with
 *	"auto" header slicing, so payloads are parked while it works); once
 *	it has moved packets it is SIGKILLed, mid-batch, and the next starts.
 *	After each kill no payload may stay parked. Every other forwarder
 *	uses ring mode, and every other of those unmaps its rings first.
 *   faultloop rmmod ROUNDS MODULE [PARAMS]
 *	Each round loads MODULE with PARAMS, runs such a forwarder until it
 *	moves packets, kills it and unloads the module, under traffic.
 *
 *   faultloop delete ROUNDS
 *	With the module loaded, each round creates a veth pair, attaches one
 *	end, sends frames into the other until the attached end has received
 *	some (a forwarder child reads and writes back), then deletes the pair
 *	under that traffic.
 *
 *   faultloop failopen PATH
 *	For N = 1, 2, ...: opens PATH with this thread's N-th allocation
 *	failing (/proc/thread-self/fail-nth), until an open goes through
 *	without reaching its N-th. Every failed open must have been an
 *	injected failure.
 *   faultloop failload MODULE PARAMS NODES [STEP]
 *	The same sweep over loading MODULE with PARAMS, N = 1, 1 + STEP,
 *	1 + 2 * STEP, ... (a short run's sample): each load is refused
 *	with ENOMEM leaving no module and no node behind, or (an allocation
 *	whose failure has a fallback) loads with NODES nodes and unloads.
 *
 *   faultloop hold SECONDS
 *	Reads every slice with the "auto" cut for SECONDS and never writes a
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

#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/netslice.h>
#include <linux/netslice_netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sys/socket.h>

#include "netslice.h"
#include "nlreq.h"

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

/*
 * The child in ring mode: the same through mapped rings. With unmap, it
 * unmaps them once it has moved packets and waits to be killed, the
 * kernel still filling the frames it no longer sees.
 */
static void forward_ring(int *fds, int n, bool unmap)
{
	static struct ns_ring *rings[MAX_FDS];
	struct netslice_ring_setup setup;
	struct netslice_iov iov[BATCH];

	ns_ring_config_default(&setup, BATCH);
	for (int s = 0; s < n; s++)
		if (ns_ring_open(&rings[s], fds[s], &setup))
			_exit(1);
	for (;;) {
		for (int s = 0; s < n; s++) {
			unsigned int got = ns_ring_peek(rings[s], iov, BATCH);

			if (!got)
				continue;
			for (unsigned int i = 0; i < got; i++)
				iov[i].action = NETSLICE_TX_DEFAULT;
			if (ns_ring_send(rings[s], iov, got) > 0)
				__atomic_add_fetch(moved, got, __ATOMIC_RELAXED);
			ns_ring_release(rings[s], got);
			if (unmap) {
				for (int t = 0; t < n; t++)
					ns_ring_close(rings[t]);
				for (;;)
					pause();
			}
		}
	}
}

/*
 * The child: forward forever, counting packets moved, until killed:
 * read and write in even rounds, ring mode in odd ones (unmapping its
 * rings first in every other of those).
 */
static void forward(int round)
{
	static unsigned char buf[BATCH][2048];
	struct netslice_iov iov[BATCH];
	int fds[MAX_FDS], n = open_slices(fds);

	if (!n)
		_exit(1);
	if (round % 2)
		forward_ring(fds, n, round % 4 == 3);
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
 * For every slice: set the "auto" cut (@auto) and return the sum of
 * store_used, or -1 if no slice opens.
 */
static long slices_visit(bool auto_cut)
{
	struct netslice_cut sl = { .mode = NETSLICE_CUT_AUTO };
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
		if ((auto_cut && ioctl(fd, NETSLICE_CUT_SET, &sl)) ||
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
		forward(round);
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

/* The veth pair fdel0 (attached) / fdel1 (traffic enters). */
static int pair_add(int rtnl)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlreq req;
	size_t info, data, peer;

	nlreq_init(&req, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof(ifi));
	nlreq_put(&req, IFLA_IFNAME, "fdel0", sizeof("fdel0"));
	info = nlreq_nest(&req, IFLA_LINKINFO);
	nlreq_put(&req, IFLA_INFO_KIND, "veth", sizeof("veth"));
	data = nlreq_nest(&req, IFLA_INFO_DATA);
	peer = nlreq_nest(&req, VETH_INFO_PEER);
	nlreq_append(&req, &ifi, sizeof(ifi));
	nlreq_put(&req, IFLA_IFNAME, "fdel1", sizeof("fdel1"));
	nlreq_end(&req, peer);
	nlreq_end(&req, data);
	nlreq_end(&req, info);
	return nlreq_talk(rtnl, &req);
}

/* Up (a veth cannot be created up: its peer does not exist yet) or deleted. */
static int link_set(int rtnl, unsigned int ifindex, bool del)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex,
				 .ifi_flags = IFF_UP, .ifi_change = IFF_UP };
	struct nlreq req;

	nlreq_init(&req, del ? RTM_DELLINK : RTM_NEWLINK, 0, &ifi, sizeof(ifi));
	return nlreq_talk(rtnl, &req);
}

/* NETSLICE_CMD_LINK_ATTACH or _DETACH of @ifindex: 0 or -errno. */
static int link_cmd(int genl, uint16_t family, uint8_t cmd, unsigned int ifindex)
{
	struct genlmsghdr gh = { .cmd = cmd, .version = NETSLICE_FAMILY_VERSION };
	uint32_t idx = ifindex;
	struct nlreq req;

	nlreq_init(&req, family, 0, &gh, sizeof(gh));
	nlreq_put(&req, NETSLICE_A_LINK_IFINDEX, &idx, sizeof(idx));
	return nlreq_talk(genl, &req);
}

/* The child: frames into @ifindex until it disappears. */
static void feed(unsigned int ifindex)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_ifindex = (int)ifindex,
				  .sll_halen = ETH_ALEN };
	unsigned char frame[128] = { 0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02,
				     0x88, 0xb5 };	/* local experimental EtherType */
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	if (fd < 0)
		_exit(1);
	while (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&to, sizeof(to)) >= 0 ||
	       errno == ENOBUFS)
		;
	_exit(0);
}

static unsigned long rx_packets(const char *ifname)
{
	char path[96];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/rx_packets", ifname);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

static int delete_one(int rtnl, int genl, uint16_t family, int round)
{
	unsigned int attached, peer;
	long deadline;
	pid_t feeder;
	int err;

	err = pair_add(rtnl);
	attached = if_nametoindex("fdel0");
	peer = if_nametoindex("fdel1");
	if (!err && attached && peer)
		err = link_set(rtnl, attached, false) ?: link_set(rtnl, peer, false);
	if (err || !attached || !peer) {
		fprintf(stderr, "faultloop: round %d: veth pair: %s\n", round, strerror(-err));
		return -1;
	}
	err = link_cmd(genl, family, NETSLICE_CMD_LINK_ATTACH, attached);
	if (err) {
		fprintf(stderr, "faultloop: round %d: attach: %s\n", round, strerror(-err));
		link_set(rtnl, attached, true);
		return -1;
	}
	feeder = fork();
	if (feeder < 0)
		return -1;
	if (!feeder)
		feed(peer);
	deadline = now_ms() + 10000;
	while (rx_packets("fdel0") < 100 && now_ms() < deadline)
		usleep(1000);
	if (rx_packets("fdel0") < 100)
		fprintf(stderr, "faultloop: round %d: no traffic in 10 s\n", round);
	else
		err = link_set(rtnl, attached, true);
	if (err)
		fprintf(stderr, "faultloop: round %d: delete: %s\n", round, strerror(-err));
	kill(feeder, SIGKILL);
	waitpid(feeder, NULL, 0);
	if (err || rx_packets("fdel0") >= 100)
		return -1;
	/* The module let go of it with the device (the test counts the log lines). */
	err = link_cmd(genl, family, NETSLICE_CMD_LINK_DETACH, attached);
	if (err != -ENODEV) {
		fprintf(stderr, "faultloop: round %d: detach after delete: %s\n", round,
			strerror(-err));
		return -1;
	}
	return 0;
}

static int delete_rounds(int rounds)
{
	int rtnl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int genl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	uint16_t family = genl < 0 ? 0 : nlreq_genl_family(genl, NETSLICE_FAMILY_NAME);
	pid_t fwd;
	int i;

	if (rtnl < 0 || !family) {
		fprintf(stderr, "faultloop: no netlink or no \"%s\" family\n", NETSLICE_FAMILY_NAME);
		return 1;
	}
	fwd = fork();
	if (fwd < 0)
		return 1;
	/* Read and write here; test_faults.sh deletes under nf-fwd's rings. */
	if (!fwd)
		forward(0);
	for (i = 0; i < rounds; i++)
		if (delete_one(rtnl, genl, family, i))
			break;
	kill(fwd, SIGKILL);
	waitpid(fwd, NULL, 0);
	printf("faultloop: %d rounds, %lu packets moved\n", i, *moved);
	return i == rounds ? 0 : 1;
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

/*
 * One operation of the fail-nth sweep: attempt() returns >= 0 when it went
 * through, -errno when refused; settle() undoes a success and checks the
 * state the attempt left (0: as it should be).
 */
struct sweep_op {
	const char *what;
	int (*attempt)(char **args);
	int (*settle)(int ret, char **args);
};

static int open_attempt(char **args)
{
	int fd = open(args[0], O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int open_settle(int fd, char **args)
{
	(void)args;
	if (fd >= 0)
		close(fd);
	return 0;
}

static int load_attempt(char **args)
{
	return load(args[0], args[1]) ? -errno : 0;
}

/* Loaded: with args[2] nodes, and it unloads. Refused: nothing left. */
static int load_settle(int ret, char **args)
{
	char path[64];
	int nodes = 0;

	for (int i = 0; i < MAX_FDS; i++) {
		snprintf(path, sizeof(path), "/dev/netslice-%d", i);
		nodes += !access(path, F_OK);
	}
	if (ret >= 0 && nodes != atoi(args[2])) {
		fprintf(stderr, "faultloop: loaded with %d nodes, not %s\n", nodes, args[2]);
		return 1;
	}
	if (ret >= 0 && syscall(SYS_delete_module, "netslice", O_NONBLOCK)) {
		perror("faultloop: unload");
		return 1;
	}
	if (ret < 0 && (nodes || !access("/sys/module/netslice", F_OK) ||
			!access("/sys/class/netslice", F_OK))) {
		fprintf(stderr, "faultloop: a refused load left the module or %d nodes\n", nodes);
		return 1;
	}
	return 0;
}

/*
 * For N = 1, 2, ...: attempt the operation with this thread's N-th
 * allocation failing (/proc/thread-self/fail-nth; which allocations count
 * is the fault attributes' stack filter), until an attempt goes through
 * without reaching its N-th; N grows by @step. Every refusal must be an
 * injected ENOMEM.
 */
static int fail_sweep(const struct sweep_op *op, char **args, int step)
{
	int nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	int n, refused = 0, absorbed = 0;

	if (nth < 0) {
		perror("faultloop: fail-nth");
		return 1;
	}
	for (n = 1; n < 10000; n += step) {
		char arm[16], left[16] = "";
		int ret;

		snprintf(arm, sizeof(arm), "%d", n);
		if (pwrite(nth, arm, strlen(arm), 0) < 0)
			return 1;
		ret = op->attempt(args);
		/* Reading and rearming through the open file allocates nothing. */
		if (pread(nth, left, sizeof(left) - 1, 0) < 0 || pwrite(nth, "0", 1, 0) < 0)
			return 1;
		if (op->settle(ret, args))
			return 1;
		if (atoi(left)) {
			/* The operation needed fewer than n allocations. */
			if (step > 1)
				printf("faultloop: %s makes fewer than %d allocations; failing "
				       "one in %d in turn,", op->what, n, step);
			else
				printf("faultloop: %s makes %d allocations; failing each in turn,",
				       op->what, n - 1);
			printf(" %d were refused (ENOMEM), %d went through anyway, then it went "
			       "through unharmed\n", refused, absorbed);
			return ret >= 0 && refused ? 0 : 1;
		}
		if (ret < 0 && ret != -ENOMEM) {
			fprintf(stderr, "faultloop: allocation %d failing: %s: %s\n", n,
				op->what, strerror(-ret));
			return 1;
		}
		refused += ret < 0;
		absorbed += ret >= 0;
	}
	fprintf(stderr, "faultloop: %s still reaches its %d-th allocation\n", op->what, n);
	return 1;
}

static const struct sweep_op sweep_open = { "open", open_attempt, open_settle };
static const struct sweep_op sweep_load = { "load", load_attempt, load_settle };

/* Read without writing back: parked payloads pile up until the store is full. */
static int hold(int seconds)
{
	static unsigned char buf[BATCH][256];
	struct netslice_iov iov[BATCH];
	unsigned long read_n = 0, n_cut = 0, full = 0;
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
				n_cut += !!(iov[i].flags & NETSLICE_RX_CUT);
				full += !!(iov[i].flags & NETSLICE_RX_STORE_FULL);
			}
		}
		usleep(1000);
	}
	printf("faultloop: held %lu packets read, %lu cut, %lu whole for a full store\n",
	       read_n, n_cut, full);
	return n_cut && full ? 0 : 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 0, i;
	bool unload;

	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "failopen"))
		return fail_sweep(&sweep_open, argv + 2, 1);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "failload"))
		return fail_sweep(&sweep_load, argv + 2, argc == 6 && atoi(argv[5]) > 1 ?
				  atoi(argv[5]) : 1);
	if (argc < 3 || (strcmp(argv[1], "kill") && strcmp(argv[1], "delete") &&
			 (strcmp(argv[1], "rmmod") || argc < 4))) {
		fprintf(stderr, "usage: faultloop kill ROUNDS | rmmod ROUNDS MODULE [PARAMS] |\n"
				"                 delete ROUNDS | hold SECONDS | failopen PATH |\n"
				"                 failload MODULE PARAMS NODES [STEP]\n");
		return 2;
	}
	unload = !strcmp(argv[1], "rmmod");
	moved = mmap(NULL, sizeof(*moved), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (moved == MAP_FAILED)
		return 1;
	if (!strcmp(argv[1], "delete"))
		return delete_rounds(rounds);
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
