// SPDX-License-Identifier: GPL-2.0
/*
 * Reading pcapng (SHB, IDB with name, MAC and if_tsresol, EPB) and classic
 * pcap files, from a file or standard input; writing pcapng.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pcapng.h"

#define BT_SHB		0x0a0d0d0a
#define BT_IDB		0x00000001
#define BT_EPB		0x00000006
#define BOM		0x1a2b3c4d
#define LINKTYPE_ETHERNET 1
#define OPT_IF_NAME	2
#define OPT_IF_MAC	6
#define OPT_IF_TSRESOL	9
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

static uint64_t pow10_u64(unsigned int e)
{
	uint64_t v = 1;

	while (e--)
		v *= 10;
	return v;
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
	return v <= 9 ? ts * pow10_u64(9 - v) : ts / pow10_u64(v - 9);
}

static uint64_t ns_to_ts(uint64_t ns, uint8_t resol)
{
	unsigned int v = resol & 0x7f;

	if (resol & 0x80)
		return (uint64_t)(((unsigned __int128)ns << v) / 1000000000u);
	return v <= 9 ? ns / pow10_u64(9 - v) : ns * pow10_u64(v - 9);
}

static void parse_idb_options(struct pcapng_iface *ifc, const uint8_t *o, size_t len, int swap)
{
	uint16_t code, olen;

	while (len >= 4) {
		memcpy(&code, o, 2);
		memcpy(&olen, o + 2, 2);
		code = sw16(code, swap);
		olen = sw16(olen, swap);
		if (!code || 4 + (size_t)olen > len)
			break;
		if (code == OPT_IF_NAME && olen < sizeof(ifc->name)) {
			memcpy(ifc->name, o + 4, olen);
			ifc->name[olen] = '\0';
		} else if (code == OPT_IF_MAC && olen == 6) {
			memcpy(ifc->mac, o + 4, 6);
			ifc->has_mac = 1;
		} else if (code == OPT_IF_TSRESOL && olen == 1) {
			ifc->tsresol = o[4];
		}
		olen = (uint16_t)((olen + 3) & ~3);
		if (4 + (size_t)olen > len)
			break;
		o += 4 + olen;
		len -= 4 + olen;
	}
}

static struct pcapng_iface *add_iface(struct pcapng_file *pf, uint8_t tsresol)
{
	struct pcapng_iface *ifc = &pf->ifaces[pf->nr_ifaces];

	if (pf->nr_ifaces == PCAPNG_MAX_IFACES)
		return NULL;
	memset(ifc, 0, sizeof(*ifc));
	snprintf(ifc->name, sizeof(ifc->name), "if%u", pf->nr_ifaces);
	ifc->tsresol = tsresol;
	pf->nr_ifaces++;
	return ifc;
}

/* One captured frame; a wire length below the captured one is taken as equal. */
static int add_packet(struct pcapng_file *pf, uint32_t iface, uint64_t ts_ns, const uint8_t *data,
		      uint32_t len, uint32_t wire_len, char *err, size_t errlen)
{
	struct pcapng_packet *pk, *grown;
	size_t n = pf->nr_packets;

	if (iface >= pf->nr_ifaces)
		return fail(err, errlen, "packet on undeclared interface %u", iface);
	if (len > PCAPNG_MAX_FRAME)
		return fail(err, errlen, "packet of %u bytes: at most %u", len, PCAPNG_MAX_FRAME);
	/* Room doubles at 16, 32, 64... */
	if (!n || (n >= 16 && !(n & (n - 1)))) {
		grown = realloc(pf->packets, (n ? n * 2 : 16) * sizeof(*pk));
		if (!grown)
			return fail(err, errlen, "out of memory");
		pf->packets = grown;
	}
	pk = &pf->packets[n];
	pk->iface = iface;
	pk->ts_ns = ts_ns;
	pk->len = len;
	pk->wire_len = wire_len > len ? wire_len : len;
	pk->data = malloc(len ? len : 1);
	if (!pk->data)
		return fail(err, errlen, "out of memory");
	memcpy(pk->data, data, len);
	pf->nr_packets++;
	if (len > pf->max_len)
		pf->max_len = len;
	return 0;
}

static int add_epb(struct pcapng_file *pf, const uint8_t *b, size_t blen, int swap,
		   char *err, size_t errlen)
{
	uint32_t w[5], iface;

	if (blen < 20)
		return fail(err, errlen, "short packet block");
	memcpy(w, b, sizeof(w));
	iface = sw32(w[0], swap);
	if (sw32(w[3], swap) > blen - 20)
		return fail(err, errlen, "packet length %u beyond its block", sw32(w[3], swap));
	if (iface >= pf->nr_ifaces)
		return fail(err, errlen, "packet on undeclared interface %u", iface);
	return add_packet(pf, iface,
			  ts_to_ns((uint64_t)sw32(w[1], swap) << 32 | sw32(w[2], swap),
				   pf->ifaces[iface].tsresol),
			  b + 20, sw32(w[3], swap), sw32(w[4], swap), err, errlen);
}

