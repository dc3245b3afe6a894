/* QueueBuildup, the early warning: a least-squares line through a queue's occupancy samples of the last
 * buildup_window_ns predicts it will reach high_queue.raise within buildup_lead_ns while it is still below.
 * Once the queue is at buildup_steep_from of the threshold, the line through its newest min_samples samples
 * counts too: a steep climb after a long flat stretch, which the whole window's line flattens. */
#include "an_internal.h"

/* Fit occupancy = v0 + slope * (t - now) over the newest `want` samples of the window; 0 when too few. */
static int trend(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now, unsigned want, double *v0,
                 double *slope)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (unsigned k = 1; k <= q->s_n && n < want; k++) { /* newest first */
		unsigned i = (q->s_head + AN_TREND - k) % AN_TREND;
		if (now - q->s_t[i] > a->c.buildup_window_ns)
			break;
		double x = -(double)(now - q->s_t[i]), y = q->s_occ[i];
		n++;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	double var = n * sxx - sx * sx;
	if (n < a->c.buildup_min_samples || n < 2 || var <= 0)
		return 0;
	*slope = (n * sxy - sx * sy) / var;
	*v0 = (sy - *slope * sx) / n;
	return 1;
}

static void record(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r)
{
	if (!(r->valid & HW_V_QUEUE))
		return;
	double v0, slope, pred;
	if (!trend(a, q, r->time_ns, AN_TREND, &v0, &slope))
		return;
	pred = slope > 0 ? v0 + slope * (double)a->c.buildup_lead_ns : r->queue_occupancy;
	double v1, s1; /* a steep climb after a flat past: the newest samples' line, once halfway up */
	if (r->queue_occupancy >= a->c.high_queue.raise * a->c.buildup_steep_from &&
	    trend(a, q, r->time_ns, a->c.buildup_min_samples, &v1, &s1) && s1 > 0 &&
	    v1 + s1 * (double)a->c.buildup_lead_ns > pred) {
		pred = v1 + s1 * (double)a->c.buildup_lead_ns;
		v0 = v1;
		slope = s1;
	}
	q->buildup_slope = slope;
	struct hw_an_hyst rule = {a->c.high_queue.raise, a->c.high_queue.raise, 0, a->c.high_queue.clear_ns};
	if (!q->h_buildup.active && r->queue_occupancy >= a->c.high_queue.raise)
		return; /* already congested: that is HighQueue's, not an early warning */
	int s = an_hyst_step(&q->h_buildup, &rule, pred, r->time_ns);
	if (s > 0) {
		double eta = slope > 0 ? (a->c.high_queue.raise - v0) / slope : 0;
		struct an_num nums[] = {{"occupancy", r->queue_occupancy},
		                        {"slope_per_ms", slope * 1e6},
		                        {"predicted", pred},
		                        {"threshold", a->c.high_queue.raise},
		                        {"eta_ms", eta / 1e6}};
		an_raise_q(a, HW_AN_QUEUE_BUILDUP, q, &q->h_buildup, nums, 5, NULL);
	} else if (s < 0) {
		struct an_num nums[] = {{"occupancy", r->queue_occupancy}, {"slope_per_ms", slope * 1e6}};
		an_clear_q(a, HW_AN_QUEUE_BUILDUP, q, &q->h_buildup, r->time_ns, nums, 2);
	}
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->h_buildup.active && now - q->last_ns >= a->c.high_queue.clear_ns && now > q->last_ns) {
		struct an_num nums[] = {{"occupancy", q->last_occ}};
		an_clear_q(a, HW_AN_QUEUE_BUILDUP, q, &q->h_buildup, now, nums, 1);
	}
}

const struct an_detector an_detect_buildup = {HW_AN_QUEUE_BUILDUP, record, NULL, tick_queue, NULL};
