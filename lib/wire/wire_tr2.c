/* Telemetry Report v2.0: the group header, then individual reports until the payload ends, each
 * with INT main contents (RepMdBits metadata of the reporting node) and an inner packet. */
#include "wire_emit.h"

enum { REP_INNER_ONLY = 0, REP_INT = 1 };
enum { IN_NONE = 0, IN_TLV = 1, IN_DS_EXT = 2, IN_ETH = 3, IN_IPV4 = 4, IN_IPV6 = 5 };

/* The report flags of the D, Q, F, I bits read as one 4-bit field (D the most significant): one
 * table load instead of four bit tests. */
_Static_assert(HW_OFF_TR2_INDIV_q == HW_OFF_TR2_INDIV_d + 1 && HW_OFF_TR2_INDIV_f == HW_OFF_TR2_INDIV_d + 2 &&
                   HW_OFF_TR2_INDIV_i == HW_OFF_TR2_INDIV_d + 3,
               "D, Q, F, I are adjacent bits");
#define RF_OF_(n)                                                                                                      \
	(uint8_t)(((n)&8 ? HW_RF_DROPPED : 0) | ((n)&4 ? HW_RF_CONGESTED_QUEUE : 0) |                                  \
	          ((n)&2 ? HW_RF_TRACKED_FLOW : 0) | ((n)&1 ? HW_RF_INTERMEDIATE : 0))
static const uint8_t rf_of_dqfi[16] = {RF_OF_(0),  RF_OF_(1),  RF_OF_(2),  RF_OF_(3), RF_OF_(4),  RF_OF_(5),
                                       RF_OF_(6),  RF_OF_(7),  RF_OF_(8),  RF_OF_(9), RF_OF_(10), RF_OF_(11),
                                       RF_OF_(12), RF_OF_(13), RF_OF_(14), RF_OF_(15)};
#undef RF_OF_

/* InType 1 (TR v2.0, "Individual Report Inner Contents for InType 1"): TLVs of TLVType:4 Rsvd:4 |
 * TLVLength:8 (words of data after this first word) | Data Template:16, then the data.  The first TLV
 * of type 1, 2 or 3 (Ethernet, IPv4, IPv6) is the truncated packet the flow keys come from; domain
 * specific extension data (type 0) and reserved types are passed over.  A TLV past the body is a
 * report_length error. */
static __attribute__((noinline)) enum hw_result tr2_tlvs(struct hw_ctx *c, struct hw_span s, struct hw_inner *in)
{
	static const enum hw_l3_start starts[4] = {HW_START_ETH, HW_START_ETH, HW_START_IPV4, HW_START_IPV6};
	bool have_packet = false;
	for (size_t pos = 0; pos < s.len;) {
		const uint8_t *t = hw_at(s, pos, 4);
		if (!t)
			return hw_fail(c, s.p + pos, HW_E_REPORT_LENGTH);
		unsigned type = t[0] >> 4;
		size_t len = (size_t)t[1] * 4;
		if (!hw_at(s, pos + 4, len))
			return hw_fail(c, t, HW_E_REPORT_LENGTH);
		if (!have_packet && type >= 1 && type <= 3) {
			have_packet = true;
			struct hw_span pkt = {t + 4, len}; /* inside s: hw_at granted pos + 4 + len */
			enum hw_result r = hw_inner_parse(c, pkt, starts[type], false, in);
			if (r != HW_OK)
				return r;
		}
		pos += 4 + len;
	}
	return HW_OK;
}

/* Flattened: the inner walk (itself flattened) is inlined at each start, so the common report makes
 * no calls (the call, its stack frame and register saves cost ~45 instructions per report). */
