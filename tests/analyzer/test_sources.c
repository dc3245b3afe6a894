/* Unit tests of run's record sources on files written here: JSON-lines batches per file, the records
 * before a line that does not parse come first, then the error naming file and line; stop; no file; the
 * reader thread of --threads 2 on a scripted source and on record files (read straight into its slots). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/record_file.h"
#include "hopwatch/record_json.h"
#include "hopwatch/stream.h"
#include "records_jsonl.h"
#include "record_source.h"

static char dir[] = "/tmp/hw-test-sources-XXXXXX";
static volatile sig_atomic_t stop;

/* DIR/name with lines records {"time_ns":first..}, then the text tail (may be ""). */
static const char *write_jsonl(const char *name, unsigned lines, uint64_t first, const char *tail)
{
	static char paths[4][256];
	static int k;
	char *p = paths[k++ % 4];
	snprintf(p, 256, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	for (unsigned i = 0; i < lines; i++)
		fprintf(f, "{\"time_ns\":%llu}\n", (unsigned long long)(first + i));
	fputs(tail, f);
	assert_int_equal(fclose(f), 0);
	return p;
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A file one record longer than a batch, then a short one: batches never span two files. */
static void test_jsonl_batches_per_file(void **state)
{
	(void)state;
	const char *paths[2];
	paths[0] = write_jsonl("a.jsonl", HW_STREAM_MAX_BATCH + 1, 100, "\n"); /* a blank line at the end */
	paths[1] = write_jsonl("b.jsonl", 2, 9000, "");
	char err[512];
	stop = 0;
	struct record_source *s = hw_source_jsonl(paths, 2, &stop, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s->name, "--json");
	assert_int_equal(s->live, 0);
	const struct hw_record *r;
	/* a.jsonl: a full batch of 4096 records (time 100 .. 4195), then its last record (time 4196) */
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), HW_STREAM_MAX_BATCH);
	assert_int_equal(r[0].time_ns, 100);
	assert_int_equal(r[HW_STREAM_MAX_BATCH - 1].time_ns, 100 + HW_STREAM_MAX_BATCH - 1);
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), 1);
	assert_int_equal(r[0].time_ns, 100 + HW_STREAM_MAX_BATCH);
	/* b.jsonl: its 2 records (9000, 9001), then the end */
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), 2);
	assert_int_equal(r[1].time_ns, 9001);
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), HW_SRC_END);
	s->ops->close(s);
}

/* Line 4 of c.jsonl is not JSON: records of lines 1-3 first, then the error naming c.jsonl:4, for good. */
static void test_jsonl_error_after_records(void **state)
{
	(void)state;
	const char *paths[2];
	paths[0] = write_jsonl("c.jsonl", 3, 50, "not json\n{\"time_ns\":60}\n");
	paths[1] = write_jsonl("d.jsonl", 1, 70, "");
	char err[512], want[600];
	stop = 0;
	struct record_source *s = hw_source_jsonl(paths, 2, &stop, err, sizeof(err));
	assert_non_null(s);
	const struct hw_record *r;
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), 3);
	assert_int_equal(r[2].time_ns, 52);
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), HW_SRC_ERROR);
	snprintf(want, sizeof(want), "%s:4: ", paths[0]);
	assert_memory_equal(err, want, strlen(want));
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), HW_SRC_ERROR);
	s->ops->close(s);
}

/* With the stop flag set, reading ends before a record is handed out. */
static void test_jsonl_stop(void **state)
{
	(void)state;
	const char *paths[1] = {write_jsonl("e.jsonl", 5, 1, "")};
	char err[512];
	stop = 1;
	struct record_source *s = hw_source_jsonl(paths, 1, &stop, err, sizeof(err));
	assert_non_null(s);
	const struct hw_record *r;
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), HW_SRC_END);
	s->ops->close(s);
	stop = 0;
}

/* Issue 22 item 12: u64 fields from 2^63 to 2^64 - 1 read back exactly (jansson's integers are int64), the
 * collector's own JSON of such a record reads back to the same record; out-of-range values name the key. */
