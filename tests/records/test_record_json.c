/* The JSON-lines writer (record_json.h): every named report flag is written, in bit order, and the longest
 * record it can be given fits HW_RECORD_JSON_MAX. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/record.h"
#include "hopwatch/record_json.h"

/* A TR v2.0 report whose packet copy was cut inside its headers: docs/records.md names the flags
 * "tracked_flow" (F), "postcard" (no stack) and "inner_truncated", in bit order. */
static void flags_in_bit_order(void **state)
{
	(void)state;
	struct hw_record r;
	char buf[HW_RECORD_JSON_MAX];
	memset(&r, 0, sizeof(r));
	r.format = HW_FORMAT_TR20;
	r.report_flags = HW_RF_TRACKED_FLOW | HW_RF_POSTCARD | HW_RF_INNER_TRUNCATED;
	hw_record_json(&r, buf);
	assert_non_null(strstr(buf, "\"report_flags\":[\"tracked_flow\",\"postcard\",\"inner_truncated\"]"));
	/* all six named bits: D Q F I, postcard, inner_truncated */
	r.report_flags = 0x3f;
	hw_record_json(&r, buf);
	assert_non_null(strstr(buf, "\"report_flags\":[\"dropped\",\"congested_queue\",\"tracked_flow\","
	                            "\"intermediate\",\"postcard\",\"inner_truncated\"]"));
}

/* Every byte 0xff (every valid bit, every number at its maximum, every flag bit, addresses
 * ffff:...:ffff, the longest text form), with the format and INT version names that exist: the line
 * ends in a newline and fits the buffer with room to spare. */
static void longest_record_fits(void **state)
{
	(void)state;
	struct hw_record r;
	char buf[HW_RECORD_JSON_MAX + 64];
	memset(&r, 0xff, sizeof(r));
	r.format = HW_FORMAT_TR20;
	r.int_version = HW_INT_V21;
	memset(buf, 0, sizeof(buf));
	size_t n = hw_record_json(&r, buf);
	assert_int_equal(strlen(buf), n);
	assert_true(n + 1 <= HW_RECORD_JSON_MAX);
	assert_int_equal(buf[n - 1], '\n');
	assert_non_null(strstr(buf, "\"inner_truncated\""));
	assert_non_null(strstr(buf, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(flags_in_bit_order),
	    cmocka_unit_test(longest_record_fits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
