/* hopwatch-gen scenario: the simulated RoCE fabric (topology, flows, queues, events) and its outputs.
 * topology.c builds the fabric, traffic.c the flows, queues.c steps time, reports.c writes INT reports. */
#ifndef HOPWATCH_SCEN_H
#define HOPWATCH_SCEN_H

#include <stdint.h>
#include <stdio.h>

#include "gen.h"

#define SC_NAME_MAX 32
#define SC_MAX_PATH 8 /* egress ports a flow crosses: host NIC + up to 5 switches (+ slack) */
#define SC_QUEUES 8   /* queues per egress port (traffic classes) */
#define SC_Q_TCP 0    /* DSCP 0 (and anything unmapped): lossy */
#define SC_Q_ROCE 3   /* DSCP 26: lossless, PFC priority 3 */
#define SC_Q_CNP 6    /* DSCP 48: strict priority */
#define SC_MAX_EVENTS 32
#define SC_MAX_HIST 8 /* path changes remembered per flow */
#define SC_HIST 256   /* steps of queue occupancy kept for the hops a reported packet passed earlier */

enum sc_tier { SC_HOST = 0, SC_LEAF = 1, SC_SPINE = 2, SC_CORE = 3 };
enum sc_topo_kind { SC_LEAF_SPINE, SC_FAT_TREE };

struct sc_node {
	char name[SC_NAME_MAX];
	uint32_t id;    /* switches: INT node id = IPv4 management address (host order); hosts: their IP */
	uint8_t tier;   /* enum sc_tier */
	uint8_t pod;    /* fat-tree pod (leaf-spine: 0) */
	uint16_t idx;   /* index within its tier */
	uint32_t port0; /* first port (ports of a node are consecutive) */
	uint16_t n_ports;
	uint8_t mac[6]; /* chassis MAC */
};

struct sc_port {
	uint32_t node;
	uint16_t num;  /* port number (INT), interface "Ethernet<num>" (hosts: "eth0") */
	uint32_t peer; /* the port at the other end */
	uint32_t link;
	uint64_t bps; /* line rate */
	uint16_t mtu; /* maximum frame size it advertises and accepts */
	uint8_t pfc;  /* PFC-enabled priorities (bit n = priority n) */
	uint8_t up;
};

struct sc_link {
	uint32_t a, b; /* ports; a is the lower tier */
};

struct sc_topo {
	uint8_t kind; /* enum sc_topo_kind */
	unsigned spines, leaves, hosts_per_leaf, k;
	uint64_t host_bps, fabric_bps;
	uint16_t mtu;
	struct sc_node *nodes;
	struct sc_port *ports;
	struct sc_link *links;
	uint32_t n_nodes, n_ports, n_links;
	uint32_t first_host, n_hosts; /* hosts are nodes [first_host, first_host + n_hosts) */
};

/* topology.c */
int sc_topo_leaf_spine(struct sc_topo *t, unsigned spines, unsigned leaves, unsigned hosts, char *err, size_t errlen);
int sc_topo_fat_tree(struct sc_topo *t, unsigned k, char *err, size_t errlen);
void sc_topo_free(struct sc_topo *t);
int32_t sc_topo_find_node(const struct sc_topo *t, const char *name);
/* Port of node n that faces node m, or -1. */
int32_t sc_topo_port_to(const struct sc_topo *t, uint32_t n, uint32_t m);
/* Port "NODE:PORTNUM" or "NODE:EthernetN" -> port index, or -1 */
int32_t sc_topo_find_port(const struct sc_topo *t, const char *spec);
void sc_port_name(const struct sc_topo *t, uint32_t port, char *out, size_t len);
void sc_ip_text(uint32_t ip, char *out, size_t len);
/* The ECMP choice among n candidates of the switch node_id for a flow's 5-tuple hash. */
unsigned sc_ecmp_pick(uint64_t flow_hash, uint32_t node_id, unsigned n);
/* The egress ports a packet from host src to host dst crosses (host NIC first); returns the count or 0
 * when no path is up. */
unsigned sc_route(const struct sc_topo *t, uint32_t src, uint32_t dst, uint64_t flow_hash, uint32_t out[SC_MAX_PATH]);

enum sc_flow_kind { SC_F_ROCE, SC_F_TCP, SC_F_CNP };

