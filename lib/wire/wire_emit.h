/* Turning one parsed report into records, as inline code: the embedded stack oldest hop first,
 * then the reporting node's own hop, every record stamped with the report's and the flow's fields. */
#ifndef HOPWATCH_WIRE_EMIT_H
#define HOPWATCH_WIRE_EMIT_H

#include "wire_internal.h"

/* The groups of hop fields, with the valid bits that guard them. */
static inline void copy_missing(struct hw_record *dst, const struct hw_record *src)
{
	uint32_t add = src->valid & ~dst->valid;
	if (add & HW_V_PORTS) {
		dst->ingress_port = src->ingress_port;
		dst->egress_port = src->egress_port;
	}
	if (add & HW_V_L2_PORTS) {
		dst->l2_ingress_port = src->l2_ingress_port;
		dst->l2_egress_port = src->l2_egress_port;
	}
	if (add & HW_V_HOP_LATENCY)
		dst->hop_latency = src->hop_latency;
	if (add & HW_V_QUEUE) {
		dst->queue_id = src->queue_id;
		dst->queue_occupancy = src->queue_occupancy;
	}
	if (add & HW_V_INGRESS_TS)
		dst->ingress_ts = src->ingress_ts;
	if (add & HW_V_EGRESS_TS)
		dst->egress_ts = src->egress_ts;
	if (add & HW_V_TX_UTIL)
		dst->egress_tx_util = src->egress_tx_util;
	if (add & HW_V_BUFFER) {
		dst->buffer_id = src->buffer_id;
		dst->buffer_occupancy = src->buffer_occupancy;
	}
	if (add & HW_V_DROP) {
		if (!(dst->valid & HW_V_QUEUE))
			dst->queue_id = src->queue_id;
		dst->drop_reason = src->drop_reason;
	}
	dst->valid |= add;
}

/* The report's fields in its template record, and its descriptor.  On little-endian machines
 * adjacent fields go out as one word each (stores bound the parser): 4 stores instead of 8 for the
 * template, 3 instead of 9 for the descriptor. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
_Static_assert(offsetof(struct hw_record, report_seq) == offsetof(struct hw_record, report_node) + 4 &&
                   offsetof(struct hw_record, report_flags) == offsetof(struct hw_record, hw_id) + 1 &&
                   offsetof(struct hw_record, format) == offsetof(struct hw_record, hw_id) + 2 &&
                   offsetof(struct hw_record, int_version) == offsetof(struct hw_record, hw_id) + 3 &&
                   offsetof(struct hw_record, path_len) == offsetof(struct hw_record, hw_id) + 5 &&
                   offsetof(struct hw_record, hw_id) + 8 <= sizeof(struct hw_record),
               "stamp_template words");
_Static_assert(offsetof(struct hw_report, seq) == 4 && offsetof(struct hw_report, hw_id) == 8 &&
                   offsetof(struct hw_report, format) == 9 && offsetof(struct hw_report, flags) == 10 &&
                   offsetof(struct hw_report, seq_bits) == 11 && offsetof(struct hw_report, first) == 12 &&
                   offsetof(struct hw_report, n_hops) == 14 && offsetof(struct hw_report, drop_reason) == 16,
               "put_report words");
#endif

static inline void stamp_template(struct hw_record *t, const struct hw_report_meta *m, uint8_t flags,
                                  uint8_t int_version, uint8_t path_len)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t who = (uint64_t)m->seq << 32 | m->node;
	memcpy(&t->report_node, &who, 8);
	uint64_t w; /* hw_id .. buffer_id: keep hop_index, queue_id and buffer_id */
	memcpy(&w, &t->hw_id, 8);
	w = (w & 0xffff00ff00000000ull) | m->hw_id | (uint32_t)flags << 8 | (uint32_t)m->format << 16 |
	    (uint32_t)int_version << 24 | (uint64_t)path_len << 40;
	memcpy(&t->hw_id, &w, 8);
#else
	t->report_node = m->node;
	t->report_seq = m->seq;
	t->hw_id = m->hw_id;
	t->format = m->format;
	t->report_flags = flags;
	t->int_version = int_version;
	t->path_len = path_len;
#endif
}

static inline void put_report(struct hw_report *rep, const struct hw_report_meta *m, uint8_t flags, uint16_t first,
                              uint16_t n_hops, uint32_t drop_reason)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t a = (uint64_t)m->seq << 32 | m->node;
	const uint64_t b = m->hw_id | (uint32_t)m->format << 8 | (uint32_t)flags << 16 | (uint32_t)m->seq_bits << 24 |
	                   (uint64_t)first << 32 | (uint64_t)n_hops << 48;
	memcpy(&rep->node, &a, 8);
	memcpy(&rep->hw_id, &b, 8);
	rep->drop_reason = drop_reason;
#else
	rep->node = m->node;
	rep->seq = m->seq;
	rep->hw_id = m->hw_id;
	rep->format = m->format;
	rep->flags = flags;
	rep->seq_bits = m->seq_bits;
	rep->first = first;
	rep->n_hops = n_hops;
	rep->drop_reason = drop_reason;
#endif
}

