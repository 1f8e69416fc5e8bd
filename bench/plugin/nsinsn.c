// SPDX-License-Identifier: GPL-2.0
/*
 * nsinsn: a QEMU TCG plugin that counts, per vCPU, the guest instructions
 * executed and the bytes loaded and stored, kernel and user apart, and
 * samples the guest PC every PERIOD instructions: make bench's main
 * measure (docs/benchmarks.md). Counts are deterministic in a way ticks
 * are not: a halted vCPU executes nothing, so idle time, the host's
 * scheduling and other vCPUs' work fall out.
 *
 * A string instruction with a rep prefix (rep movs, rep stos: the guest
 * kernel's memcpy, memset and copies to and from user space on -cpu max)
 * counts once as an instruction however many bytes it moves: QEMU runs
 * its iterations inside one block. So the plugin counts what each one
 * stores apart: the bytes (rep movs, copies, and rep stos, fills such as
 * clear_page, apart) and the iterations (one store each), from an inline
 * add on the instruction's stores, whose size the opcode fixes.
 * bench/insns.py weighs the bytes into the instruction count.
 *
 * With cache=on each vCPU also has a cache model: an L1d of 32 KiB (8-way)
 * and an L2 of 1 MiB (16-way), 64-byte lines of physical addresses, LRU;
 * a store removes the line from the other vCPUs' caches. It counts, kernel
 * and user apart, the lines each level had to bring in (a miss) and the
 * accesses to I/O memory (not cached). Tags are atomics: a vCPU's thread
 * owns its caches, another vCPU's store only clears a tag, a race costing
 * at most a line's count, never a crash. A model of what a frame brings in,
 * not of any one CPU (no prefetch, no L3).
 *
 * The guest marks a measurement's start and end with a marker instruction
 * (bench/nsmark.c): "nopl 0x4e53XXXX(%rax)", bytes 0f 1f 80 XX XX 53 4e,
 * a NOP the plugin recognises when it translates it. XXXX is the mark:
 * bit 15 set ends a measurement, the low 15 bits number it. At each mark
 * the plugin writes every vCPU's counters; at an end mark, the PC samples
 * taken since the matching start. Output, one line each, to out=FILE:
 *
 *   mark SEQ start|stop VCPU insn_kernel insn_user load_kernel
 *        store_kernel load_user store_user movs_bytes_kernel
 *        movs_bytes_user stos_bytes_kernel stos_bytes_user
 *        rep_iters_kernel rep_iters_user l1_miss_kernel
 *        l1_miss_user l2_miss_kernel l2_miss_user io_kernel io_user
 *                                               (one line per vCPU)
 *   sample SEQ VCPU PC COUNT                     (PC: a block's start)
 *
 * Arguments: out=FILE (required), period=N (default 10000), mem=off (no
 * byte counts: the guest runs about twice as fast), cache=on (the cache
 * model; needs mem).
 *
 * Built against qemu-plugin.h of the QEMU that runs it (scripts/deps.sh
 * fetches it from Debian's source package into the cache).
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define NSI_MARK_STOP 0x8000u
#define NSI_KERNEL_BASE 0xffff800000000000ull

struct nsi_vcpu {
	uint64_t insn[2];	/* [0] user, [1] kernel */
	uint64_t load[2];
	uint64_t store[2];
	uint64_t movs_bytes[2];	/* stored by rep movs (copies) */
	uint64_t stos_bytes[2];	/* stored by rep stos (fills) */
	uint64_t rep_iters[2];	/* their iterations */
	uint64_t l1_miss[2];	/* lines the L1d brought in (cache=on) */
	uint64_t l2_miss[2];	/* lines the L2 brought in */
	uint64_t io[2];		/* accesses to I/O memory */
	uint64_t until_sample;	/* instructions since the last sample */
};

static struct qemu_plugin_scoreboard *nsi_counts;
static qemu_plugin_u64 nsi_insn[2], nsi_movs_bytes[2], nsi_stos_bytes[2], nsi_rep_iters[2];
static qemu_plugin_u64 nsi_until_sample;
static uint64_t nsi_period = 10000;
static bool nsi_mem = true;
static bool nsi_cache_on;
/*
 * The model starts at the first mark: QEMU 10.0.2's hwaddr lookup trips
 * its own assertion (iotlb_to_section: section_index < sections_nb) while
 * the guest's firmware and kernel still change the memory map at boot, 3
 * boots of 3. The caches start empty at the first measurement (make
 * bench's calibration copies want them cold; its warm-up round fills them).
 */
static bool nsi_cache_live;

#define NSI_LINE_SHIFT	6
#define NSI_MAX_VCPUS	64

