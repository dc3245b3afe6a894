/* hopwatch-records: print binary record files (hopwatch-collector --records-dir) or the collector's
 * live stream (--stream) as the JSON lines of docs/records.md. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "hopwatch/record_file.h"
#include "hopwatch/record_json.h"
#include "hopwatch/stream.h"

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Receive stream batches until SIGINT/SIGTERM, `idle` seconds without a batch, or `want` records. */
static int listen_stream(const char *addr, double idle, unsigned long long want)
{
	static struct hw_record recs[HW_STREAM_MAX_BATCH];
	char line[HW_RECORD_JSON_MAX], err[512];
	struct hw_stream_listener *l = hw_stream_listen(addr, err, sizeof(err));
	if (!l) {
		fprintf(stderr, "hopwatch-records: %s\n", err);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "listening on %s\n", hw_stream_listener_address(l));
	unsigned long long total = 0, batches = 0, bad = 0;
	uint64_t last = hw_mono_ns();
	while (!stop && (!want || total < want)) {
		long n = hw_stream_receive(l, recs, 100, err, sizeof(err));
		uint64_t now = hw_mono_ns();
		if (n < 0) {
			fprintf(stderr, "hopwatch-records: %s\n", err);
			bad++;
			continue;
		}
		if (n == 0) {
			if (idle > 0 && (double)(now - last) / 1e9 >= idle)
				break;
			continue;
		}
		last = now;
		batches++;
		for (long k = 0; k < n; k++)
			fwrite(line, 1, hw_record_json(&recs[k], line), stdout);
		total += (unsigned long long)n;
		fflush(stdout);
	}
	hw_stream_listener_close(l);
	fprintf(stderr, "stream_records %llu\nstream_batches %llu\nstream_bad_frames %llu\n", total, batches, bad);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: hopwatch-records FILE.hwr...\n"
	           "       hopwatch-records --listen unix:PATH|tcp:HOST:PORT [--idle SECONDS] [--count N]\n"
	           "Prints every record of the given record files, in order, as JSON lines (docs/records.md) on\n"
	           "standard output, and the number of records per file on standard error.  With --listen it\n"
	           "receives the collector's live stream (hopwatch-collector --stream) instead, until SIGINT or\n"
	           "SIGTERM, SECONDS without a batch, or N records.\n"
	           "Exit status: 0 ok, 1 a file could not be read or is not a record file, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--listen")) {
		double idle = 0;
		unsigned long long want = 0;
		if (argc < 3) {
			usage(stderr);
			return 2;
		}
		for (int i = 3; i < argc; i += 2) {
			char *end;
			if (i + 1 >= argc || (strcmp(argv[i], "--idle") && strcmp(argv[i], "--count"))) {
				fprintf(stderr, "hopwatch-records: unexpected argument '%s' (see --help)\n", argv[i]);
				return 2;
			}
			if (!strcmp(argv[i], "--idle"))
				idle = strtod(argv[i + 1], &end);
			else
				want = strtoull(argv[i + 1], &end, 10);
			if (*end || end == argv[i + 1]) {
				fprintf(stderr, "hopwatch-records: %s: '%s' is not a number\n", argv[i], argv[i + 1]);
				return 2;
			}
		}
		return listen_stream(argv[2], idle, want);
	}
	static struct hw_record recs[4096];
	char line[HW_RECORD_JSON_MAX], err[512];
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct hw_record_reader *r = hw_record_reader_open(argv[i], err, sizeof(err));
		if (!r) {
			fprintf(stderr, "hopwatch-records: %s\n", err);
			rc = 1;
			continue;
		}
		unsigned long long total = 0;
		long n;
		while ((n = hw_record_reader_read(r, recs, 4096, err, sizeof(err))) > 0) {
			for (long k = 0; k < n; k++)
				fwrite(line, 1, hw_record_json(&recs[k], line), stdout);
			total += (unsigned long long)n;
		}
		if (n < 0) {
			fprintf(stderr, "hopwatch-records: %s\n", err);
			rc = 1;
		}
		hw_record_reader_close(r);
		fprintf(stderr, "%s %llu\n", argv[i], total);
	}
	if (fflush(stdout)) {
		perror("hopwatch-records: standard output");
		rc = 1;
	}
	return rc;
}
