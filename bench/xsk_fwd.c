// SPDX-License-Identifier: GPL-2.0
/*
 * xsk-fwd: the AF_XDP contender of make bench, a forwarder from one
 * interface to another in copy mode, as libxdp's xsk API and the kernel's
 * af_xdp documentation lay it out.
 *
 *   xsk-fwd IN OUT [drv|skb|zc] [BATCH] [busy]
 *
 * One UMEM shared by two sockets: an RX socket on IN queue 0, whose XDP
 * program (libxdp's default, redirecting to the socket) is attached in
 * driver mode by default or in generic "skb" mode, and a TX-only socket on
 * OUT queue 0 with its own fill and completion rings. A received frame's
 * descriptor goes onto the TX ring as it is (no copy in user space); the
 * kernel copies it into the UMEM on receive and out of it on transmit
 * (XDP_COPY), and completed frames return to the fill ring. Both sockets
 * use need_wakeup, so a system call is made only when the kernel asks;
 * with nothing to receive the forwarder sleeps in poll().
 *
 * "busy" adds busy polling as af_xdp.rst and the kernel's xdpsock sample
 * do it (SO_PREFER_BUSY_POLL, SO_BUSY_POLL, SO_BUSY_POLL_BUDGET of BATCH
 * on both sockets): the forwarder's own recvfrom/sendto run the device's
 * NAPI on its CPU instead of waiting for the softirq or NAPI thread, and
 * it never sleeps in poll(). The device's napi_defer_hard_irqs and
 * gro_flush_timeout, which keep the softirq out while the socket polls,
 * are the caller's to set (make bench does).
 *
 * "zc" is driver mode bound zero-copy (XDP_ZEROCOPY): the driver DMAs
 * into the UMEM and sends out of it, no copy in the kernel either. Of
 * the NICs make bench drives, virtio-net offers it from 6.13 (6.12's has
 * the receive half but does not advertise it: EOPNOTSUPP), and only with
 * the DMA API (VIRTIO_F_ACCESS_PLATFORM, QEMU's iommu_platform=on; EINVAL
 * without); veth never. Where the driver does not, the bind fails and
 * xsk-fwd says so.
 *
 * Driver mode is the default: veth supports it, and generic mode trips a
 * BUG_ON in pskb_expand_head (Debian 6.12) on the shared skbs pktgen
 * sends. veth runs driver-mode XDP in NAPI on the sender's CPU unless the
 * device's NAPI is threaded; make bench threads it and pins the thread.
 *
 * Prints "running" when ready and, on SIGINT/SIGTERM, "rx N tx N drop N"
 * (drop: TX ring full). The program is detached when it exits.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <xdp/xsk.h>

#define NUM_FRAMES 4096
#define FRAME_SIZE XSK_UMEM__DEFAULT_FRAME_SIZE
#define MAX_BATCH 256

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif
/* How long one busy-poll system call may spin, as xdpsock's default. */
#define BUSY_POLL_USECS 20

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct fwd {
	struct xsk_umem *umem;
	struct xsk_socket *rx_sock, *tx_sock;
	struct xsk_ring_prod fill, tx_fill, tx;
	struct xsk_ring_cons comp, tx_comp, rx;
	uint32_t outstanding;	/* on the TX ring, not completed yet */
	bool busy_poll;
	uint64_t n_rx, n_tx, n_drop;
};

/* Frames the TX socket has sent go back to the RX socket's fill ring. */
static void recycle(struct fwd *f, uint32_t batch)
{
	uint32_t i, got, ci, fi;

	got = xsk_ring_cons__peek(&f->tx_comp, batch, &ci);
	if (!got)
		return;
	while (xsk_ring_prod__reserve(&f->fill, got, &fi) != got)
		;	/* cannot fail: the fill ring holds every frame */
	for (i = 0; i < got; i++)
		*xsk_ring_prod__fill_addr(&f->fill, fi + i) =
			*xsk_ring_cons__comp_addr(&f->tx_comp, ci + i);
	xsk_ring_prod__submit(&f->fill, got);
	xsk_ring_cons__release(&f->tx_comp, got);
	f->outstanding -= got;
	f->n_tx += got;
}

