// SPDX-License-Identifier: GPL-2.0
/*
 * Offline mode: the NF's packet logic over a pcapng file, no module.
 *
 * Each interface of the input file stands for an attached interface
 * (ifindex = its position + 1), paired like the module's ifaces= list:
 * 1 with 2, 3 with 4; an odd last one alone. Frames are sliced as the
 * module would slice them ("auto": through the TCP/UDP/ICMP header;
 * "fixed:N"), the payload kept aside under a handle and put back behind
 * the header the NF writes. Sent frames go to the output file on their
 * egress interface, with their input timestamp; dropped ones do not.
 * Packet timestamps, at the file's resolution, are the NF's clock
 * (nf_now_ms()). A frame the capture cut short (snaplen) is read as
 * NETSLICE_RX_TRUNCATED with its original wire_len, never sliced, and
 * written with its original length. "-" reads standard input and writes
 * standard output (the summary then goes to standard error).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nf.h"
#include "pcapng.h"

/* The module's usual buffer; a file with longer frames gets room for them. */
#define OFFLINE_BUF_SIZE 2048

static FILE *offline_out;
static uint64_t offline_ts_ns;
static const struct pcapng_file *offline_pf;

static int offline_inject(const void *frame, uint32_t len, int ifindex)
{
	if (ifindex < 1 || (unsigned int)ifindex > offline_pf->nr_ifaces)
		return -ENODEV;
	if (offline_out)
		pcapng_write(offline_out, &offline_pf->ifaces[ifindex - 1], (uint32_t)ifindex - 1,
			     offline_ts_ns, frame, len, len);
	return 0;
}

/* Where the slicing mode would cut the frame (len: nowhere). */
static uint32_t offline_slice_cut(const struct netslice_slicing *s, uint8_t *frame, uint32_t len)
{
	struct ns_pkt p;
	uint32_t cut;

	switch (s->mode) {
	case NETSLICE_SLICE_FIXED:
		return s->length < len ? s->length : len;
	case NETSLICE_SLICE_AUTO:
		/* As the module: errors whole (their quote is header to a NAT). */
		if (ns_pkt_parse(&p, frame, len, len) || !p.payload_off || p.frag ||
		    ns_pkt_icmp_error(&p))
			return len;
		if (p.l4_proto != IPPROTO_TCP && p.l4_proto != IPPROTO_UDP &&
		    p.l4_proto != IPPROTO_ICMP && p.l4_proto != IPPROTO_ICMPV6)
			return len;
		cut = p.payload_off + s->extra;
		return cut < len ? cut : len;
	}
	return len;
}

/*
 * Bytes of the frame the module would hand over under this slicing mode:
 * as the module, the whole frame when too little is beyond the slice to
 * be worth parking, or the slice would be longer than a header may be.
 */
static uint32_t offline_slice_len(const struct netslice_slicing *s, uint8_t *frame, uint32_t len)
{
	uint32_t cut = offline_slice_cut(s, frame, len);

	return len - cut < NETSLICE_MIN_PARK || cut > NETSLICE_MAX_HEADER ? len : cut;
}

static uint32_t offline_pair(uint32_t ifindex, unsigned int nr_ifaces)
{
	uint32_t idx = ifindex - 1;

	return (idx ^ 1) < nr_ifaces ? (idx ^ 1) + 1 : ifindex;
}

