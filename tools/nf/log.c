// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* The NFs' messages on stderr. */
#include <stdarg.h>

#include "log.h"
#include "msg.h"

static const char *nf_name = "nf";

void nf_log_name(const char *name)
{
	nf_name = name;
}

void nf_err(const char *fmt, ...)
{
	va_list ap;

	/* Option values, file names, file contents: shown, never obeyed by a terminal. */
	va_start(ap, fmt);
	msg_verr(nf_name, fmt, ap);
	va_end(ap);
}
