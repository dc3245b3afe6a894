/* Congestion-path graphs of `hopwatch-analyzer run --svg-dir`: one SVG per raised congestion event (rate
 * limited), a periodic fabric heat map, files named by time and event, the newest under a stable name.
 * Their options and counters; the outputs themselves are an_out_graphs and an_out_heatmap (an_outputs.h). */
#ifndef HOPWATCH_AN_GRAPHS_H
#define HOPWATCH_AN_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#define AN_GRAPHS_SVG_MAX 256 /* an event graph's file name, with the directory: the event's "svg" annotation */

struct an_graphs_opts {
	const char *dir;   /* created when missing */
	double every_s;    /* heat map and latency matrix every this many seconds of record time (the outputs
	                    * table's schedule); 0 = only at the end */
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

#endif
