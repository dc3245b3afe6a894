/* hopwatch-collector: receive INT telemetry reports (DPDK ports, or libpcap files and interfaces),
 * decode them into per-hop records, keep queue/sequence/path state, and feed the sinks. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "diagnose.h"
#include "front.h"

#define PROG "hopwatch-collector"

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: " PROG " [EAL options] -- [options]       receive with DPDK (any ethdev: NICs, net_pcap,\n"
	        "                                                     net_af_packet, net_ring, ...)\n"
	        "       " PROG " --pcap FILE|IFACE [options]      receive with libpcap (capture file or interface)\n"
	        "       " PROG " diagnose [EAL options --] [options]  checklist of PASS/SKIP/FAIL (diagnose --help)\n"
	        "\n"
	        "Decodes INT telemetry reports (Telemetry Report v0.5/v1.0/v2.0 with embedded INT-MD v0.5/v1.0/v2.1\n"
	        "stacks) and bare INT-MD data packets into one record per hop (docs/records.md), tracks report\n"
	        "sequence numbers per (node, hw_id), per-(node, port, queue) occupancy and latency, and per-flow\n"
	        "paths, and writes records to the configured sinks.  SIGINT/SIGTERM: stop, drain, flush, print\n"
	        "the counters, exit 0.  SIGHUP: reopen output files.\n"
	        "\n"
	        "Input:\n"
	        "  --pcap FILE|IFACE    read a capture file, or capture live on an interface\n"
	        "  --bpf FILTER         live capture filter (default: udp dst port of the report ports, or all\n"
	        "                       IP traffic when bare INT-MD packets are decoded)\n"
	        "  --workers N          DPDK: RX queues per port, one worker lcore each (default: lcores - 1)\n"
	        "  --idle-exit SECONDS  DPDK: stop after this long without a packet (default: run until a signal)\n"
	        "  --lossless           wait for slow sinks instead of dropping records (always on for capture\n"
	        "                       files; on a live interface or NIC the receive side then drops instead)\n"
	        "Output (any combination):\n"
	        "  --json OUT           JSON lines, one object per hop record ('-' = standard output)\n"
	        "  --records-dir DIR    binary record files (record_file.h), rotated by size and time\n"
	        "  --rotate-mb N        start a new record file after N MiB (default 256)\n"
	        "  --rotate-seconds N   start a new record file after N seconds (default 300)\n"
	        "  --stream ADDR        live stream of record batches: unix:PATH or tcp:HOST:PORT\n"
	        "  --metrics HOST:PORT  serve Prometheus /metrics\n"
	        "  --clickhouse URL     insert records into ClickHouse over HTTP, e.g.\n"
	        "                       http://127.0.0.1:8123/?database=hopwatch (schema: deploy/clickhouse/)\n"
	        "  --clickhouse-table NAME       table to insert into (default hops)\n"
	        "  --clickhouse-batch N          insert every N records (default 16384) ...\n"
	        "  --clickhouse-batch-ms MS      ... or when the oldest queued record is MS old (default 1000)\n"
	        "  --clickhouse-queue N          records held while ClickHouse is slow or down (default 262144);\n"
	        "                                more are dropped and counted\n"
	        "Detection:\n"
	        "  --config FILE        JSON configuration (docs/collector.md); flags given here override it\n"
	        "  --report-port PORT   UDP destination port of telemetry reports; repeatable (default 32766)\n"
	        "  --int-dscp VAL/MASK  INT-MD over TCP/UDP is present when (DSCP & MASK) == VAL (default 0x17/0x3f;\n"
	        "                       0/0 turns DSCP detection off)\n"
	        "  --int-port PORT      UDP destination port that announces an INT shim (INT v2.1 NPT=1); repeatable\n"
	        "  --profile NAME       vendor profile: standard (default) or geant\n"
	        "  --no-bare-int        do not search frames that are not reports for INT-MD stacks\n"
	        "  --max-hops N         reject stacks of more than N hops (default 64)\n"
	        "\n"
	        "  -h, --help           this text\n"
	        "\n"
	        "At exit the counters go to standard error: packets, reports, records, not_report, one line per\n"
	        "error reason seen, report packets lost/duplicate/reordered, and sink drops.\n"
	        "Exit status: 0 ok, 1 runtime failure (input or output could not be used), 2 bad usage or config.\n");
}

static void die_usage(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, PROG ": %s: '%s' is not %s (see --help)\n", opt, val, want);
	exit(2);
}

static unsigned long parse_num(const char *opt, const char *s, unsigned long lo, unsigned long hi, const char *want)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
		die_usage(opt, s, want);
	return v;
}

static double parse_seconds(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < 0)
		die_usage(opt, s, "a number of seconds >= 0");
	return v;
}

enum {
	O_PCAP = 256,
	O_BPF,
	O_JSON,
	O_RDIR,
	O_RMB,
	O_RSEC,
	O_STREAM,
	O_METRICS,
	O_CONFIG,
	O_RPORT,
	O_DSCP,
	O_IPORT,
	O_PROFILE,
	O_NOBARE,
	O_MAXHOPS,
	O_WORKERS,
	O_IDLE,
	O_LOSSLESS,
	O_CH,
	O_CH_TABLE,
	O_CH_BATCH,
	O_CH_BATCH_MS,
	O_CH_QUEUE,
};

static const struct option opts[] = {
    {"pcap", required_argument, 0, O_PCAP},
    {"bpf", required_argument, 0, O_BPF},
    {"json", required_argument, 0, O_JSON},
    {"records-dir", required_argument, 0, O_RDIR},
    {"rotate-mb", required_argument, 0, O_RMB},
    {"rotate-seconds", required_argument, 0, O_RSEC},
    {"stream", required_argument, 0, O_STREAM},
    {"metrics", required_argument, 0, O_METRICS},
    {"config", required_argument, 0, O_CONFIG},
    {"report-port", required_argument, 0, O_RPORT},
    {"int-dscp", required_argument, 0, O_DSCP},
    {"int-port", required_argument, 0, O_IPORT},
    {"profile", required_argument, 0, O_PROFILE},
    {"no-bare-int", no_argument, 0, O_NOBARE},
    {"max-hops", required_argument, 0, O_MAXHOPS},
    {"workers", required_argument, 0, O_WORKERS},
    {"idle-exit", required_argument, 0, O_IDLE},
    {"lossless", no_argument, 0, O_LOSSLESS},
    {"clickhouse", required_argument, 0, O_CH},
    {"clickhouse-table", required_argument, 0, O_CH_TABLE},
    {"clickhouse-batch", required_argument, 0, O_CH_BATCH},
    {"clickhouse-batch-ms", required_argument, 0, O_CH_BATCH_MS},
    {"clickhouse-queue", required_argument, 0, O_CH_QUEUE},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

/* Flags override the config file, so the file is loaded first (first pass), flags second. */
static void parse_options(struct hw_collector_config *c, int argc, char **argv)
{
	const char *config = NULL;
	int o;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (o == O_CONFIG)
			config = optarg;
		if (o == 'h') {
			usage(stdout);
			exit(0);
		}
	}
	if (config) {
		char err[512];
		if (hw_collector_config_load(c, config, err, sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			exit(2);
		}
	}
	optind = 0;
	opterr = 1;
	bool ports_given = false, dscp_given = false;
	uint8_t dscp = 0, dscp_mask = 0;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case O_PCAP: c->pcap = optarg; break;
		case O_BPF: c->bpf = optarg; break;
		case O_JSON: c->json_out = optarg; break;
		case O_RDIR: c->records_dir = optarg; break;
		case O_RMB:
			c->rotate_bytes = parse_num("--rotate-mb", optarg, 0, 1 << 20, "a size in MiB") << 20;
			break;
		case O_RSEC:
			c->rotate_seconds =
			    parse_num("--rotate-seconds", optarg, 0, 86400 * 365, "a number of seconds");
			break;
		case O_STREAM:
			if (strncmp(optarg, "unix:", 5) && strncmp(optarg, "tcp:", 4))
				die_usage("--stream", optarg, "unix:PATH or tcp:HOST:PORT");
			c->stream = optarg;
			break;
		case O_METRICS:
			if (!strchr(optarg, ':'))
				die_usage("--metrics", optarg, "HOST:PORT, e.g. 127.0.0.1:9464");
			c->metrics = optarg;
			break;
		case O_CONFIG: break;
		case O_RPORT:
			if (!ports_given)
				c->parser.n_report_ports = 0;
			ports_given = true;
			if (c->parser.n_report_ports == HW_MAX_PORTS)
				die_usage("--report-port", optarg, "accepted: at most 8 report ports");
			c->parser.report_ports[c->parser.n_report_ports++] =
			    (uint16_t)parse_num("--report-port", optarg, 1, 65535, "a UDP port (1-65535)");
			break;
		case O_DSCP: {
			char buf[64];
			snprintf(buf, sizeof(buf), "%s", optarg);
			char *slash = strchr(buf, '/');
			if (!slash)
				die_usage("--int-dscp", optarg, "VALUE/MASK, e.g. 0x17/0x3f");
			*slash = 0;
			dscp = (uint8_t)parse_num("--int-dscp", buf, 0, 63, "a DSCP value (0-63)");
			dscp_mask = (uint8_t)parse_num("--int-dscp", slash + 1, 0, 63, "a DSCP mask (0-63)");
			dscp_given = true;
			break;
		}
		case O_IPORT:
			if (c->parser.n_int_ports == HW_MAX_PORTS)
				die_usage("--int-port", optarg, "accepted: at most 8 INT ports");
			c->parser.int_ports[c->parser.n_int_ports++] =
			    (uint16_t)parse_num("--int-port", optarg, 1, 65535, "a UDP port (1-65535)");
			break;
		case O_PROFILE: {
			int p = hw_profile_from_name(optarg);
			if (p < 0)
				die_usage("--profile", optarg, "a known profile (standard, geant)");
			hw_parser_config_profile(&c->parser, (enum hw_profile)p);
			break;
		}
		case O_NOBARE: c->parser.bare_int = 0; break;
		case O_MAXHOPS:
			c->parser.max_hops = (uint8_t)parse_num("--max-hops", optarg, 1, 255, "a hop count (1-255)");
			break;
		case O_WORKERS:
			c->workers = (uint32_t)parse_num("--workers", optarg, 1, 64, "a worker count (1-64)");
			break;
		case O_IDLE: c->idle_exit_s = parse_seconds("--idle-exit", optarg); break;
		case O_LOSSLESS: c->lossless = true; break;
		case O_CH:
			if (strncmp(optarg, "http://", 7) && strncmp(optarg, "https://", 8))
				die_usage("--clickhouse", optarg,
				          "an HTTP URL, e.g. http://127.0.0.1:8123/?database=hopwatch");
			c->clickhouse = optarg;
			break;
		case O_CH_TABLE: c->clickhouse_table = optarg; break;
		case O_CH_BATCH:
			c->clickhouse_batch_records = (uint32_t)parse_num("--clickhouse-batch", optarg, 1, 1u << 20,
			                                                  "a record count (1-1048576)");
			break;
		case O_CH_BATCH_MS:
			c->clickhouse_batch_ms =
			    (uint32_t)parse_num("--clickhouse-batch-ms", optarg, 0, 600000, "milliseconds (0-600000)");
			break;
		case O_CH_QUEUE:
			c->clickhouse_queue_records =
			    (uint32_t)parse_num("--clickhouse-queue", optarg, 1, 1u << 30, "a record count");
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (dscp_given) { /* an explicit --int-dscp wins over a profile's default */
		c->parser.int_dscp = dscp;
		c->parser.int_dscp_mask = dscp_mask;
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "diagnose")) /* the checklist: diagnose.c */
		return hw_diagnose_main(argc - 1, argv + 1, argv[0]);

	static struct hw_collector col;
	hw_collector_config_default(&col.cfg);

	/* EAL options come before "--"; ours after it.  Without "--" every argument is ours. */
	int sep = 0;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			sep = i;
			break;
		}
	char **ours = sep ? argv + sep : argv;
	int n_ours = sep ? argc - sep : argc;
	if (sep)
		ours[0] = argv[0];
	parse_options(&col.cfg, n_ours, ours);

	hw_install_signal_handlers();
	char err[512] = "";
	int rc;
	if (col.cfg.pcap) {
		if (sep) {
			fprintf(stderr,
			        PROG ": EAL options are for DPDK input; --pcap reads with libpcap (see --help)\n");
			return 2;
		}
		rc = hw_pcap_front_run(&col, err, sizeof(err));
	} else {
		rc = hw_dpdk_front_run(&col, sep ? sep : 1, argv, err, sizeof(err));
	}
	if (rc && *err)
		fprintf(stderr, PROG ": %s\n", err);
	if (col.n_workers)
		hw_collector_print_counts(&col, stderr);
	hw_collector_config_free(&col.cfg);
	if (rc == 2)
		return 2;
	return rc || col.sink_errors ? 1 : 0;
}
