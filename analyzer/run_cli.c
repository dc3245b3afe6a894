/* `hopwatch-analyzer run`: options, then record sources (record_source.h) driven through the analyzer
 * one after the other, paced here, and the events and views handed to the table of outputs
 * (an_outputs.h).  Time is record time, so replays are deterministic. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "an_attr.h"
#include "an_outputs.h"
#include "analyzer_cmd.h"
#include "clock.h"
#include "http_client.h"
#include "log.h"
#include "record_source.h"
#include "run_summary.h"
#include "stream_shm.h"
#include "service.h"
#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/metrics_http.h"
#include "hopwatch/topo_sources.h"
#include "hopwatch/record_file.h"
#include "hopwatch/stream.h"
#include "options.h"

#define MAX_INPUTS 64

struct opts {
	const char *records[MAX_INPUTS], *json[MAX_INPUTS];
	int n_records, n_json;
	int recorded_pace;
	const char *stream, *stream_key, *lldp[MAX_INPUTS], *lldpd_json[MAX_INPUTS], *lldpd[MAX_INPUTS], *map, *config,
	    *events, *am, *webhook, *metrics, *external_url, *http, *summary_json;
	int n_lldp, n_lldpd_json, n_lldpd;
	double hold, duration, topo_reload, latency_window, status_interval;
	int quiet;
	struct hw_ch_replay ch;                          /* --clickhouse URL --table T --from TIME --to TIME */
	struct an_graphs_opts svg;                       /* svg.dir NULL: no graphs */
	const char *pods[8], *ident_maps[8], *job_label; /* whose traffic: lib/ident */
	int n_pods, n_ident_maps;
	const char *k8s_api, *k8s_token, *k8s_ca;
	double k8s_every;
	const char *http_auth, *tls_cert, *tls_key; /* --metrics and --http: hw_metrics_http_secure */
	const char *web_config;                     /* the same from an exporter web config file */
	uint32_t metrics_max_series;
	uint32_t threads;
};

static volatile sig_atomic_t stop_flag, reload_flag;
static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_flag = 1;
	else
		stop_flag = 1;
}

