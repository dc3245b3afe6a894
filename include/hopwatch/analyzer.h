/* The analyzer core: per-hop records in, early-warning events out.  Correlates records with the LLDP
 * topology, keeps bounded per-queue/per-flow/per-sender state and runs the detectors on record time. */
#ifndef HOPWATCH_ANALYZER_H
#define HOPWATCH_ANALYZER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hopwatch/record.h"
#include "hopwatch/topo.h"
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration (JSON keys in docs/analyzer.md; every threshold has a default) ---- */

/* One hysteresis rule: raise when the value is >= raise for hold_ns, clear when it is < clear for
 * clear_ns.  Times are record time (time_ns), not wall clock. */
struct hw_an_hyst {
	double raise, clear;
	uint64_t hold_ns, clear_ns;
};

/* What the analyzer assumes of the fabric when it derives each queue's thresholds (docs/analyzer.md,
 * "Thresholds from the fabric"): the "fabric" config section. */
struct hw_an_fabric {
	double host_gbps, fabric_gbps; /* line rate of host-facing ports and of switch-to-switch ports */
	double xoff_bytes, xon_bytes;  /* PFC Xoff / Xon per ingress port and lossless priority */
	double lossy_buffer_bytes;     /* what a lossy queue holds before it drops */
	uint32_t lossless_queues;      /* bit n: queue n is lossless (PFC) where LLDP does not say */
};

struct hw_an_config {
	struct hw_an_fabric fabric;
	/* Thresholds below at 0 (the default) are derived per queue from the fabric section (an_thresholds.c);
	 * above 0 they hold for every queue. */
	struct hw_an_hyst high_queue;   /* queue_occupancy, device units */
	struct hw_an_hyst high_latency; /* hop_latency, device units (ns) */
	double high_fraction;           /* HighQueue/HighHopLatency: above raise this share of the last hold_ns */
	uint64_t buildup_window_ns;     /* QueueBuildup: trend over the samples of the last window */
	uint64_t buildup_lead_ns;       /* ... predicts crossing high_queue.raise within this lead */
	uint32_t buildup_min_samples;   /* ... from at least this many samples */
	double buildup_steep_from;      /* ... and from the newest min_samples ones at this fraction of raise */
	double buildup_from;            /* ... raised only at this fraction of raise or above ... */
	uint32_t buildup_rising;        /* ... and with this many newest samples not falling */
	uint32_t buildup_min_flows;     /* ... and, lossless at Xoff, fed by this many distinct flows in the window */
	uint64_t buildup_hold_ns;       /* ... and held at from x raise or above, not falling, this long */
	double buildup_steady;          /* ... or, held for two samples, its newest step this share of its newest
	                                 * samples' slope or more (0: off) */
	uint8_t buildup_starver_cut;    /* ... not lossy, starved by a class PFC cuts (1) */
	double microburst_raise;        /* Microburst: occupancy rises to at least this (0: the HighQueue threshold) */
	double microburst_clear;        /* ... and falls below this */
	uint64_t microburst_max_ns;     /* ... within this time (default under 1 ms) */
	double drops_ratio;             /* PacketDrops: dropped / seen per queue over a window */
	uint64_t drops_window_ns;       /* tumbling window */
	uint32_t drops_min;             /* at least this many drops in the window */
	double seq_loss_ratio;          /* TelemetryReportLoss: lost / expected per (node, hw_id) */
	uint64_t seq_window_ns;         /* tumbling window */
	uint64_t path_change_clear_ns;  /* PathChange: resolved this long after a cause's last move */
	uint64_t path_change_gather_ns; /* ... raised this long after its first move (one alert per cause) */
	uint32_t incast_sources;        /* Incast: distinct sources on one congested queue */
	double incast_occupancy;        /* ... congested = occupancy at least this (0: the HighQueue threshold) */
	uint64_t incast_window_ns;      /* ... sources counted over this window */
	uint8_t roce_dscp, cnp_dscp;    /* RoceDscpMismatch: expected DSCPs of RoCE data and CNPs */
	int roce_queue, cnp_queue;      /* expected queues (-1 = not checked) */
	uint64_t dscp_clear_ns;         /* cleared after this long without a mismatch */
	uint32_t tree_victims;          /* CongestionTree: congested queues upstream of one congested root */
	double tree_victim_occupancy;   /* ... an upstream hop is congested at this occupancy (0 = high_queue.clear) */
	uint32_t max_queues, max_flows; /* table sizes (bounded memory) */
	uint64_t postcard_window_ns;    /* TR v0.5 postcards of one packet: each within this of the previous */
	uint32_t enabled;               /* bit per enum hw_an_kind; all by default */
	uint64_t resend_ns;             /* Alertmanager: re-send active alerts this often (wall clock) */
	uint32_t alert_queue;           /* Alertmanager/webhook: queued alerts while the peer is down */
	uint64_t min_visible_ns;        /* Alertmanager/webhook: an alert stays firing at least this long */
	uint32_t units_time_ns;         /* "units": ns per time unit of nodes the map gives none (0 = 1) */
	uint32_t units_occ_bytes;       /* ... bytes per occupancy unit (0 = 1) */
};

