/* `hopwatch-analyzer diagnose`: the analyzer's checklist (config, topology, placement, stream,
 * alertmanager, clickhouse, metrics) printed and judged with the collector's diagnose (hopwatch/diag.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "analyzer_cmd.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/diag.h"
#include "hopwatch/record_file.h"
#include "hopwatch/record_json.h"
#include "sock_addr.h"
#include "options.h"
#include "stream_shm.h"

#define PROG "hopwatch-analyzer diagnose"
#define MAX_SRC 4

static void check_config(struct hw_diag_list *l, const char *path)
{
	if (!path) {
		hw_diag_print(l, HW_DIAG_SKIP, "config", NULL, "no --config: the built-in thresholds");
		return;
	}
	struct hw_an_config c;
	char err[512];
	hw_an_config_default(&c);
	if (hw_an_config_load(&c, path, err, sizeof(err)))
		hw_diag_print(l, HW_DIAG_FAIL, "config", "correct the file (keys and types: docs/analyzer.md)", "%s",
		              err);
	else
		hw_diag_print(l, HW_DIAG_PASS, "config", NULL, "%s loads", path);
}

/* Every record of the --records and --jsonl files as JSON lines in one temporary file (what
 * `hopwatch-analyzer topology --jsonl` places).  Its path, or NULL after a FAIL line. */
static const char *gather_records(struct hw_diag_list *l, char *const *hwr, int n_hwr, char *const *json, int n_json,
                                  char *path)
{
	int fd = mkstemp(path);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		hw_diag_print(l, HW_DIAG_FAIL, "placement", "set TMPDIR to a writable directory", "%s: %s", path,
		              strerror(errno));
		return NULL;
	}
	char err[512] = "", line[HW_RECORD_JSON_MAX];
	static struct hw_record buf[1024];
	for (int i = 0; i < n_hwr && !*err; i++) {
		struct hw_record_reader *rd = hw_record_reader_open(hwr[i], err, sizeof(err));
		long n;
		while (rd && (n = hw_record_reader_read(rd, buf, 1024, err, sizeof(err))) > 0)
			for (long k = 0; k < n; k++)
				fwrite(line, 1, hw_record_json(&buf[k], line), out);
		if (rd)
			hw_record_reader_close(rd);
	}
	for (int i = 0; i < n_json && !*err; i++) {
		FILE *f = fopen(json[i], "r");
		if (!f) {
			snprintf(err, sizeof(err), "%s: %s", json[i], strerror(errno));
			break;
		}
		size_t k;
		while ((k = fread(line, 1, sizeof(line), f)) > 0)
			fwrite(line, 1, k, out);
		fclose(f);
	}
	fclose(out);
	if (*err) {
		hw_diag_print(l, HW_DIAG_FAIL, "placement", "give readable record files", "%s", err);
		unlink(path);
		return NULL;
	}
	return path;
}

/* shm:PATH: a collector's file is there, and an analyzer reads it. */
static void check_shm(struct hw_diag_list *l, const char *path)
{
	char err[512];
	uint32_t collector, reader;
	if (hw_shm_probe(path, &collector, &reader, err, sizeof(err)))
		hw_diag_print(l, HW_DIAG_FAIL, "stream",
		              "start the collector with sinks.stream shm:PATH (it creates the file; systemctl start "
		              "hopwatch-collector)",
		              "%s", err);
	else if (!reader)
		hw_diag_print(l, HW_DIAG_FAIL, "stream",
		              "start hopwatch-analyzer run --stream shm:PATH (systemctl start hopwatch-analyzer)",
		              "shm:%s: collector pid %u writes it, no analyzer reads it: live records are dropped",
		              path, collector);
	else
		hw_diag_print(l, HW_DIAG_PASS, "stream", NULL, "shm:%s: collector pid %u, read by analyzer pid %u",
		              path, collector, reader);
}

