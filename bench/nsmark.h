/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The marker the nsinsn QEMU plugin (bench/plugin/nsinsn.c) watches for:
 * "nopl 0x4e53XXXX(%rax)", XXXX the mark's SEQ with bit 15 set for a
 * stop, executed from a page written at run time so one binary carries
 * every mark. Outside the plugin it is a NOP. nsmark and xdpgen -M make
 * their marks with it.
 */
#ifndef NSMARK_H
#define NSMARK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NSMARK_MAX_SEQ 0x7fff

/* nsmark_exec: execute mark SEQ, a start or (stop) a stop. */
static inline void nsmark_exec(unsigned long seq, int stop)
{
	static const unsigned char tmpl[] = { 0x0f, 0x1f, 0x80, 0, 0, 0x53, 0x4e, 0xc3 };
	static unsigned char *code;

	if (!code) {
		code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (code == MAP_FAILED) {
			perror("nsmark: mmap");
			exit(1);
		}
	}
	memcpy(code, tmpl, sizeof(tmpl));
	seq |= stop ? 0x8000 : 0;
	code[3] = seq & 0xff;
	code[4] = seq >> 8;
	((void (*)(void))code)();
}

#endif /* NSMARK_H */
