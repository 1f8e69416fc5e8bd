/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough pcapng (RFC draft-ietf-opsawg-pcapng) and classic pcap for
 * the NFs' offline mode.
 */
#ifndef NF_PCAPNG_H
#define NF_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

#define PCAPNG_MAX_IFACES	16
#define PCAPNG_MAX_FRAME	65535
/* if_tsresol's default: microseconds */
#define PCAPNG_TSRESOL_US	6

struct pcapng_iface {
	char name[32];
	uint8_t mac[6];
	int has_mac;
	uint8_t tsresol;	/* as if_tsresol: 10^-v s, or 2^-(v & 0x7f) s with bit 7 */
};

struct pcapng_packet {
	uint32_t iface;
	uint32_t len;		/* captured bytes */
	uint32_t wire_len;	/* the original length: more than len if the capture cut it */
	uint64_t ts_ns;		/* nanoseconds, whatever the file's resolution */
	uint8_t *data;
};

struct pcapng_file {
	struct pcapng_iface ifaces[PCAPNG_MAX_IFACES];
	unsigned int nr_ifaces;
	struct pcapng_packet *packets;
	size_t nr_packets;
	uint32_t max_len;	/* the longest captured frame */
};

/*
 * Read a whole file ("-": standard input): pcapng (Ethernet interfaces
 * and enhanced packet blocks; other blocks are skipped) or classic pcap
 * (one Ethernet interface, "if0"). Returns 0, or -1 with a message in err.
 */
int pcapng_load(const char *path, struct pcapng_file *pf, char *err, size_t errlen);
void pcapng_free(struct pcapng_file *pf);

/*
 * Write the section header and interfaces (each with its if_tsresol);
 * NULL with errno on failure. "-" is for the caller to open.
 */
FILE *pcapng_create(const char *path, const struct pcapng_iface *ifaces, unsigned int n);
int pcapng_start(FILE *f, const struct pcapng_iface *ifaces, unsigned int n);
/* One packet on interface ifc (index iface) at ts_ns; wire_len >= len. */
int pcapng_write(FILE *f, const struct pcapng_iface *ifc, uint32_t iface, uint64_t ts_ns,
		 const void *data, uint32_t len, uint32_t wire_len);

#endif /* NF_PCAPNG_H */
