/* diagnose's judgements on what arrived: hop pairs for clock skew, then the reports, parse error,
 * report loss, clock skew and topology checks (the last through hopwatch-analyzer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diagnose.h"
#include "hopwatch/record_json.h"

/* ---- what arrived ------------------------------------------------------------------------- */

/* Node ids as /metrics labels them: a dotted quad (switches' management IPv4 addresses by default). */
static const char *node_text(uint32_t n, char buf[16])
{
	snprintf(buf, 16, "%u.%u.%u.%u", n >> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255);
	return buf;
}

static bool wide(uint64_t v)
{
	return v > 0xffffffffull;
}

/* Consecutive hops a then b of one report: b's ingress minus a's egress is the link's delay when
 * both clocks agree.  32-bit timestamps are compared modulo 2^32. */
static void pair_hops(struct hw_diag_run *run, const struct hw_record *a, const struct hw_record *b)
{
	if (!(a->valid & HW_V_EGRESS_TS) || !(b->valid & HW_V_INGRESS_TS) || a->node_id == b->node_id)
		return;
	double d = wide(a->egress_ts) && wide(b->ingress_ts)
	               ? (double)(int64_t)(b->ingress_ts - a->egress_ts)
	               : (double)(int32_t)(uint32_t)(b->ingress_ts - a->egress_ts);
	uint32_t h = (a->node_id * 2654435761u ^ b->node_id * 40503u) & (HW_DIAG_PAIRS - 1);
	for (unsigned i = 0; i < HW_DIAG_PAIRS; i++, h = (h + 1) & (HW_DIAG_PAIRS - 1)) {
		struct hw_diag_pair *p = &run->pairs[h];
		if (!p->n) {
			p->a = a->node_id;
			p->b = b->node_id;
		}
		if (p->a == a->node_id && p->b == b->node_id) {
			p->n++;
			p->sum_ns += d;
			return;
		}
	}
}

/* A hop whose egress timestamp reads as ns since the epoch (after 2001-09-09): its distance from this
 * host's receive time, kept in the pair table under (node, node). */
static void offset_add(struct hw_diag_run *run, const struct hw_record *r)
{
	if (!(r->valid & HW_V_EGRESS_TS) || r->egress_ts < 1000000000000000000ull || !r->node_id)
		return;
	double d = (double)(int64_t)(r->egress_ts - r->time_ns);
	uint32_t h = (r->node_id * 2654435761u) & (HW_DIAG_PAIRS - 1);
	for (unsigned i = 0; i < HW_DIAG_PAIRS; i++, h = (h + 1) & (HW_DIAG_PAIRS - 1)) {
		struct hw_diag_pair *p = &run->pairs[h];
		if (!p->n)
			p->a = p->b = r->node_id;
		if (p->a == r->node_id && p->b == r->node_id) {
			p->n++;
			p->sum_ns += d;
			return;
		}
	}
}

void hw_diag_drain(struct hw_diag_run *run)
{
	struct hw_batch *bt;
	while ((bt = hw_batch_ring_peek(&run->w->ring))) {
		for (uint32_t i = 0; i < bt->n; i++) {
			const struct hw_record *r = &bt->recs[i];
			const struct hw_record *p = &run->prev;
			if (run->have_prev && p->time_ns == r->time_ns && p->report_node == r->report_node &&
			    p->report_seq == r->report_seq && p->hop_index + 1 == r->hop_index)
				pair_hops(run, p, r);
			offset_add(run, r);
			run->prev = *r;
			run->have_prev = true;
			if (run->records_json && run->records < 1000000) {
				char line[HW_RECORD_JSON_MAX];
				fwrite(line, 1, hw_record_json(r, line), run->records_json);
			}
			run->records++;
		}
		hw_batch_ring_release(&run->w->ring);
	}
}

void hw_diag_reports(struct hw_diag_run *run, const char *where)
{
	const struct hw_worker_counters *c = &run->w->cnt;
	char ports[128];
	size_t o = 0;
	ports[0] = 0;
	for (unsigned i = 0; i < run->cfg->parser.n_report_ports && o < sizeof(ports); i++)
		o += (size_t)snprintf(ports + o, sizeof(ports) - o, "%s%u", i ? "," : "",
		                      run->cfg->parser.report_ports[i]);
	if (!c->packets)
		hw_diag_line(run, HW_DIAG_FAIL, "reports",
		             "point the switches' report mirror (collector address, UDP port) at this host, check the "
		             "mirror session is up, and that --report-port / report_ports match",
		             "no packets arrived on %s in %.0f s (report ports %s)", where, run->seconds, ports);
	else if (!c->reports)
		hw_diag_line(run, HW_DIAG_FAIL, "reports",
		             "the traffic is not telemetry reports on the configured ports: set report_ports "
		             "(--report-port) to the switches' report UDP port",
		             "%llu packets on %s, none a telemetry report (report ports %s)",
		             (unsigned long long)c->packets, where, ports);
	else
		hw_diag_line(run, HW_DIAG_PASS, "reports", NULL,
		             "%llu reports in %llu packets on %s (%llu hop records)", (unsigned long long)c->reports,
		             (unsigned long long)c->packets, where, (unsigned long long)c->records);
}

