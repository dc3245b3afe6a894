/* PacketDrops: drop reports (records with a drop reason) per queue over tumbling windows of
 * drops_window_ns; raised when dropped / seen exceeds drops_ratio with at least drops_min drops,
 * resolved after a window at or below it. */
#include "an_internal.h"

static void close_window(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	double ratio = q->dw_seen ? (double)q->dw_drops / q->dw_seen : 0;
	struct hw_an_hyst rule = {a->c.drops_ratio, a->c.drops_ratio, 0, 0};
	if (!q->h_drops.active && q->dw_drops < a->c.drops_min)
		ratio = 0;
	if (!q->h_drops.active && ratio <= a->c.drops_ratio) {
		q->h_drops.above = 0;
	} else {
		/* a strict "above": nudge the value so that ratio == threshold does not raise */
		int s = an_hyst_step(&q->h_drops, &rule, ratio > a->c.drops_ratio ? ratio : 0, q->dw_start);
		if (s) {
			struct an_ev *e = s > 0 ? an_ev_raise_q(a, HW_AN_PACKET_DROPS, q, &q->h_drops)
			                        : an_ev_clear_q(a, HW_AN_PACKET_DROPS, q, &q->h_drops, now);
			an_ev_num(e, "drops", q->dw_drops);
			an_ev_num(e, "seen", q->dw_seen);
			an_ev_num(e, "ratio", ratio);
			if (s > 0) {
				an_ev_num(e, "threshold", a->c.drops_ratio);
				an_ev_num(e, "drop_reason", q->last_reason);
				an_ev_detail(e, "drop reason %u", q->last_reason);
			}
			an_ev_commit(e);
		}
	}
	q->dw_start = now;
	q->dw_seen = q->dw_drops = 0;
}

static void record(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r)
{
	if (!q->dw_start)
		q->dw_start = r->time_ns;
	else if (r->time_ns - q->dw_start >= a->c.drops_window_ns)
		close_window(a, q, r->time_ns);
	q->dw_seen++;
	if (r->valid & HW_V_DROP) {
		q->dw_drops++;
		q->last_reason = r->drop_reason;
	}
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->dw_start && (now - q->dw_start >= a->c.drops_window_ns || a->finishing) &&
	    (q->dw_drops || q->h_drops.active))
		close_window(a, q, now);
}

const struct an_detector an_detect_drops = {HW_AN_PACKET_DROPS, record, NULL, tick_queue, NULL};
