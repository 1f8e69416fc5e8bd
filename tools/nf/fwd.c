// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/*
 * nf-fwd: a bump-in-the-wire forwarder. Every packet leaves by the default
 * egress (the ingress interface's pair), untouched; with header slicing
 * (the default, "auto") only the headers cross into user space and back.
 */
#include "nf.h"

static void fwd_process(struct ns_worker *w, struct netslice_iov *iov, unsigned int n, void *arg)
{
	unsigned int i;

	(void)w;
	(void)arg;
	for (i = 0; i < n; i++)
		ns_iov_unchanged(&iov[i]);
}

int main(int argc, char **argv)
{
	static const struct nf fwd = {
		.name = "nf-fwd",
		.summary = "Forward every packet out of the ingress interface's pair, unchanged.",
		.cut = "auto",
		.gso = true,
		.process = fwd_process,
	};

	return nf_main(argc, argv, &fwd);
}
