/* /metrics for hopwatch-analyzer (an output of the table): records placed/unplaced, events by alertname and
 * severity, active alerts and incidents (held for the minimum visible time) by name, per-link congestion
 * score, the latency matrix per leaf pair, alert sink delivery; a snapshot the ticks refresh, rendered under
 * a mutex and served by metrics_http.h (with the --svg-dir files at /svg/), so scrapes never touch the
 * detectors' state. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alert_text.h"
#include "an_attr.h"
#include "an_outputs.h"
#include "hopwatch/metrics_http.h"

#define NAMES_MAX 64              /* distinct (alertname, severity) pairs counted */
#define INCIDENTS_MAX 4096        /* episodes tracked for incidents_active */
#define LAT_STEPS 10              /* the windowed gauges: a mark every tenth of the window (wall clock) */
#define LAT_SLOTS (LAT_STEPS + 2) /* so the ring reaches past the window's start */
#define LAT_CELLS ((size_t)HW_AN_LAT_LEAVES * HW_AN_LAT_LEAVES)
#define SHOWN_MAX 64 /* incident_info series: the newest active episodes */

struct counted {
	char alertname[32];
	const char *severity;
	uint64_t raised, resolved;
	uint32_t active; /* incidents active or within the minimum visible time, at the last refresh */
};

/* An episode for incidents_active: firing, or resolved but shown for less than the minimum visible time. */
struct incident {
	uint64_t id, shown_ns; /* shown_ns: monotonic time it was raised; 0 = free slot */
	uint16_t name;         /* index in counted */
	uint8_t resolved;
	/* its place and graph as incident_info labels: node (dotted id), node_name, port, /svg/FILE */
	char node[20], node_name[HW_TOPO_NAME_MAX], port[HW_TOPO_NAME_MAX], graph[128];
};

/* One leaf pair of the latency matrix. */
struct lat_pair {
	char src[HW_TOPO_NAME_MAX], dst[HW_TOPO_NAME_MAX];
	uint32_t src_id, dst_id;
	uint64_t count;
	double sum_ns;
	uint64_t w_count; /* reports of the last window (latency_window_s), and their latency sum */
	double w_sum_ns;
};

