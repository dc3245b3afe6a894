/* CongestionTree: congestion spreading upstream (PFC back-pressure, head-of-line blocking).  A report whose
 * path crosses a queue in a HighQueue episode makes the most downstream such queue the root, unless that
 * queue is itself upstream of another congested one (then it is a victim, and the root is further down):
 * recent reports showed it upstream of a queue in a HighQueue episode, or its link leads to a switch with a
 * queue of the same class in one (the switch whose buffers pause it).  The upstream hops where the reported packet
 * found a congested queue (occupancy at least congestion_tree.victim_occupancy, default its HighQueue clear level, or
 * in a HighQueue episode) are the root's victims; tree_victims distinct victims raise one event at the root naming
 * them, and victims gathered later update it (at the next tick, naming them all). Without any report of two hops or
 * more (TR v0.5 postcards), the topology alone links victims to roots (tick); with the topology, a host's port that no
 * report's path crosses (a stalled host) takes the paused links into its switch, and when too few, the paused links one
 * switch further up, as its victims (host_roots). Lossless queues only: PFC pauses a lossless queue's senders, a lossy
 * queue drops and is never paused, so it is neither a root nor a victim.  Resolved when the root's HighQueue episode
 * ends.  At a root with an Incast firing, the tree is that Incast's victims: an update of the Incast alert instead of
 * an alert of its own (raised as its own if the tree outlasts the Incast: at the next tick, or at once when the Incast
 * ends as the queue freezes, an_tree_unfold).  Whether a queue is a victim (an_tree_victim, asked by the other
 * detectors) is a query of the state alone, the same whichever detector asks.  Uses HighQueue's state, so it needs that
 * detector on. */
#include <stdio.h>

#include "detector.h"

#define MAX_HOPS_DOWN 4 /* victim -> root links followed to find the root */
#define PAUSE_HOPS 3    /* links followed downstream, at most, when asking whether a queue is paused */
#define MAX_VICTIMS 8   /* upstream congested queues remembered per root */

struct tree_q { /* per queue: this queue as a root, the congested queues upstream of it on shared paths */
	struct an_hyst h;
	uint32_t victims[MAX_VICTIMS]; /* queue indices */
	uint8_t n_victims;
	uint64_t down_ns;    /* last report that showed this queue upstream of a queue in a HighQueue episode */
	uint32_t down_root;  /* ... that queue (index): while it stays congested, this one is not a root */
	uint8_t folded;      /* its tree went into the Incast at this queue (an update of it), not raised itself */
	uint8_t n_named;     /* victims its alert names (the raise, then each update as the tree grew) */
	uint32_t next_node;  /* node id of the hop after it on the newest report path through it (0: none): where its
	                        link leads when the topology knows its port but no link (a map without LLDP) */
	uint64_t crossed_ns; /* the newest report whose path crossed it: packets left it then */
};

/* Queue index i's tree state, and whether it is in a HighQueue episode. */
static struct tree_q *tq(const struct hw_analyzer *a, const struct an_det *d, uint32_t i)
{
	return an_qstate(a, d, &a->queues[i]);
}

static int high(const struct hw_analyzer *a, uint32_t i)
{
	const struct an_hyst *h = an_episode(a, HW_AN_HIGH_QUEUE, &a->queues[i]);
	return h && h->active;
}

static void add_victim(struct tree_q *root, uint32_t v)
{
	for (unsigned i = 0; i < root->n_victims; i++)
		if (root->victims[i] == v)
			return;
	if (root->n_victims < MAX_VICTIMS)
		root->victims[root->n_victims++] = v;
}

static int upstream_of_congestion(const struct hw_analyzer *a, const struct an_det *d, uint32_t qi, uint64_t now)
{
	const struct tree_q *q = tq(a, d, qi);
	return q->down_ns && now - q->down_ns <= a->c.high_queue.clear_ns && q->down_root != qi &&
	       high(a, q->down_root);
}

