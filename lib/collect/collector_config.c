/* Reading the collector's JSON configuration with jansson: every key is known, every value checked,
 * and an error names the file, the key and the expected form. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector_config.h"

void hw_collector_config_default(struct hw_collector_config *c)
{
	memset(c, 0, sizeof(*c));
	hw_parser_config_default(&c->parser);
	c->sizes = (struct hw_worker_sizes){.queues = 65536, .senders = 4096, .flows = 262144, .ring_batches = 64};
	c->latency_unit_ns = 1;
	c->occupancy_unit_bytes = 1;
	c->rotate_bytes = 256ull << 20;
	c->rotate_seconds = 300;
	c->clickhouse_table = "hops";
	c->clickhouse_batch_records = 16384;
	c->clickhouse_batch_ms = 1000;
	c->clickhouse_queue_records = 262144;
	c->clickhouse_drain_s = 10;
}

struct ctx {
	const char *path;
	char *err;
	size_t errlen;
};

static int bad(struct ctx *x, const char *key, const char *want)
{
	snprintf(x->err, x->errlen, "%s: key \"%s\": expected %s", x->path, key, want);
	return -1;
}

static int get_uint(struct ctx *x, json_t *v, const char *key, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) < lo ||
	    (uint64_t)json_integer_value(v) > hi) {
		char want[96];
		snprintf(want, sizeof(want), "an integer from %llu to %llu", (unsigned long long)lo,
		         (unsigned long long)hi);
		return bad(x, key, want);
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_ports(struct ctx *x, json_t *v, const char *key, uint16_t *ports, uint8_t *n)
{
	if (!json_is_array(v) || json_array_size(v) > HW_MAX_PORTS)
		return bad(x, key, "an array of at most 8 UDP ports");
	size_t i;
	json_t *p;
	*n = 0;
	json_array_foreach(v, i, p)
	{
		uint64_t port;
		if (get_uint(x, p, key, 1, 65535, &port))
			return -1;
		ports[(*n)++] = (uint16_t)port;
	}
	return 0;
}

/* A string that must outlive the JSON document; the config owns it. */
static const char *keep(struct hw_collector_config *c, json_t *v)
{
	char *s = strdup(json_string_value(v));
	if (s && c->n_owned < sizeof(c->owned) / sizeof(c->owned[0]))
		c->owned[c->n_owned++] = s;
	return s;
}

void hw_collector_config_free(struct hw_collector_config *c)
{
	for (unsigned i = 0; i < c->n_owned; i++)
		free(c->owned[i]);
	c->n_owned = 0;
}

/* "sinks" keys of the ClickHouse sink (clickhouse_sink.h). */
static int load_clickhouse(struct ctx *x, struct hw_collector_config *c, const char *k, json_t *v)
{
	uint64_t u;
	if (!strcmp(k, "clickhouse_table")) {
		if (!json_is_string(v) || !*json_string_value(v))
			return bad(x, k, "a table name, e.g. \"hops\" or \"hopwatch.hops\"");
		c->clickhouse_table = keep(c, v);
	} else if (!strcmp(k, "clickhouse_batch_records")) {
		if (get_uint(x, v, k, 1, 1u << 20, &u))
			return -1;
		c->clickhouse_batch_records = (uint32_t)u;
	} else if (!strcmp(k, "clickhouse_batch_ms")) {
		if (get_uint(x, v, k, 0, 600000, &u))
			return -1;
		c->clickhouse_batch_ms = (uint32_t)u;
	} else if (!strcmp(k, "clickhouse_queue_records")) {
		if (get_uint(x, v, k, 1, 1u << 30, &u))
			return -1;
		c->clickhouse_queue_records = (uint32_t)u;
	} else if (!strcmp(k, "clickhouse_drain_seconds")) {
		if (!json_is_number(v) || json_number_value(v) < 0)
			return bad(x, k, "a number of seconds >= 0");
		c->clickhouse_drain_s = json_number_value(v);
	} else {
		return bad(x, k,
		           "one of clickhouse_table, clickhouse_batch_records, clickhouse_batch_ms, "
		           "clickhouse_queue_records, clickhouse_drain_seconds (in \"sinks\")");
	}
	return 0;
}

static int load_sinks(struct ctx *x, struct hw_collector_config *c, json_t *o)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v)
	{
		uint64_t u;
		if (!strcmp(k, "json") || !strcmp(k, "records_dir") || !strcmp(k, "stream") || !strcmp(k, "metrics") ||
		    !strcmp(k, "clickhouse")) {
			if (!json_is_string(v) && !json_is_null(v))
				return bad(x, k, "a string or null");
			const char *s = json_is_null(v) ? NULL : keep(c, v);
			if (!strcmp(k, "json"))
				c->json_out = s;
			else if (!strcmp(k, "records_dir"))
				c->records_dir = s;
			else if (!strcmp(k, "stream"))
				c->stream = s;
			else if (!strcmp(k, "clickhouse"))
				c->clickhouse = s;
			else
				c->metrics = s;
		} else if (!strcmp(k, "rotate_mb")) {
			if (get_uint(x, v, k, 0, 1 << 20, &u))
				return -1;
			c->rotate_bytes = u << 20;
		} else if (!strcmp(k, "rotate_seconds")) {
			if (get_uint(x, v, k, 0, 86400 * 365, &u))
				return -1;
			c->rotate_seconds = u;
		} else if (!strncmp(k, "clickhouse_", 11)) {
			if (load_clickhouse(x, c, k, v))
				return -1;
		} else {
			return bad(x, k,
			           "one of json, records_dir, rotate_mb, rotate_seconds, stream, metrics, clickhouse, "
			           "clickhouse_table, clickhouse_batch_records, clickhouse_batch_ms, "
			           "clickhouse_queue_records, clickhouse_drain_seconds (in \"sinks\")");
		}
	}
	return 0;
}

