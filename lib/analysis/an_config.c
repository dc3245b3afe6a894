/* The analyzer's JSON configuration: documented defaults (docs/analyzer.md) and a table-driven loader that
 * names the file and the key of anything it does not understand. */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hopwatch/analyzer.h"

void hw_an_config_default(struct hw_an_config *c)
{
	memset(c, 0, sizeof(*c));
	c->high_queue = (struct hw_an_hyst){10000, 8000, 100000, 1000000};
	c->high_latency = (struct hw_an_hyst){1000000, 800000, 100000, 1000000};
	c->buildup_window_ns = 1000000;
	c->buildup_lead_ns = 1000000;
	c->buildup_min_samples = 4;
	c->buildup_steep_from = 0.5;
	c->microburst_raise = 10000;
	c->microburst_clear = 2000;
	c->microburst_max_ns = 1000000;
	c->drops_ratio = 0.001;
	c->drops_window_ns = 10000000;
	c->drops_min = 1;
	c->seq_loss_ratio = 0.001;
	c->seq_window_ns = 100000000;
	c->path_change_clear_ns = 1000000000;
	c->incast_sources = 4;
	c->incast_occupancy = 10000;
	c->incast_window_ns = 1000000;
	c->roce_dscp = 26;
	c->cnp_dscp = 48;
	c->roce_queue = 3;
	c->cnp_queue = 6;
	c->dscp_clear_ns = 100000000;
	c->tree_victims = 2;
	c->max_queues = 16384;
	c->max_flows = 65536;
	c->enabled = (1u << HW_AN_KIND_COUNT) - 1;
	c->resend_ns = 60000000000ull;
	c->alert_queue = 4096;
}

enum type { T_DOUBLE, T_U64, T_U32, T_U8, T_INT };
static const struct key {
	const char *section, *name;
	enum type type;
	size_t off;
} keys[] = {
#define K(s, n, t, f)                                                                                                  \
	{                                                                                                              \
		s, n, t, offsetof(struct hw_an_config, f)                                                              \
	}
    K("high_queue", "raise", T_DOUBLE, high_queue.raise),
    K("high_queue", "clear", T_DOUBLE, high_queue.clear),
    K("high_queue", "hold_ns", T_U64, high_queue.hold_ns),
    K("high_queue", "clear_ns", T_U64, high_queue.clear_ns),
    K("high_hop_latency", "raise", T_DOUBLE, high_latency.raise),
    K("high_hop_latency", "clear", T_DOUBLE, high_latency.clear),
    K("high_hop_latency", "hold_ns", T_U64, high_latency.hold_ns),
    K("high_hop_latency", "clear_ns", T_U64, high_latency.clear_ns),
    K("queue_buildup", "window_ns", T_U64, buildup_window_ns),
    K("queue_buildup", "lead_ns", T_U64, buildup_lead_ns),
    K("queue_buildup", "min_samples", T_U32, buildup_min_samples),
    K("queue_buildup", "steep_from", T_DOUBLE, buildup_steep_from),
    K("microburst", "raise", T_DOUBLE, microburst_raise),
    K("microburst", "clear", T_DOUBLE, microburst_clear),
    K("microburst", "max_ns", T_U64, microburst_max_ns),
    K("packet_drops", "ratio", T_DOUBLE, drops_ratio),
    K("packet_drops", "window_ns", T_U64, drops_window_ns),
    K("packet_drops", "min_drops", T_U32, drops_min),
    K("report_loss", "ratio", T_DOUBLE, seq_loss_ratio),
    K("report_loss", "window_ns", T_U64, seq_window_ns),
    K("path_change", "clear_ns", T_U64, path_change_clear_ns),
    K("incast", "sources", T_U32, incast_sources),
    K("incast", "occupancy", T_DOUBLE, incast_occupancy),
    K("incast", "window_ns", T_U64, incast_window_ns),
    K("roce_dscp", "roce_dscp", T_U8, roce_dscp),
    K("roce_dscp", "cnp_dscp", T_U8, cnp_dscp),
    K("roce_dscp", "roce_queue", T_INT, roce_queue),
    K("roce_dscp", "cnp_queue", T_INT, cnp_queue),
    K("roce_dscp", "clear_ns", T_U64, dscp_clear_ns),
    K("congestion_tree", "victims", T_U32, tree_victims),
    K("congestion_tree", "victim_occupancy", T_DOUBLE, tree_victim_occupancy),
    K("limits", "max_queues", T_U32, max_queues),
    K("limits", "max_flows", T_U32, max_flows),
    K("alerting", "resend_ns", T_U64, resend_ns),
    K("alerting", "queue", T_U32, alert_queue),
#undef K
};

static int set(struct hw_an_config *c, const struct key *k, json_t *v, const char *path, char *err, size_t errlen)
{
	if (!json_is_number(v)) {
		snprintf(err, errlen, "%s: %s.%s: expected a number", path, k->section, k->name);
		return -1;
	}
	double d = json_number_value(v);
	char *p = (char *)c + k->off;
	if (k->type != T_DOUBLE && (d < (k->type == T_INT ? -1 : 0) || d != (double)(long long)d)) {
		snprintf(err, errlen, "%s: %s.%s: expected a whole number%s", path, k->section, k->name,
		         k->type == T_INT ? " (-1 = not checked)" : " >= 0");
		return -1;
	}
	double max = k->type == T_U8 ? 255 : k->type == T_U32 ? 4294967295.0 : k->type == T_INT ? 2147483647.0 : 1.8e19;
	if (d > max) {
		snprintf(err, errlen, "%s: %s.%s: %g is out of range", path, k->section, k->name, d);
		return -1;
	}
	switch (k->type) {
	case T_DOUBLE: *(double *)p = d; break;
	case T_U64: *(uint64_t *)p = (uint64_t)d; break;
	case T_U32: *(uint32_t *)p = (uint32_t)d; break;
	case T_U8: *(uint8_t *)p = (uint8_t)d; break;
	case T_INT: *(int *)p = (int)d; break;
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
		int known = 0;
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			known |= strcmp(keys[i].section, sec) == 0;
		if (!known) {
			snprintf(err, errlen, "%s: %s: unknown key", path, sec);
			rc = -1;
			break;
		}
		const char *name;
		json_t *v;
		json_object_foreach(obj, name, v)
		{
			size_t i = 0;
			while (i < sizeof(keys) / sizeof(keys[0]) &&
			       (strcmp(keys[i].section, sec) || strcmp(keys[i].name, name)))
				i++;
			if (i == sizeof(keys) / sizeof(keys[0])) {
				snprintf(err, errlen, "%s: %s.%s: unknown key", path, sec, name);
				rc = -1;
				break;
			}
			if ((rc = set(c, &keys[i], v, path, err, errlen)))
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
