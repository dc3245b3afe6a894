/* Where `hopwatch-analyzer run` sends what it finds: a table of outputs (events JSON lines, Alertmanager,
 * webhook, /metrics, event graphs, heat map, latency matrix), each behind the same small interface. */
#ifndef HOPWATCH_AN_OUTPUTS_H
#define HOPWATCH_AN_OUTPUTS_H

#include <stdint.h>
#include <stdio.h>

#include "an_graphs.h"
#include "an_render.h"
#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/topo.h"

/* When the table ticks its outputs. */
enum an_tick_kind {
	AN_TICK_BATCH, /* after each batch of input (svg_due: the --svg-every schedule is due) */
	AN_TICK_END,   /* the input ended: final files, flushed */
	AN_TICK_HOLD,  /* about every 0.1 s while --hold keeps the process up */
	AN_TICK_EXIT,  /* before the summary: deliver what waits */
};

struct an_tick {
	enum an_tick_kind kind;
	int svg_due;
};

struct an_output;

/* For outputs that refresh a snapshot: whether tick t refreshes it now, at most every period seconds after
 * batches (monotonic; *next holds the next time), every time at the end and while holding, never at exit. */
int an_tick_refresh(const struct an_tick *t, double *next, double period);

struct an_output_ops {
	/* Before any output sees an event: write the output-side annotation, the event graph's file name, into
	 * svg (AN_GRAPHS_SVG_MAX bytes, "" when there is none); every output's on_event gets it beside e. */
	void (*annotate)(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e, char *svg);
	void (*on_event)(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
	                 const char *svg);
	void (*tick)(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t);
	/* The records just ingested (after hw_an_ingest returned), for outputs that keep their own view of them. */
	void (*records)(struct an_output *o, const struct hw_analyzer *a, const struct hw_record *r, size_t n);
	/* Its part of the end-of-run JSON summary: ",\"name\":{...}" (late: after the analyzer's own). */
	void (*summary)(struct an_output *o, FILE *f);
	int summary_late;
	/* What it could not deliver, counted after AN_TICK_EXIT (dropped or undelivered alerts); NULL = none. */
	uint64_t (*lost)(struct an_output *o);
	void (*close)(struct an_output *o); /* stop and free */
};

/* Every output starts with this. */
struct an_output {
	const struct an_output_ops *ops;
};

/* ---- the outputs; each returns NULL with a message naming the option in err ---- */

/* --events FILE|-: one JSON line per event. */
struct an_output *an_out_events(const char *path, char *err, size_t errlen);
/* --alertmanager URL / --webhook URL (kind); quiet: no "undelivered at exit" line. */
struct an_output *an_out_alerts(enum hw_sink_kind kind, const char *url, const struct hw_alert_sink_opts *so, int quiet,
                                char *err, size_t errlen);
/* The alert sink of an an_out_alerts output, NULL for NULL. */
struct hw_alert_sink *an_out_alert_sink(struct an_output *o);
struct an_metrics_opts {
	const char *addr;                   /* --metrics HOST:PORT */
	const struct hw_topo *topo;         /* NULL: no link scores */
	struct hw_alert_sink *am, *webhook; /* delivery counters; NULL when not given */
	const char *svg_dir;                /* served at /svg/FILE; NULL = none */
	uint64_t min_visible_ns;            /* incidents_active holds a resolved episode this long after its raise */
	const struct an_output *attr;       /* an_out_attr: the identity map's counters; NULL = none */
	double latency_window_s;            /* the latency matrix's windowed gauges: the last this many seconds */
	uint32_t max_series; /* node_info and link_congestion_score: at most this many series each (0 = all) */
};
/* --metrics HOST:PORT: the snapshot refreshed at most every 50 ms. */
struct an_output *an_out_metrics(const struct an_metrics_opts *o, char *err, size_t errlen);
/* --svg-dir DIR: the latency matrix files on the schedule and at the end (DIR created when missing). */
struct an_output *an_out_latency(const char *dir, struct an_render *r, char *err, size_t errlen);
/* --svg-dir DIR with a topology: the congestion graph of each raised congestion event (names them). */
struct an_output *an_out_graphs(const struct an_graphs_opts *o, const struct hw_topo *t, struct an_render *r, char *err,
                                size_t errlen);
/* The fabric heat map of an an_out_graphs output on the schedule and at the end; close it first. */
struct an_output *an_out_heatmap(struct an_output *graphs, char *err, size_t errlen);
struct an_console_opts {
	const char *addr;           /* --http HOST:PORT */
	const struct hw_topo *topo; /* NULL: incidents and queues only, no map */
	const char *svg_dir;        /* served at /svg/FILE; NULL = none */
	struct an_output *attr;     /* run --pods / --ident-map (an_attr.h): jobs per incident, a matrix per job */
};
/* --http HOST:PORT: the live console (/console/, /api/fabric, /api/incidents, /api/queue; console.c). */
struct an_output *an_out_console(const struct an_console_opts *o, char *err, size_t errlen);

/* ---- the table ---- */

#define AN_OUTPUTS_MAX 12

struct an_outputs {
	struct an_output *v[AN_OUTPUTS_MAX];
	unsigned n;
	const struct hw_analyzer *a; /* an_outputs_bind */
	struct an_render *render;    /* started by an_outputs_renderer */
	uint64_t every_ns, next_ns;  /* the --svg-every schedule in record time; 0: off */
	struct an_output *attr;      /* an_out_attr (also in v): names each event's jobs before outputs see it */
};

/* The rendering thread of the table's outputs, started on first call; NULL with a message in err. */
struct an_render *an_outputs_renderer(struct an_outputs *t, char *err, size_t errlen);
/* Add o (NULL is ignored) at the end: events reach outputs in the order they were added. */
void an_outputs_add(struct an_outputs *t, struct an_output *o);
/* The analyzer's hw_an_emit_fn (ctx: the table): annotate the event, then hand it and its annotation to every
 * output. */
void an_outputs_emit(void *ctx, const struct hw_an_event *ev);
/* The analyzer of an_outputs_emit's events (set before the first event). */
void an_outputs_bind(struct an_outputs *t, const struct hw_analyzer *a);
/* Hand the records just ingested to every output that takes them. */
void an_outputs_records(struct an_outputs *t, const struct hw_record *r, size_t n);
/* Tick every output; for AN_TICK_BATCH the table decides whether the --svg-every schedule is due. */
void an_outputs_tick(struct an_outputs *t, enum an_tick_kind kind);
void an_outputs_summary(struct an_outputs *t, FILE *f, int late);
/* What the outputs could not deliver (the sum of their lost hooks), after AN_TICK_EXIT: run exits 1 when not 0. */
uint64_t an_outputs_lost(struct an_outputs *t);
/* Close every output (last added first), then stop the rendering thread. */
void an_outputs_close(struct an_outputs *t);

#endif
