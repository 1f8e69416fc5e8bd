// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * Reading pcapng (sections, IDB with name, MAC and if_tsresol, EPB with
 * epb_queue) and classic pcap files, from a file or standard input, one
 * packet at a time in constant memory (a block at most 16 MiB; a frame
 * over PCAPNG_MAX_FRAME skipped and counted); Linux cooked captures (SLL,
 * SLL2) read as Ethernet. A wait for input can be ended by another fd
 * (struct pcapng_wake): at a block boundary nothing is lost, and the
 * caller may read on. Writing is pcapng_write.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcapng.h"

#define LINKTYPE_LINUX_SLL 113	/* what tcpdump -i any wrote before libpcap 1.10 */
#define LINKTYPE_LINUX_SLL2 276	/* and since */
#define OPT_EPB_QUEUE	6
#define PCAPNG_MAX_BLOCK (16 * 1024 * 1024)
/* Classic pcap: microsecond and nanosecond timestamps, in the writer's order */
#define PCAP_MAGIC_US	0xa1b2c3d4
#define PCAP_MAGIC_NS	0xa1b23c4d

static uint32_t sw32(uint32_t v, int swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

static uint16_t sw16(uint16_t v, int swap)
{
	return swap ? __builtin_bswap16(v) : v;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* if_tsresol values this reader converts: 10^-0..10^-19 s, 2^-0..2^-63 s. */
static int tsresol_ok(uint8_t resol)
{
	return resol & 0x80 ? (resol & 0x7f) < 64 : resol <= 19;
}

/* A timestamp in units of resol, in nanoseconds. */
static uint64_t ts_to_ns(uint64_t ts, uint8_t resol)
{
	unsigned int v = resol & 0x7f;

	if (resol & 0x80)
		return (uint64_t)(((unsigned __int128)ts * 1000000000u) >> v);
	return v <= 9 ? ts * pcapng_pow10(9 - v) : ts / pcapng_pow10(v - 9);
}

/*
 * Wait until the input can be read (1), or the wake callback ends the
 * wait (0). Its fd is looked at first: a signal is seen between two reads
 * of a file that never makes the reader wait.
 */
static int wait_input(struct pcapng_file *pf, int between)
{
	struct pollfd p[2] = {
		{ .fd = pf->wake.fd, .events = POLLIN },
		{ .fd = pf->fd, .events = POLLIN },
	};

	if (pf->wake.fd < 0)
		return 1;
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;	/* read() says what is wrong */
		}
		if ((p[0].revents & POLLIN) && pf->wake.fn(pf->wake.arg, between))
			return 0;
		if (p[1].revents)
			return 1;
	}
}

/*
 * Up to n bytes of input into dst (NULL: skip them); fewer only at the
 * end of the input; -1 on a read error, or with errno EINTR and
 * pf->woken set when the wake callback ended a wait.
 */
static ssize_t rd(struct pcapng_file *pf, void *dst, size_t n)
{
	size_t got = 0, k;
	ssize_t m;

	while (got < n) {
		if (pf->pos == pf->end) {
			if (!wait_input(pf, pf->between && !got)) {
				pf->woken = 1;
				pf->cut_off = !pf->between || got;
				errno = EINTR;
				return -1;
			}
			m = read(pf->fd, pf->buf, PCAPNG_READ_BUF);
			if (m < 0 && errno == EINTR)
				continue;
			if (m < 0)
				return -1;
			if (!m)
				break;
			pf->pos = 0;
			pf->end = (size_t)m;
		}
		k = n - got < pf->end - pf->pos ? n - got : pf->end - pf->pos;
		if (dst)
			memcpy((uint8_t *)dst + got, pf->buf + pf->pos, k);
		pf->pos += k;
		got += k;
	}
	return (ssize_t)got;
}

/* A block's (or record's) first bytes: a wake before any of them loses nothing. */
static ssize_t rd_first(struct pcapng_file *pf, void *dst, size_t n)
{
	ssize_t r;

	pf->between = 1;
	r = rd(pf, dst, n);
	pf->between = 0;
	return r;
}

