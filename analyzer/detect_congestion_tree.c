/* CongestionTree: congestion spreading upstream (PFC back-pressure, head-of-line blocking).  A report
 * whose path crosses several queues in a HighQueue episode makes its most downstream one the root and the
 * others its victims; tree_victims distinct victims raise one event at the root naming them.  Resolved
 * when the root's HighQueue episode ends.  Uses HighQueue's state, so it needs that detector on. */
#include <stdio.h>

#include "an_internal.h"

static void report(struct hw_analyzer *a, const struct an_report *rep)
{
	if (!an_enabled(a, HW_AN_HIGH_QUEUE) || rep->n_hops < 2)
		return;
	int root = -1;
	for (int h = rep->n_hops - 1; h >= 0 && root < 0; h--)
		if (rep->qidx[h] && a->queues[rep->qidx[h] - 1].h_queue.active)
			root = h;
	if (root < 1)
		return;
	struct an_queue *r = &a->queues[rep->qidx[root] - 1];
	for (int h = 0; h < root; h++) {
		uint32_t v = rep->qidx[h];
		if (!v || !a->queues[v - 1].h_queue.active || &a->queues[v - 1] == r)
			continue;
		unsigned i = 0;
		while (i < r->n_victims && r->victims[i] != v - 1)
			i++;
		if (i == r->n_victims && r->n_victims < AN_VICTIMS)
			r->victims[r->n_victims++] = v - 1;
	}
	if (r->h_tree.active || r->n_victims < a->c.tree_victims)
		return;
	char detail[256];
	size_t off = (size_t)snprintf(detail, sizeof(detail), "root %u:%u/%u, victims", r->node_id, r->port, r->queue);
	for (unsigned i = 0; i < r->n_victims && off < sizeof(detail); i++) {
		const struct an_queue *v = &a->queues[r->victims[i]];
		off += (size_t)snprintf(detail + off, sizeof(detail) - off, " %u:%u/%u", v->node_id, v->port, v->queue);
	}
	r->h_tree.active = 1;
	r->h_tree.start_ns = rep->time_ns;
	struct an_num nums[] = {{"victims", r->n_victims}, {"root_occupancy", r->last_occ}};
	an_raise_q(a, HW_AN_CONGESTION_TREE, r, &r->h_tree, nums, 2, detail);
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->h_queue.active)
		return;
	if (q->h_tree.active) {
		struct an_num nums[] = {{"victims", q->n_victims}};
		an_clear_q(a, HW_AN_CONGESTION_TREE, q, &q->h_tree, now, nums, 1);
	}
	q->n_victims = 0;
}

const struct an_detector an_detect_congestion_tree = {HW_AN_CONGESTION_TREE, NULL, report, tick_queue, NULL};
