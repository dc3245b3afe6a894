/* The "link that disappeared" check across snapshots: links that were up in an earlier --json-out output and
 * are not up now.  lldpcli dumps drop a neighbour silently, so only a baseline can tell. */
#include <jansson.h>
#include <string.h>

#include "hopwatch/topo.h"

static const char *str(json_t *end, const char *key)
{
	const char *s = json_string_value(json_object_get(end, key));
	return s ? s : "";
}

/* Is there an up link between node a's port pa and node b's port pb? */
static int up_between(const struct hw_topo *t, const char *a, const char *pa, const char *b, const char *pb)
{
	uint32_t na = hw_topo_find_node_by_name(t, a);
	uint32_t p = na == HW_TOPO_NONE ? HW_TOPO_NONE : hw_topo_find_port_by_name(t, na, pa);
	uint32_t q = hw_topo_peer(t, p);
	if (q == HW_TOPO_NONE || !t->links[t->ports[p].link].up)
		return 0;
	return strcmp(t->nodes[t->ports[q].node].name, b) == 0 && strcmp(t->ports[q].name, pb) == 0;
}

enum hw_topo_result hw_topo_compare_baseline(struct hw_topo *t, const char *path, double now, struct hw_topo_error *err)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root)
		return hw_topo_fail(err, je.line < 0 ? HW_TOPO_E_IO : HW_TOPO_E_JSON, "%s: line %d: %s", path, je.line,
		                    je.text);
	json_t *links = json_object_get(root, "links"), *l;
	if (!json_is_array(links)) {
		json_decref(root);
		return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s: not a hopwatch topology JSON (no \"links\" array)",
		                    path);
	}
	size_t i;
	json_array_foreach(links, i, l)
	{
		json_t *a = json_object_get(l, "a"), *b = json_object_get(l, "b");
		if (!json_is_true(json_object_get(l, "up")) || !json_is_object(a) || !json_is_object(b))
			continue;
		if (up_between(t, str(a, "node"), str(a, "port"), str(b, "node"), str(b, "port")) ||
		    up_between(t, str(b, "node"), str(b, "port"), str(a, "node"), str(a, "port")))
			continue;
		hw_topo_event_named(t, HW_EV_LINK_DISAPPEARED, now, str(a, "node"), str(a, "port"), str(b, "node"),
		                    str(b, "port"), "up in %.200s, not up now", path);
	}
	json_decref(root);
	return HW_TOPO_OK;
}
