/* JSON lines writer for per-hop records (docs/records.md).  Keys, order and omissions follow the
 * contract exactly; values are integers or generated names, so nothing needs escaping. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hopwatch/record_json.h"

const char *hw_ip_text(const uint8_t ip[16], char *buf)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (!memcmp(ip, v4mapped, 12))
		inet_ntop(AF_INET, ip + 12, buf, 46);
	else
		inet_ntop(AF_INET6, ip, buf, 46);
	return buf;
}

struct out {
	char *p;
};

static void put_str(struct out *o, const char *s)
{
	size_t n = strlen(s);
	memcpy(o->p, s, n);
	o->p += n;
}

static void put_u64(struct out *o, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*o->p++ = tmp[--n];
}

static void key_u64(struct out *o, const char *key, uint64_t v)
{
	*o->p++ = ',';
	*o->p++ = '"';
	put_str(o, key);
	*o->p++ = '"';
	*o->p++ = ':';
	put_u64(o, v);
}

static void key_str(struct out *o, const char *key, const char *v)
{
	*o->p++ = ',';
	*o->p++ = '"';
	put_str(o, key);
	put_str(o, "\":\"");
	put_str(o, v);
	*o->p++ = '"';
}

size_t hw_record_json(const struct hw_record *r, char *buf)
{
	struct out o = {buf};
	char ip[46];
	const uint32_t v = r->valid;

	put_str(&o, "{\"time_ns\":");
	put_u64(&o, r->time_ns);
	key_u64(&o, "report_node", r->report_node);
	key_u64(&o, "hw_id", r->hw_id);
	key_u64(&o, "report_seq", r->report_seq);
	put_str(&o, ",\"report_flags\":[");
	int first = 1;
	for (unsigned bit = 1; bit <= HW_RF_POSTCARD; bit <<= 1) {
		if (!(r->report_flags & bit))
			continue;
		if (!first)
			*o.p++ = ',';
		first = 0;
		*o.p++ = '"';
		put_str(&o, hw_report_flag_name(bit));
		*o.p++ = '"';
	}
	*o.p++ = ']';
	key_str(&o, "format", hw_format_name(r->format));
	if (hw_int_version_name(r->int_version))
		key_str(&o, "int_version", hw_int_version_name(r->int_version));
	key_u64(&o, "hop_index", r->hop_index);
	key_u64(&o, "path_len", r->path_len);
	key_u64(&o, "node_id", r->node_id);
	if (v & HW_V_PORTS) {
		key_u64(&o, "ingress_port", r->ingress_port);
		key_u64(&o, "egress_port", r->egress_port);
	}
	if (v & HW_V_L2_PORTS) {
		key_u64(&o, "l2_ingress_port", r->l2_ingress_port);
		key_u64(&o, "l2_egress_port", r->l2_egress_port);
	}
	if (v & HW_V_HOP_LATENCY)
		key_u64(&o, "hop_latency", r->hop_latency);
	if (v & (HW_V_QUEUE | HW_V_DROP))
		key_u64(&o, "queue_id", r->queue_id);
	if (v & HW_V_QUEUE)
		key_u64(&o, "queue_occupancy", r->queue_occupancy);
	if (v & HW_V_INGRESS_TS)
		key_u64(&o, "ingress_ts", r->ingress_ts);
	if (v & HW_V_EGRESS_TS)
		key_u64(&o, "egress_ts", r->egress_ts);
	if (v & HW_V_TX_UTIL)
		key_u64(&o, "egress_tx_util", r->egress_tx_util);
	if (v & HW_V_BUFFER) {
		key_u64(&o, "buffer_id", r->buffer_id);
		key_u64(&o, "buffer_occupancy", r->buffer_occupancy);
	}
	if (v & HW_V_DROP)
		key_u64(&o, "drop_reason", r->drop_reason);
	if (v & HW_V_FLOW) {
		char hex[17];
		key_str(&o, "src_ip", hw_ip_text(r->src_ip, ip));
		key_str(&o, "dst_ip", hw_ip_text(r->dst_ip, ip));
		key_u64(&o, "ip_proto", r->ip_proto);
		key_u64(&o, "src_port", r->src_port);
		key_u64(&o, "dst_port", r->dst_port);
		snprintf(hex, sizeof(hex), "%016" PRIx64, r->flow_hash);
		key_str(&o, "flow_hash", hex);
	}
	if (v & HW_V_TCLASS) {
		key_u64(&o, "dscp", r->dscp);
		key_u64(&o, "ecn", r->ecn);
	}
	if (v & HW_V_ROCE) {
		key_u64(&o, "roce_opcode", r->roce_opcode);
		key_u64(&o, "roce_dest_qp", r->roce_dest_qp);
	}
	*o.p++ = '}';
	*o.p++ = '\n';
	*o.p = 0;
	return (size_t)(o.p - buf);
}