/* --clickhouse, --clickhouse-table, --from, --to: records_clickhouse.c checks each. */
static int ch_option(const char *name, const char *text, void *field, char *want, size_t wantlen)
{
	if (!hw_ch_replay_option(field, name, text, want, wantlen))
		return 0;
	const char *colon = strstr(want, ": "); /* the message names the option and value already */
	if (colon)
		memmove(want, colon + 2, strnlen(colon + 2, wantlen) + 1);
	size_t n = strnlen(want, wantlen);
	if (n < 9 || strncmp(want, "expected ", 9))
		return -2; /* what is wrong with the value */
	memmove(want, want + 9, n - 9 + 1);
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
    {HW_OPT_CUSTOM, "to", .metavar = "TIME", HW_OPT_AT(O, ch), .parse = ch_to, .what = "TIME", .help = "... and < to"},
    {HW_OPT_CUSTOM, "clickhouse-table", .metavar = "T", HW_OPT_AT(O, ch), .parse = ch_table, .what = "table",
     .def_note = "hops", .help = "[database.]table (hops_all = every shard), as the collector's option"},
    {HW_OPT_ALIAS, "table", .alias_of = "clickhouse-table"},
    {HW_OPT_ADDR, "stream", .metavar = "ADDR", HW_OPT_AT(O, stream), .addr = HW_ADDR_STREAM_SHM,
     .help = "live records from the collector: unix:PATH or tcp:HOST:PORT, or\n"
             "shm:PATH, the file of a collector's --stream shm:PATH on this host"},
    {HW_OPT_STRING, "stream-key", .metavar = "FILE", HW_OPT_AT(O, stream_key),
     .help = "take only batches authenticated with this shared key (the collector's --stream-key)"},
    {HW_OPT_DURATION, "duration", .metavar = "SECONDS", HW_OPT_AT(O, duration), .hi = 1e9,
     .def_note = "until SIGINT/SIGTERM", .help = "with --stream: stop after this long"},
    {HW_OPT_GROUP, .help = "topology (optional; events then name nodes, ports and links):"},
    {HW_OPT_LIST, "lldp", .metavar = "PCAP", HW_OPT_LIST_AT(O, lldp, n_lldp), .elem = HW_OPT_STRING, .what = "capture",
     .help = "LLDP frames from a capture"},
    {HW_OPT_LIST, "lldpd-json", .metavar = "FILE|DIR", HW_OPT_LIST_AT(O, lldpd_json, n_lldpd_json),
     .elem = HW_OPT_STRING, .what = "dump", .help = "lldpcli JSON dumps"},
    {HW_OPT_LIST, "lldpd", .metavar = "SOCKET", HW_OPT_LIST_AT(O, lldpd, n_lldpd), .elem = HW_OPT_STRING,
     .what = "source", .help = "the local lldpd through liblldpctl ('default' = its default socket)"},
    {HW_OPT_DURATION, "topology-reload", .metavar = "SECONDS", HW_OPT_AT(O, topo_reload), .hi = 1e9, .def = "60",
     .help = "with --stream, load these sources again every SECONDS (0 = only on\n"
             "SIGHUP, which reloads at once): a link gone from LLDP raises LinkDown,\n"
             "resolved with a LinkUp when it comes back"},
    {HW_OPT_DURATION, "status-interval", .metavar = "SECONDS", HW_OPT_AT(O, status_interval), .hi = 86400, .def = "60",
     .help = "with --stream, one status line on stderr every SECONDS (records, events,\n"
             "peers down; 0 = none)"},
    {HW_OPT_STRING, "map", .metavar = "FILE", HW_OPT_AT(O, map), .help = "INT node id / port map (docs/topology.md)"},
    {HW_OPT_GROUP, .help = "whose traffic (optional; events then name the jobs of their flows, docs/analyzer.md):"},
    {HW_OPT_LIST, "pods", .metavar = "FILE|DIR", HW_OPT_LIST_AT(O, pods, n_pods), .elem = HW_OPT_STRING,
     .what = "pod list", .help = "`kubectl get pods -A -o json` output (a DIR: its *.json), reloaded when it changes"},
    {HW_OPT_LIST, "ident-map", .metavar = "FILE", HW_OPT_LIST_AT(O, ident_maps, n_ident_maps), .elem = HW_OPT_STRING,
     .what = "identity map", .help = "CSV ip,qp,host,pod,job,namespace (or JSON), reloaded when it changes"},
    {HW_OPT_STRING, "k8s-api", .metavar = "URL", HW_OPT_AT(O, k8s_api),
     .help = "the Kubernetes API's pod list (https://kubernetes.default.svc/api/v1/pods), listed then watched"},
    {HW_OPT_STRING, "k8s-token", .metavar = "FILE", HW_OPT_AT(O, k8s_token),
     .help = "bearer token file (in a pod: /var/run/secrets/kubernetes.io/serviceaccount/token)"},
    {HW_OPT_STRING, "k8s-ca", .metavar = "FILE", HW_OPT_AT(O, k8s_ca),
     .help = "CA certificates of the API server (in a pod: .../serviceaccount/ca.crt)"},
    {HW_OPT_DURATION, "k8s-every", .metavar = "SECONDS", HW_OPT_AT(O, k8s_every), .lo = 0.05, .hi = 86400, .def = "10",
     .help = "the wait before listing the pods again after a failed list or watch"},
    {HW_OPT_STRING, "job-label", .metavar = "L[,L...]", HW_OPT_AT(O, job_label), .def_note = HW_IDENT_JOB_LABELS,
     .help = "pod labels that name the job, the first present wins"},
    {HW_OPT_GROUP, .help = "configuration:"},
    {HW_OPT_STRING, "config", .metavar = "FILE", HW_OPT_AT(O, config),
     .help = "JSON thresholds (docs/analyzer.md); unknown keys are errors"},
    {HW_OPT_UINT, "threads", .metavar = "N", HW_OPT_AT(O, threads), .lo = 1, .hi = 8, .def = "1",
     .help = "threads in all.  1: one thread reads and analyses; 2: --records (regular\n"
             "files) and --stream are read on a thread of their own, a few batches\n"
             "ahead; 3 or more: also HighQueue/HighHopLatency's per-queue steps on\n"
             "N - 2 threads by switch (the events are the same; docs/performance.md)"},
    {HW_OPT_GROUP, .help = "outputs:"},
    {HW_OPT_STRING, "events", .metavar = "FILE|-", HW_OPT_AT(O, events),
     .help = "events as JSON lines, appended to FILE (kept across restarts) and flushed after each batch"},
    {HW_OPT_STRING, "alertmanager", .metavar = "URL", HW_OPT_AT(O, am),
     .help = "Alertmanager base URL (POST URL/api/v2/alerts)"},
    {HW_OPT_STRING, "webhook", .metavar = "URL", HW_OPT_AT(O, webhook),
     .help = "POST Alertmanager's webhook JSON (version 4) to URL"},
    {HW_OPT_ADDR, "metrics", .metavar = "HOST:PORT", HW_OPT_AT(O, metrics), .addr = HW_ADDR_HOSTPORT,
     .help = "serve the analyzer's own state at /metrics (Prometheus) and the\n--svg-dir files at /svg/FILE"},
    {HW_OPT_UINT, "metrics-max-series", .metavar = "N", HW_OPT_AT(O, metrics_max_series), .hi = 1 << 28, .def = "4096",
     .help = "/metrics shows at most N series of node_info and of link_congestion_score\n"
             "(the highest scores; 0 = all); the rest are counted in\n"
             "hopwatch_analyzer_metrics_series_omitted"},
    {HW_OPT_DURATION, "latency-window", .metavar = "SECONDS", HW_OPT_AT(O, latency_window), .lo = 1, .hi = 86400,
     .def = "10", .help = "the latency matrix's windowed gauges on /metrics cover the last SECONDS\n(wall clock)"},
    {HW_OPT_ADDR, "http", .metavar = "HOST:PORT", HW_OPT_AT(O, http), .addr = HW_ADDR_HOSTPORT,
     .help = "serve the live console at http://HOST:PORT/console/ (docs/analyzer.md);\n"
             "give a loopback address (127.0.0.1) unless others must reach it"},
    {HW_OPT_STRING, "http-auth", .metavar = "FILE", HW_OPT_AT(O, http_auth),
     .help = "--metrics and --http need HTTP basic auth of a user of FILE: lines\n"
             "USER:HASH, bcrypt (htpasswd -nB USER) or SHA-256 crypt; else 401\n"
             "(docs/operations.md \"Securing the HTTP servers\")"},
    {HW_OPT_STRING, "tls-cert", .metavar = "FILE", HW_OPT_AT(O, tls_cert),
     .help = "serve --metrics and --http over HTTPS only, with this PEM certificate\n(chain); needs --tls-key"},
    {HW_OPT_STRING, "tls-key", .metavar = "FILE", HW_OPT_AT(O, tls_key), .help = "the PEM private key of --tls-cert"},
    {HW_OPT_STRING, "web-config", .metavar = "FILE", HW_OPT_AT(O, web_config),
     .help = "--metrics and --http TLS and basic auth from a Prometheus exporter web\n"
             "config (tls_server_config.cert_file/key_file, basic_auth_users: bcrypt),\n"
             "YAML or JSON; in place of --http-auth/--tls-cert/--tls-key"},
    {HW_OPT_ADDR, "external-url", .metavar = "URL", HW_OPT_AT(O, external_url), .addr = HW_ADDR_URL,
     .help = "the analyzer's HTTP server as people reach it: alerts link their\ngraphs as URL/svg/FILE (default "
             "http://HOST:PORT of --metrics)"},
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
    {HW_OPT_STRING, "summary-json", .metavar = "FILE|-", HW_OPT_AT(O, summary_json),
     .help = "at exit, the full summary as one JSON object (docs/analyzer.md) to FILE,\n"
             "or with - to stderr in place of the readable lines"},
    {HW_OPT_FLAG, "quiet", HW_OPT_AT(O, quiet), .help = "no summary on stderr (--summary-json FILE is still written)"},
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
	if (hw_shm_key_conflict(o->stream, o->stream_key)) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", hw_shm_key_conflict(o->stream, o->stream_key));
		return HW_EXIT_USAGE;
	}
	if (!o->n_records && !o->n_json && !o->stream && !o->ch.url) {
		fprintf(
		    stderr,
		    "hopwatch-analyzer run: give --records FILE, --jsonl FILE, --clickhouse URL or --stream ADDR\n");
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

/* Every path names a regular file (not a pipe or a terminal, whose reads can wait for ever). */
static int regular_files(const char *const *paths, int n)
{
	struct stat st;
	for (int i = 0; i < n; i++)
		if (stat(paths[i], &st) || !S_ISREG(st.st_mode))
			return 0;
	return 1;
}

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
	else if (k == SRC_STREAM && hw_shm_path(o->stream))
		*src = hw_source_shm(hw_shm_path(o->stream), o->duration, o->quiet, err, errlen);
	else if (k == SRC_STREAM && o->stream)
		*src = hw_source_stream(o->stream, o->stream_key, o->duration, o->quiet, err, errlen);
	else
		return 0;
	/* --threads 2: on a reader thread the sources whose reads never block for long (a stop signal comes to
	 * this thread, and a read blocked on a quiet pipe must end with it: JSON lines stay here; ClickHouse's
	 * query has a thread of its own; shm: has nothing to read or decode, its records are taken in place) */
	if (*src && o->threads > 1 &&
	    ((k == SRC_STREAM && !hw_shm_path(o->stream)) ||
	     (k == SRC_RECORDS && regular_files(o->records, o->n_records))))
		*src = hw_source_thread(*src, err, errlen);
	return *src ? 0 : -1;
}

