/* Alert delivery off the detection path: a sink owns a thread that POSTs events to Alertmanager
 * (API v2) or to a webhook in Alertmanager's webhook format (version 4) with libcurl.  Pushing never blocks on the
 * network; while the peer is down alerts wait in a bounded table and are delivered when it returns. */
#ifndef HOPWATCH_ALERT_SINK_H
#define HOPWATCH_ALERT_SINK_H

#include <stdint.h>

#include "hopwatch/analyzer.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hw_sink_kind {
	HW_SINK_ALERTMANAGER, /* POST URL/api/v2/alerts, a JSON array of alerts */
	HW_SINK_WEBHOOK,      /* POST URL, Alertmanager's webhook JSON (version "4"): one post per notification */
};

#define HW_ALERT_MIN_VISIBLE_NS 30000000000ull /* default minimum visible time: 30 s */
/* A new alert is first posted this long after it was handed over, so that the updates following its raise
 * (an incast's sources doubling within milliseconds) go out with it. */
#define HW_ALERT_SETTLE_NS 50000000ull
/* ... and this long when it started more than that before the wall clock (a replay of older records):
 * Alertmanager flushes a new group at once for such an alert (its group_wait, 1 s in the shipped route,
 * is over), with what the post brought, so the sink waits as group_wait would for the rest of the
 * incident (an incast's own alert comes after its tree's).  A post goes out when the oldest new alert's
 * wait is over, with every alert waiting then. */
#define HW_ALERT_REPLAY_WAIT_NS 1000000000ull
/* The "incident" label (what Alertmanager groups a notification by): an alert of a detector incident
 * (hw_an_event.incident) already labelled keeps that label; any other alert joins an incident raised
 * within this record time of it whose footprint it touches (a switch at its place or at its link's far end,
 * or a flow, that the incident's alerts named): one holding its own switch first, then the most recently
 * raised; one with no place and no flow joins the most recent within this time; else it starts a new one,
 * named by its raise's UTC time to the millisecond (-2, -3 ... after a name an open incident has). */
#define HW_ALERT_INCIDENT_GAP_NS 1000000000ull
#define HW_ALERT_INCIDENT_MAP 256 /* detector incidents whose label is remembered (the newest) */
#define HW_ALERT_INCIDENT_OPEN 16 /* incidents whose footprint is kept (the newest): those an alert may join */
#define HW_ALERT_FOOTPRINT 64     /* switches and flows an open incident remembers of each (the newest) */

struct hw_alert_sink_opts {
	uint32_t capacity;        /* bounds both the hand-off queue and the table of alerts waiting or active */
	uint64_t resend_ns;       /* Alertmanager: re-send active alerts this often (wall clock); 0 = 60 s */
	uint64_t min_visible_ns;  /* an alert stays firing at least this long after it was handed over (wall
	                           * clock), its resolve held back until then; fabric episodes last milliseconds */
	const char *external_url; /* base URL of the analyzer's HTTP server: generatorURL, graph_url; NULL = none */
};

struct hw_alert_sink;

/* Start a sink (o: see struct hw_alert_sink_opts); NULL with a message naming url in err. */
struct hw_alert_sink *hw_alert_sink_start(enum hw_sink_kind kind, const char *url, const struct hw_alert_sink_opts *o,
                                          char *err, size_t errlen);
/* Hand an event over (copy), with its graph's file svg (the "svg" annotation; NULL or "" = none).  Never
 * blocks on the network; when the queue is full the event is dropped and counted.  Returns 1 queued, 0
 * dropped. */
int hw_alert_sink_push(struct hw_alert_sink *s, const struct hw_an_event *e, const char *svg);
/* Wait up to timeout_ms for everything handed over to be delivered, resolves held back for the minimum
 * visible time included (they are let go at once), and for the thread's round in progress (a batch it took,
 * a POST in flight) to be counted; 1 when all was delivered. */
int hw_alert_sink_drain(struct hw_alert_sink *s, int timeout_ms);
/* At exit: drain (timeout_ms), then stop the thread after its round in progress (a POST in flight ends
 * within the HTTP timeout, 2 s) and count the alerts never delivered, those still handed over or waiting
 * (stats undelivered).  Returns that count, 0 when everything was delivered.  Later pushes are dropped. */
uint64_t hw_alert_sink_finish(struct hw_alert_sink *s, int timeout_ms);

struct hw_alert_sink_stats {
	uint64_t pushed, dropped, sent_alerts, posts_ok, posts_failed;
	uint64_t undelivered;     /* alerts never delivered, counted by hw_alert_sink_finish (0 before) */
	uint32_t waiting, active; /* waiting: handed over or in the table, not delivered yet; active: firing, or
	                           * resolved but still within the minimum visible time */
};
void hw_alert_sink_stats(struct hw_alert_sink *s, struct hw_alert_sink_stats *st);
/* Stop the thread (one last attempt to deliver is not made; call drain first) and free. */
void hw_alert_sink_stop(struct hw_alert_sink *s);

#ifdef __cplusplus
}
#endif
#endif
