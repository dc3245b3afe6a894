/* shm:PATH, the stream through shared batch rings (lib/records/stream_shm.h): what a producer publishes reaches
 * the one reader whole, in ring order, in place; the reader follows PATH from one collector's file to the next,
 * refuses a file it cannot read (naming it and why, once), and a sleeping reader wakes on a publish. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sink_util.h"
#include "stream_shm.h"

static char path[400];

static int setup(void **state)
{
	int rc = sink_fx_setup(state);
	snprintf(path, sizeof(path), "%s/hw.ring", ((struct sink_fx *)*state)->dir);
	return rc;
}

/* Publish records seed .. seed + n - 1 (rec_fill) as one batch on r. */
static void publish(struct hw_batch_ring *r, uint32_t seed, uint32_t n)
{
	struct hw_batch *b = hw_batch_ring_slot(r);
	assert_non_null(b);
	b->n = n;
	for (uint32_t i = 0; i < n; i++)
		rec_fill(&b->recs[i], seed + i);
	hw_batch_ring_publish(r);
}

static struct hw_shm_writer *writer(struct sink_fx *f, unsigned rings, uint32_t batches, int lossless)
{
	struct hw_shm_writer *w = hw_shm_writer_create(path, rings, batches, lossless, f->err, sizeof(f->err));
	if (!w)
		fail_msg("%s", f->err);
	return w;
}

/* Expect the next call to return exactly n records, seed .. seed + n - 1. */
static void expect(struct hw_shm_reader *rd, struct sink_fx *f, size_t max, uint32_t seed, long n)
{
	const struct hw_record *r = NULL;
	long got = hw_shm_reader_next(rd, &r, max, 2000, f->err, sizeof(f->err));
	if (got != n)
		fail_msg("got %ld records, want %ld (%s)", got, n, got < 0 ? f->err : "");
	for (long i = 0; i < n; i++) {
		struct hw_record want;
		rec_fill(&want, seed + (uint32_t)i);
		rec_assert_equal(&r[i], &want);
	}
}

/* Two rings: batches come out a ring at a time in turn (ring 0's first, then ring 1's, then ring 0's second),
 * cut to max; each given back when all of it was returned, so `taken` counts them: 3 + 2 + 4 = 9. */
static void rings_in_turn(void **state)
{
	struct sink_fx *f = *state;
	struct hw_shm_writer *w = writer(f, 2, 4, 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600); /* only the collector's user can map it */
	struct hw_batch_ring r0, r1;
	hw_shm_writer_ring(w, 0, &r0);
	hw_shm_writer_ring(w, 1, &r1);
	assert_false(hw_batch_ring_has_consumer(&r0)); /* no reader yet, not lossless: a full ring drops */
	const char *down = hw_shm_writer_down(w);
	if (!down || !strstr(down, path) || !strstr(down, "no analyzer attached"))
		fail_msg("down before a reader: %s", down ? down : "(none)");
	publish(&r0, 100, 3);
	publish(&r0, 300, 4);
	publish(&r1, 200, 2);
	struct hw_shm_reader *rd = hw_shm_reader_open(path, f->err, sizeof(f->err));
	assert_non_null(rd);
	expect(rd, f, 512, 100, 3);
	assert_true(hw_batch_ring_has_consumer(&r0));
	assert_int_equal(hw_shm_reader_attached(rd), 1);
	assert_null(hw_shm_writer_down(w));
	expect(rd, f, 512, 200, 2);
	expect(rd, f, 3, 300, 3); /* max 3: the batch of 4 in two calls */
	assert_int_equal(hw_shm_writer_taken(w), 5);
	expect(rd, f, 3, 303, 1);
	const struct hw_record *r;
	assert_int_equal(hw_shm_reader_next(rd, &r, 512, 50, f->err, sizeof(f->err)), 0); /* none: a quiet turn */
	assert_int_equal(hw_shm_writer_taken(w), 9);
	assert_int_equal(hw_shm_writer_close(w, 1000, NULL), 0);
	assert_int_equal(stat(path, &st), -1); /* removed at the end */
	hw_shm_reader_close(rd);
}

