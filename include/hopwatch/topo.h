/* The fabric topology learned from LLDP: nodes, their ports, the links between ports, when each fact
 * was learned and when it expires, and the events (link up/down, neighbour changed, checks) it raised. */
#ifndef HOPWATCH_TOPO_H
#define HOPWATCH_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hopwatch/lldp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors: values with a name and a message naming the input ---- */

#define HW_TOPO_RESULT_LIST(X)                                                                                         \
	X(HW_TOPO_OK, "ok", "ok")                                                                                      \
	X(HW_TOPO_E_IO, "io", "cannot open or read the input")                                                         \
	X(HW_TOPO_E_JSON, "json", "input is not valid JSON")                                                           \
	X(HW_TOPO_E_FORMAT, "format", "JSON is not an lldpcli dump or map file of a known shape")                      \
	X(HW_TOPO_E_PCAP, "pcap", "libpcap could not open or read the capture")                                        \
	X(HW_TOPO_E_LINKTYPE, "linktype", "capture link type is not Ethernet, Linux SLL or SLL2")                      \
	X(HW_TOPO_E_LLDPCTL, "lldpctl", "the local lldpd could not be queried through liblldpctl")                     \
	X(HW_TOPO_E_RENDER, "render", "Graphviz could not lay out or render the graph")                                \
	X(HW_TOPO_E_NOMEM, "nomem", "out of memory")                                                                   \
	X(HW_TOPO_E_UNSUPPORTED, "unsupported", "this build does not include the requested source")

enum hw_topo_result {
#define HW_TOPO_X_ENUM(e, n, m) e,
	HW_TOPO_RESULT_LIST(HW_TOPO_X_ENUM)
#undef HW_TOPO_X_ENUM
	    HW_TOPO_RESULT_COUNT
};

/* An error as a value: the code, and a message that names the input and what is wrong with it. */
struct hw_topo_error {
	enum hw_topo_result code;
	char message[512];
};

