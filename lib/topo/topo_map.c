/* INT node ids and port numbers onto LLDP nodes and interface names: the map file, the default (node id
 * = IPv4 management address), and the tally that counts and lists every (node, port) left unplaced. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/record.h"
#include "hopwatch/topo.h"
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_render.h"

static const char *const place_names[] = {
#define HW_PLACE_X_NAME(e, n, m) n,
    HW_PLACE_LIST(HW_PLACE_X_NAME)
#undef HW_PLACE_X_NAME
};

const char *hw_place_name(enum hw_place_result r)
{
	return (unsigned)r < HW_PLACE_COUNT ? place_names[r] : "invalid";
}

/* A node id as a number, a dotted quad or a "0x" hex string.  0 when not one of those. */
static int parse_node_id(json_t *v, uint32_t *out)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= UINT32_MAX) {
		*out = (uint32_t)json_integer_value(v);
		return 1;
	}
	if (!json_is_string(v))
		return 0;
	const char *s = json_string_value(v);
	struct in_addr a;
	if (inet_pton(AF_INET, s, &a) == 1) {
		*out = ntohl(a.s_addr);
		return 1;
	}
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 0);
	if (errno || *end || end == s || n > UINT32_MAX)
		return 0;
	*out = (uint32_t)n;
	return 1;
}

/* A port format must hold exactly one conversion, %u. */
static int format_ok(const char *f)
{
	const char *p = strchr(f, '%');
	return p && p[1] == 'u' && !strchr(p + 2, '%') && strlen(f) < 64;
}

static int parse_tier(json_t *v)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= 3)
		return (int)json_integer_value(v);
	for (int i = 0; json_is_string(v) && i < 4; i++)
		if (strcmp(json_string_value(v), hw_topo_tier_name((unsigned)i)) == 0)
			return i;
	return -2;
}

/* Default bytes per occupancy unit of "cells" and "packets" when unit_bytes is not given. */
#define HW_CELL_BYTES 80
#define HW_PACKET_BYTES 1500

/* The units of e (a node or the top level): "target" ("bmv2": us and packets; anything else: ns and bytes),
 * then "time_unit" ("ns"/"us"), "occupancy_unit" ("bytes"/"cells"/"packets") and "unit_bytes" override. */
enum hw_topo_result hw_topo_map_units_load(struct hw_topo_map_units *u, json_t *e, const char *path, const char *where,
                                           struct hw_topo_error *err)
{
	json_t *target = json_object_get(e, "target"), *tu = json_object_get(e, "time_unit"),
	       *ou = json_object_get(e, "occupancy_unit"), *ub = json_object_get(e, "unit_bytes");
	if (target) {
		if (!json_is_string(target))
			return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: %s: target must be a string", path, where);
		int bmv2 = strcmp(json_string_value(target), "bmv2") == 0;
		u->time_ns = bmv2 ? 1000 : 1;
		u->occ_bytes = bmv2 ? HW_PACKET_BYTES : 1;
	}
	if (tu) {
		const char *s = json_is_string(tu) ? json_string_value(tu) : "";
		if (strcmp(s, "ns") && strcmp(s, "us"))
			return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: %s: time_unit must be \"ns\" or \"us\"", path,
			                    where);
		u->time_ns = s[0] == 'u' ? 1000 : 1;
	}
	if (ou) {
		const char *s = json_is_string(ou) ? json_string_value(ou) : "";
		if (strcmp(s, "bytes") && strcmp(s, "cells") && strcmp(s, "packets"))
			return hw_topo_fail(err, HW_TOPO_E_FORMAT,
			                    "%s: %s: occupancy_unit must be \"bytes\", \"cells\" or \"packets\"", path,
			                    where);
		u->occ_bytes = s[0] == 'b' ? 1 : s[0] == 'c' ? HW_CELL_BYTES : HW_PACKET_BYTES;
	}
	if (ub) {
		if (!json_is_integer(ub) || json_integer_value(ub) < 1 || json_integer_value(ub) > 1000000)
			return hw_topo_fail(err, HW_TOPO_E_FORMAT,
			                    "%s: %s: unit_bytes must be a whole number 1..1000000", path, where);
		if (!u->occ_bytes || u->occ_bytes == 1)
			return hw_topo_fail(err, HW_TOPO_E_FORMAT,
			                    "%s: %s: unit_bytes needs occupancy_unit \"cells\" or \"packets\"", path,
			                    where);
		u->occ_bytes = (uint32_t)json_integer_value(ub);
	}
	return HW_TOPO_OK;
}

