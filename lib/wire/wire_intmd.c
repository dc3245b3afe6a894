/* INT-MD in data packets: the v2.1, v1.0 and v0.5 shims for TCP/UDP, the metadata headers of each
 * version, the GEANT profile's variant, and the hop stack they describe. */
#include "wire_internal.h"

/* Validate the stack geometry and fill in->stack.  md points at md_len validated bytes. */
static enum hw_result set_stack(struct hw_ctx *c, struct hw_inner *in, const uint8_t *stack, size_t stack_bytes,
                                unsigned hop_bytes, const struct hw_md_table *t, uint16_t bits, uint8_t version)
{
	struct hw_int_stack *st = &in->stack;
	st->plan = hw_md_plan_pick(&st->built, t, bits);
	if (st->plan->bytes > hop_bytes || (hop_bytes == 0 && stack_bytes))
		return hw_fail(c, stack, HW_E_INT_BITMAP);
	size_t n = hop_bytes ? stack_bytes / hop_bytes : 0;
	if (hop_bytes && stack_bytes % hop_bytes)
		return hw_fail(c, stack, HW_E_INT_HOPS);
	if (n > c->cfg->max_hops)
		return hw_fail(c, stack, HW_E_INT_HOPS);
	st->version = version;
	st->n_hops = (uint16_t)n;
	st->hop_bytes = (uint16_t)hop_bytes;
	st->newest = stack;
	return HW_OK;
}

/* Whether a GEANT bitmap reading describes the stack region: a hop size, whole hops, and then a 4-byte
 * tail or nothing.  *rest gets what follows the hops. */
static bool geant_fits(const struct hw_md_plan *plan, size_t region, size_t *rest)
{
	if (plan->bytes == 0)
		return region == 0;
	*rest = region % plan->bytes;
	return *rest == 0 || *rest == HW_INT05_TAIL_BYTES;
}

/* GEANT int-platform: v1.0-shaped metadata header; the hop size follows from the bitmap (8-byte
 * timestamps); what is left after whole hops is a 4-byte tail or nothing.  GEANT's sources disagree on
 * the bitmap's byte order: its DPDK captures and docs store it little-endian (bytes 00 cc), its P4 reads
 * it most significant byte first.  Little-endian is read first; the other order is taken only when the
 * little-endian reading does not describe the stack and the other one does (docs/records.md). */
static enum hw_result parse_md_geant(struct hw_ctx *c, struct hw_span s, size_t len, struct hw_inner *in)
{
	const uint8_t *md = hw_at(s, 0, len);
	if (!md || len < HW_INT10_MD_BYTES)
		return hw_fail(c, s.p, HW_E_INT_LENGTH);
	uint16_t bits = (uint16_t)(md[4] | md[5] << 8);
	size_t region = len - HW_INT10_MD_BYTES, rest = 0;
	struct hw_md_plan plan;
	hw_md_plan_build(&plan, &hw_md_geant, bits);
	if (!geant_fits(&plan, region, &rest)) {
		struct hw_md_plan msb;
		uint16_t msb_bits = (uint16_t)(md[4] << 8 | md[5]);
		size_t msb_rest = 0;
		hw_md_plan_build(&msb, &hw_md_geant, msb_bits);
		if (geant_fits(&msb, region, &msb_rest)) {
			plan = msb;
			bits = msb_bits;
			rest = msb_rest;
		}
	}
	if (plan.bytes == 0)
		return region ? hw_fail(c, md, HW_E_INT_BITMAP) : HW_OK;
	if (rest != 0 && rest != HW_INT05_TAIL_BYTES)
		return hw_fail(c, md, HW_E_INT_HOPS);
	return set_stack(c, in, md + HW_INT10_MD_BYTES, region - rest, plan.bytes, &hw_md_geant, bits, HW_INT_V10);
}

enum hw_result hw_intmd_parse_md(struct hw_ctx *c, struct hw_span s, size_t len, struct hw_inner *in)
{
	/* The whole metadata header + stack is validated once; the reads below stay inside it. */
	const uint8_t *md = hw_at(s, 0, len);
	if (!md || len < 4)
		return hw_fail(c, s.p, HW_E_INT_LENGTH);
	if (c->cfg->profile == HW_PROFILE_GEANT && (md[0] >> 4) != 2)
		return parse_md_geant(c, s, len, in);
	switch (md[0] >> 4) {
	case 2: {
		if (len < HW_INT21_MD_BYTES)
			return hw_fail(c, md, HW_E_INT_LENGTH);
		unsigned hop_ml = HW_FIELD(INT21_MD, hop_ml, md);
		uint16_t bits = (uint16_t)HW_FIELD(INT21_MD, instruction_mask, md);
		return set_stack(c, in, md + HW_INT21_MD_BYTES, len - HW_INT21_MD_BYTES, hop_ml * 4, &hw_md_int21, bits,
		                 HW_INT_V21);
	}
	case 1: {
		if (len < HW_INT10_MD_BYTES)
			return hw_fail(c, md, HW_E_INT_LENGTH);
		unsigned hop_ml = HW_FIELD(INT10_MD, hop_ml, md);
		uint16_t bits = (uint16_t)HW_FIELD(INT10_MD, instruction_mask, md);
		return set_stack(c, in, md + HW_INT10_MD_BYTES, len - HW_INT10_MD_BYTES, hop_ml * 4, &hw_md_int10, bits,
		                 HW_INT_V10);
	}
	case 0: {
		if (len < HW_INT05_MD_BYTES)
			return hw_fail(c, md, HW_E_INT_LENGTH);
		unsigned ins_cnt = HW_FIELD(INT05_MD, ins_cnt, md);
		unsigned total_hops = HW_FIELD(INT05_MD, total_hop_cnt, md);
		uint16_t bits = (uint16_t)HW_FIELD(INT05_MD, instruction_mask, md);
		enum hw_result r = set_stack(c, in, md + HW_INT05_MD_BYTES, len - HW_INT05_MD_BYTES, ins_cnt * 4,
		                             &hw_md_int05, bits, HW_INT_V05);
		if (r == HW_OK && in->stack.n_hops != total_hops)
			return hw_fail(c, md, HW_E_INT_HOPS);
		return r;
	}
	default: return hw_fail(c, md, HW_E_INT_VERSION);
	}
}

