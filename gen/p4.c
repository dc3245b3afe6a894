/* --preset hopwatch-p4: the reports p4/hopwatch_v1model.p4 sends on the line of p4/cli/
 * (s1 source, s2.. transit, the last switch sink; ports 1 in, 2 out, 3 to the collector).
 * Data packets from h1 (10.0.1.1) to h2 (10.0.2.2), watched by the source, walk the line; each
 * switch's egress queue follows a random walk (in packets, BMv2's 64-packet queue), and the
 * program's rules decide what is reported (p4/README.md, "Roles" and "What the collector
 * receives"):
 *   - congestion events at every switch: occupancy >= depth threshold (--congest-threshold, 20 as in
 *     p4/cli) or hop latency >= 50000 us: ECN CE on ECT packets, and a queue report (Q, F) while
 *     the quota of 64 lasts (I too: the switch is not the flow's sink); the quota refills when
 *     occupancy falls below 5.  At the sink the Q flag rides on the INT report;
 *   - the sink's INT report (F) for every packet that reaches it;
 *   - a drop report (D, F) for a packet dropped in ingress (--drop-rate): no route (29, at s1, to
 *     10.9.9.9) or TTL expired (26, at any switch).
 * A report's inner packet is the packet as the switch had it at egress (its own hop already pushed
 * for queue reports; for drops: as received).  Timestamps and latencies are microseconds, as BMv2's
 * *_global_timestamp. */
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "hopwatch/wire.h"
#include "rng.h"

struct gen_p4 {
	const struct gen_cfg *cfg;
	const struct gen_flow *flows;
	struct gen_flow *unrouted; /* per flow: the same packet to 10.9.9.9 (no route) */
	uint32_t occ[GEN_P4_MAX_NODES];
	uint32_t used[GEN_P4_MAX_NODES]; /* register queue_report_used, slot of port 2 queue 0 */
	uint64_t clock_off[GEN_P4_MAX_NODES];
	struct gen_report pend[GEN_P4_MAX_NODES];
	uint32_t pend_node[GEN_P4_MAX_NODES];
	unsigned n_pend, i_pend;
	uint64_t thr_drop, thr_cnp;
};

/* Flow i of the preset: h1 -> h2, RoCEv2 (UDP 4791, BTH), matched by the first watchlist entry of
 * p4/cli/source.txt. */
void gen_p4_flow(const struct gen_cfg *cfg, uint32_t i, uint64_t r, struct gen_flow *f)
{
	static const uint8_t dscps[] = {0, 10, 18, 26, 34, 46};
	static const uint8_t h1[4] = {10, 0, 1, 1}, h2[4] = {10, 0, 2, 2};
	memset(f, 0, sizeof(*f));
	f->src_ip[10] = f->src_ip[11] = 0xff;
	f->dst_ip[10] = f->dst_ip[11] = 0xff;
	memcpy(f->src_ip + 12, h1, 4);
	memcpy(f->dst_ip + 12, h2, 4);
	f->proto = 17;
	f->sport = (uint16_t)(49152 + i % 16384);
	f->dport = 4791;
	f->roce = 1;
	f->qp = (uint32_t)(r >> 40) & 0xffffff;
	f->dscp = dscps[(r >> 50) % 6];
	f->ecn = (uint8_t)((r >> 60) & 3);
	gen_flow_finish(cfg, f);
}

struct gen_p4 *gen_p4_new(const struct gen_cfg *cfg, const struct gen_flow *flows)
{
	struct gen_p4 *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->cfg = cfg;
	p->flows = flows;
	p->unrouted = calloc(cfg->flows, sizeof(*p->unrouted));
	if (!p->unrouted) {
		free(p);
		return NULL;
	}
	for (uint32_t i = 0; i < cfg->flows; i++) {
		p->unrouted[i] = flows[i];
		p->unrouted[i].dst_ip[13] = 9, p->unrouted[i].dst_ip[14] = 9, p->unrouted[i].dst_ip[15] = 9;
		gen_flow_finish(cfg, &p->unrouted[i]);
	}
	uint64_t s = cfg->seed ^ 0x68772d7034ull;
	for (unsigned j = 0; j < cfg->nodes; j++)
		p->clock_off[j] = gen_splitmix(&s) % 1000000000u; /* switches started up to 1 s apart */
	p->thr_drop = gen_prob_threshold(cfg->drop_rate);
	p->thr_cnp = gen_prob_threshold(cfg->cnp_rate);
	return p;
}

void gen_p4_free(struct gen_p4 *p)
{
	if (!p)
		return;
	free(p->unrouted);
	free(p);
}

/* Device clock of switch j in microseconds at sim time t (ns). */
static uint64_t clock_us(const struct gen_p4 *p, unsigned j, uint64_t t)
{
	return (p->cfg->dev_clock_start + p->clock_off[j] + t) / 1000u;
}

static void queue_step(struct gen_p4 *p, unsigned j, uint64_t r)
{
	int occ = (int)p->occ[j] + (int)(r % 7) - 3;
	if (occ < 0)
		occ = 0;
	if (occ > (int)GEN_P4_QUEUE_CAP - 1)
		occ = GEN_P4_QUEUE_CAP - 1;
	p->occ[j] = (uint32_t)occ;
}