/* One level of one vCPU's cache: tag = line number + 1 (0: empty). */
struct nsi_cache {
	unsigned int sets, ways;
	uint64_t clock;		/* the owner's, for LRU */
	uint64_t *tag;		/* sets * ways, atomics */
	uint64_t *used;		/* the owner's LRU stamps */
};

static struct nsi_cache *nsi_l1[NSI_MAX_VCPUS], *nsi_l2[NSI_MAX_VCPUS];
static FILE *nsi_out;

/* protects nsi_armed, nsi_samples and nsi_out's lines */
static GMutex nsi_lock;
static bool nsi_armed;
static GHashTable *nsi_samples;	/* (vcpu << 56 ^ pc) -> count; see nsi_key */

static uint64_t nsi_key(unsigned int vcpu, uint64_t pc)
{
	/* Guest PCs use 48 bits (57 with 5-level paging, which bench turns off). */
	return (uint64_t)vcpu << 56 | (pc & ((1ull << 56) - 1));
}

static void nsi_sample(unsigned int vcpu, void *pc)
{
	gpointer key;
	uint64_t n;

	/* Single-threaded TCG (-icount) runs a vCPU before it is counted. */
	if (vcpu >= (unsigned int)qemu_plugin_num_vcpus())
		return;
	qemu_plugin_u64_set(nsi_until_sample, vcpu, 0);
	g_mutex_lock(&nsi_lock);
	if (nsi_armed) {
		key = (gpointer)(uintptr_t)nsi_key(vcpu, (uintptr_t)pc);
		n = (uintptr_t)g_hash_table_lookup(nsi_samples, key);
		g_hash_table_insert(nsi_samples, key, (gpointer)(uintptr_t)(n + 1));
	}
	g_mutex_unlock(&nsi_lock);
}

static struct nsi_cache *nsi_cache_new(unsigned int bytes, unsigned int ways)
{
	struct nsi_cache *c = g_new0(struct nsi_cache, 1);

	c->ways = ways;
	c->sets = (bytes >> NSI_LINE_SHIFT) / ways;
	c->tag = g_new0(uint64_t, c->sets * ways);
	c->used = g_new0(uint64_t, c->sets * ways);
	return c;
}

/* nsi_cache_touch: whether line was in c; if not, it is now (LRU victim). */
static bool nsi_cache_touch(struct nsi_cache *c, uint64_t line)
{
	unsigned int w, base = (line % c->sets) * c->ways, victim = base;
	uint64_t oldest = UINT64_MAX;

	for (w = base; w < base + c->ways; w++) {
		uint64_t t = __atomic_load_n(&c->tag[w], __ATOMIC_RELAXED);
		/* An empty way (stamp 0) goes first, then the least recent. */
		uint64_t stamp = t ? c->used[w] : 0;

		if (t == line + 1) {
			c->used[w] = ++c->clock;
			return true;
		}
		if (stamp < oldest) {
			oldest = stamp;
			victim = w;
		}
	}
	__atomic_store_n(&c->tag[victim], line + 1, __ATOMIC_RELAXED);
	c->used[victim] = ++c->clock;
	return false;
}

/* nsi_cache_drop: another vCPU stored to line: it leaves c. */
static void nsi_cache_drop(struct nsi_cache *c, uint64_t line)
{
	unsigned int w, base = (line % c->sets) * c->ways;

	for (w = base; w < base + c->ways; w++) {
		uint64_t t = line + 1;

		/*
		 * A locked exchange only where the line is: most stores touch
		 * no other vCPU's copy, and a compare-exchange per way took the
		 * host's cache line from the owner's thread every time.
		 */
		if (__atomic_load_n(&c->tag[w], __ATOMIC_RELAXED) == t)
			__atomic_compare_exchange_n(&c->tag[w], &t, 0, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	}
}

static void nsi_cache_access(unsigned int vcpu, struct nsi_vcpu *c, qemu_plugin_meminfo_t info,
			     uint64_t vaddr, uint64_t bytes, int kernel)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	bool store = qemu_plugin_mem_is_store(info);
	uint64_t phys, line;
	unsigned int v, n;

	if (!hw || qemu_plugin_hwaddr_is_io(hw)) {
		c->io[kernel]++;
		return;
	}
	phys = qemu_plugin_hwaddr_phys_addr(hw);
	n = qemu_plugin_num_vcpus();
	/* An access across a line boundary touches both lines. */
	for (line = phys >> NSI_LINE_SHIFT; line <= (phys + bytes - 1) >> NSI_LINE_SHIFT; line++) {
		if (!nsi_cache_touch(nsi_l1[vcpu], line)) {
			c->l1_miss[kernel]++;
			if (!nsi_cache_touch(nsi_l2[vcpu], line))
				c->l2_miss[kernel]++;
		}
		if (!store)
			continue;
		for (v = 0; v < n && v < NSI_MAX_VCPUS; v++) {
			if (v == vcpu || !nsi_l1[v])
				continue;
			nsi_cache_drop(nsi_l1[v], line);
			nsi_cache_drop(nsi_l2[v], line);
		}
	}
}

