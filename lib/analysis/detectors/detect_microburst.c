/* Microburst: a queue's occupancy rises to its burst level (microburst.raise, by default its HighQueue clear level,
 * PFC Xon) and falls below its burst clear (microburst.clear, by default half its HighQueue level), or its queue
 * reports stop (for max_ns / 5), within microburst_max_ns; or, on a lossless queue, it rises from there to its
 * HighQueue level within max_ns / 5 and PFC then holds it high for longer (the burst's backlog paused upstream
 * drains back into it) without an Incast at the queue (a fan-in that lasts) or the queue freezing (a host that
 * stopped draining).  Not when it rose while a congestion tree's victim (paused from downstream: PFC back-pressure
 * filling and draining it).  A fall below the burst clear that the queue climbs back from to its burst level within
 * max_ns / 20 does not end it (the swing rule: a PFC victim swinging between Xon and Xoff is one episode), and what
 * the burst is (a victim's, its incident, whether it joins a tree's aftermath) is judged at its first fall, not
 * with the state of when it ends.  The event is reported when the burst is over (raised and resolved together); at
 * a queue of a congestion tree's aftermath, as an update of the tree's root alert (an_incident_burst). */
#include "detector.h"

#define FLAT_SHARE 0.01 /* a frozen queue's occupancy moves less than this share of its HighQueue level */

struct burst_q { /* per queue */
	uint64_t start;
	uint64_t high_at;   /* its first sample at or above the HighQueue level (0: none yet) */
	uint64_t incast_id; /* the queue's last Incast id when it began */
	uint64_t flat_from; /* the current flat stretch's first sample (0: none) */
	uint64_t fall_at;   /* its fall below the burst clear, until it climbs back within swing_ns (0: none) */
	uint64_t incident;  /* judged at its first fall (judged): its incident ... */
	uint32_t peak, flat_occ;
	uint8_t in, paused;            /* paused: it rose while a congestion tree's victim */
	uint8_t frozen;                /* it stayed flat for high_queue.hold_ns: nothing left it */
	uint8_t judged, victim, joins; /* ... a congestion tree's victim then (no event), a tree's aftermath then */
};
#define BURST_BRIEF (offsetof(struct burst_q, in) + 1) /* what brief touches (detector.h brief_size) */

/* A fall below the burst clear that the queue climbs back from to its burst level within this does not end the
 * burst (the swing rule). */
static uint64_t swing_ns(const struct hw_analyzer *a)
{
	return a->c.microburst_max_ns / 20;
}

/* Judge the burst at q at t (its first fall, or its end when it never fell: reports stopped): a congestion tree's
 * victim then, or its incident and whether it joins a tree's aftermath (an_incident_burst_joins).  Judged once:
 * the state of when a swinging burst finally ends (25-100 us later) is another tree's, other flows'. */
static void judge(struct hw_analyzer *a, struct an_queue *q, struct burst_q *b, uint64_t t)
{
	uint32_t qi = (uint32_t)(q - a->queues);
	b->judged = 1;
	b->victim = b->paused || an_tree_victim(a, q, t);
	if (!b->victim) {
		b->incident = an_incident_of(a, qi, t);
		b->joins = (uint8_t)an_incident_burst_joins(a, qi, b->incident);
	}
}

/* The burst at q, from b->start to end, is over: raised and resolved together, unless q is paused from
 * downstream (PFC back-pressure fills and drains it, not a burst arriving here).  held: the time PFC held the
 * queue high after the burst rose (0: it fell within max_ns). */
static void burst(struct hw_analyzer *a, struct an_queue *q, struct burst_q *b, uint64_t end, int held)
{
	if (!b->judged)
		judge(a, q, b, end);
	if (b->victim)
		return;
	uint32_t qi = (uint32_t)(q - a->queues);
	uint64_t inc = b->incident;
	/* a tree's backlog bursting on when PFC let go: its root's alert says so (when that alert still fires) */
	if (b->joins && an_incident_burst(a, qi, inc, b->peak))
		return;
	uint64_t id = an_incident_raise_id(a, HW_AN_MICROBURST, qi, inc);
	for (int resolved = 0; resolved < 2; resolved++) {
		struct an_ev *e = an_ev_begin(a, HW_AN_MICROBURST, q, id, b->start);
		e->e.incident = inc;
		if (resolved)
			an_ev_resolved(e, end);
		an_ev_num(e, "peak", b->peak);
		an_ev_num(e, "duration_us", (double)(end - b->start) / 1e3);
		an_ev_num(e, "threshold", q->th.burst);
		if (held) {
			an_ev_num(e, "rise_us", (double)(b->high_at - b->start) / 1e3);
			an_ev_detail(
			    e,
			    "reached the HighQueue level (%.0f bytes) %.0f us after the burst level, then PFC held "
			    "it high for %.0f us (HighQueue fired too)",
			    q->th.high, (double)(b->high_at - b->start) / 1e3, (double)(end - b->high_at) / 1e3);
		}
		an_ev_commit(e);
	}
	an_incident_resolved(a, HW_AN_MICROBURST, qi, end); /* a swinging burst: its incident open from its end */
}

/* What the episode that began at b->start is if it ends at end (below the burst clear, or reports stopped): 1 a
 * microburst (short), 2 a fast rise PFC then held (see the top), 0 neither. */
