/* Incidents: one per root cause.  A congestion event at a queue belongs to the incident of its congestion
 * tree's root (the queue itself when it is no tree's victim); a raise of the same kind at the same queue
 * within that incident keeps the previous raise's id, so the alert is updated instead of raised again; what
 * another detector finds at a queue whose alert covers it is an update of that alert (an_ev_update_q). */
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

uint64_t an_incident_of(struct hw_analyzer *a, uint32_t qi, uint64_t now)
{
	struct an_queue *q = &a->queues[qi], *root = &a->queues[an_tree_root(a, qi, now)];
	if (!open_at(a, root, now)) {
		/* a victim's own open incident joins its root when the root has none yet */
		root->incident = root != q && open_at(a, q, now) ? q->incident : a->next_id++;
	}
	root->incident_ns = now;
	q->incident = root->incident;
	q->incident_ns = now;
	return root->incident;
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

struct an_ev *an_ev_update_q(struct hw_analyzer *a, enum hw_an_kind kind, const struct an_queue *q,
                             const struct an_hyst *h)
{
	struct an_ev *ev = an_ev_begin(a, kind, q, h->id, h->start_ns);
	ev->e.incident = q->kind_incident[kind];
	ev->update = 1;
	ev->e.update = 1;
	return ev;
}