/* Queue index ri is congested; follow "upstream of a congested queue" links while they are fresh. */
static uint32_t root_of(const struct hw_analyzer *a, const struct an_det *d, uint32_t ri, uint64_t now)
{
	for (int i = 0; i < MAX_HOPS_DOWN; i++) {
		if (!upstream_of_congestion(a, d, ri, now))
			break;
		ri = tq(a, d, ri)->down_root;
	}
	return ri;
}

static double victim_level(const struct hw_analyzer *a, const struct an_queue *q)
{
	return a->c.tree_victim_occupancy > 0 ? a->c.tree_victim_occupancy : q->th.clear;
}

/* Queue q is a victim's fill now: lossless, its newest record at most high_queue.clear_ns old and at or above its
 * victim level. */
static int at_victim_level(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	return q->th.lossless && now >= q->last_ns && now - q->last_ns <= a->c.high_queue.clear_ns &&
	       q->last_occ >= victim_level(a, q);
}

/* The switch at the other end of queue ri's link, or, its port known without a link (a map without LLDP), the
 * switch the report paths through it go to next: the one whose ingress buffers pause ri.  Its queues are
 * an_node_first(a, *by, *at) on (an_nodes.c); 0 when there is none. */
static int down_switch(const struct hw_analyzer *a, const struct an_det *d, uint32_t ri, enum an_node_kind *by,
                       uint32_t *at)
{
	const struct an_queue *r = &a->queues[ri];
	if (!a->topo || !r->placed)
		return 0;
	uint32_t peer = hw_topo_peer(a->topo, r->topo_port);
	if (peer != HW_TOPO_NONE) {
		*by = AN_NODE_TOPO;
		*at = a->topo->ports[peer].node;
		return 1;
	}
	*by = AN_NODE_ID;
	*at = tq(a, d, ri)->next_node;
	return *at != 0;
}

/* With a topology: the queue of ri's class on the switch downstream of it (down_switch) in a HighQueue episode;
 * the one with a tree, else the fullest.  UINT32_MAX when none. */
static uint32_t downstream(const struct hw_analyzer *a, const struct an_det *d, uint32_t ri)
{
	enum an_node_kind by;
	uint32_t at, best = UINT32_MAX;
	if (!down_switch(a, d, ri, &by, &at))
		return UINT32_MAX;
	const struct an_queue *r = &a->queues[ri];
	for (uint32_t v = an_node_first(a, by, at); v; v = an_node_next(a, by, v - 1)) {
		const uint32_t i = v - 1;
		const struct an_queue *q = &a->queues[i];
		if (i == ri || q->queue != r->queue || !high(a, i))
			continue;
		uint8_t tree = tq(a, d, i)->h.active;
		if (best == UINT32_MAX || (tree && !tq(a, d, best)->h.active) ||
		    (tree == tq(a, d, best)->h.active && q->last_occ > a->queues[best].last_occ))
			best = i;
	}
	return best;
}

static int victim_at(const struct hw_analyzer *a, const struct an_det *d, uint32_t qi, uint64_t now, int hops);

/* Whether a queue of ri's class on the switch downstream of it pauses it: in a HighQueue episode or at least at
 * the victim level, or else (hops > 1) paused from downstream itself, one link further (the pause spreads hop by
 * hop; the costly test, so only when no queue there pauses ri by its own state). */
static int paused_from_down(const struct hw_analyzer *a, const struct an_det *d, uint32_t ri, uint64_t now, int hops)
{
	enum an_node_kind by;
	uint32_t at;
	if (!down_switch(a, d, ri, &by, &at))
		return 0;
	const struct an_queue *r = &a->queues[ri];
	for (int further = 0; further < (hops > 1 ? 2 : 1); further++)
		for (uint32_t v = an_node_first(a, by, at); v; v = an_node_next(a, by, v - 1)) {
			const uint32_t i = v - 1;
			const struct an_queue *q = &a->queues[i];
			if (i == ri || q->queue != r->queue)
				continue;
			if (further ? victim_at(a, d, i, now, hops - 1)
			            : high(a, i) || q->last_occ >= victim_level(a, q))
				return 1;
		}
	return 0;
}

/* Queue qi paused from downstream at now, following hops links at most.  A query of the state alone: it marks
 * nothing, so the answer does not depend on which detector asked before. */
