/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/* Writing pcapng: a section of Ethernet interfaces, enhanced packet blocks. */
#ifndef NF_PCAPNG_WRITE_H
#define NF_PCAPNG_WRITE_H

#include <stdio.h>

#include "pcapng.h"

/*
 * Write the section header and interfaces (each with its if_tsresol);
 * NULL with errno on failure. "-" is for the caller to open.
 */
FILE *pcapng_create(const char *path, const struct pcapng_iface *ifaces, unsigned int n);
int pcapng_start(FILE *f, const struct pcapng_iface *ifaces, unsigned int n);
/* One more interface block (an interface the input declared later). */
int pcapng_write_iface(FILE *f, const struct pcapng_iface *ifc);
/* One packet on interface ifc (index iface) at ts_ns; wire_len >= len. */
int pcapng_write(FILE *f, const struct pcapng_iface *ifc, uint32_t iface, uint64_t ts_ns,
		 const void *data, uint32_t len, uint32_t wire_len);

#endif /* NF_PCAPNG_WRITE_H */
