/* Record-file sink benchmark: the records of a record file written again and again through the file
 * writer (as the collector's sink thread does, batches of 1,024), compact and fixed encodings alternating,
 * then read back; whole-run reports per CPU-second of the thread, bytes per record, as JSON. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hopwatch/record_file.h"

#define BATCH 1024 /* records per write, as the collector's batch ring (HW_BATCH_RECS) */

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The files of dir named bench-*: their paths (up to max) and total bytes. */
static int list_files(const char *dir, char paths[][600], int max, uint64_t *bytes)
{
	DIR *d = opendir(dir);
	int n = 0;
	*bytes = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "bench-", 6) && n < max) {
			struct stat st;
			snprintf(paths[n], 600, "%s/%s", dir, e->d_name);
			if (!stat(paths[n], &st))
				*bytes += (uint64_t)st.st_size;
			n++;
		}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "Usage: bench_record_file RECORDS.hwr TMPFS_DIR [ROUNDS] [REPORTS_PER_RUN]\n");
		return 2;
	}
	const char *in = argv[1], *dir = argv[2];
	int rounds = argc > 3 ? atoi(argv[3]) : 5;
	double want = argc > 4 ? atof(argv[4]) : 5e6;
	if (rounds < 1 || rounds > 51 || want < 1) {
		fprintf(stderr, "bench_record_file: ROUNDS must be 1-51 and REPORTS_PER_RUN positive\n");
		return 2;
	}
	char err[512];
	struct hw_record_reader *rd = hw_record_reader_open(in, err, sizeof(err));
	if (!rd) {
		fprintf(stderr, "bench_record_file: %s\n", err);
		return 1;
	}
	size_t n = 0, cap = 1 << 16;
	struct hw_record *recs = malloc(cap * sizeof(*recs));
	long got;
	while (recs && (got = hw_record_reader_read(rd, recs + n, cap - n, err, sizeof(err))) > 0) {
		n += (size_t)got;
		if (n == cap)
			recs = realloc(recs, (cap *= 2) * sizeof(*recs));
	}
	hw_record_reader_close(rd);
	size_t reports = 0;
	for (size_t i = 0; recs && i < n; i++)
		reports += recs[i].hop_index == 0;
	if (!recs || !reports) {
		fprintf(stderr, "bench_record_file: %s: no records\n", in);
		return 1;
	}
	size_t passes = (size_t)(want / (double)reports) + 1;
	static char paths[4096][600];
	static struct hw_record back[BATCH];
	const char *names[2] = {"compact", "fixed"};
	double wrate[2][51], wwall[2][51], rrate[2][51], bpr[2] = {0, 0};
	for (int r = 0; r < rounds; r++)
		for (int e = 0; e < 2; e++) { /* alternating: compact, fixed, compact, ... */
			struct hw_record_writer_opts o = {.dir = dir,
			                                  .prefix = "bench",
			                                  .rotate_bytes = 256ull << 20,
			                                  .encoding = e ? HW_RECORD_ENC_FIXED : HW_RECORD_ENC_COMPACT};
			double c0 = thread_cpu_s(), w0 = wall_s();
			struct hw_record_writer *w = hw_record_writer_open(&o, err, sizeof(err));
			for (size_t p = 0; w && p < passes; p++)
				for (size_t i = 0; i < n; i += BATCH)
					if (hw_record_writer_write(w, recs + i, n - i < BATCH ? n - i : BATCH, 0, err,
					                           sizeof(err)))
						goto fail;
			if (!w || hw_record_writer_close(w, err, sizeof(err)))
				goto fail;
			double c1 = thread_cpu_s(), w1 = wall_s();
			wrate[e][r] = (double)(passes * reports) / (c1 - c0);
			wwall[e][r] = (double)(passes * reports) / (w1 - w0);
			uint64_t bytes;
			int nf = list_files(dir, paths, 4096, &bytes);
			bpr[e] = (double)bytes / (double)(passes * n);
			size_t total = 0;
			c0 = thread_cpu_s();
			for (int f = 0; f < nf; f++) {
				struct hw_record_reader *fr = hw_record_reader_open(paths[f], err, sizeof(err));
				if (!fr)
					goto fail;
				while ((got = hw_record_reader_read(fr, back, BATCH, err, sizeof(err))) > 0)
					total += (size_t)got;
				hw_record_reader_close(fr);
				if (got < 0)
					goto fail;
			}
			c1 = thread_cpu_s();
			rrate[e][r] = (double)(passes * reports) / (c1 - c0);
			for (int f = 0; f < nf; f++)
				unlink(paths[f]);
			if (total != passes * n) {
				fprintf(stderr, "bench_record_file: read back %zu of %zu records\n", total, passes * n);
				return 1;
			}
		}
	printf("{\"input\": \"%s\", \"records\": %zu, \"reports\": %zu, \"records_per_report\": %.3f, \"rounds\": %d, "
	       "\"reports_per_run\": %zu",
	       in, n, reports, (double)n / (double)reports, rounds, passes * reports);
	for (int e = 0; e < 2; e++) {
		qsort(wrate[e], (size_t)rounds, sizeof(double), cmp_double);
		qsort(wwall[e], (size_t)rounds, sizeof(double), cmp_double);
		qsort(rrate[e], (size_t)rounds, sizeof(double), cmp_double);
		printf(",\n \"%s\": {\"write_reports_per_cpu_s\": %.0f, \"write_reports_per_s\": %.0f, "
		       "\"read_reports_per_cpu_s\": %.0f, \"bytes_per_record\": %.2f, \"bytes_per_report\": %.1f}",
		       names[e], wrate[e][rounds / 2], wwall[e][rounds / 2], rrate[e][rounds / 2], bpr[e],
		       bpr[e] * (double)n / (double)reports);
	}
	printf(",\n \"fixed_over_compact_bytes\": %.2f}\n", bpr[1] / bpr[0]);
	free(recs);
	return 0;
fail:
	fprintf(stderr, "bench_record_file: %s\n", err);
	return 1;
}
