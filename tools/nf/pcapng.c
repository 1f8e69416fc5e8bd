// SPDX-License-Identifier: GPL-2.0
/* Reading and writing pcapng files: SHB, IDB (name, MAC) and EPB blocks. */
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
		}
		olen = (uint16_t)((olen + 3) & ~3);
		if (4 + (size_t)olen > len)
			break;
		o += 4 + olen;
		len -= 4 + olen;
	}
}

static int add_packet(struct pcapng_file *pf, const uint8_t *b, size_t blen, int swap,
		      char *err, size_t errlen)
{
	struct pcapng_packet *pk, *grown;
	uint32_t w[5];

	if (blen < 20)
		return fail(err, errlen, "short packet block");
	memcpy(w, b, sizeof(w));
	if (sw32(w[0], swap) >= pf->nr_ifaces)
		return fail(err, errlen, "packet on undeclared interface %u", sw32(w[0], swap));
	if (sw32(w[3], swap) > blen - 20 || sw32(w[3], swap) > PCAPNG_MAX_FRAME)
		return fail(err, errlen, "packet length %u beyond its block", sw32(w[3], swap));
	grown = realloc(pf->packets, (pf->nr_packets + 1) * sizeof(*pk));
	if (!grown)
		return fail(err, errlen, "out of memory");
	pf->packets = grown;
	pk = &pf->packets[pf->nr_packets];
	pk->iface = sw32(w[0], swap);
	pk->ts = (uint64_t)sw32(w[1], swap) << 32 | sw32(w[2], swap);
	pk->len = sw32(w[3], swap);
	pk->data = malloc(pk->len ? pk->len : 1);
	if (!pk->data)
		return fail(err, errlen, "out of memory");
	memcpy(pk->data, b + 20, pk->len);
	pf->nr_packets++;
	return 0;
}

int pcapng_load(const char *path, struct pcapng_file *pf, char *err, size_t errlen)
{
	uint32_t hdr[2], type, len, bom;
	uint8_t *body = NULL;
	int swap = 0, ret = -1;
	FILE *f;

	memset(pf, 0, sizeof(*pf));
	f = fopen(path, "rb");
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	while (fread(hdr, 4, 2, f) == 2) {
		type = sw32(hdr[0], swap);
		if (hdr[0] == BT_SHB) {
			if (fread(&bom, 4, 1, f) != 1)
				break;
			swap = bom != BOM;
			if (swap && __builtin_bswap32(bom) != BOM) {
				fail(err, errlen, "%s: bad byte-order magic", path);
				goto out;
			}
			type = BT_SHB;
			fseek(f, -4, SEEK_CUR);
		} else if (!pf->nr_packets && !pf->nr_ifaces && ftell(f) == 8) {
			fail(err, errlen, "%s: not a pcapng file", path);
			goto out;
		}
		len = sw32(hdr[1], swap);
		if (len < 12 || len % 4 || len > 16 * 1024 * 1024) {
			fail(err, errlen, "%s: bad block length %u", path, len);
			goto out;
		}
		free(body);
		body = malloc(len - 8);
		if (!body || fread(body, 1, len - 8, f) != len - 8) {
			fail(err, errlen, "%s: truncated block", path);
			goto out;
		}
		if (type == BT_IDB) {
			struct pcapng_iface *ifc = &pf->ifaces[pf->nr_ifaces];
			uint16_t link;

			if (pf->nr_ifaces == PCAPNG_MAX_IFACES || len < 20) {
				fail(err, errlen, "%s: too many interfaces", path);
				goto out;
			}
			memcpy(&link, body, 2);
			if (sw16(link, swap) != LINKTYPE_ETHERNET) {
				fail(err, errlen, "%s: interface %u is not Ethernet", path,
				     pf->nr_ifaces);
				goto out;
			}
			snprintf(ifc->name, sizeof(ifc->name), "if%u", pf->nr_ifaces);
			parse_idb_options(ifc, body + 8, len - 20, swap);
			pf->nr_ifaces++;
		} else if (type == BT_EPB) {
			if (add_packet(pf, body, len - 12, swap, err, errlen))
				goto out;
		}
	}
	ret = 0;
out:
	free(body);
	fclose(f);
	if (ret)
		pcapng_free(pf);
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
	uint8_t shb[16] = { 0 }, idb[8 + 4 + 32 + 4 + 8 + 4];
	uint32_t bom = BOM, snap = PCAPNG_MAX_FRAME;
	uint16_t v, nlen;
	unsigned int i;
	size_t off;
	FILE *f;

	f = fopen(path, "wb");
	if (!f)
		return NULL;
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
		nlen = (uint16_t)strlen(ifaces[i].name);
		v = OPT_IF_NAME;
		memcpy(idb + off, &v, 2);
		memcpy(idb + off + 2, &nlen, 2);
		memcpy(idb + off + 4, ifaces[i].name, nlen);
		off += 4 + ((nlen + 3u) & ~3u);
		if (ifaces[i].has_mac) {
			v = OPT_IF_MAC;
			memcpy(idb + off, &v, 2);
			nlen = 6;
			memcpy(idb + off + 2, &nlen, 2);
			memcpy(idb + off + 4, ifaces[i].mac, 6);
			off += 12;
		}
		off += 4;	/* opt_endofopt */
		put_block(f, BT_IDB, idb, (uint32_t)off);
	}
	return f;
}

int pcapng_write(FILE *f, uint32_t iface, uint64_t ts, const void *data, uint32_t len)
{
	uint32_t total = 32 + ((len + 3) & ~3u), type = BT_EPB, zero = 0;
	uint32_t w[5] = { iface, (uint32_t)(ts >> 32), (uint32_t)ts, len, len };

	fwrite(&type, 4, 1, f);
	fwrite(&total, 4, 1, f);
	fwrite(w, 4, 5, f);
	fwrite(data, 1, len, f);
	fwrite(&zero, 1, (4 - len % 4) % 4, f);
	return fwrite(&total, 4, 1, f) == 1 ? 0 : -1;
}