const char *hw_topo_result_name(enum hw_topo_result r);
/* Set err (may be NULL) to code with a printf-style message; returns code. */
enum hw_topo_result hw_topo_fail(struct hw_topo_error *err, enum hw_topo_result code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the model ---- */

#define HW_TOPO_NONE UINT32_MAX /* "no index" */
#define HW_TOPO_NAME_MAX HW_LLDP_STR_MAX

/* Tiers, in the ranks a fabric engineer draws them. */
enum hw_topo_tier {
	HW_TIER_HOST = 0,
	HW_TIER_LEAF = 1,
	HW_TIER_SPINE = 2,
	HW_TIER_SUPERSPINE = 3,
	HW_TIER_UNKNOWN = 255,
};
const char *hw_topo_tier_name(unsigned tier);

struct hw_topo_node {
	uint8_t chassis_subtype;           /* LLDP chassis ID subtype */
	char chassis_id[HW_LLDP_TEXT_MAX]; /* as text (struct hw_lldp_id) */
	char name[HW_TOPO_NAME_MAX];       /* system name, or the chassis ID when none was sent */
	char descr[HW_TOPO_NAME_MAX];      /* system description */
	uint16_t cap_system, cap_enabled;  /* HW_LLDP_CAP_*; has_caps says whether they were sent */
	uint8_t has_caps;
	uint8_t observer;   /* we hold this node's own view (its lldpd dump or its frames) */
	uint8_t tier;       /* enum hw_topo_tier; hw_topo_assign_tiers() fills it */
	uint8_t tier_fixed; /* tier comes from the map file */
	uint8_t n_mgmt;
	char mgmt[HW_LLDP_MGMT_MAX][96];       /* management addresses as text */
	uint32_t mgmt_v4;                      /* first IPv4 management address, host order; 0 = none */
	uint32_t node_id;                      /* INT node id (map file, else mgmt_v4); 0 = unknown */
	double first_seen, last_seen, expires; /* seconds since the UNIX epoch */
	uint32_t first_port;                   /* list of this node's ports through hw_topo_port.next */
};

struct hw_topo_port {
	uint32_t node;
	uint8_t id_subtype;           /* LLDP port ID subtype; 0 = known only by local interface name */
	char id[HW_LLDP_TEXT_MAX];    /* port ID as text */
	char name[HW_TOPO_NAME_MAX];  /* interface name: ifname/local port ID, else the port description */
	char descr[HW_TOPO_NAME_MAX]; /* port description */
	uint16_t max_frame;           /* IEEE 802.3 maximum frame size; 0 = not advertised */
	uint8_t has_pfc, pfc_enable;  /* PFC-enabled (lossless) priorities, bit n = priority n */
	uint8_t has_agg, agg_status;  /* link aggregation status bits (bit 0 capable, bit 1 enabled) */
	uint32_t agg_port_id;
	uint16_t port_vlan;
	double learned, expires;
	uint32_t link; /* current link, HW_TOPO_NONE when none */
	uint32_t next; /* next port of the same node */
};

/* Link flags, set by hw_topo_check() and by expiry. */
enum {
	HW_LINK_MTU_MISMATCH = 1u << 0,
	HW_LINK_PFC_MISMATCH = 1u << 1,
	HW_LINK_ONE_SIDED = 1u << 2,
	HW_LINK_GONE = 1u << 3, /* expired, or its neighbour sent TTL 0 */
};

struct hw_topo_link {
	uint32_t a, b;     /* port indices */
	uint8_t seen_by_a; /* a's node reported b as its neighbour */
	uint8_t seen_by_b; /* b's node reported a */
	uint8_t up;
	uint32_t flags; /* HW_LINK_* */
	double first_seen, last_seen;
	double expires_a, expires_b; /* when a's entry for b (b's for a) runs out of TTL */
	double expires;              /* the earlier of the sides that reported: a link needs both */
};

#define HW_TOPO_EVENT_LIST(X)                                                                                          \
	X(HW_EV_LINK_UP, "LinkUp")                                                                                     \
	X(HW_EV_LINK_DOWN, "LinkDown")               /* the neighbour sent TTL 0 */                                    \
	X(HW_EV_NEIGHBOR_CHANGED, "NeighborChanged") /* a port now sees a different neighbour */                       \
	X(HW_EV_LINK_DISAPPEARED, "LinkDisappeared") /* advertisements stopped: TTL expired */                         \
	X(HW_EV_MTU_MISMATCH, "MtuMismatch")                                                                           \
	X(HW_EV_PFC_MISMATCH, "PfcMismatch")                                                                           \
	X(HW_EV_ONE_SIDED, "OneSidedNeighbor")                                                                         \
	X(HW_EV_DUPLICATE_CHASSIS, "DuplicateChassisId")

enum hw_topo_event_kind {
#define HW_TOPO_X_EV(e, n) e,
	HW_TOPO_EVENT_LIST(HW_TOPO_X_EV)
#undef HW_TOPO_X_EV
	    HW_EV_COUNT
};
const char *hw_topo_event_name(enum hw_topo_event_kind k); /* CamelCase, used as alertname */

/* One event, with both ends named (node name, port name). */
struct hw_topo_event {
	enum hw_topo_event_kind kind;
	double time;
	char a_node[HW_TOPO_NAME_MAX], a_port[HW_TOPO_NAME_MAX];
	char b_node[HW_TOPO_NAME_MAX], b_port[HW_TOPO_NAME_MAX];
	char detail[256];
};

struct hw_topo {
	struct hw_topo_node *nodes;
	struct hw_topo_port *ports;
	struct hw_topo_link *links;
	struct hw_topo_event *events;
	uint32_t n_nodes, n_ports, n_links, n_events;
	uint32_t cap_nodes, cap_ports, cap_links, cap_events;
	uint32_t *node_hash; /* open addressing on the chassis ID; 0 = empty, else index + 1 */
	uint32_t hash_size;
	uint64_t frames_rejected[HW_LLDP_RESULT_COUNT]; /* per parse outcome, filled by the sources */
	uint64_t frames_lldp;                           /* LLDP frames parsed */
};

void hw_topo_init(struct hw_topo *t);
void hw_topo_free(struct hw_topo *t);

/* Add or refresh a node and the port an advertisement came from.  Returns the port index, or
 * HW_TOPO_NONE when out of memory.  A chassis ID already known under another system name raises
 * DuplicateChassisId.  The port's facts expire at time + info->ttl. */
uint32_t hw_topo_advertise(struct hw_topo *t, const struct hw_lldp_info *info, double time);

/* A port known only by its local interface name (an lldpd dump names the local side this way). */
uint32_t hw_topo_local_port(struct hw_topo *t, uint32_t node, const char *ifname, double time);

/* Find or add the node of an advertisement without touching ports. */
uint32_t hw_topo_node_of(struct hw_topo *t, const struct hw_lldp_info *info, double time);

/* Record that port `local` saw the advertisement `remote` (whose port is remote_port, from
 * hw_topo_advertise()).  Creates or refreshes the link; raises LinkUp, NeighborChanged, and
 * LinkDown when remote->ttl is 0.  Marks the local node as an observer. */
void hw_topo_observe(struct hw_topo *t, uint32_t local, uint32_t remote_port, uint16_t ttl, double time);

/* Expire links whose advertisements were not refreshed by `now` (LinkDisappeared). */
void hw_topo_expire(struct hw_topo *t, double now);
/* The same for one link. */
void hw_topo_expire_link(struct hw_topo *t, uint32_t link, double now);

/* Run the operator checks over the current links: MtuMismatch, PfcMismatch, OneSidedNeighbor.
 * Sets HW_LINK_* flags and appends one event per finding.  Call once, after loading. */
void hw_topo_check(struct hw_topo *t);

/* Tiers: map-file tiers first (call hw_topo_map_apply() before this); hosts are nodes whose enabled
 * capabilities include neither bridge nor router; switches next to a host are leaves; other switches take
 * the tier their name hints (leaf/tor/edge, spine/agg, super/core), else 1 + their distance to the nearest
 * host (capped at super-spine), else leaf. */
void hw_topo_assign_tiers(struct hw_topo *t);

/* Append an event; its ends are named after ports port_a/port_b (either may be HW_TOPO_NONE). */
void hw_topo_event(struct hw_topo *t, enum hw_topo_event_kind kind, double time, uint32_t port_a, uint32_t port_b,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Append an event whose ends are given by name (nodes or ports that are not in the model). */
void hw_topo_event_named(struct hw_topo *t, enum hw_topo_event_kind kind, double time, const char *a_node,
                         const char *a_port, const char *b_node, const char *b_port, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

/* Compare with an earlier --json-out output of this program: every link that was up there and is not up now
 * (between the same node and port names) raises LinkDisappeared.  This is how snapshots such as lldpcli
 * dumps, which simply stop listing a neighbour, report a link that went away. */
enum hw_topo_result hw_topo_compare_baseline(struct hw_topo *t, const char *path, double now,
                                             struct hw_topo_error *err);

/* Live reloads: the links of the topology loaded at start (the baseline) and of every later load, each up
 * or down as the latest load saw it.  A reload is a fresh struct hw_topo loaded from the same sources;
 * hw_topo_live_update() compares it by node and port names (indices differ between loads) and lists what
 * changed since the previous load: a known link no longer up (LinkDown), a link down before and up again,
 * or one never seen before (LinkUp).  When one update takes a port's link down and brings up another on the same
 * port, a NeighborChanged follows the LinkDown and LinkUp.  The baseline's own links raise nothing. */
struct hw_topo_live_link {
	char a_node[HW_TOPO_NAME_MAX], a_port[HW_TOPO_NAME_MAX]; /* the ends in name order: a < b */
	char b_node[HW_TOPO_NAME_MAX], b_port[HW_TOPO_NAME_MAX];
	uint8_t up;
	uint64_t down_id, down_ns; /* the caller's: its LinkDown event while the link is down */
	uint8_t mark;              /* private to hw_topo_live_update */
};
struct hw_topo_live_change {
	enum hw_topo_event_kind kind; /* HW_EV_LINK_DOWN, HW_EV_LINK_UP or HW_EV_NEIGHBOR_CHANGED */
	uint32_t link;                /* index into links (NeighborChanged: the link now up) */
	uint8_t is_new;               /* LinkUp of a link the baseline did not have */
	uint8_t end;  /* NeighborChanged: the port whose neighbour changed is link's a (0) or b (1) end */
	uint32_t was; /* NeighborChanged: the link that went down on that port */
};
struct hw_topo_live {
	struct hw_topo_live_link *links;
	struct hw_topo_live_change *changes; /* the latest update's */
	uint32_t n_links, cap_links, n_changes, cap_changes;
};
/* Start from the links up in baseline.  0, or -1 when out of memory. */
int hw_topo_live_init(struct hw_topo_live *l, const struct hw_topo *baseline);
/* Compare with a fresh load: fills l->changes (n_changes, possibly 0).  0, or -1 when out of memory (the
 * state is then as before the call). */
int hw_topo_live_update(struct hw_topo_live *l, const struct hw_topo *fresh);
void hw_topo_live_free(struct hw_topo_live *l);

/* Lookups. */
uint32_t hw_topo_find_node_by_name(const struct hw_topo *t, const char *name);
/* The node with this INT node id (0 is never a node id); HW_TOPO_NONE when none has it. */
uint32_t hw_topo_find_node_by_id(const struct hw_topo *t, uint32_t node_id);
uint32_t hw_topo_find_port_by_name(const struct hw_topo *t, uint32_t node, const char *ifname);
/* The other end of a link, seen from port p; HW_TOPO_NONE when p has no link. */
uint32_t hw_topo_peer(const struct hw_topo *t, uint32_t p);
/* Number of links that are up. */
uint32_t hw_topo_links_up(const struct hw_topo *t);

#ifdef __cplusplus
}
#endif
#endif
