/* Incast: at least incast_sources distinct sources (inner source addresses) seen within
 * incast_window_ns on one egress queue whose occupancy is at least its incast level (incast.occupancy, by default
 * the queue's HighQueue threshold), unless that queue is
 * paused from downstream (a congestion tree's victim: the sources converge further down), or frozen (a host that
 * stopped draining, a PFC storm: its occupancy stays at or above its HighQueue clear level and within FLAT_SHARE of
 * its HighQueue level for high_queue.hold_ns, nothing leaves; CongestionTree names it) since it last drained
 * below its clear level or went quiet for high_queue.clear_ns (the backlog held by the storm that drains after it
 * is not a fan-in either).  Raised once the queue is seen draining (note_drain) within hold_ns, or after waiting
 * HELD_HOLDS hold_ns for that without freezing; resolved when the queue has stayed below it for
 * high_queue.clear_ns, or freezes.
 * While it fires, an update (the same alert) goes out each time its distinct sources reach twice the count
 * last sent: at most log2(MAX_SOURCES / incast.sources) updates per episode (3 with the default 4). */
#include <string.h>

#include "detector.h"

#define MAX_SOURCES 32  /* distinct sources per queue per window */
#define FLAT_SHARE 0.01 /* a frozen queue's occupancy moves less than this share of its HighQueue level */

struct incast_q {           /* per queue: distinct sources (hash of src_ip) in the window; what brief touches first */
	uint8_t storm;      /* frozen since it last drained below its clear level */
	double flat_occ;    /* the occupancy the current flat stretch began at */
	uint64_t flat_from; /* ... its first sample (0: none) */
	double last_occ;    /* the previous sample's occupancy */
	uint64_t last_t;    /* ... its time (0: none) */
	uint64_t drain_t;   /* the newest evidence that the queue drains (0: none) */
	uint64_t held_t;    /* the first record an Incast waited for that evidence at, in a row (0: none) */
	struct an_hyst h;
	uint64_t start;
	uint32_t src[MAX_SOURCES];
	uint8_t n_src;
	uint8_t sent_src; /* the sources the last raise or update said */
};
/* what brief touches (detector.h brief_size): up to h.active */
#define INCAST_BRIEF (offsetof(struct incast_q, h) + offsetof(struct an_hyst, active) + 1)
_Static_assert(INCAST_BRIEF <= AN_LINE, "struct incast_q: what brief touches in its first line");

/* Sample occ at t: has the queue been frozen (flat at or above its clear level for hold_ns) since it last
 * drained below its clear level? */
static int frozen(const struct hw_analyzer *a, const struct an_queue *q, struct incast_q *w, double occ, uint64_t t)
{
	double tol = q->th.high * FLAT_SHARE;
	if (occ < q->th.clear)
		w->storm = 0;
	if (!w->flat_from || t < w->flat_from || occ < q->th.clear || occ > w->flat_occ + tol ||
	    occ < w->flat_occ - tol) {
		w->flat_from = t;
		w->flat_occ = occ;
	} else if (t - w->flat_from >= a->c.high_queue.hold_ns) {
		w->storm = 1;
	}
	return w->storm;
}

int an_queue_frozen(const struct hw_analyzer *a, const struct an_queue *q)
{
	const struct an_det *d = an_det_of(a, HW_AN_INCAST);
	return d && an_enabled(a, HW_AN_INCAST) && ((const struct incast_q *)an_qstate(a, d, q))->storm;
}

/* Note whether record r shows the queue draining while congested: a tracked flow's packet left it at or above its
 * HighQueue clear level (an F report or postcard: it went on), or its occupancy fell from a sample at or above that
 * level by more than FLAT_SHARE of its HighQueue level (only departures lower a lossless queue).  A host that stopped
 * draining shows neither: nothing leaves its port, and what arrives only fills it until PFC holds the senders, then it
 * is flat. */