/* Every LLDP source of the options into t, the facts dated now. */
static enum hw_topo_result load_sources(struct hw_topo *t, const struct opts *o, double now, struct hw_topo_error *err)
{
	enum hw_topo_result r = HW_TOPO_OK;
	for (int i = 0; i < o->n_lldp && r == HW_TOPO_OK; i++)
		r = hw_topo_load_pcap(t, o->lldp[i], 0, 0, err);
	for (int i = 0; i < o->n_lldpd_json && r == HW_TOPO_OK; i++)
		r = hw_topo_load_lldpd_path(t, o->lldpd_json[i], now, err);
	for (int i = 0; i < o->n_lldpd && r == HW_TOPO_OK; i++)
		r = hw_topo_load_lldpctl(t, strcmp(o->lldpd[i], "default") ? o->lldpd[i] : NULL, now, err);
	return r;
}

static int load_topology(struct hw_topo *t, struct hw_topo_map *map, const struct opts *o)
{
	struct hw_topo_error err = {0};
	enum hw_topo_result r = o->map ? hw_topo_map_load(map, o->map, &err) : HW_TOPO_OK;
	if (r != HW_TOPO_OK) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err.message);
		return HW_EXIT_USAGE;
	}
	if (load_sources(t, o, hw_real_s(), &err) != HW_TOPO_OK) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err.message);
		return HW_EXIT_FAIL;
	}
	hw_topo_check(t);
	hw_topo_map_apply(t, o->map ? map : NULL);
	hw_topo_assign_tiers(t);
	return HW_EXIT_OK;
}