/*
 * pcapng, read in one pass (standard input cannot seek): first holds the
 * first block's type, already read. A section header's byte-order magic
 * comes before its length can be read.
 */
static int load_pcapng(FILE *f, uint32_t first, struct pcapng_file *pf, char *err, size_t errlen)
{
	uint32_t raw_type = first, raw_len, type, len, bom = 0;
	uint8_t *body = NULL;
	int swap = 0, ret = -1;
	size_t got;

	for (;;) {
		if (fread(&raw_len, 4, 1, f) != 1)
			goto truncated;
		if (raw_type == BT_SHB) {
			if (fread(&bom, 4, 1, f) != 1)
				goto truncated;
			swap = bom != BOM;
			if (swap && __builtin_bswap32(bom) != BOM) {
				fail(err, errlen, "bad byte-order magic");
				goto out;
			}
		}
		type = sw32(raw_type, swap);
		len = sw32(raw_len, swap);
		if (len < 12 || len % 4 || len > 16 * 1024 * 1024 || (type == BT_SHB && len < 16)) {
			fail(err, errlen, "bad block length %u", len);
			goto out;
		}
		free(body);
		body = malloc(len - 8);
		if (!body)
			goto truncated;
		/* The body after the 8-byte header; a section header's magic is in it. */
		got = type == BT_SHB ? (memcpy(body, &bom, 4), 4) : 0;
		if (fread(body + got, 1, len - 8 - got, f) != len - 8 - got)
			goto truncated;
		if (type == BT_IDB) {
			struct pcapng_iface *ifc;
			uint16_t link;

			if (len < 20 || !(ifc = add_iface(pf, PCAPNG_TSRESOL_US))) {
				fail(err, errlen, "too many interfaces");
				goto out;
			}
			memcpy(&link, body, 2);
			if (sw16(link, swap) != LINKTYPE_ETHERNET) {
				fail(err, errlen, "interface %u is not Ethernet", pf->nr_ifaces - 1);
				goto out;
			}
			parse_idb_options(ifc, body + 8, len - 20, swap);
			if (!tsresol_ok(ifc->tsresol)) {
				fail(err, errlen, "interface %u: if_tsresol 0x%02x not supported",
				     pf->nr_ifaces - 1, ifc->tsresol);
				goto out;
			}
		} else if (type == BT_EPB) {
			if (add_epb(pf, body, len - 12, swap, err, errlen))
				goto out;
		}
		got = fread(&raw_type, 1, 4, f);
		if (!got)
			break;
		if (got != 4)
			goto truncated;
	}
	ret = ferror(f) ? fail(err, errlen, "%s", strerror(errno)) : 0;
	goto out;
truncated:
	fail(err, errlen, ferror(f) ? strerror(errno) : "truncated block");
out:
	free(body);
	return ret;
}

/* Classic pcap: one Ethernet interface, microsecond or nanosecond times. */
static int load_pcap(FILE *f, uint32_t magic, struct pcapng_file *pf, char *err, size_t errlen)
{
	int swap = magic != PCAP_MAGIC_US && magic != PCAP_MAGIC_NS;
	int ns = sw32(magic, swap) == PCAP_MAGIC_NS;
	uint32_t hdr[5], rec[4];
	uint8_t *frame;
	int ret = -1;
	size_t got;

	if (fread(hdr, 4, 5, f) != 5)
		return fail(err, errlen, "truncated pcap header");
	/* The link type's top bits may carry FCS information. */
	if ((sw32(hdr[4], swap) & 0x0fffffff) != LINKTYPE_ETHERNET)
		return fail(err, errlen, "link type %u is not Ethernet", sw32(hdr[4], swap));
	add_iface(pf, ns ? 9 : PCAPNG_TSRESOL_US);
	frame = malloc(PCAPNG_MAX_FRAME);
	if (!frame)
		return fail(err, errlen, "out of memory");
	while ((got = fread(rec, 1, sizeof(rec), f)) == sizeof(rec)) {
		uint32_t len = sw32(rec[2], swap);
		uint64_t ts = (uint64_t)sw32(rec[0], swap) * 1000000000u +
			      (uint64_t)sw32(rec[1], swap) * (ns ? 1 : 1000);

		if (len > PCAPNG_MAX_FRAME) {
			fail(err, errlen, "packet of %u bytes: at most %u", len, PCAPNG_MAX_FRAME);
			goto out;
		}
		if (fread(frame, 1, len, f) != len) {
			fail(err, errlen, "truncated packet record");
			goto out;
		}
		if (add_packet(pf, 0, ts, frame, len, sw32(rec[3], swap), err, errlen))
			goto out;
	}
	ret = got ? fail(err, errlen, "truncated packet record") : 0;
out:
	free(frame);
	return ret;
}