/* Exactly n bytes: 0, or -1 with why in err (truncated: what was being read). */
static int rd_all(struct pcapng_file *pf, void *dst, size_t n, const char *what, char *err,
		  size_t errlen)
{
	ssize_t got = rd(pf, dst, n);

	if (got < 0)
		return fail(err, errlen, "%s", strerror(errno));
	if ((size_t)got != n)
		return fail(err, errlen, "truncated %s", what);
	return 0;
}

int pcapng_readable(struct pcapng_file *pf)
{
	struct pollfd p = { .fd = pf->fd, .events = POLLIN };

	if (pf->pos < pf->end || pf->peeked)
		return 1;
	/* Readable, at its end, or in error: reading will not wait. */
	return poll(&p, 1, 0) != 0;
}

/* Room for a block body of len bytes. */
static int grow_block(struct pcapng_file *pf, size_t len, char *err, size_t errlen)
{
	uint8_t *b;

	if (len <= pf->block_size)
		return 0;
	b = realloc(pf->block, len);
	if (!b)
		return fail(err, errlen, "out of memory");
	pf->block = b;
	pf->block_size = len;
	return 0;
}

/*
 * The next option of a block's options at *o (*len bytes left): its code,
 * value and length; 0 at opt_endofopt or where the options run short.
 */
static int next_option(const uint8_t **o, size_t *len, int swap, uint16_t *code,
		       const uint8_t **val, uint16_t *vlen)
{
	size_t padded;

	if (*len < 4)
		return 0;
	memcpy(code, *o, 2);
	memcpy(vlen, *o + 2, 2);
	*code = sw16(*code, swap);
	*vlen = sw16(*vlen, swap);
	if (!*code || 4 + (size_t)*vlen > *len)
		return 0;
	*val = *o + 4;
	padded = 4 + (((size_t)*vlen + 3) & ~(size_t)3);
	*o += padded < *len ? padded : *len;
	*len -= padded < *len ? padded : *len;
	return 1;
}

static void parse_idb_options(struct pcapng_iface *ifc, const uint8_t *o, size_t len, int swap)
{
	const uint8_t *val;
	uint16_t code, vlen;

	while (next_option(&o, &len, swap, &code, &val, &vlen)) {
		if (code == OPT_IF_NAME && vlen < sizeof(ifc->name)) {
			memcpy(ifc->name, val, vlen);
			ifc->name[vlen] = '\0';
		} else if (code == OPT_IF_MAC && vlen == 6) {
			memcpy(ifc->mac, val, 6);
			ifc->has_mac = 1;
		} else if (code == OPT_IF_TSRESOL && vlen == 1) {
			ifc->tsresol = val[0];
		}
	}
}

/* An enhanced packet block's epb_queue, or 0. */
static uint32_t epb_queue(const uint8_t *o, size_t len, int swap)
{
	const uint8_t *val;
	uint16_t code, vlen;
	uint32_t q;

	while (next_option(&o, &len, swap, &code, &val, &vlen))
		if (code == OPT_EPB_QUEUE && vlen == 4) {
			memcpy(&q, val, 4);
			return sw32(q, swap);
		}
	return 0;
}

static int link_ok(uint32_t link)
{
	return link == LINKTYPE_ETHERNET || link == LINKTYPE_LINUX_SLL ||
	       link == LINKTYPE_LINUX_SLL2;
}

/*
 * The section's next interface: the first section's are the file's
 * interfaces, in order; a later section's interface is the one of the
 * same name (a capture of the same links, concatenated), or a new one.
 */
