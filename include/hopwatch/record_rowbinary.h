/* ClickHouse RowBinary encoding of per-hop records (the hops table of deploy/clickhouse/schema.sql),
 * shared by the collector's ClickHouse sink, the analyzer's replay and the diagnose checks. */
#ifndef HOPWATCH_RECORD_ROWBINARY_H
#define HOPWATCH_RECORD_ROWBINARY_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

/* The column list of an insert, in RowBinary order: the hw_record field names (docs/records.md), then
 * report_pos.  hw_ch_field_columns: the same without report_pos, what a replay selects. */
extern const char hw_ch_columns[];
extern const char *const hw_ch_field_columns;

/* Encode n records as RowBinary rows of hw_ch_columns into out (n * HW_CH_ROW_MAX bytes at most);
 * returns the bytes written. */
#define HW_CH_ROW_MAX 160u
size_t hw_ch_rowbinary(const struct hw_record *recs, uint32_t n, uint16_t first_pos, uint8_t *out);
/* The column report_pos: 0 for a record that starts a new (time_ns, report_node, hw_id, report_seq),
 * prev_pos + 1 for one that continues prev's.  The hops of the individual reports of one coalesced
 * TR v2.0 packet share all four, so this keeps the collector's order for replays (ORDER BY ...,
 * report_pos). */
uint16_t hw_ch_report_pos(const struct hw_record *prev, uint16_t prev_pos, const struct hw_record *r);

/* Bytes of one RowBinary row of hw_ch_field_columns (each column its field's width). */
#define HW_CH_FIELD_ROW 133u
/* One such row into r.  0, or -1 with what is wrong in why: a value no hops row can hold, which is how a
 * text that is not a row (an error ClickHouse appended to the answer) shows. */
int hw_ch_row_decode(const uint8_t *row, struct hw_record *r, char *why, size_t whylen);

#endif