/* The map entry of node_id: by its node_id, else by name through the topology's node of that id (t may be NULL);
 * NULL when none. */
static const struct hw_topo_map_node *entry_of_id(const struct hw_topo *t, const struct hw_topo_map *m,
                                                  uint32_t node_id)
{
	for (uint32_t i = 0; i < m->n_nodes; i++)
		if (m->nodes[i].node_id && m->nodes[i].node_id == node_id)
			return &m->nodes[i];
	uint32_t tn = t ? hw_topo_find_node_by_id(t, node_id) : HW_TOPO_NONE;
	for (uint32_t i = 0; tn != HW_TOPO_NONE && i < m->n_nodes; i++)
		if (strcmp(m->nodes[i].name, t->nodes[tn].name) == 0)
			return &m->nodes[i];
	return NULL;
}

/* The "fabric" object of e (a node or the top level): each key optional, a positive number; Xon not above Xoff
 * when both are given there. */
static enum hw_topo_result fabric_load(struct hw_topo_map_fabric *f, json_t *e, const char *path, const char *where,
                                       struct hw_topo_error *err)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
	    {"host_gbps", offsetof(struct hw_topo_map_fabric, host_gbps)},
	    {"fabric_gbps", offsetof(struct hw_topo_map_fabric, fabric_gbps)},
	    {"xoff_bytes", offsetof(struct hw_topo_map_fabric, xoff_bytes)},
	    {"xon_bytes", offsetof(struct hw_topo_map_fabric, xon_bytes)},
	    {"lossy_buffer_bytes", offsetof(struct hw_topo_map_fabric, lossy_buffer_bytes)},
	};
	json_t *o = json_object_get(e, "fabric"), *v;
	const char *k;
	if (!o)
		return HW_TOPO_OK;
	if (!json_is_object(o))
		return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: %s: fabric must be an object", path, where);
	json_object_foreach(o, k, v)
	{
		size_t i = 0;
		while (i < sizeof(keys) / sizeof(keys[0]) && strcmp(keys[i].key, k))
			i++;
		if (i == sizeof(keys) / sizeof(keys[0]))
			return hw_topo_fail(err, HW_TOPO_E_FORMAT,
			                    "%s: %s: fabric.%s: unknown key (host_gbps, fabric_gbps, xoff_bytes, "
			                    "xon_bytes, lossy_buffer_bytes)",
			                    path, where, k);
		/* a terabit of line rate or a terabyte of buffer is far beyond any switch: a typo, not a fabric */
		if (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > 1e12)
			return hw_topo_fail(err, HW_TOPO_E_FORMAT,
			                    "%s: %s: fabric.%s must be a number above 0 (up to 1e12)", path, where, k);
		*(double *)((char *)f + keys[i].off) = json_number_value(v);
	}
	if (f->xon_bytes > 0 && f->xoff_bytes > 0 && f->xon_bytes > f->xoff_bytes)
		return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: %s: fabric.xon_bytes %.0f is above xoff_bytes %.0f",
		                    path, where, f->xon_bytes, f->xoff_bytes);
	return HW_TOPO_OK;
}

struct hw_topo_map_fabric hw_topo_map_fabric_of(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id)
{
	struct hw_topo_map_fabric f = {0, 0, 0, 0, 0};
	if (!m)
		return f;
	const struct hw_topo_map_node *mn = entry_of_id(t, m, node_id);
	const struct hw_topo_map_fabric *n = mn ? &mn->fabric : &f, *top = &m->fabric;
	f.host_gbps = n->host_gbps > 0 ? n->host_gbps : top->host_gbps;
	f.fabric_gbps = n->fabric_gbps > 0 ? n->fabric_gbps : top->fabric_gbps;
	f.xoff_bytes = n->xoff_bytes > 0 ? n->xoff_bytes : top->xoff_bytes;
	f.xon_bytes = n->xon_bytes > 0 ? n->xon_bytes : top->xon_bytes;
	f.lossy_buffer_bytes = n->lossy_buffer_bytes > 0 ? n->lossy_buffer_bytes : top->lossy_buffer_bytes;
	return f;
}

struct hw_topo_map_units hw_topo_map_units_of(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id)
{
	return hw_topo_map_units_or(t, m, node_id, (struct hw_topo_map_units){1, 1});
}

