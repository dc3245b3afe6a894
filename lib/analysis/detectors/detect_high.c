/* HighQueue and HighHopLatency: a queue's occupancy (a hop's latency) high (derived per queue from the fabric,
 * an_thresholds.c, unless configured) for at least high_queue.fraction of the last hold_ns, so a queue hovering
 * around the threshold alerts and one sample below does not reset it.  High is the PFC hysteresis: from a sample
 * at or above raise until one below clear (a lossless queue that reached Xoff pauses its senders until it drains
 * to Xon), so a queue oscillating between Xon and Xoff is high all along.  Each sample's value holds until the
 * next, so sparse samples above (one every 300 us) make one run.  The episode starts at the first sample above.
 * Not raised while the queue is a congestion tree's victim (paused from downstream: its root's CongestionTree
 * names it, and the root is the culprit); HighHopLatency not while the queue is in a HighQueue episode or run (its
 * occupancy high: the latency follows from it).  HighHopLatency's derived threshold is a queueing time, so it is
 * compared with the latency above the queue's floor, the lowest it has shown (a packet that found the queue empty:
 * the switch's own forwarding time), learnt per queue.  Resolved once below its clear threshold for clear_ns, or
 * after that long without records. */
#include <string.h>

#include "detector.h"

#define SLOTS 16 /* the window of hold_ns in slots of hold_ns / SLOTS */

struct high_q {            /* per queue, each of the two; what quiet_sample reads first, in one line */
	uint8_t was_high;  /* the previous sample was high */
	uint8_t run;       /* a run of high samples has begun (h.above_since is its first) */
	uint8_t dirty;     /* high[] may hold time: 0 = all zero, so emptying it is skipped */
	uint8_t has_floor; /* HighHopLatency: floor holds a sample */
	uint32_t floor;    /* HighHopLatency: the lowest hop latency of the queue so far (latency_floor()) */
	uint64_t last_t;   /* the previous sample's time */
	uint64_t pend_t;   /* a sample's time whose slot the window moved on to without dividing (0: none) */
	struct an_hyst h;
	uint64_t below_since; /* in a run: the first sample not high since the newest high one (0: none) */
	uint64_t slot;        /* the newest slot's number (time / slot width), with pend_t: see cur_slot() */
	uint64_t high[SLOTS]; /* time high in each of the last SLOTS slots (ns) */
};
/* what quiet_sample touches (detector.h brief_size): up to h.active */
#define HIGH_BRIEF (offsetof(struct high_q, h) + offsetof(struct an_hyst, active) + 1)
_Static_assert(HIGH_BRIEF <= AN_LINE, "struct high_q: what a quiet sample touches in its first line");

static uint64_t slot_width(uint64_t hold)
{
	return hold >= SLOTS ? hold / SLOTS : 1;
}

/* The newest slot: max(slot, pend_t / w).  While the window is empty (dirty 0) and gains no time, moving it on
 * to a sample's slot only raises slot to that slot's number (the slots it passes are zero already), so the
 * sample's time is kept in pend_t instead (a running maximum: floor division keeps the order) and divided once
 * the number is wanted: the division was most of each sample's cost (docs/performance.md, round 8). */
static uint64_t cur_slot(const struct high_q *s, uint64_t w)
{
	const uint64_t k = s->pend_t / w;
	return k > s->slot ? k : s->slot;
}

/* Moves the window on to slot k: the slots it passes are emptied. */
static void advance(struct high_q *s, uint64_t k)
{
	if (k <= s->slot)
		return;
	/* SLOTS or more passed (most samples of a queue reported every few ms): all of them at once, the same as
	 * the loop, which was a fifth of the analyzer's instructions on realistic input (docs/performance.md) */
	if (k - s->slot >= SLOTS) {
		if (s->dirty) /* most samples find it empty already: below the threshold, nothing was added */
			memset(s->high, 0, sizeof(s->high));
		s->dirty = 0;
	} else
		for (uint64_t i = s->slot + 1; i <= k; i++)
			s->high[i % SLOTS] = 0;
	s->slot = k;
}

/* window() when the window holds time or gains some (adds: the previous sample was high). */
static __attribute__((noinline)) void window_slow(struct high_q *s, uint64_t t, uint64_t hold, int adds)
{
	uint64_t w = slot_width(hold);
	s->slot = cur_slot(s, w);
	s->pend_t = 0;
	if (adds) {
		uint64_t from = s->last_t;
		if (t - from > (SLOTS + 1) * w)
			from = t - (SLOTS + 1) * w;
		while (from < t) {
			uint64_t k = from / w, end = (k + 1) * w < t ? (k + 1) * w : t;
			advance(s, k);
			if (s->slot - k < SLOTS) {
				s->high[k % SLOTS] += end - from;
				s->dirty = 1;
			}
			from = end;
		}
	}
	advance(s, t / w);
	s->last_t = t;
}

