/* Internal state of the analyzer core shared by an_core.c and the detectors (detectors/detect_*.c): the
 * queue table, the report in assembly, the hysteresis helper and the event builder; detector.h is the
 * detectors' interface. */
#ifndef HOPWATCH_AN_INTERNAL_H
#define HOPWATCH_AN_INTERNAL_H

#include "facts.h"
#include "hopwatch/analyzer.h"

#define AN_RING 16             /* millisecond buckets per queue */
#define AN_TREND 16            /* recent samples per queue for the trend */
#define AN_QFLOWS 8            /* recent distinct flows per queue */
#define AN_PATH HW_AN_MAX_PATH /* hops per report kept for paths */
#define AN_TICK_NS 1000000ull
#define AN_LINE 64     /* bytes in a cache line */
#define AN_MAX_DETS 32 /* detectors in the registry, at most */
/* Record time sanity (docs/analyzer.md "Record time"): a record more than this ahead of the clock is set aside
 * unless the next report confirms the jump. */
#define AN_CLOCK_AHEAD_NS 10000000000ull

/* One episode with hysteresis: see an_hyst_step(). */
struct an_hyst {
	uint8_t active, above, below; /* first: a record hook's short way reads active (AN_RECORD_ARMING) */
	uint64_t id, start_ns, above_since, below_since;
	double peak;
};

struct an_bucket {
	uint64_t ms;
	uint32_t max_occ, max_lat, count;
};

/* A queue's thresholds (an_thresholds.c), fixed when the queue is first seen. */
struct an_th {
	double high, clear;        /* HighQueue raise / clear (occupancy) */
	double burst, burst_clear; /* Microburst */
	double incast;             /* Incast: congested at this occupancy */
	double lat, lat_clear;     /* HighHopLatency raise / clear */
	double gbps;               /* the line rate assumed */
	double xoff;               /* PFC Xoff of its node's fabric (map node, map, config) */
	uint8_t lossless;
};

/* A queue (node, egress port, queue id): the core's part.  Each detector's per-queue state is its own slice of
 * the analyzer's side table (an_qstate). */
struct an_queue {
	/* what every record reads or writes but the ring bucket and the trend sample: the first three lines
	 * (AN_LINE-aligned; the look-ahead fetches them) */
	uint32_t node_id, port;
	uint8_t queue, used, placed;
	uint8_t s_head, s_n;
	uint8_t flow_head, n_flows;
	uint32_t topo_port; /* HW_TOPO_NONE when not placed */
	uint32_t t_scale;   /* its node's units (map): ns per time unit, bytes per occupancy unit */
	uint32_t occ_scale;
	uint32_t tally_entry; /* unplaced: its entry in the analyzer's placement tally */
	uint32_t last_occ;
	uint64_t last_ns;
	struct an_th th;
	uint64_t flows[AN_QFLOWS];
	struct an_bucket ring[AN_RING];
	uint64_t s_t[AN_TREND];
	uint32_t s_occ[AN_TREND];
	uint64_t incident, incident_ns;           /* its root's incident (an_incident.c) and when last seen */
	uint8_t held_join;                        /* ... joined as a congestion tree's aftermath (an_incident.c) */
	uint64_t kind_id[HW_AN_KIND_COUNT];       /* the id of its last raise of each kind ... */
	uint64_t kind_incident[HW_AN_KIND_COUNT]; /* ... and that raise's incident */
} __attribute__((aligned(AN_LINE)));
_Static_assert(offsetof(struct an_queue, flows) + sizeof(uint64_t) * AN_QFLOWS <= 3 * AN_LINE,
               "struct an_queue: the fields every record touches in its first three lines");

struct an_report { /* the report being assembled from consecutive records, or a packet's postcards */
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
	uint8_t postcards;     /* assembled from TR v0.5 postcards (an_core.c): one packet's path, no sequence */
	uint64_t last_ns;      /* postcards: the newest one's time */
	uint64_t ts[AN_PATH];  /* postcards: each hop's ingress timestamp (HW_V_INGRESS_TS), for its order */
	uint32_t has_ts;       /* postcards: bit i: hop i has ts */
};

/* Postcard assembly (an_core.c): one packet's postcards in flight, by flow (direct mapped). */
#define AN_POSTCARD_SLOTS 1024

