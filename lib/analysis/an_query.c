/* Read-only views of the analyzer's state for the congestion graphs: queues (latest and peak occupancy and
 * latency, active episodes, a congestion tree's victims) and flows' current paths.  No allocation. */
#include <string.h>

#include "an_internal.h"

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
	const struct {
		enum hw_an_kind kind;
		const struct an_hyst *h;
	} eps[] = {{HW_AN_HIGH_QUEUE, &q->h_queue},      {HW_AN_HIGH_LATENCY, &q->h_lat},
	           {HW_AN_QUEUE_BUILDUP, &q->h_buildup}, {HW_AN_PACKET_DROPS, &q->h_drops},
	           {HW_AN_INCAST, &q->h_incast},         {HW_AN_DSCP_MISMATCH, &q->h_dscp},
	           {HW_AN_CONGESTION_TREE, &q->h_tree}};
	for (size_t k = 0; k < sizeof(eps) / sizeof(eps[0]); k++)
		if (eps[k].h->active)
			out->active |= 1u << eps[k].kind;
	for (unsigned v = 0; v < q->n_victims && v < AN_VICTIMS && v < 8; v++)
		out->victims[out->n_victims++] = q->victims[v];
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
	/* the flow table's probe sequence (detect_path_change.c): four slots from the flow's home */
	uint32_t home = (uint32_t)(flow_hash ^ (flow_hash >> 32)) & a->fmask;
	for (uint32_t i = 0; i < 4; i++) {
		const struct an_flow *f = &a->flows[(home + i) & a->fmask];
		if (!f->path || f->hash != flow_hash)
			continue;
		unsigned n = f->n_hops < max ? f->n_hops : max;
		memcpy(hops, f->hops, n * sizeof(hops[0]));
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