static int shape(const struct hw_analyzer *a, const struct an_queue *q, const struct burst_q *b, uint64_t end)
{
	if (end - b->start <= a->c.microburst_max_ns)
		return 1;
	/* an Incast at this queue in the episode: raised since it began, or one of the queue's incident */
	int incast = q->kind_id[HW_AN_INCAST] != b->incast_id ||
	             (q->kind_id[HW_AN_INCAST] && q->kind_incident[HW_AN_INCAST] == q->incident);
	if (q->th.lossless && b->high_at && b->high_at - b->start <= a->c.microburst_max_ns / 5 && !incast &&
	    !b->frozen)
		return 2;
	return 0;
}

/* The episode that began at b->start ended at end: a burst when shape says so. */
static void over(struct hw_analyzer *a, struct an_queue *q, struct burst_q *b, uint64_t end)
{
	b->in = 0;
	int s = shape(a, q, b, end);
	if (s)
		burst(a, q, b, end, s == 2);
}

static void record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, const struct hw_record *r)
{
	struct burst_q *b = qs;
	(void)d;
	if (!(r->valid & HW_V_QUEUE))
		return;
	uint32_t occ = r->queue_occupancy;
	uint64_t t = r->time_ns;
	if (b->in && b->fall_at && t > b->fall_at && t - b->fall_at > swing_ns(a))
		over(a, q, b, b->fall_at); /* it did not climb back in time: the burst ended at its fall */
	if (!b->in) {
		if (occ >= q->th.burst) {
			*b = (struct burst_q){.in = 1, .start = t, .peak = occ, .flat_from = t, .flat_occ = occ};
			b->paused = (uint8_t)an_tree_victim(a, q, t);
			b->incast_id = q->kind_id[HW_AN_INCAST];
			b->high_at = occ >= q->th.high ? t : 0;
		}
		return;
	}
	if (b->fall_at) {
		if (occ < q->th.burst)
			return; /* still down: over at its fall unless it climbs back within swing_ns */
		b->fall_at = 0; /* back at the burst level in time: the same episode (a PFC victim swinging) */
	}
	if (occ > b->peak)
		b->peak = occ;
	if (!b->high_at && occ >= q->th.high)
		b->high_at = t;
	double tol = q->th.high * FLAT_SHARE;
	if (t < b->flat_from || (double)occ > b->flat_occ + tol || (double)occ < b->flat_occ - tol) {
		b->flat_from = t;
		b->flat_occ = occ;
	} else if (t - b->flat_from >= a->c.high_queue.hold_ns) {
		b->frozen = 1;
	}
	if (occ < q->th.burst_clear) {
		b->fall_at = t;
		/* judged at the first fall that ends a burst (an episode that is none if it ends here, too long and
		 * not held, never becomes one later) */
		if (!b->judged && shape(a, q, b, t))
			judge(a, q, b, t);
	}
}

static void tick_queue(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	struct burst_q *b = qs;
	(void)d;
	if (b->in && b->fall_at) {
		if (a->finishing || (now > b->fall_at && now - b->fall_at > swing_ns(a)))
			over(a, q, b, b->fall_at); /* it did not climb back in time (or the input ended) */
		return;
	}
	if (!b->in || now <= q->last_ns || now - q->last_ns < a->c.microburst_max_ns / 5)
		return;
	/* went silent: queue reports stop once the queue is below the switch's report level, so a burst ends at
	 * its last report (when it had fallen from its peak: a queue that stops reporting at its peak did not
	 * drain, it went unseen) */
	if (q->last_occ < b->peak)
		over(a, q, b, q->last_ns);
	b->in = 0;
}

/* tick_queue acts only on a burst under way (detector.h tick_armed). */
static int tick_pending(const struct hw_analyzer *a, const struct an_queue *q, const void *qs)
{
	(void)a;
	(void)q;
	return ((const struct burst_q *)qs)->in;
}
/* record's short way (detector.h AN_RECORD_ARMING): no occupancy, or a sample below the burst level outside a burst,
 * which record ignores. */
static inline __attribute__((always_inline)) int brief(const struct hw_analyzer *a, const struct an_queue *q, void *qs,
                                                       const struct hw_record *r)
{
	const struct burst_q *b = qs;
	(void)a;
	return !(r->valid & HW_V_QUEUE) || (!b->in && r->queue_occupancy < q->th.burst);
}
AN_RECORD_ARMING(record, tick_pending, brief)
AN_TICK_ARMED(tick_queue, tick_pending)

static const struct an_key keys[] = {
    AN_KEY("microburst", "raise", AN_DOUBLE, microburst_raise),
    AN_KEY("microburst", "clear", AN_DOUBLE, microburst_clear),
    AN_KEY("microburst", "max_ns", AN_U64, microburst_max_ns),
};

static void defaults(struct hw_an_config *c)
{
	c->microburst_raise = 0; /* from the fabric: the queue's HighQueue clear level */
	c->microburst_clear = 0; /* ... half its HighQueue level */
	c->microburst_max_ns = 500000;
}

const struct an_detector an_detect_microburst = {
    .name = "microburst",
    .kind = HW_AN_MICROBURST,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .queue_size = sizeof(struct burst_q),
    .brief_size = BURST_BRIEF,
    .record = record_arming,
    .tick_queue = tick_queue,
    .tick_armed = tick_queue_armed,
};
