/* Incidents: one per root cause.  A congestion event at a queue belongs to the incident of its congestion
 * tree's root (the queue itself when it is no tree's victim); a raise of the same kind at the same queue
 * within that incident keeps the previous raise's id, so the alert is updated instead of raised again; what
 * another detector finds at a queue whose alert covers it is an update of that alert (an_ev_update_q).  A
 * tree's aftermath is its own too: the backlog its paused queues held bursts on when they let go, and the
 * symptoms it raises at queues whose recent flows are that backlog's, or, once the tree let go at its root, on a
 * switch whose queue it paused, join the tree's incident (an_incident_for); a burst there is an update of the
 * root's alert (an_incident_burst). */
#include <string.h>

#include "detector.h"

static const enum hw_an_kind episode_kinds[] = {HW_AN_HIGH_QUEUE, HW_AN_INCAST, HW_AN_CONGESTION_TREE,
                                                HW_AN_QUEUE_BUILDUP, HW_AN_HIGH_LATENCY};

/* Queue q's incident is still open at now: an episode of it is active, or its last event is at most
 * high_queue.clear_ns old. */
static int open_at(const struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	if (!q->incident)
		return 0;
	for (unsigned i = 0; i < sizeof(episode_kinds) / sizeof(episode_kinds[0]); i++) {
		const struct an_hyst *h = an_episode(a, episode_kinds[i], q);
		if (h && h->active)
			return 1;
	}
	return now < q->incident_ns || now - q->incident_ns <= a->c.high_queue.clear_ns;
}

/* An Incast or CongestionTree: a root cause, never an aftermath (a new root alerts as its own incident). */
static int root_kind(enum hw_an_kind kind)
{
	return kind == HW_AN_INCAST || kind == HW_AN_CONGESTION_TREE;
}

/* Time t is at most high_queue.clear_ns before now, or after it: now may be a time already past that a burst is
 * judged at (its last report, found silent at a later tick), and a queue's record since then is recent. */
static int recent(const struct hw_analyzer *a, uint64_t t, uint64_t now)
{
	return t >= now || now - t <= a->c.high_queue.clear_ns;
}

/* Queue v holds back traffic now: lossless, at or above its clear level in a record at most
 * high_queue.clear_ns old. */
static int holding(const struct hw_analyzer *a, const struct an_queue *v, uint64_t now)
{
	return v->th.lossless && v->last_occ >= v->th.clear && recent(a, v->last_ns, now);
}

static void held_add(struct an_held *h, const struct hw_analyzer *a, uint32_t vi, uint64_t now)
{
	const struct an_queue *v = &a->queues[vi];
	unsigned j = 0;
	while (j < h->n_queues && h->queues[j] != vi)
		j++;
	if (j == h->n_queues && h->n_queues < AN_HELD_QUEUES)
		h->queues[h->n_queues++] = vi;
	if (j < h->n_queues && holding(a, v, now))
		h->holding_ns[j] = now;
	for (unsigned i = 0; i < v->n_flows; i++) {
		unsigned k = 0;
		while (k < h->n_flows && h->flows[k] != v->flows[i])
			k++;
		if (k == h->n_flows && h->n_flows < AN_HELD_FLOWS)
			h->flows[h->n_flows++] = v->flows[i];
		if (k < h->n_flows)
			h->at[k] = vi; /* where it was held last */
	}
}

/* Queue v let its backlog go: below its HighQueue raise (PFC Xoff: no longer paused full) or quiet for
 * high_queue.clear_ns. */
static int released(const struct hw_analyzer *a, const struct an_queue *v, uint64_t now)
{
	return v->last_occ < v->th.high || !recent(a, v->last_ns, now);
}

/* Add to h the recent flows of the queues root qi's congestion tree holds now: the victims its detector
 * names, and every queue holding (a tree names at most 8 victims; PFC pauses many more) whose tree root
 * (an_tree_root) is qi.  Once per raise or resolve, not per record: a scan of the queues. */
