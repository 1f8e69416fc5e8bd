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
 * module cuts them (by its own parser, kmod/cut_parser.c), the payload
 * kept aside under a handle and put back behind the header the NF writes.
 * Sent frames go to the output file on their egress interface, with
 * their input timestamp; dropped ones do not.
 * Packet timestamps, at the file's resolution, are the NF's clock
 * (nf_now_ms()). A frame the capture cut short (snaplen) is read as
 * NETSLICE_RX_TRUNCATED with its original wire_len, never cut, and
 * written with its original length; one longer than PCAPNG_MAX_FRAME is
 * skipped and counted. "-" reads standard input and writes standard
 * output (the summary then goes to standard error).
 *
 * Between rounds, signals (offline_signal.c): a SIGHUP reloads, a SIGUSR1
 * prints the summary so far, a SIGINT or SIGTERM ends the run as the
 * input's end does. A wait for input ends the round early for each.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../kmod/cut_parser.h"

#include "io.h"
#include "log.h"
#include "metrics.h"
#include "offline.h"
#include "offline_signal.h"
#include "pcapng.h"
#include "pcapng_write.h"
#include "prom.h"
#include "report.h"
#include "watch.h"

/* The module's usual buffer; a longer frame gets room for itself. */
#define OFFLINE_BUF_SIZE 2048

static FILE *offline_out;
static uint64_t offline_ts_ns;
static const struct pcapng_file *offline_pf;
static unsigned int offline_out_ifaces;	/* interfaces written to the output */
static unsigned int offline_nr_workers;
/* The run's workers, while it runs: what SIGUSR1 and --metrics report on (watch lock). */
static struct ns_worker *const *offline_watched_w;
static unsigned int offline_watched_n;

/* One frame on interface index iface (0..) to the output, declaring new interfaces first. */
static void offline_write(uint32_t iface, uint64_t ts_ns, const void *frame, uint32_t len,
			  uint32_t wire_len)
{
	while (offline_out_ifaces <= iface)
		pcapng_write_iface(offline_out, &offline_pf->ifaces[offline_out_ifaces++]);
	pcapng_write(offline_out, &offline_pf->ifaces[iface], iface, ts_ns, frame, len, wire_len);
}

/* An interface's pair, as the module's ifaces= pairs them (1st with 2nd...). */
static uint32_t offline_pair(uint32_t ifindex, unsigned int nr_ifaces)
{
	uint32_t idx = ifindex - 1;

	return (idx ^ 1) < nr_ifaces ? (idx ^ 1) + 1 : ifindex;
}

static int offline_send(struct ns_worker *w, const void *frame, uint32_t len, int ifindex,
			int action)
{
	(void)w;
	if (ifindex < 1 || (unsigned int)ifindex > offline_pf->nr_ifaces)
		return -ENODEV;
	if (action != NETSLICE_TX_IFINDEX)
		ifindex = (int)offline_pair((uint32_t)ifindex, offline_pf->nr_ifaces);
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

/* A frame read and waiting for its worker: the frame as read, and the NF's buffer. */
struct offline_slot {
	struct pcapng_packet pk;	/* data: orig */
	uint32_t cut;			/* bytes handed over */
	uint8_t *orig, *buf;
	uint32_t orig_size, buf_size;
};

struct offline_worker {
	struct ns_worker *w;
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
		ns_worker_count(w, NS_WORKER_NF_DROPS, 1);
		return;
	}
	egress = iov->action == NETSLICE_TX_IFINDEX ? iov->ifindex :
		 offline_pair(iov->ifindex, offline_pf->nr_ifaces);
	/* As the module: with a payload behind it, at most a header's worth (and frame[] holds it). */
	if (iov->action > NETSLICE_TX_DROP || len > iov->len || len < 14 ||
	    (iov->handle && len > NETSLICE_MAX_HEADER) || !egress ||
	    egress > offline_pf->nr_ifaces) {
		ns_worker_count(w, NS_WORKER_TX_ERRORS, 1);
		return;
	}
	ns_worker_count(w, NS_WORKER_TX_PACKETS, 1);
	ns_worker_count(w, NS_WORKER_TX_BYTES, len + tail);
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
	ns_worker_count(ow->w, NS_WORKER_RX_PACKETS, 1);
	ns_worker_count(ow->w, NS_WORKER_RX_BYTES, pk->wire_len);
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

/* ---- the mode's interface (io.h) ---- */

static int offline_ifindex(const char *name)
{
	unsigned int i;

	for (i = 0; i < offline_pf->nr_ifaces; i++)
		if (!strcmp(offline_pf->ifaces[i].name, name))
			return (int)i + 1;
	nf_err("no such interface: %s", name);
	return 0;
}

static int offline_ifmac(const char *name, uint8_t mac[6])
{
	unsigned int i;

	for (i = 0; i < offline_pf->nr_ifaces; i++)
		if (!strcmp(offline_pf->ifaces[i].name, name) && offline_pf->ifaces[i].has_mac) {
			memcpy(mac, offline_pf->ifaces[i].mac, 6);
			return 0;
		}
	nf_err("interface %s: no MAC address in the input file", name);
	return -1;
}

/* Packet time: the frame being processed, or the round's first. */
static uint64_t offline_now_ms(void)
{
	return offline_ts_ns / 1000000;
}

static unsigned int offline_nr(void)
{
	return offline_nr_workers;
}

static unsigned int offline_watched(struct ns_worker **w, struct netslice_stats **st)
{
	*st = NULL;
	memcpy(w, offline_watched_w, offline_watched_n * sizeof(*w));
	return offline_watched_n;
}

const struct nf_io nf_offline_io = {
	.ifindex = offline_ifindex,
	.ifmac = offline_ifmac,
	.send = offline_send,
	.now_ms = offline_now_ms,
	.nr_workers = offline_nr,
	.watched = offline_watched,
};

/* ---- the run ---- */

struct offline_run {
	const struct nf *nf;
	struct offline_worker *ow;
	struct ns_worker *w[NETSLICE_MAX_SLICES];	/* ow[k].w */
	unsigned int nr, batch, inited;
	const struct netslice_cut *cut;
	int json;
	int more;		/* the input may have more */
	int status;		/* 1 until the run ends well or the input proves bad */
};

static void offline_watch(struct offline_run *r, unsigned int n)
{
	nf_watch_lock();
	offline_watched_w = r->w;
	offline_watched_n = n;
	nf_watch_unlock();
}

static void offline_report(const struct offline_run *r, int final)
{
	struct nf_report_of rep = {
		.nf = r->nf, .w = r->w, .n = r->nr, .input = offline_pf, .json = r->json,
	};

	if (final)
		nf_report_final(&rep, 0);
	else
		nf_report_now(&rep, 0);
}

/* Between rounds: a stop (1) ends the run; a reload or a report is done now. */
static int offline_signals(const struct offline_run *r)
{
	unsigned int sig = nf_offline_signal();

	if (sig & NF_OFFLINE_STOP)
		return 1;
	if (sig & NF_OFFLINE_RELOAD)
		nf_reload(r->nf, NULL);
	if (sig & NF_OFFLINE_REPORT)
		offline_report(r, 0);
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
		ns_worker_close(ow[k].w);
	}
	free(ow);
}