/* Without an LLDP source: the map's nodes and ports are the topology (no links), so the map alone places
 * and names the records. */
static int load_map_topology(struct hw_topo *t, struct hw_topo_map *map, const struct opts *o)
{
	struct hw_topo_error err = {0};
	enum hw_topo_result r = hw_topo_map_load(map, o->map, &err);
	if (r == HW_TOPO_OK)
		r = hw_topo_from_map(t, map, &err);
	if (r != HW_TOPO_OK) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err.message);
		return r == HW_TOPO_E_NOMEM ? HW_EXIT_FAIL : HW_EXIT_USAGE;
	}
	hw_topo_assign_tiers(t);
	return HW_EXIT_OK;
}

/* What the run watches as it goes: the links as the latest load saw them and when the next periodic reload
 * is due; the alert sinks, for their down and back lines. */
struct run_live {
	struct hw_topo_live live;
	int on;      /* the run has LLDP sources */
	double next; /* monotonic seconds; 0 = none due */
	struct hw_alert_sink *sink[2];
	struct hw_peer_log peer[2];
	double status_next, wd_next;     /* monotonic seconds: the next status line, the next WATCHDOG=1 */
	uint64_t status_records;         /* records at the last status line */
	double status_at, wd_interval_s; /* when that line was; half the unit's WatchdogSec (0: none) */
};

