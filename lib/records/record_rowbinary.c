/* RowBinary rows of the per-hop record, in the column order of deploy/clickhouse/schema.sql: what the
 * ClickHouse sink inserts and the diagnose check compares a table against. */
#include <string.h>

#include "hopwatch/record_rowbinary.h"
#include "sinks_internal.h"

const char hw_ch_columns[] =
    "time_ns,report_node,hw_id,report_seq,report_flags,format,int_version,valid,hop_index,path_len,node_id,"
    "ingress_port,egress_port,l2_ingress_port,l2_egress_port,hop_latency,queue_id,queue_occupancy,"
    "ingress_ts,egress_ts,egress_tx_util,buffer_id,buffer_occupancy,drop_reason,src_ip,dst_ip,src_port,"
    "dst_port,ip_proto,dscp,ecn,roce_opcode,roce_dest_qp,flow_hash,report_pos";

uint16_t hw_ch_report_pos(const struct hw_record *prev, uint16_t prev_pos, const struct hw_record *r)
{
	if (prev && prev->time_ns == r->time_ns && prev->report_node == r->report_node && prev->hw_id == r->hw_id &&
	    prev->report_seq == r->report_seq)
		return (uint16_t)(prev_pos + 1);
	return 0;
}

size_t hw_ch_rowbinary(const struct hw_record *recs, uint32_t n, uint16_t first_pos, uint8_t *out)
{
	uint8_t *p = out;
	uint16_t pos = first_pos;
	for (uint32_t i = 0; i < n; i++) {
		const struct hw_record *r = &recs[i];
		if (i)
			pos = hw_ch_report_pos(&recs[i - 1], pos, r);
#define U8(v) (*p++ = (uint8_t)(v))
#define U16(v) (hw_put_le16(p, (v)), p += 2)
#define U32(v) (hw_put_le32(p, (v)), p += 4)
#define U64(v) (hw_put_le64(p, (v)), p += 8)
		U64(r->time_ns);
		U32(r->report_node);
		U8(r->hw_id);
		U32(r->report_seq);
		U8(r->report_flags);
		U8(r->format);      /* Enum8: the enum hw_format value */
		U8(r->int_version); /* Enum8: the enum hw_int_version value */
		U32(r->valid);
		U8(r->hop_index);
		U8(r->path_len);
		U32(r->node_id);
		U32(r->ingress_port);
		U32(r->egress_port);
		U32(r->l2_ingress_port);
		U32(r->l2_egress_port);
		U32(r->hop_latency);
		U8(r->queue_id);
		U32(r->queue_occupancy);
		U64(r->ingress_ts);
		U64(r->egress_ts);
		U32(r->egress_tx_util);
		U8(r->buffer_id);
		U32(r->buffer_occupancy);
		U8(r->drop_reason);
		memcpy(p, r->src_ip, 16);
		p += 16;
		memcpy(p, r->dst_ip, 16);
		p += 16;
		U16(r->src_port);
		U16(r->dst_port);
		U8(r->ip_proto);
		U8(r->dscp);
		U8(r->ecn);
		U8(r->roce_opcode);
		U32(r->roce_dest_qp);
		U64(r->flow_hash);
		U16(pos);
#undef U8
#undef U16
#undef U32
#undef U64
	}
	return (size_t)(p - out);
}
