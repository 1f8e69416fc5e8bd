// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* The NF's calls that depend on the mode, passed to the mode's interface. */
#include "io.h"

static const struct nf_io *nf_io;

void nf_io_use(const struct nf_io *io)
{
	nf_io = io;
}

int nf_ifindex(const char *name)
{
	return nf_io->ifindex(name);
}

int nf_ifmac(const char *name, uint8_t mac[6])
{
	return nf_io->ifmac(name, mac);
}

unsigned int nf_nr_run_workers(void)
{
	return nf_io->nr_workers();
}

uint64_t nf_now_ms(void)
{
	return nf_io->now_ms();
}

int nf_io_send(struct ns_worker *w, const void *frame, uint32_t len, int ifindex, int action)
{
	return nf_io->send(w, frame, len, ifindex, action);
}

unsigned int nf_io_watched(struct ns_worker **w, struct netslice_stats **st)
{
	return nf_io->watched(w, st);
}
