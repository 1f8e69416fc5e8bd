/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * Just enough pcapng (RFC draft-ietf-opsawg-pcapng) and classic pcap for
 * the NFs' offline mode.
 */
#ifndef NF_PCAPNG_H
#define NF_PCAPNG_H

#include <stdint.h>
#include <stdio.h>

/* The format's numbers, for the reader and the writer. */
#define BT_SHB		0x0a0d0d0a
#define BT_IDB		0x00000001
#define BT_EPB		0x00000006
#define BOM		0x1a2b3c4d
#define LINKTYPE_ETHERNET 1
#define OPT_IF_NAME	2
#define OPT_IF_MAC	6
#define OPT_IF_TSRESOL	9

#define PCAPNG_MAX_IFACES	16
/*
 * The longest frame read (longer ones are skipped and counted): libpcap's
 * and Wireshark's largest snaplen, so whatever tcpdump captured fits
 * (a loopback TCP frame is 65,549 bytes; a BIG TCP super-packet more).
 */
#define PCAPNG_MAX_FRAME	(256 * 1024)
/* if_tsresol's default: microseconds */
#define PCAPNG_TSRESOL_US	6

static inline uint64_t pcapng_pow10(unsigned int e)
{
	uint64_t v = 1;

	while (e--)
		v *= 10;
	return v;
}

struct pcapng_iface {
	char name[32];
	uint8_t mac[6];
	int has_mac;
	uint8_t tsresol;	/* as if_tsresol: 10^-v s, or 2^-(v & 0x7f) s with bit 7 */
};

struct pcapng_packet {
	uint32_t iface;		/* the file's interface (sections mapped to it) */
	uint32_t queue;		/* epb_queue: the queue it was received on, or 0 */
	uint32_t len;		/* captured bytes */
	uint32_t wire_len;	/* the original length: more than len if the capture cut it */
	uint64_t ts_ns;		/* nanoseconds, whatever the file's resolution */
	uint8_t *data;		/* valid until the next pcapng_next() */
};

/* A section's interface: which of the file's it is, and how it was captured. */
struct pcapng_section_iface {
	uint32_t iface;
	uint32_t link;		/* LINKTYPE_ */
	uint8_t tsresol;
};

#define PCAPNG_READ_BUF	(64 * 1024)

/*
 * Something else to wait for while the reader waits for input: when fd
 * is readable, fn(arg, between) runs; it must consume what made fd
 * readable. between says no byte of the next block has been read yet.
 * A nonzero return ends the wait: pcapng_next() returns PCAPNG_WOKEN, and
 * if a block was cut off in the middle, the input ends there.
 */
struct pcapng_wake {
	int fd;				/* -1: nothing */
	int (*fn)(void *arg, int between);
	void *arg;
};

/* pcapng_next(): the wake callback ended a wait; no packet (yet). */
#define PCAPNG_WOKEN	2

/* A file being read. */
struct pcapng_file {
	struct pcapng_iface ifaces[PCAPNG_MAX_IFACES];
	unsigned int nr_ifaces;		/* grows as later sections add interfaces */
	uint64_t oversize;		/* frames over PCAPNG_MAX_FRAME, skipped */
	uint32_t oversize_len;		/* the first one's length */
	/* private to the reader */
	const char *path;
	int fd;
	uint8_t *buf;			/* PCAPNG_READ_BUF bytes of input */
	size_t pos, end;
	uint8_t *block;			/* the current block */
	size_t block_size;
	int classic, swap, have_type;
	unsigned int sections;
	struct pcapng_section_iface sect[PCAPNG_MAX_IFACES];
	unsigned int nr_sect;
	struct pcapng_packet peek;	/* the first packet, read to learn the interfaces */
	int peeked;
	struct pcapng_wake wake;
	int between;			/* reading a block's first bytes */
	int woken;			/* the wake callback ended this read */
	int cut_off;			/* ... in the middle of a block: the input ends */
};

/*
 * Open a file ("-": standard input): pcapng (Ethernet or Linux cooked
 * interfaces, enhanced packet blocks, any number of sections; other
 * blocks are skipped) or classic pcap (one interface, "if0"). Reads up
 * to the first packet, so the interfaces declared before it are known
 * (unless woken first: wake may be NULL). Returns 0, or -1 with a message
 * naming the file in err.
 */
int pcapng_open(const char *path, struct pcapng_file *pf, const struct pcapng_wake *wake,
		char *err, size_t errlen);
/*
 * The next packet (1), the end of the file (0), PCAPNG_WOKEN, or -1 with
 * a message in err. Frames over PCAPNG_MAX_FRAME are skipped, counted
 * in pf->oversize; a block or record length that no frame can have is an
 * error.
 */
int pcapng_next(struct pcapng_file *pf, struct pcapng_packet *pk, char *err, size_t errlen);
/* Whether pcapng_next() can go on without waiting for input. */
int pcapng_readable(struct pcapng_file *pf);
void pcapng_close(struct pcapng_file *pf);

#endif /* NF_PCAPNG_H */
