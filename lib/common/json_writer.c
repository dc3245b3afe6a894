/* The JSON writer behind every hand-built JSON text (events, alert bodies, run summaries): separators,
 * RFC 8259 string escaping with UTF-8 checking, numbers in the caller's format (json_writer.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_writer.h"

void hw_json_init(struct hw_json *j, char *buf, size_t size)
{
	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->cap = size;
	j->fixed = 1;
	if (size)
		buf[0] = 0;
	else
		j->failed = 1;
}

void hw_json_init_heap(struct hw_json *j)
{
	memset(j, 0, sizeof(*j));
}

void hw_json_reset(struct hw_json *j)
{
	j->len = 0;
	j->failed = j->fixed && !j->cap;
	j->after_key = 0;
	j->depth = 0;
	j->has_items[0] = 0;
	if (j->cap)
		j->buf[0] = 0;
}

void hw_json_free(struct hw_json *j)
{
	if (!j->fixed)
		free(j->buf);
	memset(j, 0, sizeof(*j));
}

/* Room for n more bytes and the NUL.  0 when they do not fit (fixed) or cannot be allocated. */
static int room(struct hw_json *j, size_t n)
{
	if (j->len + n < j->cap)
		return 1;
	if (j->fixed)
		return 0;
	size_t cap = j->cap ? j->cap : 256;
	while (cap <= j->len + n)
		cap *= 2;
	char *b = realloc(j->buf, cap);
	if (!b)
		return 0;
	j->buf = b;
	j->cap = cap;
	return 1;
}

static void put(struct hw_json *j, const char *p, size_t n)
{
	if (j->failed)
		return;
	if (!room(j, n)) {
		j->failed = 1;
		if (!j->fixed || !j->cap)
			return;
		n = j->cap - 1 - j->len; /* a fixed buffer keeps what fits */
	}
	memcpy(j->buf + j->len, p, n);
	j->len += n;
	j->buf[j->len] = 0;
}

/* The separator before a value (or a key) in the current container. */
static void sep(struct hw_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->has_items[j->depth])
		put(j, ",", 1);
	j->has_items[j->depth] = 1;
}

static void open_one(struct hw_json *j, char c)
{
	sep(j);
	put(j, &c, 1);
	if (j->depth < HW_JSON_MAX_DEPTH)
		j->depth++;
	else
		j->failed = 1; /* deeper than any hopwatch document: a caller bug */
	j->has_items[j->depth] = 0;
}

static void close_one(struct hw_json *j, char c)
{
	put(j, &c, 1);
	if (j->depth)
		j->depth--;
}

void hw_json_obj(struct hw_json *j)
{
	open_one(j, '{');
}

void hw_json_obj_end(struct hw_json *j)
{
	close_one(j, '}');
}

void hw_json_arr(struct hw_json *j)
{
	open_one(j, '[');
}

void hw_json_arr_end(struct hw_json *j)
{
	close_one(j, ']');
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 when s[0] does not begin
 * one (Unicode 3-7: no overlongs, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* no overlong 3-byte forms */
		else if (c == 0xed)
			hi = 0x9f; /* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90; /* no overlong 4-byte forms */
		else if (c == 0xf4)
			hi = 0x8f; /* nothing above U+10FFFF */
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/* Calls out(ctx, bytes, n) with the escaped form of s (without quotes). */
static void escape(const char *s, size_t n, void (*out)(void *, const char *, size_t), void *ctx)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0; /* bytes from i - run to i are copied as they are */
	while (i < n) {
		unsigned char c = p[i];
		size_t ok = c >= 0x20 && c < 0x80 && c != '"' && c != '\\' ? 1 : c >= 0x80 ? utf8_len(p + i, n - i) : 0;
		if (ok) {
			i += ok;
			run += ok;
			continue;
		}
		if (run)
			out(ctx, s + i - run, run);
		run = 0;
		char esc[8];
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			out(ctx, esc, 2);
		} else if (c < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", c);
			out(ctx, esc, 6);
		} else {
			out(ctx, "\xef\xbf\xbd", 3); /* U+FFFD for a byte that begins no UTF-8 sequence */
		}
		i++;
	}
	if (run)
		out(ctx, s + i - run, run);
}

static void put_cb(void *ctx, const char *p, size_t n)
{
	put(ctx, p, n);
}

static void put_string(struct hw_json *j, const char *s, size_t n)
{
	put(j, "\"", 1);
	escape(s, n, put_cb, j);
	put(j, "\"", 1);
}

void hw_json_key(struct hw_json *j, const char *key)
{
	sep(j);
	put_string(j, key, strlen(key));
	put(j, ":", 1);
	j->after_key = 1;
}

void hw_json_strn(struct hw_json *j, const char *s, size_t n)
{
	sep(j);
	put_string(j, s, n);
}

void hw_json_str(struct hw_json *j, const char *s)
{
	hw_json_strn(j, s, strlen(s));
}

/* vsnprintf into tmp, or into a heap copy when the text is longer; the text and its length. */
static char *format(char *tmp, size_t size, size_t *len, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(tmp, size, fmt, ap);
	char *s = tmp;
	if (n >= 0 && (size_t)n >= size && (s = malloc((size_t)n + 1)))
		vsnprintf(s, (size_t)n + 1, fmt, again);
	va_end(again);
	*len = n < 0 || !s ? 0 : (size_t)n;
	return s ? s : tmp;
}

/* A printf-formatted value: escaped as a string (quote) or written as is. */
static void put_formatted(struct hw_json *j, int quote, const char *fmt, va_list ap)
{
	char tmp[256];
	size_t n;
	char *s = format(tmp, sizeof(tmp), &n, fmt, ap);
	if (quote) {
		hw_json_strn(j, s, n);
	} else {
		sep(j);
		put(j, s, n);
	}
	if (s != tmp)
		free(s);
}

void hw_json_strf(struct hw_json *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	put_formatted(j, 1, fmt, ap);
	va_end(ap);
}

void hw_json_numf(struct hw_json *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	put_formatted(j, 0, fmt, ap);
	va_end(ap);
}

void hw_json_u64(struct hw_json *j, uint64_t v)
{
	hw_json_numf(j, "%" PRIu64, v);
}

void hw_json_i64(struct hw_json *j, int64_t v)
{
	hw_json_numf(j, "%" PRId64, v);
}

void hw_json_bool(struct hw_json *j, int v)
{
	sep(j);
	put(j, v ? "true" : "false", v ? 4 : 5);
}

void hw_json_raw(struct hw_json *j, const char *json, size_t n)
{
	sep(j);
	put(j, json, n);
}
