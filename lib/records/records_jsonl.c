/* JSON-lines records (docs/records.md) back into struct hw_record with jansson, generated from HW_RECORD_FIELDS
 * (record.h): every key of the list, each setting its valid bits; unknown keys are ignored (the format may grow). */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records_jsonl.h"

static int ip_from_text(const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	if (inet_pton(AF_INET6, s, out) == 1)
		return 0;
	if (inet_pton(AF_INET, s, out + 12) != 1)
		return -1;
	out[10] = out[11] = 0xff;
	return 0;
}

/* jansson keeps integers as json_int_t (int64): a line with an integer above INT64_MAX fails to load.  Such a line
 * is loaded again with each of those integers (2^63 .. 2^64 - 1, u64 fields such as timestamps) rewritten as a
 * string of a NUL and its digits, which u64_of() reads back exactly; any other text is copied unchanged.  NULL
 * when out of memory. */
static char *big_ints_as_strings(const char *line, size_t *len)
{
	const size_t n = strlen(line);
	char *o = malloc(2 * n + 1), *w = o; /* each rewrite of 19 or more digits adds 8 characters */
	if (!o)
		return NULL;
	int in_str = 0;
	for (size_t i = 0; i < n;) {
		const char c = line[i];
		if (in_str) {
			*w++ = c;
			if (c == '\\' && i + 1 < n)
				*w++ = line[++i];
			else if (c == '"')
				in_str = 0;
			i++;
			continue;
		}
		if (c == '"')
			in_str = 1;
		if (c < '0' || c > '9' || (i && strchr("-+.eE0123456789", line[i - 1]))) {
			*w++ = c;
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && line[j] >= '0' && line[j] <= '9')
			j++;
		const int plain = j == n || !strchr(".eE", line[j]);
		if (plain && j - i >= 19 && (j - i > 19 || strncmp(line + i, "9223372036854775807", 19) > 0)) {
			w += sprintf(w, "\"\\u0000");
			memcpy(w, line + i, j - i);
			w += j - i;
			*w++ = '"';
		} else {
			memcpy(w, line + i, j - i);
			w += j - i;
		}
		i = j;
	}
	*w = 0;
	*len = (size_t)(w - o);
	return o;
}

/* An unsigned key's value, at most max: an integer >= 0, or a NUL and its digits from big_ints_as_strings(). */
static int uint_of(const json_t *x, uint64_t max, uint64_t *v)
{
	if (json_is_integer(x) && json_integer_value(x) >= 0) {
		*v = (uint64_t)json_integer_value(x);
		return *v <= max ? 0 : -1;
	}
	if (!json_is_string(x) || json_string_length(x) < 2 || json_string_value(x)[0])
		return -1;
	const char *s = json_string_value(x) + 1;
	char *end;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && errno == 0 && *v <= max ? 0 : -1;
}

/* One key by kind; a bad value fails the line with the key named in err.  UINT keys must be integers from 0 to
 * the field's maximum; names and text that do not match leave the field 0, as the format may grow. */
#define R_UINT(name, type, bits)                                                                                       \
	if (x) {                                                                                                       \
		uint64_t v;                                                                                            \
		if (uint_of(x, (hw_rec_##type##_t) - 1, &v)) {                                                         \
			snprintf(err, errlen, "%s: expected an integer from 0 to %llu", #name,                         \
			         (unsigned long long)(hw_rec_##type##_t) - 1);                                         \
			goto out;                                                                                      \
		}                                                                                                      \
		r->name = (hw_rec_##type##_t)v;                                                                        \
		SET_VALID(bits);                                                                                       \
	}
#define R_FLAGS(name, type, bits)                                                                                      \
	if (json_is_integer(x)) /* ClickHouse rows: the bit mask */                                                    \
		r->name = (uint8_t)json_integer_value(x);                                                              \
	json_array_foreach(x, idx, flag) for (unsigned b = 0; b < 8; b++)                                              \
	{                                                                                                              \
		const char *n = hw_report_flag_name(1u << b);                                                          \
		if (n && json_is_string(flag) && strcmp(n, json_string_value(flag)) == 0)                              \
			r->name |= (uint8_t)(1u << b);                                                                 \
	}
#define R_FORMAT(name, type, bits)                                                                                     \
	for (unsigned f = HW_FORMAT_TR05; json_is_string(x) && f <= HW_FORMAT_INT; f++)                                \
		if (strcmp(json_string_value(x), hw_format_name(f)) == 0)                                              \
			r->name = (uint8_t)f;
#define R_INTVER(name, type, bits)                                                                                     \
	for (unsigned f = HW_INT_V05; json_is_string(x) && f <= HW_INT_V21; f++)                                       \
		if (strcmp(json_string_value(x), hw_int_version_name(f)) == 0)                                         \
			r->name = (uint8_t)f;
#define R_IP(name, type, bits)                                                                                         \
	if (json_is_string(x)) {                                                                                       \
		if (ip_from_text(json_string_value(x), r->name)) {                                                     \
			snprintf(err, errlen, "%s: not an IPv4 or IPv6 address", #name);                               \
			goto out;                                                                                      \
		}                                                                                                      \
		SET_VALID(bits);                                                                                       \
	}
#define R_HEX(name, type, bits)                                                                                        \
	if (json_is_string(x)) {                                                                                       \
		const char *s = json_string_value(x);                                                                  \
		char *end;                                                                                             \
		r->name = strtoull(s, &end, 16);                                                                       \
		if (*end || !*s) {                                                                                     \
			snprintf(err, errlen, "%s: expected hex digits", #name);                                       \
			goto out;                                                                                      \
		}                                                                                                      \
		SET_VALID(bits);                                                                                       \
	}
#define R_VALID(name, type, bits) (void)x; /* set from the other keys; ClickHouse rows carry it (below) */
/* A field of one valid bit sets it; one of several (queue_id: queue or drop) is settled after all keys. */
#define SET_VALID(bits)                                                                                                \
	if (!((bits) & ((bits)-1)))                                                                                    \
	r->valid |= (bits)

#define READ(o, name, type, le, bits, ch, kind, jpos)                                                                  \
	{                                                                                                              \
		json_t *x = json_object_get(o, #name);                                                                 \
		R_##kind(name, type, bits)                                                                             \
	}
/* present, and none of its bits set by the other keys: the first bit (queue_id alone = a queue) */
#define SETTLE(o, name, type, le, bits, ch, kind, jpos)                                                                \
	if (((bits) & ((bits)-1)) && json_object_get(o, #name) && !(r->valid & (bits)))                                \
		r->valid |= (bits) & -(bits);

int hw_record_from_json_line(const char *line, struct hw_record *r, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(line, 0, &je), *flag;
	size_t idx;
	int rc = -1;
	memset(r, 0, sizeof(*r));
	if (!o && json_error_code(&je) == json_error_numeric_overflow) {
		size_t len;
		char *again = big_ints_as_strings(line, &len);
		if (again)
			o = json_loadb(again, len, JSON_ALLOW_NUL, &je);
		free(again);
	}
	if (!json_is_object(o)) {
		snprintf(err, errlen, "not a JSON object: %s", o ? "another JSON value" : je.text);
		goto out;
	}
	HW_RECORD_FIELDS(READ, o)
	HW_RECORD_FIELDS(SETTLE, o)
	/* ClickHouse rows (records_clickhouse.c) carry the valid bits as an integer */
	json_t *valid = json_object_get(o, "valid");
	if (json_is_integer(valid))
		r->valid = (uint32_t)json_integer_value(valid);
	rc = 0;
out:
	json_decref(o);
	return rc;
}
