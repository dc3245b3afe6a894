/* `hopwatch-analyzer run`: records (files or the live stream) + LLDP topology + config in; events as JSON
 * lines, Alertmanager alerts and webhook posts out.  Time is record time, so replays are deterministic. */
#include <errno.h>
#include <getopt.h>
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
#include "clock.h"
#include "json_writer.h"
#include "records_clickhouse.h"
#include "records_jsonl.h"
#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/topo_sources.h"
#include "hopwatch/record_file.h"
#include "hopwatch/stream.h"

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
	struct hw_analyzer *a; /* for the graphs, in emit */
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
	             "  --webhook URL          POST {\"events\":[...]} to URL\n"
	             "  --metrics HOST:PORT    serve the analyzer's own state at /metrics (Prometheus)\n"
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

static void emit(void *ctx, const struct hw_an_event *e)
{
	struct out *out = ctx;
	char svg[AN_GRAPHS_SVG_MAX] = ""; /* the SVG's name goes out with the event; it is drawn after the hand-over */
	int draw = out->graphs && an_graphs_name(out->graphs, out->a, e, svg);
	if (out->events) {
		char buf[4096];
		hw_an_event_json(e, svg, buf, sizeof(buf));
		fprintf(out->events, "%s\n", buf);
	}
	if (out->am)
		hw_alert_sink_push(out->am, e, svg);
	if (out->webhook)
		hw_alert_sink_push(out->webhook, e, svg);
	if (draw)
		an_graphs_draw_event(out->graphs, out->a, e, svg);
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
	double now = hw_mono_s();
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
				p->wall0 = hw_mono_s();
			}
			if (r[i].time_ns > p->rec0)
				sleep_s((double)(r[i].time_ns - p->rec0) / 1e9 - (hw_mono_s() - p->wall0));
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
	double end = o->duration > 0 ? hw_mono_s() + o->duration : 0, last_wall = hw_mono_s();
	uint64_t last_rec = 0;
	while (!stop_flag && (!end || hw_mono_s() < end)) {
		long n = hw_stream_receive(l, buf, 100, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		} else if (n > 0) {
			hw_an_ingest(a, buf, (size_t)n);
			last_rec = hw_an_now(a);
			last_wall = hw_mono_s();
		} else if (last_rec) {
			/* quiet: record time goes on with the wall clock, so episodes of silent queues resolve */
			hw_an_tick(a, last_rec + (uint64_t)((hw_mono_s() - last_wall) * 1e9));
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

/* Keys and their counts, into the summary's JSON. */
struct count {
	const char *key;
	uint64_t v;
};
static void put_counts(struct hw_json *j, const struct count *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		hw_json_key(j, c[i].key);
		hw_json_u64(j, c[i].v);
	}
}

static void summary(struct hw_analyzer *a, const struct out *out)
{
	struct hw_an_stats s;
	hw_an_stats(a, &s);
	struct hw_json j;
	hw_json_init_heap(&j);
	hw_json_obj(&j);
	const struct count counts[] = {{"records", s.records},
	                               {"placed", s.placed},
	                               {"unplaced", s.unplaced},
	                               {"queues", s.queues},
	                               {"queues_dropped", s.queues_dropped},
	                               {"reports", s.reports},
	                               {"reports_lost", s.reports_lost},
	                               {"flows", s.flows},
	                               {"events_raised", s.events_raised},
	                               {"events_resolved", s.events_resolved}};
	put_counts(&j, counts, sizeof(counts) / sizeof(counts[0]));
	const struct hw_place_tally *t = hw_an_unplaced(a);
	if (t) {
		hw_json_key(&j, "unplaced_list");
		hw_json_arr(&j);
		for (uint32_t i = 0; i < t->n_entries && i < 32; i++) {
			hw_json_obj(&j);
			const struct count place[] = {{"node_id", t->entries[i].node_id}, {"port", t->entries[i].port}};
			put_counts(&j, place, 2);
			hw_json_key(&j, "why");
			hw_json_str(&j, hw_place_name(t->entries[i].why));
			hw_json_key(&j, "records");
			hw_json_u64(&j, t->entries[i].count);
			hw_json_obj_end(&j);
		}
		hw_json_arr_end(&j);
	}
	const struct hw_alert_sink *sinks[2] = {out->am, out->webhook};
	const char *names[2] = {"alertmanager", "webhook"};
	for (int i = 0; i < 2; i++) {
		if (!sinks[i])
			continue;
		struct hw_alert_sink_stats st;
		hw_alert_sink_stats((struct hw_alert_sink *)sinks[i], &st);
		const struct count sc[] = {
		    {"pushed", st.pushed},     {"dropped", st.dropped},           {"sent_alerts", st.sent_alerts},
		    {"posts_ok", st.posts_ok}, {"posts_failed", st.posts_failed}, {"waiting", st.waiting}};
		hw_json_key(&j, names[i]);
		hw_json_obj(&j);
		put_counts(&j, sc, sizeof(sc) / sizeof(sc[0]));
		hw_json_obj_end(&j);
	}
	char *lat = hw_an_lat_json(hw_an_latency(a), 16);
	if (lat) {
		hw_json_key(&j, "latency_matrix");
		hw_json_raw(&j, lat, strlen(lat));
	}
	free(lat);
	if (out->graphs) {
		struct an_graphs_stats g;
		an_graphs_stats(out->graphs, &g);
		const struct count gc[] = {{"events", g.events},     {"skipped", g.skipped}, {"busy", g.busy},
		                           {"heatmaps", g.heatmaps}, {"failed", g.failed},   {"removed", g.removed}};
		hw_json_key(&j, "svg");
		hw_json_obj(&j);
		put_counts(&j, gc, sizeof(gc) / sizeof(gc[0]));
		hw_json_key(&j, "draw_s");
		hw_json_numf(&j, "%.3f", g.draw_s);
		hw_json_obj_end(&j);
	}
	hw_json_obj_end(&j);
	if (!j.failed)
		fprintf(stderr, "%s\n", j.buf);
	hw_json_free(&j);
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
	if (out.graphs) /* a graph shows the analyzer's state at its event's step */
		hw_an_deliver_per_step(a, 1);
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
	double end = hw_mono_s() + o.hold;
	while (!stop_flag && hw_mono_s() < end) {
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
