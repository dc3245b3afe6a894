/* Rendering /metrics: worker counters summed, sender and queue tables merged by key, device units
 * scaled to bytes and seconds by the configured unit sizes.  Names follow docs/collector.md (the /metrics table). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clickhouse_sink.h"
#include "collector.h"
#include "metrics.h"
#include "node_names.h"
#include "stream_shm.h"

/* Histogram bounds exported: the worker's, 2^hw_hist_le_exp(k) device units (queue_table.h; latency:
 * 64 ns .. 67 ms at 1 ns units; occupancy: 64 .. 64 Mi cells or bytes). */
#define N_LE HW_HIST_BOUNDS

/* One queue histogram summed over workers: cumulative counts at the bounds, total, sum. */
struct hsum {
	uint64_t le[N_LE], count, sum;
};

struct qsum {
	uint32_t node, port, queue;
	int used;
	uint64_t reports, drops, last_occ, max_occ, last_seen;
	struct hsum lat, occ;
};

/* Add one worker's histogram: each bucket read once, so the total is never below a bound's count. */
static void hsum_add(struct hsum *h, const uint64_t hist[HW_HIST_BUCKETS], uint64_t sum)
{
	uint64_t cum = 0;
	for (unsigned k = 0; k < N_LE; k++) {
		/* buckets 0..k hold exactly the values <= the k-th bound (queue_table.h) */
		cum += HW_READ(hist[k]);
		h->le[k] += cum;
	}
	h->count += cum + HW_READ(hist[N_LE]); /* and the last bucket, above every bound */
	h->sum += sum;
}

struct ssum {
	uint32_t node;
	uint8_t hw_id;
	int used;
	uint64_t received, lost, duplicate, reordered;
};

/* Node ids are shown as dotted quads: by default they are the switches' IPv4 management addresses. */
static void node_label(char *buf, size_t n, uint32_t node)
{
	snprintf(buf, n, "%u.%u.%u.%u", node >> 24, (node >> 16) & 0xff, (node >> 8) & 0xff, node & 0xff);
}

/* Room for a series' labels: the numbers, and two names of at most NAME_MAX_BYTES bytes, each escaped (2 bytes a
 * byte at most). */
#define NAME_MAX_BYTES 128
#define LABELS_MAX (96 + 2 * (24 + 2 * NAME_MAX_BYTES))

/* Append ,key="v" (or key="v" at the start) to buf at o: v's first NAME_MAX_BYTES bytes (not cutting a UTF-8
 * character) with backslash, quote and newline escaped as the exposition format asks.  The new o. */
static size_t put_label(char *buf, size_t size, size_t o, const char *key, const char *v)
{
	size_t n = strlen(v);
	if (n > NAME_MAX_BYTES)
		for (n = NAME_MAX_BYTES; n && ((unsigned char)v[n] & 0xc0) == 0x80; n--)
			;
	o += (size_t)snprintf(buf + o, o < size ? size - o : 0, "%s%s=\"", o ? "," : "", key);
	for (size_t i = 0; i < n && o + 3 < size; i++) {
		if (v[i] == '\\' || v[i] == '"' || v[i] == '\n')
			buf[o++] = '\\';
		buf[o++] = v[i] == '\n' ? 'n' : v[i];
	}
	if (o + 1 < size)
		buf[o++] = '"';
	buf[o < size ? o : size - 1] = 0;
	return o;
}

/* node="a.b.c.d" and, when the names file names the node, node_name="leaf1" (the analyzer's and the
 * alerts' label for it). */
static size_t node_labels(char *buf, size_t size, uint32_t node, const struct hw_node_names *nn)
{
	char id[20];
	node_label(id, sizeof(id), node);
	size_t o = put_label(buf, size, 0, "node", id);
	const char *name = hw_node_names_node(nn, node);
	return name ? put_label(buf, size, o, "node_name", name) : o;
}

/* node, node_name, port, port_name (the port's interface name, as in LLDP, when the names file has it),
 * queue. */