/* Fill c with the documented defaults. */
void hw_an_config_default(struct hw_an_config *c);
/* Load a JSON config over the defaults.  Unknown keys and wrong types are errors naming the file and
 * the key.  Returns 0, or -1 with the message in err. */
int hw_an_config_load(struct hw_an_config *c, const char *path, char *err, size_t errlen);

/* ---- events ---- */

#define HW_AN_KIND_LIST(X)                                                                                             \
	X(HW_AN_QUEUE_BUILDUP, "QueueBuildup", "warning")                                                              \
	X(HW_AN_HIGH_QUEUE, "HighQueue", "warning")                                                                    \
	X(HW_AN_HIGH_LATENCY, "HighHopLatency", "warning")                                                             \
	X(HW_AN_MICROBURST, "Microburst", "info")                                                                      \
	X(HW_AN_PACKET_DROPS, "PacketDrops", "critical")                                                               \
	X(HW_AN_REPORT_LOSS, "TelemetryReportLoss", "warning")                                                         \
	X(HW_AN_PATH_CHANGE, "PathChange", "info")                                                                     \
	X(HW_AN_INCAST, "Incast", "warning")                                                                           \
	X(HW_AN_DSCP_MISMATCH, "RoceDscpMismatch", "critical")                                                         \
	X(HW_AN_CONGESTION_TREE, "CongestionTree", "critical")                                                         \
	X(HW_AN_TOPOLOGY, "Topology", "warning") /* LLDP events; alertname is the topology event's name */

enum hw_an_kind {
#define HW_AN_X_ENUM(e, n, s) e,
	HW_AN_KIND_LIST(HW_AN_X_ENUM)
#undef HW_AN_X_ENUM
	    HW_AN_KIND_COUNT
};
const char *hw_an_kind_name(enum hw_an_kind k);     /* CamelCase alertname */
const char *hw_an_kind_severity(enum hw_an_kind k); /* "info", "warning", "critical" */
/* The kind with this alertname; -1 when none. */
int hw_an_kind_by_name(const char *name);
/* Whether k is a congestion kind (its detector says so): the event graphs draw its raises. */
int hw_an_kind_congestion(enum hw_an_kind k);

#define HW_AN_MAX_NUMBERS 6
#define HW_AN_MAX_FLOWS 8
#define HW_AN_JOBS_MAX 512 /* a list of job names, comma-separated, with its NUL */
#define HW_AN_MAX_PATH 16  /* hops of a flow path an event carries */

