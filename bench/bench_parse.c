/* Parse benchmark: loads capture files into memory and parses their frames over and over on one
 * core, printing reports/s and records/s per input as JSON (median of several timed runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "hopwatch/pcap_input.h"
#include "hopwatch/wire.h"

struct batch {
	uint8_t *bytes;
	size_t used, cap;
	size_t *off, *len;
	size_t n, ncap;
};

static void add_frame(void *arg, const uint8_t *frame, size_t len, uint64_t t)
{
	(void)t;
	struct batch *b = arg;
	if (b->used + len > b->cap) {
		b->cap = (b->cap + len) * 2;
		b->bytes = realloc(b->bytes, b->cap);
	}
	if (b->n == b->ncap) {
		b->ncap = b->ncap ? b->ncap * 2 : 1024;
		b->off = realloc(b->off, b->ncap * sizeof(size_t));
		b->len = realloc(b->len, b->ncap * sizeof(size_t));
	}
	if (!b->bytes || !b->off || !b->len) {
		fprintf(stderr, "bench_parse: out of memory\n");
		exit(1);
	}
	memcpy(b->bytes + b->used, frame, len);
	b->off[b->n] = b->used;
	b->len[b->n++] = len;
	b->used += len;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
		        "Usage: bench_parse [--runs N] [--min-reports N] LABEL=FILE.pcap...\n"
		        "Parses every frame of each capture repeatedly (warm, in memory, one core) and prints\n"
		        "one JSON object per input: reports/s and records/s, median of N runs (default 5).\n");
		return argc < 2 ? 2 : 0;
	}
	int runs = 5;
	double min_reports = 2e7;
	int i = 1;
	for (; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (i + 1 >= argc) {
			fprintf(stderr, "bench_parse: %s needs a value\n", argv[i]);
			return 2;
		}
		if (!strcmp(argv[i], "--runs"))
			runs = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--min-reports"))
			min_reports = atof(argv[i + 1]);
		else {
			fprintf(stderr, "bench_parse: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (runs < 1 || runs > 101 || min_reports < 1) {
		fprintf(stderr, "bench_parse: --runs must be 1-101 and --min-reports positive\n");
		return 2;
	}
	static struct hw_record recs[1024];
	static struct hw_report reps[256];
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	printf("[\n");
	for (int a = i; a < argc; a++) {
		char *eq = strchr(argv[a], '=');
		const char *label = argv[a], *path = eq ? eq + 1 : argv[a];
		if (eq)
			*eq = 0;
		struct batch b = {0};
		char err[512];
		if (hw_pcap_read_file(path, add_frame, &b, NULL, err, sizeof(err)) || b.n == 0) {
			fprintf(stderr, "bench_parse: %s\n", b.n ? err : "no frames");
			return 1;
		}
		/* One pass to count reports and records per batch pass, and check everything parses. */
		uint64_t reports = 0, records = 0, errors = 0;
		for (size_t k = 0; k < b.n; k++) {
			struct hw_parse_out o = {.recs = recs, .rec_cap = 1024, .reps = reps, .rep_cap = 256};
			if (hw_parse_frame(&cfg, b.bytes + b.off[k], b.len[k], 0, &o) == HW_OK) {
				reports += o.n_reps;
				records += o.n_recs;
			} else {
				errors++;
			}
		}
		uint64_t passes = (uint64_t)(min_reports / (double)(reports ? reports : 1)) + 1;
		double rate[101];
		uint64_t sink = 0;
		for (int r = 0; r < runs; r++) {
			double t0 = hw_mono_s();
			for (uint64_t p = 0; p < passes; p++)
				for (size_t k = 0; k < b.n; k++) {
					struct hw_parse_out o = {
					    .recs = recs, .rec_cap = 1024, .reps = reps, .rep_cap = 256};
					hw_parse_frame(&cfg, b.bytes + b.off[k], b.len[k], p, &o);
					sink += o.n_recs;
				}
			rate[r] = (double)(reports * passes) / (hw_mono_s() - t0);
		}
		qsort(rate, (size_t)runs, sizeof(double), cmp_double);
		double med = rate[runs / 2];
		printf("  {\"input\": \"%s\", \"frames\": %zu, \"reports_per_pass\": %llu, \"records_per_pass\": %llu, "
		       "\"errors_per_pass\": %llu, \"runs\": %d, \"reports_per_s\": %.0f, \"records_per_s\": %.0f, "
		       "\"ns_per_report\": %.2f, \"min_reports_per_s\": %.0f, \"max_reports_per_s\": %.0f, \"check\": "
		       "%llu}%s\n",
		       label, b.n, (unsigned long long)reports, (unsigned long long)records, (unsigned long long)errors,
		       runs, med, med * (double)records / (double)(reports ? reports : 1), 1e9 / med, rate[0],
		       rate[runs - 1], (unsigned long long)(sink & 0xff), a + 1 < argc ? "," : "");
		free(b.bytes);
		free(b.off);
		free(b.len);
	}
	printf("]\n");
	return 0;
}
