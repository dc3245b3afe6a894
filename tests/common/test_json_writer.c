/* Unit tests of lib/common's JSON writer: string escaping (quotes, backslash, control characters,
 * UTF-8 kept, invalid UTF-8 replaced), separators, numbers and the fixed buffer's cut. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "json_writer.h"

/* s (n bytes) as one JSON string value, in a buffer big enough for every case here. */
static const char *str_json(const char *s, size_t n)
{
	static char buf[256];
	struct hw_json j;
	hw_json_init(&j, buf, sizeof(buf));
	hw_json_strn(&j, s, n);
	assert_int_equal(j.failed, 0);
	return buf;
}

static void test_quote_and_backslash(void **state)
{
	(void)state;
	/* a"b\c: the quote and the backslash each get a backslash: "a\"b\\c" */
	assert_string_equal(str_json("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	/* the slash needs no escape in RFC 8259 and is kept */
	assert_string_equal(str_json("a/b", 3), "\"a/b\"");
}

static void test_control_characters(void **state)
{
	(void)state;
	/* 0x01, newline (0x0a), tab (0x09), 0x1f: \u0001 \u000a \u0009 \u001f, lower-case hex */
	assert_string_equal(str_json("\x01\n\t\x1f", 4), "\"\\u0001\\u000a\\u0009\\u001f\"");
	/* a NUL byte inside the given length: \u0000 */
	assert_string_equal(str_json("x\0y", 3), "\"x\\u0000y\"");
	/* 0x20 (space) and 0x7f (DEL) are not control characters for JSON: kept */
	assert_string_equal(str_json(" \x7f", 2), "\" \x7f\"");
}

static void test_utf8_kept(void **state)
{
	(void)state;
	/* e-acute C3 A9 (2 bytes), euro sign E2 82 AC (3), U+1F600 F0 9F 98 80 (4), U+10FFFF F4 8F BF BF */
	const char *in = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf";
	assert_string_equal(str_json(in, strlen(in)), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"");
}

/* U+FFFD, what each byte that begins no well-formed UTF-8 sequence becomes */
#define R "\xef\xbf\xbd"

static void test_invalid_utf8_replaced(void **state)
{
	(void)state;
	/* a continuation byte alone: 80 -> one U+FFFD */
	assert_string_equal(str_json("a\x80z", 3), "\"a" R "z\"");
	/* a 2-byte lead at the end, its continuation missing: C3 -> U+FFFD */
	assert_string_equal(str_json("a\xc3", 2), "\"a" R "\"");
	/* overlong '/' C0 AF: C0 is never a lead, AF is a lone continuation: two U+FFFD */
	assert_string_equal(str_json("\xc0\xaf", 2), "\"" R R "\"");
	/* the surrogate U+D800 as ED A0 80: ED's second byte must be 80..9F, so three bad bytes */
	assert_string_equal(str_json("\xed\xa0\x80", 3), "\"" R R R "\"");
	/* above U+10FFFF: F4 90 80 80 (F4's second byte must be 80..8F): four bad bytes */
	assert_string_equal(str_json("\xf4\x90\x80\x80", 4), "\"" R R R R "\"");
	/* F5 and FF never begin a sequence */
	assert_string_equal(str_json("\xf5\xff", 2), "\"" R R "\"");
	/* E2 82 then 'A': the 3-byte sequence is cut, E2 and 82 are bad, 'A' is kept */
	assert_string_equal(str_json("\xe2\x82"
	                             "A",
	                             3),
	                    "\"" R R "A\"");
}

static void test_structure_and_numbers(void **state)
{
	(void)state;
	char buf[256];
	struct hw_json j;
	hw_json_init(&j, buf, sizeof(buf));
	hw_json_obj(&j);
	hw_json_key(&j, "a");
	hw_json_u64(&j, 1);
	hw_json_key(&j, "b");
	hw_json_arr(&j);
	hw_json_i64(&j, -2);
	hw_json_str(&j, "x");
	hw_json_bool(&j, 1);
	hw_json_bool(&j, 0);
	hw_json_arr_end(&j);
	hw_json_key(&j, "c");
	hw_json_obj(&j);
	hw_json_obj_end(&j);
	hw_json_key(&j, "d");
	hw_json_numf(&j, "%.17g", 0.5);
	hw_json_key(&j, "k\"");
	hw_json_u64(&j, UINT64_MAX);
	hw_json_key(&j, "f");
	hw_json_strf(&j, "%016" PRIx64, (uint64_t)0xabc);
	hw_json_key(&j, "r");
	hw_json_raw(&j, "[1,2]", 5);
	hw_json_obj_end(&j);
	assert_int_equal(j.failed, 0);
	/* commas only between siblings, none after a key; the key k" escaped; 2^64-1 in full; 0xabc as 16
	 * hex digits; the raw text as given */
	assert_string_equal(buf,
	                    "{\"a\":1,\"b\":[-2,\"x\",true,false],\"c\":{},\"d\":0.5,\"k\\\"\":18446744073709551615,"
	                    "\"f\":\"0000000000000abc\",\"r\":[1,2]}");
	assert_int_equal(j.len, strlen(buf));
	/* reset starts a new document in the same buffer: no comma before it */
	hw_json_reset(&j);
	hw_json_arr(&j);
	hw_json_arr_end(&j);
	assert_string_equal(buf, "[]");
}

static void test_fixed_buffer_cut(void **state)
{
	(void)state;
	char buf[8];
	struct hw_json j;
	hw_json_init(&j, buf, sizeof(buf));
	hw_json_str(&j, "abcdefghij");
	/* 8 bytes hold 7 of JSON and the NUL: the quote and abcdef */
	assert_int_equal(j.failed, 1);
	assert_int_equal(j.len, 7);
	assert_string_equal(buf, "\"abcdef");
	/* nothing more is written once cut */
	hw_json_str(&j, "z");
	assert_string_equal(buf, "\"abcdef");
}

static void test_heap_grows(void **state)
{
	(void)state;
	struct hw_json j;
	hw_json_init_heap(&j);
	hw_json_arr(&j);
	for (int i = 0; i < 300; i++)
		hw_json_str(&j, "abc");
	hw_json_arr_end(&j);
	assert_int_equal(j.failed, 0);
	/* 300 strings of 5 bytes ("abc" with quotes), 299 commas, 2 brackets: 1500 + 299 + 2 */
	assert_int_equal(j.len, 1801);
	assert_int_equal(strlen(j.buf), 1801);
	assert_memory_equal(j.buf, "[\"abc\",\"abc\",", 13);
	assert_memory_equal(j.buf + 1801 - 7, ",\"abc\"]", 7);
	hw_json_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quote_and_backslash),
	    cmocka_unit_test(test_control_characters),
	    cmocka_unit_test(test_utf8_kept),
	    cmocka_unit_test(test_invalid_utf8_replaced),
	    cmocka_unit_test(test_structure_and_numbers),
	    cmocka_unit_test(test_fixed_buffer_cut),
	    cmocka_unit_test(test_heap_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
