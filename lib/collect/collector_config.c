/* The collector's options and JSON configuration as one table (options.h): every flag and key, its
 * check, default and help; a bad value is an error naming the flag or the file and key. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector_config.h"

#define C struct hw_collector_config

static const char *const profiles[] = {"standard", "geant", NULL};
static const char *const record_encodings[] = {"compact", "fixed", NULL}; /* enum hw_record_encoding */

/* --int-dscp VALUE/MASK into set_dscp[0..1]. */
static int parse_dscp(const char *text, void *field, char *want, size_t wantlen)
{
	int *d = field;
	char *end;
	unsigned long v = strtoul(text, &end, 0);
	if (text[0] != '-' && end != text && *end == '/' && v <= 63) {
		const char *m = end + 1;
		unsigned long mask = strtoul(m, &end, 0);
		if (m[0] != '-' && end != m && !*end && mask <= 63) {
			d[0] = (int)v;
			d[1] = (int)mask;
			return 0;
		}
	}
	snprintf(want, wantlen, "VALUE/MASK, e.g. 0x17/0x3f (each 0-63)");
	return -1;
}

/* The profile first, then an explicit DSCP (file or command line: each source on its own). */
static void apply_given(void *dst)
{
	C *c = dst;
	if (c->set_profile >= 0)
		hw_parser_config_profile(&c->parser, (enum hw_profile)c->set_profile);
	if (c->set_dscp[0] >= 0)
		c->parser.int_dscp = (uint8_t)c->set_dscp[0];
	if (c->set_dscp[1] >= 0)
		c->parser.int_dscp_mask = (uint8_t)c->set_dscp[1];
	c->set_profile = c->set_dscp[0] = c->set_dscp[1] = -1;
}

