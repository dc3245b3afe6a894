/* Telemetry Report v1.0: a 16-byte header with the switch's optional metadata (RepMdBits), then
 * the inner packet (Ethernet, IPv4 or IPv6) that may carry the INT v1.0 stack of earlier hops. */
#include "wire_internal.h"

HW_HOT_CLONES enum hw_result hw_parse_tr1(struct hw_ctx *c, struct hw_span s)
{
	const uint8_t *h = hw_at(s, 0, HW_TR1_HDR_BYTES);
	if (!h)
		return hw_fail(c, s.p, HW_E_REPORT_TRUNCATED);
	size_t hdr_len = (size_t)HW_FIELD(TR1_HDR, len, h) * 4;
	if (hdr_len < HW_TR1_HDR_BYTES || !hw_at(s, 0, hdr_len))
		return hw_fail(c, h, HW_E_REPORT_LENGTH);

	struct hw_report_meta m = {
	    .node = HW_FIELD(TR1_HDR, switch_id, h),
	    .seq = HW_FIELD(TR1_HDR, seq_no, h),
	    .hw_id = (uint8_t)HW_FIELD(TR1_HDR, hw_id, h),
	    .format = HW_FORMAT_TR10,
	    .flags = (uint8_t)((HW_FIELD(TR1_HDR, d, h) ? HW_RF_DROPPED : 0) |
	                       (HW_FIELD(TR1_HDR, q, h) ? HW_RF_CONGESTED_QUEUE : 0) |
	                       (HW_FIELD(TR1_HDR, f, h) ? HW_RF_TRACKED_FLOW : 0)),
	    .seq_bits = 32,
	};

	struct hw_own own;
	own.plan = NULL;
	own.rec.valid = 0;
	own.rec.node_id = m.node;
	uint32_t ig = HW_FIELD(TR1_HDR, ingress_tstamp, h);
	if (ig != UINT32_MAX) {
		own.rec.ingress_ts = ig;
		own.rec.valid |= HW_V_INGRESS_TS;
	}
	struct hw_md_plan plan;
	hw_md_plan_build(&plan, &hw_md_tr1, (uint16_t)(HW_FIELD(TR1_HDR, rep_md_bits, h) << 10));
	if (HW_TR1_HDR_BYTES + (size_t)plan.bytes > hdr_len)
		return hw_fail(c, h, HW_E_REPORT_MD);
	hw_md_decode_fixed(&plan, h + HW_TR1_HDR_BYTES, &own.rec);
	hw_md_derive_latency(&own.rec, true);

	static const enum hw_l3_start starts[3] = {HW_START_ETH, HW_START_IPV4, HW_START_IPV6};
	unsigned nproto = HW_FIELD(TR1_HDR, nproto, h);
	if (nproto > 2)
		return hw_fail(c, h, HW_E_REPORT_TYPE);
	struct hw_inner in;
	hw_inner_clear(&in);
	enum hw_result r = hw_inner_cut(hw_inner_parse(c, hw_tail(s, hdr_len), starts[nproto], false, &in), &m.flags);
	if (r != HW_OK)
		return r;
	return hw_emit(c, &m, &in, &own);
}
