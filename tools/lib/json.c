// SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception
/* A small streaming JSON writer. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "msg.h"

#define PROM_NAME 128
#define PROM_LABELS 1024
#define PROM_HELP 160

/* A number waiting in its object for the object's labels. */
struct prom_sample {
	char name[PROM_NAME * 2];
	char value[40];
	const char *type;	/* "counter", "gauge" or "untyped" */
	char help[PROM_HELP];	/* or "" */
};

/* A finished sample: "name{labels} value", the name's length, its metadata. */
struct prom_line {
	char *text;
	size_t name_len;
	const char *type;
	char help[PROM_HELP];
};

/* Prometheus mode: the path so far, each level's labels and waiting samples. */
struct json_prom {
	char prefix[64];
	char base_labels[256];
	struct {
		char name[PROM_NAME];	/* the key it was opened under, or "" */
		char labels[PROM_LABELS];
		int array;		/* its elements get an index label */
		unsigned int next;	/* the next element's index */
		struct prom_sample *pending;
		size_t n_pending;
	} lvl[JSON_MAX_DEPTH];
	struct prom_line *lines;
	size_t n, cap;
};

void json_init(struct json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = 0;
	j->pretty = 0;
	j->prom = NULL;
}

void json_pretty(struct json *j)
{
	j->pretty = 1;
}

int json_init_prom(struct json *j, FILE *f, const char *prefix, const char *labels)
{
	json_init(j, f);
	j->prom = calloc(1, sizeof(*j->prom));
	if (!j->prom)
		return -1;
	snprintf(j->prom->prefix, sizeof(j->prom->prefix), "%s", prefix);
	snprintf(j->prom->base_labels, sizeof(j->prom->base_labels), "%s", labels);
	return 0;
}

/* Metric and label names: [a-zA-Z_][a-zA-Z0-9_]*; anything else becomes '_'. */
static void prom_identifier(char *s)
{
	size_t o;

	for (o = 0; s[o]; o++)
		if (!((s[o] >= 'a' && s[o] <= 'z') || (s[o] >= 'A' && s[o] <= 'Z') ||
		      (s[o] >= '0' && s[o] <= '9' && o) || s[o] == '_'))
			s[o] = '_';
}

static void prom_name(char *out, size_t room, const struct json_prom *p, int depth,
		      const char *key)
{
	int i;

	snprintf(out, room, "%s", p->prefix);
	for (i = 1; i <= depth; i++)
		if (p->lvl[i].name[0])
			snprintf(out + strlen(out), room - strlen(out), "_%s", p->lvl[i].name);
	if (key)
		snprintf(out + strlen(out), room - strlen(out), "_%s", key);
	prom_identifier(out);
}

/*
 * Append key="val" to a level's labels, val escaped as the text format
 * wants (backslash, quote, newline) and made valid UTF-8 (U+FFFD for a
 * stray byte), or nothing if it does not fit: a label is whole or absent.
 */
static void prom_label(char *labels, size_t room, const char *key, const char *val)
{
	const unsigned char *u = (const unsigned char *)val;
	size_t start = strlen(labels), o;
	char name[PROM_NAME];
	int n;

	snprintf(name, sizeof(name), "%s", key);
	prom_identifier(name);
	o = start + (size_t)snprintf(labels + start, room - start, "%s%s=\"",
				     start ? "," : "", name);
	if (o >= room)
		goto too_long;
	while (*u) {
		n = (int)msg_utf8_len(u);
		if (o + 4 >= room)
			goto too_long;
		if (!n) {
			memcpy(labels + o, "\xef\xbf\xbd", 3);
			o += 3;
			u++;
		} else if (*u == '\\' || *u == '"' || *u == '\n') {
			labels[o++] = '\\';
			labels[o++] = *u == '\n' ? 'n' : (char)*u;
			u++;
		} else {
			memcpy(labels + o, u, (size_t)n);
			o += (size_t)n;
			u += n;
		}
	}
	if (o + 2 > room)
		goto too_long;
	labels[o++] = '"';
	labels[o] = '\0';
	return;
too_long:
	labels[start] = '\0';
}

