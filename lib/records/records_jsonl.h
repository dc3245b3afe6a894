/* Per-hop records from JSON lines (docs/records.md), the analyzer's slower second input: one line is one
 * record; keys set the matching valid bits, as the collector's JSON writer leaves absent what it lacks. */
#ifndef HOPWATCH_RECORDS_JSONL_H
#define HOPWATCH_RECORDS_JSONL_H

#include <stddef.h>

#include "hopwatch/record.h"

/* Parse one line into r.  0, or -1 with a message naming the key in err.  Rows from ClickHouse
 * (records_clickhouse.c) carry every column: there "valid" (an integer) sets the valid bits as they
 * are, and "report_flags" may be the integer bit mask instead of the list of names. */
int hw_record_from_json_line(const char *line, struct hw_record *r, char *err, size_t errlen);

#endif
