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
#include "options.h"
#include "stream_shm.h"

static volatile sig_atomic_t stop;
static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Receive stream batches until SIGINT/SIGTERM, `idle` seconds without a batch, or `want` records. */
static int listen_stream(const char *addr, const char *key_path, double idle, unsigned long long want)
{
	static struct hw_record buf[HW_STREAM_MAX_BATCH];
	char line[HW_RECORD_JSON_MAX], err[512];
	const char *shm = hw_shm_path(addr);
	struct hw_shm_reader *sr = NULL;
	struct hw_stream_listener *l = NULL;
	if (shm ? !(sr = hw_shm_reader_open(shm, err, sizeof(err)))
	        : !(l = hw_stream_listen_keyed(addr, key_path, err, sizeof(err)))) {
		fprintf(stderr, "hopwatch-records: %s\n", err);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "listening on %s\n", l ? hw_stream_listener_address(l) : addr);
	unsigned long long total = 0, batches = 0, bad = 0;
	uint64_t last = hw_mono_ns();
	while (!stop && (!want || total < want)) {
		const struct hw_record *recs = buf; /* shm: in place in the collector's ring */
		long n = sr ? hw_shm_reader_next(sr, &recs, HW_STREAM_MAX_BATCH, 100, err, sizeof(err))
		            : hw_stream_receive(l, buf, 100, err, sizeof(err));
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
	hw_shm_reader_close(sr);
	fprintf(stderr, "stream_records %llu\nstream_batches %llu\nstream_bad_frames %llu\n", total, batches, bad);
	return 0;
}

struct opts {
	const char *listen, *stream_key;
	double idle;
	unsigned long long count;
};

#define O struct opts

static const struct hw_opt rows[] = {
    {HW_OPT_ADDR, "listen", .metavar = "ADDR", HW_OPT_AT(O, listen), .addr = HW_ADDR_STREAM_SHM,
     .help = "receive the collector's live stream (hopwatch-collector --stream): unix:PATH or tcp:HOST:PORT;\n"
             "shm:PATH takes the analyzer's place as the file's one reader"},
    {HW_OPT_STRING, "stream-key", .metavar = "FILE", HW_OPT_AT(O, stream_key),
     .help = "with --listen: take only batches authenticated with this shared key (the collector's --stream-key)"},
    {HW_OPT_DURATION, "idle", .metavar = "SECONDS", HW_OPT_AT(O, idle), .hi = 1e9, .def = "0",
     .help = "with --listen: stop after SECONDS without a batch (0 = never)"},
    {HW_OPT_UINT, "count", .metavar = "N", HW_OPT_AT(O, count), .hi = 1e19, .def = "0",
     .help = "with --listen: stop after N records (0 = no limit)"},
    {HW_OPT_END},
};

static const struct hw_opts_spec spec = {
    .prog = "hopwatch-records",
    .synopsis = "Usage: hopwatch-records FILE.hwr...\n"
                "       hopwatch-records --listen unix:PATH|tcp:HOST:PORT|shm:PATH [--idle SECONDS] [--count N]\n",
    .intro = "Prints every record of the given record files, in order, as JSON lines (docs/records.md) on\n"
             "standard output, and the number of records per file on standard error.  With --listen it\n"
             "receives the collector's live stream (hopwatch-collector --stream) instead, until SIGINT or\n"
             "SIGTERM, SECONDS without a batch, or N records.\n",
    .epilog = "Exit status: 0 ok, 1 a file could not be read or is not a record file, 2 bad usage.\n",
    .rows = rows,
    .max_args = -1,
};

int main(int argc, char **argv)
{
	struct opts o = {0};
	int first = 1, rc = hw_opts_defaults(&spec, &o);
	if (!rc)
		rc = hw_opts_parse(&spec, &o, argc, argv, &first);
	if (rc)
		return rc == HW_OPTS_HELP ? 0 : 2;
	if (o.listen) {
		if (first < argc) {
			fprintf(stderr, "hopwatch-records: --listen takes no record files ('%s') (see --help)\n",
			        argv[first]);
			return 2;
		}
		if (hw_shm_key_conflict(o.listen, o.stream_key)) {
			fprintf(stderr, "hopwatch-records: %s\n", hw_shm_key_conflict(o.listen, o.stream_key));
			return 2;
		}
		return listen_stream(o.listen, o.stream_key, o.idle, o.count);
	}
	if (first == argc) {
		fprintf(stderr, "hopwatch-records: give record files or --listen ADDR (see hopwatch-records --help)\n");
		return 2;
	}
	static struct hw_record recs[4096];
	char line[HW_RECORD_JSON_MAX], err[512];
	for (int i = first; i < argc; i++) {
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