struct sc_flow {
	struct gen_flow gf; /* 5-tuple, DSCP, QP as the encoders and the truth want it */
	uint32_t src, dst;  /* host nodes */
	uint8_t kind;       /* enum sc_flow_kind */
	uint8_t qid;        /* queue its DSCP maps to */
	uint8_t n_hops;     /* egress ports on the path (hop 0 = the source host's NIC) */
	uint8_t marked;     /* ECN CE seen this step */
	uint32_t id;
	int32_t cnp_of; /* CNP flows: the RoCE flow they answer; -1 otherwise */
	int32_t cnp;    /* RoCE flows: their CNP flow; -1 otherwise */
	uint16_t pkt;   /* frame bytes */
	uint64_t bps;   /* offered rate while active */
	uint64_t start_ns, end_ns;
	uint32_t path[SC_MAX_PATH];  /* egress ports */
	double backlog[SC_MAX_PATH]; /* bytes of this flow queued at each hop */
	double in[SC_MAX_PATH];      /* bytes arriving at each hop this step */
	double deliver_acc, drop_acc[SC_MAX_PATH];
	uint64_t delivered_pkts, dropped_pkts, reported;
	uint32_t path_changes;
	uint32_t ev_mask;       /* events that touched this flow (bit i = event i) */
	uint8_t dropped_mtu_at; /* hop whose receiver dropped for MTU, 0xff none */
	uint8_t n_hist;         /* paths the flow took, from when (the first at its creation) */
	uint8_t hist_len[SC_MAX_HIST];
	uint64_t hist_ns[SC_MAX_HIST];
	uint32_t hist[SC_MAX_HIST][SC_MAX_PATH];
};

enum sc_event_kind {
	SC_EV_INCAST,
	SC_EV_MICROBURST,
	SC_EV_LINK_DOWN,
	SC_EV_PFC_STORM,
	SC_EV_DSCP,
	SC_EV_REPORT_LOSS,
	SC_EV_MTU,
	SC_EV_COUNT
};

struct sc_event {
	uint8_t kind;
	uint64_t start_ns, end_ns;
	uint32_t node;    /* incast/microburst receiver host, pfc-storm host, dscp source host, report-loss switch */
	uint32_t port;    /* link-down / mtu-mismatch: the port of the link's lower end; queue events: egress port */
	unsigned senders; /* incast / microburst */
	uint64_t bps;     /* per sender */
	double fraction;  /* report loss */
	uint16_t mtu;     /* mtu-mismatch: the upper end's MTU */
	uint32_t first_flow, n_flows; /* flows the event added */
	/* what the run saw, for truth.json */
	uint64_t lost_reports, dropped_pkts, paused_steps;
	double peak_bytes;
	const char *spec; /* the option text, for messages */
};

struct sc_cfg {
	const char *name; /* named scenario */
	uint64_t seed;
	uint64_t duration_ns, step_ns;
	uint8_t format;           /* GEN_FMT_TR20 / TR10 / TR05 */
	uint32_t sample;          /* one sink report per this many delivered packets of a flow */
	uint32_t drop_sample;     /* one drop report per this many dropped packets of a flow at a hop */
	uint32_t cnp_sample;      /* one sink report per this many CNPs of a flow */
	uint32_t queue_report_ns; /* a congested queue sends at most one queue report per this */
	double qreport_bytes;     /* queue report threshold */
	int qreport_share;        /* --queue-report-flow share: a queue report's flow drawn by its share of the queue */
	double ecn_bytes, xoff_bytes, xon_bytes, lossy_buffer, lossless_buffer, host_buffer;
	uint32_t base_latency_ns;
	double load;     /* background RoCE load, fraction of the host link */
	double tcp_load; /* background TCP load */
	uint64_t epoch_ns;
	struct sc_event events[SC_MAX_EVENTS];
	unsigned n_events;
	const char *out_dir;
	int records; /* write records.jsonl */
	int no_lldp; /* skip LLDP outputs (benchmarks) */
	int quiet;
	unsigned jobs; /* --jobs: hosts split into this many training jobs (jobs_out.c); 0 = none */
};

struct sc_queue_stats {
	double peak;
	uint64_t peak_ns;
	double dropped, marked;
	uint64_t paused_ns;
	struct sc_stretches { /* [first, last step] stretches of consecutive steps */
		uint64_t (*at)[2];
		uint32_t n, cap;
	} high, paused; /* at or above the queue's high level (sc_high_level); paused by PFC (or a storm) */
};

/* A queue's high level, the one the analyzer derives by default (docs/analyzer.md): PFC Xoff for the lossless
 * (RoCE) queue, 40 % of the lossy buffer for the others. */
double sc_high_level(const struct sc_cfg *c, unsigned qid);

struct sc_sim {
	struct sc_cfg *cfg;
	struct sc_topo *t;
	struct sc_flow *flows;
	uint32_t n_flows, cap_flows;
	uint64_t now;
	uint64_t rng;
	/* per queue (port * SC_QUEUES + qid) */
	double *occ, *arr, *served, *drop, *rs, *rd;
	uint8_t *paused; /* by PFC from the downstream ingress */
	uint8_t *forced; /* paused by an event (a host that stopped draining) */
	double *ingress; /* per (port, qid): bytes queued in the node that came in through port */
	struct sc_queue_stats *qs;
	uint64_t *last_qreport;
	uint32_t *qev; /* per queue: events (bit i) during which it was paused */
	float *hist;   /* occupancy of queues 0, 3 and 6 of every port in the last SC_HIST steps */
	struct sc_out *out;
};

