/* The worker's per-packet path: parse into the current batch, account sequence numbers, queues and
 * flow paths, publish full batches.  No locks, no allocation and no system calls per packet. */
#include <sched.h>
#include <string.h>

#include "facts.h"
#include "worker.h"

int hw_worker_init(struct hw_worker *w, uint32_t id, const struct hw_parser_config *pcfg,
                   const struct hw_worker_sizes *sz, bool with_ring, bool backpressure)
{
	memset(w, 0, sizeof(*w));
	w->id = id;
	w->pcfg = *pcfg;
	w->has_ring = with_ring;
	w->backpressure = backpressure;
	if (hw_queue_table_init(&w->queues, sz->queues) || hw_seq_tracker_init(&w->seqs, sz->senders) ||
	    hw_flow_table_init(&w->flows, sz->flows) || (with_ring && hw_batch_ring_init(&w->ring, sz->ring_batches))) {
		hw_worker_free(w);
		return -1;
	}
	return 0;
}

void hw_worker_free(struct hw_worker *w)
{
	hw_queue_table_free(&w->queues);
	hw_seq_tracker_free(&w->seqs);
	hw_flow_table_free(&w->flows);
	if (w->has_ring)
		hw_batch_ring_free(&w->ring);
}

/* A batch to parse into: the current one, or a new ring slot (waiting or dropping when full). */
static struct hw_batch *current_batch(struct hw_worker *w)
{
	if (w->cur)
		return w->cur;
	for (;;) {
		w->cur = hw_batch_ring_slot(&w->ring);
		if (w->cur || !w->backpressure || (w->stop && *w->stop))
			break;
		sched_yield(); /* offline input: wait for the sink rather than lose records */
	}
	if (w->cur) {
		w->cur->n = 0;
		w->cur->worker = w->id;
	}
	return w->cur;
}

void hw_worker_flush(struct hw_worker *w)
{
	if (w->cur && w->cur->n) {
		hw_batch_ring_publish(&w->ring);
		w->cur = NULL;
	}
}

static enum hw_result parse_into(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t t,
                                 struct hw_parse_out *o, struct hw_batch **b)
{
	*b = NULL;
	if (!w->has_ring) {
		*o = (struct hw_parse_out){
		    .recs = w->scratch, .rec_cap = HW_BATCH_RECS, .reps = w->reps, .rep_cap = 256};
		return hw_parse_frame(&w->pcfg, frame, len, t, o);
	}
	struct hw_batch *cur = current_batch(w);
	if (!cur) { /* sink ring full: parse anyway (counters and state stay right), drop the records */
		*o = (struct hw_parse_out){
		    .recs = w->scratch, .rec_cap = HW_BATCH_RECS, .reps = w->reps, .rep_cap = 256};
		enum hw_result r = hw_parse_frame(&w->pcfg, frame, len, t, o);
		if (r == HW_OK)
			HW_ADD(w->cnt.sink_dropped, o->n_recs);
		return r;
	}
	*o = (struct hw_parse_out){
	    .recs = cur->recs + cur->n, .rec_cap = HW_BATCH_RECS - cur->n, .reps = w->reps, .rep_cap = 256};
	enum hw_result r = hw_parse_frame(&w->pcfg, frame, len, t, o);
	if (r == HW_E_TOO_MANY && cur->n) { /* no room left in this batch: start a new one */
		hw_worker_flush(w);
		return parse_into(w, frame, len, t, o, b);
	}
	if (r == HW_OK)
		*b = cur;
	return r;
}

void hw_worker_frame(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	struct hw_parse_out o;
	struct hw_batch *b;
	enum hw_result r = parse_into(w, frame, len, time_ns, &o, &b);
	HW_ADD(w->cnt.packets, 1);
	HW_ADD(w->cnt.by_result[r], 1);
	if (r != HW_OK)
		return;
	HW_ADD(w->cnt.reports, o.n_reps);
	HW_ADD(w->cnt.records, o.n_recs);

	for (uint32_t i = 0; i < o.n_reps; i++) /* the flow lookups come last: start their misses now */
		hw_flow_table_prefetch(&w->flows, o.recs[o.reps[i].first].flow_hash);
	for (uint32_t i = 0; i < o.n_reps; i++) {
		const struct hw_report *rep = &o.reps[i];
		/* Coalesced TR v2.0 reports share one packet sequence number: count it once. */
		if (!(i && rep->seq == o.reps[i - 1].seq && rep->node == o.reps[i - 1].node &&
		      rep->hw_id == o.reps[i - 1].hw_id))
			hw_seq_tracker_add(&w->seqs, rep->node, rep->hw_id, rep->seq, rep->seq_bits);
		const struct hw_record *recs = o.recs + rep->first;
		uint64_t sig = HW_PATH_SIG_SEED;
		for (uint32_t j = 0; j < rep->n_hops; j++) {
			hw_queue_table_add(&w->queues, &recs[j]);
			sig = hw_path_sig_step(sig, recs[j].node_id, recs[j].ingress_port, recs[j].egress_port);
		}
		/* Only the sink's report tells the whole path (lib/facts): drop and queue reports, and
		 * intermediate reports, stop where the packet was dropped or the queue was watched.  A Q+F
		 * report shorter than the flow's known path is such a report too (hw_path_report_use). */
		const bool has_flow = (recs[0].valid & HW_V_FLOW) != 0;
		if (hw_path_report_whole(rep->flags, rep->n_hops, has_flow) &&
		    hw_path_hops_have_ports(recs, rep->n_hops) &&
		    (!(rep->flags & HW_RF_CONGESTED_QUEUE) ||
		     hw_path_report_use(rep->flags, rep->n_hops, has_flow,
		                        hw_flow_table_hops(&w->flows, recs[0].flow_hash)) == HW_PATH_WHOLE) &&
		    hw_flow_table_update(&w->flows, recs[0].flow_hash, hw_path_sig_done(sig), rep->n_hops, time_ns))
			HW_ADD(w->cnt.path_changes, 1);
	}
	if (b) {
		b->n += o.n_recs;
		if (b->n > HW_BATCH_RECS - 64)
			hw_worker_flush(w);
	}
}
