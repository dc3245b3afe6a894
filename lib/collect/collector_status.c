/* The collector as a service: READY=1 once the front end's inputs are up, then a status thread that
 * prints one status line every --status-interval, keeps the unit's STATUS= current and feeds the watchdog. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clickhouse_sink.h"
#include "clock.h"
#include "collector.h"
#include "hopwatch/stream.h"
#include "service.h"
#include "stream_shm.h"

/* STATUS= is refreshed this often even when the stderr line is rarer (or off). */
#define STATUS_NOTIFY_NS 5000000000ull

struct totals {
	uint64_t packets, records, rejected, sink_dropped;
	uint64_t by_result[HW_RESULT_COUNT];
};

static void sum_workers(const struct hw_collector *c, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < c->n_workers; i++) {
		const struct hw_worker *w = c->workers[i];
		t->packets += HW_READ(w->cnt.packets);
		t->records += HW_READ(w->cnt.records);
		t->sink_dropped += HW_READ(w->cnt.sink_dropped);
		for (int r = 0; r < HW_RESULT_COUNT; r++)
			t->by_result[r] += HW_READ(w->cnt.by_result[r]);
	}
	for (int r = HW_NOT_REPORT + 1; r < HW_RESULT_COUNT; r++)
		t->rejected += t->by_result[r];
}

/* Appends to buf at *o, never past len. */
#define PUT(...)                                                                                                       \
	do {                                                                                                           \
		if (*o < len)                                                                                          \
			*o += (size_t)snprintf(buf + *o, len - *o, __VA_ARGS__);                                       \
	} while (0)

static void put_drops(const struct hw_collector *c, const struct totals *t, char *buf, size_t len, size_t *o)
{
	PUT("; dropped: sink %llu", (unsigned long long)t->sink_dropped);
	const struct hw_input_loss *l = &c->loss;
	if (HW_READ(l->pcap_live) || HW_READ(l->pcap_dropped) || HW_READ(l->pcap_ifdropped))
		PUT(", kernel %llu, interface %llu", (unsigned long long)HW_READ(l->pcap_dropped),
		    (unsigned long long)HW_READ(l->pcap_ifdropped));
	unsigned n_nic = HW_READ(l->n_nic);
	for (unsigned i = 0; i < n_nic && i < HW_MAX_NIC_PORTS; i++) {
		const struct hw_nic_stats *s = &l->nic[i];
		PUT(", port %u missed %llu nombuf %llu errors %llu", s->port, (unsigned long long)HW_READ(s->imissed),
		    (unsigned long long)HW_READ(s->nombuf), (unsigned long long)HW_READ(s->ierrors));
	}
	if (c->cfg.stream)
		PUT(", stream %llu", (unsigned long long)HW_READ(c->stream_dropped));
	if (c->cfg.records_dir)
		PUT(", files %llu", (unsigned long long)HW_READ(c->files_lost));
}

void hw_collector_status_line(const struct hw_collector *c, struct hw_status_prev *prev, char *buf, size_t len)
{
	struct totals t;
	sum_workers(c, &t);
	uint64_t now = hw_mono_ns();
	double dt = prev->mono_ns && now > prev->mono_ns ? (double)(now - prev->mono_ns) * 1e-9 : 0;
	double pps = dt > 0 ? (double)(t.packets - prev->packets) / dt : 0;
	double rps = dt > 0 ? (double)(t.records - prev->records) / dt : 0;
	prev->packets = t.packets;
	prev->records = t.records;
	prev->mono_ns = now;

	size_t off = 0, *o = &off;
	PUT("packets %llu (%.0f/s), records %llu (%.0f/s), not_report %llu, rejected %llu",
	    (unsigned long long)t.packets, pps, (unsigned long long)t.records, rps,
	    (unsigned long long)t.by_result[HW_NOT_REPORT], (unsigned long long)t.rejected);
	if (t.rejected) { /* the reasons seen, as /metrics names them */
		const char *sep = " (";
		for (int r = HW_NOT_REPORT + 1; r < HW_RESULT_COUNT; r++)
			if (t.by_result[r]) {
				PUT("%s%s %llu", sep, hw_result_name((enum hw_result)r),
				    (unsigned long long)t.by_result[r]);
				sep = ", ";
			}
		PUT(")");
	}
	put_drops(c, &t, buf, len, o);
	/* queue fill: the fullest worker ring, and the ClickHouse queue */
	if (c->sinks_on) {
		unsigned full = 0;
		for (unsigned i = 0; i < c->n_workers; i++) {
			const struct hw_batch_ring *r = &c->workers[i]->ring;
			uint32_t used = hw_batch_ring_waiting(r);
			unsigned pct = (unsigned)((uint64_t)used * 100 / ((uint64_t)r->mask + 1));
			if (pct > full)
				full = pct;
		}
		PUT("; rings %u%% full", full);
	}
	if (c->clickhouse) {
		struct hw_ch_sink_counts k;
		hw_ch_sink_counts(c->clickhouse, &k);
		PUT(", clickhouse queue %llu/%u, dropped %llu", (unsigned long long)k.queued,
		    c->cfg.clickhouse_queue_records, (unsigned long long)k.dropped);
	}
	if (c->clickhouse || c->stream || c->shm) { /* the peers it sends to that are down */
		const char *down[3] = {c->clickhouse ? hw_ch_sink_down(c->clickhouse) : NULL,
		                       c->stream ? hw_stream_sender_down(c->stream) : NULL,
		                       c->shm ? hw_shm_writer_down(c->shm) : NULL};
		const char *sep = "; peers down: ";
		for (int i = 0; i < 3; i++)
			if (down[i]) {
				PUT("%s%s", sep, down[i]);
				sep = ", ";
			}
		if (sep[0] == ';')
			PUT("; peers down: none");
	}
	if (off >= len && len > 4)
		memcpy(buf + len - 4, "...", 4); /* cut: say so */
}