static void held_take(const struct hw_analyzer *a, struct an_held *h, uint32_t qi, uint64_t now)
{
	const struct an_det *d = an_det_of(a, HW_AN_CONGESTION_TREE);
	struct hw_an_queue_info info;
	memset(&info, 0, sizeof(info));
	if (!d || !d->def->queue_info)
		return;
	d->def->queue_info(a, d, an_qstate(a, d, &a->queues[qi]), &info);
	for (unsigned v = 0; v < info.n_victims && v < 8; v++)
		held_add(h, a, info.victims[v], now);
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct an_queue *v = &a->queues[i];
		if (i != qi && v->n_flows && holding(a, v, now) && an_tree_root(a, i, now) == qi)
			held_add(h, a, i, now);
	}
}

void an_incident_held(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t incident, uint64_t now)
{
	if (!incident || !root_kind(kind))
		return;
	struct an_held *h = NULL;
	for (unsigned i = 0; i < AN_HELD && !h; i++)
		if (a->held[i].incident == incident && a->held[i].root == qi)
			h = &a->held[i];
	struct an_held fresh = {.incident = incident, .root = qi};
	held_take(a, h ? h : &fresh, qi, now);
	if (!h && fresh.n_flows) /* a tree with victims: remembered, the oldest one forgotten */
		a->held[a->held_next++ % AN_HELD] = fresh;
}

/* The incident of a tree that held at least a third of queue q's recent flows at queues that let them go
 * since (released), while the tree's root's incident is open (an episode there active, or its last
 * event at most high_queue.clear_ns old: the settle window after it ends); 0 when none.  That is the
 * tree's backlog bursting on; flows still held cannot be what congests q. */
static uint64_t held_by(struct hw_analyzer *a, const struct an_queue *q, uint64_t now)
{
	uint32_t qi = (uint32_t)(q - a->queues);
	for (unsigned i = 0; i < AN_HELD; i++) {
		struct an_held *h = &a->held[i];
		const struct an_queue *root = &a->queues[h->root];
		if (!h->incident || h->root == qi || root->incident != h->incident || !open_at(a, root, now))
			continue;
		held_take(a, h, h->root, now); /* what it holds now, while it lasts */
		unsigned n = 0, near = 0;
		for (unsigned f = 0; f < q->n_flows; f++)
			for (unsigned k = 0; k < h->n_flows; k++)
				n += h->flows[k] == q->flows[f] && h->at[k] != qi &&
				     released(a, &a->queues[h->at[k]], now);
		/* or the tree let go at its root (no longer holding: the storm is over) and had paused a queue of q's
		 * own switch that held traffic back at most high_queue.clear_ns ago and has let go since: that
		 * switch's hosts' NICs were paused too (PFC from its full ingress buffers), their traffic to q's host
		 * is held where no telemetry sees it, and bursts on into q when they resume.  While the root still
		 * holds, the tree has not let that backlog go (a tree that lasts lets go of some victim queue every
		 * few us as PFC pauses and resumes it): a burst at q then is q's own, not the tree's aftermath */
		for (unsigned k = 0; k < h->n_queues && !near && !holding(a, root, now); k++)
			near = h->queues[k] != qi && a->queues[h->queues[k]].node_id == q->node_id &&
			       h->holding_ns[k] && recent(a, h->holding_ns[k], now) &&
			       released(a, &a->queues[h->queues[k]], now);
		if ((n && 3 * n >= q->n_flows) || near)
			return h->incident;
	}
	return 0;
}

/* The alert of incident inc whose aftermath a queue is: the root of a tree of inc that held its flows (the first
 * such tree remembered), and that root's Incast of inc, else its CongestionTree of inc. */
static void follows_of(const struct hw_analyzer *a, uint64_t inc, struct an_follows *f)
{
	for (unsigned i = 0; i < AN_HELD; i++) {
		const struct an_held *h = &a->held[i];
		if (!inc || h->incident != inc)
			continue;
		const struct an_queue *c = &a->queues[h->root];
		enum hw_an_kind k = c->kind_incident[HW_AN_INCAST] == inc ? HW_AN_INCAST : HW_AN_CONGESTION_TREE;
		if (c->kind_incident[k] != inc)
			continue;
		*f = (struct an_follows){.queue = h->root + 1, .kind = k, .id = c->kind_id[k]};
		return;
	}
}

