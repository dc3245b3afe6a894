/* Benchmark: analyzer ingest rate per core with every detector on, and the time from the record that
 * crosses a threshold to its alert (a) handed to the alert sink and (b) received by an HTTP peer on
 * loopback (libmicrohttpd here, standing in for Alertmanager).  Prints one JSON document.
 * Usage: bench_analyzer [RECORDS [QUEUES [FLOWS [LLDPD_JSON_DIR MAP]]]] (with a topology every hop is placed). */
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "hopwatch/alert_sink.h"
#include "hopwatch/analyzer.h"
#include "hopwatch/topo_sources.h"

/* Synthetic traffic: 3-hop TR v2.0 reports of `flows` flows over `queues` egress queues, 1 report per
 * 100 ns of record time, occupancies on per-queue ramps (so trends, bursts and thresholds are exercised),
 * RoCE opcodes with their DSCPs, a drop report every 4096, a sequence gap every 8192 reports. */
static struct hw_record *make_records(size_t n, unsigned queues, unsigned flows)
{
	struct hw_record *r = calloc(n, sizeof(*r));
	if (!r)
		return NULL;
	uint32_t seq = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned f = (unsigned)((i / 3) * 2654435761u % flows);
		if ((i / 3) % 8192 == 0)
			seq++;
		for (unsigned h = 0; h < 3 && i + h < n; h++) {
			struct hw_record *x = &r[i + h];
			unsigned q = (f * 3 + h) % queues;
			x->time_ns = 1767225600000000000ull + (i / 3) * 100;
			x->valid = HW_V_PORTS | HW_V_QUEUE | HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS | HW_V_ROCE;
			x->format = HW_FORMAT_TR20;
			x->report_node = 1 + f % 8;
			x->report_seq = seq & 0x3fffff;
			x->node_id = 1 + q / 8;
			x->ingress_port = 1;
			x->egress_port = q % 8;
			x->queue_id = 3;
			x->queue_occupancy = (uint32_t)(((i / 3 + q * 977) % 20000) * (q % 3 == 0 ? 1 : 0.3));
			x->hop_latency = 500 + x->queue_occupancy * 10;
			x->hop_index = (uint8_t)h;
			x->path_len = 3;
			x->src_ip[15] = (uint8_t)f;
			x->dst_ip[15] = (uint8_t)(f / 4);
			x->dscp = 26;
			x->roce_opcode = (f % 16) ? 0x04 : 0x81;
			if (x->roce_opcode == 0x81) {
				x->dscp = 48;
				x->queue_id = 6;
			}
			x->flow_hash = 0x9e3779b97f4a7c15ull * (f + 1);
			if ((i / 3) % 4096 == 17 && h == 2) {
				x->valid |= HW_V_DROP;
				x->drop_reason = 71;
			}
		}
		seq++;
	}
	return r;
}

static uint64_t events;
static void count_event(void *ctx, const struct hw_an_event *e)
{
	(void)ctx;
	(void)e;
	events++;
}

/* ---- latency ---- */

struct lat {
	struct hw_alert_sink *sink;
	uint64_t handoff_ns;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t received_ns;
	int received;
};