static int victim_at(const struct hw_analyzer *a, const struct an_det *d, uint32_t qi, uint64_t now, int hops)
{
	if (!a->queues[qi].th.lossless)
		return 0; /* a lossy queue drops instead of pausing its senders: no one pauses it either */
	return upstream_of_congestion(a, d, qi, now) || paused_from_down(a, d, qi, now, hops);
}

int an_tree_victim(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	const struct an_det *d = an_det_of(a, HW_AN_CONGESTION_TREE);
	return d && victim_at(a, d, (uint32_t)(q - a->queues), now, PAUSE_HOPS);
}

uint32_t an_tree_root(const struct hw_analyzer *a, uint32_t qi, uint64_t now)
{
	const struct an_det *d = an_det_of(a, HW_AN_CONGESTION_TREE);
	if (!d || !a->queues[qi].th.lossless)
		return qi;
	uint32_t r = root_of(a, d, qi, now);
	if (r == qi) { /* paused by a congested queue on the switch its link leads to */
		uint32_t di = downstream(a, d, qi);
		if (di != UINT32_MAX)
			r = root_of(a, d, di, now);
	}
	return r;
}

/* Queue ri has enough victims to be a root: unless it is paused from downstream, where they go instead. */
static uint32_t settle_root(struct hw_analyzer *a, const struct an_det *d, uint32_t ri, uint64_t now)
{
	for (int i = 0; i < MAX_HOPS_DOWN; i++) {
		uint32_t di = downstream(a, d, ri);
		if (di == UINT32_MAX)
			break;
		struct tree_q *r = tq(a, d, ri), *dq = tq(a, d, di);
		for (unsigned v = 0; v < r->n_victims; v++)
			if (r->victims[v] != di)
				add_victim(dq, r->victims[v]);
		add_victim(dq, ri);
		an_tick_arm(d, di);
		r->n_victims = 0;
		r->down_ns = now;
		r->down_root = di;
		ri = di;
	}
	return ri;
}

/* The tree's numbers and detail (root, victims) on event e, and commit it: its alert names its victims now. */
static void name_victims(struct hw_analyzer *a, struct tree_q *r, const struct an_queue *q, struct an_ev *e)
{
	char detail[256], name[96];
	an_queue_name(a, q, name, sizeof(name));
	size_t off = (size_t)snprintf(detail, sizeof(detail), "root %s, victims", name);
	for (unsigned i = 0; i < r->n_victims && off < sizeof(detail); i++) {
		an_queue_name(a, &a->queues[r->victims[i]], name, sizeof(name));
		off += (size_t)snprintf(detail + off, sizeof(detail) - off, " %s", name);
	}
	an_ev_num(e, "victims", r->n_victims);
	an_ev_num(e, "root_occupancy", q->last_occ);
	an_ev_detail(e, "%s", detail);
	an_ev_commit(e);
	r->n_named = r->n_victims;
}

static void raise_tree(struct hw_analyzer *a, const struct an_det *d, uint32_t ri, uint64_t now)
{
	const struct an_queue *q = &a->queues[ri];
	struct tree_q *r = tq(a, d, ri);
	const struct an_hyst *inc = an_episode(a, HW_AN_INCAST, q);
	/* an Incast firing at the root: the tree is its victims, an update of that alert (same kind and id) */
	int fold = inc && inc->active && inc->id;
	r->h.active = 1;
	an_tick_arm(d, ri);
	r->h.start_ns = now;
	r->folded = (uint8_t)fold;
	name_victims(a, r, q,
	             fold ? an_ev_update_q(a, HW_AN_INCAST, q, inc)
	                  : an_ev_raise_q(a, HW_AN_CONGESTION_TREE, q, &r->h));
}

/* A firing tree that gathered victims its alert does not name yet: an update of its alert (of the Incast it went
 * into, while that fires) naming them all, at most once a tick. */
static void name_new_victims(struct hw_analyzer *a, struct tree_q *r, const struct an_queue *q)
{
	if (!r->h.active || r->n_victims <= r->n_named)
		return;
	const struct an_hyst *inc = an_episode(a, HW_AN_INCAST, q);
	if (r->folded && !(inc && inc->active && inc->id))
		return; /* the Incast ended: outlasts raises the tree with them all */
	name_victims(a, r, q,
	             an_ev_update_q(a, r->folded ? HW_AN_INCAST : HW_AN_CONGESTION_TREE, q, r->folded ? inc : &r->h));
}

