/* Truth records: what a correct collector decodes from one valid generated packet, built from the
 * report model (not from the bytes).  Conventions are listed in docs/gen.md. */
#include <string.h>

#include "gen.h"
#include "hopwatch/wire.h"

static uint8_t record_int_version(const struct gen_cfg *cfg)
{
	switch (cfg->int_ver) {
	case GEN_INT_V05: return HW_INT_V05;
	case GEN_INT_V10: return HW_INT_V10;
	case GEN_INT_V21: return HW_INT_V21;
	default: return HW_INT_NONE;
	}
}

static void v4mapped(uint8_t out[16], const uint8_t a[4])
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	memcpy(out, prefix, 12);
	memcpy(out + 12, a, 4);
}

static void flow_fields(const struct gen_cfg *cfg, const struct gen_report *r, struct hw_record *o)
{
	const struct gen_flow *f = r->flow;
	o->valid |= HW_V_FLOW | HW_V_TCLASS;
	if (cfg->encap != GEN_ENCAP_L4) {
		/* VXLAN-GPE / Geneve: the record describes the tenant packet the tunnel carries
		 * (docs/records.md), with the tenant IP header's traffic class. */
		v4mapped(o->src_ip, f->t_src);
		v4mapped(o->dst_ip, f->t_dst);
		o->ip_proto = f->t_proto;
		o->src_port = f->t_sport;
		o->dst_port = f->t_dport;
		o->flow_hash = hw_flow_hash(o->src_ip, o->dst_ip, o->ip_proto, o->src_port, o->dst_port);
		o->dscp = f->dscp;
		o->ecn = f->ecn;
		return;
	}
	memcpy(o->src_ip, f->src_ip, 16);
	memcpy(o->dst_ip, f->dst_ip, 16);
	o->ip_proto = f->proto;
	o->src_port = f->vis_sport;
	o->dst_port = f->vis_dport;
	o->flow_hash = f->hash;
	int int_dscp = cfg->int_ver != GEN_INT_NONE && r->n_stack > 0 && cfg->detect == GEN_DETECT_DSCP;
	/* With DSCP-announced INT the collector restores the original DSCP the source saved in the
	 * shim or tail; GEANT saves none (0 there). */
	o->dscp = int_dscp ? (cfg->profile == HW_PROFILE_GEANT ? 0 : f->dscp) : f->dscp;
	o->ecn = int_dscp && cfg->profile == HW_PROFILE_GEANT ? 0 : f->ecn; /* GEANT writes TOS 0x80 */
	if (r->ecn_ce)
		o->ecn = 3; /* marked CE on the way (congestion events) */
	if (f->roce) {
		o->valid |= HW_V_ROCE;
		o->roce_opcode = r->roce_opcode;
		o->roce_dest_qp = f->qp;
	}
}

/* The record's egress port of a hop: the wire's 0xFFFF (no egress chosen, a drop) is HW_PORT_NONE. */
static uint32_t egress_of(uint16_t out_port)
{
	return out_port == 0xffff ? HW_PORT_NONE : out_port;
}

