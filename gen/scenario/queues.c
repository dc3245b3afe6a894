/* The time-stepped queue model: per egress port and queue, occupancy from arrivals and line rate,
 * strict priority between queues, ECN marking, tail drops above the buffer, and ingress-accounted PFC. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "scen.h"

int sc_sim_init(struct sc_sim *s, struct sc_cfg *cfg, struct sc_topo *t)
{
	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->t = t;
	s->rng = cfg->seed;
	size_t nq = (size_t)t->n_ports * SC_QUEUES;
	s->occ = calloc(nq, sizeof(double));
	s->arr = calloc(nq, sizeof(double));
	s->served = calloc(nq, sizeof(double));
	s->drop = calloc(nq, sizeof(double));
	s->rs = calloc(nq, sizeof(double));
	s->rd = calloc(nq, sizeof(double));
	s->ingress = calloc(nq, sizeof(double));
	s->paused = calloc(nq, 1);
	s->forced = calloc(nq, 1);
	s->qs = calloc(nq, sizeof(*s->qs));
	s->last_qreport = calloc(nq, sizeof(uint64_t));
	s->qev = calloc(nq, sizeof(uint32_t));
	s->hist = calloc((size_t)SC_HIST * t->n_ports * 3, sizeof(float));
	if (!s->occ || !s->arr || !s->served || !s->drop || !s->rs || !s->rd || !s->ingress || !s->paused ||
	    !s->forced || !s->qs || !s->last_qreport || !s->qev || !s->hist)
		return -1;
	return 0;
}

void sc_sim_free(struct sc_sim *s)
{
	free(s->occ);
	free(s->arr);
	free(s->served);
	free(s->drop);
	free(s->rs);
	free(s->rd);
	free(s->ingress);
	free(s->paused);
	free(s->forced);
	if (s->qs)
		for (size_t q = 0; q < (size_t)s->t->n_ports * SC_QUEUES; q++) {
			free(s->qs[q].high.at);
			free(s->qs[q].paused.at);
		}
	free(s->qs);
	free(s->last_qreport);
	free(s->qev);
	free(s->hist);
	free(s->flows);
}

/* Slot of a queue in the history: the three queues traffic uses, -1 for the others. */
static int hist_slot(unsigned qid)
{
	return qid == SC_Q_TCP ? 0 : qid == SC_Q_ROCE ? 1 : qid == SC_Q_CNP ? 2 : -1;
}

double sc_occ_at(const struct sc_sim *s, uint32_t q, int64_t T)
{
	const int slot = hist_slot(q % SC_QUEUES);
	const int64_t cur = (int64_t)(s->now / s->cfg->step_ns);
	int64_t k = T < 0 ? 0 : T / (int64_t)s->cfg->step_ns;
	if (slot < 0 || k >= cur)
		return s->occ[q];
	if (cur - k >= SC_HIST)
		k = cur - SC_HIST + 1;
	return s->hist[(size_t)(k % SC_HIST) * s->t->n_ports * 3 + (q / SC_QUEUES) * 3 + (unsigned)slot];
}

static void remember(struct sc_sim *s)
{
	const size_t row = (size_t)((s->now / s->cfg->step_ns) % SC_HIST) * s->t->n_ports * 3;
	for (uint32_t p = 0; p < s->t->n_ports; p++) {
		s->hist[row + p * 3] = (float)s->occ[sc_q(p, SC_Q_TCP)];
		s->hist[row + p * 3 + 1] = (float)s->occ[sc_q(p, SC_Q_ROCE)];
		s->hist[row + p * 3 + 2] = (float)s->occ[sc_q(p, SC_Q_CNP)];
	}
}

uint32_t sc_latency_ns(const struct sc_sim *s, uint32_t port, double occ)
{
	double q = s->t->ports[port].bps ? occ * 8e9 / (double)s->t->ports[port].bps : 0;
	return s->cfg->base_latency_ns + (uint32_t)llround(q);
}

static int active(const struct sc_flow *f, uint64_t now)
{
	return now >= f->start_ns && now < f->end_ns;
}

double sc_high_level(const struct sc_cfg *c, unsigned qid)
{
	return qid == SC_Q_ROCE ? c->xoff_bytes : 0.4 * c->lossy_buffer;
}

/* The truth's stretches (high, paused): a step that has the state extends the queue's last stretch when that ended
 * the step before, else starts one.  Out of memory: the stretch is not kept (the truth has fewer). */
