/* The record's field list (HW_RECORD_FIELDS, record.h) against the texts that name the fields one by one:
 * the columns and types of deploy/clickhouse/schema.sql, the key table of docs/records.md and the hop / flow
 * fields of the Wireshark dissector deploy/wireshark/hopwatch.lua. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/record.h"

static const char *root; /* the source tree */

enum kind { UINT, FLAGS, FORMAT, INTVER, IP, HEX, VALID };
struct field {
	const char *name, *type, *ch;
	uint32_t valid;
	enum kind kind;
	int jpos;
};
#define ROW(a, name, type, le, valid, ch, kind, jpos) {#name, #type, ch, valid, kind, jpos},
static const struct field fields[] = {HW_RECORD_FIELDS(ROW, _)};
#undef ROW
#define NF (sizeof(fields) / sizeof(fields[0]))

static const struct field *find(const char *name)
{
	for (size_t i = 0; i < NF; i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

static char *slurp(const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("%s: cannot open", path);
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len + 4096 + 1 > cap)
			buf = realloc(buf, cap = 2 * cap + 4096 + 1);
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n);
	fclose(f);
	buf[len] = 0;
	return buf;
}

/* Next line of *p (without the newline) into line; 0 at the end. */
static int next_line(const char **p, char *line, size_t cap)
{
	if (!**p)
		return 0;
	size_t n = strcspn(*p, "\n");
	snprintf(line, cap, "%.*s", (int)n, *p);
	*p += n + ((*p)[n] == '\n');
	return 1;
}

/* schema.sql: the hops table's columns are the list's rows in order, with the list's ClickHouse types,
 * then report_pos UInt16, then the MATERIALIZED ones.  The Enum8 labels are the record's enum names. */
static void test_clickhouse_schema(void **state)
{
	(void)state;
	char *text = slurp("deploy/clickhouse/schema.sql"), line[512], fmt_enum[256], iv_enum[256];
	/* Enum8('none' = 0, 'tr0.5' = 1, ...): 0 is 'none', then the names of record_names.c */
	size_t o = (size_t)snprintf(fmt_enum, sizeof(fmt_enum), "Enum8('none' = 0");
	for (unsigned f = HW_FORMAT_TR05; f <= HW_FORMAT_INT; f++)
		o += (size_t)snprintf(fmt_enum + o, sizeof(fmt_enum) - o, ", '%s' = %u", hw_format_name(f), f);
	snprintf(fmt_enum + o, sizeof(fmt_enum) - o, ")");
	o = (size_t)snprintf(iv_enum, sizeof(iv_enum), "Enum8('none' = 0");
	for (unsigned v = HW_INT_V05; v <= HW_INT_V21; v++)
		o += (size_t)snprintf(iv_enum + o, sizeof(iv_enum) - o, ", '%s' = %u", hw_int_version_name(v), v);
	snprintf(iv_enum + o, sizeof(iv_enum) - o, ")");

	const char *p = strstr(text, "CREATE TABLE IF NOT EXISTS hopwatch.hops");
	assert_non_null(p);
	size_t col = 0;
	int in_table = 0, report_pos = 0;
	while (next_line(&p, line, sizeof(line))) {
		if (!in_table) {
			in_table = line[0] == '(';
			continue;
		}
		if (line[0] == ')')
			break;
		char name[64], type[256];
		const char *s = line + strspn(line, " ");
		if (!strncmp(s, "--", 2) || sscanf(s, "%63s %255[^\n]", name, type) != 2)
			continue;
		char *end = strstr(type, "--"); /* drop the comment, the comma and the spaces before them */
		if (end)
			*end = 0;
		for (end = type + strlen(type); end > type && (end[-1] == ' ' || end[-1] == ','); end--)
			end[-1] = 0;
		if (strstr(type, "MATERIALIZED"))
			continue;
		if (col == NF) {
			assert_string_equal(name, "report_pos"); /* the one column that is not a field */
			assert_string_equal(type, "UInt16");
			report_pos = 1;
			col++;
			continue;
		}
		assert_true(col < NF);
		assert_string_equal(name, fields[col].name);
		if (fields[col].kind == FORMAT)
			assert_string_equal(type, fmt_enum);
		else if (fields[col].kind == INTVER)
			assert_string_equal(type, iv_enum);
		else
			assert_string_equal(type, fields[col].ch);
		col++;
	}
	assert_int_equal(report_pos, 1);
	assert_int_equal(col, NF + 1);
	free(text);
}