struct tree_state {
	uint8_t paths_seen; /* a report carried a path of two hops or more */
};

static void report(struct hw_analyzer *a, struct an_det *d, const struct an_report *rep)
{
	if (rep->n_hops >= 2)
		((struct tree_state *)d->state)->paths_seen = 1;
	/* a postcard without a tracked flow is a switch's own queue or drop report (an_core.c): at a frozen queue (a
	 * host that stopped draining) it keeps coming, and no packet left */
	const int own = (rep->flags & HW_RF_POSTCARD) && !(rep->flags & HW_RF_TRACKED_FLOW);
	for (int h = 0; h < rep->n_hops; h++) {
		if (!rep->qidx[h])
			continue;
		struct tree_q *t = tq(a, d, rep->qidx[h] - 1);
		if (!own || !an_queue_frozen(a, &a->queues[rep->qidx[h] - 1]))
			t->crossed_ns = rep->time_ns;
		if (h + 1 < rep->n_hops && rep->qidx[h + 1]) /* where its link leads, for a topology without links */
			t->next_node = a->queues[rep->qidx[h + 1] - 1].node_id;
	}
	if (!an_enabled(a, HW_AN_HIGH_QUEUE) || rep->n_hops < 2)
		return;
	int hop = -1; /* the most downstream lossless hop in a HighQueue episode, still above its clear level */
	for (int h = rep->n_hops - 1; h >= 0 && hop < 0; h--)
		if (rep->qidx[h] && a->queues[rep->qidx[h] - 1].th.lossless && high(a, rep->qidx[h] - 1) &&
		    (rep->occ[h] == UINT32_MAX || rep->occ[h] >= a->queues[rep->qidx[h] - 1].th.clear))
			hop = h;
	if (hop < 1)
		return;
	uint32_t first = rep->qidx[hop] - 1, ri = root_of(a, d, first, rep->time_ns);
	struct tree_q *r = tq(a, d, ri);
	an_tick_arm(d, ri); /* it may gain victims */
	if (ri != first)
		add_victim(r, first);
	for (int h = 0; h < hop; h++) {
		uint32_t v = rep->qidx[h];
		if (!v || v - 1 == ri || !a->queues[v - 1].th.lossless)
			continue; /* a lossy queue is never paused */
		struct tree_q *q = tq(a, d, v - 1);
		q->down_ns = rep->time_ns;
		q->down_root = ri;
		if ((rep->occ[h] != UINT32_MAX && rep->occ[h] >= victim_level(a, &a->queues[v - 1])) || high(a, v - 1))
			add_victim(r, v - 1);
	}
	if (r->h.active || r->n_victims < a->c.tree_victims)
		return;
	ri = settle_root(a, d, ri, rep->time_ns);
	r = tq(a, d, ri);
	if (!r->h.active && r->n_victims >= a->c.tree_victims)
		raise_tree(a, d, ri, rep->time_ns);
}

/* The queues of class cls on the links into switch sw from other switches (but skip: a switch, or HW_TOPO_NONE) at
 * the victim level: r's victims. */
static void paused_into(struct hw_analyzer *a, struct tree_q *r, uint32_t sw, uint32_t skip, uint8_t cls, uint64_t now)
{
	const struct hw_topo *t = a->topo;
	for (uint32_t p = t->nodes[sw].first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
		const uint32_t up = hw_topo_peer(t, p);
		if (up == HW_TOPO_NONE || t->nodes[t->ports[up].node].tier == HW_TIER_HOST || t->ports[up].node == skip)
			continue;
		for (uint32_t v = an_node_first(a, AN_NODE_TOPO, t->ports[up].node); v;
		     v = an_node_next(a, AN_NODE_TOPO, v - 1)) {
			const struct an_queue *u = &a->queues[v - 1];
			if (u->topo_port == up && u->queue == cls && at_victim_level(a, u, now))
				add_victim(r, v - 1);
		}
	}
}

