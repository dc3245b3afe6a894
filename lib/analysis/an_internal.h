/* Internal state of the analyzer core shared by an_core.c and the detectors (detect_*.c): the per-queue,
 * per-sender and per-flow tables, the hysteresis helper and the common detector interface. */
#ifndef HOPWATCH_AN_INTERNAL_H
#define HOPWATCH_AN_INTERNAL_H

#include "facts.h"
#include "hopwatch/analyzer.h"

#define AN_RING 16             /* millisecond buckets per queue */
#define AN_TREND 16            /* recent samples per queue for the trend */
#define AN_SRC 32              /* distinct sources per queue per incast window */
#define AN_QFLOWS 8            /* recent distinct flows per queue */
#define AN_PATH HW_AN_MAX_PATH /* hops per report kept for paths */
#define AN_VICTIMS 8           /* upstream congested queues remembered per root */
#define AN_TICK_NS 1000000ull

/* One episode with hysteresis: see an_hyst_step(). */
struct an_hyst {
	uint64_t id, start_ns, above_since, below_since;
	double peak;
	uint8_t active, above, below;
};

struct an_bucket {
	uint64_t ms;
	uint32_t max_occ, max_lat, count;
};

struct an_queue {
	uint32_t node_id, port;
	uint8_t queue, used, placed;
	uint32_t topo_port;   /* HW_TOPO_NONE when not placed */
	uint32_t tally_entry; /* unplaced: its entry in the analyzer's placement tally */
	uint64_t last_ns;
	uint32_t last_occ;
	struct an_bucket ring[AN_RING];
	uint64_t s_t[AN_TREND];
	uint32_t s_occ[AN_TREND];
	uint8_t s_head, s_n;
	uint8_t flow_head, n_flows;
	uint64_t flows[AN_QFLOWS];
	struct an_hyst h_queue, h_lat, h_buildup, h_drops, h_incast, h_dscp;
	double buildup_slope; /* units per ns, at the last evaluation */
	/* microburst */
	uint64_t mb_start;
	uint32_t mb_peak;
	uint8_t mb_in, mb_paused; /* mb_paused: it rose while a congestion tree's victim */
	/* drops: tumbling window */
	uint64_t dw_start;
	uint32_t dw_seen, dw_drops;
	uint8_t last_reason;
	/* incast: distinct sources (hash of src_ip) in the window */
	uint64_t iw_start;
	uint32_t src[AN_SRC];
	uint8_t n_src;
	/* dscp */
	uint64_t dscp_last;
	uint32_t dscp_bad;
	uint8_t dscp_seen, dscp_want;
	uint32_t dscp_port; /* ingress port of the first hop: the port facing the source */
	/* congestion tree: this queue as a root, the congested queues upstream of it on shared paths */
	struct an_hyst h_tree;
	uint32_t victims[AN_VICTIMS]; /* queue indices */
	uint8_t n_victims;
	uint64_t down_ns;   /* last report that showed this queue upstream of a queue in a HighQueue episode */
	uint32_t down_root; /* ... that queue (index): while it stays congested, this one is not a root */
};

struct an_sender { /* one (report_node, hw_id) */
	uint32_t node;
	uint8_t hw_id, used;
	struct hw_seq_fact seq; /* highest number and reorder window (lib/facts) */
	uint64_t w_start, w_recv, w_lost, lost_total;
	struct an_hyst h;
};

struct an_flow {
	uint64_t hash, path; /* path: signature of the hop sequence (lib/facts, never 0); 0 = empty slot */
	uint64_t changed_ns; /* PathChange active since (0 = none) */
	uint64_t ev_id;
	uint32_t ev_node, ev_port; /* where the active PathChange was placed */
	uint32_t hops[AN_PATH][2]; /* node_id, egress_port */
	uint32_t in0;              /* ingress_port of hop 0 (the link into the first switch) */
	uint8_t n_hops;
};

struct an_report { /* the report being assembled from consecutive records */
	uint64_t time_ns, flow_hash;
	uint32_t node, seq;
	uint8_t hw_id, format, active, has_flow, n_hops, path_len;
	uint8_t flags; /* report_flags (enum hw_report_flag) */
	uint32_t hops[AN_PATH][2];
	uint32_t hop_in[AN_PATH]; /* each hop's ingress_port (for the path signature) */
	uint32_t ports;           /* bit i: hop i carried its ports */
	uint32_t qidx[AN_PATH];   /* queue index + 1 of each hop, 0 = none */
	/* for the latency matrix (an_latency.c): per hop_index < AN_PATH whether a
	 * record came (seen) and carried hop_latency (has_lat), its node and its latency */
	uint32_t seen, has_lat;
	uint32_t hop_node[AN_PATH], hop_lat[AN_PATH];
	uint32_t occ[AN_PATH]; /* each hop's queue occupancy as the report carries it, UINT32_MAX = none */
};