static const struct hw_opt rows[] = {
    {HW_OPT_GROUP, .help = "Input:"},
    {HW_OPT_STRING, "pcap", .metavar = "FILE|IFACE", HW_OPT_AT(C, pcap),
     .help = "read a capture file ('-' = standard input), or capture live on an interface"},
    {HW_OPT_STRING, "bpf", .metavar = "FILTER", HW_OPT_AT(C, bpf),
     .def_note = "udp dst port of the report ports; all IP with bare INT-MD on", .help = "live capture filter"},
    {HW_OPT_UINT, "workers", .key = "workers", .metavar = "N", HW_OPT_AT(C, workers), .lo = 1, .hi = 64,
     .def_note = "lcores - 1", .help = "DPDK: RX queues per port, one worker lcore each"},
    {HW_OPT_DURATION, "idle-exit", .key = "idle_exit_seconds", .metavar = "SECONDS", HW_OPT_AT(C, idle_exit_s),
     .hi = INFINITY, .def_note = "0: run until a signal", .help = "DPDK: stop after this long without a packet"},
    {HW_OPT_FLAG, "lossless", HW_OPT_AT(C, lossless),
     .help = "wait for slow sinks instead of dropping records (always on for capture\n"
             "files; on a live interface or NIC the receive side then drops instead)"},
    {HW_OPT_DURATION, "status-interval", .key = "status_interval_seconds", .metavar = "SECONDS",
     HW_OPT_AT(C, status_interval_s), .hi = 86400, .def = "60",
     .help = "one status line on standard error this often (packets, records, rates, drops,\n"
             "sink queue fill; 0 = none); under systemd also the unit's STATUS="},
    {HW_OPT_GROUP, .help = "Output (any combination):"},
    {HW_OPT_STRING, "json-out", .key = "sinks.json", .metavar = "FILE", HW_OPT_AT(C, json_out),
     .flags = HW_OPTF_NULLABLE, .help = "JSON lines, one object per hop record ('-' = standard output)"},
    {HW_OPT_ALIAS, "json", .alias_of = "json-out"},
    {HW_OPT_STRING, "records-dir", .key = "sinks.records_dir", .metavar = "DIR", HW_OPT_AT(C, records_dir),
     .flags = HW_OPTF_NULLABLE,
     .help = "binary record files (record_file.h), rotated by size and time; DIR is created when missing"},
    {HW_OPT_UINT, "rotate-mb", .key = "sinks.rotate_mb", .metavar = "N", HW_OPT_AT(C, rotate_bytes), .hi = 1 << 20,
     .scale = 1 << 20, .def = "256", .help = "start a new record file after N MiB"},
    {HW_OPT_UINT, "rotate-seconds", .key = "sinks.rotate_seconds", .metavar = "N", HW_OPT_AT(C, rotate_seconds),
     .hi = 86400 * 365, .def = "300", .help = "start a new record file after N seconds"},
    {HW_OPT_ENUM, "records-encoding", .key = "sinks.records_encoding", .metavar = "compact|fixed",
     HW_OPT_AT(C, records_encoding), .names = record_encodings, .def = "compact",
     .help = "record files compact (format version 2, 4-5x smaller) or fixed-size\n"
             "(version 1, for readers older than the compact encoding)"},
    {HW_OPT_ADDR, "stream", .key = "sinks.stream", .metavar = "ADDR", HW_OPT_AT(C, stream), .addr = HW_ADDR_STREAM_SHM,
     .flags = HW_OPTF_NULLABLE,
     .help = "live stream of record batches: unix:PATH or tcp:HOST:PORT; shm:PATH\n"
             "(a file on tmpfs, e.g. /dev/shm/hopwatch.ring) for an analyzer on\n"
             "this host: the workers' rings shared, no copy (beside other outputs,\n"
             "one copy per batch on the sink thread)"},
    {HW_OPT_STRING, "stream-key", .key = "sinks.stream_key", .metavar = "FILE", HW_OPT_AT(C, stream_key),
     .flags = HW_OPTF_NULLABLE,
     .help = "authenticate the stream with this shared key (16-256 bytes, mode 600; the\n"
             "analyzer's --stream-key names the same): HMAC-SHA256 per batch"},
    {HW_OPT_ADDR, "metrics", .key = "sinks.metrics", .metavar = "HOST:PORT", HW_OPT_AT(C, metrics),
     .addr = HW_ADDR_HOSTPORT, .flags = HW_OPTF_NULLABLE, .help = "serve Prometheus /metrics"},
    {HW_OPT_STRING, "http-auth", .key = "sinks.http_auth", .metavar = "FILE", HW_OPT_AT(C, http_auth),
     .flags = HW_OPTF_NULLABLE,
     .help = "/metrics needs HTTP basic auth of a user of FILE: lines USER:HASH,\n"
             "bcrypt (htpasswd -nB USER) or SHA-256 crypt; else 401\n"
             "(docs/operations.md \"Securing the HTTP servers\")"},
    {HW_OPT_STRING, "tls-cert", .key = "sinks.tls_cert", .metavar = "FILE", HW_OPT_AT(C, tls_cert),
     .flags = HW_OPTF_NULLABLE,
     .help = "serve /metrics over HTTPS only, with this PEM certificate (chain);\nneeds --tls-key"},
    {HW_OPT_STRING, "tls-key", .key = "sinks.tls_key", .metavar = "FILE", HW_OPT_AT(C, tls_key),
     .flags = HW_OPTF_NULLABLE, .help = "the PEM private key of --tls-cert"},
    {HW_OPT_STRING, "web-config", .key = "sinks.web_config", .metavar = "FILE", HW_OPT_AT(C, web_config),
     .flags = HW_OPTF_NULLABLE,
     .help = "/metrics TLS and basic auth from a Prometheus exporter web config\n"
             "(tls_server_config.cert_file/key_file, basic_auth_users: bcrypt), YAML\n"
             "or JSON; in place of --http-auth/--tls-cert/--tls-key"},
    {HW_OPT_STRING, "names", .key = "names", .metavar = "FILE", HW_OPT_AT(C, names), .flags = HW_OPTF_NULLABLE,
     .help = "node and port names for the /metrics labels node_name and port_name: the\n"
             "file `hopwatch-analyzer topology --names-out` writes; re-read when it changes"},
    {HW_OPT_UINT, "metrics-max-queues", .key = "sinks.metrics_max_queues", .metavar = "N",
     HW_OPT_AT(C, metrics_max_queues), .hi = 1 << 28, .def = "4096",
     .help = "/metrics shows the N queues with the most hop records (0 = all);\n"
             "the rest are counted in hopwatch_collector_metrics_queues_omitted"},
    {HW_OPT_LIST, "clickhouse", .key = "sinks.clickhouse", .metavar = "URL",
     HW_OPT_LIST_AT(C, clickhouse, n_clickhouse), .elem = HW_OPT_ADDR, .addr = HW_ADDR_URL, .flags = HW_OPTF_NULLABLE,
     .what = "URL",
     .help = "insert records into ClickHouse over HTTP, e.g.\n"
             "http://127.0.0.1:8123/?database=hopwatch (schema: deploy/clickhouse/);\n"
             "the replicas of one shard: repeat it, or URL,URL (config: a string or an\n"
             "array); an insert that fails is sent to the next one (docs/operations.md)"},
    {HW_OPT_STRING, "clickhouse-table", .key = "sinks.clickhouse_table", .metavar = "NAME",
     HW_OPT_AT(C, clickhouse_table), .flags = HW_OPTF_NONEMPTY, .def = "hops",
     .help = "table to insert into ([database.]table)"},
    {HW_OPT_UINT, "clickhouse-batch", .key = "sinks.clickhouse_batch_records", .metavar = "N",
     HW_OPT_AT(C, clickhouse_batch_records), .lo = 1, .hi = 1 << 20, .def = "16384",
     .help = "insert every N records ..."},
    {HW_OPT_UINT, "clickhouse-batch-ms", .key = "sinks.clickhouse_batch_ms", .metavar = "MS",
     HW_OPT_AT(C, clickhouse_batch_ms), .hi = 600000, .def = "1000",
     .help = "... or when the oldest queued record is MS old"},
    {HW_OPT_UINT, "clickhouse-queue", .key = "sinks.clickhouse_queue_records", .metavar = "N",
     HW_OPT_AT(C, clickhouse_queue_records), .lo = 1, .hi = 1 << 30, .def = "262144",
     .help = "records held while ClickHouse is slow or down;\nmore are dropped and counted"},
    {HW_OPT_DURATION, .key = "sinks.clickhouse_drain_seconds", HW_OPT_AT(C, clickhouse_drain_s), .hi = INFINITY,
     .def = "10", .help = "at exit, keep delivering to ClickHouse for this long"},
    {HW_OPT_DURATION, "clickhouse-failback", .key = "sinks.clickhouse_failback_seconds", .metavar = "SECONDS",
     HW_OPT_AT(C, clickhouse_failback_s), .lo = 0, .hi = 86400, .flags = HW_OPTF_LO_OPEN, .def = "30",
     .help = "after failing over to another replica, go back to the first this\nlong later"},
    {HW_OPT_GROUP, .help = "Detection:"},
    {HW_OPT_STRING, "config", .metavar = "FILE", HW_OPT_AT(C, config), .flags = HW_OPTF_CONFIG,
     .help = "JSON configuration (docs/collector.md); flags given here override it"},
    {HW_OPT_LIST, "report-port", .key = "report_ports", .metavar = "PORT",
     HW_OPT_LIST_AT(C, parser.report_ports, parser.n_report_ports), .elem = HW_OPT_UINT, .lo = 1, .hi = 65535, .min = 1,
     .what = "port", .def = "32766", .help = "UDP destination port of telemetry reports"},
    {HW_OPT_CUSTOM, "int-dscp", .metavar = "VAL/MASK", HW_OPT_AT(C, set_dscp), .parse = parse_dscp,
     .what = "VALUE/MASK", .def_note = "0x17/0x3f",
     .help = "INT-MD over TCP/UDP is present when (DSCP & MASK) == VAL\n(0/0 turns DSCP detection off)"},
    {HW_OPT_UINT, .key = "int_dscp", HW_OPT_AT(C, set_dscp[0]), .hi = 63, .def_note = "0x17 (23)",
     .help = "DSCP value of INT-MD over TCP/UDP (see --int-dscp)"},
    {HW_OPT_UINT, .key = "int_dscp_mask", HW_OPT_AT(C, set_dscp[1]), .hi = 63, .def_note = "0x3f (63)",
     .help = "DSCP mask (see --int-dscp)"},
    {HW_OPT_LIST, "int-port", .key = "int_ports", .metavar = "PORT",
     HW_OPT_LIST_AT(C, parser.int_ports, parser.n_int_ports), .elem = HW_OPT_UINT, .lo = 1, .hi = 65535, .what = "port",
     .help = "UDP destination port that announces an INT shim (INT v2.1 NPT=1)"},
    {HW_OPT_ENUM, "profile", .key = "profile", .metavar = "NAME", HW_OPT_AT(C, set_profile), .names = profiles,
     .def_note = "standard", .help = "vendor profile: standard or geant"},
    {HW_OPT_FLAG, "no-bare-int", .key = "bare_int", HW_OPT_AT(C, parser.bare_int), .flags = HW_OPTF_NEGATE,
     .help = "do not search frames that are not reports for INT-MD stacks\n(config bare_int: true, the default, or "
             "false)"},
    {HW_OPT_UINT, "max-hops", .key = "max_hops", .metavar = "N", HW_OPT_AT(C, parser.max_hops), .lo = 1, .hi = 255,
     .def = "64", .help = "reject stacks of more than N hops"},
    {HW_OPT_UINT, .key = "vxlan_gpe_port", HW_OPT_AT(C, parser.vxlan_gpe_port), .hi = 65535, .def_note = "4790",
     .help = "VXLAN-GPE UDP port (0 = off)"},
    {HW_OPT_UINT, .key = "geneve_port", HW_OPT_AT(C, parser.geneve_port), .hi = 65535, .def_note = "6081",
     .help = "Geneve UDP port (0 = off)"},
    {HW_OPT_UINT, .key = "roce_port", HW_OPT_AT(C, parser.roce_port), .hi = 65535, .def_note = "4791",
     .help = "RoCEv2 UDP port (0 = off)"},
    {HW_OPT_DOUBLE, .key = "latency_unit_ns", HW_OPT_AT(C, latency_unit_ns), .hi = INFINITY, .flags = HW_OPTF_LO_OPEN,
     .def = "1", .help = "the device's hop-latency unit in ns"},
    {HW_OPT_DOUBLE, .key = "occupancy_unit_bytes", HW_OPT_AT(C, occupancy_unit_bytes), .hi = INFINITY,
     .flags = HW_OPTF_LO_OPEN, .def = "1", .help = "the device's queue-occupancy unit in bytes"},
    {HW_OPT_UINT, .key = "queues", HW_OPT_AT(C, sizes.queues), .lo = 16, .hi = 1 << 28, .def = "65536",
     .help = "per worker: (node, port, queue) keys tracked"},
    {HW_OPT_UINT, .key = "senders", HW_OPT_AT(C, sizes.senders), .lo = 16, .hi = 1 << 28, .def = "4096",
     .help = "per worker: (node, hw_id) keys whose report sequence is tracked"},
    {HW_OPT_UINT, .key = "flows", HW_OPT_AT(C, sizes.flows), .lo = 16, .hi = 1 << 28, .def = "262144",
     .help = "per worker: flows whose path is tracked"},
    {HW_OPT_UINT, .key = "ring_batches", HW_OPT_AT(C, sizes.ring_batches), .lo = 2, .hi = 65536, .def = "64",
     .help = "batches of 1024 records between each worker and the sink thread"},
    {HW_OPT_END},
};

