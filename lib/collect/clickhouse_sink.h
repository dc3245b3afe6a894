/* The ClickHouse sink: per-hop records go to a ClickHouse table over HTTP (RowBinary, libcurl) from
 * its own thread, through a bounded queue, so the collector's sink thread never waits on ClickHouse. */
#ifndef HOPWATCH_CLICKHOUSE_SINK_H
#define HOPWATCH_CLICKHOUSE_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"
#include "hopwatch/record_rowbinary.h"

struct hw_ch_sink_opts {
	const char *url;        /* http://HOST:PORT/[?database=DB&user=U...] */
	const char *table;      /* table to insert into (default "hops") */
	uint32_t batch_records; /* send when this many records are queued ... */
	uint32_t batch_ms;      /* ... or the oldest unsent record is this old */
	uint32_t queue_records; /* bound of the queue (sent-but-unacknowledged records included) */
	double drain_s;         /* at close: how long to keep trying to deliver what is queued */
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
};

struct hw_ch_sink;

/* Start the sender thread.  Does not contact ClickHouse (it may come up later).  NULL with a
 * message naming the URL in err. */
struct hw_ch_sink *hw_ch_sink_open(const struct hw_ch_sink_opts *o, char *err, size_t errlen);
/* Queue n records.  Never blocks on ClickHouse: records that do not fit are counted as dropped
 * (unless lossless_stop is set: then it waits for room). */
void hw_ch_sink_put(struct hw_ch_sink *s, const struct hw_record *recs, uint32_t n);
void hw_ch_sink_counts(const struct hw_ch_sink *s, struct hw_ch_sink_counts *out);
/* "clickhouse URL" while inserts fail, else NULL (any thread). */
const char *hw_ch_sink_down(const struct hw_ch_sink *s);
/* Send what is queued (for up to drain_s), stop the thread, free.  Final counts go to out. */
void hw_ch_sink_close(struct hw_ch_sink *s, struct hw_ch_sink_counts *out);

#endif