HW_HOT_CLONES __attribute__((flatten)) enum hw_result hw_parse_tr2(struct hw_ctx *c, struct hw_span s)
{
	const uint8_t *g = hw_at(s, 0, HW_TR2_GROUP_BYTES);
	if (!g)
		return hw_fail(c, s.p, HW_E_REPORT_TRUNCATED);
	struct hw_report_meta m = {
	    .node = HW_FIELD(TR2_GROUP, node_id, g),
	    .seq = HW_FIELD(TR2_GROUP, seq_no, g),
	    .hw_id = (uint8_t)HW_FIELD(TR2_GROUP, hw_id, g),
	    .format = HW_FORMAT_TR20,
	    .seq_bits = HW_WID_TR2_GROUP_seq_no,
	};

	size_t off = HW_TR2_GROUP_BYTES;
	unsigned n = 0;
	while (off < s.len || n == 0) {
		const uint8_t *h = hw_at(s, off, HW_TR2_INDIV_BYTES);
		if (!h)
			return hw_fail(c, s.p + off, HW_E_REPORT_TRUNCATED);
		unsigned rep_type = HW_FIELD(TR2_INDIV, rep_type, h);
		unsigned in_type = HW_FIELD(TR2_INDIV, in_type, h);
		unsigned rl = HW_FIELD(TR2_INDIV, report_length, h);
		size_t md_len = (size_t)HW_FIELD(TR2_INDIV, md_length, h) * 4;
		size_t body_off = off + HW_TR2_INDIV_BYTES;
		size_t body_len = rl == 0xff ? s.len - body_off : (size_t)rl * 4;
		const uint8_t *body = hw_at(s, body_off, body_len);
		if (!body)
			return hw_fail(c, h, HW_E_REPORT_LENGTH);
		struct hw_span b = {body, body_len};

		m.flags = rf_of_dqfi[hw_bits_(h, HW_OFF_TR2_INDIV_d, 4)];

		/* The own hop's metadata is decoded straight into its record by hw_emit. */
		struct hw_own own;
		own.rec.valid = 0;
		own.rec.node_id = m.node;
		own.plan = NULL;
		struct hw_md_plan plan;
		size_t inner_off = 0;
		if (rep_type == REP_INT) {
			const uint8_t *mc = hw_at(b, 0, HW_TR2_INT_MAIN_BYTES + md_len);
			if (!mc)
				return hw_fail(c, h, HW_E_REPORT_LENGTH);
			own.plan =
			    hw_md_plan_pick(&plan, &hw_md_tr2, (uint16_t)HW_FIELD(TR2_INT_MAIN, rep_md_bits, mc));
			if (own.plan->bytes > md_len)
				return hw_fail(c, mc, HW_E_REPORT_MD);
			own.md = mc + HW_TR2_INT_MAIN_BYTES;
			inner_off = HW_TR2_INT_MAIN_BYTES + md_len; /* domain-specific metadata is skipped */
		} else if (rep_type != REP_INNER_ONLY) {
			return hw_fail(c, h, HW_E_REPORT_TYPE);
		}

		struct hw_inner in;

		hw_inner_clear(&in);
		struct hw_span inner = hw_tail(b, inner_off);
		enum hw_result r = HW_OK;
		switch (in_type) {
		case IN_NONE:
		case IN_DS_EXT: break;
		case IN_TLV: r = tr2_tlvs(c, inner, &in); break;
		case IN_ETH: r = hw_inner_parse(c, inner, HW_START_ETH, false, &in); break;
		case IN_IPV4: r = hw_inner_parse(c, inner, HW_START_IPV4, false, &in); break;
		case IN_IPV6: r = hw_inner_parse(c, inner, HW_START_IPV6, false, &in); break;
		default: return hw_fail(c, h, HW_E_REPORT_TYPE);
		}
		r = hw_inner_cut(r, &m.flags);
		/* Inner Only carries none of the reporting node's own metadata: with an embedded stack the
		 * stack's hops are the report's records; without one, a record naming the node stands for it. */
		if (r == HW_OK)
			r = hw_emit_inline(c, &m, &in, rep_type == REP_INNER_ONLY && in.stack.version ? NULL : &own);
		if (r != HW_OK)
			return r;
		n++;
		off = body_off + body_len;
	}
	return HW_OK;
}