/* An event being built (an_ev_begin .. an_ev_commit), then waiting in the analyzer's queue. */
struct an_ev {
	struct hw_an_event e;
	struct hw_analyzer *a;
	uint8_t own_flows; /* an_ev_flow called: the queue's recent flows are replaced */
	uint8_t update;    /* an update of a firing alert (an_ev_update_q): not counted as a raise again */
};

/* The latency matrix (an_latency.c): created with the analyzer, fed every finished report. */
struct hw_an_latmatrix *an_latency_create(const struct hw_topo *topo);
void an_latency_destroy(struct hw_an_latmatrix *m);
void an_latency_report(struct hw_an_latmatrix *m, const struct an_report *rep);
/* A report's histogram increment waits for the next report (its line prefetched meanwhile): an_latency_flush
 * adds it.  deliver() flushes every matrix first, so whatever reads a matrix (the outputs, in emit or between
 * hw_an_* calls, which all end in deliver) sees every report. */
void an_latency_flush(struct hw_an_latmatrix *m);
void an_latency_flush_all(struct hw_analyzer *a);
/* rep to its group's matrix (hw_an_latency_groups), and freeing them with the analyzer. */
void an_latency_group_report(struct hw_analyzer *a, const struct an_report *rep);
void an_latency_groups_free(struct hw_analyzer *a);

struct an_det;

/* A detector's record hook with what the per-record loop needs, in one place. */
struct an_rec_hook {
	void (*record)(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs,
	               const struct hw_record *r);
	struct an_det *d;
	size_t qoff; /* its state's offset in each queue's (an_det.qoff) */
	/* sharded (an_shard.c): its per-queue step (detector.h record_local), NULL when not sharded */
	int (*local)(const struct hw_analyzer *a, const struct an_queue *q, void *qs, const struct hw_record *r);
	size_t episode_off; /* its episode (struct an_hyst) in its state (detector.h episode_off) */
};

/* Sharded detectors (an_shard.c, hw_an_shards): what the shards did with one record of a batch.  qi: its
 * queue's index + 1 as the shard found it (0: not found or not the shards', the core looks it up); done: the
 * sharded record hooks run on it (the first done of them in the order of a->rec), which changed no episode;
 * st: 1 when its queue went back to the core here for the rest of the batch. */
struct an_shard_res {
	uint32_t qi;
	uint8_t done;
	int8_t st;
};
struct an_shards;
/* Batches of up to AN_SHARD_BATCH records, stepped by the shards in sub-batches of AN_SHARD_SUB. */
#define AN_SHARD_BATCH 4096
#define AN_SHARD_SUB 512
/* Start the shards on records r[0 .. n) (n <= AN_SHARD_BATCH), results into res[0 .. n); only while the clock
 * is set and confirmed (an_core.c).  Then, before the core reads res of sub-batch j, an_shards_wait(a, j + 1);
 * the core takes every sub-batch before its next an_shards_begin. */
void an_shards_begin(struct hw_analyzer *a, const struct hw_record *r, size_t n, struct an_shard_res *res);
void an_shards_wait(struct hw_analyzer *a, unsigned subs);
void an_shards_destroy(struct an_shards *s);

/* A record's queue key: its node, its egress port (UINT32_MAX without ports) and its queue id (0 without), and
 * the key's hash (the queue table's home slot, masked). */
static inline uint32_t an_record_port(const struct hw_record *r)
{
	return (r->valid & HW_V_PORTS) ? r->egress_port : UINT32_MAX;
}
static inline uint8_t an_record_queue(const struct hw_record *r)
{
	return (r->valid & (HW_V_QUEUE | HW_V_DROP)) ? r->queue_id : 0;
}
static inline uint32_t an_queue_hash(uint32_t node, uint32_t port, uint8_t queue)
{
	uint32_t h = (node * 2654435761u) ^ (port * 40503u) ^ ((uint32_t)queue * 97u);
	return h ^ h >> 15;
}
static inline uint32_t an_scale32(uint32_t v, uint32_t k)
{
	uint64_t x = (uint64_t)v * k;
	return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}
