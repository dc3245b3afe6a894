/* RoceDscpMismatch: RoCEv2 data whose DSCP (or queue) is not the configured RoCE class, or CNPs not in
 * the CNP class, seen at the first hop (where the source's marking enters the fabric); placed at that
 * hop's ingress port (the port facing the source host) and the queue the traffic landed in; resolved
 * after dscp_clear_ns without a mismatch. */
#include "an_internal.h"

#define CNP_OPCODE 0x81

static void record(struct hw_analyzer *a, struct an_queue *q, const struct hw_record *r)
{
	if ((r->valid & (HW_V_ROCE | HW_V_TCLASS)) != (HW_V_ROCE | HW_V_TCLASS) || r->hop_index != 0)
		return;
	int cnp = r->roce_opcode == CNP_OPCODE;
	unsigned want = cnp ? a->c.cnp_dscp : a->c.roce_dscp;
	int want_q = cnp ? a->c.cnp_queue : a->c.roce_queue;
	int bad_q = want_q >= 0 && (r->valid & HW_V_QUEUE) && r->queue_id != want_q;
	if (r->dscp == want && !bad_q)
		return;
	q->dscp_last = r->time_ns;
	q->dscp_bad++;
	if (q->h_dscp.active)
		return;
	q->dscp_seen = r->dscp;
	q->dscp_port = (r->valid & HW_V_PORTS) ? r->ingress_port : UINT32_MAX;
	q->dscp_want = (uint8_t)want;
	q->h_dscp.start_ns = r->time_ns;
	q->h_dscp.active = 1;
	q->dscp_bad = 1;
	q->h_dscp.id = a->next_id++;
	struct an_ev *e = an_ev_begin(a, HW_AN_DSCP_MISMATCH, NULL, q->h_dscp.id, r->time_ns);
	an_ev_place(e, q->node_id, q->dscp_port, q->queue);
	an_ev_num(e, "dscp", r->dscp);
	an_ev_num(e, "expected_dscp", want);
	an_ev_num(e, "expected_queue", want_q);
	if (r->valid & HW_V_FLOW)
		an_ev_flow(e, r->flow_hash);
	an_ev_detail(e, "%s with DSCP %u in queue %u, expected DSCP %u%s", cnp ? "CNP" : "RoCEv2 data", r->dscp,
	             r->queue_id, want, want_q >= 0 ? " and its queue" : "");
	an_ev_commit(e);
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->h_dscp.active && now - q->dscp_last >= a->c.dscp_clear_ns) {
		q->h_dscp.active = 0;
		struct an_ev *e = an_ev_begin(a, HW_AN_DSCP_MISMATCH, q, q->h_dscp.id, q->h_dscp.start_ns);
		an_ev_place(e, q->node_id, q->dscp_port, q->queue);
		an_ev_resolved(e, now);
		an_ev_num(e, "mismatched", q->dscp_bad);
		an_ev_num(e, "dscp", q->dscp_seen);
		an_ev_commit(e);
	}
}

const struct an_detector an_detect_dscp = {HW_AN_DSCP_MISMATCH, record, NULL, tick_queue, NULL};
