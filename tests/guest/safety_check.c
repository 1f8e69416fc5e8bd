// SPDX-License-Identifier: GPL-2.0
/*
 * safety_check: data-path safety cases of slice 0 (module loaded with
 * slices=1), each a subcommand run by test_safety.sh.
 *
 *   race A B    A attached alone, B its veth peer. A reader's copy of a
 *               cut packet's iov stalls (userfaultfd write-protect) just
 *               after the handle is written; a second thread writes that
 *               handle with a header longer than the headroom. The splice
 *               must find an skb nobody else holds (it was a BUG_ON), the
 *               frame leave once, the handle go stale.
 *   drain       read everything queued (non-blocking); print one line per
 *               packet: "port P ifindex I len L rlen R flags F", then
 *               "count N".
 *   forward     read one frame (waiting up to 10 s) and write it back
 *               with NETSLICE_TX_DEFAULT; print "write RET errno E error X"
 *               (E is 0 when the write succeeded). "forward port0":
 *               with @port 0.
 *   ringmem-root  (root, slices=2 ring_max_mb=8) a setup needs a file open
 *               for reading and writing (EBADF) and no other open file that
 *               has read the slice (EBUSY, until every such file closes: B
 *               and C read, C closes, A's setup still fails); past ring_max_mb,
 *               ENOMEM, and a closed ring's memory counts no more.
 *   ringmem-user  (unprivileged, RLIMIT_MEMLOCK 8 MiB, same module) a
 *               256 MiB frame area fails ENOBUFS; 6 MiB on slice 0 fits,
 *               6 MiB more on slice 1 fails ENOBUFS until slice 0's file
 *               closes.
 *   ring-requeue A D  (slices=1 ifaces=A,C; D is C's peer) a 2-entry
 *               ring with trimming: 5 frames from D leave 3 records
 *               waiting; detaching A puts them back on the unread queue.
 *               The ring's kicks must deliver them, another file of the
 *               slice must see no POLLIN meanwhile (its read says EBUSY),
 *               and records left when the ring closes are not read later.
 *   ring-gso    (slices=1 store_size=1) a tap attached to a 2-entry ring
 *               keeping super-packets: the first TCP super-packet of 8
 *               segments is parked, the second (store full) becomes 8
 *               segments the ring has no room for: dropped whole, counted
 *               once (rx_drop_ring_full), never as queued as well.
 *   uffd-unregister A  (slices=1 ifaces=A) a write whose frame lies in a
 *               page userfaultfd has not yet filled waits in the copy;
 *               meanwhile A is deleted. The deletion must not wait for
 *               the write (a held device cannot unregister); once the
 *               page comes, the write fails ENODEV, the egress gone.
 *   perms A     as an unprivileged user on a node opened to it: reads
 *               work, a SET that changes nothing succeeds, every change
 *               fails EPERM, a write out of interface A (attached, but not
 *               feeding slice 0) fails ENODEV, a ring setup that busy-polls
 *               fails EPERM (one that does not works).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/userfaultfd.h>
#include <linux/virtio_net.h>
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
#include "ring.h"		/* the library's ring state, to drive the rings by hand */
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
	struct netslice_cut sl = { .mode = NETSLICE_CUT_AUTO };
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
	if (fd < 0 || sock_b < 0 || ns_cut_set(fd, &sl))
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

static int forward(int port0)
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
	if (port0)
		iov.port = 0;
	errno = 0;
	n = write(fd, &iov, 1);
	printf("write %zd errno %d error %u\n", n, n < 0 ? errno : 0, iov.error);
	return 0;
}

/* A setup of frame_count 2 KiB frames on fd: 0 or its errno. */
static int ring_setup_err(int ring_fd, unsigned int frame_count)
{
	struct netslice_ring_setup s;

	ns_ring_config_default(&s, 8);
	s.frame_count = frame_count;
	return ioctl(ring_fd, NETSLICE_RING_SETUP, &s) ? errno : 0;
}

