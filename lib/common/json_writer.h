/* A small streaming JSON writer: objects, arrays, keys and values appended to a fixed caller buffer
 * (output cut when full) or a growing heap buffer, with strings escaped as RFC 8259 requires. */
#ifndef HOPWATCH_JSON_WRITER_H
#define HOPWATCH_JSON_WRITER_H

#include <stddef.h>
#include <stdint.h>

#define HW_JSON_MAX_DEPTH 32

/* The writer puts the commas and colons itself: call hw_json_key before each value inside an
 * object, and just the values inside an array.  Strings (keys and values) are escaped so:
 *   '"' and '\' get a backslash; the control characters U+0000..U+001F become \u00XX (lower-case
 *   hex, e.g. a newline is \u000a); everything else that is well-formed UTF-8 (DEL included) is copied
 *   as is; every byte that does not begin a well-formed UTF-8 sequence (a stray continuation byte, a
 *   lead byte without its continuation, an overlong form, a surrogate, a code point above U+10FFFF)
 *   becomes U+FFFD (the bytes EF BF BD), one per bad byte.
 * Numbers are written with the printf format the caller gives (hw_json_numf) or as integers. */
struct hw_json {
	char *buf;
	size_t len, cap;
	int fixed;  /* buf is the caller's and never grows */
	int failed; /* a fixed buffer was full (output cut there) or an allocation failed */
	int after_key;
	unsigned depth;
	uint8_t has_items[HW_JSON_MAX_DEPTH + 1]; /* per open container: a value was written in it */
};

/* Write into buf (size bytes, kept NUL-terminated; at most size - 1 bytes of JSON). */
void hw_json_init(struct hw_json *j, char *buf, size_t size);
/* Write into a heap buffer that grows as needed (hw_json_free releases it). */
void hw_json_init_heap(struct hw_json *j);
/* Start a new document in the same buffer. */
void hw_json_reset(struct hw_json *j);
void hw_json_free(struct hw_json *j);

void hw_json_obj(struct hw_json *j);
void hw_json_obj_end(struct hw_json *j);
void hw_json_arr(struct hw_json *j);
void hw_json_arr_end(struct hw_json *j);
void hw_json_key(struct hw_json *j, const char *key);

void hw_json_str(struct hw_json *j, const char *s);
/* The first n bytes of s (NUL bytes among them are escaped). */
void hw_json_strn(struct hw_json *j, const char *s, size_t n);
/* A string value formatted by printf, then escaped. */
void hw_json_strf(struct hw_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hw_json_u64(struct hw_json *j, uint64_t v);
void hw_json_i64(struct hw_json *j, int64_t v);
void hw_json_bool(struct hw_json *j, int v);
/* A number in the caller's printf format, written as is (e.g. "%.17g", "%.3f"). */
void hw_json_numf(struct hw_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An already encoded JSON value of n bytes, written as is. */
void hw_json_raw(struct hw_json *j, const char *json, size_t n);

#endif
