/* Telemetry Report v0.5 as fabric-tna and Deep Insight send it (INT-XD postcards and drop reports):
 * a 12-byte fixed header, a switch-local or drop header, then the inner Ethernet frame. */
#include "wire_internal.h"

enum { NPROTO_ETH = 0, NPROTO_DROP = 1, NPROTO_LOCAL = 2 };

/* Where each field sits in the local and drop headers, as decode plans. */
static const struct hw_md_plan local_plan = {
    .off = {[MD_NODE] = 0,
            [MD_L1_PORTS] = 4,
            [MD_LATENCY] = -1,
            [MD_QUEUE] = 8,
            [MD_ING_TS] = -1,
            [MD_EG_TS] = 12,
            [MD_L2_PORTS] = -1,
            [MD_TX_UTIL] = -1,
            [MD_BUFFER] = -1,
            [MD_DROP] = -1},
    .bytes = HW_TR05_LOCAL_BYTES,
};
static const struct hw_md_plan drop_plan = {
    .off = {[MD_NODE] = 0,
            [MD_L1_PORTS] = 4,
            [MD_LATENCY] = -1,
            [MD_QUEUE] = -1,
            [MD_ING_TS] = -1,
            [MD_EG_TS] = -1,
            [MD_L2_PORTS] = -1,
            [MD_TX_UTIL] = -1,
            [MD_BUFFER] = -1,
            [MD_DROP] = 8},
    .bytes = HW_TR05_DROP_BYTES,
};

HW_HOT_CLONES enum hw_result hw_parse_tr05(struct hw_ctx *c, struct hw_span s)
{
	const uint8_t *h = hw_at(s, 0, HW_TR05_FIXED_BYTES);
	if (!h)
		return hw_fail(c, s.p, HW_E_REPORT_TRUNCATED);
	struct hw_report_meta m = {
	    .seq = HW_FIELD(TR05_FIXED, seq_no, h),
	    .hw_id = (uint8_t)HW_FIELD(TR05_FIXED, hw_id, h),
	    .format = HW_FORMAT_TR05,
	    .flags = (uint8_t)((HW_FIELD(TR05_FIXED, d, h) ? HW_RF_DROPPED : 0) |
	                       (HW_FIELD(TR05_FIXED, q, h) ? HW_RF_CONGESTED_QUEUE : 0) |
	                       (HW_FIELD(TR05_FIXED, f, h) ? HW_RF_TRACKED_FLOW : 0)),
	    .seq_bits = 32,
	};

	struct hw_own own;
	own.plan = NULL;
	own.rec.valid = 0;
	own.rec.node_id = 0;
	uint32_t ig = HW_FIELD(TR05_FIXED, ig_tstamp, h);
	if (ig != UINT32_MAX) {
		own.rec.ingress_ts = ig;
		own.rec.valid |= HW_V_INGRESS_TS;
	}

	size_t off = HW_TR05_FIXED_BYTES;
	const struct hw_md_plan *plan = NULL;
	switch (HW_FIELD(TR05_FIXED, nproto, h)) {
	case NPROTO_ETH: break;
	case NPROTO_DROP: plan = &drop_plan; break;
	case NPROTO_LOCAL: plan = &local_plan; break;
	default: return hw_fail(c, h, HW_E_REPORT_TYPE);
	}
	if (plan) {
		const uint8_t *lh = hw_at(s, off, plan->bytes);
		if (!lh)
			return hw_fail(c, s.p + off, HW_E_REPORT_TRUNCATED);
		hw_md_decode(plan, lh, &own.rec);
		hw_md_derive_latency(&own.rec, true);
		off += plan->bytes;
	}
	m.node = own.rec.node_id;

	struct hw_inner in;

	hw_inner_clear(&in);
	enum hw_result r = hw_inner_cut(hw_inner_parse(c, hw_tail(s, off), HW_START_ETH, false, &in), &m.flags);
	if (r != HW_OK)
		return r;
	return hw_emit(c, &m, &in, &own);
}
