/* QueueBuildup, the early warning: a least-squares line through a queue's occupancy samples of the last
 * buildup_window_ns predicts it will reach the queue's HighQueue threshold within buildup_lead_ns while it is still
 * below. Once the queue is at buildup_steep_from of the threshold, the line through its newest min_samples samples
 * counts too: a steep climb after a long flat stretch, which the whole window's line flattens.  Raised only once
 * the queue is at buildup_from of the threshold (default 0.75: PFC Xon of Xoff) with its newest buildup_rising
 * samples not falling: a climb that far and still going comes true far more often than an early projection
 * (climbs stop short when a burst ends or PFC on a shared ingress caps the queue below its own Xoff).  And only once
 * it has held there, not falling, for buildup_hold_ns: a burst that PFC releases upstream lifts a queue into that
 * band for one sample and it falls at the next.  At a lossless
 * queue whose threshold is at or above PFC Xoff, raised only while buildup_min_flows distinct flows fed it within the
 * window: one flow comes in by one port, and PFC pauses that port at Xoff, so it cannot take the queue past Xoff (the
 * reachable ceiling; only the bytes in flight when the pause starts go above).  At a lossy queue, not raised while it
 * is starved by a lossless class that PFC is cutting, on its switch or upstream (starver_cut).  Not raised at a
 * congestion tree's victim (a queue paused from downstream). */
#include "detector.h"

#define BUILDUP_FLOWS 4 /* flows remembered per queue: buildup_min_flows counts at most this many */

struct buildup_q {                       /* per queue; what brief touches first */
	uint64_t flow[BUILDUP_FLOWS];    /* the newest distinct flows seen at the queue ... */
	uint64_t flow_ns[BUILDUP_FLOWS]; /* ... and when each was last seen (0: empty slot) */
	struct an_hyst h;
	double slope; /* units per ns, at the last evaluation */
};
/* what brief touches (detector.h brief_size): the flows, h.active and h.above, a pair of lines */
#define BUILDUP_BRIEF (offsetof(struct buildup_q, h) + offsetof(struct an_hyst, above) + 1)

/* Remember the record's flow at the queue: its slot's time renewed, else the stalest slot taken. */
static void see_flow(struct buildup_q *b, const struct hw_record *r)
{
	unsigned old = 0;
	for (unsigned i = 0; i < BUILDUP_FLOWS; i++) {
		if (b->flow_ns[i] && b->flow[i] == r->flow_hash) {
			b->flow_ns[i] = r->time_ns > b->flow_ns[i] ? r->time_ns : b->flow_ns[i];
			return;
		}
		if (b->flow_ns[i] < b->flow_ns[old])
			old = i;
	}
	b->flow[old] = r->flow_hash;
	b->flow_ns[old] = r->time_ns ? r->time_ns : 1;
}

/* Can the queue still reach its threshold?  Not a lossless queue with the threshold at or above PFC Xoff fed by fewer
 * than buildup_min_flows distinct flows within the window (each flow's ingress port is paused at Xoff). */
static int reachable(const struct hw_analyzer *a, const struct an_queue *q, const struct buildup_q *b, uint64_t now)
{
	if (!q->th.lossless || q->th.high < q->th.xoff || a->c.buildup_min_flows < 2)
		return 1;
	unsigned n = 0;
	for (unsigned i = 0; i < BUILDUP_FLOWS; i++)
		n += b->flow_ns[i] && (b->flow_ns[i] >= now || now - b->flow_ns[i] <= a->c.buildup_window_ns);
	return n >= a->c.buildup_min_flows;
}

/* Is lossless queue h pausing its switch's ingress links in its class (PFC)?  In a HighQueue episode, or its newest
 * sample, within the window, at PFC Xoff: a congestion tree's victim is at Xoff too, and HighQueue keeps no episode
 * there. */
static int pausing(const struct hw_analyzer *a, const struct an_queue *h, uint64_t now)
{
	const struct an_hyst *e = an_episode(a, HW_AN_HIGH_QUEUE, h);
	return (e && e->active) || (h->th.xoff > 0 && h->last_occ >= h->th.xoff &&
	                            (h->last_ns >= now || now - h->last_ns <= a->c.buildup_window_ns));
}

#define CUT_HOPS 16 /* switches upstream of a starved queue that starver_cut looks at, at most */

struct cut_hop { /* a switch on a starving flow's path before q's, and the switch the flow comes into it from */
	uint32_t node, prev;
};

/* The hops (past the first: the link from a host is not known) before q's on the newest paths (hw_an_flow_path: none
 * without PathChange) of the flows seen at lossless queue h (q's port, a class that starves q) into up (n of them so
 * far); returns n. */