/* r in ns and bytes: its queue's node's units (from the map) converted, at ingest. */
static inline void an_to_ns_bytes(struct hw_record *r, const struct an_queue *q)
{
	r->hop_latency = an_scale32(r->hop_latency, q->t_scale);
	r->ingress_ts *= q->t_scale;
	r->egress_ts *= q->t_scale;
	r->queue_occupancy = an_scale32(r->queue_occupancy, q->occ_scale);
}

/* A congestion tree's held flows (an_incident.c): what its victims held, which bursts on when it ends. */
#define AN_HELD 8         /* trees remembered (the newest) */
#define AN_HELD_FLOWS 256 /* flows per tree */
#define AN_HELD_QUEUES 32 /* queues per tree */
struct an_held {
	uint64_t incident, start_ns, end_ns; /* end_ns 0 while the tree is active */
	uint32_t root, n_flows;
	uint32_t n_queues;                   /* the queues it held (indexes), AN_HELD_QUEUES at most */
	uint32_t queues[AN_HELD_QUEUES];     /* ... for an_incident_for: their switches' own traffic was held too */
	uint64_t holding_ns[AN_HELD_QUEUES]; /* ... when each was last seen holding (0: never) */
	uint32_t bursts;                     /* aftermath bursts folded into the root's alert (an_incident_burst) */
	double burst_peak;                   /* ... and the largest one's peak */
	uint64_t flows[AN_HELD_FLOWS];
	uint32_t at[AN_HELD_FLOWS]; /* the queue (index) each was last held at */
};

/* The queues of each switch (an_nodes.c), for a look at one switch's queues without a scan of the table: per
 * node, its queues in table order, by a placed queue's topology node (AN_NODE_TOPO, the node of its topology
 * port) and by any queue's INT node id (AN_NODE_ID).  Kept by the core as it adds a queue (a queue's key and
 * placement never change); the core's thread only.  Walk: for (v = an_node_first(a, k, node); v;
 * v = an_node_next(a, k, v - 1)) queue index v - 1. */
enum an_node_kind { AN_NODE_TOPO, AN_NODE_ID };
struct an_nodes {
	uint64_t *keys;         /* open addressing: (kind << 32 | node) + 1, 0 = empty ... */
	uint32_t *first, *last; /* ... that node's first and last queue (index + 1) */
	uint32_t mask;
	uint32_t *next[2]; /* per queue index and kind: the next queue (index + 1, 0 = none) on its node */
};
int an_nodes_init(struct an_nodes *n, uint32_t max_queues);
void an_nodes_free(struct an_nodes *n);

struct hw_analyzer {
	struct hw_an_config c;
	const struct hw_topo *topo;
	const struct hw_topo_map *map;
	struct hw_topo *grow; /* topo when the map alone made it: ports are added as records name them */
#define AN_GROWN 1024
	uint32_t grown[AN_GROWN][3]; /* grow_ports(): node id, port, done */
	hw_an_emit_fn emit;
	void *ctx;
	uint64_t now, next_tick, next_id;
	struct an_held held[AN_HELD];
	uint32_t held_next;
	struct an_ev *pending; /* events committed and not yet delivered (an_ev_commit) */
	uint32_t n_pending, cap_pending;
	struct an_ev spare; /* built and dropped when the queue cannot grow (out of memory) */
	uint64_t events_dropped;
	int delivering;
	int per_step;            /* hw_an_deliver_per_step */
	int finishing;           /* end of input: windows close early so their counts are judged */
	struct an_queue *queues; /* a table of table_mem.h (page-aligned) */
	uint32_t *qslots;        /* open addressing: index + 1, 0 = empty */
	uint32_t qmask, n_queues;
	struct an_nodes nodes; /* the queues of each switch (an_nodes.c) */
	unsigned char *qstate; /* the detectors' per-queue state: qstride bytes per queue, a table of table_mem.h */
	size_t qstride;
	uint32_t pf_off[2 * AN_MAX_DETS]; /* the lines of a queue's state the record hooks' short ways touch ... */
	unsigned n_pf;                    /* ... (their offsets in the row, distinct): the look-ahead's */
	uint32_t smask, n_senders;        /* sender tables (detectors' sender_size): smask + 1 slots; senders seen */
	uint32_t fmask, n_flows;          /* flow tables (detectors' flow_size): fmask + 1 slots; flows seen */
	struct an_det *dets;              /* the registry's detectors, in order (an_registry.c) */
	unsigned n_dets;
	/* the enabled detectors (a->c is fixed) with each hook, in order; the record hooks as the per-record
	 * loop calls them */
	struct an_rec_hook *rec;
	struct an_det **on_report, **on_tick, **on_flow_ahead;
	unsigned n_rec, n_on_report, n_on_tick, n_on_flow_ahead;
	struct an_shards *shards;   /* hw_an_shards: the sharded record hooks' threads (NULL: one thread) */
	struct an_shard_res *shres; /* ... the results of a batch, AN_SHARD_BATCH */
	struct an_det *by_kind[HW_AN_KIND_COUNT];
	struct an_report rep;
	struct { /* record time sanity: the clock's state and a jump ahead waiting for a second report */
		int set, confirmed, pending;
		int cont; /* the last record was analysed and rep holds its report (ingest_one's fast path) */
		uint64_t set_node, set_seq, pend_ns, pend_node,
		    pend_seq; /* report identities: node, hw_id << 32 | seq */
	} clk;
	struct an_report *postcards; /* AN_POSTCARD_SLOTS packets' paths in assembly (active = in use) */
	unsigned n_postcards;        /* ... how many are active */
	struct hw_an_latmatrix *lat;
	hw_an_group_fn lat_group; /* hw_an_latency_groups: the per-group matrices (an_latency.c) */
	void *lat_group_ctx;
	struct hw_an_latmatrix *lat_groups[HW_AN_LAT_GROUPS];
	struct hw_place_tally tally;
	struct hw_an_stats st;
};