/* traffic.c */
int sc_traffic_build(struct sc_sim *s, char *err, size_t errlen);
uint8_t sc_dscp_queue(uint8_t dscp);
/* One flow (routed now); kind SC_F_ROCE / SC_F_TCP / SC_F_CNP; NULL when out of memory. */
struct sc_flow *sc_flow_add(struct sc_sim *s, uint32_t src, uint32_t dst, unsigned kind, uint64_t bps, uint64_t start,
                            uint64_t end);
/* Route a flow again (path change); returns 1 when its path changed. */
int sc_flow_route(struct sc_sim *s, struct sc_flow *f);

/* queues.c */
int sc_sim_init(struct sc_sim *s, struct sc_cfg *cfg, struct sc_topo *t);
void sc_sim_free(struct sc_sim *s);
/* One time step of dt: arrivals, service, drops, ECN, PFC; calls the report hooks. */
void sc_sim_step(struct sc_sim *s);
static inline uint32_t sc_q(uint32_t port, unsigned qid)
{
	return port * SC_QUEUES + qid;
}
/* Occupancy of queue q in the step that held sim time T (ns; before the start = the first step; older than
 * SC_HIST steps = the oldest kept). */
double sc_occ_at(const struct sc_sim *s, uint32_t q, int64_t T);
/* Hop latency (ns) of a queue holding occ bytes on a port of bps. */
uint32_t sc_latency_ns(const struct sc_sim *s, uint32_t port, double occ);

/* events.c */
const char *sc_event_name(unsigned kind);  /* CLI name: incast, microburst, ... */
const char *sc_event_alert(unsigned kind); /* the analyzer's alert name: Incast, ... */
int sc_named(const char *name, struct sc_cfg *cfg, char *topo_spec, size_t len, char *err, size_t errlen);
void sc_named_list(FILE *f);
const char *const *sc_named_events(const char *name); /* NULL-terminated --event specs */
/* Parse --event KIND:key=value,...; place names checked against the topology. */
int sc_event_parse(const char *spec, struct sc_cfg *cfg, const struct sc_topo *t, char *err, size_t errlen);
/* Apply events at the current time (link state, forced pauses, DSCP, MTU); called every step. */
void sc_events_apply(struct sc_sim *s);
int sc_event_active(const struct sc_event *e, uint64_t now);
/* The maximum frame size port accepts and advertises at sim time now (the smallest active mtu-mismatch). */
uint16_t sc_mfs_at(const struct sc_sim *s, uint32_t port, uint64_t now);
/* Whether a link-down event holds the link down at sim time now. */
int sc_link_down_at(const struct sc_sim *s, uint32_t link, uint64_t now);

/* reports.c: INT reports through the gen encoders, pcap + records. */
struct sc_out;
struct sc_out *sc_out_open(struct sc_sim *s, char *err, size_t errlen);
int sc_out_close(struct sc_out *o);
void sc_out_collector(struct sc_out *o, const uint8_t ip[4], uint16_t port); /* ip NULL: keep the default */
void sc_out_counts(const struct sc_out *o, uint64_t *reports, uint64_t *records, uint64_t *packets);
void sc_report_sink(struct sc_sim *s, struct sc_flow *f, unsigned n);
void sc_report_drop(struct sc_sim *s, struct sc_flow *f, unsigned hop, uint8_t reason, unsigned n);
void sc_report_queue(struct sc_sim *s, struct sc_flow *f, unsigned hop);
uint64_t sc_out_lost(const struct sc_out *o, unsigned ev);

/* lldp_out.c */
int sc_lldp_write(const struct sc_sim *s, const char *dir, char *err, size_t errlen);
/* truth_out.c */
int sc_truth_write(const struct sc_sim *s, const char *path, uint64_t reports, uint64_t records, uint64_t packets,
                   char *err, size_t errlen);

/* jobs_out.c (--jobs) */
#define SC_MAX_JOBS 256
unsigned sc_job_of(const struct sc_sim *s, uint32_t host);
void sc_job_name(unsigned job, char *out, size_t len);
/* DIR/pods.json, kubectl-shaped */
int sc_jobs_write(const struct sc_sim *s, const char *dir, char *err, size_t errlen);
/* truth.json's "jobs" of event i ({"culprits": [...], "victims": [...]}), NULL when it has none */
struct json_t;
struct json_t *sc_event_jobs(const struct sc_sim *s, unsigned i);

/* drop reasons the scenario writes */
enum { SC_DROP_CONGESTION = 71, SC_DROP_MTU = 70 }; /* switch.p4: TRAFFIC_MANAGER, MTU_CHECK_FAIL */

/* scenario_main.c: the defaults --help lists */
void sc_cfg_default(struct sc_cfg *c);
int sc_main(int argc, char **argv);
int sc_send_main(int argc, char **argv);

#endif