/* The previous sample's value held from its time to t: its high time goes into the slots it covers. */
static inline void window(struct high_q *s, uint64_t t, uint64_t hold)
{
	const int adds = s->last_t && t > s->last_t && s->was_high;
	if (adds || s->dirty) {
		window_slow(s, t, hold, adds);
		return;
	}
	/* most samples: below the threshold, the window empty */
	if (t > s->pend_t)
		s->pend_t = t;
	s->last_t = t;
}

/* The share of the window (the last SLOTS slots up to t: between hold_ns - one slot and hold_ns) spent high. */
static double high_share(const struct high_q *s, uint64_t t, uint64_t hold)
{
	uint64_t w = slot_width(hold), sum = 0, len = (SLOTS - 1) * w + (t - cur_slot(s, w) * w);
	for (unsigned i = 0; i < SLOTS; i++)
		sum += s->high[i];
	return len ? (double)sum / (double)len : 0;
}

static void reset(struct high_q *s)
{
	s->run = 0;
	s->was_high = 0;
	s->below_since = 0;
	if (s->dirty)
		memset(s->high, 0, sizeof(s->high));
	s->dirty = 0;
}

/* One sample v at t against raise / clear: +1 raised, -1 cleared, 0 no change.  Inlined into level(): a call
 * per sample cost as much as the window. */
static inline __attribute__((always_inline)) int high_step(struct high_q *s, double raise, double clear,
                                                           const struct hw_an_config *c, const struct hw_an_hyst *rule,
                                                           double v, uint64_t t)
{
	struct an_hyst *h = &s->h;
	if (s->last_t && t < s->last_t) {
		if (s->last_t - t <= rule->hold_ns) {
			t = s->last_t; /* a sample a little out of order counts at the newest time */
		} else { /* the clock went back (re-anchored after a bad record, an_core.c): start afresh */
			reset(s);
			s->last_t = 0;
			s->slot = s->pend_t = 0;
		}
	}
	if (!h->active && s->last_t && t > s->last_t && t - s->last_t >= rule->clear_ns) {
		reset(s); /* silent for clear_ns: queue reports stop below the switch's report level, it was below */
		s->last_t = 0;
	}
	window(s, t, rule->hold_ns);
	int above = v >= raise, was = s->was_high, high = above || (was && v >= clear);
	s->was_high = (uint8_t)high;
	if (h->active) {
		struct hw_an_hyst r = {raise, clear, 0, rule->clear_ns};
		int st = an_hyst_step(h, &r, v, t);
		if (st < 0)
			reset(s);
		return st;
	}
	/* A run: the queue high, each sample's value holding until the next.  It continues across a gap without
	 * samples, and ends once samples not high have held for a whole hold_ns, or after silence of clear_ns. */
	if (s->run && s->below_since && t - s->below_since >= rule->hold_ns)
		s->run = 0;
	if (high) {
		if (!s->run) { /* a new run: the first evidence is now */
			s->run = 1;
			h->above_since = t;
			h->peak = v;
		}
		s->below_since = 0;
		if (v > h->peak)
			h->peak = v;
	} else if (s->run && !s->below_since) {
		s->below_since = t;
	}
	/* judged up to t: the previous sample's value held until now, so a run that ends here (high until now) counts
	 */
	if (!s->run || !(high || was) || t - h->above_since < rule->hold_ns)
		return 0;
	if (rule->hold_ns && high_share(s, t, rule->hold_ns) < c->high_fraction)
		return 0; /* hold_ns 0: the crossing sample itself raises */
	h->active = 1;
	h->below = 0;
	h->start_ns = h->above_since;
	return 1;
}

