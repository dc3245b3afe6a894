/* QueueBuildup, the early warning: a least-squares line through a queue's occupancy samples of the last
 * buildup_window_ns predicts it will reach high_queue.raise within buildup_lead_ns while it is still below. */
#include "an_internal.h"

/* Fit occupancy = v0 + slope * (t - now) over the recent samples; 0 when too few. */
static int trend(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now, double *v0, double *slope)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (unsigned i = 0; i < q->s_n; i++) {
		if (now - q->s_t[i] > a->c.buildup_window_ns)
			continue;
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
	double v0, slope;
	if (!trend(a, q, r->time_ns, &v0, &slope))
		return;
	q->buildup_slope = slope;
	double pred = v0 + slope * (double)a->c.buildup_lead_ns;
	if (slope <= 0)
		pred = r->queue_occupancy; /* not building up: judge on the level itself */
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
