// SPDX-License-Identifier: GPL-2.0
/*
 * nsfuzz chains of slices: two threads, each with its own netlink socket.
 *
 * The chain thread sets and clears next slices (slice-set chain-next and
 * chain-end) at random: another slice (a loop or not, as the other
 * threads' chains stand), the slice itself, slices past the last and
 * numbers past the policy; reads them back (slice-get); and closes the
 * relay's file of the slice the relay hands packets to, under its writes.
 * Whatever the interleaving: a slice cannot be its own next (ELOOP), a
 * next that does not exist is refused, a next that exists is set or
 * refused as a loop (ELOOP) or as too long (EMLINK), chain-end succeeds,
 * and a reply names a next slice that exists and is not the slice itself.
 *
 * The relay thread drives packets along chains it turns around, so that
 * they go past NETSLICE_CHAIN_MAX_HOPS: between slices A and B it sets
 * A's next to B, reads A and writes what it read back with
 * NETSLICE_TX_NEXT (or NETSLICE_TX_DEFAULT, which the chain sends the
 * same way), then makes B's next A and does the same on B, and so on: a
 * payload read each time is handed on until NETSLICE_TXERR_LOOP. Device
 * threads read and write the same slices meanwhile, the netlink thread
 * sets chains too, and the chain thread closes B's file. A handle handed
 * on must not work again where it was read.
 *
 * After the run (fz_chain_settle()), the chains left hold no loop, and
 * NETSLICE_INFO_GET names the same next slices as slice-get.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/netslice_netlink.h>

#include "fuzz.h"

#define CHAIN_MSG	256
#define RELAY_BATCH	64
#define RELAY_BUF	2048
/* Turns of one relay round: more hops than a payload may make. */
#define RELAY_FLIPS	(2 * NETSLICE_CHAIN_MAX_HOPS + 4)
#define NO_NEXT		(-1)

struct chain_nl {
	struct fz_rng rng;
	struct fz_nl_req q;
	unsigned char msg[CHAIN_MSG];
	unsigned char reply[65536];	/* a whole dump part */
};

/* Next slices as slice-get replies said. */
struct chain_view {
	int next[FZ_SLICES_MAX];
	bool seen[FZ_SLICES_MAX];
};

struct relay {
	struct chain_nl nl;
	struct netslice_iov iov[RELAY_BATCH];
	unsigned char data[RELAY_BATCH * RELAY_BUF];
};

int fz_chain_open(void)
{
	for (unsigned int k = 0; k < 2; k++) {
		fz.chain_sock[k] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
		if (fz.chain_sock[k] < 0) {
			perror("nsfuzz: chain socket");
			return -1;
		}
	}
	return 0;
}

static void chain_nl_init(struct chain_nl *c, int sock, uint64_t seed)
{
	c->rng.s = seed;
	c->q = (struct fz_nl_req){ .sock = sock, .msg = c->msg, .reply = c->reply,
				   .reply_size = sizeof(c->reply) };
}

static struct chain_nl *chain_nl_new(int sock, uint64_t seed)
{
	struct chain_nl *c = calloc(1, sizeof(*c));

	if (!c)
		fz_fail("chains: out of memory");
	else
		chain_nl_init(c, sock, seed);
	return c;
}

uint32_t fz_pick_next(struct fz_rng *r, uint32_t slice)
{
	switch (fz_below(r, 20)) {
	case 0:
	case 1:
		return slice;
	case 2:
		return fz.nslices;
	case 3:
		return 255;	/* the policy's bound */
	case 4:
		return fz_chance(r, 50) ? 256 : UINT32_MAX;
	default:
		return fz_below(r, fz.nslices);
	}
}

/* slice-set of @slice: chain-next @next unless NO_NEXT, chain-end if @end. */
static int set_chain(struct chain_nl *c, uint32_t slice, int64_t next, bool end)
{
	size_t len = fz_genl_header(&c->q, NETSLICE_CMD_SLICE_SET, 0);
	uint32_t v = (uint32_t)next;

	len += fz_nla_put(c->msg + len, CHAIN_MSG - len, NETSLICE_A_SLICE_ID, &slice, 4);
	if (next != NO_NEXT)
		len += fz_nla_put(c->msg + len, CHAIN_MSG - len, NETSLICE_A_SLICE_CHAIN_NEXT, &v, 4);
	if (end)
		len += fz_nla_put(c->msg + len, CHAIN_MSG - len, NETSLICE_A_SLICE_CHAIN_END, "", 0);
	return fz_nl_request(&c->q, len, NULL, NULL);
}

