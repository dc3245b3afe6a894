/* Helpers for the sink tests: temporary directories, records whose fields all differ, and a
 * field-by-field comparison that names the field that differs. */
#ifndef HOPWATCH_TEST_SINK_UTIL_H
#define HOPWATCH_TEST_SINK_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"
#include "hopwatch/stream.h"

/* The fixture every sink test uses: a fresh temporary directory per test. */
struct sink_fx {
	char dir[256];
	char addr[400]; /* "unix:DIR/stream.sock" */
	char err[512];
	struct hw_record out[HW_STREAM_MAX_BATCH];
	struct hw_record batch[HW_STREAM_MAX_BATCH];
};
/* cmocka setup / teardown: *state becomes a struct sink_fx; teardown removes the directory. */
int sink_fx_setup(void **state);
int sink_fx_teardown(void **state);
/* A listener on addr / a sender to addr; the test fails with the message if that is refused. */
struct hw_stream_listener *fx_listen(struct sink_fx *f, const char *addr);
struct hw_stream_sender *fx_sender(struct sink_fx *f, const char *addr);

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

#endif
