/* The INT reports the simulated fabric sends its collector: sink reports with the INT-MD stack, fabric-tna
 * postcards, drop and queue reports, encoded by gen/'s encoders into reports.pcap (+ records.jsonl). */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/record_json.h"
#include "rng.h"
#include "scen.h"

#define SC_LINK_DELAY_NS 500 /* cable and PHY between two hops */
#define SC_MIRROR_NS 1000    /* from the reporting switch to the collector */

struct sc_out {
	struct gen_cfg gc;
	struct gen_pkt *k;
	struct gen_flow fl; /* the reported packet's flow as it left the last hop (ECN CE when marked) */
	pcap_t *pd;
	pcap_dumper_t *dump;
	FILE *rec;
	char *pbuf, *rbuf;
	uint32_t *seq;       /* per node */
	uint64_t *clock_off; /* per node: PTP offset below 200 ns */
	uint64_t last_cap, rng, loss_thr[SC_MAX_EVENTS];
	uint64_t reports, records, packets;
	uint64_t lost[SC_MAX_EVENTS];
	char path[4096];
	struct hw_record recs[GEN_MAX_HOPS + 1];
};

static FILE *open_buffered(const char *path, char **buf, char *err, size_t errlen)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	*buf = malloc(1 << 20);
	if (*buf)
		setvbuf(f, *buf, _IOFBF, 1 << 20);
	return f;
}

struct sc_out *sc_out_open(struct sc_sim *s, char *err, size_t errlen)
{
	const struct sc_cfg *c = s->cfg;
	struct sc_out *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	s->out = o;
	struct gen_cfg *g = &o->gc;
	gen_cfg_default(g);
	g->format = c->format;
	g->int_ver = c->format == GEN_FMT_TR20 ? GEN_INT_V21 : c->format == GEN_FMT_TR10 ? GEN_INT_V10 : GEN_INT_NONE;
	g->rep_md = c->format == GEN_FMT_TR10 ? (GEN_R1_PORTS | GEN_R1_LATENCY | GEN_R1_QUEUE | GEN_R1_EG_TS)
	                                      : (GEN_R_PORTS | GEN_R_LATENCY | GEN_R_QUEUE | GEN_R_IG_TS | GEN_R_EG_TS);
	g->sender_net[0] = 10, g->sender_net[1] = 255, g->sender_net[2] = 0, g->sender_net[3] = 0;
	g->node_id_base = 0x0aff0000u; /* node index + 1 = the low 16 bits of the management address */
	g->epoch_ns = c->epoch_ns;
	o->k = calloc(1, sizeof(*o->k));
	o->seq = calloc(s->t->n_nodes, sizeof(*o->seq));
	o->clock_off = calloc(s->t->n_nodes, sizeof(*o->clock_off));
	if (!o->k || !o->seq || !o->clock_off) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o->rng = c->seed ^ 0x7265706f727473ull;
	for (uint32_t i = 0; i < s->t->n_nodes; i++)
		o->clock_off[i] = gen_splitmix(&o->rng) % 200;
	for (unsigned i = 0; i < c->n_events; i++)
		o->loss_thr[i] = gen_prob_threshold(c->events[i].fraction);
	o->pd = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO);
	snprintf(o->path, sizeof(o->path), "%s/reports.pcap", c->out_dir);
	FILE *pf = open_buffered(o->path, &o->pbuf, err, errlen);
	if (!o->pd || !pf)
		return NULL;
	o->dump = pcap_dump_fopen(o->pd, pf);
	if (!o->dump) {
		snprintf(err, errlen, "%s: %s", o->path, pcap_geterr(o->pd));
		fclose(pf);
		return NULL;
	}
	if (c->records) {
		char rp[4096];
		snprintf(rp, sizeof(rp), "%s/records.jsonl", c->out_dir);
		if (!(o->rec = open_buffered(rp, &o->rbuf, err, errlen)))
			return NULL;
	}
	return o;
}

void sc_out_collector(struct sc_out *o, const uint8_t ip[4], uint16_t port)
{
	if (ip)
		memcpy(o->gc.collector_ip, ip, 4);
	o->gc.dst_port = port;
}

void sc_out_counts(const struct sc_out *o, uint64_t *reports, uint64_t *records, uint64_t *packets)
{
	*reports = o->reports, *records = o->records, *packets = o->packets;
}