static void queue_labels(char *buf, size_t size, const struct qsum *x, const struct hw_node_names *nn)
{
	char port[12] = "none", queue[12] = "none";
	if (x->port != HW_PORT_NONE)
		snprintf(port, sizeof(port), "%u", x->port);
	if (x->queue != HW_QUEUE_NONE)
		snprintf(queue, sizeof(queue), "%u", x->queue);
	size_t o = node_labels(buf, size, x->node, nn);
	o = put_label(buf, size, o, "port", port);
	const char *pname = x->port != HW_PORT_NONE ? hw_node_names_port(nn, x->node, x->port) : NULL;
	if (pname)
		o = put_label(buf, size, o, "port_name", pname);
	put_label(buf, size, o, "queue", queue);
}

/* A merge hash (open addressing, linear probe) that doubles when half full, so a probe always ends.  Its first
 * size comes from the workers' counts, read before their slots are walked: workers still filling slots make
 * the walk find more keys than counted, which used to fill the hash and spin the probe for good (issue 22). */
struct mtab {
	unsigned char *v;
	size_t cap, n, size, used_off; /* entries of size bytes, an int "used" at used_off */
	size_t (*hash)(const void *e);
	int (*same)(const void *a, const void *b);
};

static int mt_used(const struct mtab *t, const void *e)
{
	return *(const int *)((const unsigned char *)e + t->used_off);
}

static int mt_init(struct mtab *t, size_t count, size_t size, size_t used_off)
{
	t->cap = 16;
	while (t->cap < count * 2)
		t->cap <<= 1;
	t->n = 0;
	t->size = size;
	t->used_off = used_off;
	t->v = calloc(t->cap, size);
	return t->v ? 0 : -1;
}

static unsigned char *mt_probe(const struct mtab *t, const void *key)
{
	size_t h = t->hash(key) & (t->cap - 1);
	while (mt_used(t, t->v + h * t->size) && !t->same(t->v + h * t->size, key))
		h = (h + 1) & (t->cap - 1);
	return t->v + h * t->size;
}

/* The entry of key's key fields: the one there, or a free one (its used still 0: the caller fills it).  NULL
 * when the hash cannot grow (out of memory). */
static void *mt_slot(struct mtab *t, const void *key)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct mtab g = *t;
		g.cap = t->cap * 2;
		g.v = calloc(g.cap, t->size);
		if (!g.v)
			return NULL;
		for (size_t i = 0; i < t->cap; i++)
			if (mt_used(t, t->v + i * t->size))
				memcpy(mt_probe(&g, t->v + i * t->size), t->v + i * t->size, t->size);
		free(t->v);
		*t = g;
	}
	unsigned char *e = mt_probe(t, key);
	t->n += !mt_used(t, e);
	return e;
}

static size_t qsum_hash(const void *e)
{
	const struct qsum *q = e;
	return (size_t)q->node * 2654435761u ^ (size_t)q->port * 40503u ^ q->queue;
}

static int qsum_same(const void *a, const void *b)
{
	const struct qsum *x = a, *y = b;
	return x->node == y->node && x->port == y->port && x->queue == y->queue;
}

static size_t ssum_hash(const void *e)
{
	const struct ssum *q = e;
	return (size_t)q->node * 2654435761u ^ q->hw_id;
}

static int ssum_same(const void *a, const void *b)
{
	const struct ssum *x = a, *y = b;
	return x->node == y->node && x->hw_id == y->hw_id;
}

static struct qsum *merge_queues(const struct hw_collector *c, size_t *cap_out);

size_t hw_collector_distinct_queues(const struct hw_collector *c)
{
	size_t cap, n = 0;
	struct qsum *m = merge_queues(c, &cap);
	if (!m)
		return 0;
	for (size_t i = 0; i < cap; i++)
		n += m[i].used != 0;
	free(m);
	return n;
}