static int ringmem_root(void)
{
	int ro, other, third, a, b;
	struct netslice_iov iov;
	unsigned char buf[64];

	ktap_header("safety_check ringmem-root", 5);
	ro = open("/dev/netslice-0", O_RDONLY | O_NONBLOCK);
	ktap_check(ro >= 0 && ring_setup_err(ro, 1152) == EBADF,
		   "a file open read-only cannot set up rings: EBADF");
	close(ro);
	other = ns_open(0, O_NONBLOCK);
	third = ns_open(0, O_NONBLOCK);
	a = ns_open(0, O_NONBLOCK);
	iov_for(&iov, buf, sizeof(buf));
	/* The last reader's close must not make the setup forget the first. */
	ktap_check(read(other, &iov, 1) == -1 && errno == EAGAIN && read(third, &iov, 1) == -1 &&
		   errno == EAGAIN && !close(third) && ring_setup_err(a, 1152) == EBUSY,
		   "two other files have read the slice, the second closed: EBUSY");
	close(other);
	ktap_check(ring_setup_err(a, 1152) == 0, "once it closed, the setup works");
	/* 2.3 MiB in use: 3072 frames (6 MiB) more pass an 8 MiB cap. */
	b = ns_open(1, O_NONBLOCK);
	ktap_check(ring_setup_err(b, 3072) == ENOMEM, "past ring_max_mb: ENOMEM");
	close(a);
	ktap_check(ring_setup_err(b, 3072) == 0, "a closed ring's memory counts no more");
	close(b);
	return ktap_finish();
}

static int ringmem_user(void)
{
	int a, b;

	ktap_header("safety_check ringmem-user", 3);
	a = ns_open(0, O_NONBLOCK);
	b = ns_open(1, O_NONBLOCK);
	if (a < 0 || b < 0 || geteuid() == 0) {
		printf("# bail out: open the nodes as uid %u\n", geteuid());
		return 2;
	}
	/* 65536 frames of 2 KiB is a 128 MiB area: over the 8 MiB limit. */
	ktap_check(ring_setup_err(a, 65536) == ENOBUFS, "128 MiB past RLIMIT_MEMLOCK: ENOBUFS");
	ktap_check(ring_setup_err(a, 3072) == 0 && ring_setup_err(b, 3072) == ENOBUFS,
		   "6 MiB fits; 6 MiB more by the same user, on another slice: ENOBUFS");
	close(a);
	ktap_check(ring_setup_err(b, 3072) == 0, "given back when the first file closes");
	close(b);
	return ktap_finish();
}

/* The records among the next RX entries: trimmed, of a 300-byte frame. */
static unsigned int ring_records(struct ns_ring *r)
{
	struct netslice_iov iov[8];
	unsigned int n, i, records = 0;

	n = ns_ring_peek(r, iov, 8);
	for (i = 0; i < n; i++)
		records += (iov[i].flags & NETSLICE_RX_TRIMMED) && iov[i].wire_len == 300;
	ns_ring_release(r, n);
	return records;
}

static void inject_n(int sock, unsigned int count)
{
	static unsigned char f[300];

	udp_frame(f, sizeof(f));
	while (count--)
		if (send(sock, f, sizeof(f), 0) != (ssize_t)sizeof(f))
			exit(2);
}

/* The RX flags say records wait, within 2 s. */
static int records_wait(struct ns_ring *r)
{
	int i;

	for (i = 0; i < 200 && !(r->rx->flags & NETSLICE_RING_NEED_WAKEUP); i++)
		usleep(10000);
	return !!(r->rx->flags & NETSLICE_RING_NEED_WAKEUP);
}

