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
	char detail[128];
	snprintf(detail, sizeof(detail), "%s with DSCP %u in queue %u, expected DSCP %u%s", cnp ? "CNP" : "RoCEv2 data",
	         r->dscp, r->queue_id, want, want_q >= 0 ? " and its queue" : "");
	struct an_num nums[] = {{"dscp", r->dscp}, {"expected_dscp", want}, {"expected_queue", want_q}};
	uint64_t flow = r->flow_hash;
	q->h_dscp.id = a->next_id++;
	an_emit(a, HW_AN_DSCP_MISMATCH, NULL, q->node_id, q->dscp_port, q->queue, q->h_dscp.id, r->time_ns, 0, 0, nums,
	        3, &flow, (r->valid & HW_V_FLOW) ? 1 : 0, detail);
}

static void tick_queue(struct hw_analyzer *a, struct an_queue *q, uint64_t now)
{
	if (q->h_dscp.active && now - q->dscp_last >= a->c.dscp_clear_ns) {
		struct an_num nums[] = {{"mismatched", q->dscp_bad}, {"dscp", q->dscp_seen}};
		q->h_dscp.active = 0;
		an_emit(a, HW_AN_DSCP_MISMATCH, NULL, q->node_id, q->dscp_port, q->queue, q->h_dscp.id,
		        q->h_dscp.start_ns, now, 1, nums, 2, q->flows, q->n_flows, NULL);
	}
}

const struct an_detector an_detect_dscp = {HW_AN_DSCP_MISMATCH, record, NULL, tick_queue, NULL};
