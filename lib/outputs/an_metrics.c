/* /metrics for hopwatch-analyzer (an output of the table): records placed/unplaced, events, active alerts
 * by name, per-link congestion score, alert sink delivery; a snapshot the ticks refresh, rendered under a
 * mutex and served by metrics_http.h, so scrapes never touch the detectors' state. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "an_outputs.h"
#include "hopwatch/metrics_http.h"

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
};

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
	        "# HELP hopwatch_analyzer_events_total Events by state.\n# TYPE hopwatch_analyzer_events_total "
	        "counter\nhopwatch_analyzer_events_total{state=\"raised\"} %llu\n"
	        "hopwatch_analyzer_events_total{state=\"resolved\"} %llu\n",
	        (unsigned long long)s->events_raised, (unsigned long long)s->events_resolved);
	fprintf(f, "# HELP hopwatch_analyzer_alerts_active Active episodes by alert name.\n"
	           "# TYPE hopwatch_analyzer_alerts_active gauge\n");
	for (int k = 0; k < HW_AN_KIND_COUNT; k++)
		fprintf(f, "hopwatch_analyzer_alerts_active{alertname=\"%s\"} %u\n", hw_an_kind_name(k), s->active[k]);
	if (m->topo && m->scores) {
		fprintf(f,
		        "# HELP hopwatch_analyzer_link_congestion_score Peak queue occupancy on the link over the last "
		        "16 ms over the HighQueue threshold.\n# TYPE hopwatch_analyzer_link_congestion_score gauge\n");
		for (uint32_t l = 0; l < m->topo->n_links; l++) {
			const struct hw_topo_port *a = &m->topo->ports[m->topo->links[l].a],
			                          *b = &m->topo->ports[m->topo->links[l].b];
			fprintf(f, "hopwatch_analyzer_link_congestion_score{link=\"%s:%s--%s:%s\"} %g\n",
			        m->topo->nodes[a->node].name, a->name, m->topo->nodes[b->node].name, b->name,
			        m->scores[l]);
		}
	}
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
	pthread_mutex_unlock(&m->mu);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Refresh the snapshot from the analyzer and the sinks. */
static void update(struct an_metrics *m, const struct hw_analyzer *a)
{
	struct hw_alert_sink *sinks[2] = {m->am, m->webhook};
	pthread_mutex_lock(&m->mu);
	hw_an_stats(a, &m->st);
	if (m->scores)
		hw_an_link_scores(a, m->scores);
	for (int i = 0; i < 2; i++) {
		m->have_sink[i] = sinks[i] != NULL;
		if (sinks[i])
			hw_alert_sink_stats(sinks[i], &m->sink[i]);
	}
	pthread_mutex_unlock(&m->mu);
}

/* After a batch at most every 50 ms (monotonic); at the end and while holding, every time. */
static void metrics_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct an_metrics *m = (struct an_metrics *)o;
	if (t->kind == AN_TICK_EXIT)
		return;
	double now = mono_s();
	if (t->kind == AN_TICK_BATCH && now < m->next)
		return;
	m->next = now + 0.05;
	update(m, a);
}

static void metrics_close(struct an_output *o)
{
	struct an_metrics *m = (struct an_metrics *)o;
	hw_metrics_http_stop(m->http);
	pthread_mutex_destroy(&m->mu);
	free(m->scores);
	free(m);
}

static const struct an_output_ops metrics_ops = {.tick = metrics_tick, .close = metrics_close};

struct an_output *an_out_metrics(const char *addr, const struct hw_topo *topo, struct hw_alert_sink *am,
                                 struct hw_alert_sink *webhook, char *err, size_t errlen)
{
	struct an_metrics *m = calloc(1, sizeof(*m));
	if (m && topo && topo->n_links)
		m->scores = calloc(topo->n_links, sizeof(*m->scores));
	if (!m || (topo && topo->n_links && !m->scores)) {
		free(m);
		snprintf(err, errlen, "--metrics: out of memory");
		return NULL;
	}
	m->base.ops = &metrics_ops;
	m->topo = topo;
	m->am = am;
	m->webhook = webhook;
	pthread_mutex_init(&m->mu, NULL);
	if (!(m->http = hw_metrics_http_start(addr, render, m, err, errlen))) {
		pthread_mutex_destroy(&m->mu);
		free(m->scores);
		free(m);
		return NULL;
	}
	return &m->base;
}