void hw_diag_parse_errors(struct hw_diag_run *run, double max_ratio)
{
	const struct hw_worker_counters *c = &run->w->cnt;
	if (!c->packets) {
		hw_diag_line(run, HW_DIAG_SKIP, "parse_errors", NULL, "no packets to judge");
		return;
	}
	uint64_t errors = c->packets - c->by_result[HW_OK] - c->by_result[HW_NOT_REPORT];
	double ratio = (double)errors / (double)c->packets;
	if (ratio <= max_ratio) {
		hw_diag_line(run, HW_DIAG_PASS, "parse_errors", NULL,
		             "%llu of %llu packets rejected (%.2f%%, limit %.2f%%)", (unsigned long long)errors,
		             (unsigned long long)c->packets, ratio * 100, max_ratio * 100);
		return;
	}
	/* the three commonest reasons */
	char why[256] = "";
	size_t o = 0;
	bool taken[HW_RESULT_COUNT] = {0};
	for (int k = 0; k < 3; k++) {
		int best = -1;
		for (int r = HW_NOT_REPORT + 1; r < HW_RESULT_COUNT; r++)
			if (!taken[r] && c->by_result[r] && (best < 0 || c->by_result[r] > c->by_result[best]))
				best = r;
		if (best < 0)
			break;
		taken[best] = true;
		o += (size_t)snprintf(why + o, sizeof(why) - o, "%s%s %llu", k ? ", " : "",
		                      hw_result_name((enum hw_result)best), (unsigned long long)c->by_result[best]);
	}
	hw_diag_line(run, HW_DIAG_FAIL, "parse_errors",
	             "compare the switches' report format with the collector: --profile (geant), int_dscp, int_ports, "
	             "max_hops; a capture of the rejected packets (--pcap) and hopwatch_collector_packet_errors_total "
	             "name the field",
	             "%llu of %llu packets rejected (%.1f%%, limit %.2f%%): %s", (unsigned long long)errors,
	             (unsigned long long)c->packets, ratio * 100, max_ratio * 100, why);
}

void hw_diag_report_loss(struct hw_diag_run *run, double max_ratio)
{
	const struct hw_seq_tracker *t = &run->w->seqs;
	unsigned nodes = 0, bad = 0;
	char list[256] = "";
	size_t o = 0;
	double worst = 0;
	char nb[16];
	for (uint32_t s = 0; s <= t->mask; s++) {
		const struct hw_seq_state *q = &t->slots[s];
		if (!q->used || !q->received)
			continue;
		nodes++;
		double ratio = (double)q->lost / (double)(q->received + q->lost);
		if (ratio > worst)
			worst = ratio;
		if (ratio > max_ratio) {
			if (bad++ < 5 && o < sizeof(list))
				o += (size_t)snprintf(list + o, sizeof(list) - o, "%snode %s hw_id %u %.1f%%",
				                      bad > 1 ? ", " : "", node_text(q->node, nb), q->hw_id,
				                      ratio * 100);
		}
	}
	if (!nodes)
		hw_diag_line(run, HW_DIAG_SKIP, "report_loss", NULL, "no report carried a sequence number");
	else if (bad)
		hw_diag_line(run, HW_DIAG_FAIL, "report_loss",
		             "reports are lost between the switch and the collector: raise the mirror session's rate "
		             "limit, check NIC drops (port imissed) and give the collector more workers/cores",
		             "%u of %u senders lose more than %.2f%% of their reports: %s%s", bad, nodes,
		             max_ratio * 100, list, bad > 5 ? ", ..." : "");
	else
		hw_diag_line(run, HW_DIAG_PASS, "report_loss", NULL, "%u senders, worst loss %.2f%% (limit %.2f%%)",
		             nodes, worst * 100, max_ratio * 100);
}

/* Wall-clock offsets: the node whose timestamps are furthest from this host's clock, when that is
 * more than max_offset_ns.  The number of nodes with epoch timestamps, or 0. */