static void note_drain(const struct an_queue *q, struct incast_q *w, const struct hw_record *r)
{
	double occ = r->queue_occupancy;
	if (((r->report_flags & HW_RF_TRACKED_FLOW) && occ >= q->th.clear) ||
	    (w->last_t && r->time_ns >= w->last_t && w->last_occ >= q->th.clear &&
	     occ < w->last_occ - q->th.high * FLAT_SHARE))
		w->drain_t = r->time_ns;
	w->last_occ = occ;
	w->last_t = r->time_ns;
}

#define HELD_HOLDS 3 /* an Incast waits at most this many high_queue.hold_ns for that evidence */

/* The queue showed that it drains within high_queue.hold_ns before t. */
static int drained_lately(const struct hw_analyzer *a, const struct incast_q *w, uint64_t t)
{
	return w->drain_t && t >= w->drain_t && t - w->drain_t <= a->c.high_queue.hold_ns;
}

int an_queue_drains(const struct hw_analyzer *a, const struct an_queue *q, uint64_t t)
{
	const struct an_det *d = an_det_of(a, HW_AN_INCAST);
	return d && an_enabled(a, HW_AN_INCAST) && drained_lately(a, an_qstate(a, d, q), t);
}

/* May an Incast that qualifies at t be raised?  Once the queue has shown that it drains within
 * high_queue.hold_ns before t, or after it has waited HELD_HOLDS hold_ns for that in vain without freezing
 * (sparse sampling: an incast's flows may be reported once per millisecond; a storm's queue freezes 140 to
 * 500 us after it would have qualified in the sweep's fabrics, so the wait spares some storms, not all). */
static int draining(const struct hw_analyzer *a, struct incast_q *w, uint64_t t)
{
	if (drained_lately(a, w, t))
		return 1;
	if (!w->held_t || t < w->held_t)
		w->held_t = t;
	return t - w->held_t >= HELD_HOLDS * a->c.high_queue.hold_ns;
}

static uint32_t src_key(const struct hw_record *r)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < 16; i++)
		h = (h ^ r->src_ip[i]) * 16777619u;
	return h ? h : 1;
}

static void end_incast(struct hw_analyzer *a, struct an_queue *q, struct incast_q *w, uint64_t t)
{
	struct an_ev *e = an_ev_clear_q(a, HW_AN_INCAST, q, &w->h, t);
	an_ev_num(e, "sources", w->n_src);
	an_ev_commit(e);
	w->n_src = 0;
	w->start = 0;
}

/* The raise (update 0) or an update of the firing alert, saying the sources now. */
static void send(struct hw_analyzer *a, struct an_queue *q, struct incast_q *w, double occ, int update)
{
	struct an_ev *e = update ? an_ev_update_q(a, HW_AN_INCAST, q, &w->h) : an_ev_raise_q(a, HW_AN_INCAST, q, &w->h);
	an_ev_num(e, "sources", w->n_src);
	an_ev_num(e, "occupancy", occ);
	an_ev_num(e, "min_sources", a->c.incast_sources);
	an_ev_commit(e);
	w->sent_src = w->n_src;
}