static unsigned upstream(const struct hw_analyzer *a, const struct an_queue *q, const struct an_queue *h,
                         struct cut_hop *up, unsigned n)
{
	uint32_t hops[AN_PATH][2];
	for (unsigned f = 0; f < h->n_flows; f++) {
		unsigned k = hw_an_flow_path(a, h->flows[f], hops, AN_PATH), at = 0;
		while (at < k && (hops[at][0] != q->node_id || hops[at][1] != q->port))
			at++;
		for (unsigned i = 1; i < at && at < k; i++) { /* only a path through q's port */
			unsigned j = 0;
			while (j < n && (up[j].node != hops[i][0] || up[j].prev != hops[i - 1][0]))
				j++;
			if (j == n && n < CUT_HOPS)
				up[n++] = (struct cut_hop){hops[i][0], hops[i - 1][0]};
		}
	}
	return n;
}

/* Does a flow seen at queue h come into h's switch from switch prev (newest paths)?  Then PFC at h, pausing the
 * ingress links that feed h, pauses the link from prev. */
static int fed_from(const struct hw_analyzer *a, const struct an_queue *h, uint32_t prev)
{
	uint32_t hops[AN_PATH][2];
	for (unsigned f = 0; f < h->n_flows; f++) {
		unsigned k = hw_an_flow_path(a, h->flows[f], hops, AN_PATH);
		for (unsigned i = 1; i < k; i++)
			if (hops[i][0] == h->node_id && hops[i][1] == h->port && hops[i - 1][0] == prev)
				return 1;
	}
	return 0;
}

/* Is lossy queue q's climb held up by traffic that PFC is cutting?  q's port is kept busy by a lossless class of higher
 * priority (strict priority: a higher queue id is served first) that does not queue there (its queue at the port,
 * seen within the window, holds under a tenth of its HighQueue level), so q fills only while that class keeps
 * arriving at nearly the line rate; and either a queue of that class on q's switch is in a HighQueue episode (the
 * switch pauses the class on its ingress links, by which the traffic that starves q comes in too), or on a switch
 * before q's on the path of a flow that class brought to q's port, a queue of the class is pausing (above) and fed by
 * a flow that comes in by the same link as that one (the switch pauses that link: the starving flow is held upstream).
 * Either way the starvation, and q's climb, stop short.  Asked only when a warning would be raised: it reads the
 * queue table through. */
static int starver_cut(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	if (q->th.lossless)
		return 0;
	uint32_t classes = 0; /* bit c: lossless class c passes q's port above q, without queueing there */
	struct cut_hop up[CUT_HOPS];
	unsigned n = 0;
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct an_queue *h = &a->queues[i];
		if (h->node_id == q->node_id && h->port == q->port && h->queue > q->queue && h->queue < 32 &&
		    h->th.lossless && (h->last_ns >= now || now - h->last_ns <= a->c.buildup_window_ns) &&
		    h->last_occ < 0.1 * h->th.high) {
			classes |= 1u << h->queue;
			n = upstream(a, q, h, up, n);
		}
	}
	if (!classes)
		return 0;
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct an_queue *h = &a->queues[i];
		if (h->queue >= 32 || !(classes >> h->queue & 1u) || !h->th.lossless ||
		    (h->node_id == q->node_id && h->port == q->port))
			continue;
		const struct an_hyst *e;
		if (h->node_id == q->node_id && (e = an_episode(a, HW_AN_HIGH_QUEUE, h)) && e->active)
			return 1;
		if (!pausing(a, h, now))
			continue;
		for (unsigned j = 0; j < n; j++)
			if (up[j].node == h->node_id && fed_from(a, h, up[j].prev))
				return 1;
	}
	return 0;
}

struct sums {
	double n, sx, sy, sxx, sxy;
};

/* The least-squares line occupancy = v0 + slope * (t - now) through the sums; 0 when too few samples. */
static int line(const struct hw_analyzer *a, const struct sums *m, double *v0, double *slope)
{
	double var = m->n * m->sxx - m->sx * m->sx;
	if (m->n < a->c.buildup_min_samples || m->n < 2 || var <= 0)
		return 0;
	*slope = (m->n * m->sxy - m->sx * m->sy) / var;
	*v0 = (m->sy - *slope * m->sx) / m->n;
	return 1;
}

static void add(struct sums *m, const struct an_queue *q, unsigned i, uint64_t now)
{
	double x = -(double)(now - q->s_t[i]), y = q->s_occ[i];
	m->n++;
	m->sx += x;
	m->sy += y;
	m->sxx += x * x;
	m->sxy += x * y;
}

