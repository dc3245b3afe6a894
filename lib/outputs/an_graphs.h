/* Congestion-path graphs of `hopwatch-analyzer run --svg-dir`: one SVG per raised congestion event (rate
 * limited), a periodic fabric heat map, files named by time and event, the newest under a stable name. */
#ifndef HOPWATCH_AN_GRAPHS_H
#define HOPWATCH_AN_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "an_render.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/topo.h"

struct an_graphs_opts {
	const char *dir;   /* created when missing */
	double every_s;    /* heat map and latency matrix every this many seconds of record time (run_cli's
	                    * schedule); 0 = only at the end */
	double rate;       /* event SVGs per second of record time per alertname (burst the same, at least 1);
	                      0 = no limit */
	unsigned keep;     /* timestamped files kept per kind (event, heat map) from this run; 0 = all */
	unsigned full_max; /* draw the whole topology when it has at most this many nodes */
	int wait;          /* replays: wait for the rendering thread instead of skipping (deterministic output) */
};

struct an_graphs_stats {
	uint64_t events;   /* event SVGs written */
	uint64_t skipped;  /* raises not drawn: over the rate, or busy */
	uint64_t busy;     /* graphs not drawn because 16 were already waiting for the rendering thread */
	uint64_t heatmaps; /* heat maps written */
	uint64_t failed;   /* SVGs that could not be rendered or written */
	uint64_t removed;  /* older files removed to keep `keep` */
	double draw_s;     /* time the rendering thread spent on these in Graphviz and writing files (monotonic) */
};

struct an_graphs;

/* Graphs drawn by the rendering thread r (the only user of Graphviz).  t (the analyzer's topology) must
 * outlive the graphs.  NULL with a message on error (the directory). */
struct an_graphs *an_graphs_start(const struct an_graphs_opts *o, const struct hw_topo *t, struct an_render *r,
                                  char *err, size_t errlen);
void an_graphs_stop(struct an_graphs *g);

/* Before an event goes out: for a raised congestion event within the rate, set e->svg to the file it will
 * be drawn into and return 1 (then call an_graphs_draw_event once it is handed over); for a resolve, set
 * e->svg to its raise's file (so an alert keeps its annotation); else 0. */
int an_graphs_name(struct an_graphs *g, const struct hw_analyzer *a, struct hw_an_event *e);
/* Prepare the graph of the event named by an_graphs_name from the analyzer's state now (the overlay,
 * no Graphviz) and hand it to the rendering thread, which draws it into e->svg and DIR/event-latest.svg.
 * At most 16 graphs wait: beyond, an_graphs_name skips the raise (live: detection never waits for
 * Graphviz) or, with opts.wait (replays), waits for room. */
void an_graphs_draw_event(struct an_graphs *g, const struct hw_analyzer *a, const struct hw_an_event *e);
/* Wait until every graph handed over is drawn. */
void an_graphs_flush(struct an_graphs *g);
/* The heat map now, DIR/heatmap-<record time ns>.svg and DIR/heatmap.svg (the caller keeps the
 * --svg-every schedule); skipped when 16 graphs wait, unless opts.wait. */
void an_graphs_heatmap_now(struct an_graphs *g, const struct hw_analyzer *a);
/* The heat map now (end of input; waits for room), DIR/heatmap-<record time ns>.svg and DIR/heatmap.svg,
 * then flush. */
void an_graphs_heatmap(struct an_graphs *g, const struct hw_analyzer *a);
void an_graphs_stats(struct an_graphs *g, struct an_graphs_stats *s);

#endif