/*
 * What setting @next as @slice's next must answer, whatever other threads
 * set: false (and a failure reported) if @err breaks that.
 */
static bool chain_set_ok(uint32_t slice, uint32_t next, int err)
{
	if (err == -EINTR)
		return true;
	/* A real next: set, or refused as a loop or as a chain too long (EMLINK). */
	if (next == slice ? err != -ELOOP :
	    next >= fz.nslices ? !err : err && err != -ELOOP && err != -EMLINK) {
		fz_fail("chains: slice %u's next set to %u: %s", slice, next,
			err ? strerror(-err) : "accepted");
		return false;
	}
	atomic_fetch_add(err == -ELOOP ? &fz.chain_loops : err ? &fz.chain_refused : &fz.chain_sets,
			 1);
	return true;
}

static bool chain_end_ok(uint32_t slice, int err)
{
	if (err == -EINTR)
		return true;
	if (slice < fz.nslices ? err != 0 : !err) {
		fz_fail("chains: chain-end of slice %u: %s", slice, err ? strerror(-err) : "accepted");
		return false;
	}
	atomic_fetch_add(&fz.chain_ends, !err);
	return true;
}

/* A slice-get reply: its next slice exists and is not the slice itself. */
static void on_slice(const struct nlmsghdr *nh, void *ctx)
{
	struct chain_view *v = ctx;
	const struct nlattr *a = (const void *)((const char *)NLMSG_DATA(nh) + GENL_HDRLEN);
	long left = (long)nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	int64_t id = -1, next = NO_NEXT;

	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		uint32_t val;

		if ((type == NETSLICE_A_SLICE_ID || type == NETSLICE_A_SLICE_CHAIN_NEXT) &&
		    a->nla_len == NLA_HDRLEN + 4) {
			memcpy(&val, (const char *)a + NLA_HDRLEN, 4);
			if (type == NETSLICE_A_SLICE_ID)
				id = val;
			else
				next = val;
		}
		left -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	if (id < 0 || id >= fz.nslices) {
		fz_fail("chains: a slice-get reply for slice %lld", (long long)id);
		return;
	}
	if (next != NO_NEXT && (next >= fz.nslices || next == id)) {
		fz_fail("chains: slice-get: slice %lld's next slice is %lld", (long long)id,
			(long long)next);
		next = NO_NEXT;
	}
	atomic_fetch_add(&fz.chain_gets, 1);
	if (v) {
		v->seen[id] = true;
		v->next[id] = (int)next;
	}
}

/* slice-get of one slice (NO_NEXT: a dump) into @v, if not NULL. */
static int get_chain(struct chain_nl *c, int64_t slice, struct chain_view *v)
{
	size_t len = fz_genl_header(&c->q, NETSLICE_CMD_SLICE_GET, slice == NO_NEXT ? NLM_F_DUMP : 0);
	uint32_t id = (uint32_t)slice;

	if (slice != NO_NEXT)
		len += fz_nla_put(c->msg + len, CHAIN_MSG - len, NETSLICE_A_SLICE_ID, &id, 4);
	return fz_nl_request(&c->q, len, on_slice, v);
}

/* Close the relay's file of the slice it hands packets to: its writes go on. */
static void close_relay_next(void)
{
	int next = atomic_load(&fz.relay_next), fd;

	if (next < 0)
		return;
	fd = atomic_exchange(&fz.relay_fds[next], -1);
	if (fd >= 0) {
		close(fd);
		atomic_fetch_add(&fz.relay_closes, 1);
	}
}

/* A chain of every slice, in a random order: the longest there is. */
static void chain_all(struct chain_nl *c)
{
	uint8_t order[FZ_SLICES_MAX];
	uint32_t i, k;

	for (i = 0; i < fz.nslices; i++) {
		order[i] = (uint8_t)i;
		chain_end_ok(i, set_chain(c, i, NO_NEXT, true));
	}
	for (i = fz.nslices - 1; i > 0; i--) {
		uint8_t t = order[i];

		k = fz_below(&c->rng, i + 1);
		order[i] = order[k];
		order[k] = t;
	}
	/* Other threads' chains may join it into a loop: refused then. */
	for (i = 0; i + 1 < fz.nslices; i++)
		chain_set_ok(order[i], order[i + 1], set_chain(c, order[i], order[i + 1], false));
}

