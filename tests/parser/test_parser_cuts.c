/* Truncation: every valid frame cut at every byte offset is rejected with a named reason, and
 * never read past its end (each cut lives in a heap block of exactly its size, so ASan sees it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/wire.h"
#include "sample_frames.h"

static struct hw_record recs[256];
static struct hw_report reps[32];

static enum hw_result parse_copy(const struct hw_parser_config *cfg, const uint8_t *f, size_t n, bool frame)
{
	uint8_t *copy = malloc(n ? n : 1);
	memcpy(copy, f, n);
	struct hw_parse_out o = {.recs = recs, .rec_cap = 256, .reps = reps, .rep_cap = 32};
	enum hw_result r = frame ? hw_parse_frame(cfg, copy, n, 0, &o) : hw_parse_report(cfg, copy, n, 0, &o);
	free(copy);
	if (r != HW_OK) {
		assert_int_equal(o.n_recs, 0);
		assert_int_equal(o.n_reps, 0);
		assert_in_range(o.err_offset, 0, n);
	}
	assert_in_range(r, 0, HW_RESULT_COUNT - 1);
	return r;
}

/* Every cut of the frame fails by name.  Every cut of the report payload fails by name while it falls
 * in the report's own headers (before inner_off, the offset of the copied packet in the payload); from
 * there on the report is whole and its copy of the packet cut, which is normal (TR v2.0: "a truncated
 * packet fragment"): it parses, flagged inner_truncated while the cut is inside the copy's headers. */
static void cut_everywhere(const uint8_t *f, size_t n, size_t payload_off, size_t inner_off)
{
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	assert_int_equal(parse_copy(&cfg, f, n, true), HW_OK);
	assert_int_equal(parse_copy(&cfg, f + payload_off, n - payload_off, false), HW_OK);
	for (size_t k = 0; k < n; k++) {
		enum hw_result r = parse_copy(&cfg, f, k, true);
		if (r == HW_OK || r == HW_NOT_REPORT)
			fail_msg("frame cut at %zu of %zu parsed as %s", k, n, hw_result_name(r));
	}
	for (size_t k = 0; k < n - payload_off; k++) {
		enum hw_result r = parse_copy(&cfg, f + payload_off, k, false);
		if (k < inner_off && (r == HW_OK || r == HW_NOT_REPORT))
			fail_msg("payload cut at %zu of %zu parsed as %s", k, n - payload_off, hw_result_name(r));
		if (k >= inner_off && r != HW_OK)
			fail_msg("payload cut at %zu of %zu, inside the copied packet, failed as %s", k,
			         n - payload_off, hw_result_name(r));
	}
}

static void cut_tr2(void **state)
{
	(void)state;
	/* TR v2.0's report_length covers the copied packet: every cut of it points past the payload */
	cut_everywhere(tr2_sink_frame, sizeof(tr2_sink_frame), 42, sizeof(tr2_sink_frame) - 42);
}

static void cut_tr05(void **state)
{
	(void)state;
	/* TR v0.5: fixed header 12 B + local report header 16 B, then the copied packet to the end */
	cut_everywhere(tr05_local_frame, sizeof(tr05_local_frame), 42, 12 + 16);
}

/* Every single-byte corruption of the valid frames parses or fails by name without overreads. */
static void flip_every_byte(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	const uint8_t *frames[2] = {tr2_sink_frame, tr05_local_frame};
	const size_t lens[2] = {sizeof(tr2_sink_frame), sizeof(tr05_local_frame)};
	static const uint8_t vals[] = {0x00, 0x01, 0x0f, 0x10, 0x7f, 0x80, 0xfe, 0xff};
	for (int fi = 0; fi < 2; fi++) {
		uint8_t buf[256];
		for (size_t i = 0; i < lens[fi]; i++)
			for (size_t v = 0; v < sizeof(vals); v++) {
				memcpy(buf, frames[fi], lens[fi]);
				buf[i] = vals[v];
				parse_copy(&cfg, buf, lens[fi], true);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(cut_tr2),
	    cmocka_unit_test(cut_tr05),
	    cmocka_unit_test(flip_every_byte),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
