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
	t->report_node = m->node;
	t->report_seq = m->seq;
	t->hw_id = m->hw_id;
	t->format = m->format;
	t->report_flags = flags;
	t->int_version = st->version;
	t->path_len = (uint8_t)total;

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
		memcpy(r, t, sizeof(*r));
		r->int_version = HW_INT_NONE;
		r->hop_index = (uint8_t)n_stack;
		r->node_id = own->rec.node_id;
		if (own->plan && !own->rec.valid) {
			hw_md_decode_fixed(own->plan, own->md, r);
			own_rec = r;
		} else {
			if (own->plan)
				hw_md_decode_fixed(own->plan, own->md, &own->rec);
			copy_missing(r, &own->rec);
		}
	}

	struct hw_report *rep = &out->reps[out->n_reps++];
	rep->node = m->node;
	rep->seq = m->seq;
	rep->hw_id = m->hw_id;
	rep->format = m->format;
	rep->flags = flags;
	rep->seq_bits = m->seq_bits;
	rep->first = (uint16_t)out->n_recs;
	rep->n_hops = (uint16_t)total;
	rep->drop_reason = (own_rec && (own_rec->valid & HW_V_DROP)) ? own_rec->drop_reason : 0;
	out->n_recs += total;
	return HW_OK;
}

#endif