static void chain_op(struct chain_nl *c)
{
	struct fz_rng *r = &c->rng;
	uint32_t slice = fz_chance(r, 95) ? fz_below(r, fz.nslices) : fz.nslices, next;
	unsigned char odd[8] = { 0 };
	size_t len;
	int err;

	switch (fz_below(r, 20)) {
	case 0 ... 7:
		next = fz_pick_next(r, slice);
		err = set_chain(c, slice, next, false);
		if (slice < fz.nslices)
			chain_set_ok(slice, next, err);
		else if (!err)
			fz_fail("chains: slice-set of slice %u (of %u) accepted", slice, fz.nslices);
		break;
	case 8 ... 10:
		chain_end_ok(slice, set_chain(c, slice, NO_NEXT, true));
		break;
	case 11 ... 13:
		err = get_chain(c, slice, NULL);
		if (err != -EINTR && (slice < fz.nslices) != !err)
			fz_fail("chains: slice-get of slice %u: %s", slice,
				err ? strerror(-err) : "answered");
		break;
	case 14:
		err = get_chain(c, NO_NEXT, NULL);
		if (err && err != -EINTR)
			fz_fail("chains: slice-get dump: %s", strerror(-err));
		break;
	case 15:
	case 16:
		close_relay_next();
		break;
	case 17:
		/* Both at once, or chain-next of the wrong size: the answer is the module's. */
		if (fz_chance(r, 50)) {
			set_chain(c, slice, fz_pick_next(r, slice), true);
			break;
		}
		len = fz_genl_header(&c->q, NETSLICE_CMD_SLICE_SET, 0);
		len += fz_nla_put(c->msg + len, CHAIN_MSG - len, NETSLICE_A_SLICE_ID, &slice, 4);
		odd[0] = (unsigned char)fz_below(r, fz.nslices);
		len += fz_nla_put(c->msg + len, CHAIN_MSG - len, NETSLICE_A_SLICE_CHAIN_NEXT, odd,
				  fz_chance(r, 50) ? 2 : 8);
		fz_nl_request(&c->q, len, NULL, NULL);
		break;
	default:
		chain_all(c);
		break;
	}
}

void *fz_chain_thread(void *arg)
{
	const struct timespec pause = { 0, 1000 * 1000 };
	struct chain_nl *c = chain_nl_new(fz.chain_sock[0], fz.seed ^ 0x636861696eULL);

	(void)arg;
	if (!c)
		return NULL;
	/* Paced: the relay's chains must live long enough to carry packets. */
	while (!atomic_load(&fz.stop)) {
		chain_op(c);
		nanosleep(&pause, NULL);
	}
	free(c);
	return NULL;
}

/* The relay's file of slice s, opened again if the chain thread closed it. */
static int relay_fd(unsigned int s)
{
	int fd = atomic_load(&fz.relay_fds[s]), expect = -1;

	if (fd >= 0)
		return fd;
	fd = fz_open_nr(s);
	if (fd >= 0 && !atomic_compare_exchange_strong(&fz.relay_fds[s], &expect, fd)) {
		close(fd);
		fd = expect;
	}
	return fd;
}

/*
 * A handle handed on is no longer the reading file's: writing it there
 * again must fail, stale (another error if the chain thread closed the
 * file and its number went to another file).
 */
static void relay_check_stale(int fd, const struct netslice_iov *iov)
{
	struct netslice_iov again = *iov;

	again.action = NETSLICE_TX_DROP;
	again.error = 0;
	if (write(fd, &again, 1) > 0)
		fz_fail("relay: handle %#llx accepted again after its handoff",
			(unsigned long long)iov->handle);
	else if (errno == ESTALE)
		atomic_fetch_add(&fz.relay_stale, 1);
}