static void record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, const struct hw_record *r)
{
	struct incast_q *w = qs;
	(void)d;
	if (!(r->valid & HW_V_QUEUE))
		return;
	int stuck = frozen(a, q, w, r->queue_occupancy, r->time_ns);
	note_drain(q, w, r);
	int congested = r->queue_occupancy >= q->th.incast;
	if (congested && (r->valid & HW_V_FLOW)) {
		if (!w->start || r->time_ns - w->start >= a->c.incast_window_ns) {
			w->start = r->time_ns;
			if (!w->h.active)
				w->n_src = 0;
		}
		uint32_t k = src_key(r);
		unsigned i = 0;
		while (i < w->n_src && w->src[i] != k)
			i++;
		if (i == w->n_src && w->n_src < MAX_SOURCES)
			w->src[w->n_src++] = k;
	}
	struct hw_an_hyst rule = {a->c.incast_sources, 1, 0, a->c.high_queue.clear_ns};
	double v = congested ? w->n_src : 0;
	if (!w->h.active && v >= a->c.incast_sources && an_tree_victim(a, q, r->time_ns))
		v = 0; /* paused by a congested queue downstream: the sources converge there, not here */
	if (w->h.active || v < a->c.incast_sources || stuck)
		w->held_t = 0;
	else if (!draining(a, w, r->time_ns))
		v = 0; /* nothing seen leaving: a fan-in drains, a host that stopped draining does not */
	if (stuck) {   /* not draining: what arrives is held, not fanning in faster than it leaves */
		if (w->h.active) {
			end_incast(a, q, w, r->time_ns); /* the host stopped draining: CongestionTree's now */
			an_tree_unfold(a, q, r->time_ns);
		}
		return;
	}
	if (!w->h.active && v < a->c.incast_sources)
		return;
	int s = an_hyst_step(&w->h, &rule, v, r->time_ns);
	if (s > 0)
		send(a, q, w, r->queue_occupancy, 0);
	else if (s < 0)
		end_incast(a, q, w, r->time_ns);
	else if (w->h.active && w->n_src >= 2 * w->sent_src)
		send(a, q, w, r->queue_occupancy, 1); /* it grew: the alert says so while it fires */
}

static void tick_queue(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	struct incast_q *w = qs;
	(void)d;
	if (now > q->last_ns && now - q->last_ns >= a->c.high_queue.clear_ns)
		w->storm = 0; /* quiet: queue reports stop below the switch's report level, it drained */
	if (w->h.active && now - q->last_ns >= a->c.high_queue.clear_ns && now > q->last_ns)
		end_incast(a, q, w, now);
}

/* tick_queue changes only a storm flag or an open episode (detector.h tick_armed). */
static int tick_pending(const struct hw_analyzer *a, const struct an_queue *q, const void *qs)
{
	const struct incast_q *w = qs;
	(void)a;
	(void)q;
	return w->storm || w->h.active;
}
/* record's short way (detector.h AN_RECORD_ARMING): no occupancy, or a quiet sample with no episode open: below the
 * clear level (frozen() finds it not frozen) and the incast level (no sources counted; under incast_sources, nothing
 * to raise or wait for).  record's steps come to these then. */
static inline __attribute__((always_inline)) int brief(const struct hw_analyzer *a, const struct an_queue *q, void *qs,
                                                       const struct hw_record *r)
{
	struct incast_q *w = qs;
	if (!(r->valid & HW_V_QUEUE))
		return 1;
	const double occ = r->queue_occupancy;
	if (w->h.active || occ >= q->th.clear || occ >= q->th.incast || a->c.incast_sources == 0)
		return 0;
	frozen(a, q, w, occ, r->time_ns); /* below clear: not frozen, the flat stretch starts again here */
	note_drain(q, w, r);
	w->held_t = 0;
	return 1;
}
AN_RECORD_ARMING(record, tick_pending, brief)
AN_TICK_ARMED(tick_queue, tick_pending)

static const struct an_key keys[] = {
    AN_KEY("incast", "sources", AN_U32, incast_sources),
    AN_KEY("incast", "occupancy", AN_DOUBLE, incast_occupancy),
    AN_KEY("incast", "window_ns", AN_U64, incast_window_ns),
};

static void defaults(struct hw_an_config *c)
{
	c->incast_sources = 4;
	c->incast_occupancy = 0; /* from the fabric: the queue's HighQueue threshold */
	c->incast_window_ns = 1000000;
}

const struct an_detector an_detect_incast = {
    .name = "incast",
    .kind = HW_AN_INCAST,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .queue_size = sizeof(struct incast_q),
    .brief_size = INCAST_BRIEF,
    .record = record_arming,
    .tick_queue = tick_queue,
    .tick_armed = tick_queue_armed,
    AN_EPISODE(struct incast_q, h),
};