struct hw_topo_map_units hw_topo_map_units_or(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id,
                                              struct hw_topo_map_units dflt)
{
	struct hw_topo_map_units u = {dflt.time_ns ? dflt.time_ns : 1, dflt.occ_bytes ? dflt.occ_bytes : 1};
	if (!m)
		return u;
	const struct hw_topo_map_node *mn = entry_of_id(t, m, node_id);
	u.time_ns = mn && mn->units.time_ns ? mn->units.time_ns : m->units.time_ns ? m->units.time_ns : u.time_ns;
	u.occ_bytes = mn && mn->units.occ_bytes ? mn->units.occ_bytes
	              : m->units.occ_bytes      ? m->units.occ_bytes
	                                        : u.occ_bytes;
	return u;
}

static enum hw_topo_result load_node(struct hw_topo_map_node *n, json_t *e, const char *path, size_t i,
                                     struct hw_topo_error *err)
{
	memset(n, 0, sizeof(*n));
	n->tier = -1;
	json_t *name = json_object_get(e, "name"), *id = json_object_get(e, "node_id");
	if (!json_is_string(name))
		return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: nodes[%zu]: \"name\" (string) is required", path, i);
	snprintf(n->name, sizeof(n->name), "%s", json_string_value(name));
	if (id && !parse_node_id(id, &n->node_id))
		return hw_topo_fail(err, HW_TOPO_E_FORMAT,
		                    "%s: nodes[%zu] (%s): node_id must be a 32-bit number, \"0x..\" or an IPv4 address",
		                    path, i, n->name);
	if (json_object_get(e, "tier") && (n->tier = parse_tier(json_object_get(e, "tier"))) < -1)
		return hw_topo_fail(err, HW_TOPO_E_FORMAT,
		                    "%s: nodes[%zu] (%s): tier must be host|leaf|spine|superspine", path, i, n->name);
	json_t *fmt = json_object_get(e, "port_format");
	if (fmt) {
		if (!json_is_string(fmt) || !format_ok(json_string_value(fmt)))
			return hw_topo_fail(err, HW_TOPO_E_FORMAT,
			                    "%s: nodes[%zu] (%s): port_format needs exactly one %%u", path, i, n->name);
		snprintf(n->port_format, sizeof(n->port_format), "%s", json_string_value(fmt));
	}
	char where[HW_TOPO_NAME_MAX + 32];
	snprintf(where, sizeof(where), "nodes[%zu] (%s)", i, n->name);
	enum hw_topo_result ur = hw_topo_map_units_load(&n->units, e, path, where, err);
	if (ur == HW_TOPO_OK)
		ur = fabric_load(&n->fabric, e, path, where, err);
	if (ur != HW_TOPO_OK)
		return ur;
	json_t *ports = json_object_get(e, "ports"), *v;
	const char *k;
	if (ports && !json_is_object(ports))
		return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: nodes[%zu] (%s): ports must be an object", path, i,
		                    n->name);
	n->ports = calloc(json_object_size(ports) + 1, sizeof(*n->ports));
	if (!n->ports)
		return hw_topo_fail(err, HW_TOPO_E_NOMEM, "%s: out of memory", path);
	json_object_foreach(ports, k, v)
	{
		char *end;
		unsigned long p = strtoul(k, &end, 10);
		if (*end || end == k || p > UINT32_MAX || !json_is_string(v))
			return hw_topo_fail(
			    err, HW_TOPO_E_FORMAT,
			    "%s: nodes[%zu] (%s): ports maps port numbers to interface names; bad \"%s\"", path, i,
			    n->name, k);
		n->ports[n->n_ports].port = (uint32_t)p;
		snprintf(n->ports[n->n_ports++].ifname, sizeof(n->ports[0].ifname), "%s", json_string_value(v));
	}
	return HW_TOPO_OK;
}

