/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/* IP protocol names, one table for nf-firewall and netslicectl. */
#ifndef TOOLS_PROTO_H
#define TOOLS_PROTO_H

/* A protocol by name (as /etc/protocols spells it) or number 0..255; -1 if neither. */
int proto_parse(const char *s);
/* The protocol's name, or NULL for a number with none here. */
const char *proto_name(int proto);
/* Why s, a name proto_parse() refuses on purpose, is refused; NULL for any other. */
const char *proto_refused(const char *s);
/* Every name, comma-separated, for a message or --help. */
const char *proto_names(void);

#endif /* TOOLS_PROTO_H */
