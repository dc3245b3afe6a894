/* The analyzer core: bounded tables (queues, senders, flows), report assembly, placement on the topology,
 * record-time ticks, and the hysteresis/emit helpers the detectors share. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_internal.h"

static const struct an_detector *const detectors[] = {
    &an_detect_buildup,     &an_detect_high_queue,      &an_detect_high_latency, &an_detect_microburst,
    &an_detect_drops,       &an_detect_incast,          &an_detect_dscp,         &an_detect_report_loss,
    &an_detect_path_change, &an_detect_congestion_tree,
};
#define N_DETECTORS (sizeof(detectors) / sizeof(detectors[0]))

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 16;
	while (p < n && p < (1u << 30))
		p <<= 1;
	return p;
}

struct hw_analyzer *hw_an_create(const struct hw_an_config *c, const struct hw_topo *topo,
                                 const struct hw_topo_map *map, hw_an_emit_fn emit, void *ctx, char *err, size_t errlen)
{
	struct hw_analyzer *a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(err, errlen, "analyzer: out of memory");
		return NULL;
	}
	a->c = *c;
	a->topo = topo;
	a->map = map;
	a->emit = emit;
	a->ctx = ctx;
	a->next_id = 1;
	a->emit_hw_id = -1;
	uint32_t qcap = pow2_at_least(c->max_queues * 2);
	a->queues = calloc(c->max_queues ? c->max_queues : 1, sizeof(*a->queues));
	a->qslots = calloc(qcap, sizeof(*a->qslots));
	a->qmask = qcap - 1;
	a->smask = 4095;
	a->senders = calloc(a->smask + 1, sizeof(*a->senders));
	a->fmask = pow2_at_least(c->max_flows) - 1;
	a->flows = calloc(a->fmask + 1, sizeof(*a->flows));
	a->lat = an_latency_create(topo);
	if (!a->queues || !a->qslots || !a->senders || !a->flows || !a->lat) {
		hw_an_destroy(a);
		snprintf(err, errlen, "analyzer: out of memory for %u queues and %u flows", c->max_queues,
		         c->max_flows);
		return NULL;
	}
	return a;
}

void hw_an_destroy(struct hw_analyzer *a)
{
	if (!a)
		return;
	free(a->queues);
	free(a->qslots);
	free(a->senders);
	free(a->flows);
	an_latency_destroy(a->lat);
	hw_place_tally_free(&a->tally);
	free(a);
}

int an_enabled(const struct hw_analyzer *a, enum hw_an_kind k)
{
	return (a->c.enabled >> k) & 1u;
}

int an_hyst_step(struct an_hyst *h, const struct hw_an_hyst *cfg, double v, uint64_t now)
{
	if (!h->active) {
		if (v < cfg->raise) {
			h->above = 0;
			return 0;
		}
		if (!h->above) {
			h->above = 1;
			h->above_since = now;
			h->peak = v;
		}
		if (v > h->peak)
			h->peak = v;
		if (now - h->above_since < cfg->hold_ns)
			return 0;
		h->active = 1;
		h->below = 0;
		h->start_ns = h->above_since;
		return 1;
	}
	if (v > h->peak)
		h->peak = v;
	if (v >= cfg->clear) {
		h->below = 0;
		return 0;
	}
	if (!h->below) {
		h->below = 1;
		h->below_since = now;
	}
	if (now - h->below_since < cfg->clear_ns)
		return 0;
	h->active = 0;
	h->above = 0;
	return -1;
}

static void place_names(const struct hw_analyzer *a, uint32_t node_id, uint32_t port, struct hw_an_event *e)
{
	uint32_t p, n = hw_an_place(a, node_id, port, &p);
	if (n != HW_TOPO_NONE)
		snprintf(e->node, sizeof(e->node), "%s", a->topo->nodes[n].name);
	if (p == HW_TOPO_NONE || p >= a->topo->n_ports)
		return;
	snprintf(e->port_name, sizeof(e->port_name), "%s", a->topo->ports[p].name);
	uint32_t peer = hw_topo_peer(a->topo, p);
	if (peer == HW_TOPO_NONE)
		return;
	const struct hw_topo_port *pp = &a->topo->ports[peer];
	snprintf(e->link, sizeof(e->link), "%s:%s--%s:%s", e->node, e->port_name, a->topo->nodes[pp->node].name,
	         pp->name);
}

void an_queue_name(const struct hw_analyzer *a, const struct an_queue *q, char *buf, size_t size)
{
	if (q->placed && q->topo_port < a->topo->n_ports) {
		const struct hw_topo_port *p = &a->topo->ports[q->topo_port];
		snprintf(buf, size, "%s:%s/%u", a->topo->nodes[p->node].name, p->name, q->queue);
	} else {
		snprintf(buf, size, "%u:%u/%u", q->node_id, q->port, q->queue);
	}
}

void an_emit(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, uint32_t node_id, uint32_t port,
             int queue, uint64_t id, uint64_t start, uint64_t end, int resolved, const struct an_num *nums, unsigned n,
             const uint64_t *flows, unsigned n_flows, const char *detail)
{
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	if (q) {
		node_id = q->node_id;
		port = q->port;
		queue = q->queue;
		if (!flows) {
			flows = q->flows;
			n_flows = q->n_flows;
		}
	}
	e.id = id;
	e.kind = kind;
	snprintf(e.alertname, sizeof(e.alertname), "%s", hw_an_kind_name(kind));
	e.severity = hw_an_kind_severity(kind);
	e.resolved = resolved;
	e.start_ns = start;
	e.end_ns = end;
	e.node_id = node_id;
	e.port = port;
	e.queue = queue;
	e.hw_id = a->emit_hw_id;
	for (unsigned i = 0; a->emit_old_path && i < a->emit_old_n && i < HW_AN_MAX_PATH; i++) {
		e.old_path[i][0] = a->emit_old_path[i][0];
		e.old_path[i][1] = a->emit_old_path[i][1];
		e.n_old_path = i + 1;
	}
	place_names(a, node_id, port, &e);
	for (unsigned i = 0; i < n && i < HW_AN_MAX_NUMBERS; i++) {
		e.numbers[i].name = nums[i].name;
		e.numbers[i].value = nums[i].value;
		e.n_numbers = i + 1;
	}
	for (unsigned i = 0; flows && i < n_flows && i < HW_AN_MAX_FLOWS; i++)
		e.flows[e.n_flows++] = flows[i];
	if (detail)
		snprintf(e.detail, sizeof(e.detail), "%s", detail);
	if (resolved) {
		a->st.events_resolved++;
		if (a->st.active[kind])
			a->st.active[kind]--;
	} else {
		a->st.events_raised++;
		a->st.active[kind]++;
	}
	if (a->emit)
		a->emit(a->ctx, &e);
}

void an_raise_q(struct hw_analyzer *a, enum hw_an_kind kind, struct an_queue *q, struct an_hyst *h,
                const struct an_num *nums, unsigned n, const char *detail)
{
	h->id = a->next_id++;
	an_emit(a, kind, q, 0, 0, 0, h->id, h->start_ns, 0, 0, nums, n, NULL, 0, detail);
}

void an_clear_q(struct hw_analyzer *a, enum hw_an_kind kind, struct an_queue *q, struct an_hyst *h, uint64_t end,
                const struct an_num *nums, unsigned n)
{
	h->active = 0;
	h->above = 0;
	h->below = 0;
	an_emit(a, kind, q, 0, 0, 0, h->id, h->start_ns, end, 1, nums, n, NULL, 0, NULL);
}

/* Place a new queue once; its records are then counted without a topology lookup (count_place). */
static void place_queue(struct hw_analyzer *a, struct an_queue *q)
{
	uint32_t tn, tp;
	q->placed = hw_topo_place(a->topo, a->map, q->node_id, q->port, &tn, &tp) == HW_PLACE_OK;
	if (q->placed) {
		q->topo_port = tp;
		return;
	}
	struct hw_place_tally *t = &a->tally;
	hw_place_tally_add(t, a->topo, a->map, q->node_id, q->port); /* lists the (node, port) */
	t->unplaced--;                                               /* count_place counts each record */
	for (uint32_t i = 0; i < t->n_entries; i++)
		if (t->entries[i].node_id == q->node_id && t->entries[i].port == q->port) {
			t->entries[i].count--;
			q->tally_entry = i;
		}
}

