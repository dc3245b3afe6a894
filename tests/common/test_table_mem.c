/* Unit tests of lib/common's table memory: alignment, zero fill, the whole table writable, and a large table
 * backed by a transparent huge page once touched, where the kernel offers them. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "table_mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1 /* table_mem.c takes calloc's memory then: no huge pages to look for */
#else
#define UNDER_ASAN 0
#endif

/* Every byte of t (n bytes) is 0. */
static int all_zero(const unsigned char *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (t[i])
			return 0;
	return 1;
}

static void test_small_table(void **state)
{
	(void)state;
	unsigned char *t = hw_table_alloc(100);
	assert_non_null(t);
	/* below HW_TABLE_HUGE: on a page boundary (4 KiB pages here: x86-64 Linux) */
	assert_int_equal((uintptr_t)t % 4096, 0);
	assert_int_equal(all_zero(t, 100), 1);
	memset(t, 0xa5, 100);
	assert_int_equal(t[99], 0xa5);
	hw_table_free(t);
	hw_table_free(NULL); /* ignored */
}

static void test_zero_bytes(void **state)
{
	(void)state;
	void *t = hw_table_alloc(0); /* a table of nothing is still a table to free */
	assert_non_null(t);
	hw_table_free(t);
}

/* The AnonHugePages of the mapping holding p in /proc/self/smaps, in kB; -1 when not found. */
static long huge_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[256];
	int inside = 0;
	long kb = -1;
	while (fgets(line, sizeof(line), f)) {
		uintptr_t lo, hi;
		/* a mapping's first line starts "lo-hi " in hex; its fields' lines start with a name and a colon
		 * (none of them a hex number and a dash) */
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2) {
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* The kernel's THP mode: 1 unless it says [never] (or there is no THP at all). */
static int thp_offered(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return 0;
	char s[128] = "";
	int ok = fgets(s, sizeof(s), f) != NULL && strstr(s, "[never]") == NULL;
	fclose(f);
	return ok;
}

static void test_large_table(void **state)
{
	(void)state;
	/* 3 MiB: from HW_TABLE_HUGE on, the table starts on a 2 MiB boundary */
	const size_t n = (size_t)3 << 20;
	unsigned char *t = hw_table_alloc(n);
	assert_non_null(t);
	assert_int_equal((uintptr_t)t % HW_TABLE_HUGE, 0);
	assert_int_equal(all_zero(t, n), 1);
	t[0] = 1;
	t[n - 1] = 2; /* the last byte is the table's */
	assert_int_equal(t[0] + t[n - 1], 3);
	if (!UNDER_ASAN && thp_offered()) {
		/* the first 2 MiB extent is whole inside the madvised mapping, and was touched above: with THP in
		 * "always" or "madvise" mode the kernel backs it with one 2048 kB page (unless memory is too
		 * fragmented to find one, which a fresh test machine is not) */
		memset(t, 3, HW_TABLE_HUGE);
		assert_in_range(huge_kb(t), 2048, (long)1 << 40); /* -1 (not found) is out of range too */
	}
	hw_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small_table),
	    cmocka_unit_test(test_zero_bytes),
	    cmocka_unit_test(test_large_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
