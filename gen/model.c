/* The simulated fabric behind the reports: nodes with their own clocks, flows with stable paths,
 * per-sender sequence numbers (gaps, 22-bit wrap) and the metadata values of every hop.
 *
 * --flow-paths random (the default, kept byte for byte): every packet comes from a random sender,
 * so a flow's reporting node, and with it its path, changes on most reports.  --flow-paths stable:
 * flow f's sink is node f mod N (the sender of every report of f); its transit hops and their ports
 * are drawn from (f, hop, epoch), and on a fraction --path-change-rate of its reports the flow's
 * epoch moves on, i.e. it is rerouted: new transit hops, and the sink's ingress port moves to the
 * next one, so the new path always differs from the old. */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "hopwatch/wire.h"
#include "rng.h"

struct gen_model {
	const struct gen_cfg *cfg;
	uint64_t rng;
	struct gen_flow *flows;
	uint64_t *clock_off; /* per node */
	uint32_t *seq;       /* per node and hw_id */
	uint32_t *sent;      /* per node and hw_id: reports sent, for --seq-gap-every */
	uint64_t thr_drop, thr_inter, thr_unavail, thr_cnp, thr_burst, thr_move;
	uint32_t *epoch;        /* --flow-paths stable: per flow, path changes so far */
	uint32_t next_fi;       /* --flow-paths stable: the flow of the packet's first report */
	struct gen_p4 *p4;      /* --preset hopwatch-p4 */
	struct gen_report next; /* its next report */
};

uint32_t gen_node_id(const struct gen_cfg *cfg, uint32_t node_idx)
{
	return cfg->node_id_base + node_idx + 1;
}

void gen_flow_finish(const struct gen_cfg *cfg, struct gen_flow *f)
{
	if (cfg->encap == GEN_ENCAP_L4) {
		f->vis_sport = f->sport;
		f->vis_dport = f->dport;
	} else {
		/* the collector sees the tunnel: UDP to 4790 / 6081, entropy in the source port */
		f->t_proto = f->proto;
		f->t_sport = f->sport;
		f->t_dport = f->dport;
		f->proto = 17;
		f->roce = 0;
		f->vis_sport = (uint16_t)(49152 + (f->sport ^ f->dport) % 16384);
		f->vis_dport = cfg->encap == GEN_ENCAP_VXLAN_GPE ? 4790 : 6081;
		f->sport = f->vis_sport;
		f->dport = f->vis_dport;
	}
	f->hash = hw_flow_hash(f->src_ip, f->dst_ip, f->proto, f->vis_sport, f->vis_dport);
}

static void make_flow(const struct gen_cfg *cfg, uint64_t *rng, uint32_t i, struct gen_flow *f)
{
	static const uint8_t dscps[] = {0, 10, 18, 26, 34, 46};
	static const uint16_t udp_ports[] = {53, 123, 443, 4000, 5001, 8472};
	static const uint16_t tcp_ports[] = {22, 80, 443, 5201, 8080, 9000};
	uint64_t r = gen_splitmix(rng);
	memset(f, 0, sizeof(*f));
	f->ipv6 = cfg->ipver == GEN_IP6 || (cfg->ipver == GEN_IP_MIX && (r & 1));
	uint64_t a = gen_splitmix(rng), b = gen_splitmix(rng);
	if (f->ipv6) {
		static const uint8_t pa[8] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0a, 0, 0};
		static const uint8_t pb[8] = {0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0b, 0, 0};
		memcpy(f->src_ip, pa, 8);
		memcpy(f->dst_ip, pb, 8);
		for (int k = 0; k < 8; k++) {
			f->src_ip[8 + k] = (uint8_t)(a >> (8 * k));
			f->dst_ip[8 + k] = (uint8_t)(b >> (8 * k));
		}
	} else {
		f->src_ip[10] = f->src_ip[11] = 0xff;
		f->dst_ip[10] = f->dst_ip[11] = 0xff;
		f->src_ip[12] = 10;
		f->src_ip[13] = 10;
		f->src_ip[14] = (uint8_t)(a >> 8);
		f->src_ip[15] = (uint8_t)(1 + a % 254);
		f->dst_ip[12] = 10;
		f->dst_ip[13] = 20;
		f->dst_ip[14] = (uint8_t)(b >> 8);
		f->dst_ip[15] = (uint8_t)(1 + b % 254);
	}
	f->t_src[0] = 192, f->t_src[1] = 168, f->t_src[2] = (uint8_t)(i >> 8), f->t_src[3] = (uint8_t)(1 + i % 250);
	f->t_dst[0] = 192, f->t_dst[1] = 168, f->t_dst[2] = 200, f->t_dst[3] = (uint8_t)(1 + (a >> 20) % 250);
	int tcp_flow = cfg->l4 == GEN_L4_TCP || (cfg->l4 == GEN_L4_MIX && ((r >> 1) & 1));
	f->proto = tcp_flow ? 6 : 17;
	f->sport = (uint16_t)(32768 + (r >> 8) % 28000);
	if (tcp_flow)
		f->dport = tcp_ports[(r >> 40) % 6];
	else if (cfg->roce) {
		f->dport = 4791;
		f->roce = 1;
		f->qp = (uint32_t)(r >> 40) & 0xffffff;
	} else
		f->dport = udp_ports[(r >> 40) % 6];
	f->dscp = f->roce ? 26 : dscps[(r >> 50) % 6];
	uint8_t mask = cfg->profile == HW_PROFILE_GEANT ? 0x20 : 0x3f;
	if ((f->dscp & mask) == (cfg->int_dscp & mask))
		f->dscp = 0;
	f->ecn = (uint8_t)((r >> 60) & 3);
	gen_flow_finish(cfg, f);
}