static struct qsum *merge_queues(const struct hw_collector *c, size_t *cap_out)
{
	size_t total = 0;
	for (unsigned i = 0; i < c->n_workers; i++)
		total += HW_READ(c->workers[i]->queues.n);
	struct mtab mt = {.hash = qsum_hash, .same = qsum_same};
	if (mt_init(&mt, total, sizeof(struct qsum), offsetof(struct qsum, used)))
		return NULL;
	for (unsigned i = 0; i < c->n_workers; i++) {
		const struct hw_queue_table *t = &c->workers[i]->queues;
		/* the keys in use are slots[0, n), each set before n counted it (queue_table.h): the rest of the
		 * capacity is never touched, here either (a walk of all of it read 16 MiB per worker, a page fault
		 * per 4 KiB, at every scrape) */
		const uint32_t n = __atomic_load_n(&t->n, __ATOMIC_ACQUIRE);
		for (uint32_t s = 0; s < n; s++) {
			const struct hw_queue_stats *q = &t->slots[s];
			const struct qsum key = {.node = q->node, .port = q->port, .queue = q->queue};
			struct qsum *x = mt_slot(&mt, &key);
			if (!x) {
				free(mt.v);
				return NULL;
			}
			if (!x->used) {
				x->used = 1;
				x->node = q->node;
				x->port = q->port;
				x->queue = q->queue;
			}
			x->reports += HW_READ(q->reports);
			x->drops += HW_READ(q->drops);
			uint64_t seen = HW_READ(q->last_seen_ns), maxo = HW_READ(q->max_occupancy);
			if (seen >= x->last_seen) {
				x->last_seen = seen;
				x->last_occ = HW_READ(q->last_occupancy);
			}
			if (maxo > x->max_occ)
				x->max_occ = maxo;
			hsum_add(&x->lat, q->lat_hist, HW_READ(q->lat_sum));
			hsum_add(&x->occ, q->occ_hist, HW_READ(q->occ_sum));
		}
	}
	*cap_out = mt.cap;
	return (struct qsum *)mt.v;
}

/* The labels of every queue /metrics shows, formatted once for all its families: queue i's are text + at[i]. */
struct shown_labels {
	char *text;
	size_t *at;
};

static int shown_labels_make(struct shown_labels *sl, const struct qsum *const *shown, size_t n,
                             const struct hw_node_names *nn)
{
	size_t cap = n * 64 + LABELS_MAX, len = 0;
	sl->text = malloc(cap);
	sl->at = malloc((n ? n : 1) * sizeof(*sl->at));
	if (!sl->text || !sl->at)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		if (cap - len < LABELS_MAX) {
			cap = 2 * cap + LABELS_MAX;
			char *t = realloc(sl->text, cap);
			if (!t)
				goto fail;
			sl->text = t;
		}
		queue_labels(sl->text + len, LABELS_MAX, shown[i], nn);
		sl->at[i] = len;
		len += strlen(sl->text + len) + 1;
	}
	return 0;
fail:
	free(sl->text);
	free(sl->at);
	return -1;
}

/* One histogram family (the struct hsum at offset off of every queue), values scaled by unit and
 * printed with %g to digits significant digits. */