int hw_collector_config_load(struct hw_collector_config *c, const char *path, char *err, size_t errlen)
{
	struct ctx x = {path, err, errlen};
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errlen, "%s: line %d column %d: %s", path, je.line, je.column, je.text);
		return -1;
	}
	int rc = -1;
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: expected a JSON object at the top", path);
		goto out;
	}
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v)
	{
		uint64_t u;
		if (!strcmp(k, "report_ports")) {
			if (get_ports(&x, v, k, c->parser.report_ports, &c->parser.n_report_ports))
				goto out;
			if (!c->parser.n_report_ports) {
				bad(&x, k, "at least one port");
				goto out;
			}
		} else if (!strcmp(k, "int_ports")) {
			if (get_ports(&x, v, k, c->parser.int_ports, &c->parser.n_int_ports))
				goto out;
		} else if (!strcmp(k, "int_dscp") || !strcmp(k, "int_dscp_mask")) {
			if (get_uint(&x, v, k, 0, 63, &u))
				goto out;
			if (!strcmp(k, "int_dscp"))
				c->parser.int_dscp = (uint8_t)u;
			else
				c->parser.int_dscp_mask = (uint8_t)u;
		} else if (!strcmp(k, "profile")) {
			int p = json_is_string(v) ? hw_profile_from_name(json_string_value(v)) : -1;
			if (p < 0) {
				bad(&x, k, "\"standard\" or \"geant\"");
				goto out;
			}
			uint8_t d = c->parser.int_dscp, m = c->parser.int_dscp_mask;
			hw_parser_config_profile(&c->parser, (enum hw_profile)p);
			if (json_object_get(root, "int_dscp")) /* an explicit value wins over the profile */
				c->parser.int_dscp = d;
			if (json_object_get(root, "int_dscp_mask"))
				c->parser.int_dscp_mask = m;
		} else if (!strcmp(k, "max_hops")) {
			if (get_uint(&x, v, k, 1, 255, &u))
				goto out;
			c->parser.max_hops = (uint8_t)u;
		} else if (!strcmp(k, "bare_int")) {
			if (!json_is_boolean(v)) {
				bad(&x, k, "true or false");
				goto out;
			}
			c->parser.bare_int = json_is_true(v);
		} else if (!strcmp(k, "vxlan_gpe_port") || !strcmp(k, "geneve_port") || !strcmp(k, "roce_port")) {
			if (get_uint(&x, v, k, 0, 65535, &u))
				goto out;
			uint16_t *dst = !strcmp(k, "vxlan_gpe_port") ? &c->parser.vxlan_gpe_port
			                : !strcmp(k, "geneve_port")  ? &c->parser.geneve_port
			                                             : &c->parser.roce_port;
			*dst = (uint16_t)u;
		} else if (!strcmp(k, "latency_unit_ns") || !strcmp(k, "occupancy_unit_bytes")) {
			if (!json_is_number(v) || json_number_value(v) <= 0) {
				bad(&x, k, "a positive number");
				goto out;
			}
			*(!strcmp(k, "latency_unit_ns") ? &c->latency_unit_ns : &c->occupancy_unit_bytes) =
			    json_number_value(v);
		} else if (!strcmp(k, "queues") || !strcmp(k, "senders") || !strcmp(k, "flows")) {
			if (get_uint(&x, v, k, 16, 1u << 28, &u))
				goto out;
			*(!strcmp(k, "queues")    ? &c->sizes.queues
			  : !strcmp(k, "senders") ? &c->sizes.senders
			                          : &c->sizes.flows) = (uint32_t)u;
		} else if (!strcmp(k, "ring_batches")) {
			if (get_uint(&x, v, k, 2, 65536, &u))
				goto out;
			c->sizes.ring_batches = (uint32_t)u;
		} else if (!strcmp(k, "workers")) {
			if (get_uint(&x, v, k, 1, 64, &u))
				goto out;
			c->workers = (uint32_t)u;
		} else if (!strcmp(k, "idle_exit_seconds")) {
			if (!json_is_number(v) || json_number_value(v) < 0) {
				bad(&x, k, "a number of seconds >= 0");
				goto out;
			}
			c->idle_exit_s = json_number_value(v);
		} else if (!strcmp(k, "sinks")) {
			if (!json_is_object(v)) {
				bad(&x, k, "an object");
				goto out;
			}
			if (load_sinks(&x, c, v))
				goto out;
		} else {
			bad(&x, k,
			    "a known key: report_ports, int_ports, int_dscp, int_dscp_mask, profile, max_hops, "
			    "bare_int, vxlan_gpe_port, geneve_port, roce_port, latency_unit_ns, occupancy_unit_bytes, "
			    "queues, senders, flows, ring_batches, workers, idle_exit_seconds, sinks");
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}
