/* JSON-lines records (docs/records.md) back into struct hw_record with jansson, generated from HW_RECORD_FIELDS
 * (record.h): every key of the list, each setting its valid bits; unknown keys are ignored (the format may grow). */
#include <arpa/inet.h>
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

/* One key by kind; a bad value fails the line with the key named in err.  UINT keys must be integers >= 0; names and
 * text that do not match leave the field 0, as the format may grow. */
#define R_UINT(name, type, bits)                                                                                       \
	if (x) {                                                                                                       \
		if (!json_is_integer(x) || json_integer_value(x) < 0) {                                                \
			snprintf(err, errlen, "%s: expected an integer >= 0", #name);                                  \
			goto out;                                                                                      \
		}                                                                                                      \
		r->name = (hw_rec_##type##_t)json_integer_value(x);                                                    \
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