/* One event: raised (end_ns 0) or resolved (end_ns set).  Both carry the same id. */
struct hw_an_event {
	uint64_t id;       /* one per episode; a congestion alert raised again in its incident keeps its id */
	uint64_t incident; /* congestion kinds: the incident (one root cause) it belongs to; 0 = none */
	enum hw_an_kind kind;
	char alertname[32]; /* hw_an_kind_name(kind), or the topology event's name */
	const char *severity;
	int resolved;
	int update; /* an update of the firing alert of this id and alertname (it grew): not a new episode */
	uint64_t start_ns, end_ns;
	/* place; node_id 0 / port UINT32_MAX / queue -1 = not applicable */
	uint32_t node_id, port;
	int queue;
	int hw_id; /* TelemetryReportLoss: the sender's hardware id (one node may have several); else -1 */
	char node[HW_TOPO_NAME_MAX]; /* topology name when the node was placed, else "" */
	char port_name[HW_TOPO_NAME_MAX];
	char link[4 * HW_TOPO_NAME_MAX + 8]; /* "nodeA:portA--nodeB:portB" when the port is on a topology link */
	/* numbers that triggered it */
	unsigned n_numbers;
	struct hw_an_number {
		const char *name;
		double value;
	} numbers[HW_AN_MAX_NUMBERS];
	unsigned n_flows;
	uint64_t flows[HW_AN_MAX_FLOWS]; /* affected flow hashes (bounded) */
	/* PathChange: the path the flow left, first hop first, as (node id, egress port); else 0 hops */
	unsigned n_old_path;
	uint32_t old_path[HW_AN_MAX_PATH][2];
	char detail[256];
	/* An Incast or CongestionTree raised at a queue that was until then another root's aftermath (its traffic
	 * held upstream by that root's PFC pauses, arriving together as they let go): that root's alert, its id
	 * (0 = follows none), alertname kind and queue as "node:port/queue" (topology names when placed). */
	uint64_t follows_id;
	enum hw_an_kind follows_kind;
	char follows[2 * HW_TOPO_NAME_MAX + 16];
	/* Whose traffic (run --pods / --ident-map, lib/outputs/an_attr.c): the jobs of its flows' senders and of
	 * their receivers, sorted, comma-separated, "" = none known; attributed: the run maps identities (the
	 * event's JSON then has "jobs"), unattributed_flows: its flows whose sender or receiver has no job. */
	int attributed;
	unsigned unattributed_flows;
	char sender_jobs[HW_AN_JOBS_MAX], receiver_jobs[HW_AN_JOBS_MAX];
};

/* Write the event as one JSON object without a newline; returns the length (may be truncated to
 * size - 1 like snprintf).  svg: the outputs' annotation, the event's congestion graph file (run --svg-dir),
 * written as the last key "svg"; NULL or "" = none. */
int hw_an_event_json(const struct hw_an_event *e, const char *svg, char *buf, size_t size);

typedef void (*hw_an_emit_fn)(void *ctx, const struct hw_an_event *e);

/* ---- the analyzer ---- */

struct hw_analyzer;

/* Tally of what came in. */
struct hw_an_stats {
	uint64_t records, placed, unplaced, no_port; /* unplaced: hop's egress port not on the topology */
	uint64_t queues, queues_dropped;             /* queue states in use; records whose queue table was full */
	uint64_t flows, reports_lost, reports;
	uint64_t events_raised, events_resolved;
	/* record time sanity (docs/analyzer.md "Record time"): records set aside (counted in records, never
	 * analysed) for a time too far ahead of the clock; jumps of the clock a second report confirmed */
	uint64_t records_set_aside, clock_jumps;
	/* reports of senders (report_node, hw_id) found no slot: the sender table tracks 3072 (3/4 of its
	 * 4096 slots); the loss of the others' reports is not followed */
	uint64_t senders_untracked;
	/* hw_an_shards: records with a sharded detector step run on a shard thread, and the records at which a
	 * queue went back to the caller's thread for the rest of its batch (a raise or resolve, a tick) */
	uint64_t records_sharded, shard_handbacks;
	uint32_t active[HW_AN_KIND_COUNT];
};

/* Create an analyzer.  topo and map may be NULL (no placement; events carry node ids only); they must
 * outlive it.  emit gets every raise and resolve, in order: the detectors queue them while they run and
 * hw_an_ingest, hw_an_tick, hw_an_finish and hw_an_topology_events hand them over just before they return
 * (emit must not call those four). */
struct hw_analyzer *hw_an_create(const struct hw_an_config *c, const struct hw_topo *topo,
                                 const struct hw_topo_map *map, hw_an_emit_fn emit, void *ctx, char *err,
                                 size_t errlen);