static void count_place(struct hw_analyzer *a, const struct an_queue *q)
{
	if (q->port == UINT32_MAX) {
		a->st.no_port++;
	} else if (q->placed) {
		a->st.placed++;
		a->tally.placed++;
	} else {
		a->st.unplaced++;
		a->tally.unplaced++;
		if (q->tally_entry < a->tally.n_entries)
			a->tally.entries[q->tally_entry].count++;
	}
}

static struct an_queue *queue_of(struct hw_analyzer *a, uint32_t node, uint32_t port, uint8_t queue)
{
	uint32_t h = (node * 2654435761u) ^ (port * 40503u) ^ ((uint32_t)queue * 97u);
	h ^= h >> 15;
	for (uint32_t i = 0; i <= a->qmask; i++) {
		uint32_t s = (h + i) & a->qmask, v = a->qslots[s];
		if (!v) {
			if (a->n_queues >= a->c.max_queues)
				return NULL;
			struct an_queue *q = &a->queues[a->n_queues];
			a->qslots[s] = ++a->n_queues;
			q->node_id = node;
			q->port = port;
			q->queue = queue;
			q->used = 1;
			q->topo_port = HW_TOPO_NONE;
			q->tally_entry = UINT32_MAX;
			if (a->topo && port != UINT32_MAX)
				place_queue(a, q);
			return q;
		}
		struct an_queue *q = &a->queues[v - 1];
		if (q->node_id == node && q->port == port && q->queue == queue)
			return q;
	}
	return NULL;
}