/* docs/records.md: the table "Keys, in the order they are written" names the keys in JSON order (the
 * list's jpos; valid is no key), each with its JSON type and "always" exactly for the fields with no
 * valid bit (int_version aside: absent for the report's own hop). */
static void test_docs_table(void **state)
{
	(void)state;
	char *text = slurp("docs/records.md"), line[2048];
	const char *p = strstr(text, "## Keys, in the order they are written");
	assert_non_null(p);
	int jpos = 0, rows = 0;
	while (next_line(&p, line, sizeof(line))) {
		if (line[0] != '|' || !strncmp(line, "| key |", 7) || !strncmp(line, "|---", 4)) {
			if (rows && line[0] != '|')
				break;
			continue;
		}
		rows++;
		/* | `a`, `b` | json type | present | meaning | */
		char *cell[4];
		char *c = line + 1;
		for (int i = 0; i < 4; i++) {
			cell[i] = c;
			c = strchr(c, '|');
			assert_non_null(c);
			*c++ = 0;
		}
		for (char *k = strchr(cell[0], '`'); k; k = strchr(k, '`')) {
			char *e = strchr(k + 1, '`');
			assert_non_null(e);
			*e = 0;
			while (jpos < (int)NF) { /* the field at this JSON place, skipping valid */
				const struct field *f = NULL;
				for (size_t i = 0; i < NF; i++)
					if (fields[i].jpos == jpos)
						f = &fields[i];
				assert_non_null(f);
				jpos++;
				if (f->kind == VALID)
					continue;
				assert_string_equal(k + 1, f->name);
				const char *jt = f->kind == UINT    ? "integer"
				                 : f->kind == FLAGS ? "array of strings"
				                                    : "string";
				char want[64];
				snprintf(want, sizeof(want), " %s ", jt);
				assert_string_equal(cell[1], want);
				assert_int_equal(!strcmp(cell[2], " always "), !f->valid && f->kind != INTVER);
				break;
			}
			k = e + 1;
		}
	}
	assert_int_equal(jpos, NF); /* every key named */
	free(text);
}

/* hopwatch.lua: its per-hop and inner-flow fields (hopwatch.hop.NAME, hopwatch.flow.NAME) that are record
 * fields have the record's width; the others are wire-only words; and every optional field the wire
 * carries is shown (flow_hash is the collector's own). */
static void test_wireshark_fields(void **state)
{
	(void)state;
	static const char *const wire_only[] = {"drop_queue_id",       "drop_padding",     "checksum_complement",
	                                        "congestion_queue_id", "queue_congestion", "reserved_md",
	                                        "unavailable"};
	char *text = slurp("deploy/wireshark/hopwatch.lua");
	int seen[sizeof(fields) / sizeof(fields[0])] = {0};
	for (const char *p = strstr(text, "ProtoField."); p; p = strstr(p + 1, "ProtoField.")) {
		char ftype[32], full[128];
		if (sscanf(p, "ProtoField.%31[a-z0-9](\"%127[^\"]\"", ftype, full) != 2)
			continue;
		const char *name = NULL;
		if (!strncmp(full, "hopwatch.hop.", 13))
			name = full + 13;
		else if (!strncmp(full, "hopwatch.flow.", 14))
			name = full + 14;
		if (!name)
			continue;
		const struct field *f = find(name);
		if (!f) {
			int known = 0;
			for (size_t i = 0; i < sizeof(wire_only) / sizeof(wire_only[0]); i++)
				known |= !strcmp(name, wire_only[i]);
			if (!known)
				fail_msg("%s: neither a record field nor a known wire-only word", full);
			continue;
		}
		seen[f - fields] = 1;
		/* uint8 .. uint64 for u8 .. u64; an address is shown as text */
		char want[32];
		if (!strcmp(f->type, "ip16"))
			snprintf(want, sizeof(want), "string");
		else
			snprintf(want, sizeof(want), "uint%s", f->type + 1);
		if (strcmp(ftype, want))
			fail_msg("%s: ProtoField.%s, the record's %s is %s", full, ftype, f->name, f->type);
	}
	for (size_t i = 0; i < NF; i++)
		if (fields[i].valid && fields[i].kind != HEX && !seen[i])
			fail_msg("hopwatch.lua shows no hopwatch.hop.%s / hopwatch.flow.%s", fields[i].name,
			         fields[i].name);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SOURCE_ROOT\n", argv[0]);
		return 2;
	}
	root = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clickhouse_schema),
	    cmocka_unit_test(test_docs_table),
	    cmocka_unit_test(test_wireshark_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