/* Read a batch of what slice @from has and write it to its next slice: the batch's size. */
static ssize_t relay_batch(struct relay *rl, unsigned int from, bool check)
{
	struct fz_rng *r = &rl->nl.rng;
	int fd = relay_fd(from);
	ssize_t got, n, i;
	bool checked = false;

	for (i = 0; i < RELAY_BATCH; i++)
		rl->iov[i] = (struct netslice_iov){ .base = (uintptr_t)(rl->data + i * RELAY_BUF),
						    .len = RELAY_BUF };
	got = read(fd, rl->iov, RELAY_BATCH);
	if (got < 0) {
		/* EBUSY: another file of the slice is in ring mode. */
		if (errno != EAGAIN && errno != EBADF && errno != EBUSY && errno != EINVAL)
			fz_fail("relay: read: unexpected errno %d (%s)", errno, strerror(errno));
		return 0;
	}
	if (got > RELAY_BATCH)
		fz_fail("relay: read returned %zd for %d iovs", got, RELAY_BATCH);
	for (i = 0; i < got && i < RELAY_BATCH; i++) {
		struct netslice_iov *v = &rl->iov[i];

		fz_check_rx_iov(v, (size_t)i);
		if (v->handle)
			fz_remember_handle(r, v->handle, -1);
		/* As read (its port says where it came from), to go on. */
		v->action = fz_chance(r, 75) ? NETSLICE_TX_NEXT : NETSLICE_TX_DEFAULT;
		if (fz_chance(r, 3))
			v->action = fz_chance(r, 50) ? NETSLICE_TX_NEXT + 1 : 0xffff;
	}
	if (got <= 0)
		return 0;
	n = write(fd, rl->iov, (size_t)got);
	if (n < 0) {
		switch (errno) {
		case EINVAL: case EMSGSIZE: case ENODEV: case ENOMEM: case ENETDOWN:
		case ESTALE: case EACCES: case EBADMSG: case EAGAIN: case ENOBUFS:
		case EBADF: case EINTR: case EPROTO: case ELOOP:
			return got;
		}
		fz_fail("relay: write: unexpected errno %d (%s)", errno, strerror(errno));
		return got;
	}
	if (n > got)
		fz_fail("relay: write returned %zd for %zd iovs", n, got);
	for (i = 0; i < n && i < got; i++) {
		const struct netslice_iov *v = &rl->iov[i];

		fz_check_tx_iov(v, (size_t)i);
		if (v->error == NETSLICE_TXERR_LOOP)
			atomic_fetch_add(&fz.relay_hops_over, 1);
		else if (v->error == NETSLICE_TXERR_DOWN)
			atomic_fetch_add(&fz.relay_down, 1);
		if (v->error || v->action != NETSLICE_TX_NEXT)
			continue;
		atomic_fetch_add(&fz.relay_handed, 1);
		if (check && v->handle && !checked) {
			relay_check_stale(fd, v);
			checked = true;
		}
	}
	return got;
}

/*
 * All slice @from has, up to a few batches: what the last turn handed
 * here is queued behind what arrived before it.
 */
static ssize_t relay_hand_on(struct relay *rl, unsigned int from, bool check)
{
	ssize_t got, all = 0;

	for (int i = 0; i < 4; i++, check = false) {
		got = relay_batch(rl, from, check);
		all += got;
		if (got < RELAY_BATCH)
			break;
	}
	return all;
}

/* Parked payloads on both slices, most rounds: handles are what move. */
static void relay_cut(struct relay *rl, unsigned int s)
{
	struct netslice_cut cut = { .mode = NETSLICE_CUT_FIXED, .length = 64 };
	int fd = relay_fd(s);

	if (fz_chance(&rl->nl.rng, 30))
		cut = (struct netslice_cut){ .mode = NETSLICE_CUT_AUTO };
	if (ioctl(fd, NETSLICE_CUT_SET, &cut) && errno != EBADF && errno != EPERM)
		fz_fail("relay: cut set: unexpected errno %d (%s)", errno, strerror(errno));
}

/* Whether a shared slot has a file of slice s open, as far as the slots say. */
static bool in_slots(unsigned int s)
{
	for (unsigned int i = 0; i < FZ_FDS; i++)
		if (atomic_load(&fz.fd_slice[i]) == (int)s)
			return true;
	return false;
}

/*
 * The slices the relay uses: all but the last, when there are three or
 * more. Its files stay open, and ring mode needs a slice with no other
 * reader: the last is left to the device threads' ring setups.
 */
static unsigned int relay_span(void)
{
	return fz.nslices >= 3 ? fz.nslices - 1 : fz.nslices;
}