static void update_queue(struct an_queue *q, const struct hw_record *r)
{
	uint32_t occ = (r->valid & HW_V_QUEUE) ? r->queue_occupancy : 0;
	uint32_t lat = (r->valid & HW_V_HOP_LATENCY) ? r->hop_latency : 0;
	uint64_t ms = r->time_ns / 1000000u;
	struct an_bucket *b = &q->ring[ms % AN_RING];
	if (b->ms != ms) {
		b->ms = ms;
		b->max_occ = b->max_lat = b->count = 0;
	}
	if (occ > b->max_occ)
		b->max_occ = occ;
	if (lat > b->max_lat)
		b->max_lat = lat;
	b->count++;
	if (r->valid & HW_V_QUEUE) {
		q->s_t[q->s_head] = r->time_ns;
		q->s_occ[q->s_head] = occ;
		q->s_head = (uint8_t)((q->s_head + 1) % AN_TREND);
		if (q->s_n < AN_TREND)
			q->s_n++;
	}
	q->last_ns = r->time_ns;
	q->last_occ = occ;
	if (r->valid & HW_V_FLOW) {
		for (unsigned i = 0; i < q->n_flows; i++)
			if (q->flows[i] == r->flow_hash)
				return;
		q->flows[q->flow_head] = r->flow_hash;
		q->flow_head = (uint8_t)((q->flow_head + 1) % AN_QFLOWS);
		if (q->n_flows < AN_QFLOWS)
			q->n_flows++;
	}
}

static void finish_report(struct hw_analyzer *a)
{
	if (!a->rep.active)
		return;
	a->st.reports++;
	an_latency_report(a->lat, &a->rep);
	for (size_t d = 0; d < N_DETECTORS; d++)
		if (detectors[d]->report && an_enabled(a, detectors[d]->kind))
			detectors[d]->report(a, &a->rep);
	a->rep.active = 0;
}

