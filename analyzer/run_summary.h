/* `hopwatch-analyzer run`'s exit summary: a few readable lines on standard error by default, the full
 * JSON object with --summary-json; and the output that counts the raised events by name for it. */
#ifndef HOPWATCH_RUN_SUMMARY_H
#define HOPWATCH_RUN_SUMMARY_H

#include <stdio.h>

#include "an_outputs.h"
#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"

/* Counts every raised event by its alertname (an output of the table). */
struct an_output *run_out_tally(void);

/* The JSON summary, one line: the analyzer's counts, the unplaced (node, port)s, every output's part and the
 * latency matrix. */
void run_summary_json(struct hw_analyzer *a, struct an_outputs *out, FILE *f);

/* The readable lines: records and placement, reports, queues and flows; events raised by name (tally);
 * what the alert sinks (NULL when not given) could not deliver. */
void run_summary_lines(struct hw_analyzer *a, struct an_output *tally, struct hw_alert_sink *am,
                       struct hw_alert_sink *webhook, FILE *f);

#endif
