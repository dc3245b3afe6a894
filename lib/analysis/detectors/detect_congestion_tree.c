/* CongestionTree: congestion spreading upstream (PFC back-pressure, head-of-line blocking).  A report whose
 * path crosses a queue in a HighQueue episode makes the most downstream such queue the root, unless that
 * queue is itself upstream of another congested one (then it is a victim, and the root is further down):
 * recent reports showed it upstream of a queue in a HighQueue episode, or its link leads to a switch with a
 * queue of the same class in one (the switch whose buffers pause it).  The upstream hops where the reported packet
 * found a congested queue (occupancy at least congestion_tree.victim_occupancy, default high_queue.clear, or in a
 * HighQueue episode) are the root's victims; tree_victims distinct victims raise one event at the root naming them.
 * Resolved when the root's HighQueue episode ends.  Uses HighQueue's state, so it needs that detector on. */
#include <stdio.h>

#include "an_internal.h"

#define MAX_HOPS_DOWN 4 /* victim -> root links followed to find the root */

static void add_victim(struct an_queue *root, uint32_t v)
{
	for (unsigned i = 0; i < root->n_victims; i++)
		if (root->victims[i] == v)
			return;
	if (root->n_victims < AN_VICTIMS)
		root->victims[root->n_victims++] = v;
}

static int upstream_of_congestion(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	return q->down_ns && now - q->down_ns <= a->c.high_queue.clear_ns &&
	       q->down_root != (uint32_t)(q - a->queues) && a->queues[q->down_root].h_queue.active;
}

/* Queue index ri is congested; follow "upstream of a congested queue" links while they are fresh. */
static uint32_t root_of(const struct hw_analyzer *a, uint32_t ri, uint64_t now)
{
	for (int i = 0; i < MAX_HOPS_DOWN; i++) {
		if (!upstream_of_congestion(a, &a->queues[ri], now))
			break;
		ri = a->queues[ri].down_root;
	}
	return ri;
}

static double victim_level(const struct hw_analyzer *a)
{
	return a->c.tree_victim_occupancy > 0 ? a->c.tree_victim_occupancy : a->c.high_queue.clear;
}

/* With a topology: a queue of the same class on the switch at the other end of queue ri's link (the one
 * whose ingress buffers pause ri) that is in a HighQueue episode (or, with any, at least at the victim
 * level); the one with a tree, else the fullest.  UINT32_MAX when none. */
static uint32_t downstream(const struct hw_analyzer *a, uint32_t ri, int any)
{
	const struct an_queue *r = &a->queues[ri];
	if (!a->topo || !r->placed)
		return UINT32_MAX;
	uint32_t peer = hw_topo_peer(a->topo, r->topo_port), best = UINT32_MAX;
	if (peer == HW_TOPO_NONE)
		return UINT32_MAX;
	uint32_t node = a->topo->ports[peer].node;
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct an_queue *q = &a->queues[i];
		if (i == ri || !q->placed || q->queue != r->queue || a->topo->ports[q->topo_port].node != node ||
		    !(q->h_queue.active || (any && q->last_occ >= victim_level(a))))
			continue;
		if (best == UINT32_MAX || (q->h_tree.active && !a->queues[best].h_tree.active) ||
		    (q->h_tree.active == a->queues[best].h_tree.active && q->last_occ > a->queues[best].last_occ))
			best = i;
	}
	return best;
}

int an_tree_victim(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	return upstream_of_congestion(a, q, now) || downstream(a, (uint32_t)(q - a->queues), 1) != UINT32_MAX;
}

/* Queue ri has enough victims to be a root: unless it is paused from downstream, where they go instead. */
static uint32_t settle_root(struct hw_analyzer *a, uint32_t ri, uint64_t now)
{
	for (int i = 0; i < MAX_HOPS_DOWN; i++) {
		uint32_t d = downstream(a, ri, 0);
		if (d == UINT32_MAX)
			break;
		struct an_queue *r = &a->queues[ri], *dq = &a->queues[d];
		for (unsigned v = 0; v < r->n_victims; v++)
			if (r->victims[v] != d)
				add_victim(dq, r->victims[v]);
		add_victim(dq, ri);
		r->n_victims = 0;
		r->down_ns = now;
		r->down_root = d;
		ri = d;
	}
	return ri;
}

static void raise_tree(struct hw_analyzer *a, struct an_queue *r, uint64_t now)
{
	char detail[256], name[96];
	an_queue_name(a, r, name, sizeof(name));
	size_t off = (size_t)snprintf(detail, sizeof(detail), "root %s, victims", name);
	for (unsigned i = 0; i < r->n_victims && off < sizeof(detail); i++) {
		an_queue_name(a, &a->queues[r->victims[i]], name, sizeof(name));
		off += (size_t)snprintf(detail + off, sizeof(detail) - off, " %s", name);
	}
	r->h_tree.active = 1;
	r->h_tree.start_ns = now;
	struct an_ev *e = an_ev_raise_q(a, HW_AN_CONGESTION_TREE, r, &r->h_tree);
	an_ev_num(e, "victims", r->n_victims);
	an_ev_num(e, "root_occupancy", r->last_occ);
	an_ev_detail(e, "%s", detail);
	an_ev_commit(e);
}

static void report(struct hw_analyzer *a, const struct an_report *rep)
{
	if (!an_enabled(a, HW_AN_HIGH_QUEUE) || rep->n_hops < 2)
		return;
	int hop = -1; /* the most downstream hop in a HighQueue episode, still above its clear level */
	for (int h = rep->n_hops - 1; h >= 0 && hop < 0; h--)
		if (rep->qidx[h] && a->queues[rep->qidx[h] - 1].h_queue.active &&
		    (rep->occ[h] == UINT32_MAX || rep->occ[h] >= a->c.high_queue.clear))
			hop = h;
	if (hop < 1)
		return;
	uint32_t first = rep->qidx[hop] - 1, ri = root_of(a, first, rep->time_ns);
	struct an_queue *r = &a->queues[ri];
	if (ri != first)
		add_victim(r, first);
	double level = victim_level(a);
	for (int h = 0; h < hop; h++) {
		uint32_t v = rep->qidx[h];
		if (!v || v - 1 == ri)
			continue;
		struct an_queue *q = &a->queues[v - 1];
		q->down_ns = rep->time_ns;
		q->down_root = ri;
		if ((rep->occ[h] != UINT32_MAX && rep->occ[h] >= level) || q->h_queue.active)
			add_victim(r, v - 1);
	}
	if (r->h_tree.active || r->n_victims < a->c.tree_victims)
		return;
	r = &a->queues[settle_root(a, ri, rep->time_ns)];
	if (!r->h_tree.active && r->n_victims >= a->c.tree_victims)
		raise_tree(a, r, rep->time_ns);
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->h_queue.active)
		return;
	if (q->h_tree.active) {
		struct an_ev *e = an_ev_clear_q(a, HW_AN_CONGESTION_TREE, q, &q->h_tree, now);
		an_ev_num(e, "victims", q->n_victims);
		an_ev_commit(e);
	}
	q->n_victims = 0;
}

const struct an_detector an_detect_congestion_tree = {HW_AN_CONGESTION_TREE, NULL, report, tick_queue, NULL};
