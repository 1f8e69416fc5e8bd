/* SPDX-License-Identifier: GPL-2.0 WITH LicenseRef-netslice-OpenSSL-exception */
/*
 * A command's words: keywords, numbers in a range, on or off. Each
 * returns 0, or -1 with a usage error printed (usage.h); a number's
 * error gives its range, so a bad one is refused before anything is sent.
 */
#ifndef TOOLS_WORD_H
#define TOOLS_WORD_H

#include <stdbool.h>
#include <stdint.h>

bool word_is(const char *arg, const char *word);
int word_range(const char *what, const char *s, uint32_t min, uint32_t max, uint32_t *out);
int word_u32(const char *what, const char *s, uint32_t max, uint32_t *out);
/* A number from 0 to max, or the word none (*none says which). */
int word_u32_none(const char *what, const char *s, uint32_t max, uint32_t *out, bool *none);
int word_on_off(const char *what, const char *s, bool *out);

#endif /* TOOLS_WORD_H */
