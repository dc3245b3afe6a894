/* Keeps the switch and the collector honest: the P4 header types in p4/ must have exactly the
 * bit layouts the C parser reads (include/hopwatch/wire_layout.h).  Usage: test_p4_layout P4_DIR */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/wire_layout.h"
#include "p4_headers.h"

/* Naming convention: C layout NAME <-> P4 header type NAME_t. */
#define P4_SUFFIX "_t"

static const char *p4_dir;
static struct p4h_set p4;

static const struct p4h_header *p4_for(const char *c_name)
{
	char type[P4H_NAME_MAX + 8];
	snprintf(type, sizeof(type), "%s" P4_SUFFIX, c_name);
	return p4h_find(&p4, type);
}

static int setup(void **state)
{
	(void)state;
	char err[512];
	memset(&p4, 0, sizeof(p4));
	int n = p4h_parse_dir(&p4, p4_dir, err, sizeof(err));
	if (n < 0) {
		print_error("cannot read the P4 sources: %s\n", err);
		return -1;
	}
	if (n == 0) {
		print_error("%s: no .p4 files found\n", p4_dir);
		return -1;
	}
	return 0;
}

/* Compare one C layout with its P4 header; report every difference, return their number. */
static int compare_header(const struct hw_layout_header *c, const struct p4h_header *h)
{
	int bad = 0;
	if (h->has_varbit) {
		print_error("%s (%s): P4 header has a varbit field, C layout %s is fixed-size\n", h->name, h->file,
		            c->name);
		return 1;
	}
	if (h->n_fields != c->n_fields) {
		print_error("%s (%s): %u fields in P4, %u in C layout %s\n", h->name, h->file, h->n_fields,
		            (unsigned)c->n_fields, c->name);
		bad++;
	}
	unsigned off = 0;
	unsigned n = h->n_fields < c->n_fields ? h->n_fields : c->n_fields;
	for (unsigned i = 0; i < n; i++) {
		const struct p4h_field *pf = &h->fields[i];
		const struct hw_layout_field *cf = &c->fields[i];
		if (strcmp(pf->name, cf->name)) {
			print_error("%s field %u: named '%s' in P4, '%s' in C\n", h->name, i, pf->name, cf->name);
			bad++;
		}
		if (pf->width != cf->bit_width) {
			print_error("%s.%s: %u bits in P4, %u in C\n", h->name, pf->name, pf->width,
			            (unsigned)cf->bit_width);
			bad++;
		}
		if (off != cf->bit_offset) {
			print_error("%s.%s: starts at bit %u in P4, bit %u in C\n", h->name, pf->name, off,
			            (unsigned)cf->bit_offset);
			bad++;
		}
		off += pf->width;
	}
	for (unsigned i = n; i < h->n_fields; i++)
		off += h->fields[i].width;
	if (off % 8 || off / 8 != c->bytes) {
		print_error("%s: %u bits (%.2f bytes) in P4, %u bytes in C\n", h->name, off, off / 8.0,
		            (unsigned)c->bytes);
		bad++;
	}
	return bad;
}

/* The C table must be self-consistent too: contiguous fields filling exactly `bytes`. */
static void test_c_layouts_contiguous(void **state)
{
	(void)state;
	for (const struct hw_layout_header *c = hw_layout_headers; c->name; c++) {
		unsigned off = 0;
		for (unsigned i = 0; i < c->n_fields; i++) {
			if (c->fields[i].bit_offset != off)
				fail_msg("C layout %s.%s starts at bit %u, previous field ends at %u", c->name,
				         c->fields[i].name, (unsigned)c->fields[i].bit_offset, off);
			off += c->fields[i].bit_width;
		}
		if (off != 8u * c->bytes)
			fail_msg("C layout %s: fields cover %u bits, size says %u bytes", c->name, off,
			         (unsigned)c->bytes);
	}
}

static void test_required_headers_exist(void **state)
{
	(void)state;
	static const char *const required[] = {"tr2_group", "tr2_indiv",  "tr2_int_main", "int21_shim",
	                                       "int21_md",  "tr05_fixed", "tr05_local",   "tr05_drop"};
	int missing = 0;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (!p4_for(required[i])) {
			print_error("P4 header type %s" P4_SUFFIX " is missing from %s\n", required[i], p4_dir);
			missing++;
		}
	}
	if (missing)
		fail_msg("%d required P4 header types missing", missing);
}

