/* The record file reader refuses what it does not understand: another magic, a newer format or
 * layout version, another record or header size, a torn last record, a short header; each with its
 * own message naming the file.  The header the writer produces is checked byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/record_file.h"
#include "sink_util.h"

#define NREC 3
#define GOOD_LEN (HW_RECORD_FILE_HEADER + NREC * HW_RECORD_SIZE)

static uint8_t good[GOOD_LEN]; /* a valid file of NREC records, made by the writer */

static int setup(void **state)
{
	sink_fx_setup(state);
	struct sink_fx *f = *state;
	struct hw_record_writer_opts o = {.dir = f->dir, .prefix = "good", .encoding = HW_RECORD_ENC_FIXED};
	struct hw_record_writer *w = hw_record_writer_open(&o, f->err, sizeof(f->err));
	assert_non_null(w);
	struct hw_record r[NREC];
	for (int i = 0; i < NREC; i++)
		rec_fill(&r[i], (uint32_t)i);
	assert_int_equal(hw_record_writer_write(w, r, NREC, 0, f->err, sizeof(f->err)), 0);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	char *names[4], path[600];
	assert_int_equal(dir_names(f->dir, 0, names, 4), 1);
	snprintf(path, sizeof(path), "%s/%s", f->dir, names[0]);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(good, 1, GOOD_LEN + 1, fp), GOOD_LEN);
	fclose(fp);
	unlink(path);
	names_free(names, 1);
	return 0;
}

static void put_file(struct sink_fx *f, const char *name, const uint8_t *b, size_t n, char *path, size_t pathlen)
{
	snprintf(path, pathlen, "%s/%s", f->dir, name);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(b, 1, n, fp), n);
	fclose(fp);
}

static void header_bytes(void **state)
{
	(void)state;
	static const uint8_t fixed[28] = {'H', 'W', 'R', 'E', 'C', 0, 0, 1, /* magic */
	                                  1,   0,                           /* format version 1 */
	                                  136, 0,                           /* record size */
	                                  64,  0,   0,   0,                 /* header size */
	                                  0,   0,   0,   0,   0,   0, 0, 0, /* creation time: checked below */
	                                  1,   0,   0,   0};                /* layout version 1 */
	assert_memory_equal(good, fixed, 16);
	assert_memory_equal(good + 24, fixed + 24, 4);
	for (int i = 28; i < HW_RECORD_FILE_HEADER; i++)
		assert_int_equal(good[i], 0);
	uint64_t created = 0;
	for (int i = 0; i < 8; i++)
		created |= (uint64_t)good[16 + i] << (8 * i);
	assert_in_range(created, 1600000000ull * 1000000000ull + 1, UINT64_MAX); /* a wall-clock time in ns */
	uint8_t img[HW_RECORD_SIZE];
	struct hw_record r;
	rec_fill(&r, 1);
	hw_record_to_le(&r, img);
	assert_memory_equal(good + HW_RECORD_FILE_HEADER + HW_RECORD_SIZE, img, HW_RECORD_SIZE);
}

static void good_file_reads(void **state)
{
	struct sink_fx *f = *state;
	char path[600];
	put_file(f, "ok.hwr", good, GOOD_LEN, path, sizeof(path));
	struct hw_record_reader *r = hw_record_reader_open(path, f->err, sizeof(f->err));
	if (!r)
		fail_msg("%s", f->err);
	struct hw_record got[NREC + 2], want;
	assert_int_equal(hw_record_reader_read(r, got, NREC + 2, f->err, sizeof(f->err)), NREC);
	for (int i = 0; i < NREC; i++) {
		rec_fill(&want, (uint32_t)i);
		rec_assert_equal(&got[i], &want);
	}
	assert_int_equal(hw_record_reader_read(r, got, 1, f->err, sizeof(f->err)), 0);
	hw_record_reader_close(r);
}

struct bad {
	const char *name;
	size_t off; /* byte to change, or SIZE_MAX for none */
	uint8_t value;
	size_t len; /* file length to write (may add zero bytes past the good file) */
	const char *expect;
};

static void refusals(void **state)
{
	struct sink_fx *f = *state;
	const struct bad bads[] = {
	    {"magic.hwr", 3, 'X', GOOD_LEN, "not a hopwatch record file (wrong magic)"},
	    {"newer.hwr", 8, 3, GOOD_LEN, "format version 3 is newer than this reader"},
	    {"zero-version.hwr", 8, 0, GOOD_LEN, "format version 0 is not valid"},
	    {"recsize.hwr", 10, 128, GOOD_LEN, "record size 128 bytes, expected 136"},
	    {"hdrsize.hwr", 12, 128, GOOD_LEN, "header size 128 bytes, expected 64"},
	    {"layout.hwr", 24, 2, GOOD_LEN, "record layout version 2 is newer than this reader"},
	    {"torn.hwr", SIZE_MAX, 0, GOOD_LEN - 86,
	     "torn last record: 50 bytes after the last whole record (file is 386 bytes"},
	    {"torn-extra.hwr", SIZE_MAX, 0, GOOD_LEN + 1, "torn last record: 1 bytes after the last whole record"},
	    {"short.hwr", SIZE_MAX, 0, 20, "truncated header: 20 of 64 bytes"},
	    {"empty.hwr", SIZE_MAX, 0, 0, "not a hopwatch record file"},
	};
	const size_t nb = sizeof(bads) / sizeof(bads[0]);
	char msgs[sizeof(bads) / sizeof(bads[0])][512];
	for (size_t i = 0; i < nb; i++) {
		uint8_t b[GOOD_LEN + 1] = {0};
		memcpy(b, good, GOOD_LEN);
		if (bads[i].off != SIZE_MAX)
			b[bads[i].off] = bads[i].value;
		char path[600];
		put_file(f, bads[i].name, b, bads[i].len, path, sizeof(path));
		f->err[0] = 0;
		struct hw_record_reader *r = hw_record_reader_open(path, f->err, sizeof(f->err));
		if (r)
			fail_msg("%s was accepted", bads[i].name);
		if (strncmp(f->err, path, strlen(path)) || !strstr(f->err, bads[i].expect))
			fail_msg("%s: message \"%s\" does not name the file and \"%s\"", bads[i].name, f->err,
			         bads[i].expect);
		snprintf(msgs[i], sizeof(msgs[i]), "%s", f->err + strlen(path));
	}
	for (size_t i = 0; i < nb; i++) /* each problem has its own message */
		for (size_t j = i + 1; j < nb; j++)
			if (!strcmp(msgs[i], msgs[j]) && strcmp(bads[i].name, "empty.hwr") &&
			    strcmp(bads[j].name, "empty.hwr"))
				fail_msg("%s and %s give the same message", bads[i].name, bads[j].name);
}

static void missing_file(void **state)
{
	struct sink_fx *f = *state;
	char path[600];
	snprintf(path, sizeof(path), "%s/none.hwr", f->dir);
	assert_null(hw_record_reader_open(path, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, path));
	assert_non_null(strstr(f->err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(header_bytes, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(good_file_reads, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(refusals, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(missing_file, setup, sink_fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