void hw_an_destroy(struct hw_analyzer *a);
/* t, the topology given to hw_an_create, was made from the map alone (hw_topo_from_map): the analyzer adds to
 * it each port a record names and the map names, before placing it.  Nothing else may read t meanwhile. */
void hw_an_grow_topology(struct hw_analyzer *a, struct hw_topo *t);

/* Feed records in time order (per sender).  No allocation, except that the event queue grows (doubling)
 * when a call raises more events than any call before. */
void hw_an_ingest(struct hw_analyzer *a, const struct hw_record *r, size_t n);
/* Analyse on n threads (1 to 8; 1: the caller's alone): n - 1 shard threads run the per-queue steps of the
 * detectors that offer one, each for the queues of its share of the switches, ahead of the caller's thread,
 * which does all the rest in record order, so the events are those of one thread (docs/performance.md
 * round 9).  Before the first record; -1 and a message in err when the threads cannot start. */
int hw_an_shards(struct hw_analyzer *a, unsigned n, char *err, size_t errlen);
/* With on, hw_an_ingest hands events over after each step of each record instead of once per call: after
 * record time advanced to the record (ticks), after the report it ends was judged, after the record itself.
 * For outputs that read the analyzer's state for an event (the event graphs): they see the state of the step
 * that raised it, never a detector half-way. */
void hw_an_deliver_per_step(struct hw_analyzer *a, int on);
/* Advance record time without a record (clears episodes that went quiet). */
void hw_an_tick(struct hw_analyzer *a, uint64_t now_ns);
/* Raise the topology's own events (MtuMismatch, PfcMismatch, link changes) through emit. */
void hw_an_topology_events(struct hw_analyzer *a);
/* Raise what a reload of the topology's sources changed (hw_topo_live_update): LinkDown for a link gone
 * from LLDP (firing while it stays away), and for one that comes back the LinkDown's resolve and a LinkUp
 * (news, resolved at once), as is a link never seen before.  now: wall-clock seconds of the reload; why:
 * what made it (for the events' detail).  Placement keeps the topology given to hw_an_create. */
void hw_an_topology_changes(struct hw_analyzer *a, struct hw_topo_live *live, double now, const char *why);
/* End of input: closes the report in progress and evaluates windows that ended. */
void hw_an_finish(struct hw_analyzer *a);

void hw_an_stats(const struct hw_analyzer *a, struct hw_an_stats *s);
/* Unplaced (node id, port) list, as the topology's placement tally keeps it; NULL without topology. */
const struct hw_place_tally *hw_an_unplaced(const struct hw_analyzer *a);
uint64_t hw_an_now(const struct hw_analyzer *a); /* latest record time seen */
/* Per-link congestion score: the highest queue occupancy seen on either port of the link over the last
 * 16 ms of record time (the millisecond ring), divided by high_queue.raise (1.0 = at the threshold).
 * scores has topo->n_links entries; 0 without topology or records. */
void hw_an_link_scores(const struct hw_analyzer *a, double *scores);

/* ---- the latency matrix (an_latency.c, an_latency_out.c; docs/analyzer.md "Latency matrix") ----
 *
 * End-to-end path latency from each source leaf to each destination leaf, over the whole run.  A report
 * counts when its path is complete: at least 2 hops, every hop_index 0 .. path_len-1 present, neither
 * "intermediate" (the path stops at a transit switch) nor "dropped" (the packet never arrived).  Its
 * latency is the sum of the hop_latency of its hops (time spent inside the switches, in hop_latency
 * units: ns on every target hopwatch knows; links between switches are not measured by INT).  A complete
 * report with a hop lacking hop_latency is skipped and counted (no_latency).  The source leaf is the
 * node of hop 0, the destination leaf the node of the last hop; with a topology they are named by it,
 * else by their node id in decimal.  Per cell: count, exact average, min, max, and p99.9 from a
 * log-bucketed histogram (16 sub-buckets per power of two): within 1/32 (3.1%) of the exact order
 * statistic, exact below 16.  No allocation per record; at most HW_AN_LAT_LEAVES leaves. */

