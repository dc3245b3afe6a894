/* `hopwatch-analyzer run`: records (files or the live stream) + LLDP topology + config in; events as JSON
 * lines, Alertmanager alerts and webhook posts out.  Time is record time, so replays are deterministic. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "an_graphs.h"
#include "an_metrics.h"
#include "analyzer_cmd.h"
#include "records_clickhouse.h"
#include "records_jsonl.h"
#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/record_file.h"
#include "hopwatch/stream.h"
#include "options.h"

#define MAX_INPUTS 64

struct opts {
	const char *records[MAX_INPUTS], *json[MAX_INPUTS];
	int n_records, n_json;
	int recorded_pace;
	const char *stream, *lldp[MAX_INPUTS], *lldpd_json[MAX_INPUTS], *map, *config, *events, *am, *webhook, *metrics;
	int n_lldp, n_lldpd_json;
	double hold, duration;
	int quiet;
	struct hw_ch_replay ch;    /* --clickhouse URL --table T --from TIME --to TIME */
	struct an_graphs_opts svg; /* svg.dir NULL: no graphs */
};

struct out {
	FILE *events;
	struct hw_alert_sink *am, *webhook;
	struct an_metrics *metrics;
	double next_metrics; /* monotonic seconds */
	const char *svg_dir; /* latency matrix files */
	uint64_t svg_every_ns, next_svg_ns;
	void *gvc; /* the process's Graphviz context */
	struct an_graphs *graphs;
	struct hw_analyzer *a; /* for the graphs, inside emit */
};

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* --clickhouse, --clickhouse-table, --from, --to: records_clickhouse.c checks each. */
static int ch_option(const char *name, const char *text, void *field, char *want, size_t wantlen)
{
	if (!hw_ch_replay_option(field, name, text, want, wantlen))
		return 0;
	const char *colon = strstr(want, ": "); /* the message names the option and value already */
	if (colon)
		memmove(want, colon + 2, strlen(colon + 2) + 1);
	if (strncmp(want, "expected ", 9))
		return -2; /* what is wrong with the value */
	memmove(want, want + 9, strlen(want + 9) + 1);
	return -1; /* what was expected */
}
static int ch_url(const char *t, void *f, char *w, size_t n)
{
	return ch_option("clickhouse", t, f, w, n);
}
static int ch_table(const char *t, void *f, char *w, size_t n)
{
	return ch_option("table", t, f, w, n);
}
static int ch_from(const char *t, void *f, char *w, size_t n)
{
	return ch_option("from", t, f, w, n);
}
static int ch_to(const char *t, void *f, char *w, size_t n)
{
	return ch_option("to", t, f, w, n);
}

static const char *const paces[] = {"fast", "recorded", NULL};

#define O struct opts

