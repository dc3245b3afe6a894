/* Microburst: a queue's occupancy rises to its burst threshold (microburst.raise, by default its HighQueue
 * threshold) and falls below its clear level (microburst.clear, by default its HighQueue clear level), or its
 * queue reports stop (for max_ns / 5), within microburst_max_ns, unless it rose while a congestion tree's victim
 * (paused from downstream: PFC back-pressure filling and draining it).  The event is reported when the burst is over
 * (raised and resolved together). */
#include "detector.h"

struct burst_q { /* per queue */
	uint64_t start;
	uint32_t peak;
	uint8_t in, paused; /* paused: it rose while a congestion tree's victim */
};

/* The burst at q, from b->start to end, is over: raised and resolved together, unless q is paused from
 * downstream (PFC back-pressure fills and drains it, not a burst arriving here). */
static void burst(struct hw_analyzer *a, struct an_queue *q, const struct burst_q *b, uint64_t end)
{
	if (b->paused || an_tree_victim(a, q, end))
		return;
	uint32_t qi = (uint32_t)(q - a->queues);
	uint64_t inc = an_incident_of(a, qi, end), id = an_incident_raise_id(a, HW_AN_MICROBURST, qi, inc);
	for (int resolved = 0; resolved < 2; resolved++) {
		struct an_ev *e = an_ev_begin(a, HW_AN_MICROBURST, q, id, b->start);
		e->e.incident = inc;
		if (resolved)
			an_ev_resolved(e, end);
		an_ev_num(e, "peak", b->peak);
		an_ev_num(e, "duration_us", (double)(end - b->start) / 1e3);
		an_ev_num(e, "threshold", q->th.burst);
		an_ev_commit(e);
	}
}

static void record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, const struct hw_record *r)
{
	struct burst_q *b = qs;
	(void)d;
	if (!(r->valid & HW_V_QUEUE))
		return;
	uint32_t occ = r->queue_occupancy;
	if (!b->in) {
		if (occ >= q->th.burst) {
			b->in = 1;
			b->start = r->time_ns;
			b->peak = occ;
			b->paused = (uint8_t)an_tree_victim(a, q, r->time_ns);
		}
		return;
	}
	if (occ > b->peak)
		b->peak = occ;
	if (r->time_ns - b->start > a->c.microburst_max_ns) {
		if (occ < q->th.burst_clear)
			b->in = 0; /* too long for a microburst: sustained congestion is HighQueue's */
		return;
	}
	if (occ >= q->th.burst_clear)
		return;
	b->in = 0;
	burst(a, q, b, r->time_ns);
}

static void tick_queue(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	struct burst_q *b = qs;
	(void)d;
	if (!b->in || now <= q->last_ns || now - q->last_ns < a->c.microburst_max_ns / 5)
		return;
	/* went silent: queue reports stop once the queue is below the switch's report level, so a burst that
	 * was short ends at its last report; a long one was sustained congestion, HighQueue's */
	b->in = 0;
	if (q->last_ns - b->start <= a->c.microburst_max_ns && q->last_occ < b->peak)
		burst(a, q, b, q->last_ns);
}

static const struct an_key keys[] = {
    AN_KEY("microburst", "raise", AN_DOUBLE, microburst_raise),
    AN_KEY("microburst", "clear", AN_DOUBLE, microburst_clear),
    AN_KEY("microburst", "max_ns", AN_U64, microburst_max_ns),
};

static void defaults(struct hw_an_config *c)
{
	c->microburst_raise = 0; /* from the fabric: the queue's HighQueue threshold */
	c->microburst_clear = 0; /* ... the queue's HighQueue clear level */
	c->microburst_max_ns = 500000;
}

const struct an_detector an_detect_microburst = {
    .name = "microburst",
    .kind = HW_AN_MICROBURST,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .queue_size = sizeof(struct burst_q),
    .record = record,
    .tick_queue = tick_queue,
};
