// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * Offline mode: the NF's packet logic over a pcapng file, no module.
 *
 * The file streams through: a round of batches at a time, in memory that
 * does not grow with the file; a round ends early when the input has no
 * more for now (a pipe from tcpdump -w -), and the output is flushed then,
 * so packets leave as they arrive.
 *
 * "-s LIST" stands for that many slices, each its own worker: a frame
 * goes to the slice at position (its epb_queue, the queue it was captured
 * on, or 0) modulo N in the list. In each round every slice takes up to a
 * batch of its frames, in file order, then the slices process their
 * batches from the last to the first: the order least kind to state the
 * workers share (what arrived first is processed last), made exact.
 *
 * Each interface of the input file stands for an attached interface
 * (ifindex = its position + 1), paired like the module's ifaces= list:
 * 1 with 2, 3 with 4; an odd last one alone. Frames are cut where the
 * module cuts them (its own parser, <linux/netslice_cut.h>), the payload
 * kept aside under a handle and put back behind the header the NF writes.
 * Sent frames go to the output file on their egress interface, with
 * their input timestamp; dropped ones do not.
 * Packet timestamps, at the file's resolution, are the NF's clock
 * (nf_now_ms()). A frame the capture cut short (snaplen) is read as
 * NETSLICE_RX_TRUNCATED with its original wire_len, never sliced, and
 * written with its original length; one longer than PCAPNG_MAX_FRAME is
 * skipped and counted. "-" reads standard input and writes standard
 * output (the summary then goes to standard error).
 *
 * Between rounds, signals (offline_signal.c): a SIGHUP reloads, a SIGUSR1
 * prints the summary so far, a SIGINT or SIGTERM ends the run as the
 * input's end does. A wait for input ends the round early for each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netslice_cut.h>

#include "nf.h"
#include "pcapng.h"

/* The module's usual buffer; a longer frame gets room for itself. */
#define OFFLINE_BUF_SIZE 2048

static FILE *offline_out;
static uint64_t offline_ts_ns;
static const struct pcapng_file *offline_pf;
static unsigned int offline_out_ifaces;	/* interfaces written to the output */

/* One frame on interface index iface (0..) to the output, declaring new interfaces first. */
static void offline_write(uint32_t iface, uint64_t ts_ns, const void *frame, uint32_t len,
			  uint32_t wire_len)
{
	while (offline_out_ifaces <= iface)
		pcapng_write_iface(offline_out, &offline_pf->ifaces[offline_out_ifaces++]);
	pcapng_write(offline_out, &offline_pf->ifaces[iface], iface, ts_ns, frame, len, wire_len);
}

static int offline_inject(const void *frame, uint32_t len, int ifindex)
{
	if (ifindex < 1 || (unsigned int)ifindex > offline_pf->nr_ifaces)
		return -ENODEV;
	if (offline_out)
		offline_write((uint32_t)ifindex - 1, offline_ts_ns, frame, len, len);
	return 0;
}

/* Bytes of the frame the module would hand over under this cut. */
static uint32_t offline_cut_len(const struct netslice_cut *s, const uint8_t *frame,
				  uint32_t len)
{
	uint32_t value = s->mode == NETSLICE_CUT_FIXED ? s->length : s->extra;

	return netslice_cut_len(frame, len, s->mode, value) ?: len;
}

static uint32_t offline_pair(uint32_t ifindex, unsigned int nr_ifaces)
{
	uint32_t idx = ifindex - 1;

	return (idx ^ 1) < nr_ifaces ? (idx ^ 1) + 1 : ifindex;
}

/* A frame read and waiting for its worker: the frame as read, and the NF's buffer. */
struct offline_slot {
	struct pcapng_packet pk;	/* data: orig */
	uint32_t cut;			/* bytes handed over */
	uint8_t *orig, *buf;
	uint32_t orig_size, buf_size;
};

struct offline_worker {
	struct ns_worker w;
	struct netslice_iov *iov;
	struct offline_slot *slot;
	unsigned int n;			/* frames in this round */
};

/* Room for len bytes in *p (size *size, at least min). */
static int offline_room(uint8_t **p, uint32_t *size, uint32_t len, uint32_t min)
{
	uint32_t want = len > min ? len : min;
	uint8_t *b;

	if (*size >= want)
		return 0;
	b = realloc(*p, want);
	if (!b)
		return -1;
	*p = b;
	*size = want;
	return 0;
}

