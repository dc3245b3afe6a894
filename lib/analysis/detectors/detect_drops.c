/* PacketDrops: drop reports (records with a drop reason) per queue over tumbling windows of
 * drops_window_ns; raised when dropped / seen exceeds drops_ratio with at least drops_min drops,
 * resolved after a window at or below it.  The raise starts at the window's first drop, not its start. */
#include <stdio.h>

#include "detector.h"
#include "hopwatch/wire.h"

struct drops_q {                    /* per queue: a tumbling window; what brief touches first */
	uint64_t start, first_drop; /* the window's start; its first drop (the raise's start: the first evidence) */
	uint32_t seen, drops;
	uint8_t last_reason;
	struct an_hyst h;
};
#define DROPS_BRIEF offsetof(struct drops_q, drops) /* what brief touches (detector.h brief_size): start .. seen */

static void close_window(struct hw_analyzer *a, struct an_queue *q, struct drops_q *w, uint64_t now)
{
	double ratio = w->seen ? (double)w->drops / w->seen : 0;
	struct hw_an_hyst rule = {a->c.drops_ratio, a->c.drops_ratio, 0, 0};
	if (!w->h.active && w->drops < a->c.drops_min)
		ratio = 0;
	if (!w->h.active && ratio <= a->c.drops_ratio) {
		w->h.above = 0;
	} else {
		/* a strict "above": nudge the value so that ratio == threshold does not raise */
		int s = an_hyst_step(&w->h, &rule, ratio > a->c.drops_ratio ? ratio : 0,
		                     w->drops ? w->first_drop : w->start);
		if (s) {
			struct an_ev *e = s > 0 ? an_ev_raise_q(a, HW_AN_PACKET_DROPS, q, &w->h)
			                        : an_ev_clear_q(a, HW_AN_PACKET_DROPS, q, &w->h, now);
			an_ev_num(e, "drops", w->drops);
			an_ev_num(e, "seen", w->seen);
			an_ev_num(e, "ratio", ratio);
			if (s > 0) {
				an_ev_num(e, "threshold", a->c.drops_ratio);
				an_ev_num(e, "drop_reason", w->last_reason);
				const char *why = hw_drop_reason_name(w->last_reason);
				if (why)
					an_ev_detail(e, "drop reason %u (%s)", w->last_reason, why);
				else
					an_ev_detail(e, "drop reason %u", w->last_reason);
			}
			an_ev_commit(e);
		}
	}
	w->start = now;
	w->seen = w->drops = 0;
}

static void record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, const struct hw_record *r)
{
	struct drops_q *w = qs;
	(void)d;
	if (!w->start)
		w->start = r->time_ns;
	else if (r->time_ns - w->start >= a->c.drops_window_ns)
		close_window(a, q, w, r->time_ns);
	w->seen++;
	if (r->valid & HW_V_DROP) {
		if (!w->drops)
			w->first_drop = r->time_ns;
		w->drops++;
		w->last_reason = r->drop_reason;
	}
}

static void tick_queue(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	struct drops_q *w = qs;
	(void)d;
	if (w->start && (now - w->start >= a->c.drops_window_ns || a->finishing) && (w->drops || w->h.active))
		close_window(a, q, w, now);
}

/* tick_queue closes only a started window with drops or an open episode (detector.h tick_armed). */
static int tick_pending(const struct hw_analyzer *a, const struct an_queue *q, const void *qs)
{
	const struct drops_q *w = qs;
	(void)a;
	(void)q;
	return w->start && (w->drops || w->h.active);
}
/* record's short way (detector.h AN_RECORD_ARMING): a record without a drop inside the open window is counted as
 * seen, nothing else (tick_pending does not read seen). */
static inline __attribute__((always_inline)) int brief(const struct hw_analyzer *a, const struct an_queue *q, void *qs,
                                                       const struct hw_record *r)
{
	struct drops_q *w = qs;
	(void)q;
	if (!w->start || r->time_ns - w->start >= a->c.drops_window_ns || (r->valid & HW_V_DROP))
		return 0;
	w->seen++;
	return 1;
}
AN_RECORD_ARMING(record, tick_pending, brief)
AN_TICK_ARMED(tick_queue, tick_pending)

static const struct an_key keys[] = {
    AN_KEY("packet_drops", "ratio", AN_DOUBLE, drops_ratio),
    AN_KEY("packet_drops", "window_ns", AN_U64, drops_window_ns),
    AN_KEY("packet_drops", "min_drops", AN_U32, drops_min),
};

static void defaults(struct hw_an_config *c)
{
	c->drops_ratio = 0.001;
	c->drops_window_ns = 10000000;
	c->drops_min = 1;
}

const struct an_detector an_detect_drops = {
    .name = "packet_drops",
    .kind = HW_AN_PACKET_DROPS,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .queue_size = sizeof(struct drops_q),
    .brief_size = DROPS_BRIEF,
    .record = record_arming,
    .tick_queue = tick_queue,
    .tick_armed = tick_queue_armed,
    AN_EPISODE(struct drops_q, h),
};