enum hw_topo_result hw_topo_map_load(struct hw_topo_map *m, const char *path, struct hw_topo_error *err)
{
	memset(m, 0, sizeof(*m));
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root)
		return hw_topo_fail(err, je.line < 0 ? HW_TOPO_E_IO : HW_TOPO_E_JSON, "%s: line %d: %s", path, je.line,
		                    je.text);
	enum hw_topo_result r = HW_TOPO_OK;
	json_t *nodes = json_object_get(root, "nodes"), *fmt = json_object_get(root, "port_format");
	if (!json_is_object(root) || (nodes && !json_is_array(nodes)))
		r = hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: expected {\"nodes\": [...], \"port_format\": ...}", path);
	else if (fmt && (!json_is_string(fmt) || !format_ok(json_string_value(fmt))))
		r = hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: port_format needs exactly one %%u", path);
	if (r == HW_TOPO_OK && fmt)
		snprintf(m->port_format, sizeof(m->port_format), "%s", json_string_value(fmt));
	if (r == HW_TOPO_OK)
		r = hw_topo_map_units_load(&m->units, root, path, "top level", err);
	if (r == HW_TOPO_OK)
		r = fabric_load(&m->fabric, root, path, "top level", err);
	if (r == HW_TOPO_OK && !(m->nodes = calloc(json_array_size(nodes) + 1, sizeof(*m->nodes))))
		r = hw_topo_fail(err, HW_TOPO_E_NOMEM, "%s: out of memory", path);
	for (size_t i = 0; r == HW_TOPO_OK && i < json_array_size(nodes); i++) {
		r = load_node(&m->nodes[i], json_array_get(nodes, i), path, i, err);
		m->n_nodes++;
	}
	json_decref(root);
	if (r != HW_TOPO_OK)
		hw_topo_map_free(m);
	return r;
}

void hw_topo_map_free(struct hw_topo_map *m)
{
	for (uint32_t i = 0; m->nodes && i < m->n_nodes; i++)
		free(m->nodes[i].ports);
	free(m->nodes);
	memset(m, 0, sizeof(*m));
}

void hw_topo_map_apply(struct hw_topo *t, const struct hw_topo_map *m)
{
	for (uint32_t i = 0; i < t->n_nodes; i++)
		t->nodes[i].node_id = t->nodes[i].mgmt_v4;
	for (uint32_t k = 0; m && k < m->n_nodes; k++) {
		uint32_t n = hw_topo_find_node_by_name(t, m->nodes[k].name);
		if (n == HW_TOPO_NONE)
			continue;
		if (m->nodes[k].node_id)
			t->nodes[n].node_id = m->nodes[k].node_id;
		if (m->nodes[k].tier >= 0) {
			t->nodes[n].tier = (uint8_t)m->nodes[k].tier;
			t->nodes[n].tier_fixed = 1;
		}
	}
}

static const struct hw_topo_map_node *map_node(const struct hw_topo_map *m, const char *name)
{
	for (uint32_t k = 0; m && k < m->n_nodes; k++)
		if (strcmp(m->nodes[k].name, name) == 0)
			return &m->nodes[k];
	return NULL;
}

/* The interface name the map gives port `port` of the node named `name` (its explicit "ports" entry, else
 * its or the top-level port_format); 0 when it gives none. */
static int map_ifname(const struct hw_topo_map *m, const char *name, uint32_t port, char *ifname, size_t size)
{
	const struct hw_topo_map_node *mn = map_node(m, name);
	ifname[0] = 0;
	for (uint32_t k = 0; mn && k < mn->n_ports && !ifname[0]; k++)
		if (mn->ports[k].port == port)
			snprintf(ifname, size, "%s", mn->ports[k].ifname);
	const char *fmt = mn && mn->port_format[0] ? mn->port_format : (m ? m->port_format : "");
	if (!ifname[0] && fmt[0] && format_ok(fmt)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(ifname, size, fmt, port); /* format_ok(): exactly one %u */
#pragma GCC diagnostic pop
	}
	return ifname[0] != 0;
}

enum hw_topo_result hw_topo_from_map(struct hw_topo *t, const struct hw_topo_map *m, struct hw_topo_error *err)
{
	for (uint32_t k = 0; k < m->n_nodes; k++) {
		const struct hw_topo_map_node *mn = &m->nodes[k];
		if (hw_topo_find_node_by_name(t, mn->name) != HW_TOPO_NONE)
			continue; /* listed twice: the first entry is the one placement reads */
		struct hw_lldp_info info;
		memset(&info, 0, sizeof(info));
		info.chassis.subtype = HW_LLDP_CHASSIS_LOCAL; /* the map's name is all there is */
		snprintf(info.chassis.text, sizeof(info.chassis.text), "%s", mn->name);
		uint32_t n = hw_topo_node_of(t, &info, 0);
		if (n == HW_TOPO_NONE)
			return hw_topo_fail(err, HW_TOPO_E_NOMEM, "map: out of memory");
		t->nodes[n].tier = HW_TIER_LEAF; /* hw_topo_map_apply() sets the map's tier over it */
		for (uint32_t i = 0; i < mn->n_ports; i++)
			if (hw_topo_local_port(t, n, mn->ports[i].ifname, 0) == HW_TOPO_NONE)
				return hw_topo_fail(err, HW_TOPO_E_NOMEM, "map: out of memory");
	}
	hw_topo_map_apply(t, m);
	return HW_TOPO_OK;
}