static void test_shared_layouts_match(void **state)
{
	(void)state;
	int bad = 0, shared = 0;
	for (const struct hw_layout_header *c = hw_layout_headers; c->name; c++) {
		const struct p4h_header *h = p4_for(c->name);
		if (!h)
			continue;
		shared++;
		bad += compare_header(c, h);
	}
	print_message("compared %d headers defined on both sides\n", shared);
	if (bad)
		fail_msg("%d differences between the P4 headers and wire_layout.h (see above)", bad);
	assert_in_range(shared, 8, INT_MAX);
}

/* Per-hop metadata and report metadata types have no C X-list; their sizes are fixed by the
 * INT v2.1 and TR v2.0 specs (4 B each, 8 B for the timestamps and L2 ports). */
static void test_metadata_sizes(void **state)
{
	(void)state;
	static const struct {
		const char *type;
		unsigned bytes;
	} md[] = {
	    {"int_node_id_t", 4},     {"int_l1_ports_t", 4},       {"int_hop_latency_t", 4},
	    {"int_q_occupancy_t", 4}, {"int_ingress_tstamp_t", 8}, {"int_egress_tstamp_t", 8},
	    {"int_l2_ports_t", 8},    {"int_egress_tx_util_t", 4}, {"int_buffer_t", 4},
	    {"tr2_md_drop_t", 4},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(md) / sizeof(md[0]); i++) {
		const struct p4h_header *h = p4h_find(&p4, md[i].type);
		if (!h) {
			print_error("P4 header type %s is missing\n", md[i].type);
			bad++;
			continue;
		}
		unsigned bits = 0;
		for (unsigned f = 0; f < h->n_fields; f++)
			bits += h->fields[f].width;
		if (bits != 8 * md[i].bytes) {
			print_error("%s: %u bits in P4, the spec says %u bytes\n", md[i].type, bits, md[i].bytes);
			bad++;
		}
	}
	if (bad)
		fail_msg("%d metadata header types differ from the spec sizes", bad);
}

/* The reader itself: comments, preprocessor lines, annotations, typedefs, varbit. */
static void test_reader(void **state)
{
	(void)state;
	static const char src[] = "#define X 1\n"
	                          "typedef bit<6> six_t;  // a width\n"
	                          "typedef six_t six2_t;\n"
	                          "/* header fake_t { bit<1> x; } */\n"
	                          "header a_t {\n"
	                          "  bit<4> ver; // header b_t { }\n"
	                          "  six2_t hw_id;\n"
	                          "  @name(\"s\") bit<0x16> seq_no;\n"
	                          "}\n"
	                          "header v_t { varbit<64> w; }\n";
	struct p4h_set *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	char err[256];
	assert_int_equal(p4h_parse(s, src, "inline", err, sizeof(err)), 0);
	assert_int_equal(s->n_headers, 2);
	const struct p4h_header *a = p4h_find(s, "a_t");
	assert_non_null(a);
	assert_null(p4h_find(s, "fake_t"));
	assert_int_equal(a->n_fields, 3);
	assert_string_equal(a->fields[1].name, "hw_id");
	assert_int_equal(a->fields[1].width, 6);
	assert_int_equal(a->fields[2].width, 22);
	assert_true(p4h_find(s, "v_t")->has_varbit);

	/* A width that is not a literal is an error, not a silent skip. */
	memset(s, 0, sizeof(*s));
	assert_int_equal(p4h_parse(s, "header b_t { bit<W> x; }", "inline", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "inline:1"));
	free(s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s P4_DIR\n", argv[0]);
		return 2;
	}
	p4_dir = argv[1];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reader),
	    cmocka_unit_test(test_c_layouts_contiguous),
	    cmocka_unit_test(test_required_headers_exist),
	    cmocka_unit_test(test_shared_layouts_match),
	    cmocka_unit_test(test_metadata_sizes),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
