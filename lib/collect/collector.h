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
struct hw_ch_sink;

struct hw_collector {
	struct hw_collector_config cfg;
	struct hw_worker **workers;
	unsigned n_workers;
	bool sinks_on;
	pthread_t sink_thread;
	volatile bool sink_stop;
	FILE *json;
	struct hw_record_writer *files;
	struct hw_stream_sender *stream;
	struct hw_metrics_http *metrics;
	uint64_t json_written, files_written, files_lost, stream_sent, stream_dropped, sink_errors;
	uint64_t start_ns;
	/* ClickHouse sink (clickhouse_sink.h): live while running, final counts after finish */
	struct hw_ch_sink *clickhouse;
	uint64_t ch_inserted, ch_dropped, ch_retries;
};

/* Set by SIGINT/SIGTERM (stop) and SIGHUP (reopen output files). */
extern volatile sig_atomic_t hw_stop_requested, hw_reopen_requested;
void hw_install_signal_handlers(void);

/* Create n workers and open every configured sink.  backpressure: workers wait for the sinks
 * instead of dropping (offline input).  0, or -1 with err set. */
int hw_collector_start(struct hw_collector *c, unsigned n_workers, bool backpressure, char *err, size_t errlen);
/* Flush the workers, drain and close the sinks, stop the metrics server. */
void hw_collector_finish(struct hw_collector *c);
/* Print the final counters (stderr). */
void hw_collector_print_counts(const struct hw_collector *c, FILE *f);

#endif
