/* The collector runtime: worker set-up, the sink thread (JSON lines now; record files and the live
 * stream when configured), SIGHUP reopening, and the end-of-run counters. */
#include <errno.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clickhouse_sink.h"
#include "clock.h"
#include "collector.h"
#include "hopwatch/record_file.h"
#include "hopwatch/metrics_http.h"
#include "hopwatch/record_json.h"
#include "hopwatch/stream.h"
#include "json_sink.h"
#include "metrics.h"
#include "node_names.h"
#include "stream_shm.h"

volatile sig_atomic_t hw_stop_requested, hw_reopen_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		hw_reopen_requested = 1;
	else
		hw_stop_requested = 1;
}

void hw_install_signal_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* rotation only sets a flag the sink thread reads: a read it interrupts restarts (a capture read from a
	 * named pipe failed with EINTR in the middle of a record on every SIGHUP) */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

#define HW_SINK_LOG_S 10

/* A sink's failure: counted (the exit status says so), printed at most once per HW_SINK_LOG_S with how
 * many were left out since. */
enum { SINK_FILES, SINK_JSON, SINK_CLICKHOUSE };

static void sink_error(struct hw_collector *c, int sink, const char *err)
{
	c->sink_errors++;
	uint64_t now = hw_mono_ns();
	if (c->log_last_ns[sink] && now - c->log_last_ns[sink] < HW_SINK_LOG_S * 1000000000ull) {
		c->log_skipped[sink]++;
		return;
	}
	if (c->log_skipped[sink])
		fprintf(stderr, "hopwatch-collector: %s (%llu more errors of this output in the last %d s not shown)\n",
		        err, (unsigned long long)c->log_skipped[sink], HW_SINK_LOG_S);
	else
		fprintf(stderr, "hopwatch-collector: %s\n", err);
	c->log_last_ns[sink] = now;
	c->log_skipped[sink] = 0;
}

static void json_counts(struct hw_collector *c)
{
	uint64_t written, lost;
	hw_json_sink_counts(c->json, &written, &lost);
	__atomic_store_n(&c->json_written, written, __ATOMIC_RELAXED);
	__atomic_store_n(&c->json_lost, lost, __ATOMIC_RELAXED);
}

static void files_counts(struct hw_collector *c)
{
	__atomic_store_n(&c->files_written, hw_record_writer_count(c->files), __ATOMIC_RELAXED);
	__atomic_store_n(&c->files_lost, hw_record_writer_lost(c->files), __ATOMIC_RELAXED);
}

/* shm: beside other outputs: a copy of the batch into its worker's ring in the shared file.  A full ring waits
 * for the analyzer on lossless input (as a worker does for the sink thread), and drops the batch otherwise, or
 * when no analyzer is there to take it. */
static void shm_put(struct hw_collector *c, const struct hw_batch *b)
{
	struct hw_batch_ring *r = &c->shm_rings[b->worker];
	struct hw_batch *s =
	    c->lossless ? hw_batch_ring_slot_wait(r, NULL, &hw_stop_requested, &c->shm_gave_up) : hw_batch_ring_slot(r);
	if (!s) {
		__atomic_store_n(&c->shm_full, c->shm_full + b->n, __ATOMIC_RELAXED);
		__atomic_store_n(&c->stream_dropped, c->shm_full, __ATOMIC_RELAXED); /* for /metrics while running */
		return;
	}
	s->n = b->n;
	s->worker = b->worker;
	memcpy(s->recs, b->recs, (size_t)b->n * sizeof(b->recs[0]));
	hw_batch_ring_publish(r);
}

static void write_batch(struct hw_collector *c, const struct hw_batch *b)
{
	char err[512];
	if (c->files) {
		if (hw_record_writer_write(c->files, b->recs, b->n, hw_real_ns(), err, sizeof(err)))
			sink_error(c, SINK_FILES, err);
		files_counts(c);
	}
	if (c->stream) {
		hw_stream_send(c->stream, b->recs, b->n); /* never blocks: a slow reader loses whole batches */
		/* for /metrics and the status line while running */
		__atomic_store_n(&c->stream_sent, hw_stream_sent_records(c->stream), __ATOMIC_RELAXED);
		__atomic_store_n(&c->stream_dropped, hw_stream_dropped_records(c->stream), __ATOMIC_RELAXED);
	}
	if (c->clickhouse)
		hw_ch_sink_put(c->clickhouse, b->recs, b->n); /* never blocks: a full queue counts drops */
	if (c->json) {
		if (hw_json_sink_put(c->json, b->recs, b->n, err, sizeof(err)))
			sink_error(c, SINK_JSON, err);
		json_counts(c);
	}
	if (c->shm_rings)
		shm_put(c, b);
}

