/* `hopwatch-analyzer diagnose`: the analyzer's checklist (config, topology, placement, stream,
 * alertmanager, clickhouse, metrics) printed and judged with the collector's diagnose (hopwatch/diag.h). */
#include <errno.h>
#include <getopt.h>
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

#define PROG "hopwatch-analyzer diagnose"
#define MAX_SRC 4

void hw_cmd_diagnose_usage(FILE *f)
{
	fprintf(f,
	        "usage: hopwatch-analyzer diagnose [options]\n"
	        "\n"
	        "Prints one line per check: PASS|SKIP|FAIL NAME: reason, and for a FAIL a 'fix:' line.\n"
	        "Checks, in order: config, topology, placement, stream, alertmanager, clickhouse, metrics.\n"
	        "Give the options `hopwatch-analyzer run` is started with; a check without its option SKIPs.\n"
	        "\n"
	        "  --config FILE          thresholds JSON (docs/analyzer.md) loads\n"
	        "  --lldp PCAP, --lldpd-json FILE|DIR, --map FILE\n"
	        "                         the topology loads (at most %d LLDP sources)\n"
	        "  --records FILE.hwr, --json FILE.jsonl\n"
	        "                         records whose INT (node, port)s must all be on the topology (repeatable)\n"
	        "  --stream ADDR          unix:PATH or tcp:HOST:PORT: a running analyzer accepts connections there\n"
	        "  --alertmanager URL     GET URL/-/ready answers 200\n"
	        "  --clickhouse URL       ClickHouse answers and --table (default hops) has every record column\n"
	        "  --table T              [database.]table for --clickhouse\n"
	        "  --metrics HOST:PORT|URL\n"
	        "                         a running analyzer serves hopwatch_analyzer_records_total on /metrics\n"
	        "  --only LIST            run only these checks (comma-separated names)\n"
	        "\n"
	        "Exit status: 0 nothing FAILed, 1 some check FAILed, 2 bad usage.\n",
	        MAX_SRC);
}

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

/* Every record of the --records and --json files as JSON lines in one temporary file (what
 * `hopwatch-analyzer topology --records` places).  Its path, or NULL after a FAIL line. */
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

static void check_stream(struct hw_diag_list *l, const char *addr)
{
	struct hw_sock_addr a;
	char err[512];
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

int hw_cmd_diagnose(int argc, char **argv)
{
	enum {
		O_CONFIG = 256,
		O_LLDP,
		O_LLDPJSON,
		O_MAP,
		O_RECORDS,
		O_JSON,
		O_STREAM,
		O_AM,
		O_CH,
		O_TABLE,
		O_METRICS,
		O_ONLY
	};
	static const struct option lo[] = {{"config", required_argument, 0, O_CONFIG},
	                                   {"lldp", required_argument, 0, O_LLDP},
	                                   {"lldpd-json", required_argument, 0, O_LLDPJSON},
	                                   {"map", required_argument, 0, O_MAP},
	                                   {"records", required_argument, 0, O_RECORDS},
	                                   {"json", required_argument, 0, O_JSON},
	                                   {"stream", required_argument, 0, O_STREAM},
	                                   {"alertmanager", required_argument, 0, O_AM},
	                                   {"clickhouse", required_argument, 0, O_CH},
	                                   {"table", required_argument, 0, O_TABLE},
	                                   {"metrics", required_argument, 0, O_METRICS},
	                                   {"only", required_argument, 0, O_ONLY},
	                                   {"help", no_argument, 0, 'h'},
	                                   {0, 0, 0, 0}};
	struct hw_diag_list l = {0};
	const char *config = NULL, *stream = NULL, *am = NULL, *ch = NULL, *table = "hops", *metrics = NULL;
	char *src[2 * MAX_SRC + 3] = {0}, *hwr[64], *json[64];
	int n_src = 0, n_hwr = 0, n_json = 0, have_lldp = 0, o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (o) {
		case O_CONFIG: config = optarg; break;
		case O_LLDP:
		case O_LLDPJSON:
		case O_MAP:
			if (n_src >= 2 * MAX_SRC + 2 || (o != O_MAP && n_src >= 2 * MAX_SRC)) {
				fprintf(stderr, PROG ": at most %d LLDP sources and one --map\n", MAX_SRC);
				return HW_EXIT_USAGE;
			}
			src[n_src++] = o == O_LLDP ? "--lldp" : o == O_LLDPJSON ? "--lldpd-json" : "--map";
			src[n_src++] = optarg;
			have_lldp |= o != O_MAP;
			break;
		case O_RECORDS:
		case O_JSON:
			if ((o == O_RECORDS ? n_hwr : n_json) >= 64) {
				fprintf(stderr, PROG ": at most 64 record files of each kind\n");
				return HW_EXIT_USAGE;
			}
			if (o == O_RECORDS)
				hwr[n_hwr++] = optarg;
			else
				json[n_json++] = optarg;
			break;
		case O_STREAM: stream = optarg; break;
		case O_AM: am = optarg; break;
		case O_CH: ch = optarg; break;
		case O_TABLE: table = optarg; break;
		case O_METRICS: metrics = optarg; break;
		case O_ONLY: l.only = optarg; break;
		case 'h': hw_cmd_diagnose_usage(stdout); return HW_EXIT_OK;
		default: hw_cmd_diagnose_usage(stderr); return HW_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		return HW_EXIT_USAGE;
	}
	if (n_src && !have_lldp) {
		fprintf(stderr, PROG ": --map needs an LLDP source (--lldpd-json or --lldp)\n");
		return HW_EXIT_USAGE;
	}

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
		hw_diag_print(&l, HW_DIAG_SKIP, "placement", NULL, "no records given (--records or --json)");
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