static void run_tick(struct hw_analyzer *a, uint64_t now)
{
	for (size_t d = 0; d < N_DETECTORS; d++) {
		if (!an_enabled(a, detectors[d]->kind))
			continue;
		if (detectors[d]->tick_queue)
			for (uint32_t i = 0; i < a->n_queues; i++)
				detectors[d]->tick_queue(a, &a->queues[i], now);
		if (detectors[d]->tick)
			detectors[d]->tick(a, now);
	}
}

void hw_an_tick(struct hw_analyzer *a, uint64_t now_ns)
{
	if (now_ns > a->now)
		a->now = now_ns;
	if (a->now >= a->next_tick) {
		run_tick(a, a->now);
		a->next_tick = a->now + AN_TICK_NS;
	}
}

static void ingest_one(struct hw_analyzer *a, const struct hw_record *r)
{
	a->st.records++;
	hw_an_tick(a, r->time_ns);
	/* report assembly: consecutive records of one report share sender, sequence number and time */
	struct an_report *rep = &a->rep;
	if (!rep->active || rep->node != r->report_node || rep->seq != r->report_seq || rep->hw_id != r->hw_id ||
	    rep->time_ns != r->time_ns) {
		finish_report(a);
		rep->active = 1;
		rep->node = r->report_node;
		rep->seq = r->report_seq;
		rep->hw_id = r->hw_id;
		rep->time_ns = r->time_ns;
		rep->format = r->format;
		rep->has_flow = (r->valid & HW_V_FLOW) != 0;
		rep->flow_hash = r->flow_hash;
		rep->n_hops = 0;
		rep->ports = 0;
		rep->path_len = r->path_len;
		rep->flags = 0;
		rep->seen = rep->has_lat = 0;
	}
	rep->flags |= r->report_flags;
	if (r->hop_index < AN_PATH) {
		uint32_t bit = 1u << r->hop_index;
		rep->qidx[r->hop_index] = 0;
		rep->seen |= bit;
		rep->hop_node[r->hop_index] = r->node_id;
		rep->hop_lat[r->hop_index] = r->hop_latency;
		rep->has_lat = (r->valid & HW_V_HOP_LATENCY) ? rep->has_lat | bit : rep->has_lat & ~bit;
		rep->occ[r->hop_index] = (r->valid & HW_V_QUEUE) ? r->queue_occupancy : UINT32_MAX;
	}
	if ((r->valid & HW_V_PORTS) && r->hop_index < AN_PATH) {
		rep->hops[r->hop_index][0] = r->node_id;
		rep->hops[r->hop_index][1] = r->egress_port;
		rep->hop_in[r->hop_index] = r->ingress_port;
		rep->ports |= 1u << r->hop_index;
		if (r->hop_index + 1u > rep->n_hops)
			rep->n_hops = (uint8_t)(r->hop_index + 1u);
	}
	if (!(r->valid & (HW_V_QUEUE | HW_V_HOP_LATENCY | HW_V_DROP | HW_V_PORTS)))
		return;
	uint32_t port = (r->valid & HW_V_PORTS) ? r->egress_port : UINT32_MAX;
	struct an_queue *q = queue_of(a, r->node_id, port, (r->valid & (HW_V_QUEUE | HW_V_DROP)) ? r->queue_id : 0);
	if (!q) {
		a->st.queues_dropped++;
		if (a->topo && port == UINT32_MAX)
			a->st.no_port++;
		else if (a->topo && hw_place_tally_add(&a->tally, a->topo, a->map, r->node_id, port) == HW_PLACE_OK)
			a->st.placed++; /* the slow way: the table is full */
		else if (a->topo)
			a->st.unplaced++;
		return;
	}
	if (a->topo)
		count_place(a, q);
	update_queue(q, r);
	if (r->hop_index < AN_PATH)
		rep->qidx[r->hop_index] = (uint32_t)(q - a->queues) + 1;
	for (size_t d = 0; d < N_DETECTORS; d++)
		if (detectors[d]->record && an_enabled(a, detectors[d]->kind))
			detectors[d]->record(a, q, r);
}