/* Inlined into both record hooks (kind a constant there): it runs for nearly every record. */
static inline __attribute__((always_inline)) void level(struct hw_analyzer *a, struct an_queue *q,
                                                        const struct hw_record *r, enum hw_an_kind kind,
                                                        struct high_q *s, const struct hw_an_hyst *rule, double raise,
                                                        double clear, double v, const char *name)
{
	int st = high_step(s, raise, clear, &a->c, rule, v, r->time_ns);
	if (st > 0 && kind == HW_AN_HIGH_LATENCY) {
		const struct an_det *hd = an_det_of(a, HW_AN_HIGH_QUEUE);
		const struct high_q *hq = hd ? an_qstate(a, hd, q) : NULL;
		if (hq && (hq->h.active || hq->run)) { /* the latency follows from the occupancy HighQueue reports */
			s->h.active = 0;
			st = 0;
		}
	}
	if (st > 0 && an_tree_victim(a, q, r->time_ns)) {
		s->h.active = 0; /* paused from downstream: its root's CongestionTree names it as a victim */
		st = 0;
	}
	if (st > 0) {
		struct an_ev *e = an_ev_raise_q(a, kind, q, &s->h);
		an_ev_num(e, name, v >= raise ? v : s->h.peak); /* raised as the run ends: its peak */
		an_ev_num(e, "threshold", raise);
		an_ev_commit(e);
	} else if (st < 0) {
		struct an_ev *e = an_ev_clear_q(a, kind, q, &s->h, r->time_ns);
		an_ev_num(e, "peak", s->h.peak);
		an_ev_commit(e);
	}
}

static void quiet(struct hw_analyzer *a, struct an_queue *q, enum hw_an_kind kind, struct high_q *s,
                  const struct hw_an_hyst *rule, uint64_t now)
{
	if (s->h.active && now > q->last_ns && now - q->last_ns >= rule->clear_ns) {
		struct an_ev *e = an_ev_clear_q(a, kind, q, &s->h, now);
		an_ev_num(e, "peak", s->h.peak);
		an_ev_commit(e);
		reset(s);
		s->last_t = 0;
	}
}

/* A quiet sample, most of them: below raise, with no episode, run or high time held (nothing but the window's clock
 * to move), in order and within clear_ns of the previous one.  high_step would only move the window on (its first two
 * steps do nothing then, and window() takes its short way), so that is all this does, without the rest of its
 * tests. */
static inline __attribute__((always_inline)) int quiet_sample(struct high_q *s, double raise,
                                                              const struct hw_an_hyst *rule, double v, uint64_t t)
{
	if (s->h.active | s->run | s->was_high | s->dirty || v >= raise ||
	    (s->last_t && (t < s->last_t || t - s->last_t >= rule->clear_ns)))
		return 0;
	window(s, t, rule->hold_ns);
	return 1;
}

static void queue_record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs,
                         const struct hw_record *r)
{
	(void)d;
	if (r->valid & HW_V_QUEUE)
		level(a, q, r, HW_AN_HIGH_QUEUE, qs, &a->c.high_queue, q->th.high, q->th.clear, r->queue_occupancy,
		      "occupancy");
}

/* Sharded (detector.h record_local): queue_record's step alone, the episode changed (nonzero) or not. */
static int queue_local(const struct hw_analyzer *a, const struct an_queue *q, void *qs, const struct hw_record *r)
{
	if (!(r->valid & HW_V_QUEUE))
		return 0;
	return high_step(qs, q->th.high, q->th.clear, &a->c, &a->c.high_queue, r->queue_occupancy, r->time_ns);
}
static uint64_t queue_quiet(const struct hw_an_config *c)
{
	return c->high_queue.clear_ns; /* quiet() */
}

static void queue_tick(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	(void)d;
	quiet(a, q, HW_AN_HIGH_QUEUE, qs, &a->c.high_queue, now);
}

/* quiet() acts only on an open episode (detector.h tick_armed), for both detectors.  The shards never write
 * the episode's active flag (an_shard.c). */
static int tick_pending(const struct hw_analyzer *a, const struct an_queue *q, const void *qs)
{
	(void)a;
	(void)q;
	return ((const struct high_q *)qs)->h.active;
}
/* queue_record's short way (detector.h AN_RECORD_ARMING): no occupancy, or a quiet sample. */
static inline __attribute__((always_inline)) int queue_brief(const struct hw_analyzer *a, const struct an_queue *q,
                                                             void *qs, const struct hw_record *r)
{
	return !(r->valid & HW_V_QUEUE) ||
	       quiet_sample(qs, q->th.high, &a->c.high_queue, r->queue_occupancy, r->time_ns);
}
AN_RECORD_ARMING(queue_record, tick_pending, queue_brief)
AN_TICK_ARMED(queue_tick, tick_pending)

/* What the queue's thresholds are raised by for the hop latency v: with the derived ones (a drain time: queueing
 * alone, an_thresholds.c), the lowest latency the queue has shown, v included (the switch's forwarding time, which
 * every packet spends); 0 with configured ones (high_hop_latency.raise above 0: the whole latency). */
static inline double latency_floor(const struct hw_analyzer *a, struct high_q *s, uint32_t v)
{
	if (a->c.high_latency.raise > 0)
		return 0;
	if (!s->has_floor || v < s->floor) {
		s->floor = v;
		s->has_floor = 1;
	}
	return s->floor;
}

