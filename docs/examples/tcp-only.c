// SPDX-License-Identifier: BSD-2-Clause
/*
 * tcp-only: the smallest useful NF on libnetslice. A pinned worker per
 * slice passes TCP and drops everything else, headers only.
 *
 *   cc -o tcp-only tcp-only.c $(pkg-config --cflags --libs netslice) -pthread
 */
#include <stdio.h>
#include <string.h>

#include <netslice.h>

static void process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	struct ns_pkt p;
	unsigned int i;

	(void)w;
	(void)arg;
	for (i = 0; i < n; i++)
		if (ns_pkt_parse(&p, ns_iov_data(&iov[i]), iov[i].rlen, iov[i].wire_len) ||
		    !ns_pkt_tcp(&p))
			ns_iov_drop(&iov[i]);	/* the rest leaves by its default egress */
}

int main(void)
{
	struct netslice_cut headers;
	struct ns_run_config cfg = { .size = sizeof(cfg), .process = process,
				     .cut = &headers };
	int err;

	ns_cut_parse("auto", &headers);
	err = ns_run(&cfg);		/* until SIGINT or SIGTERM */
	if (err)
		fprintf(stderr, "tcp-only: %s\n", strerror(-err));
	return err ? 1 : 0;
}