static int ring_requeue(const char *a, const char *d)
{
	struct pollfd pfd = { .events = POLLIN };
	struct netslice_ring_setup s;
	struct netslice_cut sl;
	struct netslice_iov iov;
	unsigned char buf[2048];
	unsigned int records = 0, i;
	char cmd[64];
	struct ns_ring *r;
	int other, sock;

	ktap_header("safety_check ring-requeue", 5);
	fd = ns_open(0, O_NONBLOCK);
	other = ns_open(0, O_NONBLOCK);
	sock = pkt_open((int)if_nametoindex(d));
	ns_ring_config_default(&s, 8);
	s.rx_size = 2;
	if (fd < 0 || other < 0 || sock < 0 || ns_cut_parse("fixed:64,trim", &sl) ||
	    ns_cut_set(fd, &sl) || ns_ring_open(&r, fd, &s)) {
		printf("# bail out: no trimming ring on slice 0\n");
		return 2;
	}
	pfd.fd = other;
	inject_n(sock, 5);
	ktap_check(records_wait(r), "5 frames into 2 entries: records wait");
	snprintf(cmd, sizeof(cmd), "netslicectl link detach dev %s", a);
	if (system(cmd))
		printf("# '%s' failed\n", cmd);
	ktap_check(poll(&pfd, 1, 0) == 0 && read(other, &iov, 1) == -1 && errno == EBUSY,
		   "another file: no POLLIN while the ring has the slice, read says EBUSY");
	ring_records(r);
	for (i = 0; i < 5; i++) {
		ns_ring_kick(r);
		records += ring_records(r);
	}
	ktap_check(records == 3 && !(r->rx->flags & NETSLICE_RING_NEED_WAKEUP),
		   "the detach kept the other port's 3 records: kicks deliver them (%u)", records);
	inject_n(sock, 5);
	ktap_check(records_wait(r), "5 more: 3 records wait again");
	ns_ring_close(r);
	close(fd);
	iov_for(&iov, buf, sizeof(buf));
	ktap_check(read(other, &iov, 1) == -1 && errno == EAGAIN,
		   "the ring closed with records waiting: another file reads none of them");
	close(other);
	close(sock);
	return ktap_finish();
}

/* A tap named name, up and attached; its fd (a vnet header on writes). */
static int tap_attached(const char *name)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	char cmd[128];
	int tap, hdr = sizeof(struct virtio_net_hdr);

	tap = open("/dev/net/tun", O_RDWR);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (tap < 0 || ioctl(tap, TUNSETIFF, &ifr) || ioctl(tap, TUNSETVNETHDRSZ, &hdr))
		return -1;
	snprintf(cmd, sizeof(cmd), "ip link set %s up && netslicectl link attach dev %s", name,
		 name);
	return system(cmd) ? -1 : tap;
}

/* A TCP/IPv4 super-packet of segs segments of 1024 bytes, written to tap. */
static int tap_write_tso(int tap, unsigned int segs)
{
	static unsigned char f[sizeof(struct virtio_net_hdr) + 54 + 16 * 1024];
	struct virtio_net_hdr *vh = (struct virtio_net_hdr *)f;
	unsigned char *eth = f + sizeof(*vh), *ip = eth + 14, *tcp = ip + 20;
	unsigned int len = 54 + segs * 1024, i;

	memset(f, 0, sizeof(f));
	vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh->hdr_len = 54;
	vh->gso_size = 1024;
	vh->csum_start = 34;
	vh->csum_offset = 16;
	memcpy(eth, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x45;
	ip[2] = (len - 14) >> 8;
	ip[3] = (len - 14) & 0xff;
	ip[6] = 0x40;
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, "\x0a\x63\x00\x01\x0a\x63\x00\x02", 8);
	tcp[1] = 100;
	tcp[3] = 200;
	tcp[12] = 5 << 4;
	tcp[13] = 0x18;
	tcp[14] = 0xff;
	for (i = 54; i < len; i++)
		eth[i] = (unsigned char)i;
	return write(tap, f, sizeof(*vh) + len) == (ssize_t)(sizeof(*vh) + len) ? 0 : -1;
}

