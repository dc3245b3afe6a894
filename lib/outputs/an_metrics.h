/* The analyzer's own /metrics (Prometheus text format): a snapshot the run loop refreshes and a
 * libmicrohttpd server that renders it, so scrapes never touch the detectors' state. */
#ifndef HOPWATCH_AN_METRICS_H
#define HOPWATCH_AN_METRICS_H

#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"

struct an_metrics;

/* Listen on HOST:PORT.  topo (may be NULL) names the links; it must not change while serving. */
struct an_metrics *an_metrics_start(const char *addr, const struct hw_topo *topo, char *err, size_t errlen);
/* Refresh the snapshot from the analyzer and the sinks (either sink may be NULL). */
void an_metrics_update(struct an_metrics *m, const struct hw_analyzer *a, struct hw_alert_sink *am,
                       struct hw_alert_sink *webhook);
void an_metrics_stop(struct an_metrics *m);

#endif