/* A host's port that stopped draining (a PFC storm: the host pauses its leaf): nothing leaves its queue, so no
 * report's path crosses it and the reports never give it victims; and the queues paused on the links into its
 * switch may already be another root's (downstream() gives a victim to the root that has a tree).  So, once per
 * tick, with the topology: a lossless host-facing queue in a HighQueue episode that no report's path has crossed
 * since the episode began, or frozen (an_queue_frozen) and not crossed for high_queue.clear_ns (a queue that drains,
 * an incast's, gets its tree from the reports), not paused itself, without a tree, takes as its victims the queues
 * of its class on the links into its switch at the victim level (recent records), and when those are fewer than
 * tree_victims, the same on the links into those victims' switches (the pause one link further up): PFC pauses
 * those links for every congested queue of the class behind them. */
static void host_roots(struct hw_analyzer *a, struct an_det *d, uint32_t ri, uint64_t now)
{
	const struct hw_topo *t = a->topo;
	const struct an_queue *q = &a->queues[ri];
	if (!q->placed || !q->th.lossless)
		return;
	const uint32_t peer = hw_topo_peer(t, q->topo_port); /* host-facing: before the detectors' state is read */
	if (peer == HW_TOPO_NONE || t->nodes[t->ports[peer].node].tier != HW_TIER_HOST)
		return;
	struct tree_q *r = tq(a, d, ri);
	if (r->h.active || !high(a, ri) ||
	    (r->crossed_ns >= an_episode(a, HW_AN_HIGH_QUEUE, q)->start_ns &&
	     (now - r->crossed_ns < a->c.high_queue.clear_ns || !an_queue_frozen(a, q))))
		return; /* crossed since its episode began, and lately or it is not frozen: it drains */
	const uint32_t sw = t->ports[q->topo_port].node;
	paused_into(a, r, sw, HW_TOPO_NONE, q->queue, now);
	for (unsigned i = 0, n = r->n_victims; i < n && r->n_victims < a->c.tree_victims; i++)
		if (a->queues[r->victims[i]].placed) /* a report's victim may be unplaced: no switch to follow */
			paused_into(a, r, t->ports[a->queues[r->victims[i]].topo_port].node, sw, q->queue, now);
	if (r->n_victims)
		an_tick_arm(d, ri); /* tick_queue forgets them when the episode ends */
	if (r->n_victims >= a->c.tree_victims && !an_tree_victim(a, q, now))
		raise_tree(a, d, ri, now);
}

/* Without paths (TR v0.5 postcards: one hop per report), from the topology alone, once per tick: a queue
 * with recent records at its victim level whose link leads to a switch with a queue of its class in a
 * HighQueue episode is that queue's root's victim. */
static void tick(struct hw_analyzer *a, struct an_det *d, uint64_t now)
{
	if (!a->topo || !an_enabled(a, HW_AN_HIGH_QUEUE))
		return;
	for (uint32_t ri = 0; ri < a->n_queues; ri++)
		host_roots(a, d, ri, now);
	if (((struct tree_state *)d->state)->paths_seen)
		return;
	for (uint32_t v = 0; v < a->n_queues; v++) {
		const struct an_queue *q = &a->queues[v];
		if (!q->placed || !at_victim_level(a, q, now))
			continue;
		uint32_t di = downstream(a, d, v);
		if (di == UINT32_MAX)
			continue;
		uint32_t ri = root_of(a, d, di, now);
		if (ri == v)
			continue;
		tq(a, d, v)->down_ns = now;
		tq(a, d, v)->down_root = ri;
		add_victim(tq(a, d, ri), v);
		an_tick_arm(d, ri);
	}
	for (uint32_t ri = 0; ri < a->n_queues; ri++) {
		struct tree_q *r = tq(a, d, ri);
		if (r->h.active || r->n_victims < a->c.tree_victims || !high(a, ri) ||
		    an_tree_victim(a, &a->queues[ri], now))
			continue; /* a root is congested without being paused from downstream */
		uint32_t root = settle_root(a, d, ri, now);
		if (!tq(a, d, root)->h.active && tq(a, d, root)->n_victims >= a->c.tree_victims)
			raise_tree(a, d, root, now);
	}
}