uint32_t hw_topo_map_grow(struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id, uint32_t port)
{
	uint32_t n = hw_topo_find_node_by_id(t, node_id);
	char ifname[80];
	if (n == HW_TOPO_NONE || !map_ifname(m, t->nodes[n].name, port, ifname, sizeof(ifname)))
		return HW_TOPO_NONE;
	return hw_topo_local_port(t, n, ifname, 0);
}

enum hw_place_result hw_topo_place(const struct hw_topo *t, const struct hw_topo_map *m, uint32_t node_id,
                                   uint32_t port, uint32_t *node_out, uint32_t *port_out)
{
	uint32_t n = hw_topo_find_node_by_id(t, node_id);
	if (node_out)
		*node_out = n;
	if (port_out)
		*port_out = HW_TOPO_NONE;
	if (n == HW_TOPO_NONE)
		return HW_PLACE_NO_NODE;
	char ifname[80];
	if (!map_ifname(m, t->nodes[n].name, port, ifname, sizeof(ifname)))
		return HW_PLACE_NO_PORT_MAP;
	uint32_t p = hw_topo_find_port_by_name(t, n, ifname);
	if (p == HW_TOPO_NONE)
		return HW_PLACE_NO_PORT;
	if (port_out)
		*port_out = p;
	return HW_PLACE_OK;
}

/* The unplaced entry of (node_id, port), added when new; NULL when out of memory. */
static struct hw_place_entry *unplaced_entry(struct hw_place_tally *tally, uint32_t node_id, uint32_t port,
                                             enum hw_place_result why)
{
	for (uint32_t i = 0; i < tally->n_entries; i++)
		if (tally->entries[i].node_id == node_id && tally->entries[i].port == port)
			return &tally->entries[i];
	if (tally->n_entries == tally->cap_entries) {
		uint32_t cap = tally->cap_entries ? tally->cap_entries * 2 : 16;
		struct hw_place_entry *e = realloc(tally->entries, cap * sizeof(*e));
		if (!e)
			return NULL;
		tally->entries = e;
		tally->cap_entries = cap;
	}
	tally->entries[tally->n_entries] = (struct hw_place_entry){node_id, port, why, 0};
	return &tally->entries[tally->n_entries++];
}

enum hw_place_result hw_place_tally_add(struct hw_place_tally *tally, const struct hw_topo *t,
                                        const struct hw_topo_map *m, uint32_t node_id, uint32_t port)
{
	/* Per-hop records repeat a few thousand (node, port) pairs: remember each outcome (and, for an
	 * unplaced pair, its entry), so that a hop costs a lookup rather than a search of the topology. */
	if (!tally->cache)
		tally->cache = calloc(HW_PLACE_CACHE, sizeof(*tally->cache));
	uint32_t h = ((node_id * 2654435761u) ^ (port * 40503u)) & (HW_PLACE_CACHE - 1);
	struct hw_place_slot *slot = tally->cache ? &tally->cache[h] : NULL;
	enum hw_place_result r;
	uint32_t entry = UINT32_MAX;
	if (slot && slot->valid && slot->node_id == node_id && slot->port == port) {
		r = (enum hw_place_result)slot->why;
		entry = slot->entry;
	} else {
		r = hw_topo_place(t, m, node_id, port, NULL, NULL);
	}
	if (r == HW_PLACE_OK) {
		tally->placed++;
	} else {
		tally->unplaced++; /* counted even if the list cannot grow */
		struct hw_place_entry *e =
		    entry < tally->n_entries ? &tally->entries[entry] : unplaced_entry(tally, node_id, port, r);
		if (e) {
			e->count++;
			entry = (uint32_t)(e - tally->entries);
		}
	}
	if (slot)
		*slot = (struct hw_place_slot){node_id, port, entry, 1, (uint8_t)r};
	return r;
}

void hw_place_tally_free(struct hw_place_tally *tally)
{
	free(tally->entries);
	free(tally->cache);
	memset(tally, 0, sizeof(*tally));
}

