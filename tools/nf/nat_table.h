/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/* nf-nat's connection table: a part per worker, its steering rules. */
#ifndef NF_NAT_TABLE_H
#define NF_NAT_TABLE_H

#include "nat_state.h"

int nat_proto_index(uint8_t proto);
/*
 * A packet's live connection: in the part locked (an expired one there is
 * removed if the part is the worker's own); with x->foreign in the other
 * parts too, leaving the one that has it locked. NULL, with the worker's
 * own part locked, if none has it.
 */
struct nat_conn *nat_lookup(struct nat_ctx *x, const struct nat_key *k, uint64_t now);
/* Added to the part locked (the worker's own), with its rule queued; NULL if full. */
struct nat_conn *nat_add(struct nat_ctx *x, const struct nat_conn *tmpl);
/* A free public port (network order), claimed; 0 if none. */
uint16_t nat_alloc_port(struct nat *nat, unsigned int index, uint8_t proto, uint32_t hash);
void nat_port_free(struct nat *nat, uint8_t proto, uint16_t port);
void nat_relock(struct nat_ctx *x, struct nat_part *part);
/*
 * Send the worker's queued rule changes, counting into cnt, then free the
 * ports they held (no part lock needed: the handle and queue are its own).
 */
void nat_rules_flush(struct nat *nat, struct nat_part *part, struct nat_counts *cnt);
void nat_counts_add_rules(struct nat_counts *to, const struct nat_counts *from);
void nat_tick(void *arg);
int nat_part_init(struct nat_part *part, unsigned long max_conns);
void nat_part_fini(struct nat_part *part);
int nat_worker_init(struct ns_worker *w, void *arg);
void nat_worker_fini(struct ns_worker *w, void *arg);

#endif /* NF_NAT_TABLE_H */