static const struct hw_opt run_rows[] = {
    {HW_OPT_GROUP, .help = "inputs:"},
    {HW_OPT_LIST, "records", .metavar = "FILE|GLOB", HW_OPT_LIST_AT(O, records, n_records), .elem = HW_OPT_STRING,
     .flags = HW_OPTF_GLOB | HW_OPTF_MULTI, .what = "record file",
     .help = "binary record files (several may follow one --records), read in the order given"},
    {HW_OPT_LIST, "jsonl", .metavar = "FILE|-", HW_OPT_LIST_AT(O, json, n_json), .elem = HW_OPT_STRING,
     .what = "JSON-lines file", .help = "JSON-lines records (docs/records.md), read after --records"},
    {HW_OPT_ALIAS, "json", .alias_of = "jsonl"},
    {HW_OPT_ENUM, "pace", .metavar = "recorded|fast", HW_OPT_AT(O, recorded_pace), .names = paces, .def = "fast",
     .help = "replay at the records' own pace, or as fast as possible"},
    {HW_OPT_CUSTOM, "clickhouse", .metavar = "URL", HW_OPT_AT(O, ch), .parse = ch_url, .what = "URL",
     .help = "records of a time range from ClickHouse (docs/scale-out.md), with"},
    {HW_OPT_CUSTOM, "from", .metavar = "TIME", HW_OPT_AT(O, ch), .parse = ch_from, .what = "TIME",
     .help = "time_ns >= from ... TIME is ns since the epoch or RFC 3339\n"
             "(2026-01-01T00:00:00.25Z, 2026-01-01T01:00:00+01:00)"},
    {HW_OPT_CUSTOM, "to", .metavar = "TIME", HW_OPT_AT(O, ch), .parse = ch_to, .what = "TIME",
     .help = "... and < to"},
    {HW_OPT_CUSTOM, "clickhouse-table", .metavar = "T", HW_OPT_AT(O, ch), .parse = ch_table, .what = "table",
     .def_note = "hops", .help = "[database.]table (hops_all = every shard), as the collector's option"},
    {HW_OPT_ALIAS, "table", .alias_of = "clickhouse-table"},
    {HW_OPT_ADDR, "stream", .metavar = "ADDR", HW_OPT_AT(O, stream), .addr = HW_ADDR_STREAM,
     .help = "live records from the collector: unix:PATH or tcp:HOST:PORT"},
    {HW_OPT_DURATION, "duration", .metavar = "SECONDS", HW_OPT_AT(O, duration), .hi = 1e9,
     .def_note = "until SIGINT/SIGTERM", .help = "with --stream: stop after this long"},
    {HW_OPT_GROUP, .help = "topology (optional; events then name nodes, ports and links):"},
    {HW_OPT_LIST, "lldp", .metavar = "PCAP", HW_OPT_LIST_AT(O, lldp, n_lldp), .elem = HW_OPT_STRING,
     .what = "capture", .help = "LLDP frames from a capture"},
    {HW_OPT_LIST, "lldpd-json", .metavar = "FILE|DIR", HW_OPT_LIST_AT(O, lldpd_json, n_lldpd_json),
     .elem = HW_OPT_STRING, .what = "dump", .help = "lldpcli JSON dumps"},
    {HW_OPT_STRING, "map", .metavar = "FILE", HW_OPT_AT(O, map), .help = "INT node id / port map (docs/topology.md)"},
    {HW_OPT_GROUP, .help = "configuration:"},
    {HW_OPT_STRING, "config", .metavar = "FILE", HW_OPT_AT(O, config),
     .help = "JSON thresholds (docs/analyzer.md); unknown keys are errors"},
    {HW_OPT_GROUP, .help = "outputs:"},
    {HW_OPT_STRING, "events", .metavar = "FILE|-", HW_OPT_AT(O, events), .help = "events as JSON lines"},
    {HW_OPT_STRING, "alertmanager", .metavar = "URL", HW_OPT_AT(O, am),
     .help = "Alertmanager base URL (POST URL/api/v2/alerts)"},
    {HW_OPT_STRING, "webhook", .metavar = "URL", HW_OPT_AT(O, webhook), .help = "POST {\"events\":[...]} to URL"},
    {HW_OPT_ADDR, "metrics", .metavar = "HOST:PORT", HW_OPT_AT(O, metrics), .addr = HW_ADDR_HOSTPORT,
     .help = "serve the analyzer's own state at /metrics (Prometheus)"},
    {HW_OPT_STRING, "svg-dir", .metavar = "DIR", HW_OPT_AT(O, svg.dir),
     .help = "SVG and CSV outputs (docs/analyzer.md):\n"
             "the latency matrix (rows source leaf, columns destination leaf;\n"
             "p99.9 and avg of the summed hop latencies),\n"
             "DIR/latency-matrix-<record time ns>.{csv,svg}, newest also\n"
             "DIR/latency-matrix.{csv,svg}; with the topology also the congestion\n"
             "graphs: an SVG per raised congestion event,\n"
             "DIR/event-<start ns>-<id>-<alertname>.svg (newest also\n"
             "DIR/event-latest.svg), and the fabric heat map, DIR/heatmap-<ns>.svg\n"
             "(newest also DIR/heatmap.svg)"},
    {HW_OPT_DURATION, "svg-every", .metavar = "SECONDS", HW_OPT_AT(O, svg.every_s), .hi = 1e9, .def = "10",
     .help = "latency matrix and heat map every SECONDS of record time and at the\nend (0 = at the end only)"},
    {HW_OPT_DOUBLE, "svg-rate", .metavar = "N", HW_OPT_AT(O, svg.rate), .hi = 1e9, .def = "5",
     .help = "at most N event SVGs per alertname per second of record time\n"
             "(0 = every raise); the others are counted as skipped"},
    {HW_OPT_UINT, "svg-keep", .metavar = "N", HW_OPT_AT(O, svg.keep), .hi = 1e9, .def = "500",
     .help = "keep the newest N event SVGs and N heat maps (0 = all)"},
    {HW_OPT_DURATION, "hold", .metavar = "SECONDS", HW_OPT_AT(O, hold), .hi = 1e9, .def = "0",
     .help = "after the input ends, keep delivering and re-sending for this long"},
    {HW_OPT_FLAG, "quiet", HW_OPT_AT(O, quiet), .help = "no summary on stderr"},
    {HW_OPT_END},
};