/* A hop from an embedded INT-MD stack. */
static void stack_hop(const struct gen_cfg *cfg, const struct gen_hop *h, struct hw_record *o)
{
	const uint16_t b = cfg->instructions & (uint16_t)~h->unavail;
	const int ts32 = cfg->int_ver != GEN_INT_V21 && cfg->profile != HW_PROFILE_GEANT;
	o->int_version = record_int_version(cfg);
	o->node_id = (b & GEN_I_NODE) ? h->node_id : 0;
	if (b & GEN_I_PORTS) {
		o->valid |= HW_V_PORTS;
		o->ingress_port = h->in_port;
		o->egress_port = egress_of(h->out_port);
	}
	if (b & GEN_I_LATENCY) {
		o->valid |= HW_V_HOP_LATENCY;
		o->hop_latency = h->latency;
	}
	if (b & GEN_I_QUEUE) {
		o->valid |= HW_V_QUEUE;
		o->queue_id = h->qid;
		o->queue_occupancy = h->qocc;
	}
	if (b & GEN_I_IG_TS) {
		o->valid |= HW_V_INGRESS_TS;
		o->ingress_ts = ts32 ? (uint32_t)h->ig_ts : h->ig_ts;
	}
	if (b & GEN_I_EG_TS) {
		o->valid |= HW_V_EGRESS_TS;
		o->egress_ts = ts32 ? (uint32_t)h->eg_ts : h->eg_ts;
	}
	if (ts32 && !(b & GEN_I_LATENCY) && (b & GEN_I_IG_TS) && (b & GEN_I_EG_TS)) {
		o->valid |= HW_V_HOP_LATENCY;
		o->hop_latency = (uint32_t)h->eg_ts - (uint32_t)h->ig_ts;
	}
	if (b & GEN_I_L2_PORTS) {
		o->valid |= HW_V_L2_PORTS;
		o->l2_ingress_port = h->l2_in;
		o->l2_egress_port = h->l2_out;
	}
	if (b & GEN_I_TX_UTIL) {
		o->valid |= HW_V_TX_UTIL;
		o->egress_tx_util = h->tx_util;
	}
	if (b & GEN_I_BUFFER) {
		o->valid |= HW_V_BUFFER;
		o->buffer_id = h->bid;
		o->buffer_occupancy = h->bocc;
	}
}

static void drop_fields(const struct gen_report *r, const struct gen_hop *h, struct hw_record *o)
{
	o->valid |= HW_V_DROP;
	o->queue_id = h->qid;
	o->drop_reason = r->drop_reason;
}

/* The reporting node's own hop, from the report's metadata. */
static void own_hop(const struct gen_cfg *cfg, const struct gen_report *r, struct hw_record *o)
{
	const struct gen_hop *h = &r->hops[r->n_stack];
	const int drop = !!(r->flags & HW_RF_DROPPED);
	o->node_id = o->report_node; /* the header's node / switch id */
	if (cfg->format == GEN_FMT_TR05) {
		o->valid |= HW_V_PORTS | HW_V_INGRESS_TS;
		o->ingress_port = h->in_port;
		o->egress_port = egress_of(h->out_port);
		o->ingress_ts = (uint32_t)h->ig_ts;
		if (drop)
			drop_fields(r, h, o);
		else {
			o->valid |= HW_V_QUEUE | HW_V_EGRESS_TS | HW_V_HOP_LATENCY;
			o->queue_id = h->qid;
			o->queue_occupancy = h->qocc;
			o->egress_ts = (uint32_t)h->eg_ts;
			o->hop_latency = (uint32_t)h->eg_ts - (uint32_t)h->ig_ts;
		}
		return;
	}
	if (cfg->format == GEN_FMT_TR10) {
		uint8_t bits = (uint8_t)(cfg->rep_md & 0x3f);
		o->valid |= HW_V_INGRESS_TS;
		o->ingress_ts = (uint32_t)h->ig_ts;
		if (bits & GEN_R1_PORTS) {
			o->valid |= HW_V_PORTS;
			o->ingress_port = h->in_port;
			o->egress_port = egress_of(h->out_port);
		}
		if (bits & GEN_R1_LATENCY) {
			o->valid |= HW_V_HOP_LATENCY;
			o->hop_latency = h->latency;
		}
		if (bits & GEN_R1_QUEUE) {
			o->valid |= HW_V_QUEUE;
			o->queue_id = h->qid;
			o->queue_occupancy = h->qocc;
		}
		if (bits & GEN_R1_EG_TS) {
			o->valid |= HW_V_EGRESS_TS;
			o->egress_ts = (uint32_t)h->eg_ts;
			if (!(bits & GEN_R1_LATENCY)) {
				o->valid |= HW_V_HOP_LATENCY;
				o->hop_latency = (uint32_t)h->eg_ts - (uint32_t)h->ig_ts;
			}
		}
		if (drop)
			drop_fields(r, h, o);
		if (bits & GEN_R1_TX_UTIL) {
			o->valid |= HW_V_TX_UTIL;
			o->egress_tx_util = h->tx_util;
		}
		return;
	}
	/* TR v2.0 RepMdBits */
	uint16_t bits = gen_tr2_report_bits(cfg, r);
	if (bits & GEN_R_PORTS) {
		o->valid |= HW_V_PORTS;
		o->ingress_port = h->in_port;
		o->egress_port = egress_of(h->out_port);
	}
	if (bits & GEN_R_LATENCY) {
		o->valid |= HW_V_HOP_LATENCY;
		o->hop_latency = h->latency;
	}
	if (bits & GEN_R_QUEUE) {
		o->valid |= HW_V_QUEUE;
		o->queue_id = h->qid;
		o->queue_occupancy = h->qocc;
	}
	if (bits & GEN_R_IG_TS) {
		o->valid |= HW_V_INGRESS_TS;
		o->ingress_ts = h->ig_ts;
	}
	if (bits & GEN_R_EG_TS) {
		o->valid |= HW_V_EGRESS_TS;
		o->egress_ts = h->eg_ts;
	}
	if (bits & GEN_R_L2_PORTS) {
		o->valid |= HW_V_L2_PORTS;
		o->l2_ingress_port = h->l2_in;
		o->l2_egress_port = h->l2_out;
	}
	if (bits & GEN_R_TX_UTIL) {
		o->valid |= HW_V_TX_UTIL;
		o->egress_tx_util = h->tx_util;
	}
	if (bits & GEN_R_BUFFER) {
		o->valid |= HW_V_BUFFER;
		o->buffer_id = h->bid;
		o->buffer_occupancy = h->bocc;
	}
	if (drop)
		drop_fields(r, h, o);
}