/* Each slice's worker and its round's slots: 0, or -1 after saying why. */
static int offline_alloc(struct offline_run *r, const unsigned int *slices)
{
	unsigned int k;

	r->ow = calloc(r->nr, sizeof(*r->ow));
	for (k = 0; r->ow && k < r->nr; k++) {
		if (ns_worker_open(&r->ow[k].w, k, slices[k]))
			break;
		r->ow[k].iov = calloc(r->batch, sizeof(*r->ow[k].iov));
		r->ow[k].slot = calloc(r->batch, sizeof(*r->ow[k].slot));
		if (!r->ow[k].iov || !r->ow[k].slot)
			break;
		r->w[k] = r->ow[k].w;
	}
	if (!r->ow || k < r->nr) {
		nf_err("out of memory");
		return -1;
	}
	return 0;
}

/* The output opened and the NF's workers set up: 0, or -1 after saying why. */
static int offline_start(struct offline_run *r, const char *out_path)
{
	const struct nf *nf = r->nf;

	offline_out_ifaces = offline_pf->nr_ifaces;
	if (out_path) {
		offline_out = offline_open_out(out_path, offline_pf);
		if (!offline_out) {
			nf_err("%s: %s", out_path, strerror(errno));
			return -1;
		}
	}
	for (; r->inited < r->nr; r->inited++)
		if (nf->worker_init && nf->worker_init(r->ow[r->inited].w, nf->arg)) {
			nf_err("worker setup failed");
			return -1;
		}
	return 0;
}

/*
 * A round: frames to their workers until a slice's batch is full, the
 * input has no more for now, or a signal. How many, and the first's time
 * in *first_ts; -1 out of memory.
 */
static int offline_read_round(struct offline_run *r, struct pcapng_file *pf, uint64_t *first_ts)
{
	struct pcapng_packet pk;
	char err[256];
	int got = 0, ret;
	unsigned int k;

	for (k = 0; k < r->nr; k++)
		r->ow[k].n = 0;
	for (;;) {
		if (got && !pcapng_readable(pf))
			break;
		ret = pcapng_next(pf, &pk, err, sizeof(err));
		if (ret == PCAPNG_WOKEN)
			break;
		if (ret <= 0) {
			if (ret < 0) {
				nf_err("%s", err);
				r->status = 2;
			}
			r->more = 0;
			break;
		}
		if (!got++)
			*first_ts = pk.ts_ns;
		k = pk.queue % r->nr;
		if (offline_take(&r->ow[k], &pk, r->cut)) {
			nf_err("out of memory");
			return -1;
		}
		if (r->ow[k].n == r->batch)
			break;
	}
	return got;
}

