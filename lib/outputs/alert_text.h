/* Alert text for people and the label set of an alert: values with units and readable precision, UTC times,
 * the place of an event, its summary and description, its labels and annotations as key/value pairs. */
#ifndef HOPWATCH_ALERT_TEXT_H
#define HOPWATCH_ALERT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/analyzer.h"

/* Bytes with a decimal SI prefix and 2-3 significant digits: 950 B, 1.2 MB, 25 kB. */
void hw_fmt_bytes(double v, char *buf, size_t size);
/* A duration in nanoseconds: 870 ns, 43 µs, 1.5 ms, 12 s. */
void hw_fmt_duration(double ns, char *buf, size_t size);
/* A wall-clock time in UTC to the millisecond: 2026-01-01 00:00:01.234 UTC (hw_utc_fmt). */
void hw_fmt_utc(uint64_t ns, char *buf, size_t size);
/* One of an event's numbers with its unit, chosen by alertname and number name ("1.2 MB", "43 µs", "2.5 %"). */
void hw_fmt_number(const char *alertname, const char *name, double v, char *buf, size_t size);
/* The same with the words that name it, for people: "occupancy 1.2 MB", "reaches the threshold in 43 µs", "21 flows
 * moved" (alert_text.c's table; the name itself, spaces for underscores, when it has no words). */
void hw_fmt_named(const char *alertname, const char *name, double v, char *buf, size_t size);
/* A node id as the collector's node label shows it: the switch id as a dotted quad (10.255.1.1). */
void hw_fmt_node_id(uint32_t id, char *buf, size_t size);

#define HW_ALERT_KV_MAX 32
#define HW_ALERT_VAL_MAX 1024

/* Labels or annotations: key (a string constant or an event's number name) and value, in order. */
struct hw_alert_kv {
	unsigned n;
	struct {
		const char *k;
		char v[HW_ALERT_VAL_MAX];
	} kv[HW_ALERT_KV_MAX];
};

/* The labels of an event: alertname, severity, job, node (the dotted node id, as on the collector's
 * metrics), node_name (topology name), node_id, port, queue, hw_id, link; only those that apply; and
 * incident when not "" (what Alertmanager groups one notification by), and on an incident's cause (rank 0)
 * instance: its place, node:port (a LinkDown: its link).  Stable over the alert's life, so they can be
 * silenced. */
void hw_alert_labels(const struct hw_an_event *e, const char *incident, struct hw_alert_kv *l);

/* An alert's place in its incident's notification: 0 the cause (Incast, LinkDown: these also carry the
 * instance label, which Alertmanager lists first), 1 a CongestionTree (its root queue), 2 the rest. */
int hw_alert_rank(const struct hw_an_event *e);

/* An update u of the firing alert f keeps what f said that u does not: f's numbers u lacks, its detail, what it
 * follows.  What an alert says over its updates, for the alert sink's annotations and the event graph's legend. */
void hw_alert_keep_said(struct hw_an_event *u, const struct hw_an_event *f);
/* The annotations: summary, description, each number (raw, %.17g), event_id, and graph_url (graph_url
 * given and not "") or else svg (the graph's local file, svg not ""). */
void hw_alert_annotations(const struct hw_an_event *e, const char *svg, const char *graph_url, struct hw_alert_kv *a);
/* Where an event is, for people: "leaf1 (10.255.1.1) port Ethernet3 queue 3", "10.255.1.1 port 3", or "the
 * fabric" (and " (reporter hw_id N)" when it names one). */
void hw_alert_place(const struct hw_an_event *e, char *buf, size_t size);
/* The facts an event graph's legend shows, one a line, in the alert's words: "since <UTC>" (", lasted D"
 * when resolved), the event's numbers with units three a line ("occupancy 1.72 MB, threshold 1 MB, ..."),
 * then the detail. */
void hw_alert_graph_facts(const struct hw_an_event *e, char *buf, size_t size);
/* The URL of an event graph file svg under base (an external base URL): base + "/svg/" + svg's file name;
 * "" when either is empty. */
void hw_alert_graph_url(const char *base, const char *svg, char *buf, size_t size);

#endif
