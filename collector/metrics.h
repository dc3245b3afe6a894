/* Prometheus exposition of the collector: its own counters and the per-(node, port, queue) figures
 * in base units, rendered from the workers' state on every scrape and served over HTTP. */
#ifndef HOPWATCH_METRICS_H
#define HOPWATCH_METRICS_H

#include <stddef.h>
#include <stdio.h>

struct hw_collector;
struct hw_metrics_server;

/* Write the exposition text (format 0.0.4) for the collector's current state to f. */
void hw_metrics_render(const struct hw_collector *c, FILE *f);
/* Serve GET /metrics on addr ("HOST:PORT").  NULL with a message naming the address in err. */
struct hw_metrics_server *hw_metrics_start(const struct hw_collector *c, const char *addr, char *err, size_t errlen);
void hw_metrics_stop(struct hw_metrics_server *s);
/* Distinct (node, port, queue) keys over all workers (a key seen by two workers counts once). */
size_t hw_collector_distinct_queues(const struct hw_collector *c);

#endif