static int ring_gso(void)
{
	struct netslice_ring_setup s;
	struct netslice_cut sl;
	struct netslice_stats st;
	struct ns_ring *r;
	int tap, i;

	ktap_header("safety_check ring-gso", 3);
	fd = ns_open(0, O_NONBLOCK);
	tap = tap_attached("nstapgso");
	ns_ring_config_default(&s, 8);
	s.rx_size = 2;
	if (fd < 0 || tap < 0 || ns_cut_parse("fixed:64,gso", &sl) || ns_cut_set(fd, &sl) ||
	    ns_ring_open(&r, fd, &s)) {
		printf("# bail out: no tap, or no ring keeping super-packets on slice 0\n");
		return 2;
	}
	if (tap_write_tso(tap, 8) || tap_write_tso(tap, 8))
		printf("# a tap write failed: %s\n", strerror(errno));
	for (i = 0; i < 200; i++) {
		ns_stats_get(fd, &st);
		if (st.rx_packets + st.rx_drop_ring_full + st.rx_drop_error >= 2)
			break;
		usleep(10000);
	}
	printf("# rx_packets %llu rx_gso_packets %llu rx_drop_ring_full %llu rx_drop_error %llu\n",
	       (unsigned long long)st.rx_packets, (unsigned long long)st.rx_gso_packets,
	       (unsigned long long)st.rx_drop_ring_full, (unsigned long long)st.rx_drop_error);
	ktap_check(st.rx_packets == 1 && st.rx_gso_packets == 1 && st.read_sliced == 1,
		   "the first super-packet: one cut entry, its payload parked");
	ktap_check(st.rx_drop_ring_full == 1 && st.rx_drop_error == 0,
		   "the second, 8 segments for 1 free entry: one drop, ring full");
	ktap_check(r->rx->producer == 1 && st.read_packets == 1,
		   "no segment of it in the ring: one entry in all");
	ns_ring_close(r);
	close(fd);
	close(tap);
	return ktap_finish();
}

struct uffd_writer {
	struct netslice_iov *iov;
	ssize_t ret;
	int err;
};

static void *uffd_write(void *arg)
{
	struct uffd_writer *w = arg;

	w->ret = write(fd, w->iov, 1);
	w->err = errno;
	return NULL;
}

static volatile int deleted;

static void *delete_link(void *arg)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "ip link del %s", (const char *)arg);
	deleted = system(cmd) ? -1 : 1;
	return NULL;
}

static int uffd_unregister(const char *a)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_copy copy;
	struct netslice_iov iov;
	struct uffd_writer w = { .iov = &iov };
	struct uffd_msg msg;
	struct pollfd p;
	pthread_t writer, deleter;
	unsigned char *area, *src;
	int uffd, i;

	ktap_header("safety_check uffd-unregister", 3);
	fd = ns_open(0, O_RDWR);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	area = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || area == MAP_FAILED || src == MAP_FAILED)
		return 2;
	reg.range.start = (unsigned long)area;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		printf("# bail out: no userfaultfd here: %s\n", strerror(errno));
		return 2;
	}
	udp_frame(src, 100);
	iov_for(&iov, area, 100);
	iov.rlen = 100;
	iov.action = NETSLICE_TX_IFINDEX;
	iov.ifindex = if_nametoindex(a);
	if (pthread_create(&writer, NULL, uffd_write, &w))
		return 2;
	p = (struct pollfd){ .fd = uffd, .events = POLLIN };
	ktap_check(poll(&p, 1, 10000) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		   msg.event == UFFD_EVENT_PAGEFAULT,
		   "the write waits on its frame's missing page");
	if (pthread_create(&deleter, NULL, delete_link, (void *)a))
		return 2;
	for (i = 0; i < 500 && !deleted; i++)
		usleep(10000);
	ktap_check(deleted == 1, "%s is deleted while the write waits (%s)", a,
		   deleted ? "done" : "still waiting after 5 s");
	copy = (struct uffdio_copy){ .dst = (unsigned long)area, .src = (unsigned long)src,
				     .len = page };
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		return 2;
	pthread_join(writer, NULL);
	pthread_join(deleter, NULL);
	ktap_check(w.ret == -1 && w.err == ENODEV && iov.error == NETSLICE_TXERR_IFINDEX,
		   "then the write fails: the egress is gone (%zd, %s, error %u)", w.ret,
		   strerror(w.err), iov.error);
	close(uffd);
	return ktap_finish();
}

