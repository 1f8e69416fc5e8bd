/* SPDX-License-Identifier: GPL-2.0 */
/* Just enough pcapng (draft-ietf-opsawg-pcapng) for the NFs' offline mode. */
#ifndef NF_PCAPNG_H
#define NF_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

#define PCAPNG_MAX_IFACES	16
#define PCAPNG_MAX_FRAME	65535

struct pcapng_iface {
	char name[32];
	uint8_t mac[6];
	int has_mac;
};

struct pcapng_packet {
	uint32_t iface;
	uint32_t len;
	uint64_t ts;		/* as in the file (microseconds by default) */
	uint8_t *data;
};

struct pcapng_file {
	struct pcapng_iface ifaces[PCAPNG_MAX_IFACES];
	unsigned int nr_ifaces;
	struct pcapng_packet *packets;
	size_t nr_packets;
};

/*
 * Read a whole file: Ethernet interfaces and enhanced packet blocks; other
 * blocks are skipped. Returns 0, or -1 with a message in err.
 */
int pcapng_load(const char *path, struct pcapng_file *pf, char *err, size_t errlen);
void pcapng_free(struct pcapng_file *pf);

/* Write the section header and interfaces; NULL with errno on failure. */
FILE *pcapng_create(const char *path, const struct pcapng_iface *ifaces, unsigned int n);
int pcapng_write(FILE *f, uint32_t iface, uint64_t ts, const void *data, uint32_t len);

#endif /* NF_PCAPNG_H */
