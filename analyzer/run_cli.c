/* `hopwatch-analyzer run`: options, then record sources (record_source.h) driven through the analyzer
 * one after the other, paced here, and the events and views handed to the table of outputs
 * (an_outputs.h).  Time is record time, so replays are deterministic. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "an_outputs.h"
#include "analyzer_cmd.h"
#include "clock.h"
#include "record_source.h"
#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/topo_sources.h"

#define MAX_INPUTS 64

struct opts {
	const char *records[MAX_INPUTS], *json[MAX_INPUTS];
	int n_records, n_json;
	int recorded_pace;
	const char *stream, *lldp[MAX_INPUTS], *lldpd_json[MAX_INPUTS], *map, *config, *events, *am, *webhook, *metrics,
	    *external_url;
	int n_lldp, n_lldpd_json;
	double hold, duration;
	int quiet;
	struct hw_ch_replay ch;    /* --clickhouse URL --table T --from TIME --to TIME */
	struct an_graphs_opts svg; /* svg.dir NULL: no graphs */
};

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void hw_cmd_run_usage(FILE *out)
{
	fprintf(out, "usage: hopwatch-analyzer run [inputs] [topology] [outputs] [options]\n"
	             "inputs:\n"
	             "  --records FILE.hwr     binary record file (repeatable; read in the order given)\n"
	             "  --json FILE.jsonl|-    JSON-lines records (docs/records.md; repeatable, after --records)\n"
	             "  --pace recorded|fast   replay at the records' own pace, or as fast as possible (default fast)\n"
	             "  --clickhouse URL       records of a time range from ClickHouse (docs/scale-out.md), with\n"
	             "  --from TIME --to TIME  time_ns >= from and < to; TIME is ns since the epoch or RFC 3339\n"
	             "                         (2026-01-01T00:00:00.25Z, 2026-01-01T01:00:00+01:00)\n"
	             "  --table T              [database.]table (default hops; hops_all = every shard)\n"
	             "  --stream ADDR          live records from the collector: unix:PATH or tcp:HOST:PORT\n"
	             "  --duration SECONDS     with --stream: stop after this long (default: until SIGINT/SIGTERM)\n"
	             "topology (optional; events then name nodes, ports and links):\n"
	             "  --lldp PCAP            LLDP frames from a capture (repeatable)\n"
	             "  --lldpd-json FILE|DIR  lldpcli JSON dumps (repeatable)\n"
	             "  --map FILE             INT node id / port map (docs/topology.md)\n"
	             "configuration:\n"
	             "  --config FILE          JSON thresholds (docs/analyzer.md); unknown keys are errors\n"
	             "outputs:\n"
	             "  --events FILE|-        events as JSON lines\n"
	             "  --alertmanager URL     Alertmanager base URL (POST URL/api/v2/alerts)\n"
	             "  --webhook URL          POST Alertmanager's webhook JSON (version 4) to URL\n"
	             "  --metrics HOST:PORT    serve the analyzer's own state at /metrics (Prometheus) and the\n"
	             "                         --svg-dir files at /svg/FILE\n"
	             "  --external-url URL     the analyzer's HTTP server as people reach it: alerts link their\n"
	             "                         graphs as URL/svg/FILE (default http://HOST:PORT of --metrics)\n"
	             "  --svg-dir DIR          SVG and CSV outputs (docs/analyzer.md):\n"
	             "                         the latency matrix (rows source leaf, columns destination leaf;\n"
	             "                         p99.9 and avg of the summed hop latencies),\n"
	             "                         DIR/latency-matrix-<record time ns>.{csv,svg}, newest also\n"
	             "                         DIR/latency-matrix.{csv,svg}; with the topology also the congestion\n"
	             "                         graphs: an SVG per raised congestion event,\n"
	             "                         DIR/event-<start ns>-<id>-<alertname>.svg (newest also\n"
	             "                         DIR/event-latest.svg), and the fabric heat map, DIR/heatmap-<ns>.svg\n"
	             "                         (newest also DIR/heatmap.svg)\n"
	             "  --svg-every SECONDS    latency matrix and heat map every SECONDS of record time and at the\n"
	             "                         end (default 10; 0 = at the end only)\n"
	             "  --svg-rate N           at most N event SVGs per alertname per second of record time\n"
	             "                         (default 5; 0 = every raise); the others are counted as skipped\n"
	             "  --svg-keep N           keep the newest N event SVGs and N heat maps (default 500; 0 = all)\n"
	             "  --hold SECONDS         after the input ends, keep delivering and re-sending for this long\n"
	             "  --quiet                no summary on stderr\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {{"json", required_argument, 0, 'J'},
	                                   {"records", required_argument, 0, 'r'},
	                                   {"pace", required_argument, 0, 'p'},
	                                   {"stream", required_argument, 0, 's'},
	                                   {"duration", required_argument, 0, 'D'},
	                                   {"lldp", required_argument, 0, 'l'},
	                                   {"lldpd-json", required_argument, 0, 'j'},
	                                   {"map", required_argument, 0, 'm'},
	                                   {"config", required_argument, 0, 'c'},
	                                   {"events", required_argument, 0, 'e'},
	                                   {"alertmanager", required_argument, 0, 'a'},
	                                   {"webhook", required_argument, 0, 'w'},
	                                   {"hold", required_argument, 0, 'H'},
	                                   {"metrics", required_argument, 0, 'M'},
	                                   {"external-url", required_argument, 0, 'U'},
	                                   {"quiet", no_argument, 0, 'q'},
	                                   {"svg-dir", required_argument, 0, 'S'},
	                                   {"svg-every", required_argument, 0, 'E'},
	                                   {"svg-rate", required_argument, 0, 'R'},
	                                   {"svg-keep", required_argument, 0, 'K'},
	                                   {"help", no_argument, 0, 'h'},
	                                   {"clickhouse", required_argument, 0, 'C'},
	                                   {"table", required_argument, 0, 'C'},
	                                   {"from", required_argument, 0, 'C'},
	                                   {"to", required_argument, 0, 'C'},
	                                   {0, 0, 0, 0}};
	memset(o, 0, sizeof(*o));
	o->svg.every_s = 10;
	o->svg.rate = 5;
	o->svg.keep = 500;
	o->svg.full_max = 32;
	optind = 1;
	int c, li = 0;
	char *end, err[512];
	while ((c = getopt_long(argc, argv, "", lo, &li)) != -1) {
		switch (c) {
		case 'r':
		case 'J':
		case 'l':
		case 'j': {
			const char **list = c == 'r'   ? o->records
			                    : c == 'J' ? o->json
			                    : c == 'l' ? o->lldp
			                               : o->lldpd_json;
			int *n = c == 'r'   ? &o->n_records
			         : c == 'J' ? &o->n_json
			         : c == 'l' ? &o->n_lldp
			                    : &o->n_lldpd_json;
			if (*n >= MAX_INPUTS) {
				fprintf(stderr, "hopwatch-analyzer run: at most %d of each input\n", MAX_INPUTS);
				return HW_EXIT_USAGE;
			}
			list[(*n)++] = optarg;
			break;
		}
		case 'p':
			if (strcmp(optarg, "recorded") && strcmp(optarg, "fast")) {
				fprintf(stderr, "hopwatch-analyzer run: --pace %s: expected recorded or fast\n",
				        optarg);
				return HW_EXIT_USAGE;
			}
			o->recorded_pace = strcmp(optarg, "recorded") == 0;
			break;
		case 's': o->stream = optarg; break;
		case 'm': o->map = optarg; break;
		case 'c': o->config = optarg; break;
		case 'e': o->events = optarg; break;
		case 'a': o->am = optarg; break;
		case 'w': o->webhook = optarg; break;
		case 'M': o->metrics = optarg; break;
		case 'U': o->external_url = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'S': o->svg.dir = optarg; break;
		case 'E':
		case 'R':
		case 'K': {
			double v = strtod(optarg, &end);
			if (*end || !*optarg || v < 0 || v > 1e9 || (c == 'K' && v != (unsigned)v)) {
				fprintf(stderr, "hopwatch-analyzer run: --svg-%s %s: expected a %s\n",
				        c == 'E'   ? "every"
				        : c == 'R' ? "rate"
				                   : "keep",
				        optarg,
				        c == 'E'   ? "number of seconds"
				        : c == 'R' ? "number per second"
				                   : "whole number");
				return HW_EXIT_USAGE;
			}
			if (c == 'E')
				o->svg.every_s = v;
			else if (c == 'R')
				o->svg.rate = v;
			else
				o->svg.keep = (unsigned)v;
			break;
		}
		case 'D':
		case 'H': {
			double v = strtod(optarg, &end);
			if (*end || end == optarg || !(v >= 0) || v > 1e9) {
				fprintf(stderr, "hopwatch-analyzer run: --%s %s: expected seconds\n",
				        c == 'D' ? "duration" : "hold", optarg);
				return HW_EXIT_USAGE;
			}
			*(c == 'D' ? &o->duration : &o->hold) = v;
			break;
		}
		case 'C':
			if (hw_ch_replay_option(&o->ch, lo[li].name, optarg, err, sizeof(err))) {
				fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
				return HW_EXIT_USAGE;
			}
			break;
		case 'h': hw_cmd_run_usage(stdout); return -1;
		default: hw_cmd_run_usage(stderr); return HW_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hopwatch-analyzer run: unexpected argument \"%s\"\n", argv[optind]);
		return HW_EXIT_USAGE;
	}
	if (hw_ch_replay_check(&o->ch, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		return HW_EXIT_USAGE;
	}
	if (!o->n_records && !o->n_json && !o->stream && !o->ch.url) {
		fprintf(stderr,
		        "hopwatch-analyzer run: give --records FILE, --json FILE, --clickhouse URL or --stream ADDR\n");
		return HW_EXIT_USAGE;
	}
	return 0;
}

static void sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

/* --pace recorded: the wall clock since the first record keeps up with record time (records older
 * than the first go at once); fast: no waiting. */
struct pace {
	uint64_t rec0;
	double wall0;
};

/* The record sources the options name, in the order they are read. */
enum { SRC_RECORDS, SRC_JSON, SRC_CLICKHOUSE, SRC_STREAM, SRC_KINDS };

/* Source k when the options ask for it: *src NULL when they do not; -1 with err when it cannot open. */
static int open_source(int k, const struct opts *o, struct record_source **src, char *err, size_t errlen)
{
	*src = NULL;
	if (k == SRC_RECORDS && o->n_records)
		*src = hw_source_files(o->records, o->n_records, err, errlen);
	else if (k == SRC_JSON && o->n_json)
		*src = hw_source_jsonl(o->json, o->n_json, &stop_flag, err, errlen);
	else if (k == SRC_CLICKHOUSE && o->ch.url)
		*src = hw_source_clickhouse(&o->ch, err, errlen);
	else if (k == SRC_STREAM && o->stream)
		*src = hw_source_stream(o->stream, o->duration, o->quiet, err, errlen);
	else
		return 0;
	return *src ? 0 : -1;
}

/* A replayed batch, each step followed by the outputs' tick: with --pace recorded steps of 64 records,
 * each waiting until the wall clock since the source's first record catches up with record time. */
static void ingest_replayed(struct hw_analyzer *a, const struct opts *o, struct an_outputs *out, struct pace *p,
                            const struct hw_record *r, size_t n)
{
	size_t step = o->recorded_pace ? 64 : n;
	for (size_t i = 0; i < n && !stop_flag; i += step) {
		size_t k = n - i < step ? n - i : step;
		if (o->recorded_pace && r[i].time_ns) {
			if (!p->rec0) {
				p->rec0 = r[i].time_ns;
				p->wall0 = hw_mono_s();
			}
			if (r[i].time_ns > p->rec0)
				sleep_s((double)(r[i].time_ns - p->rec0) / 1e9 - (hw_mono_s() - p->wall0));
		}
		hw_an_ingest(a, r + i, k);
		an_outputs_tick(out, AN_TICK_BATCH);
	}
}

/* Ingest a source to its end.  Replays: paced (ingest_replayed); an error ends the run.  Live: batches as
 * they arrive, never paced; on a quiet turn record time goes on with the wall clock (so episodes of
 * silent queues resolve); an error is reported and passed; the outputs tick after every turn. */
static int drive(struct hw_analyzer *a, struct record_source *src, const struct opts *o, struct an_outputs *out)
{
	struct pace p = {0};
	double last_wall = hw_mono_s();
	uint64_t last_rec = 0;
	char err[1024];
	while (!stop_flag) {
		const struct hw_record *r = NULL;
		long n = src->ops->next(src, &r, err, sizeof(err));
		if (n == HW_SRC_END)
			break;
		if (n == HW_SRC_ERROR)
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		if (!src->live) {
			if (n == HW_SRC_ERROR)
				return HW_EXIT_FAIL;
			ingest_replayed(a, o, out, &p, r, (size_t)n);
			continue;
		}
		if (n > 0) {
			hw_an_ingest(a, r, (size_t)n);
			last_rec = hw_an_now(a);
			last_wall = hw_mono_s();
		} else if (n == 0 && last_rec) {
			hw_an_tick(a, last_rec + (uint64_t)((hw_mono_s() - last_wall) * 1e9));
		}
		an_outputs_tick(out, AN_TICK_BATCH);
	}
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
	double now = hw_real_s();
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

static void summary(struct hw_analyzer *a, struct an_outputs *out)
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
	an_outputs_summary(out, stderr, 0);
	char *lat = hw_an_lat_json(hw_an_latency(a), 16);
	if (lat)
		fprintf(stderr, ",\"latency_matrix\":%s", lat);
	free(lat);
	an_outputs_summary(out, stderr, 1);
	fprintf(stderr, "}\n");
}

/* The outputs that need no analyzer (all but the graphs and /metrics); *am and *webhook: the alert sinks
 * (for /metrics), NULL when not asked for. */
static int outputs_early(struct an_outputs *out, const struct opts *o, const struct hw_an_config *cfg, int have_topo,
                         struct hw_alert_sink **am_sink, struct hw_alert_sink **webhook_sink)
{
	char err[512];
	struct an_output *am = NULL, *webhook = NULL, *x;
	char base[600] = ""; /* the external base URL of the graphs: --external-url, else the --metrics server */
	if (o->external_url)
		snprintf(base, sizeof(base), "%s", o->external_url);
	else if (o->metrics)
		snprintf(base, sizeof(base), "http://%s", o->metrics);
	const struct hw_alert_sink_opts ao = {.capacity = cfg->alert_queue,
	                                      .resend_ns = cfg->resend_ns,
	                                      .min_visible_ns = cfg->min_visible_ns,
	                                      .external_url = base};
	if (o->events) {
		if (!(x = an_out_events(o->events, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			return HW_EXIT_FAIL;
		}
		an_outputs_add(out, x);
	}
	if (o->am) {
		if (!(am = an_out_alerts(HW_SINK_ALERTMANAGER, o->am, &ao, o->quiet, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			return HW_EXIT_USAGE;
		}
		an_outputs_add(out, am);
		*am_sink = an_out_alert_sink(am);
	}
	if (o->webhook) {
		if (!(webhook = an_out_alerts(HW_SINK_WEBHOOK, o->webhook, &ao, o->quiet, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			return HW_EXIT_USAGE;
		}
		an_outputs_add(out, webhook);
		*webhook_sink = an_out_alert_sink(webhook);
	}
	if (o->svg.dir) {
		struct an_render *r = an_outputs_renderer(out, err, sizeof(err));
		if (!r) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			return HW_EXIT_FAIL;
		}
		if (!(x = an_out_latency(o->svg.dir, r, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			return HW_EXIT_USAGE;
		}
		an_outputs_add(out, x);
		out->every_ns = (uint64_t)(o->svg.every_s * 1e9);
		if (!have_topo)
			fprintf(stderr,
			        "hopwatch-analyzer run: --svg-dir %s: no topology (--lldp or --lldpd-json): the "
			        "latency matrix only, no congestion graphs\n",
			        o->svg.dir);
	}
	return HW_EXIT_OK;
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
	struct an_outputs out = {0};
	struct an_output *x;
	struct hw_alert_sink *am = NULL, *webhook = NULL;
	struct hw_analyzer *a = NULL;
	if (have_topo && (rc = load_topology(&t, &map, &o)))
		goto done;
	if ((rc = outputs_early(&out, &o, &cfg, have_topo, &am, &webhook)))
		goto done;
	rc = HW_EXIT_FAIL;
	a = hw_an_create(&cfg, have_topo ? &t : NULL, o.map ? &map : NULL, an_outputs_emit, &out, err, sizeof(err));
	if (!a) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		goto done;
	}
	an_outputs_bind(&out, a);
	o.svg.wait = !o.stream; /* replays: every graph the rate allows, the same on every run */
	if (o.svg.dir && have_topo) {
		struct an_output *graphs = an_out_graphs(&o.svg, &t, out.render, err, sizeof(err));
		if (!graphs || !(x = an_out_heatmap(graphs, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			if (graphs)
				graphs->ops->close(graphs);
			goto done;
		}
		an_outputs_add(&out, x);      /* the heat map before the graphs: closed after them */
		an_outputs_add(&out, graphs); /* after every other output of events: draws once they have it */
		hw_an_deliver_per_step(a, 1); /* a graph shows the analyzer's state at its event's step */
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	hw_an_topology_events(a);
	if (o.metrics) {
		const struct an_metrics_opts mo = {.addr = o.metrics,
		                                   .topo = have_topo ? &t : NULL,
		                                   .am = am,
		                                   .webhook = webhook,
		                                   .svg_dir = o.svg.dir,
		                                   .min_visible_ns = cfg.min_visible_ns};
		if (!(x = an_out_metrics(&mo, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			rc = HW_EXIT_USAGE;
			goto done;
		}
		an_outputs_add(&out, x);
	}
	rc = HW_EXIT_OK;
	for (int k = 0; k < SRC_KINDS && rc == HW_EXIT_OK; k++) {
		struct record_source *src;
		if (open_source(k, &o, &src, err, sizeof(err))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			rc = HW_EXIT_FAIL;
		} else if (src) {
			rc = drive(a, src, &o, &out);
			src->ops->close(src);
		}
	}
	hw_an_finish(a);
	an_outputs_tick(&out, AN_TICK_END);
	double end = hw_mono_s() + o.hold;
	while (!stop_flag && hw_mono_s() < end) {
		sleep_s(0.1);
		an_outputs_tick(&out, AN_TICK_HOLD);
	}
	an_outputs_tick(&out, AN_TICK_EXIT);
	if (!o.quiet)
		summary(a, &out);
done:
	an_outputs_close(&out);
	hw_an_destroy(a);
	hw_topo_map_free(&map);
	hw_topo_free(&t);
	return rc;
}
