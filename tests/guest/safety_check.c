// SPDX-License-Identifier: GPL-2.0
/*
 * safety_check: data-path safety cases of slice 0 (module loaded with
 * slices=1), each a subcommand run by test_safety.sh.
 *
 *   race A B    A attached alone, B its veth peer. A reader's copy of a
 *               sliced packet's iov stalls (userfaultfd write-protect) just
 *               after the handle is written; a second thread writes that
 *               handle with a header longer than the headroom. The splice
 *               must find an skb nobody else holds (it was a BUG_ON), the
 *               frame leave once, the handle go stale.
 *   drain       read everything queued (non-blocking); print one line per
 *               packet: "port P ifindex I len L rlen R flags F", then
 *               "count N".
 *   forward     read one frame (waiting up to 10 s) and write it back
 *               with NETSLICE_TX_DEFAULT; print "write RET errno E error X"
 *               (E is 0 when the write succeeded).
 *   perms A     as an unprivileged user on a node opened to it: reads
 *               work, a SET that changes nothing succeeds, every change
 *               fails EPERM, a write out of interface A (attached, but not
 *               feeding slice 0) fails ENODEV.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "netslice.h"
#include "ktap.h"
#include "pkt.h"

static int fd;

/* An Ethernet/IPv4/UDP frame of len bytes: 42 header bytes, then payload. */
static void udp_frame(unsigned char *f, unsigned int len)
{
	unsigned int i;

	memset(f, 0, len);
	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x03", 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (len - 14) >> 8;
	f[17] = (len - 14) & 0xff;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, "\x0a\x63\x00\x01\x0a\x63\x00\x02", 8);
	f[35] = 9;
	f[37] = 9;
	f[38] = (len - 34) >> 8;
	f[39] = (len - 34) & 0xff;
	for (i = 42; i < len; i++)
		f[i] = (unsigned char)i;
}

struct race {
	struct netslice_iov *iov;	/* straddles the write-protected page */
	ssize_t ret;
	int err;
};

static void *race_reader(void *arg)
{
	struct race *r = arg;

	r->ret = read(fd, r->iov, 1);
	r->err = errno;
	return NULL;
}

static int race(const char *a, const char *b)
{
	long page = sysconf(_SC_PAGESIZE);
	struct netslice_slicing sl = { .mode = NETSLICE_SLICE_AUTO };
	unsigned char frame[300], hdr[200], buf[2048], got[2048];
	struct uffdio_writeprotect wp;
	struct uffdio_register reg;
	struct uffdio_api api = { .api = UFFD_API };
	struct netslice_iov tx, *iov;
	struct uffd_msg msg;
	struct pollfd p;
	struct race r = { 0 };
	pthread_t reader;
	int uffd, sock_b, ifindex_a = if_nametoindex(a);
	char *area;
	__u64 handle;
	ssize_t n;

	ktap_header("safety_check race", 6);
	fd = ns_open(0, O_RDWR);
	sock_b = pkt_open(if_nametoindex(b));
	if (fd < 0 || sock_b < 0 || ns_slicing_set(fd, &sl))
		return 2;

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return 2;
	memset(area, 0, 2 * page);
	reg.range.start = (unsigned long)area + page;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		printf("# no userfaultfd write-protect here: %s\n", strerror(errno));
		return 4;
	}
	wp.range = reg.range;
	wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
		return 2;

	/* The iov's first 40 bytes (through @handle) end the first page. */
	iov = (struct netslice_iov *)(area + page - offsetof(struct netslice_iov, port));
	iov_for(&tx, buf, sizeof(buf));
	memcpy(iov, &tx, offsetof(struct netslice_iov, port));

	udp_frame(frame, sizeof(frame));
	if (send(sock_b, frame, sizeof(frame), 0) != sizeof(frame))
		return 2;
	while (STAT(rx_packets) < 1)
		usleep(1000);

	r.iov = iov;
	if (pthread_create(&reader, NULL, race_reader, &r))
		return 2;
	p = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ktap_check(poll(&p, 1, 10000) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		   msg.event == UFFD_EVENT_PAGEFAULT &&
		   (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP),
		   "the reader stalls writing its iov, past the handle");
	handle = iov->handle;
	ktap_check(handle != 0 && iov->rlen == 42, "the handle is visible: 0x%llx, %u header bytes",
		   (unsigned long long)handle, iov->rlen);

	/* A header longer than the headroom: the splice reallocates the head. */
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, buf, 14);
	hdr[12] = 0x88;
	hdr[13] = 0xb5;
	iov_for(&tx, hdr, sizeof(hdr));
	tx.rlen = sizeof(hdr);
	tx.ifindex = ifindex_a;
	tx.action = NETSLICE_TX_IFINDEX;
	tx.handle = handle;
	pkt_drain(sock_b);
	n = write(fd, &tx, 1);
	ktap_check(n == 1 && !tx.error, "a second thread splices that handle meanwhile (%zd, error %u)",
		   n, tx.error);

	wp.mode = 0;
	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
		return 2;
	pthread_join(reader, NULL);
	ktap_check(r.ret == 1 && iov->handle == handle,
		   "the reader completes once the page is writable (%zd, %s)", r.ret,
		   r.ret < 0 ? strerror(r.err) : "ok");

	n = pkt_recv(sock_b, got, sizeof(got), 2000);
	ktap_check(n == (ssize_t)(sizeof(frame) - 42 + sizeof(hdr)) &&
		   !memcmp(got, hdr, sizeof(hdr)) && !memcmp(got + sizeof(hdr), frame + 42,
							     sizeof(frame) - 42),
		   "the frame leaves once: new header, the parked payload (%zd bytes)", n);
	ktap_check(write(fd, &tx, 1) == -1 && errno == ESTALE && STAT(tx_spliced) == 1 &&
		   STAT(store_used) == 0,
		   "the handle is spliced at most once: stale after, nothing parked");
	return ktap_finish();
}

