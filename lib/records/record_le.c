/* struct hw_record <-> its little-endian file / stream image, field by field in record.h order,
 * so the format does not depend on the host's byte order or padding (pad bytes written as zero). */
#include <string.h>

#include "hopwatch/record_file.h"
#include "sinks_internal.h"

void hw_record_to_le(const struct hw_record *r, uint8_t out[HW_RECORD_SIZE])
{
	uint8_t *p = out;
	hw_put_le64(p + 0, r->time_ns);
	hw_put_le64(p + 8, r->ingress_ts);
	hw_put_le64(p + 16, r->egress_ts);
	hw_put_le64(p + 24, r->flow_hash);
	hw_put_le32(p + 32, r->valid);
	hw_put_le32(p + 36, r->report_node);
	hw_put_le32(p + 40, r->report_seq);
	hw_put_le32(p + 44, r->node_id);
	hw_put_le32(p + 48, r->ingress_port);
	hw_put_le32(p + 52, r->egress_port);
	hw_put_le32(p + 56, r->l2_ingress_port);
	hw_put_le32(p + 60, r->l2_egress_port);
	hw_put_le32(p + 64, r->hop_latency);
	hw_put_le32(p + 68, r->queue_occupancy);
	hw_put_le32(p + 72, r->egress_tx_util);
	hw_put_le32(p + 76, r->buffer_occupancy);
	hw_put_le32(p + 80, r->roce_dest_qp);
	hw_put_le16(p + 84, r->src_port);
	hw_put_le16(p + 86, r->dst_port);
	memcpy(p + 88, r->src_ip, 16);
	memcpy(p + 104, r->dst_ip, 16);
	p[120] = r->hw_id;
	p[121] = r->report_flags;
	p[122] = r->format;
	p[123] = r->int_version;
	p[124] = r->hop_index;
	p[125] = r->path_len;
	p[126] = r->queue_id;
	p[127] = r->buffer_id;
	p[128] = r->drop_reason;
	p[129] = r->ip_proto;
	p[130] = r->dscp;
	p[131] = r->ecn;
	p[132] = r->roce_opcode;
	p[133] = p[134] = p[135] = 0;
}

void hw_record_from_le(const uint8_t in[HW_RECORD_SIZE], struct hw_record *r)
{
	const uint8_t *p = in;
	r->time_ns = hw_get_le64(p + 0);
	r->ingress_ts = hw_get_le64(p + 8);
	r->egress_ts = hw_get_le64(p + 16);
	r->flow_hash = hw_get_le64(p + 24);
	r->valid = hw_get_le32(p + 32);
	r->report_node = hw_get_le32(p + 36);
	r->report_seq = hw_get_le32(p + 40);
	r->node_id = hw_get_le32(p + 44);
	r->ingress_port = hw_get_le32(p + 48);
	r->egress_port = hw_get_le32(p + 52);
	r->l2_ingress_port = hw_get_le32(p + 56);
	r->l2_egress_port = hw_get_le32(p + 60);
	r->hop_latency = hw_get_le32(p + 64);
	r->queue_occupancy = hw_get_le32(p + 68);
	r->egress_tx_util = hw_get_le32(p + 72);
	r->buffer_occupancy = hw_get_le32(p + 76);
	r->roce_dest_qp = hw_get_le32(p + 80);
	r->src_port = hw_get_le16(p + 84);
	r->dst_port = hw_get_le16(p + 86);
	memcpy(r->src_ip, p + 88, 16);
	memcpy(r->dst_ip, p + 104, 16);
	r->hw_id = p[120];
	r->report_flags = p[121];
	r->format = p[122];
	r->int_version = p[123];
	r->hop_index = p[124];
	r->path_len = p[125];
	r->queue_id = p[126];
	r->buffer_id = p[127];
	r->drop_reason = p[128];
	r->ip_proto = p[129];
	r->dscp = p[130];
	r->ecn = p[131];
	r->roce_opcode = p[132];
	r->pad_[0] = r->pad_[1] = r->pad_[2] = 0;
}

/* The offsets above are the natural-alignment offsets of struct hw_record; the compiler checks
 * them so a change to record.h cannot silently change the file format. */
#define HW_AT(f, off) _Static_assert(offsetof(struct hw_record, f) == (off), "hw_record." #f " offset")
HW_AT(time_ns, 0);
HW_AT(ingress_ts, 8);
HW_AT(egress_ts, 16);
HW_AT(flow_hash, 24);
HW_AT(valid, 32);
HW_AT(report_node, 36);
HW_AT(report_seq, 40);
HW_AT(node_id, 44);
HW_AT(ingress_port, 48);
HW_AT(egress_port, 52);
HW_AT(l2_ingress_port, 56);
HW_AT(l2_egress_port, 60);
HW_AT(hop_latency, 64);
HW_AT(queue_occupancy, 68);
HW_AT(egress_tx_util, 72);
HW_AT(buffer_occupancy, 76);
HW_AT(roce_dest_qp, 80);
HW_AT(src_port, 84);
HW_AT(dst_port, 86);
HW_AT(src_ip, 88);
HW_AT(dst_ip, 104);
HW_AT(hw_id, 120);
HW_AT(report_flags, 121);
HW_AT(format, 122);
HW_AT(int_version, 123);
HW_AT(hop_index, 124);
HW_AT(path_len, 125);
HW_AT(queue_id, 126);
HW_AT(buffer_id, 127);
HW_AT(drop_reason, 128);
HW_AT(ip_proto, 129);
HW_AT(dscp, 130);
HW_AT(ecn, 131);
HW_AT(roce_opcode, 132);
HW_AT(pad_, 133);