static const struct hw_opts_spec run_spec = {
    .prog = "hopwatch-analyzer run",
    .synopsis = "usage: hopwatch-analyzer run [inputs] [topology] [outputs] [options]\n",
    .rows = run_rows,
};

void hw_cmd_run_usage(FILE *out)
{
	hw_opts_help(&run_spec, out);
}

static int parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->svg.full_max = 32;
	int rc = hw_opts_defaults(&run_spec, o);
	if (!rc)
		rc = hw_opts_parse(&run_spec, o, argc, argv, NULL);
	if (rc)
		return rc == HW_OPTS_HELP ? -1 : HW_EXIT_USAGE;
	char err[512];
	if (hw_ch_replay_check(&o->ch, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		return HW_EXIT_USAGE;
	}
	if (!o->n_records && !o->n_json && !o->stream && !o->ch.url) {
		fprintf(stderr,
		        "hopwatch-analyzer run: give --records FILE, --jsonl FILE, --clickhouse URL or --stream ADDR\n");
		return HW_EXIT_USAGE;
	}
	return 0;
}

static void emit(void *ctx, const struct hw_an_event *ev)
{
	struct out *out = ctx;
	struct hw_an_event copy;
	const struct hw_an_event *e = ev;
	int draw = 0;
	if (out->graphs) { /* the SVG's name goes out with the event; it is drawn after the hand-over */
		copy = *ev;
		draw = an_graphs_name(out->graphs, out->a, &copy);
		e = &copy;
	}
	if (out->events) {
		char buf[4096];
		hw_an_event_json(e, buf, sizeof(buf));
		fprintf(out->events, "%s\n", buf);
	}
	if (out->am)
		hw_alert_sink_push(out->am, e);
	if (out->webhook)
		hw_alert_sink_push(out->webhook, e);
	if (draw)
		an_graphs_draw_event(out->graphs, out->a, e);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

/* Refresh the /metrics snapshot at most every 50 ms (or now, with force). */
static void refresh(struct hw_analyzer *a, struct out *out, int force)
{
	if (!out->metrics)
		return;
	double now = mono_s();
	if (!force && now < out->next_metrics)
		return;
	out->next_metrics = now + 0.05;
	an_metrics_update(out->metrics, a, out->am, out->webhook);
}

/* The latency matrix into --svg-dir (record time now). */
static void matrix_files(struct hw_analyzer *a, struct out *out)
{
	char err[512];
	hw_analyzer_gvc_lock(); /* the graphs' thread renders with the same Graphviz context */
	int bad = hw_an_lat_write_files(hw_an_latency(a), out->gvc, out->svg_dir, hw_an_now(a), err, sizeof(err));
	hw_analyzer_gvc_unlock();
	if (bad)
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
}

/* Whether the periodic SVGs (heat map, latency matrix) are due: every --svg-every seconds of record
 * time, on a fixed grid that starts at the first record; periods the input skipped are not made up. */
static int svg_due(struct out *out, uint64_t now)
{
	if (!out->svg_dir || !out->svg_every_ns || !now)
		return 0;
	if (!out->next_svg_ns) {
		out->next_svg_ns = now + out->svg_every_ns;
		return 0;
	}
	if (now < out->next_svg_ns)
		return 0;
	while (out->next_svg_ns <= now)
		out->next_svg_ns += out->svg_every_ns;
	return 1;
}

/* After each batch of input, whatever the source: /metrics snapshot, and the heat map and latency
 * matrix on their one schedule. */
static void after_batch(struct hw_analyzer *a, struct out *out)
{
	refresh(a, out, 0);
	if (svg_due(out, hw_an_now(a))) {
		if (out->graphs)
			an_graphs_heatmap_now(out->graphs, a); /* live: skipped when the drawing thread is busy */
		matrix_files(a, out);
	}
}

/* --pace recorded: the wall clock since the first record keeps up with record time (records older
 * than the first go at once); fast: no waiting. */
struct pace {
	uint64_t rec0;
	double wall0;
};

/* Ingest n records, then the after-batch step; paced in steps of 64 records with --pace recorded. */
static void ingest(struct hw_analyzer *a, const struct opts *o, struct out *out, struct pace *p,
                   const struct hw_record *r, size_t n)
{
	size_t step = o->recorded_pace ? 64 : n;
	for (size_t i = 0; i < n && !stop_flag; i += step) {
		size_t k = n - i < step ? n - i : step;
		if (o->recorded_pace && r[i].time_ns) {
			if (!p->rec0) {
				p->rec0 = r[i].time_ns;
				p->wall0 = mono_s();
			}
			if (r[i].time_ns > p->rec0)
				sleep_s((double)(r[i].time_ns - p->rec0) / 1e9 - (mono_s() - p->wall0));
		}
		hw_an_ingest(a, r + i, k);
		after_batch(a, out);
	}
}

static int replay(struct hw_analyzer *a, const struct opts *o, struct out *out, struct hw_record *buf)
{
	struct pace pace = {0};
	for (int i = 0; i < o->n_records && !stop_flag; i++) {
		char err[512];
		struct hw_record_reader *rd = hw_record_reader_open(o->records[i], err, sizeof(err));
		if (!rd) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			return HW_EXIT_FAIL;
		}
		long n;
		while (!stop_flag && (n = hw_record_reader_read(rd, buf, 4096, err, sizeof(err))) > 0)
			ingest(a, o, out, &pace, buf, (size_t)n);
		hw_record_reader_close(rd);
		if (n < 0) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			return HW_EXIT_FAIL;
		}
	}
	return HW_EXIT_OK;
}

