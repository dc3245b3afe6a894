/* hopwatch-collector configuration: parser detection settings, unit scales, table sizes and sinks,
 * from a JSON file and command-line flags.  Bad keys and values are errors naming the key. */
#ifndef HOPWATCH_COLLECTOR_CONFIG_H
#define HOPWATCH_COLLECTOR_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hopwatch/wire.h"
#include "options.h"
#include "worker.h"

struct hw_collector_config {
	struct hw_parser_config parser;
	struct hw_worker_sizes sizes;
	double latency_unit_ns;      /* device hop-latency unit in ns (default 1) */
	double occupancy_unit_bytes; /* device queue-occupancy unit in bytes (default 1) */
	const char *json_out;        /* JSON lines path, "-" = stdout, NULL = off */
	const char *records_dir;     /* binary record files, NULL = off */
	uint64_t rotate_bytes;
	uint64_t rotate_seconds;
	int records_encoding;   /* enum hw_record_encoding (record_file.h): 0 compact, 1 fixed */
	const char *stream;     /* "unix:PATH" or "tcp:HOST:PORT", NULL = off */
	const char *stream_key; /* key file: frames authenticated (stream.h), NULL = off */
	const char *metrics;    /* "HOST:PORT" for /metrics, NULL = off */
	const char *names;      /* names file for the /metrics labels (node_names.h), NULL = off */
	/* /metrics access (hw_metrics_http_secure): basic-auth user file, TLS certificate and key, NULL = off */
	const char *http_auth, *tls_cert, *tls_key;
	const char *web_config;   /* the same from an exporter web config file (hw_metrics_http_web_config) */
	const char *pcap;         /* --pcap FILE or IFACE */
	const char *bpf;          /* live capture filter; default: udp dst port in report ports */
	double idle_exit_s;       /* DPDK: exit after this long without packets (0 = never) */
	uint32_t workers;         /* DPDK: RX queues (= worker lcores) per port; default: lcores - 1 */
	bool lossless;            /* DPDK: workers wait for slow sinks instead of dropping records */
	double status_interval_s; /* one status line on stderr every this many seconds (0 = none) */
	const char *config;       /* --config FILE */
	/* As given by the file or the command line, applied by each source's end: the profile first, then an
	 * explicit DSCP value and mask, which win over the profile's (-1: not given). */
	int set_profile;
	int set_dscp[2];
	/* ClickHouse sink (clickhouse_sink.h): the HTTP URLs of one shard's replicas in failover order
	 * (none = off), table, batch size in records and in time, queue bound in records, how long to keep
	 * delivering at exit, when to go back to the first replica after a failover */
	const char *clickhouse[8];
	uint32_t n_clickhouse;
	const char *clickhouse_table;
	uint32_t clickhouse_batch_records;
	uint32_t clickhouse_batch_ms;
	uint32_t clickhouse_queue_records;
	double clickhouse_drain_s;
	double clickhouse_failback_s;
	/* per-queue series on /metrics for at most this many queues (the most hop records), 0 = all */
	uint32_t metrics_max_queues;
};

/* The collector's options and config-file keys (hopwatch-collector --help, docs/collector.md). */
extern const struct hw_opts_spec hw_collector_opts;

void hw_collector_config_default(struct hw_collector_config *c);
/* Load a JSON config file over the current values.  0, or -1 with a message (file, key, what is
 * expected) in err. */
int hw_collector_config_load(struct hw_collector_config *c, const char *path, char *err, size_t errlen);
/* Apply what the command line gave in the order the file's keys are applied (profile, then DSCP). */
void hw_collector_config_finish(struct hw_collector_config *c);
/* Free the strings config files provided (all of them: options.h keeps them; the struct itself belongs
 * to the caller). */
void hw_collector_config_free(struct hw_collector_config *c);

#endif