#define HW_AN_LAT_LEAVES 64 /* distinct leaves (sources and destinations together) */

struct hw_an_latmatrix;

struct hw_an_lat_stats {
	uint64_t reports;     /* complete reports placed in the matrix */
	uint64_t short_path;  /* reports of fewer than 2 hops (postcards, one-switch paths) */
	uint64_t partial;     /* intermediate or drop reports, or reports with hops missing */
	uint64_t no_latency;  /* complete reports with a hop lacking hop_latency */
	uint64_t leaves_full; /* complete reports whose source or destination did not fit */
	uint32_t n_leaves;
};

struct hw_an_lat_cell {
	uint64_t count;
	double avg;              /* exact mean */
	uint64_t p999, min, max; /* p999 within 1/32 of the exact value; min and max exact */
};

/* The analyzer's matrix (never NULL for a created analyzer). */
const struct hw_an_latmatrix *hw_an_latency(const struct hw_analyzer *a);
/* Per-group matrices (run --pods: one per job): group(ctx, flow_hash) is a report's group, 0 ..
 * HW_AN_LAT_GROUPS-1, or -1 for none; a group's matrix is the latency matrix restricted to the reports of its
 * flows, created at its first report (NULL when that fails: the group's reports are left out). */
#define HW_AN_LAT_GROUPS 16
typedef int (*hw_an_group_fn)(void *ctx, uint64_t flow_hash);
void hw_an_latency_groups(struct hw_analyzer *a, hw_an_group_fn group, void *ctx);
/* Group g's matrix, NULL while it has had no report. */
const struct hw_an_latmatrix *hw_an_latency_group(const struct hw_analyzer *a, unsigned g);
void hw_an_lat_stats(const struct hw_an_latmatrix *m, struct hw_an_lat_stats *s);
/* Leaf i (0 .. n_leaves-1, in order of first sight): its name and INT node id. */
const char *hw_an_lat_leaf_name(const struct hw_an_latmatrix *m, uint32_t leaf);
uint32_t hw_an_lat_leaf_node_id(const struct hw_an_latmatrix *m, uint32_t leaf);
/* The leaves in output order (names in natural order: leaf2 before leaf10); order has n_leaves entries.
 * Returns n_leaves. */
uint32_t hw_an_lat_order(const struct hw_an_latmatrix *m, uint32_t *order);
/* One cell; returns 0 (and a zeroed cell) when no report went from src to dst. */
int hw_an_lat_cell(const struct hw_an_latmatrix *m, uint32_t src, uint32_t dst, struct hw_an_lat_cell *c);
/* Quantile q (0 < q <= 1) of a cell: the histogram bucket's midpoint holding the ceil(q * count)-th
 * smallest latency, clamped to [min, max]; 0 for an empty cell. */
uint64_t hw_an_lat_quantile(const struct hw_an_latmatrix *m, uint32_t src, uint32_t dst, double q);

/* The matrix over a window: a mark copies its cumulative figures now (malloc'd, only the non-empty cells and
 * buckets; NULL when out of memory), and a cell since a mark (NULL: since the start) is what the matrix took
 * after it, by the same histogram and quantile: count, exact mean, p99.9 within 1/32 (clamped to the whole
 * run's min and max, which bound the window's); min and max only when the cell was empty at the mark (else 0).
 * Returns 1; 0 when nothing came since the mark (or ever); -1 when the cell's histogram was halved since the
 * mark (a bucket reached 2^32 - 1: count and mean given, no p99.9).  hw_an_lat_mean_since: only the count and
 * exact mean since the mark (no histogram work: cheap enough for every refresh), same returns but -1. */
struct hw_an_lat_mark;
struct hw_an_lat_mark *hw_an_lat_mark(const struct hw_an_latmatrix *m);
void hw_an_lat_mark_free(struct hw_an_lat_mark *k);
int hw_an_lat_cell_since(const struct hw_an_latmatrix *m, const struct hw_an_lat_mark *k, uint32_t src, uint32_t dst,
                         struct hw_an_lat_cell *c);