static void check_stream(struct hw_diag_list *l, const char *addr)
{
	struct hw_sock_addr a;
	char err[512];
	if (hw_shm_path(addr)) {
		check_shm(l, hw_shm_path(addr));
		return;
	}
	const char *fix = "start hopwatch-analyzer run --stream with this address (systemctl start hopwatch-analyzer); "
	                  "the collector's sinks.stream must name the same";
	if (hw_sock_addr_parse(addr, 0, &a, err, sizeof(err))) {
		hw_diag_print(l, HW_DIAG_FAIL, "stream", "give unix:PATH or tcp:HOST:PORT", "%s", err);
		return;
	}
	int fd = socket(a.family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct timeval tv = {2, 0};
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)); /* bounds connect() too */
	if (fd < 0 || connect(fd, (struct sockaddr *)&a.ss, a.len))
		hw_diag_print(l, HW_DIAG_FAIL, "stream", fix, "%s: %s", addr, strerror(errno));
	else
		hw_diag_print(l, HW_DIAG_PASS, "stream", NULL, "%s accepts connections", addr);
	if (fd >= 0)
		close(fd);
}

struct diag_opts {
	const char *config, *stream, *am, *ch, *table, *metrics, *only, *map;
	const char *lldp[MAX_SRC], *lldpd_json[MAX_SRC];
	int n_lldp, n_lldpd_json;
	const char *records[64], *jsonl[64];
	int n_records, n_jsonl;
};

#define D struct diag_opts

static const struct hw_opt rows[] = {
    {HW_OPT_STRING, "config", .metavar = "FILE", HW_OPT_AT(D, config),
     .help = "thresholds JSON (docs/analyzer.md) loads"},
    {HW_OPT_LIST, "lldp", .metavar = "PCAP", HW_OPT_LIST_AT(D, lldp, n_lldp), .elem = HW_OPT_STRING, .what = "capture",
     .help = "the topology loads: LLDP frames from a capture"},
    {HW_OPT_LIST, "lldpd-json", .metavar = "FILE|DIR", HW_OPT_LIST_AT(D, lldpd_json, n_lldpd_json),
     .elem = HW_OPT_STRING, .what = "dump", .help = "the topology loads: lldpcli JSON dumps"},
    {HW_OPT_STRING, "map", .metavar = "FILE", HW_OPT_AT(D, map), .help = "INT node id / port map of the topology"},
    {HW_OPT_LIST, "records", .metavar = "FILE|GLOB", HW_OPT_LIST_AT(D, records, n_records), .elem = HW_OPT_STRING,
     .flags = HW_OPTF_GLOB | HW_OPTF_MULTI, .what = "record file",
     .help = "binary record files (several may follow one --records) whose INT (node, port)s\n"
             "must all be on the topology"},
    {HW_OPT_LIST, "jsonl", .metavar = "FILE", HW_OPT_LIST_AT(D, jsonl, n_jsonl), .elem = HW_OPT_STRING, .what = "file",
     .help = "JSON-lines records, checked the same way"},
    {HW_OPT_ALIAS, "json", .alias_of = "jsonl"},
    {HW_OPT_STRING, "stream", .metavar = "ADDR", HW_OPT_AT(D, stream),
     .help = "unix:PATH or tcp:HOST:PORT: a running analyzer accepts connections there;\n"
             "shm:PATH: a collector's file is there and an analyzer reads it"},
    {HW_OPT_STRING, "alertmanager", .metavar = "URL", HW_OPT_AT(D, am), .help = "GET URL/-/ready answers 200"},
    {HW_OPT_STRING, "clickhouse", .metavar = "URL", HW_OPT_AT(D, ch),
     .help = "ClickHouse answers and --clickhouse-table has every record column"},
    {HW_OPT_STRING, "clickhouse-table", .metavar = "T", HW_OPT_AT(D, table), .def = "hops",
     .help = "[database.]table for --clickhouse"},
    {HW_OPT_ALIAS, "table", .alias_of = "clickhouse-table"},
    {HW_OPT_STRING, "metrics", .metavar = "HOST:PORT|URL", HW_OPT_AT(D, metrics),
     .help = "a running analyzer serves hopwatch_analyzer_records_total on /metrics"},
    {HW_OPT_STRING, "only", .metavar = "LIST", HW_OPT_AT(D, only),
     .help = "run only these checks (comma-separated names)"},
    {HW_OPT_END},
};