/* Send (or not) one processed iov; counts it on w. */
static void offline_emit(struct ns_worker *w, const struct netslice_iov *iov,
			 const struct offline_slot *sl)
{
	static uint8_t frame[PCAPNG_MAX_FRAME + NETSLICE_MAX_HEADER];
	const struct pcapng_packet *pk = &sl->pk;
	/* rlen 0 with a handle: the header as read (ns_iov_unchanged()). */
	uint32_t len = iov->handle && !iov->rlen ? sl->cut : iov->rlen;
	uint32_t egress, tail = iov->handle ? pk->len - sl->cut : 0;

	if (iov->action == NETSLICE_TX_DROP) {
		w->nf_drops++;
		return;
	}
	egress = iov->action == NETSLICE_TX_IFINDEX ? iov->ifindex :
		 offline_pair(iov->ifindex, offline_pf->nr_ifaces);
	/* As the module: with a payload behind it, at most a header's worth (and frame[] holds it). */
	if (iov->action > NETSLICE_TX_DROP || len > iov->len || len < 14 ||
	    (iov->handle && len > NETSLICE_MAX_HEADER) || !egress ||
	    egress > offline_pf->nr_ifaces) {
		w->tx_errors++;
		return;
	}
	w->tx_packets++;
	w->tx_bytes += len + tail;
	if (iov->action == NETSLICE_TX_HOST || !offline_out)
		return;
	memcpy(frame, ns_iov_data(iov), len);
	memcpy(frame + len, pk->data + sl->cut, tail);
	/* What the capture did not keep is still missing, and still counted. */
	offline_write(egress - 1, pk->ts_ns, frame, len + tail,
		      len + tail + (pk->wire_len - pk->len));
}

/* Where the output goes: a file, or standard output with stdout itself moved to stderr. */
static FILE *offline_open_out(const char *path, const struct pcapng_file *pf)
{
	FILE *out;
	int fd;

	if (strcmp(path, "-"))
		return pcapng_create(path, pf->ifaces, pf->nr_ifaces);
	fflush(stdout);
	fd = dup(STDOUT_FILENO);
	if (fd < 0)
		return NULL;
	out = fdopen(fd, "wb");
	if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
	    pcapng_start(out, pf->ifaces, pf->nr_ifaces)) {
		if (out)
			fclose(out);
		else
			close(fd);
		return NULL;
	}
	return out;
}

/* A frame into its worker's next slot. */
static int offline_take(struct offline_worker *ow, const struct pcapng_packet *pk,
			const struct netslice_cut *cut)
{
	struct offline_slot *sl = &ow->slot[ow->n];
	struct netslice_iov *iov = &ow->iov[ow->n];
	int whole = pk->len == pk->wire_len;

	if (offline_room(&sl->orig, &sl->orig_size, pk->len, OFFLINE_BUF_SIZE) ||
	    offline_room(&sl->buf, &sl->buf_size, pk->len, OFFLINE_BUF_SIZE))
		return -1;
	sl->pk = *pk;
	sl->pk.data = sl->orig;
	memcpy(sl->orig, pk->data, pk->len);
	memcpy(sl->buf, pk->data, pk->len);
	sl->cut = whole ? offline_cut_len(cut, sl->buf, pk->len) : pk->len;
	*iov = (struct netslice_iov) {
		.base = (uintptr_t)sl->buf,
		/* As the NF's own buffer would be: not the slot's, which only grows. */
		.len = pk->len > OFFLINE_BUF_SIZE ? pk->len : OFFLINE_BUF_SIZE,
		.rlen = sl->cut,
		.wire_len = pk->wire_len,
		.ifindex = pk->iface + 1,
		.queue = NETSLICE_QUEUE_NONE,
	};
	if (sl->cut < pk->len) {
		static uint64_t handle;

		iov->handle = ++handle;
		iov->flags = NETSLICE_RX_CUT;
	} else if (!whole) {
		iov->flags = NETSLICE_RX_TRUNCATED;
	}
	ow->w.rx_packets++;
	ow->w.rx_bytes += pk->wire_len;
	ow->n++;
	return 0;
}

/*
 * The clock is the round's first packet's time; a tick as it passes each
 * second. Ticks read the clock, so the ticks of a gap would all see this
 * one time: one runs, however far the trace's time jumped (a capture's
 * gap, or 1970 to now), and the schedule starts again from here.
 */
static void offline_clock(const struct nf *nf, uint64_t ts_ns, uint64_t *next_tick)
{
	uint64_t ms = ts_ns / 1000000;

	offline_ts_ns = ts_ns;
	nf_set_time_ms(ms);
	if (nf->tick && ms >= *next_tick) {
		if (*next_tick)
			nf->tick(nf->arg);
		*next_tick = *next_tick && ms - *next_tick < 1000 ? *next_tick + 1000 : ms + 1000;
	}
}

/* The first frame too long to read, said once; the summary counts them all. */
static void offline_oversize_say(const struct pcapng_file *pf)
{
	static int said;

	if (!pf->oversize || said)
		return;
	said = 1;
	nf_err("%s: a frame of %u bytes, over %u: skipped (the summary counts all such)",
	       pf->path, pf->oversize_len, PCAPNG_MAX_FRAME);
}

