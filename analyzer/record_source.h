/* Where `hopwatch-analyzer run` gets its records: one interface (next batch, close) with one
 * implementation per source (record files, JSON lines, ClickHouse, the collector's live stream). */
#ifndef HOPWATCH_RECORD_SOURCE_H
#define HOPWATCH_RECORD_SOURCE_H

#include <signal.h>
#include <stddef.h>

#include "hopwatch/record.h"
#include "records_clickhouse.h"

/* Records a file source decodes per batch: 512 records (68 KiB) are still in the core's caches when the
 * analyzer reads them right after; HW_STREAM_MAX_BATCH (557 KiB) were not, and cost 2 % more CPU in all
 * (docs/performance.md, round 24). */
#define HW_SRC_FILE_BATCH 512

/* What next() returns besides a record count. */
enum { HW_SRC_END = -1, HW_SRC_ERROR = -2 };

struct record_source;

struct record_source_ops {
	/* The next batch: *r points at n > 0 records (the source's, valid until the next call); 0: none
	 * this time (a live source's quiet turn, about 100 ms); HW_SRC_END: the input is over;
	 * HW_SRC_ERROR: the message, naming the input, in err (a live source goes on after it). */
	long (*next)(struct record_source *s, const struct hw_record **r, char *err, size_t errlen);
	void (*close)(struct record_source *s);
	/* Optional (NULL: next() only): the same as next(), but the records go into buf (cap of them, at least
	 * HW_STREAM_MAX_BATCH), not into the source's own buffer; the reader thread reads into its slots so. */
	long (*next_into)(struct record_source *s, struct hw_record *buf, size_t cap, char *err, size_t errlen);
};

/* Every source starts with this. */
struct record_source {
	const struct record_source_ops *ops;
	const char *name; /* the option it comes from: "--records", "--json", "--clickhouse", "--stream" */
	int live;         /* records as they happen: never paced; record time goes on while quiet */
};

/* Each returns NULL with a message naming the input in err.  Files are opened in turn by next(). */
struct record_source *hw_source_files(const char *const *paths, int n, char *err, size_t errlen);
/* Stops reading (next() returns HW_SRC_END) once *stop is set, between lines. */
struct record_source *hw_source_jsonl(const char *const *paths, int n, const volatile sig_atomic_t *stop, char *err,
                                      size_t errlen);
/* The query runs on a thread of its own that hands batches over. */
struct record_source *hw_source_clickhouse(const struct hw_ch_replay *q, char *err, size_t errlen);
/* Listens at once ("listening on ADDR" on stderr unless quiet); over after duration_s (0: never). */
struct record_source *hw_source_stream(const char *addr, const char *key_path, double duration_s, int quiet, char *err,
                                       size_t errlen);
/* The shared file of a collector's --stream shm:PATH on this host, followed as collectors come and go; records
 * are taken in place (HW_SRC_FILE_BATCH at a time).  "waiting for shm:PATH" on stderr unless quiet; over after
 * duration_s (0: never). */
struct record_source *hw_source_shm(const char *path, double duration_s, int quiet, char *err, size_t errlen);
/* in read on a thread of its own, a few batches ahead (run --threads 2); closing the result closes in.  NULL
 * with a message in err (in closed) when the thread cannot start.  For sources whose next() returns within
 * a short while (the reader only sees a stop between calls). */
struct record_source *hw_source_thread(struct record_source *in, char *err, size_t errlen);

#endif
