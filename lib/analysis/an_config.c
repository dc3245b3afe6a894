/* The analyzer's JSON configuration: documented defaults (docs/analyzer.md) and a table-driven loader that
 * names the file and the key of anything it does not understand; the detectors declare their own keys. */
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "detector.h"
#include "hopwatch/topo_map.h"

/* The core's own keys; each detector declares its own (detector.h). */
static const struct an_key core_keys[] = {
    AN_KEY("limits", "max_queues", AN_U32, max_queues),
    AN_KEY("limits", "max_flows", AN_U32, max_flows),
    AN_KEY("postcards", "window_ns", AN_U64, postcard_window_ns),
    AN_KEY("alerting", "resend_ns", AN_U64, resend_ns),
    AN_KEY("alerting", "queue", AN_U32, alert_queue),
    AN_KEY("alerting", "min_visible_ns", AN_U64, min_visible_ns),
    AN_KEY("fabric", "host_gbps", AN_DOUBLE, fabric.host_gbps),
    AN_KEY("fabric", "fabric_gbps", AN_DOUBLE, fabric.fabric_gbps),
    AN_KEY("fabric", "xoff_bytes", AN_DOUBLE, fabric.xoff_bytes),
    AN_KEY("fabric", "xon_bytes", AN_DOUBLE, fabric.xon_bytes),
    AN_KEY("fabric", "lossy_buffer_bytes", AN_DOUBLE, fabric.lossy_buffer_bytes),
    AN_KEY("fabric", "lossless_queues", AN_U32, fabric.lossless_queues),
};
#define N_CORE_KEYS (sizeof(core_keys) / sizeof(core_keys[0]))

void hw_an_config_default(struct hw_an_config *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < an_registry_count; i++)
		if (an_registry[i]->defaults)
			an_registry[i]->defaults(c);
	c->max_queues = 16384;
	c->max_flows = 65536;
	c->postcard_window_ns = 50000;
	c->enabled = (1u << HW_AN_KIND_COUNT) - 1;
	c->resend_ns = 60000000000ull;
	c->alert_queue = 4096;
	c->min_visible_ns = 30000000000ull;
	/* A RoCE fabric of 100G hosts under 400G switch links, queues 3 and 4 lossless (the usual RoCE
	 * priorities), PFC Xoff 400 KB / Xon 300 KB per ingress port, 1 MB lossy queues (docs/analyzer.md,
	 * "Thresholds from the fabric", says where each comes from). */
	c->fabric = (struct hw_an_fabric){100, 400, 400e3, 300e3, 1024e3, (1u << 3) | (1u << 4)};
}

/* Key i of the core's and the detectors' keys, in that order; NULL past the last. */
static const struct an_key *key_at(unsigned i)
{
	if (i < N_CORE_KEYS)
		return &core_keys[i];
	i -= (unsigned)N_CORE_KEYS;
	for (unsigned d = 0; d < an_registry_count; d++) {
		if (i < an_registry[d]->n_keys)
			return &an_registry[d]->keys[i];
		i -= an_registry[d]->n_keys;
	}
	return NULL;
}

static int set(struct hw_an_config *c, const struct an_key *k, json_t *v, const char *path, char *err, size_t errlen)
{
	if (!json_is_number(v)) {
		snprintf(err, errlen, "%s: %s.%s: expected a number", path, k->section, k->name);
		return -1;
	}
	double d = json_number_value(v);
	char *p = (char *)c + k->off;
	/* floor, not a cast to an integer: a cast of a value beyond its range (40e96) is undefined
	 * (fuzz_analyzer_config) */
	if (k->type != AN_DOUBLE && (d < (k->type == AN_INT ? -1 : 0) || d != floor(d))) {
		snprintf(err, errlen, "%s: %s.%s: expected a whole number%s", path, k->section, k->name,
		         k->type == AN_INT ? " (-1 = not checked)" : " >= 0");
		return -1;
	}
	double max = k->type == AN_U8    ? 255
	             : k->type == AN_U32 ? 4294967295.0
	             : k->type == AN_INT ? 2147483647.0
	                                 : 1.8e19;
	if (d > max) {
		snprintf(err, errlen, "%s: %s.%s: %g is out of range", path, k->section, k->name, d);
		return -1;
	}
	switch (k->type) {
	case AN_DOUBLE: *(double *)p = d; break;
	case AN_U64: *(uint64_t *)p = (uint64_t)d; break;
	case AN_U32: *(uint32_t *)p = (uint32_t)d; break;
	case AN_U8: *(uint8_t *)p = (uint8_t)d; break;
	case AN_INT: *(int *)p = (int)d; break;
	}
	return 0;
}