int sc_out_close(struct sc_out *o)
{
	int rc = 0;
	if (!o)
		return 1;
	if (o->dump) {
		if (pcap_dump_flush(o->dump) || ferror(pcap_dump_file(o->dump))) {
			fprintf(stderr, "hopwatch-gen: %s: write failed\n", o->path);
			rc = 1;
		}
		pcap_dump_close(o->dump);
	}
	if (o->rec && fclose(o->rec)) {
		fprintf(stderr, "hopwatch-gen: records.jsonl: write failed\n");
		rc = 1;
	}
	if (o->pd)
		pcap_close(o->pd);
	free(o->pbuf);
	free(o->rbuf);
	free(o->k);
	free(o->seq);
	free(o->clock_off);
	free(o);
	return rc;
}

uint64_t sc_out_lost(const struct sc_out *o, unsigned ev)
{
	return o && ev < SC_MAX_EVENTS ? o->lost[ev] : 0;
}

/* The switch hops at path positions 1..n of flow f, walking back from the last one leaving at sim time
 * end: each hop's queue occupancy is its queue's in the step the packet left it, its latency the base plus
 * that queue's drain time, ingress = egress - latency, and the link before it takes the cable delay and
 * the frame's serialisation.  Device clocks are PTP time plus the switch's offset. */
static void walk(const struct sc_sim *s, const struct sc_out *o, const struct sc_flow *f, struct gen_hop *hv,
                 unsigned n, uint64_t end)
{
	const struct sc_topo *t = s->t;
	int64_t T = (int64_t)end;
	for (unsigned j = n; j-- > 0;) {
		struct gen_hop *g = &hv[j];
		const uint32_t port = f->path[j + 1], prev = f->path[j];
		const double occ = sc_occ_at(s, sc_q(port, f->qid), T - 1);
		g->node_id = t->nodes[t->ports[port].node].id;
		g->in_port = t->ports[t->ports[prev].peer].num;
		g->out_port = t->ports[port].num;
		g->l2_in = g->in_port;
		g->l2_out = g->out_port;
		g->qid = f->qid;
		g->qocc = occ >= 0xfffffe ? 0xfffffe : (uint32_t)occ;
		g->bid = 0;
		g->bocc = g->qocc;
		g->latency = sc_latency_ns(s, port, occ);
		g->tx_util = 0;
		g->unavail = 0;
		g->eg_ts = s->cfg->epoch_ns + o->clock_off[t->ports[port].node] + (uint64_t)T;
		g->ig_ts = g->eg_ts - g->latency;
		/* a 32-bit all-ones timestamp would read as "unavailable": move it by a nanosecond */
		if ((uint32_t)g->ig_ts == 0xffffffffu)
			g->ig_ts--, g->latency++;
		if ((uint32_t)g->eg_ts == 0xffffffffu)
			g->eg_ts++, g->latency++;
		T -= (int64_t)(g->latency + SC_LINK_DELAY_NS +
		               (uint64_t)f->pkt * 8 * 1000000000ull / t->ports[prev].bps);
	}
}

/* Write packet k (its report filled) from node: sequence number, report loss, pcap, records. */
static void send_report(struct sc_sim *s, struct sc_flow *f, uint32_t node, uint64_t t_ns)
{
	struct sc_out *o = s->out;
	struct gen_pkt *k = o->k;
	const uint32_t id = s->t->nodes[node].id;
	k->node_idx = (id & 0xffff) - 1;
	k->hw_id = 0;
	k->n_reps = 1;
	const uint32_t mask = o->gc.format == GEN_FMT_TR20 ? 0x3fffff : 0xffffffff;
	k->seq = o->seq[node] & mask;
	o->seq[node] = (o->seq[node] + 1) & mask;
	for (unsigned i = 0; i < s->cfg->n_events; i++) {
		const struct sc_event *e = &s->cfg->events[i];
		if (e->kind == SC_EV_REPORT_LOSS && e->node == node && sc_event_active(e, s->now) &&
		    gen_splitmix(&o->rng) < o->loss_thr[i]) {
			o->lost[i]++;
			f->ev_mask |= 1u << i;
			return; /* lost on the mirror path: the collector sees a gap in the sequence */
		}
	}
	gen_build_frame(&o->gc, k);
	uint64_t cap = s->cfg->epoch_ns + t_ns + SC_MIRROR_NS;
	const uint64_t ser = (k->len * 8 + 99) / 100; /* the collector's 100G link */
	if (cap < o->last_cap + ser)
		cap = o->last_cap + ser;
	o->last_cap = cap;
	struct pcap_pkthdr h;
	h.ts.tv_sec = (time_t)(cap / 1000000000u);
	h.ts.tv_usec = (suseconds_t)(cap % 1000000000u);
	h.caplen = h.len = (bpf_u_int32)k->len;
	pcap_dump((u_char *)o->dump, &h, k->buf);
	o->packets++;
	o->reports++;
	if (o->rec) {
		char line[HW_RECORD_JSON_MAX];
		unsigned n = gen_truth_records(&o->gc, k, cap, o->recs, GEN_MAX_HOPS + 1);
		for (unsigned j = 0; j < n; j++)
			fwrite(line, 1, hw_record_json(&o->recs[j], line), o->rec);
		o->records += n;
	} else {
		const struct gen_report *r = &k->reps[0];
		o->records += r->n_stack + 1u;
	}
}