static void render_hist(FILE *f, const struct qsum *const *shown, size_t n_shown, const struct shown_labels *sl,
                        size_t off, const char *name, const char *help, double unit, int digits)
{
	char line[160], le[N_LE][32]; /* the bounds' text, the same for every queue */
	for (unsigned k = 0; k < N_LE; k++)
		snprintf(le[k], sizeof(le[k]), "%.*g", digits, (double)(1ull << hw_hist_le_exp(k)) * unit);
	fprintf(f, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (size_t i = 0; i < n_shown; i++) {
		const char *lab = sl->text + sl->at[i];
		const struct hsum *h = (const struct hsum *)(const void *)((const char *)shown[i] + off);
		for (unsigned k = 0; k < N_LE; k++)
			fprintf(f, "%s_bucket{%s,le=\"%s\"} %llu\n", name, lab, le[k], (unsigned long long)h->le[k]);
		fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %llu\n", name, lab, (unsigned long long)h->count);
		snprintf(line, sizeof(line), "%.*g", digits, (double)h->sum * unit);
		fprintf(f, "%s_sum{%s} %s\n%s_count{%s} %llu\n", name, lab, line, name, lab,
		        (unsigned long long)h->count);
	}
}

static struct ssum *merge_senders(const struct hw_collector *c, size_t *cap_out)
{
	size_t total = 0;
	for (unsigned i = 0; i < c->n_workers; i++)
		total += HW_READ(c->workers[i]->seqs.n);
	struct mtab mt = {.hash = ssum_hash, .same = ssum_same};
	if (mt_init(&mt, total, sizeof(struct ssum), offsetof(struct ssum, used)))
		return NULL;
	for (unsigned i = 0; i < c->n_workers; i++) {
		const struct hw_seq_tracker *t = &c->workers[i]->seqs;
		for (uint32_t s = 0; s <= t->mask; s++) {
			const struct hw_seq_state *q = &t->slots[s];
			if (!__atomic_load_n(&q->used, __ATOMIC_ACQUIRE))
				continue;
			const struct ssum key = {.node = q->node, .hw_id = q->hw_id};
			struct ssum *x = mt_slot(&mt, &key);
			if (!x) {
				free(mt.v);
				return NULL;
			}
			x->used = 1;
			x->node = q->node;
			x->hw_id = q->hw_id;
			x->received += HW_READ(q->received);
			x->lost += HW_READ(q->lost);
			x->duplicate += HW_READ(q->duplicate);
			x->reordered += HW_READ(q->reordered);
		}
	}
	*cap_out = mt.cap;
	return (struct ssum *)mt.v;
}

/* Most hop records first; equal counts in key order, so the same queues stay shown from scrape to scrape. */
static int by_reports_desc(const void *a, const void *b)
{
	const struct qsum *x = *(const struct qsum *const *)a, *y = *(const struct qsum *const *)b;
	if (x->reports != y->reports)
		return x->reports < y->reports ? 1 : -1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/* The queues whose series /metrics shows: all of them, or the max (> 0) with the most hop records (the
 * series cap, docs/collector.md "/metrics": a full queue table rendered 153 MB per scrape, issue 22).
 * NULL when out of memory; *n_shown and *n_omitted say how many are shown and left out. */
static const struct qsum **shown_queues(const struct qsum *qm, size_t cap, uint32_t max, size_t *n_shown,
                                        size_t *n_omitted)
{
	size_t n = 0;
	for (size_t i = 0; i < cap; i++)
		n += qm[i].used != 0;
	const struct qsum **v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	n = 0;
	for (size_t i = 0; i < cap; i++)
		if (qm[i].used)
			v[n++] = &qm[i];
	*n_omitted = 0;
	if (max && n > max) {
		qsort(v, n, sizeof(*v), by_reports_desc);
		*n_omitted = n - max;
		n = max;
	}
	*n_shown = n;
	return v;
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n", name, help, name, name, (unsigned long long)v);
}

/* Per node: the time of its newest hop record (the newest over its queues), so that a rule can tell one
 * silent switch from a quiet collector (deploy/prometheus/hopwatch-rules.yml, HopwatchSwitchSilent). */
static void render_node_last_seen(FILE *f, const struct qsum *qm, size_t cap, const struct hw_node_names *nn)
{
	struct nlast {
		uint32_t node;
		int used;
		uint64_t last;
	} *nm = calloc(cap, sizeof(*nm)); /* no more nodes than queues */
	if (!nm)
		return;
	for (size_t i = 0; i < cap; i++) {
		if (!qm[i].used)
			continue;
		size_t h = ((size_t)qm[i].node * 2654435761u) & (cap - 1);
		while (nm[h].used && nm[h].node != qm[i].node)
			h = (h + 1) & (cap - 1);
		nm[h].used = 1;
		nm[h].node = qm[i].node;
		if (qm[i].last_seen > nm[h].last)
			nm[h].last = qm[i].last_seen;
	}
	fprintf(f, "# HELP hopwatch_node_last_report_timestamp_seconds Time of the newest hop record from this node "
	           "(any of its queues).\n# TYPE hopwatch_node_last_report_timestamp_seconds gauge\n");
	char lab[LABELS_MAX];
	for (size_t i = 0; i < cap; i++) {
		if (!nm[i].used)
			continue;
		node_labels(lab, sizeof(lab), nm[i].node, nn);
		fprintf(f, "hopwatch_node_last_report_timestamp_seconds{%s} %.3f\n", lab, (double)nm[i].last * 1e-9);
	}
	free(nm);
}

/* Loss while running: the input's (libpcap kernel counts, DPDK ethdev counters, published by the front
 * end about once a second), the stream's and the record files', and how full the worker rings are. */
static void render_live_loss(const struct hw_collector *c, FILE *f)
{
	const struct hw_input_loss *l = &c->loss;
	if (HW_READ(l->pcap_live)) {
		fprintf(f, "# HELP hopwatch_collector_pcap_dropped_packets_total Packets the capture lost before "
		           "libpcap saw them (pcap_stats: kernel = ps_drop, buffer full; interface = ps_ifdrop).\n"
		           "# TYPE hopwatch_collector_pcap_dropped_packets_total counter\n");
		fprintf(f, "hopwatch_collector_pcap_dropped_packets_total{reason=\"kernel\"} %llu\n",
		        (unsigned long long)HW_READ(l->pcap_dropped));
		fprintf(f, "hopwatch_collector_pcap_dropped_packets_total{reason=\"interface\"} %llu\n",
		        (unsigned long long)HW_READ(l->pcap_ifdropped));
	}
	unsigned n_nic = __atomic_load_n(&l->n_nic, __ATOMIC_ACQUIRE);
	if (n_nic > HW_MAX_NIC_PORTS)
		n_nic = HW_MAX_NIC_PORTS;
	if (n_nic) {
		fprintf(f, "# HELP hopwatch_collector_nic_received_packets_total Packets the DPDK port received "
		           "(rte_eth_stats ipackets).\n# TYPE hopwatch_collector_nic_received_packets_total counter\n");
		for (unsigned i = 0; i < n_nic; i++)
			fprintf(f, "hopwatch_collector_nic_received_packets_total{port=\"%u\"} %llu\n", l->nic[i].port,
			        (unsigned long long)HW_READ(l->nic[i].rx));
		fprintf(f, "# HELP hopwatch_collector_nic_dropped_packets_total Packets the DPDK port lost (imissed: "
		           "no free RX descriptor; rx_nombuf: no mbuf; ierrors: bad frames).\n"
		           "# TYPE hopwatch_collector_nic_dropped_packets_total counter\n");
		for (unsigned i = 0; i < n_nic; i++) {
			const struct hw_nic_stats *s = &l->nic[i];
			fprintf(f,
			        "hopwatch_collector_nic_dropped_packets_total{port=\"%u\",reason=\"imissed\"} %llu\n",
			        s->port, (unsigned long long)HW_READ(s->imissed));
			fprintf(f,
			        "hopwatch_collector_nic_dropped_packets_total{port=\"%u\",reason=\"rx_nombuf\"} %llu\n",
			        s->port, (unsigned long long)HW_READ(s->nombuf));
			fprintf(f,
			        "hopwatch_collector_nic_dropped_packets_total{port=\"%u\",reason=\"ierrors\"} %llu\n",
			        s->port, (unsigned long long)HW_READ(s->ierrors));
		}
	}
	if (c->cfg.stream) {
		counter(f, "hopwatch_collector_stream_sent_records_total",
		        "Records the live stream sent (shm: the analyzer took from the shared rings).",
		        c->shm ? hw_shm_writer_taken(c->shm) : HW_READ(c->stream_sent));
		counter(f, "hopwatch_collector_stream_dropped_records_total",
		        "Records the live stream dropped (reader slow or gone; whole batches).",
		        HW_READ(c->stream_dropped));
	}
	if (c->cfg.records_dir) {
		counter(f, "hopwatch_collector_files_written_records_total",
		        "Records written to record files (finished or still open).", HW_READ(c->files_written));
		counter(f, "hopwatch_collector_files_lost_records_total", "Records the record files could not take.",
		        HW_READ(c->files_lost));
	}
	if (c->cfg.json_out) {
		counter(f, "hopwatch_collector_json_written_records_total",
		        "Records whose JSON line reached the output whole.", HW_READ(c->json_written));
		counter(f, "hopwatch_collector_json_lost_records_total",
		        "Records the JSON output could not take (write failed, e.g. disk full; reopen failed).",
		        HW_READ(c->json_lost));
	}
	if (c->sinks_on && c->n_workers) {
		fprintf(f, "# HELP hopwatch_collector_ring_fill_ratio Share of a worker's batch ring waiting for the "
		           "sink thread (1 = full: records are dropped or, lossless, the worker waits).\n"
		           "# TYPE hopwatch_collector_ring_fill_ratio gauge\n");
		for (unsigned i = 0; i < c->n_workers; i++) {
			const struct hw_batch_ring *r = &c->workers[i]->ring;
			uint32_t used = hw_batch_ring_waiting(r);
			fprintf(f, "hopwatch_collector_ring_fill_ratio{worker=\"%u\"} %.4g\n", i,
			        (double)used / ((double)r->mask + 1));
		}
	}
}

void hw_metrics_render(const struct hw_collector *c, FILE *f)
{
	struct hw_worker_counters t;
	memset(&t, 0, sizeof(t));
	uint64_t evictions = 0, overflow = 0, flows = 0;
	for (unsigned i = 0; i < c->n_workers; i++) {
		const struct hw_worker *w = c->workers[i];
		t.packets += HW_READ(w->cnt.packets);
		t.reports += HW_READ(w->cnt.reports);
		t.records += HW_READ(w->cnt.records);
		t.sink_dropped += HW_READ(w->cnt.sink_dropped);
		t.path_changes += HW_READ(w->cnt.path_changes);
		for (int r = 0; r < HW_RESULT_COUNT; r++)
			t.by_result[r] += HW_READ(w->cnt.by_result[r]);
		evictions += HW_READ(w->flows.evictions);
		flows += HW_READ(w->flows.n);
		overflow += HW_READ(w->queues.overflow) + HW_READ(w->seqs.overflow);
	}
	counter(f, "hopwatch_collector_packets_total", "Packets received (parsed, not a report, or rejected).",
	        t.packets);
	counter(f, "hopwatch_collector_packets_parsed_total", "Packets decoded into records.", t.by_result[HW_OK]);
	counter(f, "hopwatch_collector_packets_not_report_total", "Packets that were neither reports nor INT.",
	        t.by_result[HW_NOT_REPORT]);
	fprintf(f, "# HELP hopwatch_collector_packet_errors_total Packets rejected, by reason.\n"
	           "# TYPE hopwatch_collector_packet_errors_total counter\n");
	for (int r = HW_NOT_REPORT + 1; r < HW_RESULT_COUNT; r++)
		fprintf(f, "hopwatch_collector_packet_errors_total{reason=\"%s\"} %llu\n",
		        hw_result_name((enum hw_result)r), (unsigned long long)t.by_result[r]);
	counter(f, "hopwatch_collector_reports_total", "Telemetry reports decoded.", t.reports);
	counter(f, "hopwatch_collector_records_total", "Per-hop records produced.", t.records);
	counter(f, "hopwatch_collector_sink_dropped_records_total",
	        "Records dropped because the sinks did not keep up.", t.sink_dropped);
	counter(f, "hopwatch_collector_path_changes_total", "Reports whose flow took a different path than before.",
	        t.path_changes);
	counter(f, "hopwatch_collector_flow_evictions_total", "Flows forgotten to keep the flow table bounded.",
	        evictions);
	counter(f, "hopwatch_collector_table_overflow_total", "Hops or reports not tracked because a table was full.",
	        overflow);
	fprintf(f,
	        "# HELP hopwatch_collector_flows Flows whose path is tracked.\n# TYPE hopwatch_collector_flows gauge\n"
	        "hopwatch_collector_flows %llu\n",
	        (unsigned long long)flows);
	fprintf(f,
	        "# HELP hopwatch_collector_start_time_seconds When the collector started.\n"
	        "# TYPE hopwatch_collector_start_time_seconds gauge\nhopwatch_collector_start_time_seconds %.3f\n",
	        (double)c->start_ns * 1e-9);

	render_live_loss(c, f);

	if (c->clickhouse) {
		struct hw_ch_sink_counts k;
		hw_ch_sink_counts(c->clickhouse, &k);
		counter(f, "hopwatch_collector_clickhouse_inserted_records_total",
		        "Records ClickHouse acknowledged (HTTP 200).", k.inserted);
		counter(f, "hopwatch_collector_clickhouse_dropped_records_total",
		        "Records the ClickHouse sink dropped: queue full, or undelivered at exit.", k.dropped);
		counter(f, "hopwatch_collector_clickhouse_retries_total", "Failed ClickHouse inserts, each retried.",
		        k.retries);
		counter(f, "hopwatch_collector_clickhouse_inserts_total", "Acknowledged ClickHouse inserts (batches).",
		        k.batches);
		counter(f, "hopwatch_collector_clickhouse_failovers_total",
		        "ClickHouse inserts re-sent to the next replica after one failed.", k.failovers);
		fprintf(f,
		        "# HELP hopwatch_collector_clickhouse_queued_records Records waiting for ClickHouse.\n"
		        "# TYPE hopwatch_collector_clickhouse_queued_records gauge\n"
		        "hopwatch_collector_clickhouse_queued_records %llu\n",
		        (unsigned long long)k.queued);
	}

	char lab[LABELS_MAX];
	size_t cap;
	hw_node_names_lock(c->names); /* re-read when the file changed; held for the labels below */
	struct ssum *sm = merge_senders(c, &cap);
	if (sm) {
		static const char *const names[4] = {"received", "lost", "duplicate", "reordered"};
		static const char *const helps[4] = {
		    "Report packets received per sender.",
		    "Report packets missing from the sequence (telemetry path loss).",
		    "Report packets received twice.",
		    "Report packets that arrived after a later one.",
		};
		for (int k = 0; k < 4; k++) {
			fprintf(f,
			        "# HELP hopwatch_report_packets_%s_total %s\n# TYPE hopwatch_report_packets_%s_total "
			        "counter\n",
			        names[k], helps[k], names[k]);
			for (size_t i = 0; i < cap; i++) {
				if (!sm[i].used)
					continue;
				uint64_t v = k == 0   ? sm[i].received
				             : k == 1 ? sm[i].lost
				             : k == 2 ? sm[i].duplicate
				                      : sm[i].reordered;
				node_labels(lab, sizeof(lab), sm[i].node, c->names);
				fprintf(f, "hopwatch_report_packets_%s_total{%s,hw_id=\"%u\"} %llu\n", names[k], lab,
				        sm[i].hw_id, (unsigned long long)v);
			}
		}
		free(sm);
	}

	struct qsum *qm = merge_queues(c, &cap);
	if (!qm) {
		hw_node_names_unlock(c->names);
		return;
	}
	render_node_last_seen(f, qm, cap, c->names);
	size_t n_shown, n_omitted;
	const struct qsum **shown = shown_queues(qm, cap, c->cfg.metrics_max_queues, &n_shown, &n_omitted);
	struct shown_labels sl;
	if (!shown || shown_labels_make(&sl, shown, n_shown, c->names)) {
		hw_node_names_unlock(c->names);
		free(shown);
		free(qm);
		return;
	}
	hw_node_names_unlock(c->names); /* the names are in sl now */
	fprintf(f,
	        "# HELP hopwatch_collector_metrics_queues_omitted Queues tracked but left out of the per-queue series "
	        "(more than --metrics-max-queues; those with the fewest hop records).\n"
	        "# TYPE hopwatch_collector_metrics_queues_omitted gauge\nhopwatch_collector_metrics_queues_omitted "
	        "%zu\n",
	        n_omitted);
	const double occ_unit = c->cfg.occupancy_unit_bytes, lat_unit = c->cfg.latency_unit_ns * 1e-9;
	static const struct {
		const char *name, *type, *help;
	} qm_meta[] = {
	    {"hopwatch_queue_reports_total", "counter", "Hop records seen for this egress queue."},
	    {"hopwatch_queue_drops_total", "counter", "Drop reports for this queue."},
	    {"hopwatch_queue_occupancy_bytes", "gauge", "Last reported queue occupancy."},
	    {"hopwatch_queue_occupancy_peak_bytes", "gauge", "Highest reported queue occupancy."},
	    {"hopwatch_queue_last_report_timestamp_seconds", "gauge", "Time of the last hop record for this queue."},
	};
	for (unsigned k = 0; k < sizeof(qm_meta) / sizeof(qm_meta[0]); k++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", qm_meta[k].name, qm_meta[k].help, qm_meta[k].name,
		        qm_meta[k].type);
		for (size_t i = 0; i < n_shown; i++) {
			const struct qsum *x = shown[i];
			double v = k == 0   ? (double)x->reports
			           : k == 1 ? (double)x->drops
			           : k == 2 ? (double)x->last_occ * occ_unit
			           : k == 3 ? (double)x->max_occ * occ_unit
			                    : (double)x->last_seen * 1e-9;
			fprintf(f, k == 4 ? "%s{%s} %.3f\n" : "%s{%s} %.17g\n", qm_meta[k].name, sl.text + sl.at[i], v);
		}
	}
	render_hist(f, shown, n_shown, &sl, offsetof(struct qsum, lat), "hopwatch_queue_hop_latency_seconds",
	            "Hop latency at this egress queue.", lat_unit, 9);
	render_hist(f, shown, n_shown, &sl, offsetof(struct qsum, occ), "hopwatch_queue_occupancy_observed_bytes",
	            "Queue occupancy as each hop record reported it.", occ_unit, 17);
	free(sl.text);
	free(sl.at);
	free(shown);
	free(qm);
}
