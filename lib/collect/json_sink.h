/* The collector's JSON-lines output: every record is either written whole to the file or counted as
 * lost (disk full, file gone, reopen failed), never counted written while only buffered. */
#ifndef HOPWATCH_JSON_SINK_H
#define HOPWATCH_JSON_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

struct hw_json_sink;

/* Open path for writing ("-" = standard output; a file is truncated).  NULL with a message in err. */
struct hw_json_sink *hw_json_sink_open(const char *path, char *err, size_t errlen);
/* Buffer n records (written when 1 MiB is buffered).  0, or -1 with a message in err when a write failed
 * (the records it held are counted lost). */
int hw_json_sink_put(struct hw_json_sink *s, const struct hw_record *r, size_t n, char *err, size_t errlen);
/* Write what is buffered.  0, or -1 as hw_json_sink_put. */
int hw_json_sink_flush(struct hw_json_sink *s, char *err, size_t errlen);
/* Log rotation: flush, close and open the path again for appending (a file only).  After a failure the
 * sink counts every record as lost until a later reopen succeeds.  0, or -1 with err. */
int hw_json_sink_reopen(struct hw_json_sink *s, char *err, size_t errlen);
/* Flush and close; s is freed.  0, or -1 with err (the counts were taken before: hw_json_sink_counts). */
int hw_json_sink_close(struct hw_json_sink *s, char *err, size_t errlen);
/* Records whose whole line reached the file, and records lost.  Buffered ones are in neither yet. */
void hw_json_sink_counts(const struct hw_json_sink *s, uint64_t *written, uint64_t *lost);

#endif