static unsigned worst_offset(const struct hw_diag_run *run, double max_offset_ns, uint32_t *node, double *off,
                             unsigned *bad)
{
	unsigned n = 0;
	*bad = 0;
	*off = 0;
	for (unsigned i = 0; i < HW_DIAG_PAIRS; i++) {
		const struct hw_diag_pair *p = &run->pairs[i];
		if (!p->n || p->a != p->b)
			continue;
		n++;
		double mean = p->sum_ns / (double)p->n;
		if (mean > max_offset_ns || mean < -max_offset_ns)
			(*bad)++;
		if ((mean < 0 ? -mean : mean) >= (*off < 0 ? -*off : *off)) {
			*off = mean;
			*node = p->a;
		}
	}
	return n;
}

void hw_diag_clock_skew(struct hw_diag_run *run, double max_skew_ns, double max_offset_ns)
{
	unsigned pairs = 0, bad = 0, off_bad;
	double worst = 0, off;
	uint32_t suspects[HW_DIAG_PAIRS][2], off_node = 0;
	char nb[16], msg[256] = "";
	unsigned epoch_nodes = worst_offset(run, max_offset_ns, &off_node, &off, &off_bad);
	for (unsigned i = 0; i < HW_DIAG_PAIRS; i++) {
		const struct hw_diag_pair *p = &run->pairs[i];
		if (!p->n || p->a == p->b)
			continue;
		pairs++;
		double mean = p->sum_ns / (double)p->n;
		if (mean < 0 ? -mean > worst : mean > worst)
			worst = mean < 0 ? -mean : mean;
		if (mean > max_skew_ns || mean < -max_skew_ns) {
			suspects[bad][0] = p->a;
			suspects[bad][1] = p->b;
			bad++;
		}
	}
	if (!pairs && !epoch_nodes) {
		hw_diag_line(
		    run, HW_DIAG_SKIP, "clock_skew", NULL,
		    "no report carried consecutive hops with egress and ingress timestamps, nor epoch timestamps");
		return;
	}
	if (off_bad) {
		char fix[256];
		snprintf(
		    fix, sizeof(fix),
		    "synchronise node %s's clock and this host's to the same time scale (PTP on both; a 37 s offset is "
		    "TAI against UTC: set the switch or ptp4l's UTC offset)",
		    node_text(off_node, nb));
		hw_diag_line(
		    run, HW_DIAG_FAIL, "clock_skew", fix,
		    "%u of %u nodes' timestamps are more than %.0f ms from this host's clock; node %s is %.3f s %s",
		    off_bad, epoch_nodes, max_offset_ns / 1e6, nb, (off < 0 ? -off : off) / 1e9,
		    off < 0 ? "behind" : "ahead");
	}
	if (epoch_nodes)
		snprintf(msg, sizeof(msg), "; %u nodes' epoch timestamps within %.3f ms of this host's clock",
		         epoch_nodes, (off < 0 ? -off : off) / 1e6);
	if (!bad) {
		if (off_bad)
			return;
		if (pairs)
			hw_diag_line(run, HW_DIAG_PASS, "clock_skew", NULL,
			             "%u switch pairs: consecutive hops' timestamps within %.1f us (limit %.0f us)%s",
			             pairs, worst / 1000, max_skew_ns / 1000, msg);
		else
			hw_diag_line(run, HW_DIAG_PASS, "clock_skew", NULL, "%s", msg + 2);
		return;
	}
	/* the node in most of the bad pairs is the one whose clock is off */
	uint32_t node = 0;
	unsigned most = 0;
	for (unsigned i = 0; i < bad; i++)
		for (int k = 0; k < 2; k++) {
			unsigned n = 0;
			for (unsigned j = 0; j < bad; j++)
				n += suspects[j][0] == suspects[i][k] || suspects[j][1] == suspects[i][k];
			if (n > most) {
				most = n;
				node = suspects[i][k];
			}
		}
	char fix[256];
	snprintf(fix, sizeof(fix),
	         "synchronise node %s's clock (PTP: ptp4l/phc2sys, or the switch's own time sync), and check that "
	         "every switch stamps the same units (latency_unit_ns)",
	         node_text(node, nb));
	hw_diag_line(run, HW_DIAG_FAIL, "clock_skew", fix,
	             "%u of %u switch pairs disagree by more than %.0f us (worst %.3f ms); node %s is in %u of them",
	             bad, pairs, max_skew_ns / 1000, worst / 1e6, nb, most);
}

/* ---- topology: hopwatch-analyzer places the records' (node, port)s on the LLDP topology ---- */