/* JSON-lines records: parsed into batches and ingested like record files. */
static int replay_json(struct hw_analyzer *a, const struct opts *o, struct out *out, struct hw_record *buf)
{
	struct pace pace = {0};
	char *line = NULL;
	size_t cap = 0;
	int rc = HW_EXIT_OK;
	for (int i = 0; i < o->n_json && rc == HW_EXIT_OK && !stop_flag; i++) {
		FILE *f = strcmp(o->json[i], "-") ? fopen(o->json[i], "r") : stdin;
		if (!f) {
			fprintf(stderr, "hopwatch-analyzer run: %s: %s\n", o->json[i], strerror(errno));
			return HW_EXIT_FAIL;
		}
		size_t n = 0;
		unsigned long lineno = 0;
		while (getline(&line, &cap, f) > 0 && !stop_flag) {
			char err[256];
			lineno++;
			if (line[0] == '\n')
				continue;
			if (hw_record_from_json_line(line, &buf[n], err, sizeof(err))) {
				fprintf(stderr, "hopwatch-analyzer run: %s:%lu: %s\n", o->json[i], lineno, err);
				rc = HW_EXIT_FAIL;
				break;
			}
			if (++n == HW_STREAM_MAX_BATCH) {
				ingest(a, o, out, &pace, buf, n);
				n = 0;
			}
		}
		ingest(a, o, out, &pace, buf, n);
		if (f != stdin)
			fclose(f);
	}
	free(line);
	return rc;
}