/* A number waits in its object until the object's labels are all known. */
static void prom_sample(struct json *j, const char *key, const char *value, const char *type,
			const char *help)
{
	struct json_prom *p = j->prom;
	struct prom_sample *s, *grown;
	size_t len;

	grown = realloc(p->lvl[j->depth].pending,
			(p->lvl[j->depth].n_pending + 1) * sizeof(*grown));
	if (!grown)
		return;
	p->lvl[j->depth].pending = grown;
	s = &grown[p->lvl[j->depth].n_pending++];
	prom_name(s->name, sizeof(s->name), p, j->depth, key);
	len = strlen(s->name);
	/* A counter's name says so; the JSON key it comes from need not. */
	if (!strcmp(type, "counter") && (len < 6 || strcmp(s->name + len - 6, "_total")))
		snprintf(s->name + len, sizeof(s->name) - len, "_total");
	snprintf(s->value, sizeof(s->value), "%s", value);
	s->type = type;
	/* Copied: a caller may build it in a buffer it reuses. */
	snprintf(s->help, sizeof(s->help), "%s", help ? help : "");
}

/* The level closes: its samples, with every enclosing level's labels. */
static void prom_flush(struct json *j)
{
	struct json_prom *p = j->prom;
	char labels[PROM_LABELS * JSON_MAX_DEPTH + 256];
	struct prom_line *grown;
	struct prom_sample *s;
	size_t k;
	int i;

	snprintf(labels, sizeof(labels), "%s", p->base_labels);
	for (i = 0; i <= j->depth; i++)
		if (p->lvl[i].labels[0])
			snprintf(labels + strlen(labels), sizeof(labels) - strlen(labels), "%s%s",
				 labels[0] ? "," : "", p->lvl[i].labels);
	for (k = 0; k < p->lvl[j->depth].n_pending; k++) {
		s = &p->lvl[j->depth].pending[k];
		if (p->n == p->cap) {
			grown = realloc(p->lines, (p->cap ? p->cap * 2 : 64) * sizeof(*grown));
			if (!grown)
				break;
			p->lines = grown;
			p->cap = p->cap ? p->cap * 2 : 64;
		}
		if (asprintf(&p->lines[p->n].text, "%s{%s} %s", s->name, labels, s->value) < 0)
			break;
		p->lines[p->n].name_len = strlen(s->name);
		p->lines[p->n].type = s->type;
		memcpy(p->lines[p->n].help, s->help, sizeof(s->help));
		p->n++;
	}
	free(p->lvl[j->depth].pending);
	p->lvl[j->depth].pending = NULL;
	p->lvl[j->depth].n_pending = 0;
	p->lvl[j->depth].labels[0] = '\0';
}

static void prom_open(struct json *j, const char *key, char bracket)
{
	struct json_prom *p = j->prom;
	int parent = j->depth, d;
	char index[16];

	if (j->depth + 1 >= JSON_MAX_DEPTH)
		return;
	d = ++j->depth;
	snprintf(p->lvl[d].name, sizeof(p->lvl[d].name), "%s", key ? key : "");
	p->lvl[d].labels[0] = '\0';
	p->lvl[d].array = bracket == '[';
	p->lvl[d].next = 0;
	if (p->lvl[parent].array) {
		snprintf(index, sizeof(index), "%u", p->lvl[parent].next++);
		prom_label(p->lvl[d].labels, sizeof(p->lvl[d].labels), "index", index);
	}
}

/* Grouped by name in the order names first appear; a group keeps its order. */
static void prom_end(struct json *j)
{
	struct json_prom *p = j->prom;
	const struct prom_line *first;
	size_t i, k;

	while (j->depth > 0) {
		prom_flush(j);
		j->depth--;
	}
	prom_flush(j);
	for (i = 0; i < p->n; i++) {
		if (!p->lines[i].text)
			continue;
		first = &p->lines[i];
		if (first->help[0])
			fprintf(j->f, "# HELP %.*s %s\n", (int)first->name_len, first->text,
				first->help);
		fprintf(j->f, "# TYPE %.*s %s\n", (int)first->name_len, first->text, first->type);
		for (k = i; k < p->n; k++) {
			if (!p->lines[k].text || p->lines[k].name_len != first->name_len ||
			    strncmp(p->lines[k].text, first->text, first->name_len))
				continue;
			fprintf(j->f, "%s\n", p->lines[k].text);
			if (k != i) {
				free(p->lines[k].text);
				p->lines[k].text = NULL;
			}
		}
	}
	for (i = 0; i < p->n; i++)
		free(p->lines[i].text);
	free(p->lines);
	free(p);
	j->prom = NULL;
	fflush(j->f);
}

