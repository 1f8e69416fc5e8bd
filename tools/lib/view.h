/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/* What the user asked to see: JSON or tables, and how much (-j, -p, -s). */
#ifndef TOOLS_VIEW_H
#define TOOLS_VIEW_H

#include <stdbool.h>

#include "json.h"

struct view {
	bool json;
	bool pretty;		/* -p: JSON, indented */
	int stats;		/* -s given: more counters */
	struct json j;		/* the JSON writer, on stdout */
};

extern struct view view;

#endif /* TOOLS_VIEW_H */