struct gen_model *gen_model_new(const struct gen_cfg *cfg)
{
	struct gen_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cfg = cfg;
	m->rng = cfg->seed;
	m->flows = calloc(cfg->flows, sizeof(*m->flows));
	m->clock_off = calloc(cfg->nodes, sizeof(*m->clock_off));
	m->seq = calloc((size_t)cfg->nodes * cfg->hw_ids, sizeof(*m->seq));
	m->sent = calloc((size_t)cfg->nodes * cfg->hw_ids, sizeof(*m->sent));
	if (cfg->stable_paths)
		m->epoch = calloc(cfg->flows, sizeof(*m->epoch));
	if (!m->flows || !m->clock_off || !m->seq || !m->sent || (cfg->stable_paths && !m->epoch)) {
		gen_model_free(m);
		return NULL;
	}
	for (uint32_t i = 0; i < cfg->flows; i++) {
		if (cfg->p4)
			gen_p4_flow(cfg, i, gen_splitmix(&m->rng), &m->flows[i]);
		else
			make_flow(cfg, &m->rng, i, &m->flows[i]);
	}
	if (cfg->p4 && !(m->p4 = gen_p4_new(cfg, m->flows))) {
		gen_model_free(m);
		return NULL;
	}
	for (uint32_t i = 0; i < cfg->nodes; i++)
		m->clock_off[i] = gen_splitmix(&m->rng) % 200; /* PTP-synchronised within 200 ns */
	if (cfg->skew_node && cfg->skew_node <= cfg->nodes)
		m->clock_off[cfg->skew_node - 1] += (uint64_t)cfg->skew_ns; /* wraps like a device clock */
	for (size_t i = 0; i < (size_t)cfg->nodes * cfg->hw_ids; i++)
		m->seq[i] = cfg->seq_start;
	m->thr_drop = gen_prob_threshold(cfg->drop_rate);
	m->thr_inter = gen_prob_threshold(cfg->intermediate_rate);
	m->thr_unavail = gen_prob_threshold(cfg->unavailable_rate);
	m->thr_cnp = gen_prob_threshold(cfg->cnp_rate);
	m->thr_burst = gen_prob_threshold(cfg->burst_rate);
	m->thr_move = gen_prob_threshold(cfg->path_change_rate);
	return m;
}

void gen_model_free(struct gen_model *m)
{
	if (!m)
		return;
	free(m->flows);
	free(m->clock_off);
	free(m->seq);
	free(m->sent);
	free(m->epoch);
	gen_p4_free(m->p4);
	free(m);
}

