// SPDX-License-Identifier: GPL-2.0
/*
 * dev_check N: every one of N slices opens, reports sane CPU masks, and
 * rejects bad ioctl arguments with the documented errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "netslice.h"
#include "ktap.h"

static cpu_set_t online;
static int nr_online;

static int cpuset_subset(const cpu_set_t *a, const cpu_set_t *b)
{
	cpu_set_t and;

	CPU_AND(&and, a, b);
	return CPU_EQUAL(&and, a);
}

static int nth_online(int n)
{
	int cpu;

	n %= nr_online;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &online) && n-- == 0)
			return cpu;
	return -1;
}

static void check_masks(int fd, unsigned int slice)
{
	cpu_set_t kcpus, ucpus;
	int cpu = nth_online(slice);

	if (!ktap_check(ns_cpumask_get(fd, &kcpus, &ucpus) == 0,
			"slice %u: CPUMASK_GET succeeds", slice))
		return;
	ktap_check(CPU_COUNT(&kcpus) == 1 && CPU_ISSET(cpu, &kcpus),
		   "slice %u: kernel side is online CPU #%u mod %d (cpu %d)",
		   slice, slice, nr_online, cpu);
	ktap_check(CPU_COUNT(&ucpus) > 0 && cpuset_subset(&ucpus, &online),
		   "slice %u: user side is non-empty and online", slice);
}

/* Bad arguments, each with its documented error; run on one slice. */
static void check_bad_args(int fd)
{
	uint8_t big_k[512], big_u[512];
	struct netslice_cpumask req;
	cpu_set_t k, u;
	void *unmapped;
	size_t i;
	int zeroed, rc;

	memset(&req, 0, sizeof(req));
	req.mask_size = sizeof(cpu_set_t);
	req.kernel_cpus = (uintptr_t)&k;
	req.user_cpus = (uintptr_t)&u;
	req.reserved = 1;
	ktap_check(ioctl(fd, NETSLICE_CPUMASK_GET, &req) == -1 && errno == EINVAL,
		   "CPUMASK_GET with reserved != 0 gives EINVAL");

	req.reserved = 0;
	req.mask_size = 4;
	rc = ioctl(fd, NETSLICE_CPUMASK_GET, &req);
	ktap_check(rc == -1 && errno == EINVAL && req.mask_size >= 8 && req.mask_size % 8 == 0,
		   "mask_size 4 gives EINVAL and reports the size needed (%u)", req.mask_size);

	req.mask_size = 12;
	ktap_check(ioctl(fd, NETSLICE_CPUMASK_GET, &req) == -1 && errno == EINVAL,
		   "mask_size not a multiple of 8 gives EINVAL");

	req.mask_size = sizeof(cpu_set_t);
	req.kernel_cpus = 0;
	ktap_check(ioctl(fd, NETSLICE_CPUMASK_GET, &req) == -1 && errno == EFAULT,
		   "NULL kernel_cpus gives EFAULT");

	unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	req.kernel_cpus = (uintptr_t)&k;
	req.user_cpus = (uintptr_t)unmapped;
	ktap_check(ioctl(fd, NETSLICE_CPUMASK_GET, &req) == -1 && errno == EFAULT,
		   "inaccessible user_cpus gives EFAULT");

	ktap_check(ioctl(fd, NETSLICE_CPUMASK_GET, NULL) == -1 && errno == EFAULT,
		   "NULL argument gives EFAULT");
	ktap_check(ioctl(fd, NETSLICE_CPUMASK_GET, unmapped) == -1 && errno == EFAULT,
		   "inaccessible argument gives EFAULT");
	munmap(unmapped, 4096);

	ktap_check(ioctl(fd, _IOWR(NETSLICE_IOC_MAGIC, 0x7f, struct netslice_cpumask), &req) == -1 &&
		   errno == ENOTTY, "unknown netslice command gives ENOTTY");
	ktap_check(ioctl(fd, _IO('T', 0x01), 0) == -1 && errno == ENOTTY,
		   "foreign command gives ENOTTY");
	ktap_check(ioctl(fd, NETSLICE_CPUMASK_GET + 1, &req) == -1 && errno == ENOTTY,
		   "CPUMASK_GET with a wrong size gives ENOTTY");

	memset(big_k, 0xff, sizeof(big_k));
	memset(big_u, 0xff, sizeof(big_u));
	req.mask_size = sizeof(big_k);
	req.kernel_cpus = (uintptr_t)big_k;
	req.user_cpus = (uintptr_t)big_u;
	zeroed = ioctl(fd, NETSLICE_CPUMASK_GET, &req) == 0;
	for (i = req.mask_size; zeroed && i < sizeof(big_k); i++)
		zeroed = !big_k[i] && !big_u[i];
	ktap_check(zeroed && req.mask_size <= sizeof(big_k),
		   "a larger buffer is zero-filled past the needed %u bytes", req.mask_size);
}

int main(int argc, char **argv)
{
	unsigned int slices, s;
	int fd;

	if (argc != 2)
		return 2;
	slices = strtoul(argv[1], NULL, 0);
	sched_getaffinity(1, sizeof(online), &online);
	nr_online = CPU_COUNT(&online);

	ktap_header("dev_check", slices * 4 + 14);
	ktap_check(ns_slice_count() == (int)slices, "module reports %u slices", slices);

	for (s = 0; s < slices; s++) {
		fd = ns_open(s, 0);
		if (!ktap_check(fd >= 0, "slice %u opens", s))
			continue;
		check_masks(fd, s);
		if (s == 0)
			check_bad_args(fd);
		close(fd);
	}

	errno = 0;
	ktap_check(ns_open(slices, 0) == -ENOENT,
		   "slice %u (one past the last) does not exist", slices);
	ktap_check(open("/dev/netslice-0", O_RDONLY) >= 0, "opens read-only too");
	return ktap_finish();
}
