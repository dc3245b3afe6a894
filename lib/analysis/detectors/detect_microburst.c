/* Microburst: a queue's occupancy rises to microburst_raise and falls below microburst_clear within
 * microburst_max_ns, unless it rose while a congestion tree's victim (paused from downstream: PFC
 * back-pressure filling and draining it).  The event is reported when the burst is over (raised and
 * resolved together). */
#include "an_internal.h"

static void record(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r)
{
	if (!(r->valid & HW_V_QUEUE))
		return;
	uint32_t occ = r->queue_occupancy;
	if (!q->mb_in) {
		if (occ >= a->c.microburst_raise) {
			q->mb_in = 1;
			q->mb_start = r->time_ns;
			q->mb_peak = occ;
			q->mb_paused = (uint8_t)an_tree_victim(a, q, r->time_ns);
		}
		return;
	}
	if (occ > q->mb_peak)
		q->mb_peak = occ;
	if (r->time_ns - q->mb_start > a->c.microburst_max_ns) {
		if (occ < a->c.microburst_clear)
			q->mb_in = 0; /* too long for a microburst: sustained congestion is HighQueue's */
		return;
	}
	if (occ >= a->c.microburst_clear)
		return;
	q->mb_in = 0;
	if (q->mb_paused)
		return; /* filled while paused from downstream: PFC back-pressure, not a burst arriving here */
	uint64_t id = a->next_id++;
	for (int resolved = 0; resolved < 2; resolved++) { /* raised and resolved together */
		struct an_ev *e = an_ev_begin(a, HW_AN_MICROBURST, q, id, q->mb_start);
		if (resolved)
			an_ev_resolved(e, r->time_ns);
		an_ev_num(e, "peak", q->mb_peak);
		an_ev_num(e, "duration_us", (double)(r->time_ns - q->mb_start) / 1e3);
		an_ev_num(e, "threshold", a->c.microburst_raise);
		an_ev_commit(e);
	}
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->mb_in && now - q->mb_start > a->c.microburst_max_ns && now - q->last_ns > a->c.microburst_max_ns)
		q->mb_in = 0; /* went silent: no fall was seen */
}

const struct an_detector an_detect_microburst = {HW_AN_MICROBURST, record, NULL, tick_queue, NULL};