/* Queue index qi was added to the table (an_nodes.c). */
void an_nodes_add(struct hw_analyzer *a, uint32_t qi);
/* The first queue (index + 1, 0 = none) of node's list of kind k, and the one after queue index qi on its node. */
uint32_t an_node_first(const struct hw_analyzer *a, enum an_node_kind k, uint32_t node);
static inline uint32_t an_node_next(const struct hw_analyzer *a, enum an_node_kind k, uint32_t qi)
{
	return a->nodes.next[k][qi];
}

/* The queue table's probe for key (node, port, queue), hashed h: the queue's index + 1, or 0 when it is not in
 * the table, and then *empty: the slot where it would go (UINT32_MAX: the table is full).  Slots are loaded
 * atomically (a plain load on x86): the shards probe while the core adds (an_shard.c); limit: indexes above it
 * are skipped as not there (a shard's batch ignores the queues made since it began; UINT32_MAX: none). */
static inline __attribute__((always_inline)) uint32_t an_queue_find(const struct hw_analyzer *a, uint32_t h,
                                                                    uint32_t node, uint32_t port, uint8_t queue,
                                                                    uint32_t limit, uint32_t *empty)
{
	const uint32_t mask = a->qmask;
	for (uint32_t i = 0; i <= mask; i++) {
		const uint32_t s = (h + i) & mask, v = __atomic_load_n(&a->qslots[s], __ATOMIC_ACQUIRE);
		if (!v) {
			*empty = s;
			return 0;
		}
		if (v > limit)
			continue;
		const struct an_queue *q = &a->queues[v - 1];
		if (q->node_id == node && q->port == port && q->queue == queue)
			return v;
	}
	*empty = UINT32_MAX;
	return 0;
}

/* Fill q->th from q's port and the configuration (after q is placed). */
void an_thresholds(const struct hw_analyzer *a, struct an_queue *q);
/* The map's top-level fabric (its values above 0) over f: hw_an_create() puts it into the analyzer's own copy of
 * the configuration, so what reads a->c.fabric sees the fabric the map describes. */
void an_fabric_from_map(struct hw_an_fabric *f, const struct hw_topo_map *m);

/* Incidents (an_incident.c): the incident of a congestion event at q now (its root's, opened when none is
 * open), and the id of a raise of kind at q (the previous raise's id when it is in the same incident). */
uint64_t an_incident_of(struct hw_analyzer *a, uint32_t qi, uint64_t now);
/* The same for a raise of kind: a symptom (not Incast or CongestionTree) at a queue with no open incident
 * joins a congestion tree's incident when at least a third of its recent flows are ones the tree held at a
 * queue that has let go since, while the tree's root's incident is open (its aftermath); an Incast or
 * CongestionTree is a root of its own (an_incident_of: a symptom, Microburst). */