struct ch_feed {
	struct hw_analyzer *a;
	const struct opts *o;
	struct out *out;
	struct pace pace;
};

static int ch_batch(void *ctx, const struct hw_record *r, size_t n)
{
	struct ch_feed *f = ctx;
	ingest(f->a, f->o, f->out, &f->pace, r, n);
	return stop_flag;
}

/* A time range from ClickHouse, streamed and ingested batch by batch like record files. */
static int replay_clickhouse(struct hw_analyzer *a, const struct opts *o, struct out *out, struct hw_record *buf)
{
	char err[1024];
	struct ch_feed f = {a, o, out, {0}};
	if (hw_ch_replay_run(&o->ch, buf, HW_STREAM_MAX_BATCH, ch_batch, &f, err, sizeof(err)) < 0) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		return HW_EXIT_FAIL;
	}
	return HW_EXIT_OK;
}

static int live(struct hw_analyzer *a, const struct opts *o, struct out *out, struct hw_record *buf)
{
	char err[512];
	struct hw_stream_listener *l = hw_stream_listen(o->stream, err, sizeof(err));
	if (!l) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		return HW_EXIT_FAIL;
	}
	if (!o->quiet)
		fprintf(stderr, "listening on %s\n", hw_stream_listener_address(l));
	double end = o->duration > 0 ? mono_s() + o->duration : 0, last_wall = mono_s();
	uint64_t last_rec = 0;
	while (!stop_flag && (!end || mono_s() < end)) {
		long n = hw_stream_receive(l, buf, 100, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		} else if (n > 0) {
			hw_an_ingest(a, buf, (size_t)n);
			last_rec = hw_an_now(a);
			last_wall = mono_s();
		} else if (last_rec) {
			/* quiet: record time goes on with the wall clock, so episodes of silent queues resolve */
			hw_an_tick(a, last_rec + (uint64_t)((mono_s() - last_wall) * 1e9));
		}
		after_batch(a, out);
	}
	hw_stream_listener_close(l);
	return HW_EXIT_OK;
}

static int load_topology(struct hw_topo *t, struct hw_topo_map *map, const struct opts *o)
{
	struct hw_topo_error err = {0};
	enum hw_topo_result r = o->map ? hw_topo_map_load(map, o->map, &err) : HW_TOPO_OK;
	if (r != HW_TOPO_OK) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err.message);
		return HW_EXIT_USAGE;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double now = ts.tv_sec + ts.tv_nsec / 1e9;
	for (int i = 0; i < o->n_lldp && r == HW_TOPO_OK; i++)
		r = hw_topo_load_pcap(t, o->lldp[i], 0, 0, &err);
	for (int i = 0; i < o->n_lldpd_json && r == HW_TOPO_OK; i++) {
		struct stat st;
		if (stat(o->lldpd_json[i], &st) == 0 && S_ISDIR(st.st_mode))
			r = hw_topo_load_lldpd_dir(t, o->lldpd_json[i], now, &err);
		else
			r = hw_topo_load_lldpd_json(t, o->lldpd_json[i], NULL, now, &err);
	}
	if (r != HW_TOPO_OK) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err.message);
		return HW_EXIT_FAIL;
	}
	hw_topo_check(t);
	hw_topo_map_apply(t, o->map ? map : NULL);
	hw_topo_assign_tiers(t);
	return HW_EXIT_OK;
}

