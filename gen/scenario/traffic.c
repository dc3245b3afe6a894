/* Scenario traffic: RoCEv2 flows (UDP 4791, BTH, DSCP 26, ECT(0)), their CNP flows (opcode 0x81,
 * DSCP 48), TCP background flows, and the flows events add (incast, microburst); routing per flow. */
#include <stdlib.h>
#include <string.h>

#include "hopwatch/wire.h"
#include "rng.h"
#include "scen.h"

uint8_t sc_dscp_queue(uint8_t dscp)
{
	switch (dscp) {
	case 26: return SC_Q_ROCE;
	case 48: return SC_Q_CNP;
	default: return SC_Q_TCP;
	}
}

static void set_dscp(struct sc_flow *f, uint8_t dscp)
{
	f->gf.dscp = dscp;
	f->qid = sc_dscp_queue(dscp);
}

int sc_flow_route(struct sc_sim *s, struct sc_flow *f)
{
	uint32_t path[SC_MAX_PATH] = {0};
	unsigned n = sc_route(s->t, f->src, f->dst, f->gf.hash, path);
	if (n == f->n_hops && !memcmp(path, f->path, n * sizeof(path[0])))
		return 0;
	/* frames queued where the flow no longer goes are lost with the old path */
	for (unsigned h = 0; h < SC_MAX_PATH; h++)
		if (h >= n || h >= f->n_hops || path[h] != f->path[h])
			f->backlog[h] = f->in[h] = 0;
	memcpy(f->path, path, sizeof(path));
	if (f->n_hist < SC_MAX_HIST) {
		f->hist_ns[f->n_hist] = s->now;
		f->hist_len[f->n_hist] = (uint8_t)n;
		memcpy(f->hist[f->n_hist++], path, sizeof(path));
	}
	int changed = f->n_hops != 0;
	f->n_hops = (uint8_t)n;
	if (changed)
		f->path_changes++;
	return changed;
}

struct sc_flow *sc_flow_add(struct sc_sim *s, uint32_t src, uint32_t dst, unsigned kind, uint64_t bps, uint64_t start,
                            uint64_t end)
{
	if (s->n_flows == s->cap_flows) {
		uint32_t cap = s->cap_flows ? s->cap_flows * 2 : 256;
		struct sc_flow *nf = realloc(s->flows, cap * sizeof(*nf));
		if (!nf)
			return NULL;
		s->flows = nf;
		s->cap_flows = cap;
	}
	struct sc_flow *f = &s->flows[s->n_flows];
	memset(f, 0, sizeof(*f));
	f->id = s->n_flows++;
	f->src = src, f->dst = dst;
	f->kind = (uint8_t)kind;
	f->bps = bps;
	f->start_ns = start, f->end_ns = end;
	f->cnp_of = f->cnp = -1;
	f->dropped_mtu_at = 0xff;
	uint64_t r = gen_splitmix(&s->rng);
	struct gen_flow *g = &f->gf;
	uint32_t a = s->t->nodes[src].id, b = s->t->nodes[dst].id;
	g->src_ip[10] = g->src_ip[11] = g->dst_ip[10] = g->dst_ip[11] = 0xff;
	for (int i = 0; i < 4; i++) {
		g->src_ip[12 + i] = (uint8_t)(a >> (24 - 8 * i));
		g->dst_ip[12 + i] = (uint8_t)(b >> (24 - 8 * i));
	}
	if (kind == SC_F_TCP) {
		g->proto = 6;
		g->sport = (uint16_t)(32768 + r % 28000);
		g->dport = 5201;
		g->ecn = 2;
		set_dscp(f, 0);
		f->pkt = 1500;
	} else {
		/* RoCEv2: UDP to 4791, the source port carries the QP's entropy (as NICs do) */
		g->proto = 17;
		g->roce = 1;
		g->sport = (uint16_t)(49152 + r % 16384);
		g->dport = 4791;
		g->qp = (uint32_t)(r >> 24) & 0xffffff;
		g->ecn = kind == SC_F_CNP ? 0 : 2; /* ECT(0); CNPs are not ECN-capable */
		set_dscp(f, kind == SC_F_CNP ? 48 : 26);
		f->pkt = kind == SC_F_CNP ? 78 : 4160; /* CNP; 4096 B RoCE MTU + headers */
	}
	struct gen_cfg gc;
	memset(&gc, 0, sizeof(gc));
	gc.encap = GEN_ENCAP_L4;
	gen_flow_finish(&gc, g);
	sc_flow_route(s, f);
	return f;
}