/*
 * Copy mode sends at most a small batch (32 frames) per system call, so
 * the TX socket is kicked for as long as frames wait on its ring, as the
 * kernel's xdpsock sample does, unless the kernel says it needs no kick
 * (need_wakeup).
 */
static void kick(struct fwd *f)
{
	if (f->outstanding && (f->busy_poll || xsk_ring_prod__needs_wakeup(&f->tx)))
		sendto(xsk_socket__fd(f->tx_sock), NULL, 0, MSG_DONTWAIT, NULL, 0);
}

/* Frames on the TX ring that the kernel has not taken yet. */
static uint32_t tx_unsent(const struct fwd *f)
{
	return f->tx.cached_prod - __atomic_load_n(f->tx.consumer, __ATOMIC_ACQUIRE);
}

static void forward(struct fwd *f, uint32_t batch)
{
	uint32_t i, got, ri, ti = 0, fi, room;

	got = xsk_ring_cons__peek(&f->rx, batch, &ri);
	if (!got) {
		struct pollfd pfd = { .fd = xsk_socket__fd(f->rx_sock), .events = POLLIN };

		/* Busy polling: the system call itself receives. */
		if (f->busy_poll) {
			recvfrom(pfd.fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
			return;
		}
		/*
		 * Sleep until frames arrive, as xdpsock's poll mode does, not
		 * spin while completions are due: they come when the sink
		 * frees the frames, so spinning would cost whatever time the
		 * sink takes. Copy mode sends 32 frames per call: kick while
		 * the kernel takes frames. A call that took none met a busy
		 * device (a NIC waiting for its host to complete transmits):
		 * sleep a millisecond rather than spin on it. poll() wakes
		 * the driver itself when it asks for fill-ring frames.
		 */
		for (uint32_t left = tx_unsent(f), was = left + 1; left && left < was && !stop;
		     was = left, left = tx_unsent(f))
			sendto(xsk_socket__fd(f->tx_sock), NULL, 0, MSG_DONTWAIT, NULL, 0);
		poll(&pfd, 1, tx_unsent(f) ? 1 : 200);
		return;
	}
	f->n_rx += got;
	room = xsk_ring_prod__reserve(&f->tx, got, &ti);
	for (i = 0; i < room; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&f->rx, ri + i);
		struct xdp_desc *t = xsk_ring_prod__tx_desc(&f->tx, ti + i);

		t->addr = d->addr;
		t->len = d->len;
		t->options = 0;
	}
	if (room < got) {
		/* TX ring full: the rest go back to the fill ring, counted. */
		while (xsk_ring_prod__reserve(&f->fill, got - room, &fi) != got - room)
			;
		for (i = room; i < got; i++)
			*xsk_ring_prod__fill_addr(&f->fill, fi + i - room) =
				xsk_ring_cons__rx_desc(&f->rx, ri + i)->addr;
		xsk_ring_prod__submit(&f->fill, got - room);
		f->n_drop += got - room;
	}
	xsk_ring_cons__release(&f->rx, got);
	if (room) {
		xsk_ring_prod__submit(&f->tx, room);
		f->outstanding += room;
	}
}