static uint8_t record_format(unsigned f)
{
	switch (f) {
	case GEN_FMT_TR20: return HW_FORMAT_TR20;
	case GEN_FMT_TR10: return HW_FORMAT_TR10;
	case GEN_FMT_TR05: return HW_FORMAT_TR05;
	default: return HW_FORMAT_INT;
	}
}

unsigned gen_truth_records(const struct gen_cfg *cfg, const struct gen_pkt *k, uint64_t time_ns, struct hw_record *out,
                           unsigned cap)
{
	unsigned n = 0;
	const int bare = cfg->format == GEN_FMT_INT;
	for (unsigned ri = 0; ri < k->n_reps; ri++) {
		const struct gen_report *r = &k->reps[ri];
		/* --sink-md stack: the sink's stack entry is the reporting node's hop; the report's drop
		 * fields are merged into it instead of making a record of their own */
		const int merged =
		    (cfg->sink_md_stack ||
		     (cfg->p4 && r->n_stack && r->hops[r->n_stack - 1].node_id == gen_node_id(cfg, k->node_idx))) &&
		    !bare && r->n_stack;
		const unsigned path = r->n_stack + (bare || merged ? 0 : 1);
		if (n + path > cap)
			break;
		struct hw_record base;
		memset(&base, 0, sizeof(base));
		base.time_ns = time_ns;
		base.format = record_format(cfg->format);
		base.path_len = (uint8_t)path;
		if (!bare) {
			base.report_node = gen_node_id(cfg, k->node_idx);
			base.hw_id = k->hw_id;
			base.report_seq = k->seq;
			base.report_flags = r->flags;
			if (!r->n_stack)
				base.report_flags |= HW_RF_POSTCARD;
		}
		flow_fields(cfg, r, &base);
		struct hw_record *first = out + n;
		for (unsigned i = 0; i < r->n_stack; i++) {
			out[n] = base;
			out[n].hop_index = (uint8_t)i;
			stack_hop(cfg, &r->hops[i], &out[n]);
			n++;
		}
		if (merged) {
			if (r->flags & HW_RF_DROPPED)
				drop_fields(r, &r->hops[r->n_stack], &out[n - 1]);
			continue;
		}
		if (bare) {
			uint32_t rn = r->n_stack ? out[n - 1].node_id : 0;
			for (struct hw_record *o = first; o < out + n; o++)
				o->report_node = rn;
			continue;
		}
		out[n] = base;
		out[n].hop_index = (uint8_t)r->n_stack;
		own_hop(cfg, r, &out[n]);
		n++;
	}
	return n;
}
