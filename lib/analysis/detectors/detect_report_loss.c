/* TelemetryReportLoss: gaps in report_seq per (report_node, hw_id), counted as the collector counts them
 * (lib/facts: wrap, reorder window); lost / expected over tumbling seq_window_ns windows above seq_loss_ratio.
 * The raise starts at the window's first gap, not its start. */
#include "detector.h"

struct an_sender { /* one (report_node, hw_id): a slot of the sender table */
	uint32_t node;
	uint8_t hw_id, used;
	struct hw_seq_fact seq; /* highest number and reorder window (lib/facts) */
	uint64_t w_start, w_recv, w_lost, lost_total;
	uint64_t w_first_loss; /* the window's first gap (the raise's start: the first evidence) */
	struct an_hyst h;
};

/* The sender slots in use, a bit per slot (a slot is never freed): the tick walks those alone (a few dozen
 * senders in a 4,096-slot table); every slot when the table is larger than this (it is not). */
#define USED_SLOTS 4096
struct loss_state {
	uint64_t used[USED_SLOTS / 64];
};

static struct an_sender *sender_of(struct hw_analyzer *a, struct an_det *d, uint32_t node, uint8_t hw_id)
{
	struct an_sender *senders = d->senders;
	uint32_t h = (node * 2654435761u) ^ (hw_id * 97u);
	for (uint32_t i = 0; i <= a->smask; i++) {
		struct an_sender *s = &senders[(h + i) & a->smask];
		if (!s->used) {
			/* the table is kept at most 3/4 full: a lookup then ends at a free slot after a few probes.
			 * A full table walked every slot for each unknown sender's report (issue 22 item 12: 27x
			 * slower) and stopped tracking silently; now the rest are counted */
			if (a->n_senders >= (a->smask + 1) / 4 * 3) {
				a->st.senders_untracked++;
				return NULL;
			}
			s->used = 1;
			const uint32_t k = (h + i) & a->smask;
			if (k < USED_SLOTS)
				((struct loss_state *)d->state)->used[k / 64] |= (uint64_t)1 << (k % 64);
			s->node = node;
			s->hw_id = hw_id;
			a->n_senders++;
			return s;
		}
		if (s->node == node && s->hw_id == hw_id)
			return s;
	}
	return NULL;
}

/* The event of a sender's episode; it carries its hw_id (a node may report from several). */
static struct an_ev *sender_event(struct hw_analyzer *a, struct an_sender *s)
{
	struct an_ev *e = an_ev_begin(a, HW_AN_REPORT_LOSS, NULL, s->h.id, s->h.start_ns);
	an_ev_place(e, s->node, UINT32_MAX, -1);
	an_ev_hw_id(e, s->hw_id);
	return e;
}

static void close_window(struct hw_analyzer *a, struct an_sender *s, uint64_t now)
{
	uint64_t expected = s->w_recv + s->w_lost;
	double ratio = expected ? (double)s->w_lost / expected : 0;
	struct hw_an_hyst rule = {a->c.seq_loss_ratio, a->c.seq_loss_ratio, 0, 0};
	int st = an_hyst_step(&s->h, &rule, ratio > a->c.seq_loss_ratio ? ratio : 0,
	                      s->w_lost ? s->w_first_loss : s->w_start);
	if (st > 0)
		s->h.id = a->next_id++;
	if (st) {
		struct an_ev *e = sender_event(a, s);
		if (st < 0)
			an_ev_resolved(e, now);
		an_ev_num(e, "lost", s->w_lost);
		an_ev_num(e, "expected", expected);
		an_ev_num(e, "ratio", ratio);
		if (st > 0) {
			an_ev_num(e, "threshold", a->c.seq_loss_ratio);
			an_ev_num(e, "hw_id", s->hw_id);
		}
		an_ev_commit(e);
	}
	s->w_start = now;
	s->w_recv = s->w_lost = 0;
}

static void report(struct hw_analyzer *a, struct an_det *d, const struct an_report *rep)
{
	const unsigned bits = hw_seq_bits(rep->format);
	if (!bits)
		return; /* bare INT packets carry no report sequence number */
	struct an_sender *s = sender_of(a, d, rep->node, rep->hw_id);
	if (!s)
		return;
	const struct hw_seq_step st = hw_seq_update(&s->seq, rep->seq, hw_seq_mask(bits));
	if (st.kind == HW_SEQ_FIRST) {
		s->w_start = rep->time_ns;
		s->w_recv = 1;
		return;
	}
	if (rep->time_ns - s->w_start >= a->c.seq_window_ns)
		close_window(a, s, rep->time_ns);
	if (st.kind == HW_SEQ_NEXT) {
		if (!s->w_lost && st.lost)
			s->w_first_loss = rep->time_ns;
		s->w_lost += st.lost;
		s->lost_total += st.lost;
		s->w_recv++;
	} else if (st.recovered) { /* late, within the reorder window: one of the lost came after all */
		s->w_recv++;
		if (s->w_lost)
			s->w_lost--;
		if (s->lost_total)
			s->lost_total--;
	} /* a duplicate, or too late to tell (it stays lost) */
}

static void tick(struct hw_analyzer *a, struct an_det *d, uint64_t now)
{
	if (!a->n_senders)
		return;
	if (a->smask < USED_SLOTS) { /* the slots in use, in slot order: the same calls as walking all */
		const uint64_t *const used = ((const struct loss_state *)d->state)->used;
		for (uint32_t w = 0; w <= a->smask / 64; w++)
			for (uint64_t bits = used[w]; bits; bits &= bits - 1) {
				const uint32_t b = (uint32_t)__builtin_ctzll(bits);
				struct an_sender *s = &((struct an_sender *)d->senders)[w * 64 + b];
				if (s->used && s->seq.started &&
				    (now - s->w_start >= a->c.seq_window_ns || a->finishing) &&
				    (s->w_lost || s->h.active))
					close_window(a, s, now);
			}
		return;
	}
	for (uint32_t i = 0; i <= a->smask; i++) {
		struct an_sender *s = &((struct an_sender *)d->senders)[i];
		if (s->used && s->seq.started && (now - s->w_start >= a->c.seq_window_ns || a->finishing) &&
		    (s->w_lost || s->h.active))
			close_window(a, s, now);
	}
}

static void stats(const struct hw_analyzer *a, const struct an_det *d, struct hw_an_stats *st)
{
	const struct an_sender *senders = d->senders;
	for (uint32_t i = 0; i <= a->smask; i++)
		st->reports_lost += senders[i].lost_total;
}

static const struct an_key keys[] = {
    AN_KEY("report_loss", "ratio", AN_DOUBLE, seq_loss_ratio),
    AN_KEY("report_loss", "window_ns", AN_U64, seq_window_ns),
};

static void defaults(struct hw_an_config *c)
{
	c->seq_loss_ratio = 0.001;
	c->seq_window_ns = 100000000;
}

const struct an_detector an_detect_report_loss = {
    .name = "report_loss",
    .kind = HW_AN_REPORT_LOSS,
    AN_KEYS(keys),
    .defaults = defaults,
    .sender_size = sizeof(struct an_sender),
    .state_size = sizeof(struct loss_state),
    .report = report,
    .per_report = 1,
    .tick = tick,
    .stats = stats,
};
