/* Read-only views of the analyzer's state for the congestion graphs: queues (latest and peak occupancy and
 * latency, active episodes, a congestion tree's victims) and flows' current paths.  No allocation. */
#include <string.h>

#include "detector.h"

uint32_t hw_an_queue_count(const struct hw_analyzer *a)
{
	return a->n_queues;
}

int hw_an_queue_get(const struct hw_analyzer *a, uint32_t i, struct hw_an_queue_info *out)
{
	if (i >= a->n_queues)
		return -1;
	const struct an_queue *q = &a->queues[i];
	memset(out, 0, sizeof(*out));
	out->node_id = q->node_id;
	out->port = q->port;
	out->queue = q->queue;
	out->topo_port = q->placed ? q->topo_port : HW_TOPO_NONE;
	out->last_ns = q->last_ns;
	out->last_occ = q->last_occ;
	out->raise = q->th.high;
	out->lat_raise = q->th.lat;
	uint64_t now_ms = a->now / 1000000u, last_ms = q->last_ns / 1000000u;
	for (unsigned b = 0; b < AN_RING; b++) {
		const struct an_bucket *k = &q->ring[b];
		if (!k->count || k->ms + AN_RING <= now_ms)
			continue;
		if (k->max_occ > out->peak_occ)
			out->peak_occ = k->max_occ;
		if (k->max_lat > out->peak_lat)
			out->peak_lat = k->max_lat;
		if (k->ms == last_ms)
			out->last_lat = k->max_lat;
	}
	for (unsigned k = 0; k < a->n_dets; k++) {
		const struct an_det *d = &a->dets[k];
		const unsigned char *qs = an_qstate(a, d, q);
		if (d->def->has_episode && ((const struct an_hyst *)(qs + d->def->episode_off))->active)
			out->active |= 1u << d->def->kind;
		if (d->def->queue_info)
			d->def->queue_info(a, d, qs, out);
	}
	return 0;
}

long hw_an_queue_find(const struct hw_analyzer *a, uint32_t node_id, uint32_t port, int queue)
{
	for (uint32_t i = 0; i < a->n_queues; i++) {
		const struct an_queue *q = &a->queues[i];
		if (q->node_id == node_id && q->port == port && (int)q->queue == queue)
			return i;
	}
	return -1;
}

unsigned hw_an_flow_path(const struct hw_analyzer *a, uint64_t flow_hash, uint32_t (*hops)[2], unsigned max)
{
	for (unsigned k = 0; k < a->n_dets; k++) {
		const struct an_det *d = &a->dets[k];
		unsigned n = d->def->flow_path ? d->def->flow_path(a, d, flow_hash, hops, max) : 0;
		if (n)
			return n;
	}
	return 0;
}

uint32_t hw_an_place(const struct hw_analyzer *a, uint32_t node_id, uint32_t port, uint32_t *topo_port)
{
	uint32_t n = HW_TOPO_NONE, p = HW_TOPO_NONE;
	if (a->topo)
		hw_topo_place(a->topo, a->map, node_id, port, &n, &p); /* n: the node by id, even unmapped */
	if (topo_port)
		*topo_port = a->topo && p < a->topo->n_ports ? p : HW_TOPO_NONE;
	return a->topo && n < a->topo->n_nodes ? n : HW_TOPO_NONE;
}

const struct hw_an_config *hw_an_config_of(const struct hw_analyzer *a)
{
	return &a->c;
}