/* Between rounds: a stop (1) ends the run; a reload or a report is done now. */
static int offline_signals(const struct nf *nf, struct ns_worker *const *w, unsigned int n,
			   int json)
{
	unsigned int sig = nf_offline_signal();

	if (sig & NF_OFFLINE_STOP)
		return 1;
	if (sig & NF_OFFLINE_RELOAD)
		nf_sighup(NULL);
	if (sig & NF_OFFLINE_REPORT)
		nf_print_progress(nf, w, n, json);
	return 0;
}

static void offline_free(struct offline_worker *ow, unsigned int nr, unsigned int batch)
{
	unsigned int k, i;

	for (k = 0; k < nr; k++) {
		for (i = 0; ow[k].slot && i < batch; i++) {
			free(ow[k].slot[i].orig);
			free(ow[k].slot[i].buf);
		}
		free(ow[k].slot);
		free(ow[k].iov);
	}
	free(ow);
}

int nf_offline(const struct nf *nf, struct pcapng_file *pf, const char *out_path,
	       const struct netslice_cut *cut, const unsigned int *slices,
	       unsigned int nr, unsigned int batch, int json)
{
	struct ns_worker *wp[NETSLICE_MAX_SLICES];
	struct offline_worker *ow;
	struct pcapng_packet pk;
	uint64_t next_tick = 0;
	unsigned int k, i, inited = 0;
	int ret = 1, more = 1, r;
	char err[256];

	ow = calloc(nr, sizeof(*ow));
	for (k = 0; ow && k < nr; k++) {
		ow[k].w = (struct ns_worker) { .fd = -1, .index = k, .slice = slices[k] };
		ow[k].iov = calloc(batch, sizeof(*ow[k].iov));
		ow[k].slot = calloc(batch, sizeof(*ow[k].slot));
		if (!ow[k].iov || !ow[k].slot)
			break;
		wp[k] = &ow[k].w;
	}
	if (!ow || k < nr) {
		nf_err("out of memory");
		goto out_free;
	}
	offline_pf = pf;
	offline_out_ifaces = pf->nr_ifaces;
	if (out_path) {
		offline_out = offline_open_out(out_path, pf);
		if (!offline_out) {
			nf_err("%s: %s", out_path, strerror(errno));
			goto out_free;
		}
	}
	nf_set_inject(offline_inject);
	for (; inited < nr; inited++)
		if (nf->worker_init && nf->worker_init(&ow[inited].w, nf->arg)) {
			nf_err("worker setup failed");
			goto out_fini;
		}
	nf_offline_live(wp, nr);
	nf_offline_signals_ready();
	while (more && !offline_signals(nf, wp, nr, json)) {
		unsigned int got = 0;
		uint64_t first_ts = 0;

		for (k = 0; k < nr; k++)
			ow[k].n = 0;
		/* A round: until a slice's batch is full, the input has no more for now, or a signal. */
		for (;;) {
			if (got && !pcapng_readable(pf))
				break;
			r = pcapng_next(pf, &pk, err, sizeof(err));
			if (r == PCAPNG_WOKEN)
				break;
			if (r < 0) {
				nf_err("%s", err);
				ret = 2;
				more = 0;
				break;
			}
			if (!r) {
				more = 0;
				break;
			}
			if (!got++)
				first_ts = pk.ts_ns;
			k = pk.queue % nr;
			if (offline_take(&ow[k], &pk, cut)) {
				nf_err("out of memory");
				goto out_fini;
			}
			if (ow[k].n == batch)
				break;
		}
		offline_oversize_say(pf);
		if (!got)
			continue;
		offline_clock(nf, first_ts, &next_tick);
		for (k = nr; k-- > 0;) {
			if (!ow[k].n)
				continue;
			offline_ts_ns = ow[k].slot[0].pk.ts_ns;
			nf_set_time_ms(offline_ts_ns / 1000000);
			nf->process(&ow[k].w, ow[k].iov, ow[k].n, nf->arg);
			for (i = 0; i < ow[k].n; i++)
				offline_emit(&ow[k].w, &ow[k].iov[i], &ow[k].slot[i]);
			if (nf->sent)
				nf->sent(&ow[k].w, nf->arg);
		}
		/* Nothing more to read now: what was sent leaves now, not at the end. */
		if (offline_out && (!more || !pcapng_readable(pf)))
			fflush(offline_out);
	}
	if (ret == 1)
		ret = 0;
out_fini:
	nf_offline_live(wp, 0);
	while (inited-- > 0)
		if (nf->worker_fini)
			nf->worker_fini(&ow[inited].w, nf->arg);
	if (ret != 1)
		nf_print_summary(nf, wp, NULL, nr, json, 0);
	if (offline_out && fclose(offline_out)) {
		nf_err("%s: %s", out_path, strerror(errno));
		ret = ret ? ret : 1;
	}
	offline_out = NULL;
out_free:
	if (ow)
		offline_free(ow, nr, batch);
	return ret;
}