void hw_an_ingest(struct hw_analyzer *a, const struct hw_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ingest_one(a, &r[i]);
}

void hw_an_finish(struct hw_analyzer *a)
{
	finish_report(a);
	a->finishing = 1;
	run_tick(a, a->now);
	a->finishing = 0;
}

void hw_an_topology_events(struct hw_analyzer *a)
{
	if (!a->topo || !an_enabled(a, HW_AN_TOPOLOGY))
		return;
	for (uint32_t i = 0; i < a->topo->n_events; i++) {
		const struct hw_topo_event *te = &a->topo->events[i];
		struct hw_an_event e;
		memset(&e, 0, sizeof(e));
		e.id = a->next_id++;
		e.kind = HW_AN_TOPOLOGY;
		snprintf(e.alertname, sizeof(e.alertname), "%s", hw_topo_event_name(te->kind));
		e.severity = (te->kind == HW_EV_LINK_UP) ? "info" : "warning";
		e.start_ns = (uint64_t)(te->time * 1e9);
		e.port = UINT32_MAX;
		e.queue = -1;
		e.hw_id = -1;
		snprintf(e.node, sizeof(e.node), "%s", te->a_node);
		snprintf(e.port_name, sizeof(e.port_name), "%s", te->a_port);
		if (te->b_node[0])
			snprintf(e.link, sizeof(e.link), "%s:%s--%s:%s", te->a_node, te->a_port, te->b_node,
			         te->b_port);
		snprintf(e.detail, sizeof(e.detail), "%s", te->detail);
		a->st.events_raised++;
		a->st.active[HW_AN_TOPOLOGY]++;
		if (a->emit)
			a->emit(a->ctx, &e);
		if (te->kind == HW_EV_LINK_UP) { /* news, not a condition: resolved at once */
			e.resolved = 1;
			e.end_ns = e.start_ns;
			a->st.events_resolved++;
			a->st.active[HW_AN_TOPOLOGY]--;
			if (a->emit)
				a->emit(a->ctx, &e);
		}
	}
}

void hw_an_stats(const struct hw_analyzer *a, struct hw_an_stats *s)
{
	*s = a->st;
	s->queues = a->n_queues;
	s->flows = a->n_flows;
	uint64_t lost = 0;
	for (uint32_t i = 0; i <= a->smask; i++)
		lost += a->senders[i].lost_total;
	s->reports_lost = lost;
}

const struct hw_an_latmatrix *hw_an_latency(const struct hw_analyzer *a)
{
	return a->lat;
}

const struct hw_place_tally *hw_an_unplaced(const struct hw_analyzer *a)
{
	return a->topo ? &a->tally : NULL;
}

uint64_t hw_an_now(const struct hw_analyzer *a)
{
	return a->now;
}

void hw_an_link_scores(const struct hw_analyzer *a, double *scores)
{
	if (!a->topo)
		return;
	memset(scores, 0, sizeof(*scores) * a->topo->n_links);
	uint64_t now_ms = a->now / 1000000u;
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct an_queue *q = &a->queues[i];
		if (q->topo_port == HW_TOPO_NONE)
			continue;
		uint32_t link = a->topo->ports[q->topo_port].link;
		if (link == HW_TOPO_NONE || link >= a->topo->n_links)
			continue;
		uint32_t peak = 0;
		for (unsigned b = 0; b < AN_RING; b++)
			if (q->ring[b].ms + AN_RING > now_ms && q->ring[b].max_occ > peak)
				peak = q->ring[b].max_occ;
		double score = a->c.high_queue.raise > 0 ? peak / a->c.high_queue.raise : 0;
		if (score > scores[link])
			scores[link] = score;
	}
}