static uint64_t progress(const struct hw_collector *c)
{
	uint64_t n = HW_READ(c->front_beat);
	for (unsigned i = 0; i < c->n_workers; i++)
		n += HW_READ(c->workers[i]->cnt.packets);
	return n;
}

static void *status_main(void *arg)
{
	struct hw_collector *c = arg;
	const uint64_t wd_ns = hw_service_watchdog_usec() * 1000ull;
	const uint64_t line_ns = (uint64_t)(c->cfg.status_interval_s * 1e9);
	uint64_t tick_ns = 1000000000ull; /* wake once a second, or at half the watchdog interval */
	if (wd_ns && wd_ns / 2 < tick_ns)
		tick_ns = wd_ns / 2;
	struct hw_status_prev line_prev = {0}, notify_prev = {0};
	char line[1024];
	hw_collector_status_line(c, &line_prev, line, sizeof(line)); /* rates count from here */
	notify_prev = line_prev;
	uint64_t last_line = hw_mono_ns(), last_notify = last_line, last_progress = progress(c);
	if (wd_ns)
		hw_service_watchdog();

	pthread_mutex_lock(&c->status_mu);
	while (!c->status_stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		uint64_t ns = (uint64_t)until.tv_nsec + tick_ns;
		until.tv_sec += (time_t)(ns / 1000000000ull);
		until.tv_nsec = (long)(ns % 1000000000ull);
		pthread_cond_timedwait(&c->status_cv, &c->status_mu, &until);
		if (c->status_stop)
			break;
		pthread_mutex_unlock(&c->status_mu);
		uint64_t now = hw_mono_ns(), p = progress(c);
		/* the watchdog hears from us only while the front end's loop turns or packets arrive */
		if (wd_ns && p != last_progress) {
			hw_service_watchdog();
			last_progress = p;
		}
		if (line_ns && now - last_line >= line_ns) {
			hw_collector_status_line(c, &line_prev, line, sizeof(line));
			fprintf(stderr, "%shopwatch-collector: status: %s\n", hw_service_log_prefix(6), line);
			hw_service_status(line);
			last_line = last_notify = now;
		} else if (now - last_notify >= STATUS_NOTIFY_NS && hw_service_supported()) {
			hw_collector_status_line(c, &notify_prev, line, sizeof(line));
			hw_service_status(line);
			last_notify = now;
		}
		pthread_mutex_lock(&c->status_mu);
	}
	pthread_mutex_unlock(&c->status_mu);
	return NULL;
}

void hw_collector_ready(struct hw_collector *c)
{
	char status[512];
	snprintf(status, sizeof(status), "receiving from %s with %u worker%s%s%s%s%s%s",
	         c->cfg.pcap ? c->cfg.pcap : "DPDK", c->n_workers, c->n_workers == 1 ? "" : "s",
	         c->cfg.records_dir ? ", record files" : "", c->cfg.stream ? ", stream" : "",
	         c->cfg.json_out ? ", JSON lines" : "", c->cfg.n_clickhouse ? ", ClickHouse" : "",
	         c->cfg.metrics ? ", /metrics" : "");
	hw_service_ready(status);
	if (c->status_on)
		return;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->status_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&c->status_mu, NULL);
	c->status_stop = false;
	if (pthread_create(&c->status_thread, NULL, status_main, c) == 0)
		c->status_on = true;
	else
		fprintf(stderr, "%shopwatch-collector: cannot start the status thread: no status lines or watchdog\n",
		        hw_service_log_prefix(4));
}

void hw_collector_status_stop(struct hw_collector *c)
{
	hw_service_stopping("stopping: draining the sinks");
	if (!c->status_on)
		return;
	pthread_mutex_lock(&c->status_mu);
	c->status_stop = true;
	pthread_cond_signal(&c->status_cv);
	pthread_mutex_unlock(&c->status_mu);
	pthread_join(c->status_thread, NULL);
	pthread_cond_destroy(&c->status_cv);
	pthread_mutex_destroy(&c->status_mu);
	c->status_on = false;
}