uint64_t an_incident_for(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t now,
                         struct an_follows *follows)
{
	struct an_queue *q = &a->queues[qi], *root = &a->queues[an_tree_root(a, qi, now)];
	int open = open_at(a, root, now);
	if (follows)
		follows->queue = 0;
	if (open && root->held_join && root_kind(kind)) {
		/* a new root at a queue of another tree's aftermath: an incident of its own, that follows that tree
		 * while it drains (the held traffic passing through); one that has not drained lately (its host
		 * stopped: a PFC storm) is a cause itself */
		open = 0;
		if (follows && an_queue_drains(a, root, now))
			follows_of(a, root->incident, follows);
	}
	if (!open) {
		uint64_t held = root == q && !root_kind(kind) ? held_by(a, q, now) : 0;
		/* a victim's own open incident joins its root when the root has none yet */
		root->incident = held ? held : root != q && open_at(a, q, now) ? q->incident : a->next_id++;
		root->held_join = held != 0;
	}
	root->incident_ns = now;
	q->incident = root->incident;
	q->incident_ns = now;
	return root->incident;
}

uint64_t an_incident_of(struct hw_analyzer *a, uint32_t qi, uint64_t now)
{
	return an_incident_for(a, HW_AN_MICROBURST, qi, now, NULL);
}

uint64_t an_incident_resolved(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t now)
{
	struct an_queue *q = &a->queues[qi];
	uint64_t inc = q->kind_incident[kind];
	if (inc && q->incident == inc && now > q->incident_ns)
		q->incident_ns = now;
	return inc;
}

uint64_t an_incident_raise_id(struct hw_analyzer *a, enum hw_an_kind kind, uint32_t qi, uint64_t incident)
{
	struct an_queue *q = &a->queues[qi];
	if (!incident || !q->kind_id[kind] || q->kind_incident[kind] != incident) {
		q->kind_id[kind] = a->next_id++;
		q->kind_incident[kind] = incident;
	}
	return q->kind_id[kind];
}

/* The alert a burst at qi in incident folds into (NULL: none; see an_incident_burst), its kind in *kind and the
 * tree's held flows in *hp. */
static const struct an_hyst *burst_alert(struct hw_analyzer *a, uint32_t qi, uint64_t incident, struct an_held **hp,
                                         enum hw_an_kind *kind)
{
	const struct an_queue *q = &a->queues[qi];
	if (!incident || !q->held_join || q->incident != incident)
		return NULL;
	struct an_held *h = NULL;
	for (unsigned i = 0; i < AN_HELD && !h; i++)
		if (a->held[i].incident == incident && a->held[i].root != qi)
			h = &a->held[i];
	if (!h)
		return NULL;
	const struct an_queue *root = &a->queues[h->root];
	static const enum hw_an_kind kinds[] = {HW_AN_CONGESTION_TREE, HW_AN_INCAST, HW_AN_HIGH_QUEUE};
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct an_hyst *e = an_episode(a, kinds[i], root);
		if (!e || !e->active || root->kind_incident[kinds[i]] != incident || root->kind_id[kinds[i]] != e->id)
			continue;
		*hp = h;
		*kind = kinds[i];
		return e;
	}
	return NULL;
}

int an_incident_burst_joins(struct hw_analyzer *a, uint32_t qi, uint64_t incident)
{
	struct an_held *h;
	enum hw_an_kind kind;
	return burst_alert(a, qi, incident, &h, &kind) != NULL;
}

int an_incident_burst(struct hw_analyzer *a, uint32_t qi, uint64_t incident, double peak)
{
	struct an_held *h;
	enum hw_an_kind kind;
	const struct an_hyst *e = burst_alert(a, qi, incident, &h, &kind);
	if (!e)
		return 0;
	h->bursts++;
	if (peak > h->burst_peak)
		h->burst_peak = peak;
	struct an_ev *ev = an_ev_update_q(a, kind, &a->queues[h->root], e);
	an_ev_num(ev, "aftermath_bursts", h->bursts);
	an_ev_num(ev, "aftermath_peak", h->burst_peak);
	an_ev_commit(ev);
	return 1;
}

struct an_ev *an_ev_update_q(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q,
                             const struct an_hyst *h)
{
	struct an_ev *ev = an_ev_begin(a, kind, q, h->id, h->start_ns);
	ev->e.incident = q->kind_incident[kind];
	an_incident_held(a, kind, (uint32_t)(q - a->queues), ev->e.incident, a->now);
	ev->update = 1;
	ev->e.update = 1;
	return ev;
}
