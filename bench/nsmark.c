// SPDX-License-Identifier: GPL-2.0
/*
 * nsmark: mark the start or end of a measurement for the nsinsn QEMU
 * plugin (bench/plugin/nsinsn.c), reading a packet counter right beside
 * the mark so that instructions and packets cover the same span.
 *
 *   nsmark start|stop SEQ [COUNTER_FILE]
 *   nsmark copy user|file SEQ BYTES
 *   nsmark idle SEQ USEC [COUNTER_FILE]
 *
 * Executes the marker (nsmark.h) and prints the counter's value (a sysfs
 * statistics file), read just before a start mark and just after a stop
 * mark.
 *
 * copy is make bench's calibration of the plugin's string-instruction
 * count: between a start and a stop mark SEQ it copies BYTES once, with
 * "user" a rep movsb in this process (BYTES stored in user space), with
 * "file" by read()s of 64 KiB from a memfd that holds them (the kernel
 * copies each byte once, from the page cache to the buffer; no page is
 * allocated, so none is zeroed, inside the marks). Both sides are cold
 * when it starts (8 MiB written after them): a copy of BYTES brings in
 * BYTES / 64 lines of each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nsmark.h"

#define NSMARK_EVICT (8 << 20)
#define NSMARK_CHUNK (64 << 10)

static unsigned long long read_counter(const char *path)
{
	unsigned long long v;
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%llu", &v) != 1) {
		fprintf(stderr, "nsmark: %s: %s\n", path, f ? "not a number" : strerror(errno));
		exit(1);
	}
	fclose(f);
	return v;
}

static unsigned long parse_seq(const char *arg)
{
	unsigned long seq;
	char *end;

	seq = strtoul(arg, &end, 10);
	if (*end || seq > NSMARK_MAX_SEQ) {
		fprintf(stderr, "nsmark: SEQ must be 0..32767\n");
		exit(2);
	}
	return seq;
}

/* copy_user: BYTES from src to dst with one rep movsb, between the marks. */
static void copy_user(unsigned long seq, char *dst, const char *src, size_t bytes)
{
	nsmark_exec(seq, 0);
	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(bytes) : : "memory");
	nsmark_exec(seq, 1);
}

/* copy_file: BYTES read from fd (a memfd holding them), between the marks. */
static int copy_file(unsigned long seq, char *dst, int fd, size_t bytes)
{
	size_t done;

	nsmark_exec(seq, 0);
	for (done = 0; done < bytes; done += NSMARK_CHUNK) {
		if (pread(fd, dst + done, NSMARK_CHUNK, done) != NSMARK_CHUNK) {
			perror("nsmark: read");
			return 1;
		}
	}
	nsmark_exec(seq, 1);
	return 0;
}

static int copy(int argc, char **argv)
{
	unsigned long seq;
	size_t bytes;
	char *src, *dst, *end, *scratch;
	int fd = -1;

	if (argc != 5 || (strcmp(argv[2], "user") && strcmp(argv[2], "file"))) {
		fprintf(stderr, "usage: nsmark copy user|file SEQ BYTES\n");
		return 2;
	}
	seq = parse_seq(argv[3]);
	bytes = strtoull(argv[4], &end, 10);
	if (*end || !bytes || bytes % NSMARK_CHUNK || bytes > 1ul << 30) {
		fprintf(stderr, "nsmark: BYTES must be a multiple of %d, at most 1 GiB\n",
			NSMARK_CHUNK);
		return 2;
	}
	src = malloc(bytes);
	dst = malloc(bytes);
	if (!src || !dst) {
		perror("nsmark: malloc");
		return 1;
	}
	/*
	 * Both written first: no page fault inside the marks. Not with zeros:
	 * GCC makes malloc() and a memset() to 0 one calloc(), which leaves
	 * fresh pages untouched, and the copy then faulted every page of dst
	 * in, the kernel zeroing each (6.4 MB of rep stos, 38% more L2 lines).
	 */
	memset(src, 0x5a, bytes);
	memset(dst, 0xa5, bytes);
	if (!strcmp(argv[2], "file")) {
		fd = memfd_create("nsmark", 0);
		if (fd < 0 || write(fd, src, bytes) != (ssize_t)bytes) {
			perror("nsmark: memfd");
			return 1;
		}
	}
	/* Then out of the plugin's caches (1 MiB a vCPU): a cold copy. */
	scratch = malloc(NSMARK_EVICT);
	if (!scratch) {
		perror("nsmark: malloc");
		return 1;
	}
	memset(scratch, 1, NSMARK_EVICT);
	free(scratch);
	if (fd < 0)
		copy_user(seq, dst, src, bytes);
	else if (copy_file(seq, dst, fd, bytes))
		return 1;
	if (memcmp(dst, src, bytes)) {
		fprintf(stderr, "nsmark: the copy differs from its source\n");
		return 1;
	}
	return 0;
}

/*
 * idle: marks USEC apart, this process asleep between them: what each
 * vCPU runs with nothing to do (its tick, the guest's timekeeping), no
 * process started inside the marks. With COUNTER_FILE, its values just
 * before the start and just after the stop mark are printed.
 */
static int idle(int argc, char **argv)
{
	unsigned long long usec, c0 = 0, c1 = 0;
	struct timespec nap;
	unsigned long seq;
	char *end;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: nsmark idle SEQ USEC [COUNTER_FILE]\n");
		return 2;
	}
	seq = parse_seq(argv[2]);
	usec = strtoull(argv[3], &end, 10);
	if (*end || !usec) {
		fprintf(stderr, "nsmark: USEC must be a positive number\n");
		return 2;
	}
	nap.tv_sec = usec / 1000000;
	nap.tv_nsec = usec % 1000000 * 1000;
	if (argc == 5)
		c0 = read_counter(argv[4]);
	nsmark_exec(seq, 0);
	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
	nsmark_exec(seq, 1);
	if (argc == 5) {
		c1 = read_counter(argv[4]);
		printf("%llu %llu\n", c0, c1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long count = 0;
	unsigned long seq;
	int stop;

	if (argc > 1 && !strcmp(argv[1], "copy"))
		return copy(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "idle"))
		return idle(argc, argv);
	if (argc < 3 || argc > 4 || (strcmp(argv[1], "start") && strcmp(argv[1], "stop"))) {
		fprintf(stderr, "usage: nsmark start|stop SEQ [COUNTER_FILE]\n"
			"       nsmark copy user|file SEQ BYTES\n"
			"       nsmark idle SEQ USEC [COUNTER_FILE]\n");
		return 2;
	}
	stop = !strcmp(argv[1], "stop");
	seq = parse_seq(argv[2]);
	if (argc == 4 && !stop)
		count = read_counter(argv[3]);
	nsmark_exec(seq, stop);
	if (argc == 4 && stop)
		count = read_counter(argv[3]);
	if (argc == 4)
		printf("%llu\n", count);
	return 0;
}