const struct hw_opts_spec hw_collector_opts = {
    .prog = "hopwatch-collector",
    .synopsis =
        "Usage: hopwatch-collector [EAL options] -- [options]       receive with DPDK (any ethdev: NICs, net_pcap,\n"
        "                                                         net_af_packet, net_ring, ...)\n"
        "       hopwatch-collector --pcap FILE|IFACE [options]      receive with libpcap (capture file or interface)\n"
        "       hopwatch-collector diagnose [EAL options --] [options]  checklist of PASS/SKIP/FAIL (diagnose "
        "--help)\n",
    .intro = "Decodes INT telemetry reports (Telemetry Report v0.5/v1.0/v2.0 with embedded INT-MD v0.5/v1.0/v2.1\n"
             "stacks) and bare INT-MD data packets into one record per hop (docs/records.md), tracks report\n"
             "sequence numbers per (node, hw_id), per-(node, port, queue) occupancy and latency, and per-flow\n"
             "paths, and writes records to the configured sinks.  SIGINT/SIGTERM: stop, drain, flush, print\n"
             "the counters, exit 0.  SIGHUP: reopen output files.\n",
    .epilog = "At exit the counters go to standard error: packets, reports, records, not_report, one line per\n"
              "error reason seen, report packets lost/duplicate/reordered, and sink drops.\n"
              "Exit status: 0 ok, 1 runtime failure (input or output could not be used), 2 bad usage or config.\n",
    .rows = rows,
    .after_config = apply_given,
};

void hw_collector_config_default(struct hw_collector_config *c)
{
	memset(c, 0, sizeof(*c));
	hw_parser_config_default(&c->parser);
	c->set_profile = c->set_dscp[0] = c->set_dscp[1] = -1;
	hw_opts_defaults(&hw_collector_opts, c);
}

void hw_collector_config_free(struct hw_collector_config *c)
{
	(void)c;
	hw_opts_free_strings();
}

int hw_collector_config_load(struct hw_collector_config *c, const char *path, char *err, size_t errlen)
{
	int rc = hw_opts_load_file(&hw_collector_opts, c, path, err, errlen);
	apply_given(c);
	return rc;
}

/* After the command line: the same order as for the file. */
void hw_collector_config_finish(struct hw_collector_config *c)
{
	apply_given(c);
}