int pcapng_load(const char *path, struct pcapng_file *pf, char *err, size_t errlen)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	uint32_t magic;
	int ret;

	memset(pf, 0, sizeof(*pf));
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	if (fread(&magic, 4, 1, f) != 1)
		ret = fail(err, errlen, "empty or unreadable");
	else if (magic == BT_SHB)
		ret = load_pcapng(f, magic, pf, err, errlen);
	else if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS ||
		 magic == __builtin_bswap32(PCAP_MAGIC_US) ||
		 magic == __builtin_bswap32(PCAP_MAGIC_NS))
		ret = load_pcap(f, magic, pf, err, errlen);
	else
		ret = fail(err, errlen, "not a pcapng or pcap file");
	if (f != stdin)
		fclose(f);
	if (ret) {
		/* Say which file, before what is wrong with it. */
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		fail(err, errlen, "%s: %s", path, why);
		pcapng_free(pf);
	}
	return ret;
}

void pcapng_free(struct pcapng_file *pf)
{
	size_t i;

	for (i = 0; i < pf->nr_packets; i++)
		free(pf->packets[i].data);
	free(pf->packets);
	memset(pf, 0, sizeof(*pf));
}

static void put_block(FILE *f, uint32_t type, const void *body, uint32_t len)
{
	uint32_t total = 12 + ((len + 3) & ~3u), zero = 0;

	fwrite(&type, 4, 1, f);
	fwrite(&total, 4, 1, f);
	fwrite(body, 1, len, f);
	fwrite(&zero, 1, (4 - len % 4) % 4, f);
	fwrite(&total, 4, 1, f);
}

FILE *pcapng_create(const char *path, const struct pcapng_iface *ifaces, unsigned int n)
{
	FILE *f = fopen(path, "wb");

	if (f && pcapng_start(f, ifaces, n)) {
		fclose(f);
		return NULL;
	}
	return f;
}

/* An option of len bytes at idb + *off (padded to 4). */
static void put_opt(uint8_t *idb, size_t *off, uint16_t code, const void *val, uint16_t len)
{
	memcpy(idb + *off, &code, 2);
	memcpy(idb + *off + 2, &len, 2);
	memcpy(idb + *off + 4, val, len);
	*off += 4 + ((len + 3u) & ~3u);
}

int pcapng_start(FILE *f, const struct pcapng_iface *ifaces, unsigned int n)
{
	uint8_t shb[16] = { 0 }, idb[8 + 4 + 32 + 4 + 8 + 4 + 4 + 4];
	uint32_t bom = BOM, snap = PCAPNG_MAX_FRAME;
	unsigned int i;
	uint16_t v;
	size_t off;

	memcpy(shb, &bom, 4);
	v = 1;
	memcpy(shb + 4, &v, 2);
	memset(shb + 8, 0xff, 8);
	put_block(f, BT_SHB, shb, sizeof(shb));
	for (i = 0; i < n; i++) {
		memset(idb, 0, sizeof(idb));
		v = LINKTYPE_ETHERNET;
		memcpy(idb, &v, 2);
		memcpy(idb + 4, &snap, 4);
		off = 8;
		put_opt(idb, &off, OPT_IF_NAME, ifaces[i].name, (uint16_t)strlen(ifaces[i].name));
		if (ifaces[i].has_mac)
			put_opt(idb, &off, OPT_IF_MAC, ifaces[i].mac, 6);
		/* The input's resolution, so times are written as they were read. */
		if (ifaces[i].tsresol != PCAPNG_TSRESOL_US)
			put_opt(idb, &off, OPT_IF_TSRESOL, &ifaces[i].tsresol, 1);
		off += 4;	/* opt_endofopt */
		put_block(f, BT_IDB, idb, (uint32_t)off);
	}
	return ferror(f) ? -1 : 0;
}

int pcapng_write(FILE *f, const struct pcapng_iface *ifc, uint32_t iface, uint64_t ts_ns,
		 const void *data, uint32_t len, uint32_t wire_len)
{
	uint64_t ts = ns_to_ts(ts_ns, ifc->tsresol);
	uint32_t total = 32 + ((len + 3) & ~3u), type = BT_EPB, zero = 0;
	uint32_t w[5] = { iface, (uint32_t)(ts >> 32), (uint32_t)ts, len,
			  wire_len > len ? wire_len : len };

	fwrite(&type, 4, 1, f);
	fwrite(&total, 4, 1, f);
	fwrite(w, 4, 5, f);
	fwrite(data, 1, len, f);
	fwrite(&zero, 1, (4 - len % 4) % 4, f);
	return fwrite(&total, 4, 1, f) == 1 ? 0 : -1;
}
