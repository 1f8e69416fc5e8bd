// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* What the user asked to see: set by main()'s options, read by what prints. */
#include "view.h"

struct view view;