void gen_model_packet(struct gen_model *m, struct gen_pkt *k, uint64_t sim_ns)
{
	const struct gen_cfg *cfg = m->cfg;
	k->n_reps = 0;
	if (m->p4) {
		gen_p4_next(m->p4, &m->rng, sim_ns, &k->node_idx, &m->next);
		k->hw_id = 0;           /* set_switch_id(node, 0) in p4/cli */
	} else if (cfg->stable_paths) { /* the first report's flow decides the sender: its sink */
		uint64_t r = gen_splitmix(&m->rng);
		m->next_fi = (uint32_t)(r % cfg->flows);
		k->node_idx = m->next_fi % cfg->nodes;
		k->hw_id = (uint8_t)((r >> 32) % cfg->hw_ids);
	} else {
		uint64_t r = gen_splitmix(&m->rng);
		k->node_idx = (uint32_t)(r % cfg->nodes);
		k->hw_id = (uint8_t)((r >> 32) % cfg->hw_ids);
	}
	if (cfg->format == GEN_FMT_INT) {
		k->seq = 0;
		return;
	}
	size_t s = (size_t)k->node_idx * cfg->hw_ids + k->hw_id;
	uint32_t mask = cfg->format == GEN_FMT_TR20 ? 0x3fffff : 0xffffffff;
	if (cfg->seq_gap_every && ++m->sent[s] % cfg->seq_gap_every == 0)
		m->seq[s]++; /* a report the collector never sees */
	k->seq = m->seq[s] & mask;
	m->seq[s] = (m->seq[s] + 1) & mask;
}

/* Epoch e's salt of the per-flow hashes: 0 for epoch 0, so random paths keep their values. */
static uint64_t epoch_salt(uint32_t e)
{
	return (uint64_t)e * 0x9e3779b97f4a7c15ull;
}

/* Values of one hop (timestamps come from stamp_path()).  epoch: the flow's route (stable paths). */
static void make_hop(struct gen_model *m, struct gen_hop *h, uint32_t node_idx, uint32_t flow_idx, uint32_t epoch)
{
	const struct gen_cfg *cfg = m->cfg;
	uint64_t r = gen_splitmix(&m->rng);
	uint64_t ph = gen_mix(((uint64_t)flow_idx << 20 ^ node_idx) ^ epoch_salt(epoch));
	h->node_id = gen_node_id(cfg, node_idx);
	h->in_port = (uint16_t)(1 + (ph >> 8) % 48);
	h->out_port = (uint16_t)(1 + (ph >> 16) % 48);
	h->qid = (uint8_t)((ph >> 24) % 8);
	if (cfg->queues) { /* node n has queues/N queues (the first queues mod N nodes one more) */
		uint32_t per = cfg->queues / cfg->nodes + (node_idx < cfg->queues % cfg->nodes);
		uint32_t q = per ? (uint32_t)((ph >> 24) % per) : 0;
		h->out_port = (uint16_t)(1 + q / 8);
		h->qid = (uint8_t)(q % 8);
	}
	h->l2_in = 1000u + h->in_port;
	h->l2_out = 1000u + h->out_port;
	h->bid = (uint8_t)(h->qid % 2);
	uint32_t occ = (uint32_t)(r % 2000);
	/* a burst on 1/16 of the hops by default: 4 bits of r, which random paths keep byte for byte */
	int burst = cfg->burst_rate == 0.0625 ? ((r >> 16) & 15) == 0 : gen_mix(r) < m->thr_burst;
	if (burst)
		occ = (uint32_t)((r >> 20) % 400000);
	h->qocc = occ & 0xffffff;
	h->bocc = (occ + (uint32_t)((r >> 40) % 1000)) & 0xffffff;
	h->latency = 200 + occ / 8 + (uint32_t)((r >> 32) % 100);
	h->tx_util = (uint32_t)((r >> 12) % 1000000);
	h->unavail = 0;
}

/* Timestamps along a path of n hops that ends at sim time t (the report, or the sink receiving the
 * packet): walking back from the last hop, each hop's egress is 1 us before the next hop's ingress
 * (500 ns before t for the last) and its ingress is its latency before its egress.  Device clocks
 * read dev_clock_start + node offset + sim time.  A 32-bit all-ones value would read as
 * "unavailable", so such a timestamp moves by 1 ns (and the latency with it). */
static void stamp_path(struct gen_model *m, struct gen_hop *h, unsigned n, uint64_t t)
{
	uint64_t age = 0;
	for (unsigned j = n; j-- > 0;) {
		uint64_t clock = m->cfg->dev_clock_start + m->clock_off[h[j].node_id - m->cfg->node_id_base - 1] + t;
		age += j + 1 == n ? 500 : 1000;
		h[j].eg_ts = clock - age;
		age += h[j].latency;
		h[j].ig_ts = clock - age;
		if ((uint32_t)h[j].ig_ts == 0xffffffffu)
			h[j].ig_ts--, h[j].latency++, age++;
		if ((uint32_t)h[j].eg_ts == 0xffffffffu)
			h[j].eg_ts++, h[j].latency++;
	}
}