enum hw_topo_result hw_place_records(struct hw_place_tally *tally, const struct hw_topo *t, const struct hw_topo_map *m,
                                     const char *path, struct hw_topo_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return hw_topo_fail(err, HW_TOPO_E_IO, "%s: cannot open", path);
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	enum hw_topo_result r = HW_TOPO_OK;
	while (r == HW_TOPO_OK && getline(&line, &cap, f) > 0) {
		lineno++;
		if (line[strspn(line, " \t\r\n")] == '\0')
			continue;
		json_error_t je;
		json_t *rec = json_loads(line, 0, &je);
		json_t *node = json_object_get(rec, "node_id");
		if (!json_is_integer(node)) {
			r = hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s:%ld: not a per-hop record with node_id", path,
			                 lineno);
		} else {
			static const char *const fields[] = {"ingress_port", "egress_port"};
			for (int k = 0; k < 2; k++) {
				json_t *p = json_object_get(rec, fields[k]);
				/* HW_PORT_NONE: the hop chose no egress port (a drop), nothing to place */
				if (json_is_integer(p) && (uint32_t)json_integer_value(p) != HW_PORT_NONE)
					hw_place_tally_add(tally, t, m, (uint32_t)json_integer_value(node),
					                   (uint32_t)json_integer_value(p));
			}
		}
		json_decref(rec);
	}
	free(line);
	fclose(f);
	return r;
}

/* One field of a names line: tabs and line ends (which an LLDP name may hold) become spaces. */
static void put_field(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static void put_port(FILE *f, uint32_t node_id, uint32_t port, const char *ifname)
{
	fprintf(f, "port\t%" PRIu32 "\t%" PRIu32 "\t", node_id, port);
	put_field(f, ifname);
	fputc('\n', f);
}

/* The INT port number that fmt (one %u) turns into name, or -1 when it makes no such name. */
static long port_of_name(const char *fmt, const char *name)
{
	const char *pct = strstr(fmt, "%u");
	size_t pre = (size_t)(pct - fmt), suf = strlen(pct + 2), len = strlen(name);
	if (len <= pre + suf || strncmp(name, fmt, pre) || strcmp(name + len - suf, pct + 2))
		return -1;
	long v = 0;
	for (size_t i = pre; i < len - suf; i++) {
		if (name[i] < '0' || name[i] > '9' || (i > pre && v == 0) || v > 0xffffffffL / 10)
			return -1; /* not digits, a leading zero (the format prints none), or too long */
		v = v * 10 + (name[i] - '0');
	}
	return v <= 0xffffffffL ? v : -1;
}

int hw_topo_names_write(FILE *f, const struct hw_topo *t, const struct hw_topo_map *m)
{
	for (uint32_t n = 0; n < t->n_nodes; n++) {
		const struct hw_topo_node *nd = &t->nodes[n];
		if (!nd->node_id || hw_topo_find_node_by_id(t, nd->node_id) != n)
			continue; /* no INT id, or another node holds it (placement finds that one) */
		fprintf(f, "node\t%" PRIu32 "\t", nd->node_id);
		put_field(f, nd->name);
		fputc('\n', f);
		const struct hw_topo_map_node *mn = map_node(m, nd->name);
		uint32_t pi;
		for (uint32_t k = 0; mn && k < mn->n_ports; k++)
			if (hw_topo_place(t, m, nd->node_id, mn->ports[k].port, NULL, &pi) == HW_PLACE_OK)
				put_port(f, nd->node_id, mn->ports[k].port, t->ports[pi].name);
		const char *fmt = mn && mn->port_format[0] ? mn->port_format : (m ? m->port_format : "");
		if (!fmt[0] || !format_ok(fmt))
			continue;
		for (uint32_t p = nd->first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
			long num = port_of_name(fmt, t->ports[p].name);
			int listed = 0; /* an explicit entry for this number wins over the format */
			for (uint32_t k = 0; mn && k < mn->n_ports && num >= 0; k++)
				listed |= mn->ports[k].port == (uint32_t)num;
			if (num >= 0 && !listed &&
			    hw_topo_place(t, m, nd->node_id, (uint32_t)num, NULL, &pi) == HW_PLACE_OK && pi == p)
				put_port(f, nd->node_id, (uint32_t)num, t->ports[p].name);
		}
	}
	return ferror(f) ? -1 : 0;
}
