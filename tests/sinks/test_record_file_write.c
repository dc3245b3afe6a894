/* The record file writer through the reader, in both encodings (compact and fixed): round trip of records
 * with every field distinct, rotation by size and by time (every record exactly once, in order), and that
 * a file being written is only ever visible under its hidden temporary name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "hopwatch/record_file.h"
#include "sink_util.h"

#define MAXF 64

static enum hw_record_encoding encoding; /* of the group of tests being run */

static struct hw_record_writer *open_writer(struct sink_fx *f, uint64_t rotate_bytes, uint64_t rotate_ns)
{
	struct hw_record_writer_opts o = {
	    .dir = f->dir, .prefix = "rec", .rotate_bytes = rotate_bytes, .rotate_ns = rotate_ns, .encoding = encoding};
	struct hw_record_writer *w = hw_record_writer_open(&o, f->err, sizeof(f->err));
	if (!w)
		fail_msg("open writer: %s", f->err);
	return w;
}

static void write_seeds(struct sink_fx *f, struct hw_record_writer *w, uint32_t first, size_t n, uint64_t now)
{
	struct hw_record *r = calloc(n ? n : 1, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		rec_fill(&r[i], first + (uint32_t)i);
	if (hw_record_writer_write(w, r, n, now, f->err, sizeof(f->err)))
		fail_msg("write: %s", f->err);
	free(r);
}

/* Seeds 0 .. total - 1 in calls of 1, 1 + step, 1 + 2 step, ... records. */
static void write_growing(struct sink_fx *f, struct hw_record_writer *w, uint32_t total, size_t step)
{
	uint32_t seed = 0;
	for (size_t batch = 1; seed < total; batch += step) {
		size_t n = seed + batch > total ? total - seed : batch;
		write_seeds(f, w, seed, n, 0);
		seed += (uint32_t)n;
	}
}

/* Read dir/name completely, in chunks of 7, checking it holds seeds *next, *next+1, ...; returns the
 * number of records. */
static size_t read_expect(struct sink_fx *f, const char *name, uint32_t *next)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	struct hw_record_reader *r = hw_record_reader_open(path, f->err, sizeof(f->err));
	if (!r)
		fail_msg("open reader: %s", f->err);
	struct hw_record got[7], want;
	size_t total = 0;
	long n;
	while ((n = hw_record_reader_read(r, got, 7, f->err, sizeof(f->err))) > 0) {
		for (long i = 0; i < n; i++) {
			rec_fill(&want, (*next)++);
			rec_assert_equal(&got[i], &want);
		}
		total += (size_t)n;
	}
	if (n < 0)
		fail_msg("read: %s", f->err);
	hw_record_reader_close(r);
	return total;
}

static void assert_final_name(const char *name)
{
	size_t n = strlen(name);
	assert_in_range(n, 9, SIZE_MAX);
	assert_memory_equal(name, "rec-", 4);
	assert_string_equal(name + n - 4, ".hwr");
}

static void round_trip_one_file(void **state)
{
	struct sink_fx *f = *state;
	struct hw_record_writer *w = open_writer(f, 0, 0);
	uint32_t seed = 0;
	for (size_t batch = 1; seed < 1000; batch++) { /* batches of 1, 2, 3, ... records */
		size_t n = seed + batch > 1000 ? 1000 - seed : batch;
		write_seeds(f, w, seed, n, 1000 + seed);
		seed += (uint32_t)n;
	}
	assert_int_equal(hw_record_writer_count(w), 1000);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);

	char *names[MAXF];
	assert_int_equal(dir_names(f->dir, 1, names, MAXF), 0); /* no temporary file left */
	int n = dir_names(f->dir, 0, names, MAXF);
	assert_int_equal(n, 1);
	assert_final_name(names[0]);
	uint32_t next = 0;
	assert_int_equal(read_expect(f, names[0], &next), 1000);
	names_free(names, n);
}

static void rotation_by_size(void **state)
{
	struct sink_fx *f = *state;
	if (encoding != HW_RECORD_ENC_FIXED)
		skip(); /* sizes of fixed records; rotation_by_size_compact below */
	/* Room for exactly 10 records after the header: 95 records make 9 full files and one of 5. */
	struct hw_record_writer *w = open_writer(f, HW_RECORD_FILE_HEADER + 10 * HW_RECORD_SIZE, 0);
	write_growing(f, w, 95, 3);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);

	char *names[MAXF];
	int n = dir_names(f->dir, 0, names, MAXF);
	assert_int_equal(n, 10);
	uint32_t next = 0;
	for (int i = 0; i < n; i++) { /* names sort in creation order: seeds follow on across files */
		assert_final_name(names[i]);
		assert_int_equal(read_expect(f, names[i], &next), i < 9 ? 10 : 5);
	}
	assert_int_equal(next, 95);
	names_free(names, n);
	assert_int_equal(dir_names(f->dir, 1, names, MAXF), 0);
}

