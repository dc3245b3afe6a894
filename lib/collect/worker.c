/* The worker's per-packet path: parse into the current batch, account sequence numbers, queues and
 * flow paths, publish full batches.  No locks, no allocation and no system calls per packet. */
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

/* A batch to parse into: the current one, or a new ring slot (when full: lossless input waits for the sink, or
 * the analyzer on shm:, rather than lose records; other input drops). */
static struct hw_batch *current_batch(struct hw_worker *w)
{
	if (w->cur)
		return w->cur;
	w->cur = w->backpressure ? hw_batch_ring_slot_wait(&w->ring, w->stop, w->interrupt, &w->gave_up)
	                         : hw_batch_ring_slot(&w->ring);
	if (w->cur) {
		w->cur->n = 0;
		w->cur->worker = w->id;
	}
	return w->cur;
}

void hw_worker_flush(struct hw_worker *w)
{
	hw_worker_apply(w); /* the sink may read the records as soon as they are published */
	if (w->cur && w->cur->n) {
		hw_batch_ring_publish(&w->ring);
		w->cur = NULL;
	}
}

void hw_worker_idle(struct hw_worker *w)
{
	hw_worker_apply(w);
	if (w->cur && w->cur->n && !hw_batch_ring_waiting(&w->ring)) {
		hw_batch_ring_publish(&w->ring);
		w->cur = NULL;
	}
}

/* Parse into the scratch array behind the pending reports' records (applying them first if it is full).
 * Loops rather than recursing, so that the compiler inlines it into the per-frame path. */
static inline enum hw_result parse_scratch(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t t,
                                           struct hw_parse_out *o)
{
	for (;;) {
		*o = (struct hw_parse_out){.recs = w->scratch + w->scratch_n,
		                           .rec_cap = HW_BATCH_RECS - w->scratch_n,
		                           .reps = w->reps,
		                           .rep_cap = 256};
		enum hw_result r = hw_parse_frame(&w->pcfg, frame, len, t, o);
		if (r == HW_E_TOO_MANY && w->scratch_n) {
			hw_worker_apply(w);
			continue;
		}
		if (r == HW_OK)
			w->scratch_n += o->n_recs;
		return r;
	}
}

static inline enum hw_result parse_into(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t t,
                                        struct hw_parse_out *o, struct hw_batch **b)
{
	*b = NULL;
	if (!w->has_ring)
		return parse_scratch(w, frame, len, t, o);
	for (;;) {
		struct hw_batch *cur = current_batch(w);
		if (!cur) { /* sink ring full: parse anyway (counters and state stay right), drop the records */
			enum hw_result r = parse_scratch(w, frame, len, t, o);
			if (r == HW_OK)
				HW_ADD(w->cnt.sink_dropped, o->n_recs);
			return r;
		}
		*o = (struct hw_parse_out){
		    .recs = cur->recs + cur->n, .rec_cap = HW_BATCH_RECS - cur->n, .reps = w->reps, .rep_cap = 256};
		enum hw_result r = hw_parse_frame(&w->pcfg, frame, len, t, o);
		if (r == HW_E_TOO_MANY && cur->n) { /* no room left in this batch: start a new one */
			hw_worker_flush(w);
			continue;
		}
		if (r == HW_OK)
			*b = cur;
		return r;
	}
}

void hw_worker_stage(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	/* room for a frame's reports (rep_cap) and records (rec_cap <= HW_BATCH_RECS) */
	if (w->n_pending > HW_PENDING_REPORTS - 256 || w->n_qhops > HW_PENDING_HOPS - HW_BATCH_RECS)
		hw_worker_apply(w);
	struct hw_parse_out o;
	struct hw_batch *b;
	enum hw_result r = parse_into(w, frame, len, time_ns, &o, &b);
	HW_ADD(w->cnt.packets, 1);
	HW_ADD(w->cnt.by_result[r], 1);
	if (r != HW_OK)
		return;
	HW_ADD(w->cnt.reports, o.n_reps);
	HW_ADD(w->cnt.records, o.n_recs);
	/* The frame's hops' places in qhops, filled when they are prefetched (an apply above reset n_qhops). */
	const uint32_t hop_base = w->n_qhops;
	w->n_qhops = hop_base + o.n_recs;
	for (uint32_t i = 0; i < o.n_reps; i++) {
		const struct hw_report *rep = &o.reps[i];
		struct hw_pending_report *p = &w->pending[w->n_pending++];
		p->recs = o.recs + rep->first;
		p->time_ns = time_ns;
		p->rep = *rep;
		p->hop0 = hop_base + rep->first;
		/* Coalesced TR v2.0 reports share one packet sequence number: counted once. */
		p->same_packet = i && rep->seq == o.reps[i - 1].seq && rep->node == o.reps[i - 1].node &&
		                 rep->hw_id == o.reps[i - 1].hw_id;
	}
	if (b) {
		b->n += o.n_recs;
		if (b->n > HW_BATCH_RECS - 64)
			hw_worker_flush(w);
	}
}