static void nsi_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		       void *kernel)
{
	uint64_t bytes = 1ull << qemu_plugin_mem_size_shift(info);
	struct nsi_vcpu *c;

	if (vcpu >= (unsigned int)qemu_plugin_num_vcpus())
		return;
	c = qemu_plugin_scoreboard_find(nsi_counts, vcpu);
	if (qemu_plugin_mem_is_store(info))
		c->store[kernel != NULL] += bytes;
	else
		c->load[kernel != NULL] += bytes;
	if (nsi_cache_on && __atomic_load_n(&nsi_cache_live, __ATOMIC_RELAXED) &&
	    vcpu < NSI_MAX_VCPUS && nsi_l1[vcpu])
		nsi_cache_access(vcpu, c, info, vaddr, bytes, kernel != NULL);
}

static void nsi_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	if (!nsi_cache_on || vcpu >= NSI_MAX_VCPUS || nsi_l1[vcpu])
		return;
	nsi_l2[vcpu] = nsi_cache_new(1 << 20, 16);
	/* Last: nsi_access models a vCPU once its L1 is there. */
	__atomic_store_n(&nsi_l1[vcpu], nsi_cache_new(32 << 10, 8), __ATOMIC_RELEASE);
}

static void nsi_print_samples(unsigned int seq)
{
	GHashTableIter it;
	gpointer key, val;

	g_hash_table_iter_init(&it, nsi_samples);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		uint64_t k = (uintptr_t)key;
		uint64_t pc = k & ((1ull << 56) - 1);

		/* Sign-extend the kernel's half back. */
		if (pc & (1ull << 47))
			pc |= 0xffull << 56;
		fprintf(nsi_out, "sample %u %u 0x%" PRIx64 " %" PRIu64 "\n", seq,
			(unsigned int)(k >> 56), pc, (uint64_t)(uintptr_t)val);
	}
	g_hash_table_remove_all(nsi_samples);
}

static void nsi_mark(unsigned int vcpu, void *data)
{
	unsigned int mark = (uintptr_t)data, seq = mark & ~NSI_MARK_STOP;
	bool stop = mark & NSI_MARK_STOP;
	int i, n = qemu_plugin_num_vcpus();

	__atomic_store_n(&nsi_cache_live, true, __ATOMIC_RELAXED);
	g_mutex_lock(&nsi_lock);
	/* Other vCPUs run on: their counts are read within a block or so. */
	for (i = 0; i < n; i++) {
		struct nsi_vcpu *c = qemu_plugin_scoreboard_find(nsi_counts, i);

		fprintf(nsi_out, "mark %u %s %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 "\n",
			seq, stop ? "stop" : "start", i,
			c->insn[1], c->insn[0], c->load[1], c->store[1], c->load[0], c->store[0],
			c->movs_bytes[1], c->movs_bytes[0], c->stos_bytes[1], c->stos_bytes[0],
			c->rep_iters[1], c->rep_iters[0],
			c->l1_miss[1], c->l1_miss[0], c->l2_miss[1], c->l2_miss[0],
			c->io[1], c->io[0]);
	}
	if (stop) {
		nsi_print_samples(seq);
		fflush(nsi_out);
	} else {
		g_hash_table_remove_all(nsi_samples);
	}
	nsi_armed = !stop;
	g_mutex_unlock(&nsi_lock);
}

/* nsi_marker: the mark an instruction carries, or -1. */
static int nsi_marker(struct qemu_plugin_insn *insn)
{
	uint8_t b[8];

	if (qemu_plugin_insn_size(insn) != 7 || qemu_plugin_insn_data(insn, b, 7) != 7)
		return -1;
	if (b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80 || b[5] != 0x53 || b[6] != 0x4e)
		return -1;
	return b[3] | b[4] << 8;
}

/*
 * nsi_rep_store_size: the bytes each iteration of a rep movs or rep stos
 * stores (1, 2, 4 or 8), or 0 for any other instruction; *stos says which
 * of the two. Prefixes: the
 * legacy ones in any order (66 operand size, F2/F3 rep, 67, segments,
 * F0), then at most one REX (40-4F, W is bit 3).
 */