/* The round's batches, from the last slice to the first, processed and sent. */
static void offline_process_round(struct offline_run *r)
{
	const struct nf *nf = r->nf;
	struct offline_worker *ow;
	unsigned int k, i;

	for (k = r->nr; k-- > 0;) {
		ow = &r->ow[k];
		if (!ow->n)
			continue;
		offline_ts_ns = ow->slot[0].pk.ts_ns;
		nf->process(ow->w, ow->iov, ow->n, nf->arg);
		for (i = 0; i < ow->n; i++)
			offline_emit(ow->w, &ow->iov[i], &ow->slot[i]);
		if (nf->sent)
			nf->sent(ow->w, nf->arg);
	}
}

/* Rounds until the input ends or a stop: 0, or -1 out of memory. */
static int offline_rounds(struct offline_run *r, struct pcapng_file *pf)
{
	uint64_t next_tick = 0, first_ts = 0;
	int got;

	while (r->more && !offline_signals(r)) {
		got = offline_read_round(r, pf, &first_ts);
		if (got < 0)
			return -1;
		offline_oversize_say(pf);
		if (!got)
			continue;
		offline_clock(r->nf, first_ts, &next_tick);
		offline_process_round(r);
		/* Nothing more to read now: what was sent leaves now, not at the end. */
		if (offline_out && (!r->more || !pcapng_readable(pf)))
			fflush(offline_out);
	}
	return 0;
}

/* The workers gone, the summary printed (unless the run failed), the output closed. */
static void offline_finish(struct offline_run *r, const char *out_path)
{
	const struct nf *nf = r->nf;

	offline_watch(r, 0);
	while (r->inited-- > 0)
		if (nf->worker_fini)
			nf->worker_fini(r->ow[r->inited].w, nf->arg);
	if (r->status != 1)
		offline_report(r, 1);
	if (offline_out && fclose(offline_out)) {
		nf_err("%s: %s", out_path, strerror(errno));
		r->status = r->status ? r->status : 1;
	}
	offline_out = NULL;
}

static int offline_run(const struct nf *nf, const struct nf_opts *o, struct pcapng_file *pf,
		       const unsigned int *slices)
{
	struct offline_run r = {
		.nf = nf, .nr = offline_nr_workers, .batch = o->batch, .cut = &o->cut,
		.json = o->json, .more = 1, .status = 1,
	};

	if (!offline_alloc(&r, slices)) {
		if (!offline_start(&r, o->pcap_out)) {
			offline_watch(&r, r.nr);
			nf_offline_signals_ready();
			if (!offline_rounds(&r, pf) && r.status == 1)
				r.status = 0;
		}
		offline_finish(&r, o->pcap_out);
	}
	if (r.ow)
		offline_free(r.ow, r.nr, r.batch);
	return r.status;
}

/* Offline, the slices a list names ("all": one). */
static int offline_slices(const char *list, unsigned int *slices)
{
	unsigned int n = 0;
	cpu_set_t set;
	int cpu;

	if (!strcmp(list, "all")) {
		slices[0] = 0;
		return 1;
	}
	if (ns_cpulist_parse(list, &set)) {
		nf_err("bad slice list '%s' (\"0-3,8\" or \"all\")", list);
		return -1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (cpu >= NETSLICE_MAX_SLICES) {
			nf_err("no such slice in '%s' (at most %d)", list, NETSLICE_MAX_SLICES);
			return -1;
		}
		slices[n++] = (unsigned int)cpu;
	}
	return (int)n;
}

/* The input opened, the NF set up and run over it: the exit status. */
static int offline_input(const struct nf *nf, const struct nf_opts *o,
			 const struct pcapng_wake *wake, const unsigned int *slices)
{
	struct pcapng_file pf;
	char err[256];
	int ret;

	if (pcapng_open(o->pcap_in, &pf, wake, err, sizeof(err))) {
		nf_err("%s", err);
		return 2;
	}
	/* Stopped before the file named an interface: there is nothing to set up. */
	if (nf_offline_stopped() && !pf.nr_ifaces) {
		nf_err("stopped before the input's first packet");
		ret = 0;
	} else {
		offline_pf = &pf;
		ret = nf->setup && nf->setup(nf->arg) ? 2 : offline_run(nf, o, &pf, slices);
	}
	pcapng_close(&pf);
	offline_pf = NULL;
	return ret;
}

int nf_offline(const struct nf *nf, const struct nf_opts *o)
{
	static unsigned int slices[NETSLICE_MAX_SLICES];
	struct pcapng_wake wake;
	int nr, ret;

	nr = offline_slices(o->slices, slices);
	if (nr < 0)
		return 2;
	offline_nr_workers = (unsigned int)nr;
	/*
	 * Before the first read: --metrics answers while a quiet capture
	 * gives nothing, and a stop while it waits still ends cleanly.
	 * SIGUSR1 is the reader's, between frames, as SIGHUP is.
	 */
	if (nf_metrics_start(NULL, nf_prom, (void *)nf))
		return 1;
	if (nf_offline_signals(&wake)) {
		nf_metrics_stop();
		return 1;
	}
	ret = offline_input(nf, o, &wake, slices);
	nf_metrics_stop();
	return ret;
}