/* The sums over the samples of the last window (recent = 0), or over the newest min_samples of them. */
static struct sums trend_sums(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now, int recent)
{
	struct sums m = {0, 0, 0, 0, 0};
	if (!recent) {
		for (unsigned i = 0; i < q->s_n; i++)
			if (now - q->s_t[i] <= a->c.buildup_window_ns)
				add(&m, q, i, now);
		return m;
	}
	for (unsigned k = 1; k <= q->s_n && m.n < a->c.buildup_min_samples; k++) { /* newest first */
		unsigned i = (q->s_head + AN_TREND - k) % AN_TREND;
		if (now - q->s_t[i] > a->c.buildup_window_ns)
			break;
		add(&m, q, i, now);
	}
	return m;
}

/* The queue has held at or above level, its samples not falling, for hold_ns: the newest samples back to one at least
 * hold_ns older than now are all at or above level and none is above a newer one (0: off).  With buildup_steady above
 * 0, also when its two newest samples are at the level, not falling, and the newest step climbs at least
 * buildup_steady x the slope of the line through its newest min_samples samples: a climb that is not slowing down,
 * however close together the samples (a burst that PFC upstream releases jumps and then slows). */
static int held(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now, double level)
{
	if (!a->c.buildup_hold_ns)
		return 1;
	struct sums m = trend_sums(a, q, now, 1);
	double v, slope;
	if (a->c.buildup_steady > 0 && q->s_n >= 2 && line(a, &m, &v, &slope) && slope > 0) {
		unsigned i1 = (q->s_head + AN_TREND - 1) % AN_TREND, i2 = (q->s_head + AN_TREND - 2) % AN_TREND;
		if (q->s_occ[i2] >= level && q->s_occ[i1] >= q->s_occ[i2] && q->s_t[i1] > q->s_t[i2] &&
		    (double)(q->s_occ[i1] - q->s_occ[i2]) >=
		        a->c.buildup_steady * slope * (double)(q->s_t[i1] - q->s_t[i2]))
			return 1;
	}
	uint32_t newer = UINT32_MAX;
	for (unsigned k = 1; k <= q->s_n; k++) { /* newest first */
		unsigned i = (q->s_head + AN_TREND - k) % AN_TREND;
		if (q->s_occ[i] < level || q->s_occ[i] > newer)
			return 0;
		if (now - q->s_t[i] >= a->c.buildup_hold_ns)
			return 1;
		newer = q->s_occ[i];
	}
	return 0;
}

/* The newest n samples of q (the current one among them) do not fall, all within the window. */
static int rising(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now, unsigned n)
{
	if (n > q->s_n)
		return 0;
	uint32_t newer = UINT32_MAX;
	for (unsigned k = 1; k <= n; k++) { /* newest first */
		unsigned i = (q->s_head + AN_TREND - k) % AN_TREND;
		if (now - q->s_t[i] > a->c.buildup_window_ns || q->s_occ[i] > newer)
			return 0;
		newer = q->s_occ[i];
	}
	return 1;
}

/* The record's first steps, record's short way (detector.h AN_RECORD_ARMING): its flow remembered; done (nonzero)
 * without an occupancy, or with no warning open and the queue congested already or below the warning level. */
static inline __attribute__((always_inline)) int brief(const struct hw_analyzer *a, const struct an_queue *q, void *qs,
                                                       const struct hw_record *r)
{
	struct buildup_q *b = qs;
	if (r->valid & HW_V_FLOW)
		see_flow(b, r);
	if (!(r->valid & HW_V_QUEUE))
		return 1;
	if (!b->h.active && r->queue_occupancy >= q->th.high)
		return 1; /* already congested: that is HighQueue's, not an early warning */
	/* below the warning level: no fit could raise (pred would be the occupancy), nothing to step */
	return !b->h.active && !b->h.above && r->queue_occupancy < q->th.high * a->c.buildup_from;
}