int hw_an_lat_mean_since(const struct hw_an_latmatrix *m, const struct hw_an_lat_mark *k, uint32_t src, uint32_t dst,
                         uint64_t *count, double *mean);

/* Output.  CSV: a header line, then one row per non-empty cell in output order (source, then
 * destination): source,destination,reports,avg_ns,p999_ns,min_ns,max_ns.  Returns 0 or -1 (errno). */
int hw_an_lat_write_csv(const struct hw_an_latmatrix *m, FILE *f);
/* SVG heat map through cgraph + gvc (gvc: the process's GVC_t as void*): a table with a row per source
 * and a column per destination; cell ids "cell-<src>-<dst>" (names with characters outside
 * [A-Za-z0-9._-] replaced by '_'), empty cells have no id; colour by p99.9 relative to the largest
 * p99.9.  time_ns is printed in the title. */
int hw_an_lat_write_svg(const struct hw_an_latmatrix *m, void *gvc, uint64_t time_ns, const char *path, char *err,
                        size_t errlen);
/* Both files, each written to a temporary name and renamed: DIR/latency-matrix-<time_ns>.{csv,svg},
 * then the same content as DIR/latency-matrix.{csv,svg}.  Returns 0, or -1 with the message in err. */
int hw_an_lat_write_files(const struct hw_an_latmatrix *m, void *gvc, const char *dir, uint64_t time_ns, char *err,
                          size_t errlen);
/* The stats, leaves and (when there are at most max_leaves leaves) the non-empty cells as one compact JSON
 * object (malloc'd, free() it); NULL when out of memory. */
char *hw_an_lat_json(const struct hw_an_latmatrix *m, uint32_t max_leaves);

/* ---- read-only state for the congestion graphs (an_query.c) ---- */

/* One queue the analyzer keeps, as of the latest record time. */
struct hw_an_queue_info {
	uint32_t node_id, port; /* port UINT32_MAX: records without ports */
	int queue;
	uint32_t topo_port; /* the topology port it is placed on, HW_TOPO_NONE when not placed */
	uint64_t last_ns;   /* time of its latest record */
	uint32_t last_occ;  /* occupancy in its latest record */
	uint32_t last_lat;  /* highest hop latency in the millisecond of its latest record */
	uint32_t peak_occ;  /* highest occupancy over the last 16 ms of record time (the ring) */
	uint32_t peak_lat;  /* highest hop latency over the same */
	uint32_t active;    /* bit per enum hw_an_kind with an episode active on this queue */
	unsigned n_victims; /* CongestionTree root: the congested queues upstream of it (queue indices) */
	uint32_t victims[8];
	double raise;     /* its HighQueue threshold (derived from the fabric unless configured) */
	double lat_raise; /* its HighHopLatency threshold */
};

/* Number of queues (indices 0 .. count-1 stay valid for the analyzer's life). */
uint32_t hw_an_queue_count(const struct hw_analyzer *a);
/* Fill q for queue i; -1 when i is out of range. */
int hw_an_queue_get(const struct hw_analyzer *a, uint32_t i, struct hw_an_queue_info *q);
/* Index of the queue (node_id, port, queue); -1 when the analyzer has none. */
long hw_an_queue_find(const struct hw_analyzer *a, uint32_t node_id, uint32_t port, int queue);
/* A flow's current path: up to max hops of (node_id, egress port) in hop order, from its latest report
 * with a full path.  Returns the number of hops, 0 when the flow is unknown (paths are kept by the
 * PathChange detector: none when it is disabled). */
unsigned hw_an_flow_path(const struct hw_analyzer *a, uint64_t flow_hash, uint32_t (*hops)[2], unsigned max);
/* Place an INT (node id, port) on the topology: returns the node index (by the map, else the node's
 * management address) and sets *topo_port (may be NULL) to the port index, HW_TOPO_NONE when either is
 * not known or there is no topology. */
uint32_t hw_an_place(const struct hw_analyzer *a, uint32_t node_id, uint32_t port, uint32_t *topo_port);
/* The configuration in use. */
const struct hw_an_config *hw_an_config_of(const struct hw_analyzer *a);

#ifdef __cplusplus
}
#endif
#endif
