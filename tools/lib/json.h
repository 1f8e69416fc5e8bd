/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * A small streaming JSON writer: objects, arrays, numbers, strings. The
 * same calls can instead write Prometheus' text format (json_init_prom):
 * every number a sample named by its path, every string a label of the
 * numbers in its object (and the objects within), an array element's
 * position an "index" label. json_counter() and json_gauge() give a
 * number its type and HELP text; json_label_u64() makes a number that
 * names rather than measures (a port, a line) a label.
 */
#ifndef NF_JSON_H
#define NF_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

struct json_prom;

struct json {
	FILE *f;
	int depth;
	int need_comma[JSON_MAX_DEPTH];
	int pretty;		/* a member a line, indented by its depth */
	struct json_prom *prom;	/* Prometheus mode, or NULL */
};

void json_init(struct json *j, FILE *f);
/* Pretty-printed JSON from here on, as ip -p and bpftool -p print it. */
void json_pretty(struct json *j);
/*
 * Prometheus mode: samples named prefix_PATH_KEY with labels (labels:
 * "name=\"value\"" pairs, comma-separated, for every sample, or "").
 * json_end() writes them to f, grouped by name, each group under its HELP
 * and TYPE lines (a counter's name ends in _total). -1 if out of memory.
 */
int json_init_prom(struct json *j, FILE *f, const char *prefix, const char *labels);
/* key is NULL inside arrays and at the top level. */
void json_open(struct json *j, const char *key, char bracket);
void json_close(struct json *j, char bracket);
/*
 * An array whose elements name themselves by their labels (a flow by its
 * addresses and ports): in Prometheus mode no index label, which would
 * make a new series of an element whenever its place changes. Closed
 * with json_close(j, ']').
 */
void json_open_set(struct json *j, const char *key);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_double(struct json *j, const char *key, double v);
void json_str(struct json *j, const char *key, const char *s);
/* A number that only grows (Prometheus: NAME_total, a counter) or goes both ways (a gauge). */
void json_counter(struct json *j, const char *key, uint64_t v, const char *help);
void json_gauge(struct json *j, const char *key, uint64_t v, const char *help);
/* A number that identifies: a JSON number, a label in Prometheus mode. */
void json_label_u64(struct json *j, const char *key, uint64_t v);
/* Ends the top-level value with a newline and flushes. */
void json_end(struct json *j);

#endif /* NF_JSON_H */
