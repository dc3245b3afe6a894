/* Congestion-path graphs of `hopwatch-analyzer run --svg-dir`: one SVG per raised congestion event (rate
 * limited), a periodic fabric heat map, files named by time and event, the newest under a stable name. */
#ifndef HOPWATCH_AN_GRAPHS_H
#define HOPWATCH_AN_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "hopwatch/analyzer.h"
#include "hopwatch/topo.h"

struct an_graphs_opts {
	const char *dir;   /* created when missing */
	double every_s;    /* heat map every this many seconds of record time; 0 = only at the end */
	double rate;       /* event SVGs per second of record time per alertname (burst the same, at least 1);
	                      0 = no limit */
	unsigned keep;     /* timestamped files kept per kind (event, heat map) from this run; 0 = all */
	unsigned full_max; /* draw the whole topology when it has at most this many nodes */
};

struct an_graphs_stats {
	uint64_t events;   /* event SVGs written */
	uint64_t skipped;  /* raises not drawn: over the rate */
	uint64_t heatmaps; /* heat maps written */
	uint64_t failed;   /* SVGs that could not be rendered or written */
	uint64_t removed;  /* older files removed to keep `keep` */
};

struct an_graphs;

/* t (the analyzer's topology) must outlive the graphs.  NULL with a message on error (the directory). */
struct an_graphs *an_graphs_start(const struct an_graphs_opts *o, const struct hw_topo *t, char *err, size_t errlen);
void an_graphs_stop(struct an_graphs *g);

/* Before an event goes out: for a raised congestion event within the rate, set e->svg to the file it will
 * be drawn into and return 1 (then call an_graphs_draw_event once it is handed over); for a resolve, set
 * e->svg to its raise's file (so an alert keeps its annotation); else 0. */
int an_graphs_name(struct an_graphs *g, const struct hw_analyzer *a, struct hw_an_event *e);
/* Prepare the graph of the event named by an_graphs_name from the analyzer's state now (the overlay,
 * no Graphviz); it is drawn into e->svg and DIR/event-latest.svg by the next an_graphs_flush.  Up to 8
 * wait; preparing a 9th first draws the 8 (a burst of raises: the later alerts of the batch wait). */
void an_graphs_draw_event(struct an_graphs *g, const struct hw_analyzer *a, const struct hw_an_event *e);
/* Draw the prepared event graphs.  Call after each batch of records, so that no event of the batch
 * waits for Graphviz; an_graphs_tick and an_graphs_heatmap call it. */
void an_graphs_flush(struct an_graphs *g);
/* Flush, then the heat map when every_s of record time went by since the last one. */
void an_graphs_tick(struct an_graphs *g, const struct hw_analyzer *a);
/* Flush, then the heat map now (end of input): DIR/heatmap-<record time ns>.svg and DIR/heatmap.svg. */
void an_graphs_heatmap(struct an_graphs *g, const struct hw_analyzer *a);
void an_graphs_stats(const struct an_graphs *g, struct an_graphs_stats *s);

#endif