/* The reader follows PATH: it waits for a file that is not there yet, reads the first collector's, leaves it once
 * it is closed and drained, and attaches to the next collector's file at the same path. */
static void follows_path(void **state)
{
	struct sink_fx *f = *state;
	struct hw_shm_reader *rd = hw_shm_reader_open(path, f->err, sizeof(f->err));
	const struct hw_record *r;
	assert_int_equal(hw_shm_reader_next(rd, &r, 512, 150, f->err, sizeof(f->err)), 0);
	assert_int_equal(hw_shm_reader_attached(rd), 0);
	for (uint32_t run = 1; run <= 2; run++) {
		struct hw_shm_writer *w = writer(f, 1, 2, 0);
		struct hw_batch_ring ring;
		hw_shm_writer_ring(w, 0, &ring);
		publish(&ring, run * 1000, 5);
		expect(rd, f, 512, run * 1000, 5);
		assert_int_equal(hw_shm_reader_attached(rd), run);
		publish(&ring, run * 1000 + 5, 1);
		expect(rd, f, 512, run * 1000 + 5, 1);
		/* the writer waits for the last batch to be given back: the reader's next call does that */
		assert_int_equal(hw_shm_reader_next(rd, &r, 512, 0, f->err, sizeof(f->err)), 0);
		assert_int_equal(hw_shm_writer_close(w, 0, NULL), 0);
	}
	hw_shm_reader_close(rd);
}

/* Without a reader, close counts what was published and never taken: 2 + 3 = 5 records.  A lossless writer's
 * rings count as read from the start (its producer waits for the analyzer); a reader that leaves ends that. */
static void untaken_and_lossless(void **state)
{
	struct sink_fx *f = *state;
	struct hw_shm_writer *w = writer(f, 1, 4, 0);
	struct hw_batch_ring ring;
	hw_shm_writer_ring(w, 0, &ring);
	publish(&ring, 1, 2);
	publish(&ring, 3, 3);
	assert_int_equal(hw_batch_ring_records_waiting(&ring), 5);
	assert_int_equal(hw_shm_writer_close(w, 1000, NULL), 5);

	w = writer(f, 1, 4, 1);
	hw_shm_writer_ring(w, 0, &ring);
	assert_true(hw_batch_ring_has_consumer(&ring));
	publish(&ring, 1, 1);
	struct hw_shm_reader *rd = hw_shm_reader_open(path, f->err, sizeof(f->err));
	expect(rd, f, 512, 1, 1);
	hw_shm_reader_close(rd); /* every record of the batch was returned: given back on the way out */
	assert_false(hw_batch_ring_has_consumer(&ring));
	assert_non_null(hw_shm_writer_down(w)); /* the reader left: the status line says so */
	assert_int_equal(hw_shm_writer_taken(w), 1);
	assert_int_equal(hw_shm_writer_close(w, 1000, NULL), 0);
}

/* What `hopwatch-analyzer diagnose --stream shm:PATH` reads: no file (an error naming it); the collector's pid
 * and no reader; then the reader's pid once one is attached (both this process here). */
static void probe(void **state)
{
	struct sink_fx *f = *state;
	uint32_t collector = 1, reader = 1;
	assert_int_equal(hw_shm_probe(path, &collector, &reader, f->err, sizeof(f->err)), -1);
	if (!strstr(f->err, path) || !strstr(f->err, "No such file"))
		fail_msg("message: %s", f->err);
	struct hw_shm_writer *w = writer(f, 1, 2, 0);
	assert_int_equal(hw_shm_probe(path, &collector, &reader, f->err, sizeof(f->err)), 0);
	assert_int_equal(collector, (uint32_t)getpid());
	assert_int_equal(reader, 0);
	struct hw_shm_reader *rd = hw_shm_reader_open(path, f->err, sizeof(f->err));
	const struct hw_record *r;
	assert_int_equal(hw_shm_reader_next(rd, &r, 512, 0, f->err, sizeof(f->err)), 0); /* attaches */
	assert_int_equal(hw_shm_probe(path, &collector, &reader, f->err, sizeof(f->err)), 0);
	assert_int_equal(reader, (uint32_t)getpid());
	hw_shm_reader_close(rd);
	assert_int_equal(hw_shm_probe(path, &collector, &reader, f->err, sizeof(f->err)), 0);
	assert_int_equal(reader, 0);
	hw_shm_writer_close(w, 0, NULL);
}

