// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* Writing pcapng: a section of Ethernet interfaces, enhanced packet blocks. */
#include <string.h>

#include "pcapng_write.h"

static uint64_t ns_to_ts(uint64_t ns, uint8_t resol)
{
	unsigned int v = resol & 0x7f;

	if (resol & 0x80)
		return (uint64_t)(((unsigned __int128)ns << v) / 1000000000u);
	return v <= 9 ? ns / pcapng_pow10(9 - v) : ns * pcapng_pow10(v - 9);
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

int pcapng_write_iface(FILE *f, const struct pcapng_iface *ifc)
{
	uint8_t idb[8 + 4 + 32 + 4 + 8 + 4 + 4 + 4] = { 0 };
	uint32_t snap = 0;	/* no limit: frames as long as the input's, and a header longer */
	uint16_t v = LINKTYPE_ETHERNET;
	size_t off = 8;

	memcpy(idb, &v, 2);
	memcpy(idb + 4, &snap, 4);
	put_opt(idb, &off, OPT_IF_NAME, ifc->name, (uint16_t)strlen(ifc->name));
	if (ifc->has_mac)
		put_opt(idb, &off, OPT_IF_MAC, ifc->mac, 6);
	/* The input's resolution, so times are written as they were read. */
	if (ifc->tsresol != PCAPNG_TSRESOL_US)
		put_opt(idb, &off, OPT_IF_TSRESOL, &ifc->tsresol, 1);
	off += 4;	/* opt_endofopt */
	put_block(f, BT_IDB, idb, (uint32_t)off);
	return ferror(f) ? -1 : 0;
}

int pcapng_start(FILE *f, const struct pcapng_iface *ifaces, unsigned int n)
{
	uint8_t shb[16] = { 0 };
	uint32_t bom = BOM;
	unsigned int i;
	uint16_t v = 1;

	memcpy(shb, &bom, 4);
	memcpy(shb + 4, &v, 2);
	memset(shb + 8, 0xff, 8);
	put_block(f, BT_SHB, shb, sizeof(shb));
	for (i = 0; i < n; i++)
		pcapng_write_iface(f, &ifaces[i]);
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