static void summary(struct hw_analyzer *a, const struct out *out)
{
	struct hw_an_stats s;
	hw_an_stats(a, &s);
	fprintf(stderr,
	        "{\"records\":%llu,\"placed\":%llu,\"unplaced\":%llu,\"queues\":%llu,\"queues_dropped\":%llu,"
	        "\"reports\":%llu,\"reports_lost\":%llu,\"flows\":%llu,\"events_raised\":%llu,\"events_resolved\":%llu",
	        (unsigned long long)s.records, (unsigned long long)s.placed, (unsigned long long)s.unplaced,
	        (unsigned long long)s.queues, (unsigned long long)s.queues_dropped, (unsigned long long)s.reports,
	        (unsigned long long)s.reports_lost, (unsigned long long)s.flows, (unsigned long long)s.events_raised,
	        (unsigned long long)s.events_resolved);
	const struct hw_place_tally *t = hw_an_unplaced(a);
	if (t) {
		fprintf(stderr, ",\"unplaced_list\":[");
		for (uint32_t i = 0; i < t->n_entries && i < 32; i++)
			fprintf(stderr, "%s{\"node_id\":%u,\"port\":%u,\"why\":\"%s\",\"records\":%llu}", i ? "," : "",
			        t->entries[i].node_id, t->entries[i].port, hw_place_name(t->entries[i].why),
			        (unsigned long long)t->entries[i].count);
		fprintf(stderr, "]");
	}
	const struct hw_alert_sink *sinks[2] = {out->am, out->webhook};
	const char *names[2] = {"alertmanager", "webhook"};
	for (int i = 0; i < 2; i++) {
		if (!sinks[i])
			continue;
		struct hw_alert_sink_stats st;
		hw_alert_sink_stats((struct hw_alert_sink *)sinks[i], &st);
		fprintf(stderr,
		        ",\"%s\":{\"pushed\":%llu,\"dropped\":%llu,\"sent_alerts\":%llu,\"posts_ok\":%llu,"
		        "\"posts_failed\":%llu,\"waiting\":%u}",
		        names[i], (unsigned long long)st.pushed, (unsigned long long)st.dropped,
		        (unsigned long long)st.sent_alerts, (unsigned long long)st.posts_ok,
		        (unsigned long long)st.posts_failed, st.waiting);
	}
	char *lat = hw_an_lat_json(hw_an_latency(a), 16);
	if (lat)
		fprintf(stderr, ",\"latency_matrix\":%s", lat);
	free(lat);
	if (out->graphs) {
		struct an_graphs_stats g;
		an_graphs_stats(out->graphs, &g);
		fprintf(stderr,
		        ",\"svg\":{\"events\":%llu,\"skipped\":%llu,\"busy\":%llu,\"heatmaps\":%llu,\"failed\":%llu,"
		        "\"removed\":%llu,\"draw_s\":%.3f}",
		        (unsigned long long)g.events, (unsigned long long)g.skipped, (unsigned long long)g.busy,
		        (unsigned long long)g.heatmaps, (unsigned long long)g.failed, (unsigned long long)g.removed,
		        g.draw_s);
	}
	fprintf(stderr, "}\n");
}