static int add_iface(struct pcapng_file *pf, const struct pcapng_iface *ifc, uint32_t link,
		     char *err, size_t errlen)
{
	struct pcapng_section_iface *si = &pf->sect[pf->nr_sect];
	unsigned int i = pf->nr_ifaces;

	if (pf->nr_sect == PCAPNG_MAX_IFACES)
		return fail(err, errlen, "more than %u interfaces", PCAPNG_MAX_IFACES);
	if (!link_ok(link))
		return fail(err, errlen, "interface %u: link type %u is not Ethernet or Linux cooked",
			    pf->nr_sect, link);
	if (!tsresol_ok(ifc->tsresol))
		return fail(err, errlen, "interface %u: if_tsresol 0x%02x not supported",
			    pf->nr_sect, ifc->tsresol);
	if (pf->sections > 1)
		for (i = 0; i < pf->nr_ifaces; i++)
			if (!strcmp(pf->ifaces[i].name, ifc->name))
				break;
	if (i == pf->nr_ifaces) {
		if (i == PCAPNG_MAX_IFACES)
			return fail(err, errlen, "more than %u interfaces", PCAPNG_MAX_IFACES);
		pf->ifaces[i] = *ifc;
		pf->nr_ifaces++;
	}
	si->iface = i;
	si->link = link;
	si->tsresol = ifc->tsresol;
	pf->nr_sect++;
	return 0;
}

/*
 * A Linux cooked capture's frame (SLL: 16-byte header, SLL2: 20) as an
 * Ethernet frame, in place: the protocol as EtherType, the link-layer
 * address (if it has 6 bytes) as source, destination zero. pk->data
 * moves forward by the difference. -1 if too short to hold the header.
 */
static int cooked_to_ethernet(struct pcapng_packet *pk, uint32_t link)
{
	uint8_t *d = pk->data, proto[2], addr[6] = { 0 };
	uint32_t hdr = link == LINKTYPE_LINUX_SLL ? 16 : 20, halen;

	if (link == LINKTYPE_ETHERNET)
		return 0;
	if (pk->len < hdr)
		return -1;
	if (link == LINKTYPE_LINUX_SLL) {
		halen = (uint32_t)d[4] << 8 | d[5];
		memcpy(proto, d + 14, 2);
		if (halen == 6)
			memcpy(addr, d + 6, 6);
	} else {
		halen = d[11];
		memcpy(proto, d, 2);
		if (halen == 6)
			memcpy(addr, d + 12, 6);
	}
	d += hdr - 14;
	memset(d, 0, 6);
	memcpy(d + 6, addr, 6);
	memcpy(d + 12, proto, 2);
	pk->data = d;
	pk->len -= hdr - 14;
	pk->wire_len -= hdr - 14;
	return 0;
}

/* A packet of len bytes at data, of section interface iface. */
static int set_packet(struct pcapng_file *pf, struct pcapng_packet *pk, uint32_t iface,
		      uint64_t ts, uint8_t *data, uint32_t len, uint32_t wire_len, char *err,
		      size_t errlen)
{
	const struct pcapng_section_iface *si;

	if (iface >= pf->nr_sect)
		return fail(err, errlen, "packet on undeclared interface %u", iface);
	si = &pf->sect[iface];
	pk->iface = si->iface;
	pk->ts_ns = ts_to_ns(ts, si->tsresol);
	pk->data = data;
	pk->len = len;
	/* A wire length below the captured one is taken as equal. */
	pk->wire_len = wire_len > len ? wire_len : len;
	if (cooked_to_ethernet(pk, si->link))
		return fail(err, errlen, "Linux cooked frame of %u bytes: shorter than its header",
			    len);
	return 0;
}

/* A frame too long to read: counted (and the first one's length kept), not read. */
static void oversize(struct pcapng_file *pf, uint32_t len)
{
	if (!pf->oversize++)
		pf->oversize_len = len;
}

/*
 * The next pcapng block that is a packet (1), the end of the input (0),
 * or -1. Section headers start a section: interfaces numbered from 0
 * again, in their own byte order. A section header's byte-order magic
 * comes before its length can be read.
 */