/* The latency matrix (an_latency.c): created with the analyzer, fed every finished report. */
struct hw_an_latmatrix *an_latency_create(const struct hw_topo *topo);
void an_latency_destroy(struct hw_an_latmatrix *m);
void an_latency_report(struct hw_an_latmatrix *m, const struct an_report *rep);

struct hw_analyzer {
	struct hw_an_config c;
	const struct hw_topo *topo;
	const struct hw_topo_map *map;
	hw_an_emit_fn emit;
	void *ctx;
	uint64_t now, next_tick, next_id;
	int emit_hw_id;                     /* set around an_emit by TelemetryReportLoss; -1 otherwise */
	const uint32_t (*emit_old_path)[2]; /* set around an_emit by PathChange; NULL otherwise */
	unsigned emit_old_n;
	int finishing; /* end of input: windows close early so their counts are judged */
	struct an_queue *queues;
	uint32_t *qslots; /* open addressing: index + 1, 0 = empty */
	uint32_t qmask, n_queues;
	struct an_sender *senders;
	uint32_t smask, n_senders;
	struct an_flow *flows;
	uint32_t fmask, n_flows, n_path_active;
	uint64_t path_next_expiry; /* record time the earliest active PathChange resolves; 0 = none */
	struct an_report rep;
	struct hw_an_latmatrix *lat;
	struct hw_place_tally tally;
	struct hw_an_stats st;
};

/* Hysteresis: +1 raised, -1 cleared, 0 no change. */
int an_hyst_step(struct an_hyst *h, const struct hw_an_hyst *cfg, double v, uint64_t now);

/* Emit a raise (resolved 0) or a resolve for an episode at queue q (may be NULL; then node_id/port/queue
 * name the place).  numbers: n pairs of (name, value). */
struct an_num {
	const char *name;
	double value;
};
void an_emit(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, uint32_t node_id, uint32_t port,
             int queue, uint64_t id, uint64_t start, uint64_t end, int resolved, const struct an_num *nums, unsigned n,
             const uint64_t *flows, unsigned n_flows, const char *detail);
/* Shorthands for a queue's hysteresis episode. */
void an_raise_q(struct hw_analyzer *a, enum hw_an_kind kind, struct an_queue *q, struct an_hyst *h,
                const struct an_num *nums, unsigned n, const char *detail);
void an_clear_q(struct hw_analyzer *a, enum hw_an_kind kind, struct an_queue *q, struct an_hyst *h, uint64_t end,
                const struct an_num *nums, unsigned n);
int an_enabled(const struct hw_analyzer *a, enum hw_an_kind k);
/* Queue q is a congestion tree's victim: recent reports showed it upstream of a queue in a HighQueue
 * episode, or its link leads to a switch with a queue of its class in one (detect_congestion_tree.c). */
int an_tree_victim(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now);
/* "node:port/queue" with topology names when the queue is placed, numbers otherwise. */
void an_queue_name(const struct hw_analyzer *a, const struct an_queue *q, char *buf, size_t size);

/* The common detector interface: every hook may be NULL.
 *   record: one record of a queue (q is never NULL), after the queue's ring and samples are updated;
 *   report: a finished report (rep), for detectors that look at whole reports or senders;
 *   tick:   record time advanced to now (about every millisecond): close windows, clear quiet episodes. */
struct an_detector {
	enum hw_an_kind kind;
	void (*record)(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r);
	void (*report)(struct hw_analyzer *a, const struct an_report *rep);
	void (*tick_queue)(struct hw_analyzer *a, struct an_queue *q, uint64_t now);
	void (*tick)(struct hw_analyzer *a, uint64_t now);
};

extern const struct an_detector an_detect_high_queue, an_detect_high_latency, an_detect_buildup, an_detect_microburst,
    an_detect_drops, an_detect_report_loss, an_detect_path_change, an_detect_incast, an_detect_dscp,
    an_detect_congestion_tree;

#endif
