/* truth.json: what happened in the scenario fabric (topology, injected events with place, time and the
 * flows they touched, every flow's paths, per-queue peaks), for scoring the analyzer's detectors. */
#include <jansson.h>
#include <string.h>

#include "scen.h"

static const char *const tier_names[] = {"host", "leaf", "spine", "superspine"};

static json_t *node_ref(const struct sc_topo *t, uint32_t node)
{
	char ip[20];
	sc_ip_text(t->nodes[node].id, ip, sizeof(ip));
	return json_pack("{s:s,s:I,s:s}", "node", t->nodes[node].name, "node_id", (json_int_t)t->nodes[node].id, "mgmt",
	                 ip);
}

static json_t *port_ref(const struct sc_topo *t, uint32_t port)
{
	char name[SC_NAME_MAX];
	sc_port_name(t, port, name, sizeof(name));
	json_t *o = node_ref(t, t->ports[port].node);
	json_object_set_new(o, "port", json_integer(t->ports[port].num));
	json_object_set_new(o, "ifname", json_string(name));
	return o;
}

/* A queue's stretches as [[first, last], ...]: the first and last step's time of each. */
static json_t *stretches_json(const struct sc_cfg *c, const struct sc_stretches *st)
{
	json_t *a = json_array();
	for (uint32_t i = 0; i < st->n; i++)
		json_array_append_new(a, json_pack("[I,I]", (json_int_t)(c->epoch_ns + st->at[i][0]),
		                                   (json_int_t)(c->epoch_ns + st->at[i][1])));
	return a;
}

static json_t *queue_ref(const struct sc_topo *t, uint32_t port, unsigned qid)
{
	json_t *o = port_ref(t, port);
	json_object_set_new(o, "queue", json_integer(qid));
	return o;
}

static json_t *link_ref(const struct sc_topo *t, uint32_t port)
{
	const struct sc_link *l = &t->links[t->ports[port].link];
	char a[SC_NAME_MAX], b[SC_NAME_MAX], id[4 * SC_NAME_MAX + 8];
	sc_port_name(t, l->a, a, sizeof(a));
	sc_port_name(t, l->b, b, sizeof(b));
	snprintf(id, sizeof(id), "%s.%s--%s.%s", t->nodes[t->ports[l->a].node].name, a,
	         t->nodes[t->ports[l->b].node].name, b);
	return json_pack("{s:s,s:o,s:o}", "id", id, "a", port_ref(t, l->a), "b", port_ref(t, l->b));
}

