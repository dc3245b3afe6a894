/* Per-hop records replayed from ClickHouse (deploy/clickhouse/schema.sql): a time range of the hops table
 * (or the Distributed hops_all) streamed over the HTTP interface and handed on in batches, in time order. */
#ifndef HOPWATCH_RECORDS_CLICKHOUSE_H
#define HOPWATCH_RECORDS_CLICKHOUSE_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

/* What `hopwatch-analyzer run --clickhouse URL [--clickhouse-table T] --from TIME --to TIME` asks for. */
struct hw_ch_replay {
	const char *url;   /* http://HOST:8123/[?database=DB...]; NULL = no ClickHouse input */
	const char *table; /* [database.]table; default "hops" */
	uint64_t from_ns;  /* time_ns >= from_ns */
	uint64_t to_ns;    /* time_ns < to_ns */
	int have_from, have_to;
};

/* A record time: decimal ns since the UNIX epoch, or RFC 3339 (2026-01-01T00:00:00.000113Z, offsets
 * +hh:mm, up to 9 fraction digits).  0, or -1 with what is wrong in err. */
int hw_parse_record_time(const char *s, uint64_t *ns, char *err, size_t errlen);

/* Take one of the options --clickhouse, --table, --from, --to (name without dashes) into q.
 * 0, or -1 with a message naming the option and the value in err. */
int hw_ch_replay_option(struct hw_ch_replay *q, const char *name, const char *value, char *err, size_t errlen);

/* After every option: --from/--to/--clickhouse-table need --clickhouse, and --clickhouse needs both bounds with
 * from < to.  0, or -1 with the message in err. */
int hw_ch_replay_check(const struct hw_ch_replay *q, char *err, size_t errlen);

/* Called with each batch of records (at most the cap given to hw_ch_replay_run), in order of
 * (time_ns, report_node, hw_id, report_seq, hop_index): a report's hops are consecutive.  Return
 * nonzero to stop the replay early. */
typedef int (*hw_ch_batch_fn)(void *ctx, const struct hw_record *r, size_t n);

/* Stream the range: SELECT ... FORMAT RowBinary, decoded row by row as it arrives (memory is buf
 * and one row, whatever the range holds).  Returns the number of records delivered, or -1 with a
 * message naming the URL and table in err (unreachable, HTTP error such as a missing table, an error
 * ClickHouse reported in the middle of the result, a row that does not parse). */
long long hw_ch_replay_run(const struct hw_ch_replay *q, struct hw_record *buf, size_t cap, hw_ch_batch_fn fn,
                           void *ctx, char *err, size_t errlen);

#endif
