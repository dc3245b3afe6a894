/* Each queue's thresholds from what the analyzer knows of its port (lossless or lossy class, host-facing or
 * fabric link speed) and its fabric: the map's "fabric" (its node's, else the top level's), else the "fabric"
 * config section; a detector key set above 0 overrides them. */
#include "detector.h"

/* Queue q's port leads to a host (its peer's node is in the host tier). */
static int host_facing(const struct hw_analyzer *a, const struct an_queue *q)
{
	if (!a->topo || !q->placed)
		return 1; /* not placed: assume the slower host link, the higher latency threshold */
	uint32_t peer = hw_topo_peer(a->topo, q->topo_port);
	/* no link known (a map without LLDP names ports, not links): the same assumption as unplaced */
	return peer == HW_TOPO_NONE || a->topo->nodes[a->topo->ports[peer].node].tier == HW_TIER_HOST;
}

static int lossless(const struct hw_analyzer *a, const struct an_queue *q)
{
	if (q->queue > 7)
		return 0;
	if (a->topo && q->placed && a->topo->ports[q->topo_port].has_pfc)
		return (a->topo->ports[q->topo_port].pfc_enable >> q->queue) & 1u;
	return (a->c.fabric.lossless_queues >> q->queue) & 1u;
}

/* m's values (above 0) over f's. */
static void overlay(struct hw_an_fabric *f, const struct hw_topo_map_fabric *m)
{
	f->host_gbps = m->host_gbps > 0 ? m->host_gbps : f->host_gbps;
	f->fabric_gbps = m->fabric_gbps > 0 ? m->fabric_gbps : f->fabric_gbps;
	f->xoff_bytes = m->xoff_bytes > 0 ? m->xoff_bytes : f->xoff_bytes;
	f->xon_bytes = m->xon_bytes > 0 ? m->xon_bytes : f->xon_bytes;
	f->lossy_buffer_bytes = m->lossy_buffer_bytes > 0 ? m->lossy_buffer_bytes : f->lossy_buffer_bytes;
}

void an_fabric_from_map(struct hw_an_fabric *f, const struct hw_topo_map *m)
{
	if (m)
		overlay(f, &m->fabric);
}

void an_thresholds(const struct hw_analyzer *a, struct an_queue *q)
{
	struct hw_an_fabric fab = a->c.fabric; /* the map's top level is in it already (hw_an_create) */
	const struct hw_topo_map_fabric mf = hw_topo_map_fabric_of(a->topo, a->map, q->node_id);
	overlay(&fab, &mf);
	const struct hw_an_fabric *f = &fab;
	struct an_th *t = &q->th;
	t->lossless = (uint8_t)lossless(a, q);
	t->gbps = host_facing(a, q) ? f->host_gbps : f->fabric_gbps;
	t->xoff = f->xoff_bytes;
	if (t->lossless) { /* PFC pauses the senders at Xoff per ingress port: the queue holds Xoff per port feeding it
		            */
		t->high = f->xoff_bytes;
		t->clear = f->xon_bytes;
	} else { /* a lossy queue drops above its buffer: warn at 40 % of it, clear at 30 % */
		t->high = f->lossy_buffer_bytes * 0.4;
		t->clear = f->lossy_buffer_bytes * 0.3;
	}
	if (a->c.high_queue.raise > 0) {
		t->high = a->c.high_queue.raise;
		t->clear = a->c.high_queue.clear;
	}
	/* a burst reaches the HighQueue clear level, PFC Xon (the ECN level is crossed by background traffic all the
	 * time; bursts of 300-400 KB stop short of Xoff), and falls back below half the HighQueue level, under
	 * which queue reports soon stop: a queue swinging between Xon and Xoff under PFC is not bursting */
	t->burst = a->c.microburst_raise > 0 ? a->c.microburst_raise : t->clear;
	t->burst_clear = a->c.microburst_raise > 0 ? a->c.microburst_clear : t->high * 0.5;
	t->incast = a->c.incast_occupancy > 0 ? a->c.incast_occupancy : t->high;
	/* the time the HighQueue level takes to drain at line rate: bytes * 8 / Gb/s = ns */
	double ns_per_byte = t->gbps > 0 ? 8.0 / t->gbps : 0.08;
	t->lat = a->c.high_latency.raise > 0 ? a->c.high_latency.raise : t->high * ns_per_byte;
	t->lat_clear = a->c.high_latency.raise > 0 ? a->c.high_latency.clear : t->clear * ns_per_byte;
}