static void hash_text(uint64_t h, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static json_t *path_json(const struct sc_topo *t, const uint32_t *path, unsigned n)
{
	json_t *a = json_array();
	for (unsigned h = 1; h < n; h++) {
		json_t *o = node_ref(t, t->ports[path[h]].node);
		json_object_set_new(o, "ingress_port", json_integer(t->ports[t->ports[path[h - 1]].peer].num));
		json_object_set_new(o, "egress_port", json_integer(t->ports[path[h]].num));
		json_array_append_new(a, o);
	}
	return a;
}

static const char *kind_name(unsigned k)
{
	return k == SC_F_ROCE ? "roce" : k == SC_F_CNP ? "cnp" : "tcp";
}

static json_t *flow_json(const struct sc_sim *s, const struct sc_flow *f)
{
	const struct sc_topo *t = s->t;
	char src[20], dst[20], hash[17];
	sc_ip_text(t->nodes[f->src].id, src, sizeof(src));
	sc_ip_text(t->nodes[f->dst].id, dst, sizeof(dst));
	hash_text(f->gf.hash, hash);
	json_t *paths = json_array();
	for (unsigned i = 0; i < f->n_hist; i++)
		json_array_append_new(paths,
		                      json_pack("{s:I,s:o}", "from_ns", (json_int_t)(s->cfg->epoch_ns + f->hist_ns[i]),
		                                "hops", path_json(t, f->hist[i], f->hist_len[i])));
	json_t *o = json_pack("{s:I,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:s,s:i,s:f}", "id", (json_int_t)f->id, "kind",
	                      kind_name(f->kind), "src", t->nodes[f->src].name, "dst", t->nodes[f->dst].name, "src_ip",
	                      src, "dst_ip", dst, "ip_proto", f->gf.proto, "src_port", f->gf.sport, "dst_port",
	                      f->gf.dport, "flow_hash", hash, "dscp", f->gf.dscp, "gbps", (double)f->bps / 1e9);
	if (f->kind != SC_F_TCP)
		json_object_set_new(o, "roce_dest_qp", json_integer(f->gf.qp));
	if (f->kind == SC_F_CNP)
		json_object_set_new(o, "cnp_of", json_integer(f->cnp_of));
	json_object_set_new(o, "start_ns", json_integer((json_int_t)(s->cfg->epoch_ns + f->start_ns)));
	json_object_set_new(
	    o, "end_ns",
	    json_integer(
	        (json_int_t)(s->cfg->epoch_ns + (f->end_ns < s->cfg->duration_ns ? f->end_ns : s->cfg->duration_ns))));
	json_object_set_new(o, "paths", paths);
	json_object_set_new(o, "delivered_pkts", json_integer((json_int_t)f->delivered_pkts));
	json_object_set_new(o, "dropped_pkts", json_integer((json_int_t)f->dropped_pkts));
	json_object_set_new(o, "sink_reports", json_integer((json_int_t)f->reported));
	return o;
}

static json_t *event_json(const struct sc_sim *s, unsigned i)
{
	const struct sc_topo *t = s->t;
	const struct sc_event *e = &s->cfg->events[i];
	json_t *place;
	switch (e->kind) {
	case SC_EV_LINK_DOWN:
	case SC_EV_MTU: place = json_pack("{s:o}", "link", link_ref(t, e->port)); break;
	case SC_EV_REPORT_LOSS: place = node_ref(t, e->node); break;
	case SC_EV_DSCP: /* where the wrongly marked traffic enters the fabric, and the queue it lands in */
		place = queue_ref(t, e->port, SC_Q_TCP);
		json_object_set_new(place, "host", json_string(t->nodes[e->node].name));
		break;
	default: /* the receiver's (or the stalled host's) leaf port and its lossless queue */
		place = queue_ref(t, e->port, SC_Q_ROCE);
		json_object_set_new(place, "host", json_string(t->nodes[e->node].name));
	}
	json_t *flows = json_array();
	uint64_t dropped = 0;
	for (uint32_t fi = 0; fi < s->n_flows; fi++) {
		const struct sc_flow *f = &s->flows[fi];
		if (!(f->ev_mask & (1u << i)))
			continue;
		char hash[17];
		hash_text(f->gf.hash, hash);
		json_array_append_new(flows, json_pack("{s:I,s:s}", "id", (json_int_t)f->id, "flow_hash", hash));
		dropped += f->dropped_pkts;
	}
	json_t *eff = json_pack("{s:I}", "affected_flow_drops_pkts", (json_int_t)dropped);
	if (e->kind == SC_EV_INCAST || e->kind == SC_EV_MICROBURST || e->kind == SC_EV_PFC_STORM)
		json_object_set_new(eff, "peak_queue_bytes", json_integer((json_int_t)e->peak_bytes));
	if (e->kind == SC_EV_REPORT_LOSS)
		json_object_set_new(eff, "lost_reports", json_integer((json_int_t)sc_out_lost(s->out, i)));
	if (e->kind == SC_EV_PFC_STORM || e->kind == SC_EV_INCAST || e->kind == SC_EV_MICROBURST) {
		json_t *tree = json_array(); /* the congestion tree: queues paused while the event lasted */
		for (uint32_t p = 0; p < t->n_ports; p++)
			if (s->qev[sc_q(p, SC_Q_ROCE)] & (1u << i))
				json_array_append_new(tree, queue_ref(t, p, SC_Q_ROCE));
		json_object_set_new(eff, "paused_queues", tree);
	}
	json_t *o = json_pack("{s:s,s:s,s:s,s:o,s:I,s:I,s:o,s:o}", "kind", sc_event_alert(e->kind), "event",
	                      sc_event_name(e->kind), "spec", e->spec ? e->spec : "", "place", place, "start_ns",
	                      (json_int_t)(s->cfg->epoch_ns + e->start_ns), "end_ns",
	                      (json_int_t)(s->cfg->epoch_ns + e->end_ns), "affected_flows", flows, "effects", eff);
	if (e->kind <= SC_EV_MICROBURST || e->kind == SC_EV_PFC_STORM)
		json_object_set_new(o, "senders", json_integer(e->senders));
	if (e->kind == SC_EV_REPORT_LOSS)
		json_object_set_new(o, "fraction", json_real(e->fraction));
	json_t *jobs = sc_event_jobs(s, i);
	if (jobs)
		json_object_set_new(o, "jobs", jobs);
	if (e->kind == SC_EV_MTU) {
		json_object_set_new(o, "mtu", json_integer(e->mtu));
		json_object_set_new(o, "fabric_mtu", json_integer(t->mtu));
		json_object_set_new(o, "small_end", port_ref(t, e->port));
	}
	return o;
}

int sc_truth_write(const struct sc_sim *s, const char *path, uint64_t reports, uint64_t records, uint64_t packets,
                   char *err, size_t errlen)
{
	const struct sc_topo *t = s->t;
	const struct sc_cfg *c = s->cfg;
	static const char *const fmts[] = {"tr2.0", "tr1.0", "tr0.5", "int"};
	json_t *nodes = json_array(), *links = json_array(), *events = json_array(), *flows = json_array(),
	       *queues = json_array();
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		json_t *o = node_ref(t, i);
		json_object_set_new(o, "tier", json_string(tier_names[t->nodes[i].tier]));
		json_array_append_new(nodes, o);
	}
	for (uint32_t l = 0; l < t->n_links; l++) {
		json_t *o = link_ref(t, t->links[l].a);
		json_object_set_new(o, "gbps", json_real((double)t->ports[t->links[l].a].bps / 1e9));
		json_array_append_new(links, o);
	}
	for (unsigned i = 0; i < c->n_events; i++)
		json_array_append_new(events, event_json(s, i));
	for (uint32_t i = 0; i < s->n_flows; i++)
		json_array_append_new(flows, flow_json(s, &s->flows[i]));
	for (uint32_t p = 0; p < t->n_ports; p++) {
		if (t->nodes[t->ports[p].node].tier == SC_HOST)
			continue;
		for (unsigned q = 0; q < SC_QUEUES; q++) {
			const struct sc_queue_stats *qs = &s->qs[sc_q(p, q)];
			if (qs->peak <= 0 && qs->dropped <= 0 && !qs->paused_ns)
				continue;
			json_t *o = queue_ref(t, p, q);
			json_object_set_new(o, "peak_bytes", json_integer((json_int_t)qs->peak));
			json_object_set_new(o, "peak_ns", json_integer((json_int_t)(c->epoch_ns + qs->peak_ns)));
			json_object_set_new(o, "dropped_bytes", json_integer((json_int_t)qs->dropped));
			json_object_set_new(o, "paused_ns", json_integer((json_int_t)qs->paused_ns));
			json_object_set_new(o, "high_ns", stretches_json(c, &qs->high));
			json_object_set_new(o, "paused_at_ns", stretches_json(c, &qs->paused));
			json_array_append_new(queues, o);
		}
	}
	json_t *topo =
	    json_pack("{s:s,s:i,s:i,s:i,s:i,s:f,s:f,s:i,s:o,s:o}", "kind",
	              t->kind == SC_LEAF_SPINE ? "leaf-spine" : "fat-tree", "k", t->k, "spines", t->spines, "leaves",
	              t->leaves, "hosts_per_leaf", t->hosts_per_leaf, "host_gbps", (double)t->host_bps / 1e9,
	              "fabric_gbps", (double)t->fabric_bps / 1e9, "mtu", t->mtu, "nodes", nodes, "links", links);
	json_t *model = json_pack(
	    "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i,s:s,s:s}", "ecn_bytes", (json_int_t)c->ecn_bytes,
	    "xoff_bytes", (json_int_t)c->xoff_bytes, "xon_bytes", (json_int_t)c->xon_bytes, "lossy_buffer_bytes",
	    (json_int_t)c->lossy_buffer, "lossless_buffer_bytes", (json_int_t)c->lossless_buffer, "queue_report_bytes",
	    (json_int_t)c->qreport_bytes, "base_latency_ns", (json_int_t)c->base_latency_ns, "sample",
	    (json_int_t)c->sample, "drop_sample", (json_int_t)c->drop_sample, "cnp_sample", (json_int_t)c->cnp_sample,
	    "roce_queue", SC_Q_ROCE, "queue_occupancy_unit", "bytes", "hop_latency_unit", "ns");
	json_t *root =
	    json_pack("{s:s,s:s,s:I,s:s,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:{s:I,s:I,s:I}}", "schema",
	              "hopwatch-scenario-truth/1", "scenario", c->name ? c->name : "custom", "seed",
	              (json_int_t)c->seed, "format", fmts[c->format], "epoch_ns", (json_int_t)c->epoch_ns,
	              "duration_ns", (json_int_t)c->duration_ns, "step_ns", (json_int_t)c->step_ns, "topology", topo,
	              "model", model, "events", events, "flows", flows, "queues", queues, "reports", "packets",
	              (json_int_t)packets, "reports", (json_int_t)reports, "records", (json_int_t)records);
	int rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	json_decref(root);
	if (rc) {
		snprintf(err, errlen, "%s: cannot write", path);
		return -1;
	}
	return 0;
}