static void note_step(struct sc_stretches *st, uint64_t now, uint64_t step)
{
	if (st->n && st->at[st->n - 1][1] + step == now) {
		st->at[st->n - 1][1] = now;
		return;
	}
	if (st->n == st->cap) {
		uint32_t cap = st->cap ? 2 * st->cap : 8;
		void *p = realloc(st->at, cap * sizeof(*st->at));
		if (!p)
			return;
		st->at = p;
		st->cap = cap;
	}
	st->at[st->n][0] = st->at[st->n][1] = now;
	st->n++;
}

/* Serve every port: queues in strict priority (CNP, then the rest from high to low), a paused queue
 * sends nothing; what exceeds the buffer after service is dropped. */
static void serve(struct sc_sim *s)
{
	const struct sc_topo *t = s->t;
	const struct sc_cfg *c = s->cfg;
	const double dt = (double)c->step_ns;
	for (uint32_t p = 0; p < t->n_ports; p++) {
		const struct sc_port *pt = &t->ports[p];
		const int host = t->nodes[pt->node].tier == SC_HOST;
		double cap = pt->up && t->ports[pt->peer].up ? (double)pt->bps * dt / 8e9 : 0;
		for (int qid = SC_QUEUES - 1; qid >= 0; qid--) {
			uint32_t q = sc_q(p, (unsigned)qid);
			double tot = s->occ[q] + s->arr[q];
			s->rs[q] = s->rd[q] = s->served[q] = s->drop[q] = 0;
			if (s->paused[q] || s->forced[q]) {
				s->qs[q].paused_ns += c->step_ns;
				note_step(&s->qs[q].paused, s->now, c->step_ns);
			}
			if (tot <= 0) {
				s->occ[q] = 0;
				continue;
			}
			double served = s->paused[q] || s->forced[q] ? 0 : fmin(cap, tot);
			cap -= served;
			double rem = tot - served;
			double buf = host ? INFINITY : qid == SC_Q_ROCE ? c->lossless_buffer : c->lossy_buffer;
			double drop = rem > buf ? rem - buf : 0;
			s->served[q] = served;
			s->drop[q] = drop;
			s->rs[q] = served / tot;
			s->rd[q] = drop / tot;
			s->occ[q] = rem - drop;
			s->qs[q].dropped += drop;
			if (!host && s->occ[q] >= sc_high_level(c, (unsigned)qid))
				note_step(&s->qs[q].high, s->now, c->step_ns);
			if (s->occ[q] > s->qs[q].peak) {
				s->qs[q].peak = s->occ[q];
				s->qs[q].peak_ns = s->now;
			}
		}
	}
}

/* Whole packets out of a fractional byte count kept per flow. */
static unsigned whole(double *acc, double bytes, unsigned pkt)
{
	*acc += bytes / pkt;
	double n = floor(*acc);
	*acc -= n;
	return (unsigned)n;
}

/* Does flow i, with bytes at queue q this step, carry the queue report due there?  By default (--queue-report-flow
 * first) the first flow with bytes there takes every report.  With share: a switch reports the first packet to
 * pass the congested queue once its interval is over, so each flow in proportion to its share of the queue: flows
 * are offered it in order, each with a draw of its own (a mix of the time, queue and flow, not the fabric's random
 * stream, which the traffic draws from), until one takes it; none this step, the next.  (With first, at one sink
 * report per hundreds of packets, a fan-in's other senders are never seen at the congested queue.) */
static int takes_queue_report(const struct sc_sim *s, uint32_t q, uint32_t i, double bytes)
{
	if (!s->cfg->qreport_share)
		return 1;
	const double share = s->occ[q] > bytes ? bytes / s->occ[q] : 1;
	const uint64_t h = gen_mix(gen_mix(s->cfg->seed ^ s->now) ^ (uint64_t)q << 32 ^ i);
	return h < gen_prob_threshold(share) || share >= 1;
}