/* One reader per file: a second one is told, naming the file, and only once while nothing changes. */
static void second_reader_refused(void **state)
{
	struct sink_fx *f = *state;
	struct hw_shm_writer *w = writer(f, 1, 2, 0);
	struct hw_shm_reader *a = hw_shm_reader_open(path, f->err, sizeof(f->err));
	struct hw_shm_reader *b = hw_shm_reader_open(path, f->err, sizeof(f->err));
	const struct hw_record *r;
	assert_int_equal(hw_shm_reader_next(a, &r, 512, 0, f->err, sizeof(f->err)), 0);
	assert_int_equal(hw_shm_reader_next(b, &r, 512, 0, f->err, sizeof(f->err)), -1);
	if (!strstr(f->err, path) || !strstr(f->err, "another analyzer is reading it"))
		fail_msg("message: %s", f->err);
	f->err[0] = 0;
	/* tried again after a second, the same refusal: not said twice */
	assert_int_equal(hw_shm_reader_next(b, &r, 512, 1200, f->err, sizeof(f->err)), 0);
	assert_string_equal(f->err, "");
	hw_shm_reader_close(a);
	hw_shm_reader_close(b);
	hw_shm_writer_close(w, 0, NULL);
}

/* A file whose header names another record layout, and one that is not a ring file at all: refused, saying
 * why, never mapped as records. */
static void foreign_files_refused(void **state)
{
	struct sink_fx *f = *state;
	struct hw_shm_writer *w = writer(f, 1, 2, 0);
	char tmp[450];
	snprintf(tmp, sizeof(tmp), "%s.copy", path);
	FILE *in = fopen(path, "rb"), *out = fopen(tmp, "wb");
	struct hw_shm_header h;
	assert_int_equal(fread(&h, sizeof(h), 1, in), 1);
	h.record_size = 140; /* a build with another record layout */
	assert_int_equal(fwrite(&h, sizeof(h), 1, out), 1);
	char buf[4096];
	size_t n;
	fseek(in, sizeof(h), SEEK_SET);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
	hw_shm_writer_close(w, 0, NULL);
	assert_int_equal(rename(tmp, path), 0);
	struct hw_shm_reader *rd = hw_shm_reader_open(path, f->err, sizeof(f->err));
	const struct hw_record *r;
	assert_int_equal(hw_shm_reader_next(rd, &r, 512, 0, f->err, sizeof(f->err)), -1);
	if (!strstr(f->err, "record layout is not this analyzer's"))
		fail_msg("message: %s", f->err);
	hw_shm_reader_close(rd);

	out = fopen(path, "wb");
	fputs("not a ring\n", out);
	fclose(out);
	rd = hw_shm_reader_open(path, f->err, sizeof(f->err));
	assert_int_equal(hw_shm_reader_next(rd, &r, 512, 0, f->err, sizeof(f->err)), -1);
	if (!strstr(f->err, "not a hopwatch collector's shared stream"))
		fail_msg("message: %s", f->err);
	hw_shm_reader_close(rd);
	unlink(path);
}

struct sleeper {
	uint32_t *bell;
	double slept_s;
};

static void *sleep_on_bell(void *arg)
{
	struct sleeper *z = arg;
	struct timespec t0, t1, limit = {5, 0};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (__atomic_load_n(z->bell, __ATOMIC_ACQUIRE) == 1) /* as the reader sleeps (stream_shm.c) */
		if (syscall(SYS_futex, z->bell, FUTEX_WAIT, 1, &limit, NULL, 0) && errno == ETIMEDOUT)
			break;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	z->slept_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return NULL;
}

