/* RoceDscpMismatch: RoCEv2 data whose DSCP (or queue) is not the configured RoCE class, or CNPs not in
 * the CNP class, seen at the first hop (where the source's marking enters the fabric; with a topology, on a port linked
 * to a host); placed at that hop's ingress port (the port facing the source host) and the queue the traffic landed in;
 * resolved after dscp_clear_ns without a mismatch. */
#include <stdio.h>

#include "detector.h"

struct dscp_q { /* per queue */
	struct an_hyst h;
	uint64_t last; /* latest mismatch */
	uint32_t bad;  /* mismatches in the episode */
	uint8_t seen, want;
	uint32_t port; /* ingress port of the first hop: the port facing the source */
};

#define CNP_OPCODE 0x81

/* Record r (hop 0 of its report's path) came into its switch from another switch, as the topology links its ingress
 * port: not where the source's marking enters the fabric.  TR v0.5 postcards are sampled by each switch on its own,
 * so a packet's path may be assembled without its first switches, and a receiver's leaf then reports it as hop 0.
 * 0 when the topology does not say (no topology, no ports, the port unplaced or not linked): hop 0 is trusted. */
static int from_fabric(const struct hw_analyzer *a, const struct an_queue *q, const struct hw_record *r)
{
	uint32_t tn, tp;
	if (!a->topo || !(r->valid & HW_V_PORTS) ||
	    hw_topo_place(a->topo, a->map, q->node_id, r->ingress_port, &tn, &tp) != HW_PLACE_OK)
		return 0;
	const uint32_t peer = hw_topo_peer(a->topo, tp);
	return peer != HW_TOPO_NONE && a->topo->nodes[a->topo->ports[peer].node].tier != HW_TIER_HOST;
}

static void record(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, const struct hw_record *r)
{
	struct dscp_q *m = qs;
	(void)d;
	if ((r->valid & (HW_V_ROCE | HW_V_TCLASS)) != (HW_V_ROCE | HW_V_TCLASS) || r->hop_index != 0)
		return;
	int cnp = r->roce_opcode == CNP_OPCODE;
	unsigned want = cnp ? a->c.cnp_dscp : a->c.roce_dscp;
	int want_q = cnp ? a->c.cnp_queue : a->c.roce_queue;
	int bad_q = want_q >= 0 && (r->valid & HW_V_QUEUE) && r->queue_id != want_q;
	if ((r->dscp == want && !bad_q) || from_fabric(a, q, r))
		return;
	m->last = r->time_ns;
	m->bad++;
	if (m->h.active)
		return;
	m->seen = r->dscp;
	m->port = (r->valid & HW_V_PORTS) ? r->ingress_port : UINT32_MAX;
	m->want = (uint8_t)want;
	m->h.start_ns = r->time_ns;
	m->h.active = 1;
	m->bad = 1;
	m->h.id = a->next_id++;
	struct an_ev *e = an_ev_begin(a, HW_AN_DSCP_MISMATCH, NULL, m->h.id, r->time_ns);
	an_ev_place(e, q->node_id, m->port, q->queue);
	an_ev_num(e, "dscp", r->dscp);
	an_ev_num(e, "expected_dscp", want);
	an_ev_num(e, "expected_queue", want_q);
	if (r->valid & HW_V_FLOW)
		an_ev_flow(e, r->flow_hash);
	an_ev_detail(e, "%s with DSCP %u in queue %u, expected DSCP %u%s", cnp ? "CNP" : "RoCEv2 data", r->dscp,
	             r->queue_id, want, want_q >= 0 ? " and its queue" : "");
	an_ev_commit(e);
}

static void tick_queue(struct hw_analyzer *a, struct an_det *d, struct an_queue *q, void *qs, uint64_t now)
{
	struct dscp_q *m = qs;
	(void)d;
	if (m->h.active && now - m->last >= a->c.dscp_clear_ns) {
		m->h.active = 0;
		struct an_ev *e = an_ev_begin(a, HW_AN_DSCP_MISMATCH, q, m->h.id, m->h.start_ns);
		an_ev_place(e, q->node_id, m->port, q->queue);
		an_ev_resolved(e, now);
		an_ev_num(e, "mismatched", m->bad);
		an_ev_num(e, "dscp", m->seen);
		an_ev_commit(e);
	}
}

/* tick_queue acts only on an open episode (detector.h tick_armed). */
static int tick_pending(const struct hw_analyzer *a, const struct an_queue *q, const void *qs)
{
	(void)a;
	(void)q;
	return ((const struct dscp_q *)qs)->h.active;
}
/* record's short way (detector.h AN_RECORD_ARMING): all but a RoCEv2 packet's first hop, which record ignores. */
static inline __attribute__((always_inline)) int brief(const struct hw_analyzer *a, const struct an_queue *q, void *qs,
                                                       const struct hw_record *r)
{
	(void)a;
	(void)q;
	(void)qs;
	return (r->valid & (HW_V_ROCE | HW_V_TCLASS)) != (HW_V_ROCE | HW_V_TCLASS) || r->hop_index != 0;
}
AN_RECORD_ARMING(record, tick_pending, brief)
AN_TICK_ARMED(tick_queue, tick_pending)

static const struct an_key keys[] = {
    AN_KEY("roce_dscp", "roce_dscp", AN_U8, roce_dscp),     AN_KEY("roce_dscp", "cnp_dscp", AN_U8, cnp_dscp),
    AN_KEY("roce_dscp", "roce_queue", AN_INT, roce_queue),  AN_KEY("roce_dscp", "cnp_queue", AN_INT, cnp_queue),
    AN_KEY("roce_dscp", "clear_ns", AN_U64, dscp_clear_ns),
};

static void defaults(struct hw_an_config *c)
{
	c->roce_dscp = 26;
	c->cnp_dscp = 48;
	c->roce_queue = 3;
	c->cnp_queue = 6;
	c->dscp_clear_ns = 100000000;
}

const struct an_detector an_detect_dscp = {
    .name = "roce_dscp",
    .kind = HW_AN_DSCP_MISMATCH,
    AN_KEYS(keys),
    .defaults = defaults,
    .queue_size = sizeof(struct dscp_q),
    .record = record_arming,
    .tick_queue = tick_queue,
    .tick_armed = tick_queue_armed,
    AN_EPISODE(struct dscp_q, h),
};