/* NPT 2: a UDP header was inserted in front of the INT shim, whose last byte keeps the original IP
 * protocol; the original L4 header follows the INT block (at off).  The flow is the original one: its
 * protocol, and its ports when the protocol has ports (TCP, UDP, SCTP) and they are in the span, else 0
 * (unknown), never the inserted UDP header's ports.  Returns the bytes of the original header to skip
 * before its payload: 8 for a whole original UDP header (RoCEv2's BTH or VXLAN follows it), else 0 (the
 * payload of other protocols is not read). */
static size_t npt2_original_l4(struct hw_span s, size_t off, uint8_t proto, struct hw_inner *in)
{
	in->tmpl.ip_proto = proto;
	const uint8_t *l4 = hw_at(s, off, 4);
	bool ports = proto == 6 || proto == 17 || proto == 132;
	in->tmpl.src_port = ports && l4 ? hw_be16(l4) : 0;
	in->tmpl.dst_port = ports && l4 ? hw_be16(l4 + 2) : 0;
	return proto == 17 && hw_at(s, off, 8) ? 8 : 0;
}

enum hw_result hw_intmd_parse(struct hw_ctx *c, struct hw_span s, struct hw_inner *in, size_t *consumed)
{
	const uint8_t *sh = hw_at(s, 0, 4);
	if (!sh)
		return hw_fail(c, s.p, HW_E_INT_LENGTH);

	if (sh[0] >> 4) {
		/* v2.x shim: type:4 npt:2 rsvd:2 | length (words after the shim) | 16 bits by NPT. */
		unsigned type = HW_FIELD(INT21_SHIM, int_type, sh);
		unsigned npt = HW_FIELD(INT21_SHIM, npt, sh);
		size_t total = 4 + (size_t)HW_FIELD(INT21_SHIM, len, sh) * 4;
		if (type > 3 || npt == 3)
			return hw_fail(c, sh, HW_E_INT_SHIM);
		if (!hw_at(s, 0, total))
			return hw_fail(c, sh, HW_E_INT_LENGTH);
		uint16_t npt_field = (uint16_t)HW_FIELD(INT21_SHIM, npt_field, sh);
		if (npt == 0)
			in->tmpl.dscp = (uint8_t)((npt_field >> 2) & 0x3f); /* original DSCP */
		else if (npt == 1)
			in->tmpl.dst_port = npt_field; /* original UDP destination port */
		size_t orig_l4 = npt == 2 ? npt2_original_l4(s, total, (uint8_t)npt_field, in) : 0;
		*consumed = total + orig_l4; /* what follows: the original L4 payload */
		if (type != 1)               /* destination or MX header: no hop stack */
			return HW_OK;
		return hw_intmd_parse_md(c, hw_tail(s, 4), total - 4, in);
	}

	/* v1.0 / v0.5 shim: type:8 rsvd:8 length:8 (words, counting the shim) | dscp (v1.0) or rsvd. */
	unsigned type = HW_FIELD(INT10_SHIM, int_type, sh);
	size_t total = (size_t)HW_FIELD(INT10_SHIM, len, sh) * 4;
	if (type < 1 || type > 2 || total < 8)
		return hw_fail(c, sh, total < 8 && type >= 1 && type <= 2 ? HW_E_INT_LENGTH : HW_E_INT_SHIM);
	const uint8_t *all = hw_at(s, 0, total);
	if (!all)
		return hw_fail(c, sh, HW_E_INT_LENGTH);
	*consumed = total;
	if (type != 1)
		return HW_OK;
	unsigned ver = all[4] >> 4;
	if (ver == 1 || c->cfg->profile == HW_PROFILE_GEANT) {
		in->tmpl.dscp = (uint8_t)HW_FIELD(INT10_SHIM, dscp, sh); /* original DSCP */
		return hw_intmd_parse_md(c, hw_tail(s, 4), total - 4, in);
	}
	if (ver == 0) {
		/* v0.5: shim + MD header + stack + 4-byte tail (original proto, port, DSCP). */
		if (total < 4 + HW_INT05_MD_BYTES + HW_INT05_TAIL_BYTES)
			return hw_fail(c, sh, HW_E_INT_LENGTH);
		const uint8_t *tail = all + total - HW_INT05_TAIL_BYTES;
		in->tmpl.dscp = (uint8_t)(HW_FIELD(INT05_TAIL, dscp, tail) & 0x3f);
		in->tail_dport = (uint16_t)HW_FIELD(INT05_TAIL, dest_port, tail);
		in->has_tail = 1;
		return hw_intmd_parse_md(c, hw_tail(s, 4), total - 4 - HW_INT05_TAIL_BYTES, in);
	}
	return hw_fail(c, s.p + 4, HW_E_INT_VERSION);
}
