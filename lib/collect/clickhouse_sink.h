/* The ClickHouse sink: per-hop records go to a ClickHouse table over HTTP (RowBinary, libcurl) from
 * its own thread, through a bounded queue, so the collector's sink thread never waits on ClickHouse. */
#ifndef HOPWATCH_CLICKHOUSE_SINK_H
#define HOPWATCH_CLICKHOUSE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"
#include "hopwatch/record_rowbinary.h"

/* The most replica URLs one sink fails over between. */
#define HW_CH_URLS_MAX 8

struct hw_ch_sink_opts {
	/* The replicas of one shard, tried in this order: url (may be NULL when urls are given), then
	 * urls[0..n_urls-1].  Each is http://HOST:PORT/[?database=DB&user=U...], or several of those
	 * separated by commas ("http://a:8123/,http://b:8123/"). */
	const char *url;
	const char *const *urls;
	unsigned n_urls;
	const char *table;      /* table to insert into (default "hops") */
	uint32_t batch_records; /* send when this many records are queued ... */
	uint32_t batch_ms;      /* ... or the oldest unsent record is this old */
	uint32_t queue_records; /* bound of the queue (sent-but-unacknowledged records included) */
	double drain_s;         /* at close: how long to keep trying to deliver what is queued */
	double failback_s;      /* after a failover, try the first replica again this long later (0: 30 s) */
	/* Lossless (offline input, --lossless): put waits for room instead of dropping, until *stop
	 * becomes non-zero (a signal); NULL = drop when the queue is full. */
	volatile int *lossless_stop;
};

/* Counters, readable from any thread at any time. */
struct hw_ch_sink_counts {
	uint64_t inserted; /* records ClickHouse acknowledged (HTTP 200) */
	uint64_t dropped;  /* records refused because the queue was full, or still queued at close */
	uint64_t retries;  /* failed insert attempts (each is retried after a backoff) */
	uint64_t queued;   /* records in the queue now */
	uint64_t batches;  /* acknowledged inserts */
	/* inserts re-sent to the next replica because one failed; the batch goes there unchanged, so a
	 * replica that stored it before failing makes ReplicatedMergeTree's block deduplication drop the
	 * copy (docs/operations.md "Replicated ClickHouse") */
	uint64_t failovers;
};

struct hw_ch_sink;

/* Start the sender thread.  Does not contact ClickHouse (it may come up later).  NULL with a
 * message naming the URL in err. */
struct hw_ch_sink *hw_ch_sink_open(const struct hw_ch_sink_opts *o, char *err, size_t errlen);
/* Queue n records.  Never blocks on ClickHouse: records that do not fit are counted as dropped
 * (unless lossless_stop is set: then it waits for room). */
void hw_ch_sink_put(struct hw_ch_sink *s, const struct hw_record *recs, uint32_t n);
void hw_ch_sink_counts(const struct hw_ch_sink *s, struct hw_ch_sink_counts *out);
/* "clickhouse URL" of the first replica whose inserts fail now, else NULL (any thread). */
const char *hw_ch_sink_down(const struct hw_ch_sink *s);
/* Send what is queued (for up to drain_s), stop the thread, free.  Final counts go to out. */
void hw_ch_sink_close(struct hw_ch_sink *s, struct hw_ch_sink_counts *out);

#endif