static void latency_record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs,
                           const struct hw_record *r)
{
	(void)d;
	if (r->valid & HW_V_HOP_LATENCY) {
		const double f = latency_floor(a, qs, r->hop_latency);
		level(a, q, r, HW_AN_HIGH_LATENCY, qs, &a->c.high_latency, q->th.lat + f, q->th.lat_clear + f,
		      r->hop_latency, "hop_latency");
	}
}

static int latency_local(const struct hw_analyzer *a, const struct an_queue *q, void *qs, const struct hw_record *r)
{
	if (!(r->valid & HW_V_HOP_LATENCY))
		return 0;
	const double f = latency_floor(a, qs, r->hop_latency);
	return high_step(qs, q->th.lat + f, q->th.lat_clear + f, &a->c, &a->c.high_latency, r->hop_latency, r->time_ns);
}
static uint64_t latency_quiet(const struct hw_an_config *c)
{
	return c->high_latency.clear_ns;
}

static void latency_tick(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	(void)d;
	quiet(a, q, HW_AN_HIGH_LATENCY, qs, &a->c.high_latency, now);
}
/* latency_record's short way: no hop latency, or a quiet sample (the floor learnt first: latency_record's own
 * latency_floor then finds it learnt). */
static inline __attribute__((always_inline)) int latency_brief(const struct hw_analyzer *a, const struct an_queue *q,
                                                               void *qs, const struct hw_record *r)
{
	if (!(r->valid & HW_V_HOP_LATENCY))
		return 1;
	const double f = latency_floor(a, qs, r->hop_latency);
	return quiet_sample(qs, q->th.lat + f, &a->c.high_latency, r->hop_latency, r->time_ns);
}
AN_RECORD_ARMING(latency_record, tick_pending, latency_brief)
AN_TICK_ARMED(latency_tick, tick_pending)

static const struct an_key queue_keys[] = {
    AN_KEY("high_queue", "raise", AN_DOUBLE, high_queue.raise),
    AN_KEY("high_queue", "clear", AN_DOUBLE, high_queue.clear),
    AN_KEY("high_queue", "hold_ns", AN_U64, high_queue.hold_ns),
    AN_KEY("high_queue", "clear_ns", AN_U64, high_queue.clear_ns),
    AN_KEY("high_queue", "fraction", AN_DOUBLE, high_fraction),
};
static const struct an_key latency_keys[] = {
    AN_KEY("high_hop_latency", "raise", AN_DOUBLE, high_latency.raise),
    AN_KEY("high_hop_latency", "clear", AN_DOUBLE, high_latency.clear),
    AN_KEY("high_hop_latency", "hold_ns", AN_U64, high_latency.hold_ns),
    AN_KEY("high_hop_latency", "clear_ns", AN_U64, high_latency.clear_ns),
};

static void queue_defaults(struct hw_an_config *c)
{
	/* raise / clear 0: from the fabric (lossless: PFC Xoff / Xon; lossy: 40 % / 30 % of its buffer) */
	c->high_queue = (struct hw_an_hyst){0, 0, 100000, 1000000};
	c->high_fraction = 0.75;
}

static void latency_defaults(struct hw_an_config *c)
{
	/* raise / clear 0: the time the queue's HighQueue levels take to drain at its line rate */
	c->high_latency = (struct hw_an_hyst){0, 0, 100000, 1000000};
}

const struct an_detector an_detect_high_queue = {
    .name = "high_queue",
    .kind = HW_AN_HIGH_QUEUE,
    .congestion = 1,
    AN_KEYS(queue_keys),
    .defaults = queue_defaults,
    .queue_size = sizeof(struct high_q),
    .brief_size = HIGH_BRIEF,
    .record = queue_record_arming,
    .tick_queue = queue_tick,
    .tick_armed = queue_tick_armed,
    AN_EPISODE(struct high_q, h),
    .record_local = queue_local,
    .quiet_ns = queue_quiet,
};
const struct an_detector an_detect_high_latency = {
    .name = "high_hop_latency",
    .kind = HW_AN_HIGH_LATENCY,
    .congestion = 1,
    AN_KEYS(latency_keys),
    .defaults = latency_defaults,
    .queue_size = sizeof(struct high_q),
    .brief_size = HIGH_BRIEF,
    .record = latency_record_arming,
    .tick_queue = latency_tick,
    .tick_armed = latency_tick_armed,
    AN_EPISODE(struct high_q, h),
    .record_local = latency_local,
    .quiet_ns = latency_quiet,
};