static int perms(const char *a)
{
	struct netslice_cut sl, other;
	struct netslice_rw_multi rw;
	cpu_set_t kcpus, ucpus, all;
	struct netslice_ring_setup rs;
	struct netslice_iov tx;
	unsigned char frame[60];
	int cpu, busy;

	ktap_header("safety_check perms", 6);
	fd = ns_open(0, O_RDWR | O_NONBLOCK);
	if (fd < 0 || geteuid() == 0) {
		printf("# bail out: open /dev/netslice-0 as uid %u: %s\n", geteuid(),
		       fd < 0 ? strerror(-fd) : "still root");
		return 2;
	}
	ktap_check(!ns_cut_get(fd, &sl) && !ns_rw_multi_get(fd, &rw) &&
		   !ns_cpumask_get(fd, &kcpus, &ucpus),
		   "an unprivileged holder of the node reads the configuration");
	ktap_check(!ns_cut_set(fd, &sl) && !ns_rw_multi_set(fd, rw.flags, rw.max_batch) &&
		   !ns_cpumask_set(fd, &kcpus, &ucpus),
		   "a SET that changes nothing succeeds without privilege");
	other = sl;
	other.mode = sl.mode == NETSLICE_CUT_AUTO ? NETSLICE_CUT_OFF : NETSLICE_CUT_AUTO;
	CPU_ZERO(&all);
	for (cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); cpu++)
		CPU_SET(cpu, &all);
	ktap_check(ns_cut_set(fd, &other) == -EPERM &&
		   ns_rw_multi_set(fd, rw.flags, rw.max_batch == 1 ? 2 : 1) == -EPERM &&
		   (CPU_EQUAL(&all, &ucpus) || ns_cpumask_set(fd, &kcpus, &all) == -EPERM),
		   "every change of slice-wide state fails EPERM");
	ktap_check(!ns_cut_get(fd, &other) && other.mode == sl.mode &&
		   !ns_rw_multi_get(fd, &rw) && rw.max_batch == NETSLICE_MAX_BATCH,
		   "and nothing changed");
	memset(frame, 0xff, sizeof(frame));
	iov_for(&tx, frame, sizeof(frame));
	tx.rlen = sizeof(frame);
	tx.ifindex = if_nametoindex(a);
	tx.action = NETSLICE_TX_IFINDEX;
	ktap_check(write(fd, &tx, 1) == -1 && errno == ENODEV && tx.error == NETSLICE_TXERR_IFINDEX,
		   "a write out of an interface that does not feed the slice fails ENODEV");
	ns_ring_config_default(&rs, 8);
	rs.rx_size = 64;
	rs.frame_count = 128;
	rs.flags = NETSLICE_RING_BUSY_POLL;
	rs.busy_poll_us = 50;
	busy = ioctl(fd, NETSLICE_RING_SETUP, &rs) ? errno : 0;
	rs.flags = 0;
	rs.busy_poll_us = 0;
	ktap_check(busy == EPERM && !ioctl(fd, NETSLICE_RING_SETUP, &rs),
		   "ring setup with busy polling fails EPERM (%s); without it, it works", strerror(busy));
	return ktap_finish();
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "race"))
		return race(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "drain"))
		return drain();
	if (argc == 2 && !strcmp(argv[1], "forward"))
		return forward(0);
	if (argc == 3 && !strcmp(argv[1], "forward") && !strcmp(argv[2], "port0"))
		return forward(1);
	if (argc == 2 && !strcmp(argv[1], "ringmem-root"))
		return ringmem_root();
	if (argc == 2 && !strcmp(argv[1], "ringmem-user"))
		return ringmem_user();
	if (argc == 4 && !strcmp(argv[1], "ring-requeue"))
		return ring_requeue(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "uffd-unregister"))
		return uffd_unregister(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "ring-gso"))
		return ring_gso();
	if (argc == 3 && !strcmp(argv[1], "perms"))
		return perms(argv[2]);
	fprintf(stderr, "usage: safety_check race A B | drain | forward [port0] | ringmem-root | ringmem-user |"
			" ring-requeue A D | ring-gso | uffd-unregister A | perms A\n");
	return 2;
}