/*
 * A slice other than @a, half the time one no shared slot has open:
 * closing the relay's file of it then leaves it with no file, while
 * packets are handed to it.
 */
static unsigned int relay_pick(struct fz_rng *r, unsigned int a)
{
	unsigned int n = relay_span(), b = (a + 1 + fz_below(r, n - 1)) % n;

	if (fz_chance(r, 50))
		return b;
	for (unsigned int k = 0; k < n; k++) {
		unsigned int s = (b + k) % n;

		if (s != a && !in_slots(s))
			return s;
	}
	return b;
}

static void relay_round(struct relay *rl)
{
	const struct timespec pause = { 0, 200 * 1000 };
	struct chain_nl *c = &rl->nl;
	unsigned int a = fz_below(&c->rng, relay_span()), b = relay_pick(&c->rng, a);
	unsigned int flip, from = a, to = b;

	if (fz_chance(&c->rng, 70)) {
		relay_cut(rl, a);
		relay_cut(rl, b);
	}
	for (flip = 0; flip < RELAY_FLIPS && !atomic_load(&fz.stop); flip++) {
		from = flip % 2 ? b : a;
		to = flip % 2 ? a : b;
		/* Turned around: to's next goes first, or from -> to would loop. */
		if (!chain_end_ok(to, set_chain(c, to, NO_NEXT, true)) ||
		    !chain_set_ok(from, to, set_chain(c, from, to, false)))
			break;
		atomic_store(&fz.relay_next, (int)to);
		/* Nothing there: give the traffic (and the other threads) a moment. */
		if (!relay_hand_on(rl, from, fz_chance(&c->rng, 25)))
			nanosleep(&pause, NULL);
		atomic_fetch_add(&fz.relay_flips, 1);
	}
	atomic_store(&fz.relay_next, -1);
	/* The chain ends at to: what it writes there has no next slice. */
	chain_end_ok(to, set_chain(c, to, NO_NEXT, true));
	relay_hand_on(rl, to, false);
}

void *fz_relay_thread(void *arg)
{
	struct relay *rl = calloc(1, sizeof(*rl));

	(void)arg;
	if (!rl) {
		fz_fail("relay: out of memory");
		return NULL;
	}
	chain_nl_init(&rl->nl, fz.chain_sock[1], fz.seed ^ 0x72656c6179ULL);
	while (fz.nslices >= 2 && !atomic_load(&fz.stop))
		relay_round(rl);
	free(rl);
	return NULL;
}

void fz_chain_settle(void)
{
	struct chain_nl *c = chain_nl_new(fz.chain_sock[0], fz.seed);
	struct chain_view v;
	unsigned int s, hops;
	int err, next;

	if (!c)
		return;
	memset(&v, 0, sizeof(v));
	for (s = 0; s < FZ_SLICES_MAX; s++)
		v.next[s] = NO_NEXT;
	err = get_chain(c, NO_NEXT, &v);
	if (err)
		fz_fail("chains: slice-get dump after the run: %s", strerror(-err));
	for (s = 0; s < fz.nslices && !err; s++) {
		struct netslice_info info;
		int fd;

		if (!v.seen[s]) {
			fz_fail("chains: the slice-get dump has no slice %u", s);
			continue;
		}
		for (next = v.next[s], hops = 0; next != NO_NEXT && hops <= fz.nslices; hops++)
			next = v.next[next];
		if (next != NO_NEXT)
			fz_fail("chains: slice %u's chain loops", s);
		fd = fz_open_nr(s);
		memset(&info, 0, sizeof(info));
		if (fd < 0 || ioctl(fd, NETSLICE_INFO_GET, &info)) {
			fz_fail("chains: info of slice %u: %s", s, strerror(errno));
		} else {
			fz_check_info(&info);
			if (!!(info.flags & NETSLICE_INFO_CHAINED) != (v.next[s] != NO_NEXT) ||
			    (v.next[s] != NO_NEXT && info.next_slice != (uint32_t)v.next[s]))
				fz_fail("chains: slice %u: info says next %u (flags %#x), slice-get %d",
					s, info.next_slice, info.flags, v.next[s]);
		}
		if (fd >= 0)
			close(fd);
	}
	/* And every chain can be taken apart. */
	for (s = 0; s < fz.nslices; s++)
		chain_end_ok(s, set_chain(c, s, NO_NEXT, true));
	free(c);
}