/* Root qi, in a HighQueue episode: a tree that went into the Incast there outlasts it once that Incast has ended, and
 * goes on as its own alert; unless the queue is paused from downstream by then (a spine downlink whose fan-in ended
 * while a PFC storm behind it holds it): a victim now, of the root that pauses it, whose alert names it; its tree
 * ends with the Incast, as one whose queue drained does (tick_queue), and is raised again by the reports only when it
 * is a root again. */
static void outlasts(struct hw_analyzer *a, const struct an_det *d, uint32_t qi, uint64_t now)
{
	struct tree_q *t = tq(a, d, qi);
	const struct an_hyst *inc = an_episode(a, HW_AN_INCAST, &a->queues[qi]);
	if (!t->h.active || !t->folded || (inc && inc->active))
		return;
	if (victim_at(a, d, qi, now, PAUSE_HOPS)) {
		t->h.active = 0;
		t->folded = 0;
		return;
	}
	raise_tree(a, d, qi, now);
}

/* At the Incast's end, not at the next tick: by then an Incast raised again at the queue (the backlog the storm held,
 * draining) would keep the tree folded into it, and the storm would go without a tree of its own. */
void an_tree_unfold(struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	const struct an_det *d = an_det_of(a, HW_AN_CONGESTION_TREE);
	const uint32_t qi = (uint32_t)(q - a->queues);
	if (d && an_enabled(a, HW_AN_CONGESTION_TREE) && high(a, qi))
		outlasts(a, d, qi, now);
}

static void tick_queue(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	struct tree_q *t = qs;
	uint32_t qi = (uint32_t)(q - a->queues);
	if (high(a, qi)) {
		outlasts(a, d, qi, now);
		name_new_victims(a, t, q);
		return;
	}
	if (t->h.active && t->folded) {
		t->h.active = 0; /* never raised itself: the Incast's resolution covers it */
		t->folded = 0;
	} else if (t->h.active) {
		struct an_ev *e = an_ev_clear_q(a, HW_AN_CONGESTION_TREE, q, &t->h, now);
		an_ev_num(e, "victims", t->n_victims);
		an_ev_commit(e);
	}
	t->n_victims = 0;
}

/* tick_queue changes a queue only while it roots a tree or has victims (detector.h tick_armed): the hooks
 * that give it either (report, tick, through settle_root and raise_tree) arm it. */
static int tick_pending(const struct hw_analyzer *a, const struct an_queue *q, const void *qs)
{
	const struct tree_q *t = qs;
	(void)a;
	(void)q;
	return t->h.active || t->n_victims;
}
AN_TICK_ARMED(tick_queue, tick_pending)

/* A root's victims, for the graphs. */
static void queue_info(const struct hw_analyzer *a, const struct an_det *d, const void *qs,
                       struct hw_an_queue_info *out)
{
	const struct tree_q *t = qs;
	(void)a;
	(void)d;
	for (unsigned v = 0; v < t->n_victims && v < MAX_VICTIMS && out->n_victims < 8; v++)
		out->victims[out->n_victims++] = t->victims[v];
}

static const struct an_key keys[] = {
    AN_KEY("congestion_tree", "victims", AN_U32, tree_victims),
    AN_KEY("congestion_tree", "victim_occupancy", AN_DOUBLE, tree_victim_occupancy),
};

static void defaults(struct hw_an_config *c)
{
	c->tree_victims = 2;
	c->tree_victim_occupancy = 0; /* the queue's HighQueue clear level */
}

const struct an_detector an_detect_congestion_tree = {
    .name = "congestion_tree",
    .kind = HW_AN_CONGESTION_TREE,
    .congestion = 1,
    AN_KEYS(keys),
    .defaults = defaults,
    .queue_size = sizeof(struct tree_q),
    .report = report,
    .tick_queue = tick_queue,
    .tick_armed = tick_queue_armed,
    .tick = tick,
    .state_size = sizeof(struct tree_state),
    AN_EPISODE(struct tree_q, h),
    .queue_info = queue_info,
};