static void test_json_u64_exact(void **state)
{
	(void)state;
	struct hw_record w, r;
	memset(&w, 0, sizeof(w));
	w.time_ns = 9223372036854775808ull; /* 2^63: the first value above INT64_MAX */
	w.report_node = 7;
	w.node_id = 7;
	w.path_len = 1;
	w.format = HW_FORMAT_TR20;
	w.valid = HW_V_INGRESS_TS | HW_V_EGRESS_TS;
	w.ingress_ts = UINT64_MAX;          /* 2^64 - 1 = 18446744073709551615 */
	w.egress_ts = 9223372036854775807u; /* 2^63 - 1: still a jansson integer */
	char line[HW_RECORD_JSON_MAX], err[256];
	hw_record_json(&w, line);
	assert_non_null(strstr(line, "\"ingress_ts\":18446744073709551615"));
	assert_int_equal(hw_record_from_json_line(line, &r, err, sizeof(err)), 0);
	assert_memory_equal(&r, &w, sizeof(r));
	/* a string value with the digits of a big number stays a string (an unknown key, ignored) */
	assert_int_equal(
	    hw_record_from_json_line("{\"time_ns\":18446744073709551615,\"note\":\"18446744073709551615 x\"}", &r, err,
	                             sizeof(err)),
	    0);
	assert_int_equal(r.time_ns, UINT64_MAX);
	/* 2^64 does not fit */
	assert_int_equal(hw_record_from_json_line("{\"time_ns\":18446744073709551616}", &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "time_ns"));
	/* a negative big number, a u8 field above 255 and a real are refused, each naming its key */
	assert_int_equal(hw_record_from_json_line("{\"time_ns\":-18446744073709551615}", &r, err, sizeof(err)), -1);
	assert_int_equal(hw_record_from_json_line("{\"time_ns\":1,\"hop_index\":256}", &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "hop_index"));
	assert_int_equal(hw_record_from_json_line("{\"time_ns\":1.5e19}", &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "time_ns"));
	/* the NUL-marked string is an internal spelling: refused in a line that loads without it */
	assert_int_equal(hw_record_from_json_line("{\"time_ns\":\"\\u00005\"}", &r, err, sizeof(err)), -1);
}

/* A record file that is not there: the error names it, at the first next(), not at open. */
static void test_files_missing(void **state)
{
	(void)state;
	char path[300], err[512];
	snprintf(path, sizeof(path), "%s/none.hwr", dir);
	const char *paths[1] = {path};
	struct record_source *s = hw_source_files(paths, 1, err, sizeof(err));
	assert_non_null(s);
	assert_string_equal(s->name, "--records");
	const struct hw_record *r;
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), HW_SRC_ERROR);
	assert_non_null(strstr(err, "none.hwr"));
	s->ops->close(s);
}

/* A scripted source for the reader thread: batch i has sizes[i] records (0 a quiet turn, HW_SRC_ERROR an error
 * "bad i") with time_ns counting on from 1 across batches, then HW_SRC_END. */
struct fake_source {
	struct record_source base;
	const long *sizes;
	unsigned n, i, closed;
	uint64_t next_t;
	struct hw_record buf[HW_STREAM_MAX_BATCH];
};
static long fake_next(struct record_source *s, const struct hw_record **r, char *err, size_t errlen)
{
	struct fake_source *f = (struct fake_source *)s;
	if (f->i == f->n)
		return HW_SRC_END;
	long k = f->sizes[f->i++];
	if (k == HW_SRC_ERROR) {
		snprintf(err, errlen, "bad %u", f->i - 1);
		return k;
	}
	memset(f->buf, 0xa5, sizeof(f->buf)); /* the previous batch is gone: the reader must have copied it */
	for (long j = 0; j < k; j++) {
		memset(&f->buf[j], 0, sizeof(f->buf[j]));
		f->buf[j].time_ns = f->next_t++;
	}
	*r = f->buf;
	return k;
}
static int fake_closed;
static void fake_close(struct record_source *s)
{
	fake_closed++;
	free(s);
}
static const struct record_source_ops fake_ops = {.next = fake_next, .close = fake_close};
static struct record_source *fake_source(const long *sizes, unsigned n, int live)
{
	struct fake_source *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	f->base = (struct record_source){.ops = &fake_ops, .name = "--fake", .live = live};
	f->sizes = sizes;
	f->n = n;
	f->next_t = 1;
	return &f->base;
}

/* hw_source_thread hands over the inner source's batches unchanged and in order (more batches than its ring
 * of four, full and one-record ones, quiet turns), passes a live source's error on and goes on after it, and
 * returns the end again after it; a replay's error is its last batch (then the end). */
static void test_thread_batches(void **state)
{
	(void)state;
	static const long live_sizes[] = {4096, 1, 0, 3000, HW_SRC_ERROR, 17, 0, 0, 4096, 4096, 5, 2};
	char err[1024];
	for (int live = 1; live >= 0; live--) {
		fake_closed = 0;
		struct record_source *s = hw_source_thread(fake_source(live_sizes, 12, live), err, sizeof(err));
		assert_non_null(s);
		assert_string_equal(s->name, "--fake");
		assert_int_equal(s->live, live);
		uint64_t t = 1;
		unsigned got = 0;
		for (;;) {
			const struct hw_record *r = NULL;
			err[0] = 0;
			long n = s->ops->next(s, &r, err, sizeof(err));
			if (n == HW_SRC_END)
				break;
			assert_true(got < 12);
			assert_int_equal(n, live_sizes[got]);
			if (n == HW_SRC_ERROR)
				assert_string_equal(err, "bad 4");
			for (long j = 0; j < n; j++)
				assert_int_equal(r[j].time_ns, t++);
			got++;
		}
		/* live: all 12 batches, 4096+1+3000+17+4096+4096+5+2 = 15313 records; a replay: the first 5 */
		assert_int_equal(got, live ? 12 : 5);
		assert_int_equal(t - 1, live ? 15313 : 7097);
		const struct hw_record *r;
		assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), HW_SRC_END);
		s->ops->close(s);
		assert_int_equal(fake_closed, 1);
	}
	/* closed before the end: the reader, blocked on a full ring, stops, and the inner source is closed */
	fake_closed = 0;
	struct record_source *s = hw_source_thread(fake_source(live_sizes, 12, 0), err, sizeof(err));
	assert_non_null(s);
	const struct hw_record *r;
	assert_int_equal(s->ops->next(s, &r, err, sizeof(err)), 4096);
	s->ops->close(s);
	assert_int_equal(fake_closed, 1);
}