struct an_metrics {
	struct an_output base;
	struct hw_metrics_http *http;
	struct hw_alert_sink *am, *webhook; /* NULL when not given */
	double next;                        /* next refresh after a batch, monotonic seconds */
	const struct hw_topo *topo;
	pthread_mutex_t mu;
	struct hw_an_stats st;
	struct hw_alert_sink_stats sink[2];
	int have_sink[2];
	double *scores;
	uint64_t min_visible_ns;
	struct counted names[NAMES_MAX]; /* under mu */
	unsigned n_names;
	struct incident *inc;                      /* ingest thread only */
	const struct incident *act[INCIDENTS_MAX]; /* ingest thread: scratch of update() */
	struct incident shown[SHOWN_MAX];          /* under mu: the newest active episodes, for incident_info */
	unsigned n_shown;
	struct lat_pair *lat; /* under mu */
	unsigned n_lat;
	struct hw_an_lat_mark *mark[LAT_SLOTS]; /* ingest thread: the matrix's marks (hw_an_lat_mark), a ring */
	double snap_t[LAT_SLOTS];               /* monotonic seconds of each mark; 0 = none */
	double window_s;                        /* --latency-window */
	unsigned snap_next;
	const struct an_output *attr; /* whose traffic (an_attr.c); NULL = none */
	struct an_attr_stats ident;   /* under mu */
	uint32_t max_series;          /* per-node and per-link families: series shown at most (0 = all) */
	uint32_t *order;              /* render: link indices, the highest scores first (n_links) */
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A label value with backslash, quote and newline escaped as the exposition format asks. */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* The start of a leaf pair's sample: NAME{src="..",dst="..",src_node="..",dst_node=".."} and a space. */
static void pair_series(FILE *f, const char *name, const struct lat_pair *p)
{
	char a[20], b[20];
	hw_fmt_node_id(p->src_id, a, sizeof(a));
	hw_fmt_node_id(p->dst_id, b, sizeof(b));
	fprintf(f, "%s{src=\"", name);
	label_value(f, p->src);
	fprintf(f, "\",dst=\"");
	label_value(f, p->dst);
	fprintf(f, "\",src_node=\"%s\",dst_node=\"%s\"} ", a, b);
}

/* One family's sample per leaf pair: counts (count) or latencies in seconds, cumulative (the summary's
 * _count and _sum) or of the window (window: reports and mean; pairs without a report in it left out). */
static void pair_family(FILE *f, const struct an_metrics *m, const char *name, int window, int count)
{
	for (unsigned i = 0; i < m->n_lat; i++) {
		const struct lat_pair *p = &m->lat[i];
		uint64_t n = window ? p->w_count : p->count;
		if (window && !n)
			continue;
		pair_series(f, name, p);
		if (count)
			fprintf(f, "%llu\n", (unsigned long long)n);
		else
			fprintf(f, "%.9g\n", window ? p->w_sum_ns / (double)n / 1e9 : p->sum_ns / 1e9);
	}
}

/* The latency matrix per leaf pair as a summary family (_sum, _count): rate() over any window gives that
 * window's mean path latency; and as gauges of the last window_s seconds (mean, reports); node labels
 * as on the collector's series.  Each family's samples together, as the exposition format asks. */
static void render_latency(const struct an_metrics *m, FILE *f)
{
	if (!m->n_lat)
		return;
	fprintf(f, "# HELP hopwatch_analyzer_path_latency_seconds End-to-end in-switch latency of complete reports "
	           "from a source leaf to a destination leaf (windowed: rate(_sum[w]) / rate(_count[w])).\n"
	           "# TYPE hopwatch_analyzer_path_latency_seconds summary\n");
	pair_family(f, m, "hopwatch_analyzer_path_latency_seconds_sum", 0, 0);
	pair_family(f, m, "hopwatch_analyzer_path_latency_seconds_count", 0, 1);
	fprintf(f,
	        "# HELP hopwatch_analyzer_path_latency_window_seconds Mean end-to-end in-switch latency from a source "
	        "leaf to a destination leaf over the last %g s; pairs without a report in that time are left out.\n"
	        "# TYPE hopwatch_analyzer_path_latency_window_seconds gauge\n",
	        m->window_s);
	pair_family(f, m, "hopwatch_analyzer_path_latency_window_seconds", 1, 0);
	fprintf(f,
	        "# HELP hopwatch_analyzer_path_latency_window_reports Complete reports of the leaf pair in the last %g "
	        "s.\n# TYPE hopwatch_analyzer_path_latency_window_reports gauge\n",
	        m->window_s);
	pair_family(f, m, "hopwatch_analyzer_path_latency_window_reports", 1, 1);
}

/* The mark the window counts from at now (monotonic seconds): the newest taken at least window_s ago;
 * NULL when there is none (the analyzer started less than the window ago: everything is in it). */
static const struct hw_an_lat_mark *lat_base(const struct an_metrics *m, double now)
{
	const struct hw_an_lat_mark *base = NULL;
	double best = 0;
	for (unsigned k = 0; k < LAT_SLOTS; k++)
		if (m->snap_t[k] > 0 && m->snap_t[k] <= now - m->window_s && m->snap_t[k] > best) {
			best = m->snap_t[k];
			base = m->mark[k];
		}
	return base;
}

/* A mark of the matrix a tenth of the window after the newest, into the ring's oldest slot (after the window
 * was read: that slot may be its base); none when out of memory (the slot stays empty). */
static void lat_mark(struct an_metrics *m, const struct hw_an_latmatrix *lm, double now)
{
	unsigned newest = (m->snap_next + LAT_SLOTS - 1) % LAT_SLOTS;
	if (m->snap_t[newest] && now - m->snap_t[newest] < m->window_s / LAT_STEPS)
		return;
	hw_an_lat_mark_free(m->mark[m->snap_next]);
	m->mark[m->snap_next] = hw_an_lat_mark(lm);
	m->snap_t[m->snap_next] = m->mark[m->snap_next] ? now : 0;
	m->snap_next = (m->snap_next + 1) % LAT_SLOTS;
}

/* The identity map (--pods, --ident-map): a stale source keeps its last good mapping and says so here. */
static void render_ident(const struct an_attr_stats *s, FILE *f)
{
	fprintf(
	    f,
	    "# HELP hopwatch_analyzer_identity_entries Addresses the identity sources map (their last good loads).\n"
	    "# TYPE hopwatch_analyzer_identity_entries gauge\nhopwatch_analyzer_identity_entries %u\n"
	    "# HELP hopwatch_analyzer_identity_sources_stale Identity sources whose last load failed (their last "
	    "good mapping is in use).\n# TYPE hopwatch_analyzer_identity_sources_stale gauge\n"
	    "hopwatch_analyzer_identity_sources_stale %u\n"
	    "# HELP hopwatch_analyzer_identity_load_errors_total Loads of identity sources that failed.\n"
	    "# TYPE hopwatch_analyzer_identity_load_errors_total counter\n"
	    "hopwatch_analyzer_identity_load_errors_total %llu\n"
	    "# HELP hopwatch_analyzer_identity_flows_total Flows seen.\n"
	    "# TYPE hopwatch_analyzer_identity_flows_total counter\nhopwatch_analyzer_identity_flows_total %llu\n"
	    "# HELP hopwatch_analyzer_identity_flows_unattributed_total Flows whose sender or receiver has no job.\n"
	    "# TYPE hopwatch_analyzer_identity_flows_unattributed_total counter\n"
	    "hopwatch_analyzer_identity_flows_unattributed_total{end=\"sender\"} %llu\n"
	    "hopwatch_analyzer_identity_flows_unattributed_total{end=\"receiver\"} %llu\n",
	    s->id.entries, s->id.stale, (unsigned long long)s->id.load_errors, (unsigned long long)s->flows,
	    (unsigned long long)s->senders_unknown, (unsigned long long)s->receivers_unknown);
	fprintf(f,
	        "# HELP hopwatch_analyzer_identity_k8s_lists_total Pod lists the Kubernetes API answered (--k8s-api).\n"
	        "# TYPE hopwatch_analyzer_identity_k8s_lists_total counter\n"
	        "hopwatch_analyzer_identity_k8s_lists_total %llu\n"
	        "# HELP hopwatch_analyzer_identity_k8s_watch_events_total Pod watch events applied (--k8s-api).\n"
	        "# TYPE hopwatch_analyzer_identity_k8s_watch_events_total counter\n"
	        "hopwatch_analyzer_identity_k8s_watch_events_total %llu\n",
	        (unsigned long long)s->id.k8s_lists, (unsigned long long)s->id.k8s_events);
}

/* qsort_r of link indices by their scores (arg), highest first, ties in index order. */
static int by_score(const void *x, const void *y, void *arg)
{
	const double *score = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	double sa = score[a], sb = score[b];
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void render(void *arg, FILE *f)
{
	struct an_metrics *m = arg;
	pthread_mutex_lock(&m->mu);
	const struct hw_an_stats *s = &m->st;
	fprintf(f,
	        "# HELP hopwatch_analyzer_records_total Per-hop records ingested.\n"
	        "# TYPE hopwatch_analyzer_records_total counter\nhopwatch_analyzer_records_total %llu\n",
	        (unsigned long long)s->records);
	fprintf(f,
	        "# HELP hopwatch_analyzer_records_placed_total Records by whether their (node, egress port) is on the "
	        "topology.\n# TYPE hopwatch_analyzer_records_placed_total counter\n"
	        "hopwatch_analyzer_records_placed_total{placed=\"yes\"} %llu\n"
	        "hopwatch_analyzer_records_placed_total{placed=\"no\"} %llu\n",
	        (unsigned long long)s->placed, (unsigned long long)s->unplaced);
	fprintf(f,
	        "# HELP hopwatch_analyzer_reports_lost_total Telemetry reports missing from sequence numbers.\n"
	        "# TYPE hopwatch_analyzer_reports_lost_total counter\nhopwatch_analyzer_reports_lost_total %llu\n",
	        (unsigned long long)s->reports_lost);
	fprintf(f,
	        "# HELP hopwatch_analyzer_queues Queue states in use.\n# TYPE hopwatch_analyzer_queues gauge\n"
	        "hopwatch_analyzer_queues %llu\n",
	        (unsigned long long)s->queues);
	fprintf(f,
	        "# HELP hopwatch_analyzer_queue_table_full_total Records not tracked because the queue table "
	        "was full.\n# TYPE hopwatch_analyzer_queue_table_full_total counter\n"
	        "hopwatch_analyzer_queue_table_full_total %llu\n",
	        (unsigned long long)s->queues_dropped);
	fprintf(f,
	        "# HELP hopwatch_analyzer_records_set_aside_total Records not analysed: their time_ns was more than "
	        "10 s ahead of record time and no second report confirmed the jump.\n"
	        "# TYPE hopwatch_analyzer_records_set_aside_total counter\n"
	        "hopwatch_analyzer_records_set_aside_total %llu\n"
	        "# HELP hopwatch_analyzer_clock_jumps_total Jumps of record time two reports agreed on (a gap in the "
	        "input), or back from a first report far ahead of the second.\n"
	        "# TYPE hopwatch_analyzer_clock_jumps_total counter\nhopwatch_analyzer_clock_jumps_total %llu\n",
	        (unsigned long long)s->records_set_aside, (unsigned long long)s->clock_jumps);
	fprintf(f,
	        "# HELP hopwatch_analyzer_senders_untracked_total Reports whose sender (report_node, hw_id) found "
	        "no slot in the full sender table: their report loss is not followed.\n"
	        "# TYPE hopwatch_analyzer_senders_untracked_total counter\n"
	        "hopwatch_analyzer_senders_untracked_total %llu\n",
	        (unsigned long long)s->senders_untracked);
	fprintf(f, "# HELP hopwatch_analyzer_events_total Events (episodes raised, resolved) by alert name and "
	           "severity.\n# TYPE hopwatch_analyzer_events_total counter\n");
	for (unsigned i = 0; i < m->n_names; i++)
		for (int r = 0; r < 2; r++)
			fprintf(f,
			        "hopwatch_analyzer_events_total{alertname=\"%s\",severity=\"%s\",state=\"%s\"} %llu\n",
			        m->names[i].alertname, m->names[i].severity, r ? "resolved" : "raised",
			        (unsigned long long)(r ? m->names[i].resolved : m->names[i].raised));
	fprintf(f, "# HELP hopwatch_analyzer_alerts_active Active episodes by alert name (detector state now).\n"
	           "# TYPE hopwatch_analyzer_alerts_active gauge\n");
	for (int k = 0; k < HW_AN_KIND_COUNT; k++)
		fprintf(f, "hopwatch_analyzer_alerts_active{alertname=\"%s\"} %u\n", hw_an_kind_name(k), s->active[k]);
	fprintf(f, "# HELP hopwatch_analyzer_incidents_active Episodes firing or raised less than the minimum "
	           "visible time ago (alerting.min_visible_ns), by alert name: what a scrape every few seconds sees.\n"
	           "# TYPE hopwatch_analyzer_incidents_active gauge\n");
	for (unsigned i = 0; i < m->n_names; i++)
		fprintf(f, "hopwatch_analyzer_incidents_active{alertname=\"%s\",severity=\"%s\"} %u\n",
		        m->names[i].alertname, m->names[i].severity, m->names[i].active);
	fprintf(f, "# HELP hopwatch_analyzer_incident_info An episode firing or raised less than the minimum visible "
	           "time ago (the newest 64): its alert name, severity, event id, place (node, node_name, port) and "
	           "graph (/svg/FILE on this server), for Grafana annotations.\n"
	           "# TYPE hopwatch_analyzer_incident_info gauge\n");
	for (unsigned i = 0; i < m->n_shown; i++) {
		const struct incident *x = &m->shown[i];
		fprintf(
		    f,
		    "hopwatch_analyzer_incident_info{alertname=\"%s\",severity=\"%s\",event_id=\"%llu\",node=\"%s\","
		    "node_name=\"",
		    m->names[x->name].alertname, m->names[x->name].severity, (unsigned long long)x->id, x->node);
		label_value(f, x->node_name); /* topology names come from LLDP: escaped */
		fputs("\",port=\"", f);
		label_value(f, x->port);
		fputs("\",graph=\"", f);
		label_value(f, x->graph);
		fputs("\"} 1\n", f);
	}
	render_latency(m, f);
	uint64_t nodes_omitted = 0, links_omitted = 0; /* over --metrics-max-series (issue 22: series bounded) */
	if (m->topo) { /* one name for each switch: the node label as on the collector's series, with its names */
		fprintf(
		    f, "# HELP hopwatch_analyzer_node_info A switch of the topology: node (its INT node id as a dotted "
		       "quad, as on the collector's series and the alerts), node_name, node_id, mgmt.\n"
		       "# TYPE hopwatch_analyzer_node_info gauge\n");
		uint32_t shown = 0;
		for (uint32_t i = 0; i < m->topo->n_nodes; i++) {
			const struct hw_topo_node *n = &m->topo->nodes[i];
			char id[20];
			if (!n->node_id)
				continue;
			if (m->max_series && shown == m->max_series) { /* the first ones in topology order */
				nodes_omitted++;
				continue;
			}
			shown++;
			hw_fmt_node_id(n->node_id, id, sizeof(id));
			fprintf(f, "hopwatch_analyzer_node_info{node=\"%s\",node_name=\"", id);
			label_value(f, n->name);
			fprintf(f, "\",node_id=\"%u\",mgmt=\"", n->node_id);
			label_value(f, n->n_mgmt ? n->mgmt[0] : "");
			fprintf(f, "\"} 1\n");
		}
	}
	if (m->topo && m->scores) {
		fprintf(f,
		        "# HELP hopwatch_analyzer_link_congestion_score Peak queue occupancy on the link over the last "
		        "16 ms over the HighQueue threshold.\n# TYPE hopwatch_analyzer_link_congestion_score gauge\n");
		uint32_t n_links = m->topo->n_links, shown = n_links;
		if (m->max_series && n_links > m->max_series) { /* the highest scores, then topology order */
			for (uint32_t l = 0; l < n_links; l++)
				m->order[l] = l;
			qsort_r(m->order, n_links, sizeof(*m->order), by_score, m->scores);
			shown = m->max_series;
			links_omitted = n_links - shown;
		}
		for (uint32_t k = 0; k < shown; k++) {
			uint32_t l = shown < n_links ? m->order[k] : k;
			const struct hw_topo_port *a = &m->topo->ports[m->topo->links[l].a],
			                          *b = &m->topo->ports[m->topo->links[l].b];
			/* the names come from LLDP neighbours: escaped (a '"' in a system name broke the page) */
			fputs("hopwatch_analyzer_link_congestion_score{link=\"", f);
			label_value(f, m->topo->nodes[a->node].name);
			fputc(':', f);
			label_value(f, a->name);
			fputs("--", f);
			label_value(f, m->topo->nodes[b->node].name);
			fputc(':', f);
			label_value(f, b->name);
			fprintf(f, "\"} %g\n", m->scores[l]);
		}
	}
	if (m->topo && m->max_series)
		fprintf(
		    f,
		    "# HELP hopwatch_analyzer_metrics_series_omitted Series of a per-node or per-link family left out "
		    "over --metrics-max-series.\n# TYPE hopwatch_analyzer_metrics_series_omitted gauge\n"
		    "hopwatch_analyzer_metrics_series_omitted{family=\"node_info\"} %llu\n"
		    "hopwatch_analyzer_metrics_series_omitted{family=\"link_congestion_score\"} %llu\n",
		    (unsigned long long)nodes_omitted, (unsigned long long)links_omitted);
	static const char *const names[2] = {"alertmanager", "webhook"};
	for (int i = 0; i < 2; i++) {
		if (!m->have_sink[i])
			continue;
		const struct hw_alert_sink_stats *k = &m->sink[i];
		fprintf(
		    f,
		    "# HELP hopwatch_analyzer_alert_posts_total HTTP posts of alerts by result.\n"
		    "# TYPE hopwatch_analyzer_alert_posts_total counter\n"
		    "hopwatch_analyzer_alert_posts_total{sink=\"%s\",result=\"ok\"} %llu\n"
		    "hopwatch_analyzer_alert_posts_total{sink=\"%s\",result=\"failed\"} %llu\n"
		    "# HELP hopwatch_analyzer_alerts_dropped_total Alerts dropped because the queue was full.\n"
		    "# TYPE hopwatch_analyzer_alerts_dropped_total counter\n"
		    "hopwatch_analyzer_alerts_dropped_total{sink=\"%s\"} %llu\n"
		    "# HELP hopwatch_analyzer_alerts_waiting Alerts waiting for delivery.\n"
		    "# TYPE hopwatch_analyzer_alerts_waiting gauge\nhopwatch_analyzer_alerts_waiting{sink=\"%s\"} %u\n",
		    names[i], (unsigned long long)k->posts_ok, names[i], (unsigned long long)k->posts_failed, names[i],
		    (unsigned long long)k->dropped, names[i], k->waiting);
	}
	if (m->attr)
		render_ident(&m->ident, f);
	pthread_mutex_unlock(&m->mu);
}

/* Count an event by name and severity, and track its episode for incidents_active (ingest thread). */
static void metrics_on_event(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
                             const char *svg)
{
	struct an_metrics *m = (struct an_metrics *)o;
	(void)a;
	const char *sev = e->severity ? e->severity : "warning";
	unsigned k = 0;
	pthread_mutex_lock(&m->mu);
	while (k < m->n_names && (strcmp(m->names[k].alertname, e->alertname) || strcmp(m->names[k].severity, sev)))
		k++;
	if (k == m->n_names && k < NAMES_MAX) {
		snprintf(m->names[k].alertname, sizeof(m->names[k].alertname), "%s", e->alertname);
		m->names[k].severity = sev; /* severities are string constants */
		m->n_names++;
	}
	if (k < m->n_names && !e->update) /* an update is the episode raised already */
		*(e->resolved ? &m->names[k].resolved : &m->names[k].raised) += 1;
	pthread_mutex_unlock(&m->mu);
	if (k == m->n_names)
		return;
	struct incident *free_slot = NULL;
	for (unsigned i = 0; i < INCIDENTS_MAX; i++) {
		struct incident *x = &m->inc[i];
		if (x->shown_ns && x->id == e->id && x->name == k) {
			x->resolved |= (uint8_t)e->resolved;
			return;
		}
		if (!x->shown_ns && !free_slot)
			free_slot = x;
	}
	if (!free_slot)
		return;
	/* a resolve without its raise still shows for the minimum visible time */
	*free_slot = (struct incident){.id = e->id,
	                               .shown_ns = (uint64_t)(mono_s() * 1e9) | 1,
	                               .name = (uint16_t)k,
	                               .resolved = (uint8_t)e->resolved};
	if (e->node_id)
		hw_fmt_node_id(e->node_id, free_slot->node, sizeof(free_slot->node));
	snprintf(free_slot->node_name, sizeof(free_slot->node_name), "%s", e->node);
	if (e->port_name[0])
		snprintf(free_slot->port, sizeof(free_slot->port), "%s", e->port_name);
	else if (e->port != UINT32_MAX)
		snprintf(free_slot->port, sizeof(free_slot->port), "%u", e->port);
	const char *file = svg && svg[0] ? strrchr(svg, '/') : NULL;
	if (svg && svg[0])
		snprintf(free_slot->graph, sizeof(free_slot->graph), "/svg/%.100s", file ? file + 1 : svg);
}

static int newest_first(const void *a, const void *b)
{
	uint64_t x = (*(const struct incident *const *)a)->shown_ns, y = (*(const struct incident *const *)b)->shown_ns;
	return x > y ? -1 : x < y;
}

/* Refresh the snapshot from the analyzer and the sinks. */
static void update(struct an_metrics *m, const struct hw_analyzer *a)
{
	struct hw_alert_sink *sinks[2] = {m->am, m->webhook};
	uint32_t active[NAMES_MAX] = {0};
	uint64_t now = (uint64_t)(mono_s() * 1e9);
	const struct incident **act = m->act;
	unsigned n_act = 0;
	for (unsigned i = 0; i < INCIDENTS_MAX; i++) {
		struct incident *x = &m->inc[i];
		if (!x->shown_ns)
			continue;
		if (x->resolved && now - x->shown_ns >= m->min_visible_ns) {
			x->shown_ns = 0; /* shown long enough: forget it */
		} else {
			active[x->name]++;
			act[n_act++] = x;
		}
	}
	qsort(act, n_act, sizeof(*act), newest_first);
	const struct hw_an_latmatrix *lm = hw_an_latency(a);
	struct hw_an_lat_stats ls;
	hw_an_lat_stats(lm, &ls);
	double now_s = (double)now / 1e9;
	const struct hw_an_lat_mark *base = lat_base(m, now_s);
	pthread_mutex_lock(&m->mu);
	for (unsigned k = 0; k < m->n_names; k++)
		m->names[k].active = active[k];
	m->n_shown = n_act < SHOWN_MAX ? n_act : SHOWN_MAX;
	for (unsigned i = 0; i < m->n_shown; i++)
		m->shown[i] = *act[i];
	m->n_lat = 0;
	for (uint32_t i = 0; i < ls.n_leaves && m->lat; i++)
		for (uint32_t j = 0; j < ls.n_leaves; j++) {
			struct hw_an_lat_cell c;
			if (!hw_an_lat_cell(lm, i, j, &c))
				continue;
			struct lat_pair *p = &m->lat[m->n_lat++];
			snprintf(p->src, sizeof(p->src), "%s", hw_an_lat_leaf_name(lm, i));
			snprintf(p->dst, sizeof(p->dst), "%s", hw_an_lat_leaf_name(lm, j));
			p->src_id = hw_an_lat_leaf_node_id(lm, i);
			p->dst_id = hw_an_lat_leaf_node_id(lm, j);
			p->count = c.count;
			p->sum_ns = c.avg * (double)c.count;
			double w_mean;
			hw_an_lat_mean_since(lm, base, i, j, &p->w_count, &w_mean);
			p->w_sum_ns = w_mean * (double)p->w_count;
		}
	hw_an_stats(a, &m->st);
	if (m->attr)
		an_attr_stats(m->attr, &m->ident);
	if (m->scores)
		hw_an_link_scores(a, m->scores);
	for (int i = 0; i < 2; i++) {
		m->have_sink[i] = sinks[i] != NULL;
		if (sinks[i])
			hw_alert_sink_stats(sinks[i], &m->sink[i]);
	}
	pthread_mutex_unlock(&m->mu);
	lat_mark(m, lm, now_s); /* after the window read its base */
}

/* After a batch at most every 50 ms (monotonic); at the end and while holding, every time. */
static void metrics_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct an_metrics *m = (struct an_metrics *)o;
	if (an_tick_refresh(t, &m->next, 0.05))
		update(m, a);
}

static void metrics_close(struct an_output *o)
{
	struct an_metrics *m = (struct an_metrics *)o;
	hw_metrics_http_stop(m->http);
	pthread_mutex_destroy(&m->mu);
	free(m->order);
	free(m->scores);
	free(m->inc);
	free(m->lat);
	for (unsigned k = 0; k < LAT_SLOTS; k++)
		hw_an_lat_mark_free(m->mark[k]);
	free(m);
}

static const struct an_output_ops metrics_ops = {
    .on_event = metrics_on_event, .tick = metrics_tick, .close = metrics_close};

struct an_output *an_out_metrics(const struct an_metrics_opts *o, char *err, size_t errlen)
{
	const struct hw_topo *topo = o->topo;
	struct an_metrics *m = calloc(1, sizeof(*m));
	if (m && topo && topo->n_links) {
		m->scores = calloc(topo->n_links, sizeof(*m->scores));
		m->order = calloc(topo->n_links, sizeof(*m->order));
	}
	if (m) {
		m->inc = calloc(INCIDENTS_MAX, sizeof(*m->inc));
		m->lat = calloc(LAT_CELLS, sizeof(*m->lat));
	}
	if (!m || (topo && topo->n_links && (!m->scores || !m->order)) || !m->inc || !m->lat) {
		if (m) {
			free(m->order);
			free(m->scores);
			free(m->inc);
			free(m->lat);
		}
		free(m);
		snprintf(err, errlen, "--metrics: out of memory");
		return NULL;
	}
	m->base.ops = &metrics_ops;
	m->topo = topo;
	m->am = o->am;
	m->webhook = o->webhook;
	m->min_visible_ns = o->min_visible_ns;
	m->attr = o->attr;
	m->window_s = o->latency_window_s > 0 ? o->latency_window_s : 10;
	m->max_series = o->max_series;
	pthread_mutex_init(&m->mu, NULL);
	if (!(m->http = hw_metrics_http_start_files(o->addr, render, m, o->svg_dir, err, errlen))) {
		pthread_mutex_destroy(&m->mu);
		free(m->order);
		free(m->scores);
		free(m->inc);
		free(m->lat);
		free(m);
		return NULL;
	}
	return &m->base;
}