int hw_cmd_run(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? HW_EXIT_OK : rc;
	struct hw_an_config cfg;
	hw_an_config_default(&cfg);
	char err[512];
	if (o.config && hw_an_config_load(&cfg, o.config, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		return HW_EXIT_USAGE;
	}
	struct hw_topo t;
	struct hw_topo_map map;
	hw_topo_init(&t);
	memset(&map, 0, sizeof(map));
	int have_topo = o.n_lldp || o.n_lldpd_json;
	struct out out = {0};
	struct hw_analyzer *a = NULL;
	struct hw_record *buf = malloc(sizeof(*buf) * HW_STREAM_MAX_BATCH);
	if (have_topo && (rc = load_topology(&t, &map, &o)))
		goto done;
	rc = HW_EXIT_FAIL;
	if (o.events) {
		out.events = strcmp(o.events, "-") ? fopen(o.events, "w") : stdout;
		if (!out.events) {
			fprintf(stderr, "hopwatch-analyzer run: %s: %s\n", o.events, strerror(errno));
			goto done;
		}
	}
	if (o.am && !(out.am = hw_alert_sink_start(HW_SINK_ALERTMANAGER, o.am, cfg.alert_queue, cfg.resend_ns, err,
	                                           sizeof(err)))) {
		fprintf(stderr, "hopwatch-analyzer run: --alertmanager %s\n", err);
		rc = HW_EXIT_USAGE;
		goto done;
	}
	if (o.webhook && !(out.webhook = hw_alert_sink_start(HW_SINK_WEBHOOK, o.webhook, cfg.alert_queue, cfg.resend_ns,
	                                                     err, sizeof(err)))) {
		fprintf(stderr, "hopwatch-analyzer run: --webhook %s\n", err);
		rc = HW_EXIT_USAGE;
		goto done;
	}
	if (o.svg.dir) {
		struct stat st;
		if (mkdir(o.svg.dir, 0755) && (errno != EEXIST || stat(o.svg.dir, &st) || !S_ISDIR(st.st_mode))) {
			fprintf(stderr, "hopwatch-analyzer run: --svg-dir %s: %s\n", o.svg.dir,
			        errno == EEXIST ? "not a directory" : strerror(errno));
			rc = HW_EXIT_USAGE;
			goto done;
		}
		out.svg_dir = o.svg.dir;
		out.svg_every_ns = (uint64_t)(o.svg.every_s * 1e9);
		if (!have_topo)
			fprintf(stderr,
			        "hopwatch-analyzer run: --svg-dir %s: no topology (--lldp or --lldpd-json): the "
			        "latency matrix only, no congestion graphs\n",
			        o.svg.dir);
		out.gvc = hw_analyzer_gvc();
	}
	a = hw_an_create(&cfg, have_topo ? &t : NULL, o.map ? &map : NULL, emit, &out, err, sizeof(err));
	if (!a || !buf) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", a ? "out of memory" : err);
		goto done;
	}
	out.a = a;
	o.svg.wait = !o.stream; /* replays: every graph the rate allows, the same on every run */
	if (o.svg.dir && have_topo && !(out.graphs = an_graphs_start(&o.svg, &t, err, sizeof(err)))) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		goto done;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	hw_an_topology_events(a);
	if (o.metrics && !(out.metrics = an_metrics_start(o.metrics, have_topo ? &t : NULL, err, sizeof(err)))) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		rc = HW_EXIT_USAGE;
		goto done;
	}
	rc = o.n_records ? replay(a, &o, &out, buf) : HW_EXIT_OK;
	if (rc == HW_EXIT_OK && o.n_json)
		rc = replay_json(a, &o, &out, buf);
	if (rc == HW_EXIT_OK && o.ch.url)
		rc = replay_clickhouse(a, &o, &out, buf);
	if (rc == HW_EXIT_OK && o.stream)
		rc = live(a, &o, &out, buf);
	hw_an_finish(a);
	if (out.graphs)
		an_graphs_heatmap(out.graphs, a);
	refresh(a, &out, 1);
	if (out.svg_dir)
		matrix_files(a, &out);
	if (out.events)
		fflush(out.events);
	double end = mono_s() + o.hold;
	while (!stop_flag && mono_s() < end) {
		sleep_s(0.1);
		refresh(a, &out, 1);
	}
	for (int i = 0; i < 2; i++) {
		struct hw_alert_sink *s = i ? out.webhook : out.am;
		if (s && !hw_alert_sink_drain(s, 2000) && !o.quiet)
			fprintf(stderr, "hopwatch-analyzer run: %s: alerts still undelivered at exit\n",
			        i ? "webhook" : "alertmanager");
	}
	if (!o.quiet)
		summary(a, &out);
done:
	an_metrics_stop(out.metrics);
	hw_alert_sink_stop(out.am);
	hw_alert_sink_stop(out.webhook);
	an_graphs_stop(out.graphs);
	if (out.events && out.events != stdout)
		fclose(out.events);
	hw_an_destroy(a);
	free(buf);
	hw_topo_map_free(&map);
	hw_topo_free(&t);
	return rc;
}