/* The rest of a record with an occupancy, after brief (always_inline: into record_rest, its one caller). */
static inline __attribute__((always_inline)) void record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q,
                                                         void *qs, const struct hw_record *r)
{
	struct buildup_q *b = qs;
	(void)d;
	struct sums all = trend_sums(a, q, r->time_ns, 0), recent;
	double v0, slope, pred;
	if (!line(a, &all, &v0, &slope))
		return;
	pred = slope > 0 ? v0 + slope * (double)a->c.buildup_lead_ns : r->queue_occupancy;
	double v1, s1; /* a steep climb after a flat past: the newest samples' line, once halfway up */
	if (pred < q->th.high && r->queue_occupancy >= q->th.high * a->c.buildup_steep_from &&
	    (recent = trend_sums(a, q, r->time_ns, 1), line(a, &recent, &v1, &s1)) && s1 > 0 &&
	    v1 + s1 * (double)a->c.buildup_lead_ns > pred) {
		pred = v1 + s1 * (double)a->c.buildup_lead_ns;
		v0 = v1;
		slope = s1;
	}
	b->slope = slope;
	if (!b->h.active &&
	    (r->queue_occupancy < q->th.high * a->c.buildup_from || !rising(a, q, r->time_ns, a->c.buildup_rising) ||
	     !reachable(a, q, b, r->time_ns) || !held(a, q, r->time_ns, q->th.high * a->c.buildup_from) ||
	     (pred >= q->th.high && a->c.buildup_starver_cut && starver_cut(a, q, r->time_ns))))
		pred = r->queue_occupancy; /* not far enough up, not climbing now, held below by PFC, or starved by
		                              traffic PFC is cutting (asked only when it would raise): no warning yet */
	struct hw_an_hyst rule = {q->th.high, q->th.high, 0, a->c.high_queue.clear_ns};
	int s = an_hyst_step(&b->h, &rule, pred, r->time_ns);
	if (s > 0 && an_tree_victim(a, q, r->time_ns)) {
		b->h.active = 0; /* filling because it is paused from downstream: the warning belongs to the root */
		s = 0;
	}
	if (s > 0) {
		double eta = slope > 0 ? (q->th.high - v0) / slope : 0;
		struct an_ev *e = an_ev_raise_q(a, HW_AN_QUEUE_BUILDUP, q, &b->h);
		an_ev_num(e, "occupancy", r->queue_occupancy);
		an_ev_num(e, "slope_per_ms", slope * 1e6);
		an_ev_num(e, "predicted", pred);
		an_ev_num(e, "threshold", q->th.high);
		an_ev_num(e, "eta_ms", eta / 1e6);
		an_ev_commit(e);
	} else if (s < 0) {
		struct an_ev *e = an_ev_clear_q(a, HW_AN_QUEUE_BUILDUP, q, &b->h, r->time_ns);
		an_ev_num(e, "occupancy", r->queue_occupancy);
		an_ev_num(e, "slope_per_ms", slope * 1e6);
		an_ev_commit(e);
	}
}

static void tick_queue(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	struct buildup_q *b = qs;
	(void)d;
	if (b->h.active && now - q->last_ns >= a->c.high_queue.clear_ns && now > q->last_ns) {
		struct an_ev *e = an_ev_clear_q(a, HW_AN_QUEUE_BUILDUP, q, &b->h, now);
		an_ev_num(e, "occupancy", q->last_occ);
		an_ev_commit(e);
	}
}

/* tick_queue acts only on an open episode (detector.h tick_armed). */
static int tick_pending(const struct hw_analyzer *a, const struct an_queue *q, const void *qs)
{
	(void)a;
	(void)q;
	return ((const struct buildup_q *)qs)->h.active;
}
AN_RECORD_ARMING(record, tick_pending, brief)
AN_TICK_ARMED(tick_queue, tick_pending)

static const struct an_key keys[] = {
    AN_KEY("queue_buildup", "window_ns", AN_U64, buildup_window_ns),
    AN_KEY("queue_buildup", "lead_ns", AN_U64, buildup_lead_ns),
    AN_KEY("queue_buildup", "min_samples", AN_U32, buildup_min_samples),
    AN_KEY("queue_buildup", "steep_from", AN_DOUBLE, buildup_steep_from),
    AN_KEY("queue_buildup", "from", AN_DOUBLE, buildup_from),
    AN_KEY("queue_buildup", "rising", AN_U32, buildup_rising),
    AN_KEY("queue_buildup", "min_flows", AN_U32, buildup_min_flows),
    AN_KEY("queue_buildup", "hold_ns", AN_U64, buildup_hold_ns),
    AN_KEY("queue_buildup", "steady", AN_DOUBLE, buildup_steady),
    AN_KEY("queue_buildup", "starver_cut", AN_U8, buildup_starver_cut),
};

static void defaults(struct hw_an_config *c)
{
	c->buildup_window_ns = 1000000;
	c->buildup_lead_ns = 1000000;
	c->buildup_min_samples = 4;
	c->buildup_steep_from = 0.5;
	c->buildup_from = 0.75;
	c->buildup_rising = 3;
	c->buildup_min_flows = 2;
	c->buildup_hold_ns = 10000;
	c->buildup_steady = 0; /* off: on seeds 1-5 it bought recall at some precision (docs/analyzer.md) */
	c->buildup_starver_cut = 1;
}

const struct an_detector an_detect_buildup = {
    .name = "queue_buildup",
    .kind = HW_AN_QUEUE_BUILDUP,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .queue_size = sizeof(struct buildup_q),
    .brief_size = BUILDUP_BRIEF,
    .record = record_arming,
    .tick_queue = tick_queue,
    .tick_armed = tick_queue_armed,
    AN_EPISODE(struct buildup_q, h),
};