/* A sink's peer is down when only its failed posts grew since the last look, back when a post went through. */
static void watch_peers(struct run_live *tr)
{
	for (int i = 0; i < 2; i++) {
		if (!tr->sink[i])
			continue;
		struct hw_alert_sink_stats st;
		hw_alert_sink_stats(tr->sink[i], &st);
		hw_peer_counts(&tr->peer[i], st.posts_ok, st.posts_failed, "posts fail; alerts wait in its queue");
	}
}

static void watch_sink(struct run_live *tr, int i, struct hw_alert_sink *sink, const char *kind, const char *url)
{
	char shown[160], peer[sizeof(tr->peer[i].peer)];
	hw_http_redact(url, shown, sizeof(shown));
	snprintf(peer, sizeof(peer), "%s %s", kind, shown);
	tr->sink[i] = sink;
	hw_peer_log_init(&tr->peer[i], peer, "post");
}

/* The periodic status line of a live run (--status-interval) and the unit's STATUS=: records and their
 * rate, events, and the peers that are down.  WATCHDOG=1 at half the unit's WatchdogSec while the loop turns. */
static void run_status(const struct hw_analyzer *a, struct run_live *tr, const struct opts *o, int live)
{
	double now = hw_mono_s();
	if (tr->wd_interval_s > 0 && now >= tr->wd_next) {
		hw_service_watchdog();
		tr->wd_next = now + tr->wd_interval_s;
	}
	if (!live || o->status_interval <= 0)
		return;
	if (!tr->status_next) { /* the first call: rates count from here */
		tr->status_next = now + o->status_interval;
		tr->status_at = now;
		return;
	}
	if (now < tr->status_next)
		return;
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	char line[1024];
	size_t off = (size_t)snprintf(line, sizeof(line), "records %llu (%.0f/s), events raised %llu, resolved %llu",
	                              (unsigned long long)st.records,
	                              (double)(st.records - tr->status_records) / (now - tr->status_at),
	                              (unsigned long long)st.events_raised, (unsigned long long)st.events_resolved);
	const char *sep = "; peers down: ";
	for (int i = 0; i < 2; i++)
		if (tr->sink[i] && tr->peer[i].down && off < sizeof(line)) {
			off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s", sep, tr->peer[i].peer);
			sep = ", ";
		}
	if (sep[0] == ';' && off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, "; peers down: none");
	fprintf(stderr, "%shopwatch-analyzer run: status: %s\n", hw_service_log_prefix(6), line);
	hw_service_status(line);
	tr->status_records = st.records;
	tr->status_at = now;
	tr->status_next = now + o->status_interval;
}

/* Load the sources again and raise what changed.  A load that fails changes nothing: half a dump must
 * not take every link down. */
static void reload_topology(struct hw_analyzer *a, struct run_live *tr, const struct opts *o, const char *why)
{
	struct hw_topo fresh;
	hw_topo_init(&fresh);
	struct hw_topo_error err = {0};
	double now = hw_real_s();
	if (load_sources(&fresh, o, now, &err) != HW_TOPO_OK) {
		fprintf(stderr, "%shopwatch-analyzer run: topology reload (%s): %s; links kept as they were\n",
		        hw_service_log_prefix(4), why, err.message);
	} else if (hw_topo_live_update(&tr->live, &fresh)) {
		fprintf(stderr, "%shopwatch-analyzer run: topology reload (%s): out of memory\n",
		        hw_service_log_prefix(3), why);
	} else if (tr->live.n_changes) {
		uint32_t down = 0, up = 0, moved = 0;
		for (uint32_t i = 0; i < tr->live.n_changes; i++) {
			enum hw_topo_event_kind k = tr->live.changes[i].kind;
			k == HW_EV_LINK_DOWN ? down++ : k == HW_EV_LINK_UP ? up++ : moved++;
		}
		char nb[64] = "";
		if (moved)
			snprintf(nb, sizeof(nb), ", %u neighbour%s changed", moved, moved == 1 ? "" : "s");
		fprintf(stderr, "%shopwatch-analyzer run: topology reload (%s): %u link%s down, %u up%s\n",
		        hw_service_log_prefix(down ? 4 : 5), why, down, down == 1 ? "" : "s", up, nb);
		hw_an_topology_changes(a, &tr->live, now, why);
	}
	hw_topo_free(&fresh);
}

