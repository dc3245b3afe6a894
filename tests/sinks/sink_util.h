/* Helpers for the sink tests: temporary directories, records whose fields all differ, and a
 * field-by-field comparison that names the field that differs. */
#ifndef HOPWATCH_TEST_SINK_UTIL_H
#define HOPWATCH_TEST_SINK_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

/* A new empty directory under $TMPDIR or /tmp (path in buf, at least 256 bytes). */
void tmpdir_make(char *buf, size_t len);
/* Remove the files in dir (one level) and dir itself. */
void tmpdir_remove(const char *dir);

/* Names in dir, sorted; hidden (dot) files only if want_hidden, else only visible ones.  Returns the
 * count (at most max); names[i] are malloc'ed, free them with names_free. */
int dir_names(const char *dir, int want_hidden, char **names, int max);
void names_free(char **names, int n);

/* Fill r so every field has its own value, all derived from seed (pad bytes zero). */
void rec_fill(struct hw_record *r, uint32_t seed);
/* Fail, naming the field, unless a and b are equal field by field (pad bytes included). */
void rec_assert_equal(const struct hw_record *a, const struct hw_record *b);

/* CLOCK_MONOTONIC in seconds. */
double mono_s(void);

#endif
