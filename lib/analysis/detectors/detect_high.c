/* HighQueue and HighHopLatency: a queue's occupancy (a hop's latency) at or above its raise threshold
 * for hold_ns; resolved once below its clear threshold for clear_ns, or after that long without records. */
#include "an_internal.h"

static void level(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r, enum hw_an_kind kind,
                  struct an_hyst *h, const struct hw_an_hyst *rule, double v, const char *name)
{
	int s = an_hyst_step(h, rule, v, r->time_ns);
	if (s > 0) {
		struct an_ev *e = an_ev_raise_q(a, kind, q, h);
		an_ev_num(e, name, v);
		an_ev_num(e, "threshold", rule->raise);
		an_ev_commit(e);
	} else if (s < 0) {
		struct an_ev *e = an_ev_clear_q(a, kind, q, h, r->time_ns);
		an_ev_num(e, "peak", h->peak);
		an_ev_commit(e);
	}
}

static void quiet(struct hw_analyzer *a, struct an_queue *q, enum hw_an_kind kind, struct an_hyst *h,
                  const struct hw_an_hyst *rule, uint64_t now)
{
	if (h->active && now > q->last_ns && now - q->last_ns >= rule->clear_ns) {
		struct an_ev *e = an_ev_clear_q(a, kind, q, h, now);
		an_ev_num(e, "peak", h->peak);
		an_ev_commit(e);
	}
}

static void queue_record(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r)
{
	if (r->valid & HW_V_QUEUE)
		level(a, q, r, HW_AN_HIGH_QUEUE, &q->h_queue, &a->c.high_queue, r->queue_occupancy, "occupancy");
}

static void queue_tick(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	quiet(a, q, HW_AN_HIGH_QUEUE, &q->h_queue, &a->c.high_queue, now);
}

static void latency_record(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r)
{
	if (r->valid & HW_V_HOP_LATENCY)
		level(a, q, r, HW_AN_HIGH_LATENCY, &q->h_lat, &a->c.high_latency, r->hop_latency, "hop_latency");
}

static void latency_tick(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	quiet(a, q, HW_AN_HIGH_LATENCY, &q->h_lat, &a->c.high_latency, now);
}

const struct an_detector an_detect_high_queue = {HW_AN_HIGH_QUEUE, queue_record, NULL, queue_tick, NULL};
const struct an_detector an_detect_high_latency = {HW_AN_HIGH_LATENCY, latency_record, NULL, latency_tick, NULL};