static int next_pcapng(struct pcapng_file *pf, struct pcapng_packet *pk, char *err, size_t errlen)
{
	uint32_t raw_type, raw_len, type, len, bom, w[5];
	size_t got, blen;
	ssize_t r;

	for (;;) {
		if (pf->have_type) {
			raw_type = BT_SHB;
			pf->have_type = 0;
			r = 4;
		} else {
			r = rd_first(pf, &raw_type, 4);
		}
		if (r < 0)
			return fail(err, errlen, "%s", strerror(errno));
		if (!r)
			return 0;
		if (r != 4 || rd_all(pf, &raw_len, 4, "block", err, errlen))
			return r != 4 ? fail(err, errlen, "truncated block") : -1;
		got = 0;
		if (raw_type == BT_SHB) {
			if (rd_all(pf, &bom, 4, "block", err, errlen))
				return -1;
			pf->swap = bom != BOM;
			if (pf->swap && __builtin_bswap32(bom) != BOM)
				return fail(err, errlen, "bad byte-order magic");
			got = 4;
		}
		type = sw32(raw_type, pf->swap);
		len = sw32(raw_len, pf->swap);
		if (len < 12 || len % 4 || len > PCAPNG_MAX_BLOCK || (type == BT_SHB && len < 16))
			return fail(err, errlen, "bad block length %u", len);
		/* The body after the 8-byte header; a section header's magic is in it. */
		if (grow_block(pf, len - 8, err, errlen))
			return -1;
		if (got)
			memcpy(pf->block, &bom, 4);
		if (rd_all(pf, pf->block + got, len - 8 - got, "block", err, errlen))
			return -1;
		blen = len - 12;	/* without the trailing length */
		if (type == BT_SHB) {
			pf->sections++;
			pf->nr_sect = 0;
		} else if (type == BT_IDB) {
			struct pcapng_iface ifc = { .tsresol = PCAPNG_TSRESOL_US };
			uint16_t link;

			if (blen < 8)
				return fail(err, errlen, "short interface block");
			memcpy(&link, pf->block, 2);
			snprintf(ifc.name, sizeof(ifc.name), "if%u", pf->nr_sect);
			parse_idb_options(&ifc, pf->block + 8, blen - 8, pf->swap);
			if (add_iface(pf, &ifc, sw16(link, pf->swap), err, errlen))
				return -1;
		} else if (type == BT_EPB) {
			uint32_t caplen, padded;

			if (blen < 20)
				return fail(err, errlen, "short packet block");
			memcpy(w, pf->block, sizeof(w));
			caplen = sw32(w[3], pf->swap);
			if (caplen > blen - 20)
				return fail(err, errlen, "packet length %u beyond its block", caplen);
			if (caplen > PCAPNG_MAX_FRAME) {
				oversize(pf, caplen);
				continue;
			}
			padded = (caplen + 3) & ~3u;
			pk->queue = padded <= blen - 20 ?
				    epb_queue(pf->block + 20 + padded, blen - 20 - padded, pf->swap) : 0;
			return set_packet(pf, pk, sw32(w[0], pf->swap),
					  (uint64_t)sw32(w[1], pf->swap) << 32 | sw32(w[2], pf->swap),
					  pf->block + 20, caplen, sw32(w[4], pf->swap), err,
					  errlen) ? -1 : 1;
		}
	}
}

/* Classic pcap's next record (1), the end (0), or -1. */
static int next_pcap(struct pcapng_file *pf, struct pcapng_packet *pk, char *err, size_t errlen)
{
	uint32_t rec[4], len;
	ssize_t r;

	for (;;) {
		r = rd_first(pf, rec, sizeof(rec));
		if (r < 0)
			return fail(err, errlen, "%s", strerror(errno));
		if (!r)
			return 0;
		if (r != sizeof(rec))
			return fail(err, errlen, "truncated packet record");
		len = sw32(rec[2], pf->swap);
		/* As pcapng's blocks: a longer record is a damaged file, not a frame. */
		if (len > PCAPNG_MAX_BLOCK)
			return fail(err, errlen, "bad packet record length %u", len);
		if (len <= PCAPNG_MAX_FRAME)
			break;
		if (rd_all(pf, NULL, len, "packet record", err, errlen))
			return -1;
		oversize(pf, len);
	}
	if (grow_block(pf, len ? len : 1, err, errlen) ||
	    rd_all(pf, pf->block, len, "packet record", err, errlen))
		return -1;
	pk->queue = 0;
	/* In the section interface's units: seconds, and micro- or nanoseconds. */
	return set_packet(pf, pk, 0,
			  (uint64_t)sw32(rec[0], pf->swap) * (pf->sect[0].tsresol == 9 ?
							       1000000000u : 1000000u) +
			  sw32(rec[1], pf->swap),
			  pf->block, len, sw32(rec[3], pf->swap), err, errlen) ? -1 : 1;
}