void gen_model_report(struct gen_model *m, const struct gen_pkt *k, struct gen_report *r, uint64_t sim_ns)
{
	static const uint8_t reasons[] = {6, 25, 29, 71, 80, 89, 160, 176};
	static const uint8_t opcodes[] = {0x04, 0x0a, 0x06, 0x08, 0x11};
	const struct gen_cfg *cfg = m->cfg;
	if (m->p4) {
		*r = m->next;
		return;
	}
	uint64_t r0 = gen_splitmix(&m->rng);
	uint32_t fi = (uint32_t)(r0 % cfg->flows);
	const uint32_t sender = k->node_idx;
	uint32_t epoch = 0;
	if (cfg->stable_paths) {
		if (k->n_reps == 0)
			fi = m->next_fi;
		else /* a coalesced report: another flow of the same sink, fi = sender + nodes * j */
			fi = sender +
			     cfg->nodes * (uint32_t)(r0 % ((cfg->flows - sender + cfg->nodes - 1) / cfg->nodes));
		if (m->thr_move && gen_splitmix(&m->rng) < m->thr_move)
			m->epoch[fi]++; /* rerouted from this report on */
		epoch = m->epoch[fi];
	}
	r->flow = &m->flows[fi];
	unsigned hops = cfg->hops_min;
	if (cfg->hops > cfg->hops_min) /* path length: stable per flow */
		hops += (unsigned)(gen_mix((uint64_t)fi ^ 0x686f7073ull) % (cfg->hops - cfg->hops_min + 1u));
	r->n_stack = cfg->int_ver == GEN_INT_NONE ? 0 : (uint8_t)(hops + cfg->sink_md_stack);
	r->flags = 0;
	r->drop_reason = 0;
	r->ttl = 0;
	r->ecn_ce = 0;
	r->psn = (uint32_t)(r0 >> 32) & 0xffffff;
	r->roce_opcode = 0;
	if (r->flow->roce)
		r->roce_opcode = gen_splitmix(&m->rng) < m->thr_cnp ? 0x81 : opcodes[(r0 >> 24) % 5];
	for (unsigned i = 0; i < r->n_stack; i++) {
		uint32_t node = (uint32_t)(gen_mix(((uint64_t)fi * 131 + i) ^ epoch_salt(epoch)) % cfg->nodes);
		if (node == sender && cfg->nodes > 1 && cfg->format != GEN_FMT_INT)
			node = (node + 1) % cfg->nodes;
		if (cfg->sink_md_stack && i == hops)
			node = sender; /* the sink's own entry, newest on the stack */
		make_hop(m, &r->hops[i], node, fi, epoch);
		if (m->thr_unavail) {
			static const uint16_t bits[] = {GEN_I_PORTS, GEN_I_LATENCY,  GEN_I_QUEUE,   GEN_I_IG_TS,
			                                GEN_I_EG_TS, GEN_I_L2_PORTS, GEN_I_TX_UTIL, GEN_I_BUFFER};
			for (unsigned b = 0; b < 8; b++)
				if ((cfg->instructions & bits[b]) && gen_splitmix(&m->rng) < m->thr_unavail)
					r->hops[i].unavail |= bits[b];
		}
	}
	if (cfg->format == GEN_FMT_INT) {
		stamp_path(m, r->hops, r->n_stack, sim_ns);
		return;
	}
	struct gen_hop *own = &r->hops[r->n_stack];
	if (cfg->sink_md_stack && r->n_stack) {
		stamp_path(m, r->hops, r->n_stack, sim_ns);
		*own = r->hops[r->n_stack - 1];
	} else {
		make_hop(m, own, sender, fi, 0);
		if (cfg->stable_paths) /* the sink stays; the port the rerouted packets arrive on moves */
			own->in_port = (uint16_t)(1 + (own->in_port - 1 + epoch) % 48),
			own->l2_in = 1000u + own->in_port;
		stamp_path(m, r->hops, r->n_stack + 1u, sim_ns);
	}
	r->flags = HW_RF_TRACKED_FLOW;
	if (m->thr_drop && gen_splitmix(&m->rng) < m->thr_drop) {
		r->flags |= HW_RF_DROPPED;
		r->drop_reason = reasons[(r0 >> 56) % 8];
	}
	if (own->qocc >= cfg->congest_threshold)
		r->flags |= HW_RF_CONGESTED_QUEUE;
	if (cfg->format == GEN_FMT_TR20 && m->thr_inter && gen_splitmix(&m->rng) < m->thr_inter)
		r->flags |= HW_RF_INTERMEDIATE;
}
