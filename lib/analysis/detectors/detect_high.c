/* HighQueue and HighHopLatency: a queue's occupancy (a hop's latency) at or above its raise threshold
 * for hold_ns; resolved once below its clear threshold for clear_ns, or after that long without records. */
#include "detector.h"

struct high_q { /* per queue, each of the two */
	struct an_hyst h;
};

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

static void queue_record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs,
                         const struct hw_record *r)
{
	(void)d;
	if (r->valid & HW_V_QUEUE)
		level(a, q, r, HW_AN_HIGH_QUEUE, &((struct high_q *)qs)->h, &a->c.high_queue, r->queue_occupancy,
		      "occupancy");
}

static void queue_tick(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	(void)d;
	quiet(a, q, HW_AN_HIGH_QUEUE, &((struct high_q *)qs)->h, &a->c.high_queue, now);
}

static void latency_record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs,
                           const struct hw_record *r)
{
	(void)d;
	if (r->valid & HW_V_HOP_LATENCY)
		level(a, q, r, HW_AN_HIGH_LATENCY, &((struct high_q *)qs)->h, &a->c.high_latency, r->hop_latency,
		      "hop_latency");
}

static void latency_tick(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	(void)d;
	quiet(a, q, HW_AN_HIGH_LATENCY, &((struct high_q *)qs)->h, &a->c.high_latency, now);
}

static const struct an_key queue_keys[] = {
    AN_KEY("high_queue", "raise", AN_DOUBLE, high_queue.raise),
    AN_KEY("high_queue", "clear", AN_DOUBLE, high_queue.clear),
    AN_KEY("high_queue", "hold_ns", AN_U64, high_queue.hold_ns),
    AN_KEY("high_queue", "clear_ns", AN_U64, high_queue.clear_ns),
};
static const struct an_key latency_keys[] = {
    AN_KEY("high_hop_latency", "raise", AN_DOUBLE, high_latency.raise),
    AN_KEY("high_hop_latency", "clear", AN_DOUBLE, high_latency.clear),
    AN_KEY("high_hop_latency", "hold_ns", AN_U64, high_latency.hold_ns),
    AN_KEY("high_hop_latency", "clear_ns", AN_U64, high_latency.clear_ns),
};

static void queue_defaults(struct hw_an_config *c)
{
	c->high_queue = (struct hw_an_hyst){10000, 8000, 100000, 1000000};
}

static void latency_defaults(struct hw_an_config *c)
{
	c->high_latency = (struct hw_an_hyst){1000000, 800000, 100000, 1000000};
}

const struct an_detector an_detect_high_queue = {
    .name = "high_queue",
    .kind = HW_AN_HIGH_QUEUE,
    .congestion = 1,
    AN_KEYS(queue_keys),
    .defaults = queue_defaults,
    .queue_size = sizeof(struct high_q),
    .record = queue_record,
    .tick_queue = queue_tick,
    AN_EPISODE(struct high_q, h),
};
const struct an_detector an_detect_high_latency = {
    .name = "high_hop_latency",
    .kind = HW_AN_HIGH_LATENCY,
    .congestion = 1,
    AN_KEYS(latency_keys),
    .defaults = latency_defaults,
    .queue_size = sizeof(struct high_q),
    .record = latency_record,
    .tick_queue = latency_tick,
    AN_EPISODE(struct high_q, h),
};