static int next_packet(struct pcapng_file *pf, struct pcapng_packet *pk, char *err, size_t errlen)
{
	return pf->classic ? next_pcap(pf, pk, err, errlen) : next_pcapng(pf, pk, err, errlen);
}

/* Classic pcap's file header: one interface, "if0". */
static int open_pcap(struct pcapng_file *pf, uint32_t magic, char *err, size_t errlen)
{
	struct pcapng_iface ifc = { .name = "if0", .tsresol = PCAPNG_TSRESOL_US };
	uint32_t hdr[5];

	pf->classic = 1;
	pf->swap = magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS;
	if (sw32(magic, pf->swap) == PCAP_MAGIC_NS)
		ifc.tsresol = 9;
	if (rd_all(pf, hdr, sizeof(hdr), "pcap header", err, errlen))
		return -1;
	pf->sections = 1;
	/* The link type's top bits may carry FCS information. */
	return add_iface(pf, &ifc, sw32(hdr[4], pf->swap) & 0x0fffffff, err, errlen);
}

/* With the path in front of what is wrong. */
static int fail_path(const char *path, char *err, size_t errlen)
{
	char why[256];

	snprintf(why, sizeof(why), "%s", err);
	return fail(err, errlen, "%s: %s", path, why);
}

int pcapng_open(const char *path, struct pcapng_file *pf, const struct pcapng_wake *wake,
		char *err, size_t errlen)
{
	uint32_t magic;
	ssize_t got;
	int ret;

	memset(pf, 0, sizeof(*pf));
	pf->path = path;
	pf->fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (pf->fd < 0)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	pf->buf = malloc(PCAPNG_READ_BUF);
	if (!pf->buf) {
		fail(err, errlen, "out of memory");
		goto out_close;
	}
	pf->wake = wake ? *wake : (struct pcapng_wake) { .fd = -1 };
	got = rd_first(pf, &magic, 4);
	if (got < 0 && pf->woken) {
		/* Stopped before the input said anything: it ends here. */
		pf->cut_off = 1;
		return 0;
	}
	if (got != 4) {
		fail(err, errlen, got < 0 ? strerror(errno) : "empty or unreadable");
		goto out_close;
	}
	if (magic == BT_SHB) {
		/* The first block's type is read: next_pcapng() takes it from here. */
		pf->have_type = 1;
		/* Up to the first packet, so the interfaces are known. */
		ret = next_pcapng(pf, &pf->peek, err, errlen);
		pf->peeked = ret == 1;
	} else if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS ||
		   magic == __builtin_bswap32(PCAP_MAGIC_US) ||
		   magic == __builtin_bswap32(PCAP_MAGIC_NS)) {
		ret = open_pcap(pf, magic, err, errlen);
	} else {
		ret = fail(err, errlen, "not a pcapng or pcap file");
	}
	if (ret >= 0)
		return 0;
	/* Woken before the first packet: the interfaces declared so far. */
	if (pf->woken)
		return 0;
out_close:
	fail_path(path, err, errlen);
	pcapng_close(pf);
	return -1;
}

int pcapng_next(struct pcapng_file *pf, struct pcapng_packet *pk, char *err, size_t errlen)
{
	int ret;

	if (pf->peeked) {
		*pk = pf->peek;
		pf->peeked = 0;
		return 1;
	}
	if (pf->cut_off)
		return 0;
	pf->woken = 0;
	ret = next_packet(pf, pk, err, errlen);
	if (ret < 0 && pf->woken)
		return PCAPNG_WOKEN;
	if (ret < 0)
		fail_path(pf->path, err, errlen);
	return ret;
}

void pcapng_close(struct pcapng_file *pf)
{
	if (pf->fd > STDIN_FILENO)
		close(pf->fd);
	free(pf->buf);
	free(pf->block);
	memset(pf, 0, sizeof(*pf));
	pf->fd = -1;
}