static int drain(void)
{
	static unsigned char bufs[64][2048];
	struct netslice_iov iov[64];
	int i, count = 0;
	ssize_t n;

	fd = ns_open(0, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return 2;
	do {
		for (i = 0; i < 64; i++)
			iov_for(&iov[i], bufs[i], sizeof(bufs[i]));
		n = read(fd, iov, 64);
		for (i = 0; i < n; i++)
			printf("port %u ifindex %u len %u rlen %u flags %u\n", iov[i].port,
			       iov[i].ifindex, iov[i].wire_len, iov[i].rlen, iov[i].flags);
		count += n > 0 ? (int)n : 0;
	} while (n > 0);
	printf("count %d\n", count);
	return n < 0 && errno != EAGAIN ? 1 : 0;
}

static int forward(void)
{
	static unsigned char buf[2048];
	struct netslice_iov iov;
	struct pollfd pfd;
	ssize_t n;

	fd = ns_open(0, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return 2;
	pfd.fd = fd;
	pfd.events = POLLIN;
	iov_for(&iov, buf, sizeof(buf));
	if (poll(&pfd, 1, 10000) != 1 || read(fd, &iov, 1) != 1) {
		printf("# no frame to forward: %s\n", strerror(errno));
		return 1;
	}
	iov.action = NETSLICE_TX_DEFAULT;
	errno = 0;
	n = write(fd, &iov, 1);
	printf("write %zd errno %d error %u\n", n, n < 0 ? errno : 0, iov.error);
	return 0;
}

static int perms(const char *a)
{
	struct netslice_slicing sl, other;
	struct netslice_rw_multi rw;
	cpu_set_t kcpus, ucpus, all;
	struct netslice_iov tx;
	unsigned char frame[60];
	int cpu;

	ktap_header("safety_check perms", 5);
	fd = ns_open(0, O_RDWR | O_NONBLOCK);
	if (fd < 0 || geteuid() == 0) {
		printf("# bail out: open /dev/netslice-0 as uid %u: %s\n", geteuid(),
		       fd < 0 ? strerror(-fd) : "still root");
		return 2;
	}
	ktap_check(!ns_slicing_get(fd, &sl) && !ns_rw_multi_get(fd, &rw) &&
		   !ns_cpumask_get(fd, &kcpus, &ucpus),
		   "an unprivileged holder of the node reads the configuration");
	ktap_check(!ns_slicing_set(fd, &sl) && !ns_rw_multi_set(fd, rw.flags, rw.max_batch) &&
		   !ns_cpumask_set(fd, &kcpus, &ucpus),
		   "a SET that changes nothing succeeds without privilege");
	other = sl;
	other.mode = sl.mode == NETSLICE_SLICE_AUTO ? NETSLICE_SLICE_OFF : NETSLICE_SLICE_AUTO;
	CPU_ZERO(&all);
	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); cpu++)
		CPU_SET(cpu, &all);
	ktap_check(ns_slicing_set(fd, &other) == -EPERM &&
		   ns_rw_multi_set(fd, rw.flags, rw.max_batch == 1 ? 2 : 1) == -EPERM &&
		   (CPU_EQUAL(&all, &ucpus) || ns_cpumask_set(fd, &kcpus, &all) == -EPERM),
		   "every change of slice-wide state fails EPERM");
	ktap_check(!ns_slicing_get(fd, &other) && other.mode == sl.mode &&
		   !ns_rw_multi_get(fd, &rw) && rw.max_batch == NETSLICE_MAX_BATCH,
		   "and nothing changed");
	memset(frame, 0xff, sizeof(frame));
	iov_for(&tx, frame, sizeof(frame));
	tx.rlen = sizeof(frame);
	tx.ifindex = if_nametoindex(a);
	tx.action = NETSLICE_TX_IFINDEX;
	ktap_check(write(fd, &tx, 1) == -1 && errno == ENODEV && tx.error == NETSLICE_TXERR_IFINDEX,
		   "a write out of an interface that does not feed the slice fails ENODEV");
	return ktap_finish();
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "race"))
		return race(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "drain"))
		return drain();
	if (argc == 2 && !strcmp(argv[1], "forward"))
		return forward();
	if (argc == 3 && !strcmp(argv[1], "perms"))
		return perms(argv[2]);
	fprintf(stderr, "usage: safety_check race A B | drain | forward | perms A\n");
	return 2;
}
