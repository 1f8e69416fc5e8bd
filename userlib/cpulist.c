// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* CPU and slice lists ("0-3,8"), the notation of sysfs and taskset -c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "netslice.h"

int ns_cpulist_format(const cpu_set_t *set, char *buf, size_t size)
{
	size_t len = 0;
	int cpu, last;

	if (!size)
		return ns_fail(ENOSPC);
	buf[0] = '\0';
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		int n;

		if (!CPU_ISSET(cpu, set))
			continue;
		for (last = cpu; last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set); last++)
			;
		if (last == cpu)
			n = snprintf(buf + len, size - len, "%s%d", len ? "," : "", cpu);
		else
			n = snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", cpu, last);
		if (n < 0 || (size_t)n >= size - len) {
			buf[len] = '\0';
			return ns_fail(ENOSPC);
		}
		len += n;
		cpu = last;
	}
	return (int)len;
}

static int ns_parse_cpu(const char *s, char **end)
{
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, end, 10);
	if (errno || v >= CPU_SETSIZE)
		return -1;
	return (int)v;
}

int ns_cpulist_parse(const char *list, cpu_set_t *set)
{
	const char *p = list;
	char *end;
	int first, last;

	CPU_ZERO(set);
	if (!*p)
		goto err_invalid;
	for (;;) {
		first = ns_parse_cpu(p, &end);
		if (first < 0)
			goto err_invalid;
		last = first;
		if (*end == '-') {
			last = ns_parse_cpu(end + 1, &end);
			if (last < first)
				goto err_invalid;
		}
		for (; first <= last; first++)
			CPU_SET(first, set);
		if (!*end)
			return 0;
		if (*end != ',')
			goto err_invalid;
		p = end + 1;
	}

err_invalid:
	CPU_ZERO(set);
	return ns_fail(EINVAL);
}

int ns_slices_parse(const char *list, unsigned int *slices, unsigned int max)
{
	int count = ns_slice_count(), cpu;
	unsigned int n = 0;
	cpu_set_t set;

	if (count < 0)
		return count;
	if (!strcmp(list, "all")) {
		CPU_ZERO(&set);
		for (cpu = 0; cpu < count; cpu++)
			CPU_SET(cpu, &set);
	} else if (ns_cpulist_parse(list, &set)) {
		return ns_fail(EINVAL);
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (cpu >= count)
			return ns_fail(ENODEV);
		if (n == max)
			return ns_fail(EINVAL);
		slices[n++] = (unsigned int)cpu;
	}
	return (int)n;
}
