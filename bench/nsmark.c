// SPDX-License-Identifier: GPL-2.0
/*
 * nsmark: mark the start or end of a measurement for the nsinsn QEMU
 * plugin (bench/plugin/nsinsn.c), reading a packet counter right beside
 * the mark so that instructions and packets cover the same span.
 *
 *   nsmark start|stop SEQ [COUNTER_FILE]
 *
 * Executes "nopl 0x4e53XXXX(%rax)" (XXXX: SEQ, bit 15 set for stop) from
 * a page written at run time, so one binary carries every mark; prints
 * the counter's value (a sysfs statistics file), read just before a start
 * mark and just after a stop mark. Outside the plugin the marker is a NOP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

int main(int argc, char **argv)
{
	static const unsigned char tmpl[] = { 0x0f, 0x1f, 0x80, 0, 0, 0x53, 0x4e, 0xc3 };
	unsigned long long count = 0;
	unsigned long seq;
	unsigned char *code;
	char *end;
	int stop;

	if (argc < 3 || argc > 4 || (strcmp(argv[1], "start") && strcmp(argv[1], "stop"))) {
		fprintf(stderr, "usage: nsmark start|stop SEQ [COUNTER_FILE]\n");
		return 2;
	}
	stop = !strcmp(argv[1], "stop");
	seq = strtoul(argv[2], &end, 10);
	if (*end || seq > 0x7fff) {
		fprintf(stderr, "nsmark: SEQ must be 0..32767\n");
		return 2;
	}
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED) {
		perror("nsmark: mmap");
		return 1;
	}
	memcpy(code, tmpl, sizeof(tmpl));
	seq |= stop ? 0x8000 : 0;
	code[3] = seq & 0xff;
	code[4] = seq >> 8;
	if (argc == 4 && !stop)
		count = read_counter(argv[3]);
	((void (*)(void))code)();
	if (argc == 4 && stop)
		count = read_counter(argv[3]);
	if (argc == 4)
		printf("%llu\n", count);
	return 0;
}