static void reopen_outputs(struct hw_collector *c)
{
	char err[512];
	if (c->files) {
		if (hw_record_writer_reopen(c->files, err, sizeof(err)))
			sink_error(c, SINK_FILES, err);
		files_counts(c);
	}
	if (c->json) {
		if (hw_json_sink_reopen(c->json, err, sizeof(err)))
			sink_error(c, SINK_JSON, err);
		json_counts(c);
	}
}

/* Drain every worker ring until asked to stop and every ring is empty. */
static void *sink_main(void *arg)
{
	struct hw_collector *c = arg;
	for (;;) {
		bool stopping = __atomic_load_n(&c->sink_stop, __ATOMIC_ACQUIRE);
		unsigned got = 0;
		for (unsigned i = 0; i < c->n_workers; i++) {
			struct hw_batch_ring *r = &c->workers[i]->ring;
			struct hw_batch *b;
			while ((b = hw_batch_ring_peek(r))) {
				write_batch(c, b);
				hw_batch_ring_release(r);
				got++;
			}
		}
		if (hw_reopen_requested) {
			hw_reopen_requested = 0;
			reopen_outputs(c);
		}
		if (!got) {
			if (stopping)
				break;
			char err[512];
			if (c->json) {
				if (hw_json_sink_flush(c->json, err, sizeof(err)))
					sink_error(c, SINK_JSON, err);
				json_counts(c);
			}
			if (c->stream)
				hw_stream_sender_flush(c->stream);
			if (c->files) { /* time rotation also happens when no records arrive */
				if (hw_record_writer_write(c->files, NULL, 0, hw_real_ns(), err, sizeof(err)))
					sink_error(c, SINK_FILES, err);
				files_counts(c);
			}
			struct timespec ts = {0, 200000};
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void render_metrics(void *c, FILE *f)
{
	hw_metrics_render(c, f);
}

int hw_collector_start(struct hw_collector *c, unsigned n_workers, bool backpressure, char *err, size_t errlen)
{
	c->start_ns = hw_real_ns();
	c->sinks_on = c->cfg.json_out || c->cfg.records_dir || c->cfg.stream || c->cfg.n_clickhouse;
	if (c->cfg.json_out && !(c->json = hw_json_sink_open(c->cfg.json_out, err, errlen)))
		return -1;
	if (c->cfg.records_dir) {
		struct hw_record_writer_opts o = {.dir = c->cfg.records_dir,
		                                  .prefix = "records",
		                                  .rotate_bytes = c->cfg.rotate_bytes,
		                                  .rotate_ns = c->cfg.rotate_seconds * 1000000000ull,
		                                  .encoding = (enum hw_record_encoding)c->cfg.records_encoding};
		if (!(c->files = hw_record_writer_open(&o, err, errlen)))
			return -1;
	}
	const char *shm = hw_shm_path(c->cfg.stream);
	c->lossless = backpressure;
	if (shm &&
	    !(c->shm = hw_shm_writer_create(shm, n_workers, c->cfg.sizes.ring_batches, backpressure, err, errlen)))
		return -1;
	c->shm_direct = c->shm && !c->cfg.json_out && !c->cfg.records_dir && !c->cfg.n_clickhouse;
	if (c->shm && !c->shm_direct) {
		if (!(c->shm_rings = calloc(n_workers, sizeof(*c->shm_rings)))) {
			snprintf(err, errlen, "out of memory for %u shared rings", n_workers);
			return -1;
		}
		for (unsigned i = 0; i < n_workers; i++)
			hw_shm_writer_ring(c->shm, i, &c->shm_rings[i]);
	}
	if (c->cfg.stream && !shm &&
	    !(c->stream = hw_stream_sender_open_keyed(c->cfg.stream, c->cfg.stream_key, err, errlen)))
		return -1;
	if (c->cfg.n_clickhouse) {
		struct hw_ch_sink_opts o = {.urls = c->cfg.clickhouse,
		                            .n_urls = c->cfg.n_clickhouse,
		                            .table = c->cfg.clickhouse_table,
		                            .batch_records = c->cfg.clickhouse_batch_records,
		                            .batch_ms = c->cfg.clickhouse_batch_ms,
		                            .queue_records = c->cfg.clickhouse_queue_records,
		                            .drain_s = c->cfg.clickhouse_drain_s,
		                            .failback_s = c->cfg.clickhouse_failback_s,
		                            .lossless_stop = backpressure ? (volatile int *)&hw_stop_requested : NULL};
		if (!(c->clickhouse = hw_ch_sink_open(&o, err, errlen)))
			return -1;
	}
	c->workers = calloc(n_workers, sizeof(*c->workers));
	if (!c->workers) {
		snprintf(err, errlen, "out of memory for %u workers", n_workers);
		return -1;
	}
	for (unsigned i = 0; i < n_workers; i++) {
		c->workers[i] = aligned_alloc(64, (sizeof(struct hw_worker) + 63) / 64 * 64);
		if (!c->workers[i] || hw_worker_init(c->workers[i], i, &c->cfg.parser, &c->cfg.sizes,
		                                     c->sinks_on && !c->shm_direct, backpressure)) {
			snprintf(err, errlen, "out of memory for worker %u tables (queues %u, senders %u, flows %u)", i,
			         c->cfg.sizes.queues, c->cfg.sizes.senders, c->cfg.sizes.flows);
			return -1;
		}
		if (c->shm_direct) { /* the analyzer takes the worker's batches itself */
			hw_shm_writer_ring(c->shm, i, &c->workers[i]->ring);
			c->workers[i]->has_ring = true;
		}
		c->workers[i]->stop = (volatile bool *)&c->sink_stop;
		c->workers[i]->interrupt = &hw_stop_requested;
		c->n_workers = i + 1;
	}
	if (c->sinks_on && !c->shm_direct && pthread_create(&c->sink_thread, NULL, sink_main, c)) {
		snprintf(err, errlen, "cannot start the sink thread");
		return -1;
	}
	if (c->cfg.names && !(c->names = hw_node_names_open(c->cfg.names, err, errlen)))
		return -1;
	if (c->cfg.metrics && (c->cfg.http_auth || c->cfg.tls_cert || c->cfg.tls_key) &&
	    hw_metrics_http_secure(c->cfg.http_auth, c->cfg.tls_cert, c->cfg.tls_key, err, errlen))
		return -1;
	if (c->cfg.metrics && c->cfg.web_config && hw_metrics_http_web_config(c->cfg.web_config, err, errlen))
		return -1;
	if (c->cfg.metrics && !(c->metrics = hw_metrics_http_start(c->cfg.metrics, render_metrics, c, err, errlen)))
		return -1;
	return 0;
}

void hw_collector_finish(struct hw_collector *c)
{
	hw_collector_status_stop(c);
	hw_metrics_http_stop(c->metrics);
	c->metrics = NULL;
	hw_node_names_close(c->names);
	c->names = NULL;
	for (unsigned i = 0; i < c->n_workers; i++)
		hw_worker_flush(c->workers[i]);
	if (c->sinks_on && !c->shm_direct) {
		__atomic_store_n(&c->sink_stop, true, __ATOMIC_RELEASE);
		pthread_join(c->sink_thread, NULL);
	}
	if (c->shm) {
		/* the analyzer takes what is published while it keeps taking (hw_shm_writer_close); records it has not
		 * taken a second after its last take count as the stream's drops (it may still read them from its
		 * mapping), as do those a full ring dropped on the sink thread */
		c->stream_dropped = c->shm_full + hw_shm_writer_close(c->shm, 1000, &c->stream_sent);
		c->shm = NULL;
		free(c->shm_rings); /* the rings' memory went with the file */
		c->shm_rings = NULL;
		for (unsigned i = 0; c->shm_direct && i < c->n_workers; i++) {
			c->workers[i]->has_ring = false;
			c->workers[i]->ring = (struct hw_batch_ring){0};
		}
	}
	if (c->stream) {
		for (int i = 0; i < 100 && !hw_stream_sender_flush(c->stream); i++) {
			struct timespec ts = {0, 10000000};
			nanosleep(&ts, NULL); /* give a partly sent frame up to a second to leave */
		}
		/* a frame the reader never took is dropped before the counts are read: read before, its records
		 * were neither sent nor dropped (a stalled reader, issue 22 item 9) */
		hw_stream_sender_finish(c->stream);
		c->stream_sent = hw_stream_sent_records(c->stream);
		c->stream_dropped = hw_stream_dropped_records(c->stream);
		hw_stream_sender_close(c->stream);
		c->stream = NULL;
	}
	if (c->clickhouse) {
		struct hw_ch_sink_counts k;
		hw_ch_sink_close(c->clickhouse, &k);
		c->clickhouse = NULL;
		c->ch_inserted = k.inserted;
		c->ch_dropped = k.dropped;
		c->ch_retries = k.retries;
		c->ch_failovers = k.failovers;
	}
	char err[512];
	memset(c->log_last_ns, 0, sizeof(c->log_last_ns)); /* the last word on each sink is printed */
	if (c->ch_dropped) {
		/* records that never reached ClickHouse make the run fail like the other sinks' losses (issue 22
		 * item 9: a run exited 0 with 100 % dropped) */
		snprintf(err, sizeof(err),
		         "clickhouse: %llu records dropped (the queue was full while ClickHouse was slow or down, or "
		         "records were still queued at exit)",
		         (unsigned long long)c->ch_dropped);
		sink_error(c, SINK_CLICKHOUSE, err);
	}
	if (c->files) {
		/* the open file finished first: counts read before it was renamed said records that were then lost
		 * were written (issue 22 item 9) */
		if (hw_record_writer_reopen(c->files, err, sizeof(err)))
			sink_error(c, SINK_FILES, err);
		files_counts(c);
		if (hw_record_writer_close(c->files, err, sizeof(err)))
			sink_error(c, SINK_FILES, err);
		c->files = NULL;
	}
	if (c->json) {
		if (hw_json_sink_flush(c->json, err, sizeof(err)))
			sink_error(c, SINK_JSON, err);
		json_counts(c);
		if (hw_json_sink_close(c->json, err, sizeof(err)))
			sink_error(c, SINK_JSON, err);
		c->json = NULL;
	}
}

void hw_collector_print_counts(const struct hw_collector *c, FILE *f)
{
	struct hw_worker_counters t = {0};
	uint64_t lost = 0, dup = 0, reord = 0, seq_received = 0, senders = 0, overflow = 0;
	uint64_t queues = hw_collector_distinct_queues(c);
	uint64_t evictions = 0;
	for (unsigned i = 0; i < c->n_workers; i++) {
		const struct hw_worker *w = c->workers[i];
		t.packets += w->cnt.packets;
		t.reports += w->cnt.reports;
		t.records += w->cnt.records;
		t.sink_dropped += w->cnt.sink_dropped;
		t.path_changes += w->cnt.path_changes;
		for (int r = 0; r < HW_RESULT_COUNT; r++)
			t.by_result[r] += w->cnt.by_result[r];
		for (uint32_t s = 0; s <= w->seqs.mask; s++) {
			const struct hw_seq_state *q = &w->seqs.slots[s];
			if (!q->used)
				continue;
			senders++;
			seq_received += q->received;
			lost += q->lost;
			dup += q->duplicate;
			reord += q->reordered;
		}
		overflow += w->queues.overflow + w->seqs.overflow;
		evictions += w->flows.evictions;
	}
	fprintf(f, "packets %llu\nreports %llu\nrecords %llu\n", (unsigned long long)t.packets,
	        (unsigned long long)t.reports, (unsigned long long)t.records);
	for (int i = HW_NOT_REPORT; i < HW_RESULT_COUNT; i++)
		if (i == HW_NOT_REPORT || t.by_result[i])
			fprintf(f, "%s %llu\n", hw_result_name((enum hw_result)i), (unsigned long long)t.by_result[i]);
	fprintf(f,
	        "report_senders %llu\nreport_packets_lost %llu\nreport_packets_duplicate %llu\n"
	        "report_packets_reordered %llu\nqueues_tracked %llu\npath_changes %llu\nflow_evictions %llu\n"
	        "table_overflow %llu\nsink_dropped %llu\n",
	        (unsigned long long)senders, (unsigned long long)lost, (unsigned long long)dup,
	        (unsigned long long)reord, (unsigned long long)queues, (unsigned long long)t.path_changes,
	        (unsigned long long)evictions, (unsigned long long)overflow, (unsigned long long)t.sink_dropped);
	if (c->cfg.json_out)
		fprintf(f, "json_written %llu\njson_lost %llu\n", (unsigned long long)c->json_written,
		        (unsigned long long)c->json_lost);
	if (c->cfg.records_dir)
		fprintf(f, "files_written %llu\nfiles_lost %llu\n", (unsigned long long)c->files_written,
		        (unsigned long long)c->files_lost);
	if (c->cfg.stream)
		fprintf(f, "stream_sent %llu\nstream_dropped %llu\n", (unsigned long long)c->stream_sent,
		        (unsigned long long)c->stream_dropped);
	if (c->cfg.n_clickhouse)
		fprintf(f,
		        "clickhouse_inserted %llu\nclickhouse_dropped %llu\nclickhouse_retries %llu\n"
		        "clickhouse_failovers %llu\n",
		        (unsigned long long)c->ch_inserted, (unsigned long long)c->ch_dropped,
		        (unsigned long long)c->ch_retries, (unsigned long long)c->ch_failovers);
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(f, "memory_peak_kib %ld\n", ru.ru_maxrss);
	(void)seq_received;
}
