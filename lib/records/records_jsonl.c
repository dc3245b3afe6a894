/* JSON-lines records (docs/records.md) back into struct hw_record with jansson: the keys the analyzer
 * uses and the ones that set valid bits; unknown keys are ignored (the format may grow). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "records_jsonl.h"

static const struct {
	const char *key;
	size_t off;
	unsigned size;  /* bytes of the field */
	uint32_t valid; /* bit set when present; 0 = always present */
} ints[] = {
#define F(k, v)                                                                                                        \
	{                                                                                                              \
#k, offsetof(struct hw_record, k), sizeof(((struct hw_record *)0)->k), v                               \
	}
    F(time_ns, 0),
    F(report_node, 0),
    F(hw_id, 0),
    F(report_seq, 0),
    F(hop_index, 0),
    F(path_len, 0),
    F(node_id, 0),
    F(ingress_port, HW_V_PORTS),
    F(egress_port, HW_V_PORTS),
    F(l2_ingress_port, HW_V_L2_PORTS),
    F(l2_egress_port, HW_V_L2_PORTS),
    F(hop_latency, HW_V_HOP_LATENCY),
    F(queue_occupancy, HW_V_QUEUE),
    F(queue_id, 0), /* HW_V_QUEUE or HW_V_DROP, from the other keys */
    F(ingress_ts, HW_V_INGRESS_TS),
    F(egress_ts, HW_V_EGRESS_TS),
    F(egress_tx_util, HW_V_TX_UTIL),
    F(buffer_id, HW_V_BUFFER),
    F(buffer_occupancy, HW_V_BUFFER),
    F(drop_reason, HW_V_DROP),
    F(ip_proto, HW_V_FLOW),
    F(src_port, HW_V_FLOW),
    F(dst_port, HW_V_FLOW),
    F(dscp, HW_V_TCLASS),
    F(ecn, HW_V_TCLASS),
    F(roce_opcode, HW_V_ROCE),
    F(roce_dest_qp, HW_V_ROCE),
#undef F
};

static int ip_from_text(const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	if (inet_pton(AF_INET6, s, out) == 1)
		return 0;
	if (inet_pton(AF_INET, s, out + 12) != 1)
		return -1;
	out[10] = out[11] = 0xff;
	return 0;
}

int hw_record_from_json_line(const char *line, struct hw_record *r, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(line, 0, &je);
	int rc = -1;
	memset(r, 0, sizeof(*r));
	if (!json_is_object(o)) {
		snprintf(err, errlen, "not a JSON object: %s", o ? "another JSON value" : je.text);
		goto out;
	}
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		json_t *v = json_object_get(o, ints[i].key);
		if (!v)
			continue;
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(err, errlen, "%s: expected an integer >= 0", ints[i].key);
			goto out;
		}
		uint64_t x = (uint64_t)json_integer_value(v);
		char *p = (char *)r + ints[i].off;
		switch (ints[i].size) {
		case 1: *(uint8_t *)p = (uint8_t)x; break;
		case 2: *(uint16_t *)p = (uint16_t)x; break;
		case 4: *(uint32_t *)p = (uint32_t)x; break;
		default: *(uint64_t *)p = x; break;
		}
		r->valid |= ints[i].valid;
	}
	if (json_object_get(o, "queue_id") && !(r->valid & HW_V_DROP))
		r->valid |= HW_V_QUEUE;
	const char *fmt = json_string_value(json_object_get(o, "format"));
	for (unsigned f = HW_FORMAT_TR05; fmt && f <= HW_FORMAT_INT; f++)
		if (strcmp(fmt, hw_format_name(f)) == 0)
			r->format = (uint8_t)f;
	const char *iv = json_string_value(json_object_get(o, "int_version"));
	for (unsigned v = HW_INT_V05; iv && v <= HW_INT_V21; v++)
		if (strcmp(iv, hw_int_version_name(v)) == 0)
			r->int_version = (uint8_t)v;
	size_t idx;
	json_t *flag;
	json_array_foreach(json_object_get(o, "report_flags"), idx, flag)
	{
		for (unsigned b = 0; b < 8; b++) {
			const char *n = hw_report_flag_name(1u << b);
			if (n && json_is_string(flag) && strcmp(n, json_string_value(flag)) == 0)
				r->report_flags |= (uint8_t)(1u << b);
		}
	}
	const char *src = json_string_value(json_object_get(o, "src_ip")),
	           *dst = json_string_value(json_object_get(o, "dst_ip")),
	           *fh = json_string_value(json_object_get(o, "flow_hash"));
	if ((src && ip_from_text(src, r->src_ip)) || (dst && ip_from_text(dst, r->dst_ip))) {
		snprintf(err, errlen, "src_ip/dst_ip: not an IPv4 or IPv6 address");
		goto out;
	}
	if (fh) {
		char *end;
		r->flow_hash = strtoull(fh, &end, 16);
		if (*end || !*fh) {
			snprintf(err, errlen, "flow_hash: expected hex digits");
			goto out;
		}
		r->valid |= HW_V_FLOW;
	}
	/* ClickHouse rows (records_clickhouse.c) carry the valid bits and report_flags as integers */
	json_t *valid = json_object_get(o, "valid"), *rf = json_object_get(o, "report_flags");
	if (json_is_integer(valid))
		r->valid = (uint32_t)json_integer_value(valid);
	if (json_is_integer(rf))
		r->report_flags = (uint8_t)json_integer_value(rf);
	rc = 0;
out:
	json_decref(o);
	return rc;
}