/* Record i of file_records: fields that change from record to record in several ways (report groups of 5,
 * counters, a pseudo-random occupancy and hash), so the compact file needs many refills of its reader. */
static void file_record(struct hw_record *r, uint32_t i)
{
	memset(r, 0, sizeof(*r));
	const uint32_t x = i * 2654435761u;
	r->time_ns = 1000000000ull + (uint64_t)(i / 5) * 997;
	r->report_node = 100 + i / 5 % 32;
	r->report_seq = i / 5;
	r->hop_index = (uint8_t)(i % 5);
	r->path_len = 5;
	r->node_id = x >> 27;
	r->valid = HW_V_PORTS | HW_V_QUEUE | HW_V_HOP_LATENCY | HW_V_FLOW;
	r->ingress_port = x >> 20 & 63;
	r->egress_port = x >> 14 & 63;
	r->queue_id = (uint8_t)(x >> 8 & 7);
	r->queue_occupancy = x >> 4;
	r->hop_latency = x % 100000;
	r->flow_hash = (uint64_t)x << 32 | (i / 5) * 40503u;
}

/* hw_source_thread over hw_source_files (the reader decodes into its slots, next_into): the records of a
 * compact file of 3 MiB or more (several refills of the file reader's 1 MiB buffer, 25 batches), in order and
 * unchanged, the same as the files source gives on its own; then the end. */
static void test_thread_files(void **state)
{
	(void)state;
	enum {
		N = 100000
	}; /* about 25 bytes or more a record compact (each hop's node, ports, occupancy and
	    * latency pseudo-random, the flow hash raw): 2.5 MB or more */
	char err[1024], sub[300];
	snprintf(sub, sizeof(sub), "%s/rec", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	struct hw_record_writer_opts o = {.dir = sub, .prefix = "t", .encoding = HW_RECORD_ENC_COMPACT};
	struct hw_record_writer *w = hw_record_writer_open(&o, err, sizeof(err));
	assert_non_null(w);
	struct hw_record *all = calloc(N, sizeof(*all));
	assert_non_null(all);
	for (uint32_t i = 0; i < N; i++)
		file_record(&all[i], i);
	assert_int_equal(hw_record_writer_write(w, all, N, 0, err, sizeof(err)), 0);
	assert_int_equal(hw_record_writer_close(w, err, sizeof(err)), 0);
	char cmd[400], path[400];
	snprintf(cmd, sizeof(cmd), "ls %s/t-*.hwr", sub);
	FILE *ls = popen(cmd, "r");
	assert_non_null(ls);
	assert_non_null(fgets(path, sizeof(path), ls));
	pclose(ls);
	path[strcspn(path, "\n")] = 0;
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	assert_true(ftell(fp) > 2 * (1 << 20)); /* more than twice the reader's buffer */
	fclose(fp);
	const char *paths[1] = {path};
	for (int threaded = 0; threaded < 2; threaded++) {
		struct record_source *s = hw_source_files(paths, 1, err, sizeof(err));
		assert_non_null(s);
		if (threaded)
			assert_non_null(s = hw_source_thread(s, err, sizeof(err)));
		size_t got = 0;
		for (;;) {
			const struct hw_record *r = NULL;
			long n = s->ops->next(s, &r, err, sizeof(err));
			if (n == HW_SRC_END)
				break;
			assert_true(n > 0 && n <= HW_STREAM_MAX_BATCH);
			assert_true(got + (size_t)n <= N);
			for (long j = 0; j < n; j++)
				assert_memory_equal(&r[j], &all[got + (size_t)j], sizeof(*r));
			got += (size_t)n;
		}
		assert_int_equal(got, N);
		s->ops->close(s);
	}
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_jsonl_batches_per_file),
	    cmocka_unit_test(test_jsonl_error_after_records),
	    cmocka_unit_test(test_jsonl_stop),
	    cmocka_unit_test(test_files_missing),
	    cmocka_unit_test(test_json_u64_exact),
	    cmocka_unit_test(test_thread_batches),
	    cmocka_unit_test(test_thread_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