/* One report about flow f whose reporting switch is at path position last. */
static void emit(struct sc_sim *s, struct sc_flow *f, unsigned last, uint8_t flags, uint8_t reason)
{
	struct sc_out *o = s->out;
	if (!o) /* the model without outputs (unit tests) */
		return;
	struct gen_report *r = &o->k->reps[0];
	o->fl = f->gf;
	if (f->marked && o->fl.ecn == 2)
		o->fl.ecn = 3; /* CE */
	r->flow = &o->fl;
	r->drop_reason = reason;
	r->psn = (uint32_t)(f->delivered_pkts + f->dropped_pkts) & 0xffffff;
	r->roce_opcode = f->kind == SC_F_CNP ? 0x81 : f->kind == SC_F_ROCE ? 0x0a : 0; /* CNP; RDMA WRITE only */
	const uint64_t end = s->now + s->cfg->step_ns;
	const unsigned n = last; /* switch hops at path positions 1..last */
	struct gen_hop hv[SC_MAX_PATH];
	walk(s, o, f, hv, n, end);
	const uint32_t qthr = (uint32_t)s->cfg->qreport_bytes;
	if (o->gc.format == GEN_FMT_TR05) {
		/* fabric-tna: every hop sends its own postcard for a tracked flow; a drop or queue report
		 * comes from the switch that saw it */
		for (unsigned j = (flags & HW_RF_TRACKED_FLOW) ? 0 : n - 1; j < n; j++) {
			r->hops[0] = hv[j];
			r->n_stack = 0;
			r->flags = flags;
			if (hv[j].qocc >= qthr)
				r->flags |= HW_RF_CONGESTED_QUEUE;
			send_report(s, f, s->t->ports[f->path[j + 1]].node, end);
		}
		return;
	}
	memcpy(r->hops, hv, n * sizeof(hv[0]));
	r->n_stack = (uint8_t)(n - 1);
	r->flags = flags;
	if (hv[n - 1].qocc >= qthr)
		r->flags |= HW_RF_CONGESTED_QUEUE;
	if (o->gc.format == GEN_FMT_TR20 && last + 1 < f->n_hops)
		r->flags |= HW_RF_INTERMEDIATE; /* not the sink: a switch inside the path */
	send_report(s, f, s->t->ports[f->path[last]].node, end);
}

void sc_report_sink(struct sc_sim *s, struct sc_flow *f, unsigned n)
{
	const uint64_t before = f->delivered_pkts - n, smp = f->kind == SC_F_CNP ? s->cfg->cnp_sample : s->cfg->sample;
	uint64_t reports = f->delivered_pkts / smp - before / smp;
	for (uint64_t i = 0; i < reports; i++) {
		f->reported++;
		emit(s, f, f->n_hops - 1u, HW_RF_TRACKED_FLOW, 0);
	}
}

void sc_report_drop(struct sc_sim *s, struct sc_flow *f, unsigned hop, uint8_t reason, unsigned n)
{
	const uint64_t before = f->dropped_pkts - n, smp = s->cfg->drop_sample;
	uint64_t reports = f->dropped_pkts / smp - before / smp;
	if (hop >= f->n_hops)
		return;
	for (uint64_t i = 0; i < reports; i++)
		emit(s, f, hop, HW_RF_DROPPED, reason);
}

void sc_report_queue(struct sc_sim *s, struct sc_flow *f, unsigned hop)
{
	emit(s, f, hop, HW_RF_CONGESTED_QUEUE, 0);
}
