/* The collector runtime shared by its front ends: workers, the sink thread that writes records,
 * the metrics endpoint, signals, and the final counts.  Front ends only feed frames to workers. */
#ifndef HOPWATCH_COLLECTOR_H
#define HOPWATCH_COLLECTOR_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "collector_config.h"
#include "worker.h"

struct hw_metrics_http;
struct hw_record_writer;
struct hw_stream_sender;
struct hw_shm_writer;
struct hw_ch_sink;
struct hw_node_names;
struct hw_json_sink;

/* At most this many DPDK ports have their ethdev counters exported. */
#define HW_MAX_NIC_PORTS 32

struct hw_nic_stats {
	uint16_t port;
	uint64_t rx, imissed, ierrors, nombuf; /* rte_eth_stats: received, missed (no descriptor), bad, no mbuf */
};

struct hw_input_loss {
	bool pcap_live;                        /* a libpcap live capture: the two kernel counts apply */
	uint64_t pcap_dropped, pcap_ifdropped; /* pcap_stats: ps_drop (buffer full), ps_ifdrop (interface) */
	unsigned n_nic;                        /* DPDK ports in nic[] */
	struct hw_nic_stats nic[HW_MAX_NIC_PORTS];
};

struct hw_collector {
	struct hw_collector_config cfg;
	struct hw_worker **workers;
	unsigned n_workers;
	bool sinks_on;
	pthread_t sink_thread;
	volatile bool sink_stop;
	struct hw_json_sink *json;
	struct hw_record_writer *files;
	struct hw_stream_sender *stream;
	/* --stream shm:PATH.  Alone, the workers' rings are in its file and there is no sink thread (shm_direct);
	 * beside other outputs the sink thread copies each batch it wrote into the worker's ring in the file
	 * (shm_rings), counting what a full ring dropped (shm_full). */
	struct hw_shm_writer *shm;
	bool shm_direct, lossless, shm_gave_up; /* shm_gave_up: hw_batch_ring_slot_wait's, for the shared rings */
	struct hw_batch_ring *shm_rings;
	uint64_t shm_full;
	struct hw_metrics_http *metrics;
	struct hw_node_names *names; /* --names: node and port names for the /metrics labels (node_names.h) */
	uint64_t json_written, files_written, files_lost, stream_sent, stream_dropped, sink_errors;
	uint64_t json_lost; /* records the JSON output could not take (json_sink.h) */
	/* sink errors printed at most once per HW_SINK_LOG_S per sink (a full disk fails every batch):
	 * [0] record files, [1] JSON, [2] ClickHouse */
	uint64_t log_last_ns[3], log_skipped[3];
	uint64_t start_ns;
	/* ClickHouse sink (clickhouse_sink.h): live while running, final counts after finish */
	struct hw_ch_sink *clickhouse;
	uint64_t ch_inserted, ch_dropped, ch_retries, ch_failovers;
	/* Live loss at the input, written by the front end about once a second (never per packet) with
	 * relaxed stores, read by /metrics and the status line. */
	struct hw_input_loss loss;
	/* Liveness for the service watchdog: the front end's loop bumps it on every turn it makes
	 * without a packet (packets advancing count as progress too). */
	uint64_t front_beat;
	/* The status thread (collector_status.c): status line, sd_notify STATUS= and WATCHDOG=1. */
	pthread_t status_thread;
	bool status_on;
	pthread_mutex_t status_mu;
	pthread_cond_t status_cv;
	bool status_stop;
};

/* Set by SIGINT/SIGTERM (stop) and SIGHUP (reopen output files). */
extern volatile sig_atomic_t hw_stop_requested, hw_reopen_requested;
void hw_install_signal_handlers(void);

/* Create n workers and open every configured sink.  backpressure: workers wait for the sinks
 * instead of dropping (offline input).  0, or -1 with err set. */
int hw_collector_start(struct hw_collector *c, unsigned n_workers, bool backpressure, char *err, size_t errlen);
/* Flush the workers, drain and close the sinks, stop the metrics server. */
void hw_collector_finish(struct hw_collector *c);
/* The front end's inputs are up: tell systemd READY=1 and start the status thread (status line every
 * cfg.status_interval_s, STATUS= and the watchdog while running).  Stopped by hw_collector_finish. */
void hw_collector_ready(struct hw_collector *c);
/* STOPPING=1 and stop the status thread (hw_collector_finish calls it first). */
void hw_collector_status_stop(struct hw_collector *c);
/* The one-line status (collector_status.c), rates against the previous call's figures in prev. */
struct hw_status_prev {
	uint64_t packets, records, mono_ns;
};
void hw_collector_status_line(const struct hw_collector *c, struct hw_status_prev *prev, char *buf, size_t len);
/* Print the final counters (stderr). */
void hw_collector_print_counts(const struct hw_collector *c, FILE *f);

#endif