/* One data packet from h1 along the line: fills the pending reports. */
static void simulate(struct gen_p4 *p, uint64_t *rng, uint64_t sim_ns)
{
	static const uint8_t opcodes[] = {0x04, 0x0a, 0x06, 0x08, 0x11};
	const struct gen_cfg *cfg = p->cfg;
	const unsigned n = cfg->nodes;
	uint64_t r0 = gen_splitmix(rng);
	uint32_t fi = (uint32_t)(r0 % cfg->flows);
	unsigned drop_at = 0; /* switch index + 1 that drops the packet in ingress, 0 = none */
	uint8_t reason = 0;
	const struct gen_flow *flow = &p->flows[fi];
	uint8_t ttl = 64;
	if (p->thr_drop && gen_splitmix(rng) < p->thr_drop) {
		uint64_t r = gen_splitmix(rng);
		drop_at = 1 + (unsigned)(r % n);
		if (drop_at == 1 && ((r >> 32) & 1)) {
			reason = 29; /* no route: only the first switch sees the unroutable address */
			flow = &p->unrouted[fi];
		} else {
			reason = 26; /* sent with a TTL that runs out at this switch */
			ttl = (uint8_t)drop_at;
		}
	}
	uint8_t opcode = 0;
	uint32_t psn = (uint32_t)(r0 >> 32) & 0xffffff;
	if (flow->roce)
		opcode = gen_splitmix(rng) < p->thr_cnp ? 0x81 : opcodes[(r0 >> 24) % 5];

	struct gen_hop hops[GEN_P4_MAX_NODES];
	uint8_t ce = 0;
	uint8_t ce_after[GEN_P4_MAX_NODES]; /* inner ECN is CE after switch j's egress */
	uint8_t rpt_q[GEN_P4_MAX_NODES];
	uint64_t t = sim_ns;
	const unsigned last = drop_at ? drop_at : n;
	p->n_pend = p->i_pend = 0;
	for (unsigned j = 0; j < last; j++) {
		uint64_t r = gen_splitmix(rng);
		struct gen_hop *h = &hops[j];
		memset(h, 0, sizeof(*h));
		h->node_id = gen_node_id(cfg, j);
		h->in_port = 1;
		h->qid = 0;
		h->ig_ts = clock_us(p, j, t);
		rpt_q[j] = 0;
		ce_after[j] = ce;
		if (drop_at == j + 1) { /* dropped in ingress: no egress, no queue */
			h->out_port = 0xffff;
			break;
		}
		queue_step(p, j, r);
		h->out_port = 2;
		h->qocc = p->occ[j];
		h->latency = 100 + 25 * h->qocc + (uint32_t)((r >> 8) % 50);
		h->eg_ts = h->ig_ts + h->latency;
		/* hw_congestion_events */
		if (h->qocc >= cfg->congest_threshold || h->latency >= GEN_P4_LATENCY_THR) {
			if (flow->ecn == 1 || flow->ecn == 2)
				ce = 1;
			if (p->used[j] < GEN_P4_QUOTA) {
				rpt_q[j] = 1;
				p->used[j]++;
			}
		} else if (h->qocc < GEN_P4_RESET) {
			p->used[j] = 0;
		}
		ce_after[j] = ce;
		t += (uint64_t)(h->latency + 1) * 1000u; /* 1 us on the wire to the next switch */
	}

	for (unsigned j = 0; j < last; j++) {
		const int dropped = drop_at == j + 1;
		const int sink = !drop_at && j == n - 1;
		if (!dropped && !sink && !rpt_q[j])
			continue;
		struct gen_report *r = &p->pend[p->n_pend];
		p->pend_node[p->n_pend++] = j;
		memset(r, 0, sizeof(*r));
		r->flow = flow;
		r->roce_opcode = opcode;
		r->psn = psn;
		if (dropped) {
			/* as received: the hops of the switches before, TTL and ECN as they left them */
			r->n_stack = (uint8_t)j;
			r->flags = HW_RF_DROPPED | HW_RF_TRACKED_FLOW;
			r->drop_reason = reason;
			r->ttl = (uint8_t)(ttl - j);
			r->ecn_ce = j ? ce_after[j - 1] : 0;
		} else if (sink) {
			/* the sink pushes nothing: the stack holds the hops before it */
			r->n_stack = (uint8_t)j;
			r->flags = HW_RF_TRACKED_FLOW | (rpt_q[j] ? HW_RF_CONGESTED_QUEUE : 0);
			r->ttl = (uint8_t)(ttl - j - 1);
			r->ecn_ce = ce_after[j];
		} else {
			/* queue report: its own hop is already on the stack (and in the report metadata); not the
			 * flow's sink, so I (intermediate: the path so far) */
			r->n_stack = (uint8_t)(j + 1);
			r->flags = HW_RF_TRACKED_FLOW | HW_RF_CONGESTED_QUEUE | HW_RF_INTERMEDIATE;
			r->ttl = (uint8_t)(ttl - j - 1);
			r->ecn_ce = ce_after[j];
		}
		for (unsigned i = 0; i < r->n_stack; i++)
			r->hops[i] = hops[i];
		r->hops[r->n_stack] = hops[j];
	}
}

void gen_p4_next(struct gen_p4 *p, uint64_t *rng, uint64_t sim_ns, uint32_t *node_idx, struct gen_report *r)
{
	while (p->i_pend >= p->n_pend)
		simulate(p, rng, sim_ns);
	*node_idx = p->pend_node[p->i_pend];
	*r = p->pend[p->i_pend++];
}