/* Compact files of at most 1,000 bytes: 300 records whose fields all differ from one record to the next
 * (so each is a group of its own, 100-200 bytes) spread over several files, each within the limit, every
 * record once and in order, each file's first group coded against zeros (read back on its own). */
static void rotation_by_size_compact(void **state)
{
	struct sink_fx *f = *state;
	if (encoding != HW_RECORD_ENC_COMPACT)
		skip();
	struct hw_record_writer *w = open_writer(f, 1000, 0);
	write_growing(f, w, 300, 5);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	char *names[MAXF];
	int n = dir_names(f->dir, 0, names, MAXF);
	assert_in_range(n, 30, MAXF - 1); /* 300 records of over 100 bytes: at least 300 * 100 / 936 = 32 files */
	uint32_t next = 0;
	for (int i = 0; i < n; i++) {
		char path[600];
		struct stat st;
		snprintf(path, sizeof(path), "%s/%s", f->dir, names[i]);
		assert_int_equal(stat(path, &st), 0);
		assert_in_range(st.st_size, HW_RECORD_FILE_HEADER + 1, 1000);
		assert_in_range(read_expect(f, names[i], &next), 1, 9);
	}
	assert_int_equal(next, 300);
	names_free(names, n);
}

static void rotation_by_time(void **state)
{
	struct sink_fx *f = *state;
	struct hw_record_writer *w = open_writer(f, 0, 1000);
	write_seeds(f, w, 0, 3, 5000);  /* file 1 starts at 5000 */
	write_seeds(f, w, 3, 3, 5999);  /* still file 1 */
	write_seeds(f, w, 6, 4, 6000);  /* 1000 ns on: file 2 */
	write_seeds(f, w, 10, 0, 7000); /* no records: just finishes file 2 */
	char *names[MAXF];
	int n = dir_names(f->dir, 0, names, MAXF);
	assert_int_equal(n, 2);
	assert_int_equal(dir_names(f->dir, 1, names + n, MAXF - n), 0); /* nothing being written */
	write_seeds(f, w, 10, 2, 7001);
	assert_int_equal(hw_record_writer_files(w), 2);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	names_free(names, n);

	n = dir_names(f->dir, 0, names, MAXF);
	assert_int_equal(n, 3);
	uint32_t next = 0;
	assert_int_equal(read_expect(f, names[0], &next), 6);
	assert_int_equal(read_expect(f, names[1], &next), 4);
	assert_int_equal(read_expect(f, names[2], &next), 2);
	names_free(names, n);
}

static void file_in_progress_is_hidden(void **state)
{
	struct sink_fx *f = *state;
	struct hw_record_writer *w = open_writer(f, 0, 0);
	char *names[MAXF], *tmp[MAXF];
	assert_int_equal(dir_names(f->dir, 0, names, MAXF) + dir_names(f->dir, 1, tmp, MAXF), 0); /* lazy */

	write_seeds(f, w, 0, 5, 1);
	assert_int_equal(dir_names(f->dir, 0, names, MAXF), 0);
	int nt = dir_names(f->dir, 1, tmp, MAXF);
	assert_int_equal(nt, 1);
	size_t len = strlen(tmp[0]);
	assert_memory_equal(tmp[0], ".rec-", 5);
	assert_string_equal(tmp[0] + len - 8, ".hwr.tmp");

	assert_int_equal(hw_record_writer_reopen(w, f->err, sizeof(f->err)), 0); /* what SIGHUP does */
	int n = dir_names(f->dir, 0, names, MAXF);
	assert_int_equal(n, 1);
	assert_int_equal(strlen(names[0]), len - 5); /* same name without the dot and .tmp */
	assert_memory_equal(names[0], tmp[0] + 1, len - 5);
	assert_int_equal(dir_names(f->dir, 1, tmp + 1, MAXF - 1), 0);
	names_free(tmp, nt);

	write_seeds(f, w, 5, 5, 2);
	nt = dir_names(f->dir, 1, tmp, MAXF);
	assert_int_equal(nt, 1);                                        /* the new file is hidden */
	assert_int_equal(dir_names(f->dir, 0, names + 1, MAXF - 1), 1); /* the finished one is readable */
	uint32_t next = 0;
	assert_int_equal(read_expect(f, names[0], &next), 5);
	names_free(names, 2);
	names_free(tmp, nt);

	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	n = dir_names(f->dir, 0, names, MAXF);
	assert_int_equal(n, 2);
	assert_int_equal(dir_names(f->dir, 1, tmp, MAXF), 0);
	next = 0;
	assert_int_equal(read_expect(f, names[0], &next) + read_expect(f, names[1], &next), 10);
	names_free(names, n);
}

