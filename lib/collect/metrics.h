/* Prometheus exposition of the collector: its own counters and the per-(node, port, queue) figures
 * in base units, rendered from the workers' state on every scrape (served by hopwatch/metrics_http.h). */
#ifndef HOPWATCH_METRICS_H
#define HOPWATCH_METRICS_H

#include <stddef.h>
#include <stdio.h>

struct hw_collector;

/* Write the exposition text (format 0.0.4) for the collector's current state to f. */
void hw_metrics_render(const struct hw_collector *c, FILE *f);
/* Distinct (node, port, queue) keys over all workers (a key seen by two workers counts once). */
size_t hw_collector_distinct_queues(const struct hw_collector *c);

#endif