struct an_follows {     /* the alert an Incast or CongestionTree follows (an_incident_for); queue 0 = none */
	uint32_t queue; /* its root queue's index + 1 */
	enum hw_an_kind kind;
	uint64_t id;
};
/* follows (may be NULL): an Incast or CongestionTree raised at a queue that was until now in another root's
 * incident as its aftermath (its traffic held upstream by that root's PFC pauses, arriving as they let go) starts
 * an incident of its own; *follows then names that root's alert (its Incast's, else its CongestionTree's). */
uint64_t an_incident_for(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t now,
                         struct an_follows *follows);
/* An Incast or CongestionTree of incident at root qi is raised, updated or resolved: note the flows its
 * congestion tree's victims hold (its aftermath lasts while the root's incident is open). */
void an_incident_held(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t incident, uint64_t now);
uint64_t an_incident_raise_id(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t incident);
/* A burst of peak bytes at qi in incident, over at end: when qi joined that incident as a congestion tree's
 * aftermath and the tree's root still fires its CongestionTree (or HighQueue) of it, the burst is an update of
 * that alert (1: sent, counted in its aftermath_bursts and aftermath_peak), not an alert of its own (0). */
int an_incident_burst(struct hw_analyzer *a, uint32_t qi, uint64_t incident, double peak);
/* A burst at qi in incident would be such an update now (1) or an alert of its own (0): Microburst judges this at
 * the burst's first fall, sending it when the burst is over (the swing rule, detect_microburst.c). */
int an_incident_burst_joins(struct hw_analyzer *a, uint32_t qi, uint64_t incident);
/* The incident of the raise of kind at q that ends at now (0 = none); the incident stays open from now. */
uint64_t an_incident_resolved(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t now);

/* Hysteresis: +1 raised, -1 cleared, 0 no change. */
int an_hyst_step(struct an_hyst *h, const struct hw_an_hyst *cfg, double v, uint64_t now);

/* The event builder.  An event is begun, given what it carries, and committed; committed events wait in
 * the analyzer's queue and go to the emit callback when the public call (hw_an_ingest, hw_an_tick,
 * hw_an_finish, hw_an_topology_events) returns, or after each step of a record (hw_an_deliver_per_step), so
 * outputs never run inside a detector.  One event is built at a time (begin, then commit, before the next
 * begin).
 *   an_ev_begin: an episode's raise (id, start) at queue q: the event is placed at q and carries q's recent
 *                flows unless an_ev_flow is called; q NULL: not placed until an_ev_place.
 *   an_ev_resolved: makes it the resolve, at end_ns. */
struct an_ev *an_ev_begin(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, uint64_t id,
                          uint64_t start_ns);
void an_ev_place(struct an_ev *e, uint32_t node_id, uint32_t port, int queue);
void an_ev_resolved(struct an_ev *e, uint64_t end_ns);
void an_ev_num(struct an_ev *e, const char *name, double value); /* name: a string constant */
void an_ev_flow(struct an_ev *e, uint64_t flow_hash);
void an_ev_hw_id(struct an_ev *e, int hw_id);
void an_ev_old_path(struct an_ev *e, const uint32_t (*hops)[2], unsigned n);
void an_ev_detail(struct an_ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void an_ev_commit(struct an_ev *e);
/* Shorthands for a queue's hysteresis episode: the raise (a new id) and the resolve (the episode ends). */
struct an_ev *an_ev_raise_q(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, struct an_hyst *h);
struct an_ev *an_ev_clear_q(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, struct an_hyst *h,
                            uint64_t end);
/* An update of queue q's firing episode h of kind (an_incident.c): the same id, start and incident, carrying
 * what another detector found at q (CongestionTree's victims of an Incast). */
struct an_ev *an_ev_update_q(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q,
                             const struct an_hyst *h);
static inline int an_enabled(const struct hw_analyzer *a, enum hw_an_kind k)
{
	return (a->c.enabled >> k) & 1u;
}
/* "node:port/queue" with topology names when the queue is placed, numbers otherwise. */
void an_queue_name(const struct hw_analyzer *a, const struct an_queue *q, char *buf, size_t size);

#endif