/* On SIGHUP at once; with a live source also every --topology-reload seconds. */
static void maybe_reload(struct hw_analyzer *a, struct run_live *tr, const struct opts *o, int live)
{
	if (!tr->on)
		return;
	if (reload_flag) {
		reload_flag = 0;
		reload_topology(a, tr, o, "SIGHUP");
	} else if (live && o->topo_reload > 0 && hw_mono_s() >= tr->next) {
		if (tr->next)
			reload_topology(a, tr, o, "periodic");
	} else {
		return;
	}
	tr->next = hw_mono_s() + o->topo_reload;
}

/* A replayed batch, each step followed by the outputs' tick: with --pace recorded steps of 64 records,
 * each waiting until the wall clock since the source's first record catches up with record time. */
static void ingest_replayed(struct hw_analyzer *a, const struct opts *o, struct an_outputs *out, struct pace *p,
                            const struct hw_record *r, size_t n)
{
	size_t step = o->recorded_pace ? 64 : n;
	for (size_t i = 0; i < n; i += step) { /* after a stop signal the batch read is analysed, unpaced */
		size_t k = n - i < step ? n - i : step;
		if (o->recorded_pace && r[i].time_ns && !stop_flag) {
			if (!p->rec0) {
				p->rec0 = r[i].time_ns;
				p->wall0 = hw_mono_s();
			}
			if (r[i].time_ns > p->rec0)
				sleep_s((double)(r[i].time_ns - p->rec0) / 1e9 - (hw_mono_s() - p->wall0));
		}
		an_attr_learn(out->attr, r + i, k);
		hw_an_ingest(a, r + i, k);
		an_outputs_records(out, r + i, k);
		an_outputs_tick(out, AN_TICK_BATCH);
	}
}

/* Live, record time (the switches' clocks) goes on with the wall clock only once no record has come for
 * this long: a stall of a sender, the collector or this host is not silence of the fabric, and moving
 * record time on through it would resolve episodes that are still open (and end bursts) mid-incident. */
#define LIVE_QUIET_S 1.0

/* Ingest a source to its end.  Replays: paced (ingest_replayed); an error ends the run.  Live: batches as
 * they arrive, never paced; after LIVE_QUIET_S without records, record time goes on with the wall clock (so
 * episodes of silent queues resolve); an error is reported and passed; the outputs tick after every turn. */