static void advance_flows(struct sc_sim *s)
{
	const struct sc_topo *t = s->t;
	const struct sc_cfg *c = s->cfg;
	for (uint32_t i = 0; i < s->n_flows; i++) {
		struct sc_flow *f = &s->flows[i];
		if (!f->n_hops)
			continue;
		int marked = 0;
		for (int h = f->n_hops - 1; h >= 0; h--) {
			uint32_t q = sc_q(f->path[h], f->qid);
			double tot = f->backlog[h] + f->in[h];
			f->in[h] = 0;
			if (tot <= 0)
				continue;
			double out = tot * s->rs[q], d = tot * s->rd[q];
			f->backlog[h] = tot - out - d;
			if (s->occ[q] > c->ecn_bytes && f->gf.ecn == 2)
				marked = 1;
			if (h > 0 && s->occ[q] > c->qreport_bytes &&
			    s->now >= s->last_qreport[q] + c->queue_report_ns && takes_queue_report(s, q, i, tot)) {
				s->last_qreport[q] = s->now;
				sc_report_queue(s, f, (unsigned)h);
			}
			unsigned n;
			if (d > 0 && (n = whole(&f->drop_acc[h], d, f->pkt)) > 0 && h > 0) {
				f->dropped_pkts += n;
				sc_report_drop(s, f, (unsigned)h, SC_DROP_CONGESTION, n);
			}
			if (h + 1 == f->n_hops) {
				if ((n = whole(&f->deliver_acc, out, f->pkt)) > 0) {
					f->delivered_pkts += n;
					sc_report_sink(s, f, n);
				}
				continue;
			}
			const struct sc_port *rx = &t->ports[t->ports[f->path[h]].peer];
			if (f->pkt > rx->mtu) { /* the receiver cannot take frames this large */
				f->dropped_mtu_at = (uint8_t)(h + 1);
				if ((n = whole(&f->drop_acc[h + 1], out, f->pkt)) > 0) {
					f->dropped_pkts += n;
					sc_report_drop(s, f, (unsigned)h + 1, SC_DROP_MTU, n);
				}
				continue;
			}
			f->in[h + 1] = out; /* on the wire: arrives at the next hop in the next step */
		}
		f->marked = (uint8_t)marked;
	}
	/* a receiver answers marked RoCE packets with one CNP per 50 us */
	for (uint32_t i = 0; i < s->n_flows; i++) {
		struct sc_flow *f = &s->flows[i];
		if (f->kind == SC_F_CNP && f->cnp_of >= 0)
			f->bps = s->flows[f->cnp_of].marked ? (uint64_t)f->pkt * 8 * 20000 : 0;
	}
}

/* PFC: bytes queued in a switch are counted against the port they came in on; above Xoff the
 * switch pauses that priority on its neighbour's egress toward it, below Xon it resumes. */
static void pfc(struct sc_sim *s)
{
	const struct sc_topo *t = s->t;
	const struct sc_cfg *c = s->cfg;
	for (uint32_t p = 0; p < t->n_ports; p++)
		s->ingress[sc_q(p, SC_Q_ROCE)] = 0;
	for (uint32_t i = 0; i < s->n_flows; i++) {
		const struct sc_flow *f = &s->flows[i];
		if (f->qid != SC_Q_ROCE)
			continue;
		for (unsigned h = 1; h < f->n_hops; h++)
			s->ingress[sc_q(t->ports[f->path[h - 1]].peer, SC_Q_ROCE)] += f->backlog[h];
	}
	for (uint32_t p = 0; p < t->n_ports; p++) {
		const struct sc_port *pt = &t->ports[p];
		if (t->nodes[pt->node].tier == SC_HOST || !(pt->pfc & (1u << SC_Q_ROCE)))
			continue;
		double x = s->ingress[sc_q(p, SC_Q_ROCE)];
		uint32_t up = sc_q(pt->peer, SC_Q_ROCE);
		if (x > c->xoff_bytes)
			s->paused[up] = 1;
		else if (x < c->xon_bytes)
			s->paused[up] = 0;
	}
}

void sc_sim_step(struct sc_sim *s)
{
	const struct sc_cfg *c = s->cfg;
	const double dt = (double)c->step_ns;
	sc_events_apply(s);
	size_t nq = (size_t)s->t->n_ports * SC_QUEUES;
	memset(s->arr, 0, nq * sizeof(double));
	memset(s->occ, 0, nq * sizeof(double));
	for (uint32_t i = 0; i < s->n_flows; i++) {
		struct sc_flow *f = &s->flows[i];
		if (!f->n_hops)
			continue;
		if (active(f, s->now) && f->backlog[0] < c->host_buffer)
			f->in[0] += (double)f->bps * dt / 8e9;
		for (unsigned h = 0; h < f->n_hops; h++) {
			uint32_t q = sc_q(f->path[h], f->qid);
			s->arr[q] += f->in[h];
			s->occ[q] += f->backlog[h];
		}
	}
	serve(s);
	remember(s);
	advance_flows(s);
	pfc(s);
	s->now += c->step_ns;
}
