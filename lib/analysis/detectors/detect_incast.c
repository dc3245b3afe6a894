/* Incast: at least incast_sources distinct sources (inner source addresses) seen within
 * incast_window_ns on one egress queue whose occupancy is at least incast_occupancy, unless that queue is
 * paused from downstream (a congestion tree's victim: the sources converge further down); resolved when
 * the queue has stayed below it for high_queue.clear_ns. */
#include <string.h>

#include "an_internal.h"

static uint32_t src_key(const struct hw_record *r)
{
	uint32_t h = 2166136261u;
	for (int i = 0; i < 16; i++)
		h = (h ^ r->src_ip[i]) * 16777619u;
	return h ? h : 1;
}

static void record(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r)
{
	if (!(r->valid & HW_V_QUEUE))
		return;
	int congested = r->queue_occupancy >= a->c.incast_occupancy;
	if (congested && (r->valid & HW_V_FLOW)) {
		if (!q->iw_start || r->time_ns - q->iw_start >= a->c.incast_window_ns) {
			q->iw_start = r->time_ns;
			if (!q->h_incast.active)
				q->n_src = 0;
		}
		uint32_t k = src_key(r);
		unsigned i = 0;
		while (i < q->n_src && q->src[i] != k)
			i++;
		if (i == q->n_src && q->n_src < AN_SRC)
			q->src[q->n_src++] = k;
	}
	struct hw_an_hyst rule = {a->c.incast_sources, 1, 0, a->c.high_queue.clear_ns};
	double v = congested ? q->n_src : 0;
	if (!q->h_incast.active && v >= a->c.incast_sources && an_tree_victim(a, q, r->time_ns))
		v = 0; /* paused by a congested queue downstream: the sources converge there, not here */
	if (!q->h_incast.active && v < a->c.incast_sources)
		return;
	int s = an_hyst_step(&q->h_incast, &rule, v, r->time_ns);
	if (s > 0) {
		struct an_ev *e = an_ev_raise_q(a, HW_AN_INCAST, q, &q->h_incast);
		an_ev_num(e, "sources", q->n_src);
		an_ev_num(e, "occupancy", r->queue_occupancy);
		an_ev_num(e, "min_sources", a->c.incast_sources);
		an_ev_commit(e);
	} else if (s < 0) {
		struct an_ev *e = an_ev_clear_q(a, HW_AN_INCAST, q, &q->h_incast, r->time_ns);
		an_ev_num(e, "sources", q->n_src);
		an_ev_commit(e);
		q->n_src = 0;
		q->iw_start = 0;
	}
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->h_incast.active && now - q->last_ns >= a->c.high_queue.clear_ns && now > q->last_ns) {
		struct an_ev *e = an_ev_clear_q(a, HW_AN_INCAST, q, &q->h_incast, now);
		an_ev_num(e, "sources", q->n_src);
		an_ev_commit(e);
		q->n_src = 0;
		q->iw_start = 0;
	}
}

const struct an_detector an_detect_incast = {HW_AN_INCAST, record, NULL, tick_queue, NULL};
