/* The analyzer core: the bounded queue table and the detectors' side tables, report assembly, placement on
 * the topology, record-time ticks, the hysteresis helper and the event builder and queue. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector.h"
#include "table_mem.h"

/* The per-queue state's rows start on a pair of lines (the pairs the hardware fetches together). */
#define AN_PAIR (2 * AN_LINE)

/* The words of a bitmap of every queue index (an_det.armed). */
static size_t tick_words(const struct hw_analyzer *a)
{
	return (a->c.max_queues + 63u) / 64u + 1;
}

/* The registry's detectors and the state each declares (detector.h). */
static int create_detectors(struct hw_analyzer *a)
{
	a->n_dets = an_registry_count;
	a->dets = calloc(a->n_dets, sizeof(*a->dets));
	a->on_report = calloc(a->n_dets * 3, sizeof(*a->on_report));
	a->rec = calloc(a->n_dets, sizeof(*a->rec));
	if (!a->dets || !a->on_report || !a->rec)
		return -1;
	a->on_tick = a->on_report + a->n_dets;
	a->on_flow_ahead = a->on_tick + a->n_dets;
	for (unsigned i = 0; i < a->n_dets; i++) {
		struct an_det *d = &a->dets[i];
		const struct an_detector *def = an_registry[i];
		d->def = def;
		d->qoff = a->qstride;
		a->qstride += hw_round_up(def->queue_size, AN_LINE); /* its state from a line's start: below */
		/* on a page boundary (a slot of a line's size is one line), pages untouched until used (table_mem.h) */
		if (def->flow_size && !(d->flows = hw_table_alloc((size_t)an_flow_slots(a) * def->flow_size)))
			return -1;
		if (def->sender_size && !(d->senders = hw_table_alloc((size_t)an_sender_slots(a) * def->sender_size)))
			return -1;
		if (def->state_size && !(d->state = calloc(1, def->state_size)))
			return -1;
		if (!a->by_kind[def->kind])
			a->by_kind[def->kind] = d;
		if (!an_enabled(a, def->kind))
			continue; /* hooks run only while enabled, and a->c is fixed: the lists hold only those */
		if (def->record)
			a->rec[a->n_rec++] = (struct an_rec_hook){def->record, d, d->qoff, NULL, def->episode_off};
		if (def->report)
			a->on_report[a->n_on_report++] = d;
		if (def->flow_ahead)
			a->on_flow_ahead[a->n_on_flow_ahead++] = d;
		if (def->tick_queue || def->tick)
			a->on_tick[a->n_on_tick++] = d;
		if (def->tick_armed && !(d->armed = calloc(tick_words(a), sizeof(uint64_t))))
			return -1;
	}
	/* Rows on pairs of cache lines, each detector's state from a line's start: what a record hook's short way
	 * touches (AN_RECORD_ARMING), which its state keeps first (brief_size), is then in the same lines of every
	 * queue's row, which the look-ahead fetches, each once (prefetch_state; docs/performance.md, round 23). */
	a->qstride = hw_round_up(a->qstride, AN_PAIR);
	const size_t rows = a->c.max_queues ? a->c.max_queues : 1;
	if (a->qstride && !(a->qstate = hw_table_alloc(rows * a->qstride))) /* zeroed pages, untouched until used */
		return -1;
	for (const struct an_rec_hook *h = a->rec, *const end = h + a->n_rec; h < end; h++)
		for (size_t at = 0; at < h->d->def->brief_size; at += AN_LINE) {
			const uint32_t line = (uint32_t)(h->qoff + at);
			unsigned k = 0;
			while (k < a->n_pf && a->pf_off[k] != line)
				k++;
			if (k == a->n_pf && k < 2 * AN_MAX_DETS)
				a->pf_off[a->n_pf++] = line;
		}
	return 0;
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
	an_fabric_from_map(&a->c.fabric, map);
	a->topo = topo;
	a->map = map;
	a->emit = emit;
	a->ctx = ctx;
	a->next_id = 1;
	uint32_t qcap = hw_pow2_at_least(c->max_queues * 2, 16, 1u << 30);
	/* zeroed pages untouched until used, the queues on AN_LINE boundaries (struct an_queue) */
	a->queues = hw_table_alloc((c->max_queues ? c->max_queues : 1) * sizeof(*a->queues));
	a->qslots = hw_table_alloc((size_t)qcap * sizeof(*a->qslots)); /* read by every record, as the queues */
	a->qmask = qcap - 1;
	a->smask = 4095;
	a->fmask = hw_pow2_at_least(c->max_flows, 16, 1u << 30) - 1;
	a->lat = an_latency_create(topo);
	a->postcards = calloc(AN_POSTCARD_SLOTS, sizeof(*a->postcards));
	if (!a->queues || !a->qslots || !a->lat || !a->postcards || an_nodes_init(&a->nodes, c->max_queues) ||
	    create_detectors(a)) {
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
	for (unsigned i = 0; a->dets && i < a->n_dets; i++) {
		hw_table_free(a->dets[i].flows);
		hw_table_free(a->dets[i].senders);
		free(a->dets[i].state);
		free(a->dets[i].armed);
	}
	an_nodes_free(&a->nodes);
	an_shards_destroy(a->shards);
	free(a->shres);
	free(a->dets);
	free(a->on_report);
	free(a->rec);
	hw_table_free(a->qstate);
	hw_table_free(a->queues);
	hw_table_free(a->qslots);
	free(a->pending);
	free(a->postcards);
	an_latency_destroy(a->lat);
	an_latency_groups_free(a);
	hw_place_tally_free(&a->tally);
	free(a);
}

int hw_an_kind_congestion(enum hw_an_kind k)
{
	for (unsigned i = 0; i < an_registry_count; i++)
		if (an_registry[i]->kind == k)
			return an_registry[i]->congestion;
	return 0;
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

/* snprintf(dst, size, "%s", src) (size > 0) without the format machinery: a few hundred instructions less for
 * each name of every event. */
static void copy_name(char *dst, size_t size, const char *src)
{
	const size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = 0;
}

static void place_names(const struct hw_analyzer *a, uint32_t node_id, uint32_t port, struct hw_an_event *e)
{
	uint32_t p, n = hw_an_place(a, node_id, port, &p);
	if (n != HW_TOPO_NONE)
		copy_name(e->node, sizeof(e->node), a->topo->nodes[n].name);
	if (p == HW_TOPO_NONE || p >= a->topo->n_ports)
		return;
	copy_name(e->port_name, sizeof(e->port_name), a->topo->ports[p].name);
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

/* The next free slot of the pending queue, grown by doubling; the spare slot when it cannot grow. */
static struct an_ev *pending_slot(struct hw_analyzer *a)
{
	if (a->n_pending == a->cap_pending) {
		uint32_t cap = a->cap_pending ? a->cap_pending * 2 : 64;
		struct an_ev *p = realloc(a->pending, cap * sizeof(*p));
		if (!p)
			return &a->spare;
		a->pending = p;
		a->cap_pending = cap;
	}
	return &a->pending[a->n_pending];
}

struct an_ev *an_ev_begin(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, uint64_t id,
                          uint64_t start_ns)
{
	struct an_ev *ev = pending_slot(a);
	struct hw_an_event *e = &ev->e;
	memset(ev, 0, sizeof(*ev));
	ev->a = a;
	e->id = id;
	e->kind = kind;
	copy_name(e->alertname, sizeof(e->alertname), hw_an_kind_name(kind));
	e->severity = hw_an_kind_severity(kind);
	e->start_ns = start_ns;
	e->port = UINT32_MAX;
	e->queue = -1;
	e->hw_id = -1;
	if (q) {
		e->node_id = q->node_id;
		e->port = q->port;
		e->queue = q->queue;
		for (unsigned i = 0; i < q->n_flows && i < HW_AN_MAX_FLOWS; i++)
			e->flows[e->n_flows++] = q->flows[i];
	}
	return ev;
}

void an_ev_place(struct an_ev *ev, uint32_t node_id, uint32_t port, int queue)
{
	ev->e.node_id = node_id;
	ev->e.port = port;
	ev->e.queue = queue;
}

void an_ev_resolved(struct an_ev *ev, uint64_t end_ns)
{
	ev->e.resolved = 1;
	ev->e.end_ns = end_ns;
}

void an_ev_num(struct an_ev *ev, const char *name, double value)
{
	struct hw_an_event *e = &ev->e;
	if (e->n_numbers >= HW_AN_MAX_NUMBERS)
		return;
	e->numbers[e->n_numbers].name = name;
	e->numbers[e->n_numbers++].value = value;
}

void an_ev_flow(struct an_ev *ev, uint64_t flow_hash)
{
	struct hw_an_event *e = &ev->e;
	if (!ev->own_flows) {
		ev->own_flows = 1;
		e->n_flows = 0;
	}
	if (e->n_flows < HW_AN_MAX_FLOWS)
		e->flows[e->n_flows++] = flow_hash;
}

void an_ev_hw_id(struct an_ev *ev, int hw_id)
{
	ev->e.hw_id = hw_id;
}

void an_ev_old_path(struct an_ev *ev, const uint32_t (*hops)[2], unsigned n)
{
	struct hw_an_event *e = &ev->e;
	for (unsigned i = 0; i < n && i < HW_AN_MAX_PATH; i++) {
		e->old_path[i][0] = hops[i][0];
		e->old_path[i][1] = hops[i][1];
		e->n_old_path = i + 1;
	}
}

void an_ev_detail(struct an_ev *ev, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ev->e.detail, sizeof(ev->e.detail), fmt, ap);
	va_end(ap);
}

/* Count the event, name its place on the topology and queue it (deliver() sends it). */
static void commit_event(struct hw_analyzer *a, struct an_ev *ev)
{
	struct hw_an_event *e = &ev->e;
	if (e->resolved) {
		a->st.events_resolved++;
		if (a->st.active[e->kind])
			a->st.active[e->kind]--;
	} else if (!ev->update) {
		a->st.events_raised++;
		a->st.active[e->kind]++;
	}
	if (ev == &a->spare)
		a->events_dropped++;
	else
		a->n_pending++;
}

void an_ev_commit(struct an_ev *ev)
{
	struct hw_analyzer *a = ev->a;
	if (ev->e.kind != HW_AN_TOPOLOGY)
		place_names(a, ev->e.node_id, ev->e.port, &ev->e);
	commit_event(a, ev);
}

/* Hand the queued events to the emit callback, in the order they were committed. */
static void deliver(struct hw_analyzer *a)
{
	an_latency_flush_all(a); /* the last report's latency histogram increment (an_latency_report) */
	if (a->delivering)
		return;
	a->delivering = 1;
	for (uint32_t i = 0; i < a->n_pending; i++)
		if (a->emit)
			a->emit(a->ctx, &a->pending[i].e);
	a->n_pending = 0;
	a->delivering = 0;
}

struct an_ev *an_ev_raise_q(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, struct an_hyst *h)
{
	uint32_t qi = (uint32_t)(q - a->queues);
	struct an_follows f = {0};
	uint64_t inc = hw_an_kind_congestion(kind)
	                   ? an_incident_for(a, kind, qi, a->now > h->start_ns ? a->now : h->start_ns, &f)
	                   : 0;
	h->id = an_incident_raise_id(a, kind, qi, inc);
	an_incident_held(a, kind, qi, inc, a->now > h->start_ns ? a->now : h->start_ns);
	struct an_ev *ev = an_ev_begin(a, kind, q, h->id, h->start_ns);
	ev->e.incident = inc;
	if (f.queue) {
		ev->e.follows_id = f.id;
		ev->e.follows_kind = f.kind;
		an_queue_name(a, &a->queues[f.queue - 1], ev->e.follows, sizeof(ev->e.follows));
	}
	return ev;
}

struct an_ev *an_ev_clear_q(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q, struct an_hyst *h,
                            uint64_t end)
{
	h->active = 0;
	h->above = 0;
	h->below = 0;
	struct an_ev *ev = an_ev_begin(a, kind, q, h->id, h->start_ns);
	an_ev_resolved(ev, end);
	ev->e.incident = an_incident_resolved(a, kind, (uint32_t)(q - a->queues), end);
	an_incident_held(a, kind, (uint32_t)(q - a->queues), ev->e.incident, end);
	return ev;
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

static inline __attribute__((always_inline)) struct an_queue *queue_of(struct hw_analyzer *a, uint32_t node,
                                                                       uint32_t port, uint8_t queue)
{
	uint32_t s;
	const uint32_t v = an_queue_find(a, an_queue_hash(node, port, queue), node, port, queue, UINT32_MAX, &s);
	if (v)
		return &a->queues[v - 1];
	if (s == UINT32_MAX || a->n_queues >= a->c.max_queues)
		return NULL;
	struct an_queue *q = &a->queues[a->n_queues];
	/* atomic: the shards probe the table meanwhile (an_shard.c; a plain store on x86) */
	__atomic_store_n(&a->qslots[s], ++a->n_queues, __ATOMIC_RELEASE);
	q->node_id = node;
	q->port = port;
	q->queue = queue;
	q->used = 1;
	q->topo_port = HW_TOPO_NONE;
	q->tally_entry = UINT32_MAX;
	const struct hw_topo_map_units u = hw_topo_map_units_or(
	    a->topo, a->map, node, (struct hw_topo_map_units){a->c.units_time_ns, a->c.units_occ_bytes});
	q->t_scale = u.time_ns;
	q->occ_scale = u.occ_bytes;
	if (a->topo && port != UINT32_MAX)
		place_queue(a, q);
	an_nodes_add(a, a->n_queues - 1);
	an_thresholds(a, q);
	return q;
}

/* Look-ahead for hw_an_ingest (the queue table and the detectors' state are megabytes on a real fabric, and
 * each record's first touch of them missed the cache): the home slot of a record's queue key, fetched
 * AN_AHEAD_SLOT records ahead; AN_AHEAD_QUEUE records ahead, the lines of the queue in that slot that every
 * record touches (its first three lines: key, thresholds, recent flows; the ring bucket of its millisecond) and
 * the lines of each record hook's state that its short way touches (brief_size).
 * Hints only: a wrong guess (the queue is further along its probe sequence, or new) costs nothing else.
 * always_inline: GCC finds a function whose body is __builtin_prefetch free of side effects and drops its
 * calls before it would inline them (the look-ahead was not in the binary until round 8). */
#define AN_AHEAD_SLOT 16 /* a power of 2: the home slots are kept in a ring of this size */
#define AN_AHEAD_QUEUE 8
static inline __attribute__((always_inline)) uint32_t home_slot(const struct hw_analyzer *a, const struct hw_record *r)
{
	return an_queue_hash(r->node_id, an_record_port(r), an_record_queue(r)) & a->qmask;
}
static inline __attribute__((always_inline)) void prefetch_state(const struct hw_analyzer *a, const struct hw_record *r,
                                                                 uint32_t qi)
{
	const struct an_queue *q = &a->queues[qi];
	__builtin_prefetch(q);
	__builtin_prefetch((const unsigned char *)q + AN_LINE);
	__builtin_prefetch((const unsigned char *)q + 2 * AN_LINE);
	__builtin_prefetch(&q->ring[r->time_ns / 1000000u % AN_RING]);
	const unsigned char *qs = a->qstate + (size_t)qi * a->qstride;
	for (const uint32_t *o = a->pf_off, *const end = o + a->n_pf; o < end; o++)
		__builtin_prefetch(qs + *o);
}
static inline __attribute__((always_inline)) void prefetch_queue(const struct hw_analyzer *a, const struct hw_record *r,
                                                                 uint32_t slot)
{
	const uint32_t v = a->qslots[slot];
	if (v)
		prefetch_state(a, r, v - 1);
}

static inline __attribute__((always_inline)) void update_queue(struct an_queue *q, const struct hw_record *r)
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

/* ---- Postcards ----
 * A TR v0.5 postcard is one switch's report of one packet (hop 0 of a one-hop report, flag postcard).  The
 * tracked-flow postcards (F: every switch on the path reports the packet) of one packet are assembled into
 * its path; a postcard without F (a switch's own queue or drop event) is not a hop of a packet's path: a postcard of a
 * flow that has a packet in assembly is that packet's next hop when it comes within postcards.window_ns of the packet's
 * newest postcard and from a switch not yet on it; otherwise the packet is complete and the postcard starts the next
 * one.  A packet is also complete window_ns after its newest postcard (checked every tick), when its slot is wanted by
 * another flow (1024 slots, by flow hash), or at the end of input.  Hops are in path order by their ingress timestamps
 * when every hop has one (32-bit differences: synchronised switch clocks), else in arrival order; a record hook sees
 * its postcard's arrival index. This assumes that a flow's packets are reported further apart than the window (a switch
 * reports a flow once per interval or on a change, as fabric-tna does); packets of one flow reported closer together
 * would interleave.  The records go to the detectors with their hop index in the packet's path (the
 * first-hop checks look at hop 0 only); the complete path (two hops or more) goes to the report hooks
 * (but those that count reports, per_report) and to the latency matrix, like a report with an INT stack. */
static void deliver_report(struct hw_analyzer *a, const struct an_report *rep)
{
	an_latency_report(a->lat, rep);
	an_latency_group_report(a, rep);
	for (unsigned i = 0; i < a->n_on_report; i++) {
		struct an_det *d = a->on_report[i];
		if (!(rep->postcards && d->def->per_report))
			d->def->report(a, d, rep);
	}
}

/* Put a packet's postcards in path order: by their ingress timestamps (32-bit wrapping differences), when
 * every hop has one; else they stay in arrival order. */
static void postcards_order(struct an_report *p)
{
	const unsigned n = p->n_hops;
	const uint32_t all = (1u << n) - 1;
	if ((p->has_ts & all) != all)
		return;
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && (int32_t)((uint32_t)p->ts[j] - (uint32_t)p->ts[j - 1]) < 0; j--) {
#define AN_SWAP(arr)                                                                                                   \
	do {                                                                                                           \
		unsigned char x_[sizeof(arr[0])];                                                                      \
		memcpy(x_, &arr[j], sizeof(x_));                                                                       \
		memcpy(&arr[j], &arr[j - 1], sizeof(x_));                                                              \
		memcpy(&arr[j - 1], x_, sizeof(x_));                                                                   \
	} while (0)
			AN_SWAP(p->ts);
			AN_SWAP(p->hops);
			AN_SWAP(p->hop_in);
			AN_SWAP(p->hop_node);
			AN_SWAP(p->hop_lat);
			AN_SWAP(p->occ);
			AN_SWAP(p->qidx);
#undef AN_SWAP
			const uint32_t lo = 1u << (j - 1), hi = 1u << j;
			uint32_t *bits[] = {&p->ports, &p->has_lat};
			for (unsigned b = 0; b < 2; b++)
				if (!(*bits[b] & lo) != !(*bits[b] & hi))
					*bits[b] ^= lo | hi;
		}
}

static void postcards_done(struct hw_analyzer *a, struct an_report *p)
{
	if (p->active && p->n_hops >= 2) {
		postcards_order(p);
		deliver_report(a, p);
	}
	if (p->active)
		a->n_postcards--;
	p->active = 0;
}

/* The hop index of postcard record r in its packet's path (its slot: *slot). */
static uint8_t postcard_hop(struct hw_analyzer *a, const struct hw_record *r, struct an_report **slot)
{
	struct an_report *p = &a->postcards[(r->flow_hash ^ (r->flow_hash >> 32)) & (AN_POSTCARD_SLOTS - 1)];
	*slot = p;
	int joins = p->active && p->flow_hash == r->flow_hash && r->time_ns >= p->last_ns &&
	            r->time_ns - p->last_ns <= a->c.postcard_window_ns && p->n_hops < AN_PATH;
	for (unsigned i = 0; joins && i < p->n_hops; i++)
		if (p->hop_node[i] == r->node_id)
			joins = 0; /* the switch is on it already: the next packet */
	if (!joins) {
		postcards_done(a, p);
		memset(p, 0, sizeof(*p));
		p->active = 1;
		a->n_postcards++;
		p->postcards = 1;
		p->flow_hash = r->flow_hash;
		p->has_flow = 1;
		p->time_ns = r->time_ns;
		p->format = r->format;
		p->hw_id = r->hw_id;
	}
	const uint8_t h = p->n_hops;
	const uint32_t bit = 1u << h;
	p->last_ns = r->time_ns;
	p->node = r->node_id;
	p->flags |= r->report_flags;
	p->n_hops = p->path_len = (uint8_t)(h + 1);
	p->seen |= bit;
	p->hop_node[h] = r->node_id;
	p->hop_lat[h] = r->hop_latency;
	if (r->valid & HW_V_HOP_LATENCY)
		p->has_lat |= bit;
	p->occ[h] = (r->valid & HW_V_QUEUE) ? r->queue_occupancy : UINT32_MAX;
	p->hops[h][0] = r->node_id;
	p->hops[h][1] = r->egress_port;
	p->hop_in[h] = r->ingress_port;
	if (r->valid & HW_V_PORTS)
		p->ports |= bit;
	p->ts[h] = r->ingress_ts;
	if (r->valid & HW_V_INGRESS_TS)
		p->has_ts |= bit;
	return h;
}

/* Packets whose newest postcard is older than the window (all of them at the end of input) are complete. */
static void postcards_flush(struct hw_analyzer *a, uint64_t now, int all)
{
	if (!a->n_postcards)
		return; /* reports with paths (TR v2.0): no tick walks the slots */
	for (unsigned i = 0; i < AN_POSTCARD_SLOTS; i++) {
		struct an_report *p = &a->postcards[i];
		if (p->active && (all || now - p->last_ns > a->c.postcard_window_ns))
			postcards_done(a, p);
	}
}

static void finish_report(struct hw_analyzer *a)
{
	if (!a->rep.active)
		return;
	a->st.reports++;
	deliver_report(a, &a->rep);
	a->rep.active = 0;
}

static void run_tick(struct hw_analyzer *a, uint64_t now)
{
	postcards_flush(a, now, a->finishing);
	for (unsigned k = 0; k < a->n_on_tick; k++) {
		struct an_det *d = a->on_tick[k];
		if (d->def->tick_armed) {
			d->def->tick_armed(a, d, now);
		} else if (d->def->tick_queue) { /* locals: the compiler reloads a's fields after each call otherwise */
			void (*const tick_queue)(struct hw_analyzer *, struct an_det *, struct an_queue *, void *,
			                         uint64_t) = d->def->tick_queue;
			const size_t stride = a->qstride;
			struct an_queue *q = a->queues, *const end = q + a->n_queues; /* ticks create no queue */
			for (unsigned char *qs = a->qstate + d->qoff; q < end; q++, qs += stride)
				tick_queue(a, d, q, qs, now);
		}
		if (d->def->tick)
			d->def->tick(a, d, now);
	}
}

static void advance(struct hw_analyzer *a, uint64_t now_ns)
{
	if (now_ns > a->now)
		a->now = now_ns;
	if (a->now >= a->next_tick && a->next_tick != UINT64_MAX) {
		run_tick(a, a->now);
		a->next_tick = a->now > UINT64_MAX - AN_TICK_NS ? UINT64_MAX : a->now + AN_TICK_NS; /* saturates */
	}
}

/* Record time sanity: time_ns is untrusted input and the clock a running maximum of it, so one record far in
 * the future would close every window and resolve every episode.  The first report sets the clock; a record
 * more than AN_CLOCK_AHEAD_NS ahead of it is set aside (counted, never analysed) unless the report before it
 * was set aside too, came from another report and lies within AN_CLOCK_AHEAD_NS of it: two reports agreeing
 * are a real gap in the input (a replay's pause), and the clock jumps.  Until a second report confirms the
 * first one's time, a report more than AN_CLOCK_AHEAD_NS behind it moves the clock back to it instead: the
 * first record may be the bad one.  1 = set the record aside. */
static int clock_set_aside(struct hw_analyzer *a, const struct hw_record *r)
{
	const uint64_t t = r->time_ns, node = r->report_node, seq = (uint64_t)r->hw_id << 32 | r->report_seq;
	const int other = node != a->clk.set_node || seq != a->clk.set_seq;
	if (!a->clk.set || (!a->clk.confirmed && other && t < a->now && a->now - t > AN_CLOCK_AHEAD_NS)) {
		if (a->clk.set) { /* re-anchored: the first report's time was the outlier */
			a->st.clock_jumps++;
			a->now = t;
			a->next_tick = 0;
		}
		a->clk.set = 1;
		a->clk.set_node = node;
		a->clk.set_seq = seq;
		return 0;
	}
	if (t <= a->now || t - a->now <= AN_CLOCK_AHEAD_NS) {
		a->clk.confirmed |= other;
		a->clk.pending = 0;
		return 0;
	}
	const int same_pend = node == a->clk.pend_node && seq == a->clk.pend_seq;
	const uint64_t d = t > a->clk.pend_ns ? t - a->clk.pend_ns : a->clk.pend_ns - t;
	if (a->clk.pending && !same_pend && d <= AN_CLOCK_AHEAD_NS) {
		a->st.clock_jumps++;
		a->clk.pending = 0;
		a->clk.confirmed = 1;
		return 0;
	}
	if (!a->clk.pending || !same_pend) {
		a->clk.pending = 1;
		a->clk.pend_ns = t;
		a->clk.pend_node = node;
		a->clk.pend_seq = seq;
	}
	a->st.records_set_aside++;
	return 1;
}

void hw_an_tick(struct hw_analyzer *a, uint64_t now_ns)
{
	a->clk.cont = 0; /* the clock may move on without a record */
	advance(a, now_ns);
	deliver(a);
}

/* A map-only topology (hw_an_grow_topology): the ports r names, added as the map names them, before anything
 * places them.  A small memory of the (node, port)s done keeps this off the per-record path: open addressing,
 * AN_GROWN_PROBES slots from the home one (a direct-mapped table made every record of two (node, port)s
 * sharing a slot name them again: 5,329 times in the 28,895 records of an incast scenario); when all are taken by
 * others, the home slot is taken over (naming a port again adds nothing: hw_topo_map_grow finds it). */
#define AN_GROWN_PROBES 8
static void grow_ports(struct hw_analyzer *a, const struct hw_record *r)
{
	const uint32_t ports[2] = {r->ingress_port, r->egress_port};
	for (int i = 0; i < 2; i++) {
		if (ports[i] == HW_PORT_NONE)
			continue; /* no egress chosen: no port to name */
		uint32_t h = (r->node_id * 2654435761u) ^ (ports[i] * 40503u);
		const uint32_t home = (h ^ h >> 15) % AN_GROWN;
		uint32_t *slot = NULL;
		int done = 0;
		for (uint32_t k = 0; k < AN_GROWN_PROBES; k++) {
			uint32_t *s = a->grown[(home + k) % AN_GROWN];
			if (!s[2]) { /* empty: slots are never emptied, so the pair is in none further on */
				slot = s;
				break;
			}
			if (s[0] == r->node_id && s[1] == ports[i]) {
				done = 1;
				break;
			}
		}
		if (done)
			continue;
		if (!slot)
			slot = a->grown[home];
		hw_topo_map_grow(a->grow, a->map, r->node_id, ports[i]);
		slot[0] = r->node_id;
		slot[1] = ports[i];
		slot[2] = 1;
	}
}

/* One record; res: what the shards did with it (hw_an_shards), NULL without shards (a constant there: inlined
 * into both paths, the one-thread path is the same code as before). */
static inline __attribute__((always_inline)) void ingest_one(struct hw_analyzer *a, const struct hw_record *r,
                                                             const struct an_shard_res *res)
{
	if (a->grow && (r->valid & HW_V_PORTS))
		grow_ports(a, r);
	a->st.records++;
	/* report assembly: consecutive records of one report share sender, sequence number and time.  The
	 * previous report is judged before record time moves on to this record's: a tick at the new time
	 * (a window closing) sees it. */
	struct an_report *rep = &a->rep;
	const int starts = !rep->active || rep->node != r->report_node || rep->seq != r->report_seq ||
	                   rep->hw_id != r->hw_id || rep->time_ns != r->time_ns;
	/* A record right after an analysed one of the same report (same identity and time, the clock not moved
	 * since without a record) takes clock_set_aside's second branch: the clock is at or past its time, and the
	 * first branch was false for the first record or made it the anchor; that branch's confirmed |= other
	 * is done already (or other is 0: it is the anchor), so only pending = 0 is left.  Most records. */
	if (!starts && a->clk.cont) {
		a->clk.pending = 0;
	} else if (clock_set_aside(a, r)) {
		a->clk.cont = 0;
		return;
	}
	a->clk.cont = 1;
	if (starts) {
		finish_report(a);
		if (a->per_step)
			deliver(a);
	}
	advance(a, r->time_ns);
	if (a->per_step)
		deliver(a);
	if (starts) {
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
	/* a postcard: a hop of its packet's path (the record hooks see its hop index there) */
	struct an_report *pc = NULL;
	struct hw_record pcr;
	const struct hw_record *rr = r;
	if ((r->report_flags & (HW_RF_POSTCARD | HW_RF_TRACKED_FLOW)) == (HW_RF_POSTCARD | HW_RF_TRACKED_FLOW) &&
	    (r->valid & HW_V_FLOW) && r->path_len == 1 && r->hop_index == 0) {
		pcr = *r;
		pcr.hop_index = postcard_hop(a, r, &pc);
		pcr.path_len = (uint8_t)(pcr.hop_index + 1);
		rr = &pcr;
	}
	if (!(r->valid & (HW_V_QUEUE | HW_V_HOP_LATENCY | HW_V_DROP | HW_V_PORTS)))
		return;
	uint32_t port = an_record_port(r);
	struct an_queue *q =
	    res && res->qi ? &a->queues[res->qi - 1] : queue_of(a, r->node_id, port, an_record_queue(r));
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
	if (q->t_scale != 1 || q->occ_scale != 1) {
		if (rr != &pcr) {
			pcr = *r;
			rr = &pcr;
		}
		an_to_ns_bytes(&pcr, q);
		const uint32_t occ = (r->valid & HW_V_QUEUE) ? pcr.queue_occupancy : UINT32_MAX;
		if (r->hop_index < AN_PATH) {
			rep->hop_lat[r->hop_index] = pcr.hop_latency;
			rep->occ[r->hop_index] = occ;
		}
		if (pc) {
			pc->hop_lat[pcr.hop_index] = pcr.hop_latency;
			pc->occ[pcr.hop_index] = occ;
		}
	}
	update_queue(q, rr);
	if (r->hop_index < AN_PATH)
		rep->qidx[r->hop_index] = (uint32_t)(q - a->queues) + 1;
	if (pc)
		pc->qidx[rr->hop_index] = (uint32_t)(q - a->queues) + 1;
	unsigned char *qs = a->qstate + (size_t)(q - a->queues) * a->qstride; /* q's state, every detector's */
	if (!res || !res->done) {
		for (const struct an_rec_hook *h = a->rec, *const end = h + a->n_rec; h < end; h++)
			h->record(a, h->d, q, qs + h->qoff, rr);
		return;
	}
	/* the shards ran the first res->done sharded hooks on it (they changed no episode); the rest run here */
	unsigned k = 0;
	for (const struct an_rec_hook *h = a->rec, *const end = h + a->n_rec; h < end; h++) {
		if (h->local && k < res->done) {
			k++;
			continue;
		}
		h->record(a, h->d, q, qs + h->qoff, rr);
	}
}

/* hw_an_ingest with shards: batches of AN_SHARD_BATCH, each through the shards' steps (an_shard.c) and, a
 * sub-batch behind them, through the core in record order.  While the clock is not yet confirmed (the first reports)
 * the one-thread path: a record's clock may still move back there, which the shards do not follow. */
static void ingest_sharded(struct hw_analyzer *a, const struct hw_record *r, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (!a->clk.set || !a->clk.confirmed) {
			ingest_one(a, &r[i++], NULL);
			if (a->per_step)
				deliver(a);
			continue;
		}
		const size_t k = n - i < AN_SHARD_BATCH ? n - i : AN_SHARD_BATCH;
		an_shards_begin(a, r + i, k, a->shres);
		for (size_t j = 0; j < k; j++) {
			if (j % AN_SHARD_SUB == 0) /* the shards are done with this sub-batch (and are on the next) */
				an_shards_wait(a, (unsigned)(j / AN_SHARD_SUB + 1));
			const size_t ahead = j + AN_AHEAD_QUEUE; /* the look-ahead, queue known, in this sub-batch */
			if (ahead < k && ahead / AN_SHARD_SUB == j / AN_SHARD_SUB && a->shres[ahead].qi)
				prefetch_state(a, &r[i + ahead], a->shres[ahead].qi - 1);
			a->st.records_sharded += a->shres[j].done != 0;
			a->st.shard_handbacks += a->shres[j].st != 0;
			ingest_one(a, &r[i + j], &a->shres[j]);
			if (a->per_step)
				deliver(a);
		}
		i += k;
	}
}

void hw_an_ingest(struct hw_analyzer *a, const struct hw_record *r, size_t n)
{
	if (a->shards) {
		ingest_sharded(a, r, n);
		deliver(a);
		return;
	}
	uint32_t home[AN_AHEAD_SLOT]; /* the home slots of records i + 1 .. i + AN_AHEAD_SLOT, by index % size */
	for (size_t i = 0; i < n; i++) {
		if (i + AN_AHEAD_SLOT < n) {
			const struct hw_record *ra = &r[i + AN_AHEAD_SLOT];
			const uint32_t s = home_slot(a, ra);
			home[(i + AN_AHEAD_SLOT) % AN_AHEAD_SLOT] = s;
			__builtin_prefetch(&a->qslots[s]);
			if (ra->hop_index == 0 && (ra->valid & HW_V_FLOW))
				for (unsigned k = 0; k < a->n_on_flow_ahead; k++)
					a->on_flow_ahead[k]->def->flow_ahead(a, a->on_flow_ahead[k], ra->flow_hash);
		}
		if (i + AN_AHEAD_QUEUE < n) {
			const size_t j = i + AN_AHEAD_QUEUE;
			prefetch_queue(a, &r[j], j >= AN_AHEAD_SLOT ? home[j % AN_AHEAD_SLOT] : home_slot(a, &r[j]));
		}
		ingest_one(a, &r[i], NULL);
		if (a->per_step)
			deliver(a);
	}
	deliver(a);
}

void hw_an_grow_topology(struct hw_analyzer *a, struct hw_topo *t)
{
	if (t == a->topo && a->map)
		a->grow = t;
}

void hw_an_deliver_per_step(struct hw_analyzer *a, int on)
{
	a->per_step = on != 0;
}

void hw_an_finish(struct hw_analyzer *a)
{
	finish_report(a);
	a->finishing = 1;
	run_tick(a, a->now);
	a->finishing = 0;
	deliver(a);
}

/* Build (not commit) a topology event between two named ends, raised at time_ns with id. */
static struct an_ev *topo_event(struct hw_analyzer *a, enum hw_topo_event_kind kind, uint64_t id, uint64_t time_ns,
                                const char *a_node, const char *a_port, const char *b_node, const char *b_port,
                                const char *detail)
{
	struct an_ev *ev = an_ev_begin(a, HW_AN_TOPOLOGY, NULL, id, time_ns);
	struct hw_an_event *e = &ev->e;
	snprintf(e->alertname, sizeof(e->alertname), "%s", hw_topo_event_name(kind));
	e->severity = (kind == HW_EV_LINK_UP) ? "info" : "warning";
	snprintf(e->node, sizeof(e->node), "%s", a_node);
	snprintf(e->port_name, sizeof(e->port_name), "%s", a_port);
	if (b_node[0])
		snprintf(e->link, sizeof(e->link), "%s:%s--%s:%s", a_node, a_port, b_node, b_port);
	snprintf(e->detail, sizeof(e->detail), "%s", detail);
	return ev;
}

/* LinkUp is news, not a condition: raised and resolved at once. */
static void topo_news(struct hw_analyzer *a, struct an_ev *ev)
{
	struct hw_an_event raised = ev->e;
	an_ev_commit(ev);
	struct an_ev *r = an_ev_begin(a, HW_AN_TOPOLOGY, NULL, 0, 0);
	r->e = raised;
	an_ev_resolved(r, raised.start_ns);
	an_ev_commit(r);
}

void hw_an_topology_events(struct hw_analyzer *a)
{
	if (!a->topo || !an_enabled(a, HW_AN_TOPOLOGY))
		return;
	for (uint32_t i = 0; i < a->topo->n_events; i++) {
		const struct hw_topo_event *te = &a->topo->events[i];
		struct an_ev *ev = topo_event(a, te->kind, a->next_id++, (uint64_t)(te->time * 1e9), te->a_node,
		                              te->a_port, te->b_node, te->b_port, te->detail);
		if (te->kind == HW_EV_LINK_UP)
			topo_news(a, ev);
		else
			an_ev_commit(ev);
	}
	deliver(a);
}

void hw_an_topology_changes(struct hw_analyzer *a, struct hw_topo_live *live, double now, const char *why)
{
	if (!an_enabled(a, HW_AN_TOPOLOGY))
		return;
	uint64_t now_ns = (uint64_t)(now * 1e9);
	for (uint32_t i = 0; i < live->n_changes; i++) {
		const struct hw_topo_live_change *c = &live->changes[i];
		struct hw_topo_live_link *l = &live->links[c->link];
		char detail[256];
		if (c->kind == HW_EV_LINK_DOWN) { /* a condition: firing until the link is back */
			snprintf(detail, sizeof(detail), "no longer in LLDP (%.200s)", why);
			l->down_id = a->next_id++;
			l->down_ns = now_ns;
			an_ev_commit(topo_event(a, HW_EV_LINK_DOWN, l->down_id, l->down_ns, l->a_node, l->a_port,
			                        l->b_node, l->b_port, detail));
			continue;
		}
		if (c->kind == HW_EV_NEIGHBOR_CHANGED) { /* news, after the LinkDown and LinkUp it sums up */
			const struct hw_topo_live_link *w = &live->links[c->was];
			const char *node = c->end ? l->b_node : l->a_node, *port = c->end ? l->b_port : l->a_port;
			int same_a = !strcmp(w->a_node, node) && !strcmp(w->a_port, port);
			snprintf(detail, sizeof(detail), "neighbour was %.60s:%.60s (%.100s)",
			         same_a ? w->b_node : w->a_node, same_a ? w->b_port : w->a_port, why);
			topo_news(a,
			          topo_event(a, HW_EV_NEIGHBOR_CHANGED, a->next_id++, now_ns, node, port,
			                     c->end ? l->a_node : l->b_node, c->end ? l->a_port : l->b_port, detail));
			continue;
		}
		snprintf(detail, sizeof(detail), "%s in LLDP (%.200s)", c->is_new ? "new" : "back", why);
		if (l->down_id) { /* the LinkDown it ends resolves */
			struct an_ev *r = topo_event(a, HW_EV_LINK_DOWN, l->down_id, l->down_ns, l->a_node, l->a_port,
			                             l->b_node, l->b_port, detail);
			an_ev_resolved(r, now_ns);
			an_ev_commit(r);
			l->down_id = l->down_ns = 0;
		}
		topo_news(a, topo_event(a, HW_EV_LINK_UP, a->next_id++, now_ns, l->a_node, l->a_port, l->b_node,
		                        l->b_port, detail));
	}
	deliver(a);
}

void hw_an_stats(const struct hw_analyzer *a, struct hw_an_stats *s)
{
	*s = a->st;
	s->queues = a->n_queues;
	s->flows = a->n_flows;
	for (unsigned i = 0; i < a->n_dets; i++)
		if (a->dets[i].def->stats)
			a->dets[i].def->stats(a, &a->dets[i], s);
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
		double score = q->th.high > 0 ? peak / q->th.high : 0;
		if (score > scores[link])
			scores[link] = score;
	}
}