/* A failed write(2) (here: over RLIMIT_FSIZE) is reported naming the file; that file's records are
 * counted as lost, its temporary file is removed (issue 22 item 9: the directory holds what the counts
 * say), and the writer goes on with a new file. */
static void write_error_abandons_file(void **state)
{
	struct sink_fx *f = *state;
	struct hw_record_writer *w = open_writer(f, 0, 0);
	struct rlimit old, small = {.rlim_cur = 4096};
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);     /* write(2) then fails with EFBIG instead of killing us */
	write_seeds(f, w, 0, 100, 1); /* 13664 bytes, buffered */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	int rc = hw_record_writer_reopen(w, f->err, sizeof(f->err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, -1);
	if (!strstr(f->err, f->dir) || !strstr(f->err, ".hwr.tmp") || !strstr(f->err, "File too large"))
		fail_msg("message \"%s\"", f->err);
	assert_int_equal(hw_record_writer_count(w), 0);
	assert_int_equal(hw_record_writer_lost(w), 100);
	char *names[MAXF];
	assert_int_equal(dir_names(f->dir, 0, names, MAXF), 0);
	assert_int_equal(dir_names(f->dir, 1, names, MAXF), 0); /* the abandoned file is gone */

	write_seeds(f, w, 100, 3, 2);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	int n = dir_names(f->dir, 0, names, MAXF);
	assert_int_equal(n, 1);
	uint32_t next = 100;
	assert_int_equal(read_expect(f, names[0], &next), 3);
	names_free(names, n);
}

/* Issue 22 item 9: a write(2) that fails in the middle of one call used to leave the call's records after
 * the failure neither counted written nor lost.  20000 records: the 1 MiB buffer (64-byte header and 7709
 * records of 136 bytes; compact: groups of one record each, since rec_fill changes every field, of more than
 * 60 bytes, so under 17,500 fit) is flushed before the last record and fails over RLIMIT_FSIZE.  Now
 * written + lost = 20000, here all lost: those in the abandoned file and those not taken after it. */
static void failed_call_counts_every_record(void **state)
{
	struct sink_fx *f = *state;
	enum { N = 20000 };
	struct hw_record_writer *w = open_writer(f, 0, 0);
	struct hw_record *r = calloc(N, sizeof(*r));
	assert_non_null(r);
	for (uint32_t i = 0; i < N; i++)
		rec_fill(&r[i], i);
	struct rlimit old, small = {.rlim_cur = 4096};
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	int rc = hw_record_writer_write(w, r, N, 1, f->err, sizeof(f->err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, -1);
	assert_int_equal(hw_record_writer_count(w), 0);
	assert_int_equal(hw_record_writer_lost(w), N);
	char *names[MAXF];
	assert_int_equal(dir_names(f->dir, 0, names, MAXF) + dir_names(f->dir, 1, names, MAXF), 0);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	free(r);
}

/* A missing record directory is created with its parents (as mkdir -p); one that cannot be (a path
 * through a regular file) is refused naming it, as is a prefix with '/'. */
static void open_creates_or_refuses_directory(void **state)
{
	struct sink_fx *f = *state;
	char parent[400], missing[420];
	snprintf(parent, sizeof(parent), "%s/new", f->dir);
	snprintf(missing, sizeof(missing), "%s/dir", parent);
	struct hw_record_writer_opts o = {.dir = missing, .prefix = "rec"};
	struct hw_record_writer *w = hw_record_writer_open(&o, f->err, sizeof(f->err));
	assert_non_null(w);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	struct stat sb;
	assert_int_equal(stat(missing, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	tmpdir_remove(missing);
	tmpdir_remove(parent);

	char file[400], under_file[420];
	snprintf(file, sizeof(file), "%s/plain", f->dir);
	FILE *fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(under_file, sizeof(under_file), "%s/sub", file);
	o = (struct hw_record_writer_opts){.dir = under_file, .prefix = "rec"};
	assert_null(hw_record_writer_open(&o, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, under_file));
	assert_non_null(strstr(f->err, "Not a directory"));
	o = (struct hw_record_writer_opts){.dir = f->dir, .prefix = "a/b"};
	assert_null(hw_record_writer_open(&o, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, "a/b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(rotation_by_size_compact, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(round_trip_one_file, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(rotation_by_size, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(rotation_by_time, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(file_in_progress_is_hidden, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(failed_call_counts_every_record, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(write_error_abandons_file, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(open_creates_or_refuses_directory, sink_fx_setup, sink_fx_teardown),
	};
	encoding = HW_RECORD_ENC_COMPACT;
	int failed = cmocka_run_group_tests_name("compact", tests, NULL, NULL);
	encoding = HW_RECORD_ENC_FIXED;
	return failed + cmocka_run_group_tests_name("fixed", tests, NULL, NULL);
}