/* Send (or not) one processed iov; counts it on w. */
static void offline_emit(struct ns_worker *w, FILE *out, const struct pcapng_file *pf,
			 const struct netslice_iov *iov, const struct pcapng_packet *pk,
			 uint32_t cut)
{
	static uint8_t frame[PCAPNG_MAX_FRAME + NETSLICE_MAX_HEADER];
	/* rlen 0 with a handle: the header as read (ns_iov_unchanged()). */
	uint32_t len = iov->handle && !iov->rlen ? cut : iov->rlen;
	uint32_t egress, tail = iov->handle ? pk->len - cut : 0;

	if (iov->action == NETSLICE_TX_DROP) {
		w->nf_drops++;
		return;
	}
	egress = iov->action == NETSLICE_TX_IFINDEX ? iov->ifindex :
		 offline_pair(iov->ifindex, pf->nr_ifaces);
	if (iov->action > NETSLICE_TX_DROP || len > iov->len || len < 14 ||
	    !egress || egress > pf->nr_ifaces) {
		w->tx_errors++;
		return;
	}
	w->tx_packets++;
	w->tx_bytes += len + tail;
	if (iov->action == NETSLICE_TX_HOST || !out)
		return;
	memcpy(frame, ns_iov_data(iov), len);
	memcpy(frame + len, pk->data + cut, tail);
	/* What the capture did not keep is still missing, and still counted. */
	pcapng_write(out, &pf->ifaces[egress - 1], egress - 1, pk->ts_ns, frame, len + tail,
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

int nf_offline(const struct nf *nf, const struct pcapng_file *pf, const char *out_path,
	       const struct netslice_slicing *slicing, unsigned int batch, int json)
{
	uint32_t buf_size = pf->max_len > OFFLINE_BUF_SIZE ? pf->max_len : OFFLINE_BUF_SIZE;
	struct ns_worker w = { .fd = -1 }, *wp = &w;
	struct netslice_iov *iov;
	uint32_t *cut;
	uint8_t *bufs;
	uint64_t next_tick = 0, ms;
	size_t base, i, n;
	FILE *out = NULL;
	int ret = 1;

	iov = calloc(batch, sizeof(*iov));
	cut = calloc(batch, sizeof(*cut));
	bufs = malloc((size_t)batch * buf_size);
	if (!iov || !cut || !bufs) {
		nf_err("out of memory");
		goto out_free;
	}
	if (out_path) {
		out = offline_open_out(out_path, pf);
		if (!out) {
			nf_err("%s: %s", out_path, strerror(errno));
			goto out_free;
		}
	}
	offline_out = out;
	offline_pf = pf;
	nf_set_inject(offline_inject);
	if (nf->worker_init && nf->worker_init(&w, nf->arg)) {
		nf_err("worker setup failed");
		goto out_close;
	}
	for (base = 0; base < pf->nr_packets; base += n) {
		n = pf->nr_packets - base < batch ? pf->nr_packets - base : batch;
		for (i = 0; i < n; i++) {
			const struct pcapng_packet *pk = &pf->packets[base + i];
			uint8_t *buf = bufs + i * buf_size;
			int whole = pk->len == pk->wire_len;

			memcpy(buf, pk->data, pk->len);
			cut[i] = whole ? offline_slice_len(slicing, buf, pk->len) : pk->len;
			iov[i] = (struct netslice_iov) {
				.base = (uintptr_t)buf,
				.len = buf_size,
				.rlen = cut[i],
				.wire_len = pk->wire_len,
				.ifindex = pk->iface + 1,
				.queue = NETSLICE_QUEUE_NONE,
			};
			if (cut[i] < pk->len) {
				iov[i].handle = base + i + 1;
				iov[i].flags = NETSLICE_RX_SLICED;
			} else if (!whole) {
				iov[i].flags = NETSLICE_RX_TRUNCATED;
			}
			w.rx_packets++;
			w.rx_bytes += pk->wire_len;
		}
		/*
		 * The clock is the first packet's time; a tick as it passes each
		 * second. Ticks read the clock, so the ticks of a gap would all
		 * see this one time: one runs, however far the trace's time
		 * jumped (a capture's gap, or 1970 to now), and the schedule
		 * starts again from here.
		 */
		offline_ts_ns = pf->packets[base].ts_ns;
		ms = offline_ts_ns / 1000000;
		nf_set_time_ms(ms);
		if (nf->tick && ms >= next_tick) {
			if (next_tick)
				nf->tick(nf->arg);
			next_tick = next_tick && ms - next_tick < 1000 ? next_tick + 1000 : ms + 1000;
		}
		nf->process(&w, iov, (unsigned int)n, nf->arg);
		for (i = 0; i < n; i++)
			offline_emit(&w, out, pf, &iov[i], &pf->packets[base + i], cut[i]);
		if (nf->sent)
			nf->sent(&w, nf->arg);
	}
	if (nf->worker_fini)
		nf->worker_fini(&w, nf->arg);
	nf_print_summary(nf, &wp, NULL, 1, json, 0);
	ret = 0;
out_close:
	if (out && fclose(out)) {
		nf_err("%s: %s", out_path, strerror(errno));
		ret = 1;
	}
out_free:
	free(bufs);
	free(cut);
	free(iov);
	return ret;
}
