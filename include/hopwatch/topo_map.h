/* INT node ids and ports on the topology: the map file, giving nodes their INT node ids, placing one
 * INT (node id, port) on a node and port, and the tally of what could not be placed and why. */
#ifndef HOPWATCH_TOPO_MAP_H
#define HOPWATCH_TOPO_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hopwatch/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hw_topo_map_port {
	uint32_t port;
	char ifname[64];
};

/* A node's telemetry units (docs/topology.md): nanoseconds per unit of its timestamps and hop latency, bytes
 * per unit of its queue occupancy; 0 = not given (the map's top-level units, else ns and bytes). */
struct hw_topo_map_units {
	uint32_t time_ns;   /* 1 (ns), 1000 (us: BMv2) */
	uint32_t occ_bytes; /* 1 (bytes), cell size (cells), packet size (packets: BMv2) */
};

/* A node's buffers and link speeds as the analyzer derives its queues' thresholds from them (docs/topology.md,
 * "fabric"; the fields of the analyzer configuration's fabric section): 0 = not given (the map's top-level
 * ones, else the analyzer configuration's). */
struct hw_topo_map_fabric {
	double host_gbps, fabric_gbps; /* line rate of its host-facing ports and of its switch-to-switch ports */
	double xoff_bytes, xon_bytes;  /* PFC Xoff / Xon per ingress port and lossless priority */
	double lossy_buffer_bytes;     /* what a lossy queue holds before it drops */
};

struct hw_topo_map_node {
	uint32_t node_id;
	char name[HW_TOPO_NAME_MAX];
	int tier;             /* -1 = not set */
	char port_format[64]; /* printf format with one %u, e.g. "Ethernet%u"; empty = use the global one */
	struct hw_topo_map_units units;
	struct hw_topo_map_fabric fabric;
	struct hw_topo_map_port *ports;
	uint32_t n_ports;
};

struct hw_topo_map {
	struct hw_topo_map_node *nodes;
	uint32_t n_nodes;
	char port_format[64];             /* default for all nodes; empty = ports only through explicit entries */
	struct hw_topo_map_units units;   /* default for all nodes */
	struct hw_topo_map_fabric fabric; /* default for all nodes */
};

/* The units of node_id's telemetry: its map entry's (by node id, else through the topology's node of that id
 * and its name; t may be NULL), else the map's top-level ones, else 1 ns and 1 byte.  m may be NULL. */
struct hw_topo_map_units hw_topo_map_units_of(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id);

/* The same with dflt (0 fields: 1 ns, 1 byte) in place of 1 ns and 1 byte: the analyzer configuration's units. */
struct hw_topo_map_units hw_topo_map_units_or(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id,
                                              struct hw_topo_map_units dflt);
/* Read units from a JSON object e (a map node, the map's top level, the analyzer's "units" section):
 * "target", then "time_unit", "occupancy_unit", "unit_bytes" (docs/topology.md); keys absent leave u as is.
 * Errors name path and where. */
struct json_t;
enum hw_topo_result hw_topo_map_units_load(struct hw_topo_map_units *u, struct json_t *e, const char *path,
                                           const char *where, struct hw_topo_error *err);

/* The fabric of node_id's ports, field by field: its map entry's (found as hw_topo_map_units_of() finds it),
 * else the map's top-level ones, else 0 (not given).  m may be NULL. */
struct hw_topo_map_fabric hw_topo_map_fabric_of(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id);

/* Load a map file (JSON, see docs/topology.md). */
enum hw_topo_result hw_topo_map_load(struct hw_topo_map *m, const char *path, struct hw_topo_error *err);
void hw_topo_map_free(struct hw_topo_map *m);
/* Give every node its INT node id (map entry by name, else its IPv4 management address) and the
 * map's tiers.  m may be NULL. */
void hw_topo_map_apply(struct hw_topo *t, const struct hw_topo_map *m);

/* Why an INT (node, port) could not be placed. */
#define HW_PLACE_LIST(X)                                                                                               \
	X(HW_PLACE_OK, "placed", "placed on a port of the topology")                                                   \
	X(HW_PLACE_NO_NODE, "unknown_node", "no topology node has this INT node id")                                   \
	X(HW_PLACE_NO_PORT_MAP, "no_port_map", "no interface name for this port number")                               \
	X(HW_PLACE_NO_PORT, "unknown_port", "the node has no port with the mapped name")

enum hw_place_result {
#define HW_PLACE_X_ENUM(e, n, m) e,
	HW_PLACE_LIST(HW_PLACE_X_ENUM)
#undef HW_PLACE_X_ENUM
	    HW_PLACE_COUNT
};
const char *hw_place_name(enum hw_place_result r);

/* A topology of the map alone (no LLDP source): a node per map entry, named, with its node id and tier
 * (map tier, else leaf), and the ports its explicit "ports" entries name; no links.  Ports named only by a
 * port_format are added as telemetry names them (hw_topo_map_grow()). */
enum hw_topo_result hw_topo_from_map(struct hw_topo *t, const struct hw_topo_map *m, struct hw_topo_error *err);
/* Add to t (a hw_topo_from_map() topology) the port the map names for INT (node_id, port), when t lacks it:
 * its index, else HW_TOPO_NONE (unknown node id, no name for the port, or out of memory). */
uint32_t hw_topo_map_grow(struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id, uint32_t port);

/* Place one INT (node id, port number): the node and port indices, or why not. */
enum hw_place_result hw_topo_place(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id,
                                   uint32_t port, uint32_t *node_out, uint32_t *port_out);

/* A tally of placement attempts: every unplaced (node, port) is counted and listed. */
struct hw_place_entry {
	uint32_t node_id, port;
	enum hw_place_result why;
	uint64_t count;
};
struct hw_place_slot {
	uint32_t node_id, port;
	uint32_t entry; /* index in entries when unplaced */
	uint8_t valid, why;
};
/* Zero-initialise.  A tally remembers outcomes per (node, port) in a small cache, so it belongs to one
 * topology and map: start a new tally when either changes. */
struct hw_place_tally {
	uint64_t placed, unplaced;
	struct hw_place_entry *entries; /* unplaced only, one per distinct (node, port) */
	uint32_t n_entries, cap_entries;
	struct hw_place_slot *cache; /* HW_PLACE_CACHE slots, direct-mapped on (node, port) */
};
#define HW_PLACE_CACHE 4096
enum hw_place_result hw_place_tally_add(struct hw_place_tally *tally, const struct hw_topo *t,
                                        const struct hw_topo_map *m, uint32_t node_id, uint32_t port);
void hw_place_tally_free(struct hw_place_tally *tally);

/* The names file (docs/topology.md) the Wireshark dissector reads: a line "node<TAB>ID<TAB>NAME" per node
 * with an INT node id, and "port<TAB>ID<TAB>PORT<TAB>IFNAME" per INT port number the map places on one of
 * that node's ports, exactly as hw_topo_place() places it.  0, or -1 when writing failed. */
int hw_topo_names_write(FILE *f, const struct hw_topo *t, const struct hw_topo_map *m);

/* Read JSON-lines per-hop records (docs/records.md) and tally each hop's (node_id, ingress_port)
 * and (node_id, egress_port). */
enum hw_topo_result hw_place_records(struct hw_place_tally *tally, const struct hw_topo *t, const struct hw_topo_map *m,
                                     const char *path, struct hw_topo_error *err);

#ifdef __cplusplus
}
#endif
#endif