/* Reports ahead of the one being applied whose queue index entries and flow chain heads are
 * prefetched, and (half as far) whose queue slot lines and flow entries are, the two steps of a bulk
 * lookup: about 8 x 5 hops + 4 x 5 hops x 3 lines in flight. */
#define PF_AHEAD 8

/* The prefetch helpers here and in queue_table.h and flow_table.h are always inlined: GCC 12 -O2 did not
 * inline the small header ones early, its pure-const pass then took a function whose only effect is a
 * prefetch for one without side effects, and deleted its calls: from round 5 on the binary had no
 * queue-slot or flow-entry prefetch at all (objdump of hw_worker_apply: two, the flow chain heads). */
#define PF_INLINE static inline __attribute__((always_inline))

/* Work out where each hop of p goes (kept in qhops for apply_one) and start loading the index entries;
 * with the hop's fields at hand, fold its path signature and whether it has ports, which apply_one
 * would otherwise read every record again for (lib/facts: hw_path_sig_step, hw_path_hops_have_ports). */
PF_INLINE void prefetch_slots(struct hw_worker *w, struct hw_pending_report *p)
{
	struct hw_queue_hop *h = w->qhops + p->hop0;
	const struct hw_record *r = p->recs;
	uint64_t sig = HW_PATH_SIG_SEED;
	uint32_t valid_all = HW_V_PORTS;
	for (uint32_t j = 0; j < p->rep.n_hops; j++) {
		h[j] = hw_queue_hop_of(&w->queues, &r[j]);
		hw_queue_table_prefetch(&w->queues, h[j]);
		sig = hw_path_sig_step(sig, r[j].node_id, r[j].ingress_port, r[j].egress_port);
		valid_all &= r[j].valid;
	}
	p->path_sig = hw_path_sig_done(sig);
	p->ports = valid_all != 0;
	hw_flow_table_prefetch(&w->flows, r[0].flow_hash);
}

/* The second step: the slots and flow entry those entries name. */
PF_INLINE void prefetch_entries(struct hw_worker *w, const struct hw_pending_report *p)
{
	const struct hw_queue_hop *h = w->qhops + p->hop0;
	for (uint32_t j = 0; j < p->rep.n_hops; j++)
		hw_queue_table_prefetch_slot(&w->queues, h[j]);
	hw_flow_table_prefetch_entry(&w->flows, p->recs[0].flow_hash);
}

static void apply_one(struct hw_worker *w, const struct hw_pending_report *p)
{
	const struct hw_report *rep = &p->rep;
	if (!p->same_packet)
		hw_seq_tracker_add(&w->seqs, rep->node, rep->hw_id, rep->seq, rep->seq_bits);
	const struct hw_record *recs = p->recs;
	const struct hw_queue_hop *h = w->qhops + p->hop0;
	for (uint32_t j = 0; j < rep->n_hops; j++)
		hw_queue_table_add_hop(&w->queues, &recs[j], h[j]);
	/* Only the sink's report tells the whole path (lib/facts): drop and queue reports, and
	 * intermediate reports, stop where the packet was dropped or the queue was watched.  A Q+F
	 * report shorter than the flow's known path is such a report too (hw_path_report_use). */
	const bool has_flow = (recs[0].valid & HW_V_FLOW) != 0;
	if (hw_path_report_whole(rep->flags, rep->n_hops, has_flow) && p->ports &&
	    (!(rep->flags & HW_RF_CONGESTED_QUEUE) ||
	     hw_path_report_use(rep->flags, rep->n_hops, has_flow, hw_flow_table_hops(&w->flows, recs[0].flow_hash)) ==
	         HW_PATH_WHOLE) &&
	    hw_flow_table_update(&w->flows, recs[0].flow_hash, p->path_sig, rep->n_hops, p->time_ns))
		HW_ADD(w->cnt.path_changes, 1);
}

void hw_worker_apply(struct hw_worker *w)
{
	const uint32_t n = w->n_pending;
	struct hw_pending_report *pend = w->pending;
	for (uint32_t i = 0; i < n && i < PF_AHEAD; i++)
		prefetch_slots(w, &pend[i]);
	for (uint32_t i = 0; i < n && i < PF_AHEAD / 2; i++)
		prefetch_entries(w, &pend[i]);
	for (uint32_t i = 0; i < n; i++) {
		if (i + PF_AHEAD < n)
			prefetch_slots(w, &pend[i + PF_AHEAD]);
		if (i + PF_AHEAD / 2 <
		    n) /* its index entries and chain head were prefetched PF_AHEAD / 2 reports ago */
			prefetch_entries(w, &pend[i + PF_AHEAD / 2]);
		apply_one(w, &pend[i]);
	}
	w->n_pending = 0;
	w->n_qhops = 0;
	w->scratch_n = 0;
}

void hw_worker_frame(struct hw_worker *w, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	hw_worker_stage(w, frame, len, time_ns);
	hw_worker_apply(w);
}
