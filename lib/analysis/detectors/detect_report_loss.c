/* TelemetryReportLoss: gaps in report_seq per (report_node, hw_id), counted as the collector counts them
 * (lib/facts: wrap, reorder window); lost / expected over tumbling seq_window_ns windows above seq_loss_ratio. */
#include "an_internal.h"

static struct an_sender *sender_of(struct hw_analyzer *a, uint32_t node, uint8_t hw_id)
{
	uint32_t h = (node * 2654435761u) ^ (hw_id * 97u);
	for (uint32_t i = 0; i <= a->smask; i++) {
		struct an_sender *s = &a->senders[(h + i) & a->smask];
		if (!s->used) {
			s->used = 1;
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

/* an_emit for a sender; the event carries its hw_id (a node may report from several). */
static void emit(struct hw_analyzer *a, struct an_sender *s, uint64_t end, int resolved, const struct an_num *nums,
                 unsigned n)
{
	a->emit_hw_id = s->hw_id;
	an_emit(a, HW_AN_REPORT_LOSS, NULL, s->node, UINT32_MAX, -1, s->h.id, s->h.start_ns, end, resolved, nums, n,
	        NULL, 0, NULL);
	a->emit_hw_id = -1;
}

static void close_window(struct hw_analyzer *a, struct an_sender *s, uint64_t now)
{
	uint64_t expected = s->w_recv + s->w_lost;
	double ratio = expected ? (double)s->w_lost / expected : 0;
	struct hw_an_hyst rule = {a->c.seq_loss_ratio, a->c.seq_loss_ratio, 0, 0};
	int st = an_hyst_step(&s->h, &rule, ratio > a->c.seq_loss_ratio ? ratio : 0, s->w_start);
	struct an_num nums[] = {{"lost", s->w_lost},
	                        {"expected", expected},
	                        {"ratio", ratio},
	                        {"threshold", a->c.seq_loss_ratio},
	                        {"hw_id", s->hw_id}};
	if (st > 0) {
		s->h.id = a->next_id++;
		emit(a, s, 0, 0, nums, 5);
	} else if (st < 0) {
		emit(a, s, now, 1, nums, 3);
	}
	s->w_start = now;
	s->w_recv = s->w_lost = 0;
}

static void report(struct hw_analyzer *a, const struct an_report *rep)
{
	const unsigned bits = hw_seq_bits(rep->format);
	if (!bits)
		return; /* bare INT packets carry no report sequence number */
	struct an_sender *s = sender_of(a, rep->node, rep->hw_id);
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

static void tick(struct hw_analyzer *a, uint64_t now)
{
	if (!a->n_senders)
		return;
	for (uint32_t i = 0; i <= a->smask; i++) {
		struct an_sender *s = &a->senders[i];
		if (s->used && s->seq.started && (now - s->w_start >= a->c.seq_window_ns || a->finishing) &&
		    (s->w_lost || s->h.active))
			close_window(a, s, now);
	}
}

const struct an_detector an_detect_report_loss = {HW_AN_REPORT_LOSS, NULL, report, NULL, tick};