/* A publish wakes a reader asleep on the file's bell: the sleeper (a 5 s limit) is back within 2 s of a publish
 * made 200 ms after it went to sleep, and the bell is down.  A publish without the wake would leave it asleep
 * for the whole 5 s. */
static void publish_wakes_sleeper(void **state)
{
	struct sink_fx *f = *state;
	struct hw_shm_writer *w = writer(f, 1, 2, 0);
	struct hw_batch_ring ring;
	hw_shm_writer_ring(w, 0, &ring);
	struct sleeper z = {ring.bell, 0};
	__atomic_store_n(ring.bell, 1, __ATOMIC_SEQ_CST);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, sleep_on_bell, &z), 0);
	struct timespec ts = {0, 200000000};
	nanosleep(&ts, NULL);
	publish(&ring, 7, 1);
	pthread_join(t, NULL);
	if (z.slept_s > 2)
		fail_msg("the sleeper slept %.3f s after a publish at 0.2 s", z.slept_s);
	assert_int_equal(__atomic_load_n(ring.bell, __ATOMIC_RELAXED), 0);
	hw_shm_writer_close(w, 0, NULL);
}

struct slow_reader {
	struct hw_shm_reader *rd;
	int got, wrong; /* records read after the first, and how many of them were not the record expected */
	char err[320];
};

/* Takes records 41 .. 45 one every 150 ms, then leaves 150 ms later (giving the last batch back). */
static void *read_slowly(void *arg)
{
	struct slow_reader *z = arg;
	const struct timespec gap = {0, 150000000};
	for (uint32_t seed = 41; seed <= 45; seed++) {
		nanosleep(&gap, NULL);
		const struct hw_record *r = NULL;
		if (hw_shm_reader_next(z->rd, &r, 512, 2000, z->err, sizeof(z->err)) != 1)
			break;
		struct hw_record want;
		rec_fill(&want, seed);
		z->wrong += memcmp(r, &want, sizeof(want)) != 0;
		z->got++;
	}
	nanosleep(&gap, NULL);
	hw_shm_reader_close(z->rd);
	return NULL;
}

/* The exit wait follows the reader: six batches of one record (40 .. 45), the first taken at once and the
 * others one every 150 ms, the last given back 150 ms after it is read (about 0.9 s in all).  All six are taken
 * when hw_shm_writer_close(w, 400, NULL) returns, because its 400 ms count from the reader's last take: it returns 0.
 * A wait of 400 ms in all would have returned 4: by then only 40 and 41 are given back (a batch goes back when
 * the next one is read: 40 at 150 ms, 41 at 300 ms, 42 at 450 ms). */
static void exit_wait_follows_reader(void **state)
{
	struct sink_fx *f = *state;
	struct hw_shm_writer *w = writer(f, 1, 8, 0);
	struct hw_batch_ring ring;
	hw_shm_writer_ring(w, 0, &ring);
	for (uint32_t i = 0; i < 6; i++)
		publish(&ring, 40 + i, 1);
	struct slow_reader z = {0};
	z.rd = hw_shm_reader_open(path, f->err, sizeof(f->err));
	assert_non_null(z.rd);
	expect(z.rd, f, 512, 40, 1); /* attached: the rings have their consumer before close looks */
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, read_slowly, &z), 0);
	uint64_t taken = 0;
	uint64_t left = hw_shm_writer_close(w, 400, &taken);
	pthread_join(t, NULL);
	if (z.got != 5 || z.wrong)
		fail_msg("the slow reader read %d of 5 records, %d of them wrong (%s)", z.got, z.wrong, z.err);
	assert_int_equal(left, 0);
	assert_int_equal(taken, 6); /* the six records published, each given back */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(rings_in_turn, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(follows_path, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(untaken_and_lossless, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(probe, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(second_reader_refused, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(foreign_files_refused, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(publish_wakes_sleeper, setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(exit_wait_follows_reader, setup, sink_fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