/* A RoCE flow and the CNP flow its receiver sends back while packets arrive marked. */
static struct sc_flow *add_roce(struct sc_sim *s, uint32_t src, uint32_t dst, uint64_t bps, uint64_t start,
                                uint64_t end)
{
	struct sc_flow *f = sc_flow_add(s, src, dst, SC_F_ROCE, bps, start, end);
	if (!f)
		return NULL;
	uint32_t fi = f->id;
	struct sc_flow *c = sc_flow_add(s, dst, src, SC_F_CNP, 0, start, end);
	if (!c)
		return NULL;
	c->cnp_of = (int32_t)fi;
	c->gf.qp = s->flows[fi].gf.qp ^ 0x1; /* the requester's QP */
	s->flows[fi].cnp = (int32_t)c->id;
	return &s->flows[fi];
}

static uint32_t random_host(struct sc_sim *s, uint32_t not )
{
	const struct sc_topo *t = s->t;
	if (t->n_hosts < 2)
		return not ;
	uint32_t h;
	do
		h = t->first_host + (uint32_t)(gen_splitmix(&s->rng) % t->n_hosts);
	while (h == not );
	return h;
}

static int event_flows(struct sc_sim *s, struct sc_event *e, unsigned ei, uint64_t start, uint64_t end, char *err,
                       size_t errlen)
{
	const struct sc_topo *t = s->t;
	if (e->senders >= t->n_hosts) {
		snprintf(err, errlen, "%s: %u senders, but the fabric has only %u other hosts", e->spec, e->senders,
		         t->n_hosts - 1);
		return -1;
	}
	/* senders: hosts on other leaves first (their traffic crosses the fabric), then the rest */
	uint32_t leaf = t->ports[t->ports[t->nodes[e->node].port0].peer].node;
	uint32_t *order = malloc(t->n_hosts * sizeof(*order));
	if (!order)
		return -1;
	unsigned n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < t->n_hosts; i++) {
			uint32_t h = t->first_host + (uint32_t)((i * 7919u + e->node) % t->n_hosts);
			if (h == e->node)
				continue;
			int same = t->ports[t->ports[t->nodes[h].port0].peer].node == leaf;
			if (same == pass)
				order[n++] = h;
		}
	e->first_flow = s->n_flows;
	for (unsigned i = 0; i < e->senders; i++) {
		struct sc_flow *f = add_roce(s, order[i], e->node, e->bps, start, end);
		if (!f) {
			free(order);
			return -1;
		}
		f->ev_mask |= (uint32_t)(1u << ei);
	}
	e->n_flows = s->n_flows - e->first_flow;
	free(order);
	return 0;
}

int sc_traffic_build(struct sc_sim *s, char *err, size_t errlen)
{
	const struct sc_cfg *c = s->cfg;
	const struct sc_topo *t = s->t;
	for (uint32_t i = 0; i < t->n_hosts; i++) {
		uint32_t h = t->first_host + i;
		if (c->load > 0 &&
		    !add_roce(s, h, random_host(s, h), (uint64_t)(c->load * (double)t->host_bps), 0, UINT64_MAX))
			goto nomem;
		if (c->tcp_load > 0 && !sc_flow_add(s, h, random_host(s, h), SC_F_TCP,
		                                    (uint64_t)(c->tcp_load * (double)t->host_bps), 0, UINT64_MAX))
			goto nomem;
	}
	for (unsigned i = 0; i < c->n_events; i++) {
		struct sc_event *e = &s->cfg->events[i];
		if ((e->kind == SC_EV_INCAST || e->kind == SC_EV_MICROBURST) &&
		    event_flows(s, e, i, e->start_ns, e->end_ns, err, errlen))
			return -1;
		/* a host that stops draining matters when peers send to it: they do for the whole run */
		if (e->kind == SC_EV_PFC_STORM && event_flows(s, e, i, 0, UINT64_MAX, err, errlen))
			return -1;
	}
	for (uint32_t i = 0; i < s->n_flows; i++)
		if (!s->flows[i].n_hops) {
			snprintf(err, errlen, "flow %s -> %s has no path", t->nodes[s->flows[i].src].name,
			         t->nodes[s->flows[i].dst].name);
			return -1;
		}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}