static unsigned int nsi_rep_store_size(struct qemu_plugin_insn *insn, bool *stos)
{
	unsigned int i, n, size16 = 0, rep = 0, rex_w = 0;
	uint8_t b[16];

	n = qemu_plugin_insn_data(insn, b, sizeof(b));
	for (i = 0; i < n; i++) {
		switch (b[i]) {
		case 0x66:
			size16 = 1;
			continue;
		case 0xf2: case 0xf3:
			rep = 1;
			continue;
		case 0x67: case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
		case 0xf0:
			continue;
		}
		break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40) {
		rex_w = b[i] & 0x08;
		i++;
	}
	if (!rep || i + 1 != n)
		return 0;
	*stos = b[i] == 0xaa || b[i] == 0xab;
	switch (b[i]) {
	case 0xa4: case 0xaa:	/* movsb, stosb */
		return 1;
	case 0xa5: case 0xab:	/* movs, stos: word, dword or qword */
		return rex_w ? 8 : size16 ? 2 : 4;
	}
	return 0;
}

static void nsi_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	bool kernel = pc >= NSI_KERNEL_BASE;

	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							  nsi_insn[kernel], n);
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							  nsi_until_sample, n);
	qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, nsi_sample, QEMU_PLUGIN_CB_NO_REGS,
						  QEMU_PLUGIN_COND_GE, nsi_until_sample,
						  nsi_period, (void *)(uintptr_t)pc);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int mark = nsi_marker(insn);
		bool stos = false;
		unsigned int rep_size = nsi_rep_store_size(insn, &stos);

		if (nsi_mem)
			qemu_plugin_register_vcpu_mem_cb(insn, nsi_access, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 kernel ? (void *)1 : NULL);
		if (rep_size) {
			qemu_plugin_register_vcpu_mem_inline_per_vcpu(insn, QEMU_PLUGIN_MEM_W,
								      QEMU_PLUGIN_INLINE_ADD_U64,
								      stos ? nsi_stos_bytes[kernel] :
									     nsi_movs_bytes[kernel],
								      rep_size);
			qemu_plugin_register_vcpu_mem_inline_per_vcpu(insn, QEMU_PLUGIN_MEM_W,
								      QEMU_PLUGIN_INLINE_ADD_U64,
								      nsi_rep_iters[kernel], 1);
		}
		if (mark >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, nsi_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)mark);
	}
}

static void nsi_exit(qemu_plugin_id_t id, void *p)
{
	g_mutex_lock(&nsi_lock);
	fclose(nsi_out);
	nsi_out = NULL;
	g_mutex_unlock(&nsi_lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *out = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		char *val = strchr(argv[i], '=');

		if (!val)
			goto bad_arg;
		*val++ = '\0';
		if (!strcmp(argv[i], "out")) {
			out = val;
		} else if (!strcmp(argv[i], "period")) {
			nsi_period = strtoull(val, NULL, 10);
			if (!nsi_period)
				goto bad_arg;
		} else if (!strcmp(argv[i], "mem")) {
			if (!qemu_plugin_bool_parse(argv[i], val, &nsi_mem))
				goto bad_arg;
		} else if (!strcmp(argv[i], "cache")) {
			if (!qemu_plugin_bool_parse(argv[i], val, &nsi_cache_on))
				goto bad_arg;
		} else {
			goto bad_arg;
		}
	}
	if (!out || (nsi_cache_on && !nsi_mem)) {
		fprintf(stderr, "nsinsn: out=FILE is required; cache=on needs mem=on\n");
		return -1;
	}
	nsi_out = fopen(out, "w");
	if (!nsi_out) {
		perror(out);
		return -1;
	}
	nsi_samples = g_hash_table_new(NULL, NULL);
	nsi_counts = qemu_plugin_scoreboard_new(sizeof(struct nsi_vcpu));
	for (i = 0; i < 2; i++) {
		nsi_insn[i] = qemu_plugin_scoreboard_u64_in_struct(nsi_counts, struct nsi_vcpu,
								   insn[i]);
		nsi_movs_bytes[i] = qemu_plugin_scoreboard_u64_in_struct(nsi_counts,
									 struct nsi_vcpu,
									 movs_bytes[i]);
		nsi_stos_bytes[i] = qemu_plugin_scoreboard_u64_in_struct(nsi_counts,
									 struct nsi_vcpu,
									 stos_bytes[i]);
		nsi_rep_iters[i] = qemu_plugin_scoreboard_u64_in_struct(nsi_counts,
									struct nsi_vcpu,
									rep_iters[i]);
	}
	nsi_until_sample = qemu_plugin_scoreboard_u64_in_struct(nsi_counts, struct nsi_vcpu,
								until_sample);
	qemu_plugin_register_vcpu_init_cb(id, nsi_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, nsi_translate);
	qemu_plugin_register_atexit_cb(id, nsi_exit, NULL);
	return 0;

bad_arg:
	fprintf(stderr, "nsinsn: bad argument '%s' (out=FILE, period=N, mem=on|off, cache=on|off)\n",
		argv[i]);
	return -1;
}