static const struct hw_opts_spec spec = {
    .prog = PROG,
    .synopsis = "usage: hopwatch-analyzer diagnose [options]\n",
    .intro = "Prints one line per check: PASS|SKIP|FAIL NAME: reason, and for a FAIL a 'fix:' line.\n"
             "Checks, in order: config, topology, placement, stream, alertmanager, clickhouse, metrics.\n"
             "Give the options `hopwatch-analyzer run` is started with; a check without its option SKIPs.\n",
    .epilog = "Exit status: 0 nothing FAILed, 1 some check FAILed, 2 bad usage.\n",
    .rows = rows,
};

void hw_cmd_diagnose_usage(FILE *f)
{
	hw_opts_help(&spec, f);
}

int hw_cmd_diagnose(int argc, char **argv)
{
	static struct diag_opts op;
	memset(&op, 0, sizeof(op));
	int rc = hw_opts_defaults(&spec, &op);
	if (!rc)
		rc = hw_opts_parse(&spec, &op, argc, argv, NULL);
	if (rc)
		return rc == HW_OPTS_HELP ? HW_EXIT_OK : HW_EXIT_USAGE;
	struct hw_diag_list l = {0};
	l.only = op.only;
	const char *config = op.config, *stream = op.stream, *am = op.am, *ch = op.ch, *table = op.table;
	const char *metrics = op.metrics;
	if (op.n_lldp + op.n_lldpd_json > MAX_SRC) {
		fprintf(stderr, PROG ": at most %d LLDP sources and one --map (see --help)\n", MAX_SRC);
		return HW_EXIT_USAGE;
	}
	char *src[2 * MAX_SRC + 3] = {0};
	int n_src = hw_diag_topo_args(src, op.lldp, op.n_lldp, op.lldpd_json, op.n_lldpd_json, op.map);
	if (n_src < 0) {
		fprintf(stderr, PROG ": --map needs an LLDP source (--lldpd-json or --lldp)\n");
		return HW_EXIT_USAGE;
	}
	char *const *hwr = (char *const *)op.records, *const *json = (char *const *)op.jsonl;
	int n_hwr = op.n_records, n_json = op.n_jsonl;

	check_config(&l, config);
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	snprintf(self + (n > 0 ? n : 0), sizeof(self) - (size_t)(n > 0 ? n : 0), "%s",
	         n > 0 ? "" : "hopwatch-analyzer");
	unsigned fails = l.fails;
	if (!n_src)
		hw_diag_print(&l, HW_DIAG_SKIP, "topology", NULL, "no LLDP source given (--lldpd-json or --lldp)");
	else
		hw_diag_topology(&l, "topology", self, src, NULL);
	int topo_ok = n_src && l.fails == fails;
	if (!n_hwr && !n_json)
		hw_diag_print(&l, HW_DIAG_SKIP, "placement", NULL, "no records given (--records or --jsonl)");
	else if (!topo_ok)
		hw_diag_print(&l, HW_DIAG_SKIP, "placement", NULL, "no topology to place the records on");
	else if (hw_diag_wanted_in(&l, "placement")) {
		char path[] = "/tmp/hopwatch-diagnose-XXXXXX";
		if (gather_records(&l, hwr, n_hwr, json, n_json, path)) {
			hw_diag_topology(&l, "placement", self, src, path);
			unlink(path);
		}
	}
	if (stream)
		check_stream(&l, stream);
	else
		hw_diag_print(&l, HW_DIAG_SKIP, "stream", NULL, "no --stream address given");
	if (am)
		hw_diag_alertmanager(&l, am);
	else
		hw_diag_print(&l, HW_DIAG_SKIP, "alertmanager", NULL, "no --alertmanager URL given");
	if (ch)
		hw_diag_clickhouse(&l, ch, table);
	else
		hw_diag_print(&l, HW_DIAG_SKIP, "clickhouse", NULL, "no --clickhouse URL given");
	char murl[512];
	if (metrics && !strstr(metrics, "://")) {
		snprintf(murl, sizeof(murl), "http://%s/metrics", metrics);
		metrics = murl;
	}
	if (metrics)
		hw_diag_metrics(&l, metrics, "hopwatch_analyzer_records_total", "analyzer");
	else
		hw_diag_print(&l, HW_DIAG_SKIP, "metrics", NULL, "no --metrics address given");
	printf("diagnose: %u FAIL\n", l.fails);
	return l.fails ? HW_EXIT_FAIL : HW_EXIT_OK;
}