static void to_sink(void *ctx, const struct hw_an_event *e)
{
	struct lat *l = ctx;
	if (e->resolved || e->kind != HW_AN_HIGH_QUEUE)
		return;
	hw_alert_sink_push(l->sink, e, NULL);
	l->handoff_ns = hw_mono_ns();
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **con_cls)
{
	(void)url;
	(void)method;
	(void)version;
	(void)data;
	struct lat *l = cls;
	if (!*con_cls) { /* first call: headers only */
		*con_cls = l;
		return MHD_YES;
	}
	if (*size) { /* body */
		*size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&l->mu);
	l->received_ns = hw_mono_ns();
	l->received = 1;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	struct MHD_Response *r = MHD_create_response_from_buffer(2, (void *)"{}", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int latency(unsigned rounds, uint64_t *handoff, uint64_t *wire)
{
	struct lat l = {0};
	pthread_mutex_init(&l.mu, NULL);
	pthread_cond_init(&l.cv, NULL);
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, on_request, &l,
	                                        MHD_OPTION_SOCK_ADDR, NULL, MHD_OPTION_END);
	if (!d)
		return -1;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	char url[64], err[256];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", info ? info->port : 0);
	struct hw_an_config c;
	hw_an_config_default(&c);
	c.high_queue.raise = 10000; /* one threshold for every queue, not derived from a fabric */
	c.high_queue.clear = 8000;
	c.high_queue.hold_ns = 0; /* the crossing record itself raises */
	const struct hw_alert_sink_opts so = {.capacity = 4096, .resend_ns = 3600000000000ull};
	l.sink = hw_alert_sink_start(HW_SINK_ALERTMANAGER, url, &so, err, sizeof(err));
	struct hw_analyzer *a = hw_an_create(&c, NULL, NULL, to_sink, &l, err, sizeof(err));
	if (!l.sink || !a)
		return -1;
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.valid = HW_V_PORTS | HW_V_QUEUE;
	r.format = HW_FORMAT_TR20;
	r.node_id = 1;
	for (unsigned i = 0; i < rounds; i++) {
		r.egress_port = i; /* a fresh queue each round: one new alert */
		r.queue_occupancy = 100;
		r.time_ns += 1000;
		hw_an_ingest(a, &r, 1);
		r.queue_occupancy = (uint32_t)c.high_queue.raise + 1;
		r.time_ns += 1000;
		pthread_mutex_lock(&l.mu);
		l.received = 0;
		pthread_mutex_unlock(&l.mu);
		uint64_t t0 = hw_mono_ns();
		hw_an_ingest(a, &r, 1);
		handoff[i] = l.handoff_ns - t0;
		pthread_mutex_lock(&l.mu);
		while (!l.received)
			pthread_cond_wait(&l.cv, &l.mu);
		wire[i] = l.received_ns - t0;
		pthread_mutex_unlock(&l.mu);
	}
	hw_an_destroy(a);
	hw_alert_sink_stop(l.sink);
	MHD_stop_daemon(d);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 6000000;
	unsigned queues = argc > 2 ? (unsigned)atoi(argv[2]) : 1024, flows = argc > 3 ? (unsigned)atoi(argv[3]) : 4096;
	unsigned rounds = 200;
	struct hw_record *r = make_records(n, queues, flows);
	if (!r)
		return 1;
	struct hw_an_config c;
	hw_an_config_default(&c);
	char err[256];
	double best = 0;
	/* optional topology: every record is then placed on it (lldpd JSON directory and a node map) */
	struct hw_topo topo;
	struct hw_topo_map map;
	struct hw_topo_error terr;
	hw_topo_init(&topo);
	memset(&map, 0, sizeof(map));
	int with_topo = argc > 5;
	if (with_topo && (hw_topo_map_load(&map, argv[5], &terr) != HW_TOPO_OK ||
	                  hw_topo_load_lldpd_dir(&topo, argv[4], 0, &terr) != HW_TOPO_OK)) {
		fprintf(stderr, "bench_analyzer: %s\n", terr.message);
		return 1;
	}
	hw_topo_map_apply(&topo, &map);
	for (int rep = 0; rep < 3; rep++) {
		events = 0;
		struct hw_analyzer *a = hw_an_create(&c, with_topo ? &topo : NULL, with_topo ? &map : NULL, count_event,
		                                     NULL, err, sizeof(err));
		if (!a)
			return 1;
		uint64_t t0 = hw_mono_ns();
		for (size_t i = 0; i < n; i += 4096)
			hw_an_ingest(a, r + i, n - i < 4096 ? n - i : 4096);
		hw_an_finish(a);
		double rate = n / ((hw_mono_ns() - t0) / 1e9);
		if (rate > best)
			best = rate;
		hw_an_destroy(a);
	}
	uint64_t *h = calloc(rounds, sizeof(*h)), *w = calloc(rounds, sizeof(*w));
	if (!h || !w || latency(rounds, h, w)) {
		fprintf(stderr, "bench_analyzer: latency setup failed\n");
		return 1;
	}
	qsort(h, rounds, sizeof(*h), cmp_u64);
	qsort(w, rounds, sizeof(*w), cmp_u64);
	printf("{\"records\":%zu,\"queues\":%u,\"flows\":%u,\"topology_links\":%u,\"detectors\":\"all\","
	       "\"events\":%llu,"
	       "\"records_per_second_per_core\":%.0f,\n"
	       " \"alert_latency\":{\"rounds\":%u,"
	       "\"to_sink_handoff_us\":{\"p50\":%.2f,\"p99\":%.2f,\"max\":%.2f},"
	       "\"to_http_peer_on_loopback_us\":{\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f}}}\n",
	       n, queues, flows, topo.n_links, (unsigned long long)events, best, rounds, h[rounds / 2] / 1e3,
	       h[rounds * 99 / 100] / 1e3, h[rounds - 1] / 1e3, w[rounds / 2] / 1e3, w[rounds * 99 / 100] / 1e3,
	       w[rounds - 1] / 1e3);
	free(h);
	free(w);
	free(r);
	hw_topo_map_free(&map);
	hw_topo_free(&topo);
	return 0;
}