static int drive(struct hw_analyzer *a, struct record_source *src, const struct opts *o, struct an_outputs *out,
                 struct run_live *tr)
{
	struct pace p = {0};
	double last_wall = hw_mono_s();
	uint64_t last_rec = 0;
	char err[1024];
	while (!stop_flag) {
		maybe_reload(a, tr, o, src->live);
		watch_peers(tr);
		run_status(a, tr, o, src->live);
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
			an_attr_learn(out->attr, r, (size_t)n);
			hw_an_ingest(a, r, (size_t)n);
			an_outputs_records(out, r, (size_t)n);
			last_rec = hw_an_now(a);
			last_wall = hw_mono_s();
		} else if (n == 0 && last_rec && hw_mono_s() - last_wall >= LIVE_QUIET_S) {
			hw_an_tick(a, last_rec + (uint64_t)((hw_mono_s() - last_wall) * 1e9));
		}
		an_outputs_tick(out, AN_TICK_BATCH);
	}
	return HW_EXIT_OK;
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
	if (o->n_pods || o->n_ident_maps || o->k8s_api) { /* first: it names the jobs of every event */
		struct hw_ident *id = hw_ident_create(o->job_label);
		const struct hw_ident_k8s_opts ko = {
		    .token_file = o->k8s_token, .ca_file = o->k8s_ca, .every_s = o->k8s_every};
		if (id && o->k8s_api && hw_ident_add_k8s(id, o->k8s_api, &ko, err, sizeof(err))) {
			fprintf(stderr, "hopwatch-analyzer run: --k8s-api %s\n", err);
			hw_ident_destroy(id);
			return HW_EXIT_FAIL;
		}
		for (int i = 0; id && i < o->n_pods + o->n_ident_maps; i++)
			if (hw_ident_add(id, i < o->n_pods ? HW_IDENT_PODS : HW_IDENT_MAP,
			                 i < o->n_pods ? o->pods[i] : o->ident_maps[i - o->n_pods], err, sizeof(err))) {
				fprintf(stderr, "hopwatch-analyzer run: %s %s\n",
				        i < o->n_pods ? "--pods" : "--ident-map", err);
				hw_ident_destroy(id);
				return HW_EXIT_FAIL;
			}
		if (!id || !(out->attr = an_out_attr(id, "hopwatch-analyzer run", err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", id ? err : "out of memory");
			return HW_EXIT_FAIL;
		}
		an_outputs_add(out, out->attr);
	}
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
	FILE *summary_f = NULL; /* --summary-json: opened now, so a bad path stops the run before it reads */
	if (o.summary_json && !(summary_f = strcmp(o.summary_json, "-") ? fopen(o.summary_json, "w") : stderr)) {
		fprintf(stderr, "hopwatch-analyzer run: --summary-json %s: %s\n", o.summary_json, strerror(errno));
		return HW_EXIT_USAGE;
	}
	struct hw_topo t;
	struct hw_topo_map map;
	hw_topo_init(&t);
	memset(&map, 0, sizeof(map));
	int have_topo = o.n_lldp || o.n_lldpd_json || o.n_lldpd;
	struct run_live tr = {.on = have_topo};
	/* SIGINT/SIGTERM go to this thread only: the outputs' threads start with them blocked, so a stop
	 * interrupts the input read here (no SA_RESTART), not a thread that ignores it */
	sigset_t stop_sigs;
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigaddset(&stop_sigs, SIGHUP); /* a reload, handled here too */
	pthread_sigmask(SIG_BLOCK, &stop_sigs, NULL);
	struct an_outputs out = {0};
	struct an_output *x;
	struct hw_alert_sink *am = NULL, *webhook = NULL;
	struct hw_analyzer *a = NULL;
	if (have_topo && (rc = load_topology(&t, &map, &o)))
		goto done;
	if (!have_topo && o.map && (rc = load_map_topology(&t, &map, &o)))
		goto done;
	if ((rc = outputs_early(&out, &o, &cfg, have_topo, &am, &webhook)))
		goto done;
	rc = HW_EXIT_FAIL;
	a = hw_an_create(&cfg, have_topo || o.map ? &t : NULL, o.map ? &map : NULL, an_outputs_emit, &out, err,
	                 sizeof(err));
	if (!a) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		goto done;
	}
	/* --threads N is N threads: the analysing one, the reader (2 or more), N - 2 shards (3 or more).  The reader
	 * first: on 2 cores a shard thread beside the reader made the run slower (docs/performance.md, round 13) */
	if (o.threads > 2 && hw_an_shards(a, o.threads - 1, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		goto done;
	}
	if (!have_topo && o.map)
		hw_an_grow_topology(a, &t); /* only the analyzer reads t: the outputs get no topology */
	an_outputs_bind(&out, a);
	an_attr_bind(out.attr, a);
	struct an_output *tally = run_out_tally();
	an_outputs_add(&out, tally);
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
	/* no SA_RESTART: a read blocked on an input (run --jsonl - on a quiet pipe) returns at a signal */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_flags = SA_RESTART; /* a reload waits for the read in progress */
	sigaction(SIGHUP, &sa, NULL);
	hw_an_topology_events(a);
	if (have_topo && hw_topo_live_init(&tr.live, &t)) {
		fprintf(stderr, "hopwatch-analyzer run: out of memory\n");
		goto done;
	}
	if (((o.http_auth || o.tls_cert || o.tls_key) &&
	     hw_metrics_http_secure(o.http_auth, o.tls_cert, o.tls_key, err, sizeof(err))) ||
	    (o.web_config && hw_metrics_http_web_config(o.web_config, err, sizeof(err)))) {
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
		rc = HW_EXIT_USAGE;
		goto done;
	}
	if (o.metrics) {
		const struct an_metrics_opts mo = {.addr = o.metrics,
		                                   .topo = have_topo ? &t : NULL,
		                                   .am = am,
		                                   .webhook = webhook,
		                                   .svg_dir = o.svg.dir,
		                                   .min_visible_ns = cfg.min_visible_ns,
		                                   .attr = out.attr,
		                                   .latency_window_s = o.latency_window,
		                                   .max_series = o.metrics_max_series};
		if (!(x = an_out_metrics(&mo, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			rc = HW_EXIT_USAGE;
			goto done;
		}
		an_outputs_add(&out, x);
	}
	if (o.http) {
		const struct an_console_opts co = {
		    .addr = o.http, .topo = have_topo ? &t : NULL, .svg_dir = o.svg.dir, .attr = out.attr};
		if (!(x = an_out_console(&co, err, sizeof(err)))) {
			fprintf(stderr, "hopwatch-analyzer run: --http %s\n", err);
			rc = HW_EXIT_USAGE;
			goto done;
		}
		an_outputs_add(&out, x);
	}
	if (am)
		watch_sink(&tr, 0, am, "alertmanager", o.am);
	if (webhook)
		watch_sink(&tr, 1, webhook, "webhook", o.webhook);
	tr.wd_interval_s = (double)hw_service_watchdog_usec() * 1e-6 / 2;
	rc = HW_EXIT_OK;
	pthread_sigmask(SIG_UNBLOCK, &stop_sigs, NULL); /* every output thread is running: stops come here */
	for (int k = 0; k < SRC_KINDS && rc == HW_EXIT_OK; k++) {
		struct record_source *src;
		if (open_source(k, &o, &src, err, sizeof(err))) {
			fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
			rc = HW_EXIT_FAIL;
		} else if (src) {
			hw_service_ready(src->live ? "receiving live records" : "replaying records"); /* sd_notify */
			rc = drive(a, src, &o, &out, &tr);
			src->ops->close(src);
		}
	}
	hw_service_stopping("input ended: resolving, delivering alerts, writing the summary");
	hw_an_finish(a);
	an_outputs_tick(&out, AN_TICK_END);
	double end = hw_mono_s() + o.hold;
	while (!stop_flag && hw_mono_s() < end) {
		sleep_s(0.1);
		an_outputs_tick(&out, AN_TICK_HOLD);
		watch_peers(&tr);
		run_status(a, &tr, &o, 0);
	}
	an_outputs_tick(&out, AN_TICK_EXIT);
	if (rc == HW_EXIT_OK && an_outputs_lost(&out))
		rc = HW_EXIT_FAIL; /* alerts dropped or never delivered (the summary counts them), or events not written
		                    */
	if (summary_f == stderr && !o.quiet)
		run_summary_json(a, &out, stderr); /* --summary-json -: in place of the lines */
	else if (!o.quiet)
		run_summary_lines(a, tally, am, webhook, stderr);
	if (summary_f && summary_f != stderr) {
		run_summary_json(a, &out, summary_f);
		if (fclose(summary_f)) {
			fprintf(stderr, "hopwatch-analyzer run: --summary-json %s: %s\n", o.summary_json,
			        strerror(errno));
			rc = HW_EXIT_FAIL;
		}
		summary_f = NULL;
	}
done:
	if (summary_f && summary_f != stderr)
		fclose(summary_f);
	an_outputs_close(&out);
	hw_an_destroy(a);
	hw_topo_live_free(&tr.live);
	hw_topo_map_free(&map);
	hw_topo_free(&t);
	return rc;
}
