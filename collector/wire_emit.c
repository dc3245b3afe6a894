/* Turning one parsed report into records: the embedded stack oldest hop first, then the reporting
 * node's own hop, every record stamped with the report's and the flow's fields. */
#include "wire_internal.h"

/* The groups of hop fields, with the valid bits that guard them. */
static void copy_missing(struct hw_record *dst, const struct hw_record *src)
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

enum hw_result hw_emit(struct hw_ctx *c, const struct hw_report_meta *m, const struct hw_inner *in,
                       const struct hw_record *own)
{
	struct hw_parse_out *out = c->out;
	const struct hw_int_stack *st = &in->stack;
	unsigned n_stack = st->version ? st->n_hops : 0;
	unsigned need = n_stack + (own ? 1u : 0u);

	if (out->n_reps >= out->rep_cap || need > out->rec_cap - out->n_recs || need > 255)
		return HW_E_TOO_MANY;

	const uint8_t flags = (uint8_t)(m->flags | (st->version ? 0 : HW_RF_POSTCARD));
	struct hw_record *recs = out->recs + out->n_recs;

	/* Each record starts as a copy of the flow template, then gets the report's fields stored
	 * into it directly (no modified local copy: copying a just-written struct stalls the CPU). */
#define STAMP(r)                                                                                                       \
	do {                                                                                                           \
		memcpy((r), &in->tmpl, sizeof(*(r)));                                                                  \
		(r)->time_ns = c->time_ns;                                                                             \
		(r)->report_node = m->node;                                                                            \
		(r)->report_seq = m->seq;                                                                              \
		(r)->hw_id = m->hw_id;                                                                                 \
		(r)->format = m->format;                                                                               \
		(r)->report_flags = flags;                                                                             \
	} while (0)

	/* Wire hop j (0 = newest) is path hop n_stack - 1 - j. */
	const uint8_t *hop = st->newest;
	for (unsigned j = 0; j < n_stack; j++, hop += st->hop_bytes) {
		struct hw_record *r = &recs[n_stack - 1 - j];
		STAMP(r);
		r->int_version = st->version;
		hw_md_decode(&st->plan, hop, r);
		hw_md_derive_latency(r, st->ts32);
	}

	unsigned total = n_stack;
	if (own) {
		struct hw_record *newest = n_stack ? &recs[n_stack - 1] : NULL;
		bool newest_has_node = st->plan.off[MD_NODE] >= 0;
		if (newest && newest_has_node && newest->node_id == own->node_id) {
			copy_missing(newest, own);
		} else {
			struct hw_record *r = &recs[total++];
			STAMP(r);
			r->int_version = HW_INT_NONE;
			r->node_id = own->node_id;
			copy_missing(r, own);
		}
	}
	for (unsigned i = 0; i < total; i++) {
		recs[i].hop_index = (uint8_t)i;
		recs[i].path_len = (uint8_t)total;
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
	rep->drop_reason = (own && (own->valid & HW_V_DROP)) ? own->drop_reason : 0;
	out->n_recs += total;
	return HW_OK;
#undef STAMP
}
