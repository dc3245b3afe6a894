/* QueueStall (a demonstration plug-in): a queue whose occupancy stays the same non-zero value for
 * queue_stall.stall_ns of record time (a port that stopped draining); resolved when it changes. */
#include "detector.h"

struct stall_q { /* per queue */
	struct an_hyst h;
	uint64_t since; /* record time the occupancy last changed */
	uint32_t occ;
};

static void record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, const struct hw_record *r)
{
	struct stall_q *s = qs;
	(void)d;
	if (!(r->valid & HW_V_QUEUE))
		return;
	if (r->queue_occupancy != s->occ || !s->since) {
		s->occ = r->queue_occupancy;
		s->since = r->time_ns;
	}
	double stalled = s->occ ? (double)(r->time_ns - s->since) : 0;
	struct hw_an_hyst rule = {(double)a->c.stall_ns, (double)a->c.stall_ns, 0, 0};
	int st = an_hyst_step(&s->h, &rule, stalled, r->time_ns);
	if (!st)
		return;
	struct an_ev *e = st > 0 ? an_ev_raise_q(a, HW_AN_QUEUE_STALL, q, &s->h)
	                         : an_ev_clear_q(a, HW_AN_QUEUE_STALL, q, &s->h, r->time_ns);
	an_ev_num(e, "occupancy", s->occ);
	an_ev_commit(e);
}

static const struct an_hyst *episode(const void *qs)
{
	return &((const struct stall_q *)qs)->h;
}

static const struct an_key keys[] = {AN_KEY("queue_stall", "stall_ns", AN_U64, stall_ns)};

static void defaults(struct hw_an_config *c)
{
	c->stall_ns = 50000000;
}

const struct an_detector an_detect_queue_stall = {
    .name = "queue_stall",
    .kind = HW_AN_QUEUE_STALL,
    .keys = keys,
    .n_keys = 1,
    .defaults = defaults,
    .queue_size = sizeof(struct stall_q),
    .record = record,
    .episode = episode,
};