/* The reporting node's own record before its metadata: the template with no INT version, the
 * next hop index and the node's id, put into the image's lanes so the record takes nine stores. */
static inline __attribute__((always_inline)) struct hw_record_image own_image(const struct hw_record *t,
                                                                              uint8_t hop_index, uint32_t node_id)
{
	struct hw_record_image m = hw_record_load(t);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	_Static_assert(offsetof(struct hw_record, node_id) == 44 && offsetof(struct hw_record, int_version) == 123 &&
	                   offsetof(struct hw_record, hop_index) == 124,
	               "own_image lanes");
	m.y1[1] = (m.y1[1] & 0xffffffffull) | (uint64_t)node_id << 32;
	m.y3[3] = (m.y3[3] & ~0xffff000000ull) | (uint64_t)HW_INT_NONE << 24 | (uint64_t)hop_index << 32;
	return m;
#else
	struct hw_record r;
	hw_record_store(&r, m);
	r.int_version = HW_INT_NONE;
	r.hop_index = hop_index;
	r.node_id = node_id;
	return hw_record_load(&r);
#endif
}

/* The stack's hops, newest first on the wire, into recs[n - 1] .. recs[0], each a copy of the
 * report's template plus its own fields.  Inlined once per fixed plan, where pl is a constant and
 * the decode folds to straight-line loads at fixed offsets. */
static inline __attribute__((always_inline)) void emit_hops(const struct hw_record *tmpl, const struct hw_int_stack *st,
                                                            struct hw_record *recs, const struct hw_md_plan *pl)
{
	const uint8_t *hop = st->newest;
	const size_t hop_bytes = st->hop_bytes;
	const struct hw_record_image t = hw_record_load(tmpl); /* in registers, not reloaded per record */
	for (unsigned j = st->n_hops; j-- > 0; hop += hop_bytes) {
		struct hw_record *r = &recs[j];
		hw_record_store(r, t);
		r->hop_index = (uint8_t)j;
		hw_md_decode_hop(pl, hop, r);
		hw_md_derive_latency(r, !pl->ts64);
	}
}

/* hw_emit, inlined into the TR v2.0 parser (the hot path); the other formats call hw_emit. */
static inline __attribute__((always_inline)) enum hw_result
hw_emit_inline(struct hw_ctx *c, const struct hw_report_meta *m, struct hw_inner *in, struct hw_own *own)
{
	struct hw_parse_out *out = c->out;
	const struct hw_int_stack *st = &in->stack;
	unsigned n_stack = st->version ? st->n_hops : 0;
	unsigned need = n_stack + (own ? 1u : 0u);

	if (out->n_reps >= out->rep_cap || need > out->rec_cap - out->n_recs || need > 255)
		return HW_E_TOO_MANY;

	/* The own hop is merged into the newest stack hop when that hop names the same node (a hop
	 * whose node id is all-ones keeps the template's). */
	bool merge = false;
	if (own && n_stack && st->plan->off[MD_NODE] >= 0) {
		uint32_t w = hw_be32(st->newest + st->plan->off[MD_NODE]);
		merge = (w == UINT32_MAX ? in->tmpl.node_id : w) == own->rec.node_id;
	}
	const unsigned total = n_stack + (own && !merge ? 1u : 0u);
	const uint8_t flags = (uint8_t)(m->flags | (st->version ? 0 : HW_RF_POSTCARD));

	/* Every record of the report starts as a copy of this template. */
	struct hw_record *t = &in->tmpl;
	t->time_ns = c->time_ns;
	stamp_template(t, m, flags, st->version, (uint8_t)total);

	struct hw_record *recs = out->recs + out->n_recs;
	if (n_stack) {
		switch (st->plan->fixed) {
#define HW_X_FIXED_EMIT(F, v)                                                                                          \
	case HW_MD_FIXED_##F##_##v: emit_hops(t, st, recs, &hw_md_fixed_plans[HW_MD_FIXED_##F##_##v]); break;
			HW_MD_FIXED_LIST(HW_X_FIXED_EMIT)
#undef HW_X_FIXED_EMIT
		default: emit_hops(t, st, recs, st->plan); break;
		}
	}

	const struct hw_record *own_rec = own ? &own->rec : NULL; /* where the own hop's fields are */
	if (merge) {
		if (own->plan)
			hw_md_decode_fixed(own->plan, own->md, &own->rec);
		copy_missing(&recs[n_stack - 1], &own->rec);
	} else if (own) {
		struct hw_record *r = &recs[n_stack];
		hw_record_store(r, own_image(t, (uint8_t)n_stack, own->rec.node_id));
		if (own->plan && !own->rec.valid) {
			hw_md_decode_fixed(own->plan, own->md, r);
			own_rec = r;
		} else {
			if (own->plan)
				hw_md_decode_fixed(own->plan, own->md, &own->rec);
			copy_missing(r, &own->rec);
		}
	}

	put_report(&out->reps[out->n_reps++], m, flags, (uint16_t)out->n_recs, (uint16_t)total,
	           (own_rec && (own_rec->valid & HW_V_DROP)) ? own_rec->drop_reason : 0);
	out->n_recs += total;
	return HW_OK;
}

#endif