static int setup(struct fwd *f, const char *in, const char *out, uint32_t xdp_flags,
		 uint16_t copy_mode)
{
	struct xsk_umem_config ucfg = {
		.fill_size = NUM_FRAMES, .comp_size = NUM_FRAMES,
		.frame_size = FRAME_SIZE,
	};
	struct xsk_socket_config rcfg = {
		.rx_size = 2048, .xdp_flags = xdp_flags,
		.bind_flags = copy_mode | XDP_USE_NEED_WAKEUP,
	};
	struct xsk_socket_config tcfg = {
		.tx_size = 2048, .libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = xdp_flags, .bind_flags = copy_mode | XDP_USE_NEED_WAKEUP,
	};
	uint32_t i, fi;
	void *area;
	int err;

	area = mmap(NULL, (size_t)NUM_FRAMES * FRAME_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -errno;
	err = xsk_umem__create(&f->umem, area, (uint64_t)NUM_FRAMES * FRAME_SIZE,
			       &f->fill, &f->comp, &ucfg);
	if (err)
		return err;
	err = xsk_socket__create(&f->rx_sock, in, 0, f->umem, &f->rx, NULL, &rcfg);
	if (err)
		return err;
	err = xsk_socket__create_shared(&f->tx_sock, out, 0, f->umem, NULL, &f->tx,
					&f->tx_fill, &f->tx_comp, &tcfg);
	if (err)
		return err;
	if (xsk_ring_prod__reserve(&f->fill, NUM_FRAMES, &fi) != NUM_FRAMES)
		return -ENOSPC;
	for (i = 0; i < NUM_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&f->fill, fi + i) = (uint64_t)i * FRAME_SIZE;
	xsk_ring_prod__submit(&f->fill, NUM_FRAMES);
	return 0;
}

/* Busy polling on a socket, BUDGET frames a poll. */
static int busy_poll_on(int fd, int budget)
{
	int one = 1, usecs = BUSY_POLL_USECS;

	if (setsockopt(fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof(usecs)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)))
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t xdp_flags = XDP_FLAGS_DRV_MODE, batch = 64;
	uint16_t copy_mode = XDP_COPY;
	struct fwd f = { 0 };
	int err;

	if (argc == 6 && !strcmp(argv[5], "busy"))
		f.busy_poll = true;
	else if (argc == 6)
		return fprintf(stderr, "xsk-fwd: the last argument is \"busy\" or none\n"), 2;
	if (argc < 3 || argc > 6) {
		fprintf(stderr, "usage: xsk-fwd IN OUT [drv|skb|zc] [BATCH] [busy]\n");
		return 2;
	}
	if (argc >= 4 && !strcmp(argv[3], "skb"))
		xdp_flags = XDP_FLAGS_SKB_MODE;
	else if (argc >= 4 && !strcmp(argv[3], "zc"))
		copy_mode = XDP_ZEROCOPY;
	else if (argc >= 4 && strcmp(argv[3], "drv"))
		return fprintf(stderr, "xsk-fwd: mode is drv, skb or zc\n"), 2;
	if (argc >= 5)
		batch = strtoul(argv[4], NULL, 0);
	if (batch < 1 || batch > MAX_BATCH)
		return fprintf(stderr, "xsk-fwd: batch must be 1..%d\n", MAX_BATCH), 2;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = setup(&f, argv[1], argv[2], xdp_flags, copy_mode);
	if (!err && f.busy_poll)
		err = busy_poll_on(xsk_socket__fd(f.rx_sock), batch) ?:
		      busy_poll_on(xsk_socket__fd(f.tx_sock), batch);
	if (err) {
		fprintf(stderr, "xsk-fwd: %s -> %s: %s%s\n", argv[1], argv[2], strerror(-err),
			copy_mode == XDP_ZEROCOPY && err == -EOPNOTSUPP ?
			" (the driver has no zero-copy AF_XDP)" : "");
		return 1;
	}
	printf("running\n");
	fflush(stdout);
	while (!stop) {
		forward(&f, batch);
		kick(&f);
		recycle(&f, NUM_FRAMES);
	}
	for (int i = 0; i < 100 && f.outstanding; i++) {
		kick(&f);
		recycle(&f, NUM_FRAMES);
	}
	xsk_socket__delete(f.tx_sock);
	xsk_socket__delete(f.rx_sock);
	xsk_umem__delete(f.umem);
	printf("rx %llu tx %llu drop %llu\n", (unsigned long long)f.n_rx,
	       (unsigned long long)f.n_tx, (unsigned long long)f.n_drop);
	return 0;
}
