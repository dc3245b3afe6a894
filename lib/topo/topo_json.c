/* The topology as JSON (jansson): nodes, ports, links, events, frame counts and the INT placement tally.
 * docs/topology.md describes the fields; tests read this file to compare topologies. */
#include <jansson.h>
#include <string.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_render.h"

static json_t *caps_json(uint16_t bits)
{
	json_t *a = json_array();
	for (unsigned b = 0; b < 16; b++)
		if (bits & (1u << b) && hw_lldp_cap_name((uint16_t)(1u << b)))
			json_array_append_new(a, json_string(hw_lldp_cap_name((uint16_t)(1u << b))));
	return a;
}

static json_t *end_json(const struct hw_topo *t, uint32_t port)
{
	return json_pack("{s:s,s:s}", "node", t->nodes[t->ports[port].node].name, "port", t->ports[port].name);
}

static json_t *node_json(const struct hw_topo *t, uint32_t i)
{
	const struct hw_topo_node *n = &t->nodes[i];
	char id[600];
	hw_topo_node_svg_id(t, i, id, sizeof(id));
	json_t *mgmt = json_array();
	for (unsigned k = 0; k < n->n_mgmt; k++)
		json_array_append_new(mgmt, json_string(n->mgmt[k]));
	json_t *o = json_pack(
	    "{s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:o,s:b,s:f,s:f,s:f}", "id", id, "name", n->name, "chassis_id", n->chassis_id,
	    "chassis_subtype", hw_lldp_chassis_subtype_name(n->chassis_subtype), "descr", n->descr, "tier",
	    hw_topo_tier_name(n->tier), "node_id", (json_int_t)n->node_id, "mgmt", mgmt, "observer", n->observer,
	    "first_seen", n->first_seen, "last_seen", n->last_seen, "expires", n->expires);
	if (o && n->has_caps) {
		json_object_set_new(o, "capabilities", caps_json(n->cap_system));
		json_object_set_new(o, "enabled", caps_json(n->cap_enabled));
	}
	return o;
}

static json_t *port_json(const struct hw_topo *t, uint32_t i)
{
	const struct hw_topo_port *p = &t->ports[i];
	json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:f,s:f}", "node", t->nodes[p->node].name, "name", p->name, "id",
	                      p->id, "id_subtype", p->id_subtype ? hw_lldp_port_subtype_name(p->id_subtype) : "none",
	                      "descr", p->descr, "learned", p->learned, "expires", p->expires);
	if (!o)
		return o;
	if (p->max_frame)
		json_object_set_new(o, "max_frame", json_integer(p->max_frame));
	if (p->has_pfc) {
		json_t *a = json_array();
		for (unsigned b = 0; b < 8; b++)
			if (p->pfc_enable & (1u << b))
				json_array_append_new(a, json_integer(b));
		json_object_set_new(o, "pfc_enabled", a);
	}
	if (p->has_agg)
		json_object_set_new(o, "aggregation",
		                    json_pack("{s:b,s:b,s:I}", "capable", p->agg_status & 1, "enabled",
		                              (p->agg_status >> 1) & 1, "port_id", (json_int_t)p->agg_port_id));
	if (p->port_vlan)
		json_object_set_new(o, "port_vlan", json_integer(p->port_vlan));
	return o;
}

static json_t *link_json(const struct hw_topo *t, uint32_t i)
{
	const struct hw_topo_link *l = &t->links[i];
	char id[1200];
	hw_topo_link_svg_id(t, i, id, sizeof(id));
	json_t *flags = json_array();
	static const struct {
		uint32_t bit;
		const char *name;
	} fl[] = {{HW_LINK_MTU_MISMATCH, "MtuMismatch"},
	          {HW_LINK_PFC_MISMATCH, "PfcMismatch"},
	          {HW_LINK_ONE_SIDED, "OneSidedNeighbor"},
	          {HW_LINK_GONE, "Gone"}};
	for (size_t k = 0; k < sizeof(fl) / sizeof(fl[0]); k++)
		if (l->flags & fl[k].bit)
			json_array_append_new(flags, json_string(fl[k].name));
	return json_pack("{s:s,s:o,s:o,s:b,s:b,s:b,s:o,s:f,s:f,s:f}", "id", id, "a", end_json(t, l->a), "b",
	                 end_json(t, l->b), "up", l->up, "seen_by_a", l->seen_by_a, "seen_by_b", l->seen_by_b, "flags",
	                 flags, "first_seen", l->first_seen, "last_seen", l->last_seen, "expires", l->expires);
}

static json_t *event_json(const struct hw_topo_event *e)
{
	return json_pack("{s:s,s:f,s:{s:s,s:s},s:{s:s,s:s},s:s}", "kind", hw_topo_event_name(e->kind), "time", e->time,
	                 "a", "node", e->a_node, "port", e->a_port, "b", "node", e->b_node, "port", e->b_port, "detail",
	                 e->detail);
}

enum hw_topo_result hw_topo_write_json(const struct hw_topo *t, const struct hw_place_tally *tally, const char *path,
                                       struct hw_topo_error *err)
{
	json_t *nodes = json_array(), *ports = json_array(), *links = json_array(), *events = json_array();
	for (uint32_t i = 0; i < t->n_nodes; i++)
		json_array_append_new(nodes, node_json(t, i));
	for (uint32_t i = 0; i < t->n_ports; i++)
		json_array_append_new(ports, port_json(t, i));
	for (uint32_t i = 0; i < t->n_links; i++)
		json_array_append_new(links, link_json(t, i));
	for (uint32_t i = 0; i < t->n_events; i++)
		json_array_append_new(events, event_json(&t->events[i]));
	json_t *rejected = json_object();
	for (int r = HW_LLDP_E_L2_TRUNCATED; r < HW_LLDP_RESULT_COUNT; r++)
		if (t->frames_rejected[r])
			json_object_set_new(rejected, hw_lldp_result_name((enum hw_lldp_result)r),
			                    json_integer((json_int_t)t->frames_rejected[r]));
	json_t *root = json_pack("{s:o,s:o,s:o,s:o,s:{s:I,s:o}}", "nodes", nodes, "ports", ports, "links", links,
	                         "events", events, "frames", "lldp", (json_int_t)t->frames_lldp, "rejected", rejected);
	if (root && tally) {
		json_t *list = json_array();
		for (uint32_t i = 0; i < tally->n_entries; i++)
			json_array_append_new(list, json_pack("{s:I,s:I,s:s,s:I}", "node_id",
			                                      (json_int_t)tally->entries[i].node_id, "port",
			                                      (json_int_t)tally->entries[i].port, "reason",
			                                      hw_place_name(tally->entries[i].why), "count",
			                                      (json_int_t)tally->entries[i].count));
		json_object_set_new(root, "placement",
		                    json_pack("{s:I,s:I,s:o}", "placed", (json_int_t)tally->placed, "unplaced",
		                              (json_int_t)tally->unplaced, "unplaced_ports", list));
	}
	if (!root)
		return hw_topo_fail(err, HW_TOPO_E_NOMEM, "%s: cannot build the JSON document", path);
	int rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(root);
	return rc ? hw_topo_fail(err, HW_TOPO_E_IO, "%s: cannot write", path) : HW_TOPO_OK;
}
