/* SPDX-License-Identifier: GPL-2.0 */
/* A small streaming JSON writer: objects, arrays, numbers, strings. */
#ifndef NF_JSON_H
#define NF_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 8

struct json {
	FILE *f;
	int depth;
	int need_comma[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f);
/* key is NULL inside arrays and at the top level. */
void json_open(struct json *j, const char *key, char bracket);
void json_close(struct json *j, char bracket);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_double(struct json *j, const char *key, double v);
void json_str(struct json *j, const char *key, const char *s);
/* Ends the top-level value with a newline and flushes. */
void json_end(struct json *j);

#endif /* NF_JSON_H */