/*
 * A JSON string of s: quotes, backslashes and control characters (C0, DEL,
 * C1) escaped; a byte that is not part of well-formed UTF-8 (a file name,
 * an interface name, a string cut short) becomes U+FFFD, as Go's encoder
 * does, so the output is always valid JSON.
 */
static void json_quote(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	int n;

	fputc('"', f);
	while (*u) {
		n = (int)msg_utf8_len(u);
		if (!n) {
			fputs("\\ufffd", f);
			u++;
		} else if (*u == '"' || *u == '\\') {
			fprintf(f, "\\%c", *u++);
		} else if (*u < 0x20 || *u == 0x7f) {
			fprintf(f, "\\u%04x", *u++);
		} else if (n == 2 && u[0] == 0xc2 && u[1] <= 0x9f) {
			/* C1 (U+0080 to U+009F): escaped too, for a terminal's sake. */
			fprintf(f, "\\u%04x", u[1]);
			u += 2;
		} else {
			fwrite(u, 1, (size_t)n, f);
			u += n;
		}
	}
	fputc('"', f);
}

/* Pretty mode: a new line, indented to depth. */
static void json_newline(struct json *j, int depth)
{
	if (!j->pretty)
		return;
	fprintf(j->f, "\n%*s", 2 * depth, "");
}

static void json_key(struct json *j, const char *key)
{
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	j->need_comma[j->depth] = 1;
	if (j->depth)
		json_newline(j, j->depth);
	if (key) {
		json_quote(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

void json_open(struct json *j, const char *key, char bracket)
{
	if (j->prom) {
		prom_open(j, key, bracket);
		return;
	}
	json_key(j, key);
	fputc(bracket, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->need_comma[j->depth] = 0;
}

void json_open_set(struct json *j, const char *key)
{
	if (j->prom)
		prom_open(j, key, '{');
	else
		json_open(j, key, '[');
}

void json_close(struct json *j, char bracket)
{
	if (j->prom) {
		if (j->depth) {
			prom_flush(j);
			j->depth--;
		}
		return;
	}
	/* An empty one stays on its line: [] or {}. */
	if (j->need_comma[j->depth] && j->depth)
		json_newline(j, j->depth - 1);
	fputc(bracket, j->f);
	if (j->depth)
		j->depth--;
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	char buf[24];

	if (j->prom) {
		snprintf(buf, sizeof(buf), "%" PRIu64, v);
		prom_sample(j, key, buf, "untyped", NULL);
		return;
	}
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void json_double(struct json *j, const char *key, double v)
{
	char buf[40];

	if (j->prom) {
		snprintf(buf, sizeof(buf), "%.3f", v);
		prom_sample(j, key, buf, "untyped", NULL);
		return;
	}
	json_key(j, key);
	fprintf(j->f, "%.3f", v);
}

void json_str(struct json *j, const char *key, const char *s)
{
	if (j->prom) {
		if (key)
			prom_label(j->prom->lvl[j->depth].labels,
				   sizeof(j->prom->lvl[j->depth].labels), key, s);
		return;
	}
	json_key(j, key);
	json_quote(j->f, s);
}

static void json_typed(struct json *j, const char *key, uint64_t v, const char *type,
		       const char *help)
{
	char buf[24];

	if (!j->prom) {
		json_u64(j, key, v);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	prom_sample(j, key, buf, type, help);
}

void json_counter(struct json *j, const char *key, uint64_t v, const char *help)
{
	json_typed(j, key, v, "counter", help);
}

void json_gauge(struct json *j, const char *key, uint64_t v, const char *help)
{
	json_typed(j, key, v, "gauge", help);
}

void json_label_u64(struct json *j, const char *key, uint64_t v)
{
	char buf[24];

	if (!j->prom) {
		json_u64(j, key, v);
		return;
	}
	if (!key)
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	prom_label(j->prom->lvl[j->depth].labels, sizeof(j->prom->lvl[j->depth].labels), key,
		   buf);
}

void json_end(struct json *j)
{
	if (j->prom) {
		prom_end(j);
		return;
	}
	fputc('\n', j->f);
	fflush(j->f);
	j->need_comma[0] = 0;
}