static int load_detectors(struct hw_an_config *c, json_t *obj, const char *path, char *err, size_t errlen)
{
	const char *name;
	json_t *v;
	json_object_foreach(obj, name, v)
	{
		int k = hw_an_kind_by_name(name);
		if (k < 0) {
			snprintf(err, errlen, "%s: detectors.%s: unknown detector", path, name);
			return -1;
		}
		if (!json_is_boolean(v)) {
			snprintf(err, errlen, "%s: detectors.%s: expected true or false", path, name);
			return -1;
		}
		if (json_is_true(v))
			c->enabled |= 1u << k;
		else
			c->enabled &= ~(1u << k);
	}
	return 0;
}

/* "units": the telemetry units of the nodes whose map entry gives none, in the map's words (docs/topology.md:
 * "target", "time_unit", "occupancy_unit", "unit_bytes"), so thresholds stay in ns and bytes. */
static int load_units(struct hw_an_config *c, json_t *obj, const char *path, char *err, size_t errlen)
{
	const char *name;
	json_t *v;
	json_object_foreach(obj, name, v)
	{
		if (strcmp(name, "target") && strcmp(name, "time_unit") && strcmp(name, "occupancy_unit") &&
		    strcmp(name, "unit_bytes")) {
			snprintf(err, errlen, "%s: units.%s: unknown key", path, name);
			return -1;
		}
	}
	struct hw_topo_map_units u = {c->units_time_ns, c->units_occ_bytes};
	struct hw_topo_error te = {0};
	if (hw_topo_map_units_load(&u, obj, path, "units", &te) != HW_TOPO_OK) {
		snprintf(err, errlen, "%s", te.message);
		return -1;
	}
	c->units_time_ns = u.time_ns;
	c->units_occ_bytes = u.occ_bytes;
	return 0;
}

int hw_an_config_load(struct hw_an_config *c, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root) {
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return -1;
	}
	int rc = 0;
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: expected a JSON object", path);
		rc = -1;
	}
	const char *sec;
	json_t *obj;
	json_object_foreach(root, sec, obj)
	{
		if (rc)
			break;
		if (!json_is_object(obj)) {
			snprintf(err, errlen, "%s: %s: expected an object", path, sec);
			rc = -1;
			break;
		}
		if (strcmp(sec, "detectors") == 0) {
			rc = load_detectors(c, obj, path, err, errlen);
			continue;
		}
		if (strcmp(sec, "units") == 0) {
			rc = load_units(c, obj, path, err, errlen);
			continue;
		}
		int known = 0;
		for (unsigned i = 0; key_at(i); i++)
			known |= strcmp(key_at(i)->section, sec) == 0;
		if (!known) {
			snprintf(err, errlen, "%s: %s: unknown key", path, sec);
			rc = -1;
			break;
		}
		const char *name;
		json_t *v;
		json_object_foreach(obj, name, v)
		{
			const struct an_key *k;
			for (unsigned i = 0; (k = key_at(i)) && (strcmp(k->section, sec) || strcmp(k->name, name)); i++)
				;
			if (!k) {
				snprintf(err, errlen, "%s: %s.%s: unknown key", path, sec, name);
				rc = -1;
				break;
			}
			if ((rc = set(c, k, v, path, err, errlen)))
				break;
		}
	}
	if (!rc && (c->max_queues == 0 || c->max_flows == 0 || c->alert_queue == 0)) {
		snprintf(err, errlen, "%s: limits and alerting.queue must be above 0", path);
		rc = -1;
	}
	json_decref(root);
	return rc;
}
