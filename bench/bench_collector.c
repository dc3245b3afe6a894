/* Collector benchmark: the same pre-built mbufs replayed through a net_ring port into (a) a bare
 * loop that only reads each packet's bytes, (b) the full worker (parse + state, no sinks), (c) the
 * worker with the binary record sink on; reports per second as JSON.  The headline figures are whole
 * runs per CPU-second of the looping thread (other processes on a shared machine take wall time, not
 * the thread's CPU time); whole-run wall-clock rates follow (with two lcores the record-sink runs loop on the
 * worker lcore, so the collector's sink thread has the main lcore's core to itself, as in the collector), and the
 * fastest tenth of 256-packet chunks only as a diagnostic ("fastest_chunks_not_sustained"), never a headline. */
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "collector.h"
#include "rx_prefetch.h"
#include "hopwatch/pcap_input.h"
#include "hopwatch/record_file.h"

#define BURST 32
#define CHUNK 256        /* packets per timed chunk (about 40 us of the full worker) */
#define MAX_CHUNKS 65536 /* chunks timed per run */

struct frames {
	uint8_t **data;
	uint16_t *len;
	size_t n, cap;
};

static void add_frame(void *arg, const uint8_t *frame, size_t len, uint64_t t)
{
	(void)t;
	struct frames *f = arg;
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 1024;
		f->data = realloc(f->data, f->cap * sizeof(*f->data));
		f->len = realloc(f->len, f->cap * sizeof(*f->len));
	}
	f->data[f->n] = malloc(len);
	memcpy(f->data[f->n], frame, len);
	f->len[f->n++] = (uint16_t)len;
}

/* WORKER_FRAME: the worker one frame at a time (hw_worker_frame: parse, then that frame's state at
 * once), the path before burst staging, as a same-binary reference for WORKER (stage a burst, apply). */
enum mode { BARE, WORKER, WORKER_SINK, WORKER_FRAME };

struct run {
	enum mode mode;
	uint16_t port;
	struct rte_ring *ring;
	struct hw_worker *w;
	uint64_t packets_target, packets, sum;
	double seconds;
	double cpu_s;   /* CPU time of the looping thread over the run */
	double chunk_s; /* 10th-percentile time of a CHUNK-packet chunk: the rate when other processes on a
	                 * shared machine neither preempt the loop nor evict its caches */
	double *chunk;  /* MAX_CHUNKS chunk times */
};

static double chunk_times[2][MAX_CHUNKS]; /* one array per concurrent run */

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds of thread t so far (the collector's sink thread), 0 when unknown. */
static double other_thread_cpu_s(pthread_t t)
{
	clockid_t id;
	struct timespec ts;
	if (pthread_getcpuclockid(t, &id) || clock_gettime(id, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The worker loop of dpdk_front.c, with the mbufs going back into the ring instead of the pool (net_ring does not
 * copy frames: prefetched as a NIC's, rx_prefetch.h). */
static int loop(void *arg)
{
	struct run *r = arg;
	struct rte_mbuf *m[BURST];
	uint64_t n_total = 0, sum = 0, next_mark = CHUNK;
	double *chunk = r->chunk;
	unsigned n_chunks = 0;
	double t0 = hw_mono_s(), mark = t0, cpu0 = thread_cpu_s();
	while (n_total < r->packets_target) {
		uint16_t n = rte_eth_rx_burst(r->port, 0, m, BURST);
		hw_rx_prefetch_start(m, n, 0);
		for (uint16_t k = 0; k < n; k++) {
			hw_rx_prefetch_next(m, n, k, 0);
			const uint8_t *p = rte_pktmbuf_mtod(m[k], const uint8_t *);
			uint32_t len = rte_pktmbuf_data_len(m[k]);
			if (r->mode == BARE) {
				uint64_t s = 0; /* read every byte of the packet */
				for (uint32_t i = 0; i + 8 <= len; i += 8) {
					uint64_t v;
					memcpy(&v, p + i, 8);
					s += v;
				}
				sum += s;
			} else if (r->mode == WORKER_FRAME) {
				hw_worker_frame(r->w, p, len, n_total);
			} else {
				hw_worker_stage(r->w, p, len, n_total);
			}
		}
		if (r->w)
			hw_worker_apply(r->w); /* as dpdk_front.c: the burst's state updates together */
		n_total += n;
		if (n && rte_ring_enqueue_burst(r->ring, (void **)m, n, NULL) != n)
			abort(); /* the ring holds every mbuf: cannot overflow */
		if (!n && r->w)
			hw_worker_flush(r->w);
		if (n_total >= next_mark) { /* a clock read per 256 packets: negligible */
			double t = hw_mono_s();
			if (n_chunks < MAX_CHUNKS)
				chunk[n_chunks++] = (t - mark) / (double)(n_total - next_mark + CHUNK) * CHUNK;
			mark = t;
			next_mark = n_total + CHUNK;
		}
	}
	if (r->w)
		hw_worker_flush(r->w);
	r->seconds = hw_mono_s() - t0;
	r->cpu_s = thread_cpu_s() - cpu0;
	r->packets = n_total;
	r->sum = sum;
	qsort(chunk, n_chunks, sizeof(double), cmp_double);
	r->chunk_s = n_chunks ? chunk[n_chunks / 10] : r->seconds;
	return 0;
}

/* Remove the record files a run wrote, so that repeated runs do not fill the (tmpfs) directory; returns
 * the bytes they held. */
static uint64_t remove_records(const char *dir)
{
	uint64_t bytes = 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "records-", 8) || !strncmp(e->d_name, ".records-", 9)) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			struct stat st;
			if (!stat(path, &st))
				bytes += (uint64_t)st.st_size;
			unlink(path);
		}
	closedir(d);
	return bytes;
}

int main(int argc, char **argv)
{
	int eal = rte_eal_init(argc, argv);
	if (eal < 0) {
		fprintf(stderr, "bench_collector: EAL init failed\n");
		return 1;
	}
	argc -= eal;
	argv += eal;
	if (argc < 2) {
		fprintf(stderr, "Usage: bench_collector [EAL options] -- FILE.pcap [RUNS] [PACKETS_PER_RUN] [SINK_DIR] "
		                "[compact|fixed]\n");
		return 2;
	}
	const char *path = argv[1];
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	uint64_t per_run = argc > 3 ? strtoull(argv[3], NULL, 10) : 4000000;
	const char *sink_dir = argc > 4 ? argv[4] : "/dev/shm";
	const char *encoding = argc > 5 ? argv[5] : "compact"; /* record files: hw_record_encoding */
	if (strcmp(encoding, "compact") && strcmp(encoding, "fixed")) {
		fprintf(stderr, "bench_collector: encoding '%s': expected compact or fixed\n", encoding);
		return 2;
	}
	if (runs < 1 || runs > 51) {
		fprintf(stderr, "bench_collector: RUNS must be 1-51\n");
		return 2;
	}
	struct frames fr = {0};
	char err[512];
	if (hw_pcap_read_file(path, add_frame, &fr, NULL, err, sizeof(err)) || !fr.n) {
		fprintf(stderr, "bench_collector: %s\n", fr.n ? err : "no frames");
		return 1;
	}
	unsigned nlcores = rte_lcore_count();
	unsigned nports = nlcores >= 2 ? 2 : 1;
	struct rte_mempool *pool =
	    rte_pktmbuf_pool_create("bench", (unsigned)(fr.n * nports + 1024), 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (!pool) {
		fprintf(stderr, "bench_collector: mbuf pool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	struct rte_ring *rings[2];
	uint16_t ports[2];
	for (unsigned p = 0; p < nports; p++) {
		char name[32];
		snprintf(name, sizeof(name), "bench%u", p);
		size_t sz = 1;
		while (sz <= fr.n)
			sz <<= 1;
		rings[p] = rte_ring_create(name, (unsigned)sz, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		for (size_t i = 0; i < fr.n; i++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
			memcpy(rte_pktmbuf_append(m, fr.len[i]), fr.data[i], fr.len[i]);
			rte_ring_enqueue(rings[p], m);
		}
		int port = rte_eth_from_ring(rings[p]);
		if (port < 0) {
			fprintf(stderr, "bench_collector: net_ring port: %s\n", rte_strerror(rte_errno));
			return 1;
		}
		ports[p] = (uint16_t)port;
		struct rte_eth_conf conf;
		memset(&conf, 0, sizeof(conf));
		if (rte_eth_dev_configure(ports[p], 1, 1, &conf) ||
		    rte_eth_rx_queue_setup(ports[p], 0, 1024, 0, NULL, pool) ||
		    rte_eth_tx_queue_setup(ports[p], 0, 1024, 0, NULL) || rte_eth_dev_start(ports[p])) {
			fprintf(stderr, "bench_collector: cannot start net_ring port %u\n", ports[p]);
			return 1;
		}
	}

	/* Count the reports in one pass of the batch (parse only). */
	struct hw_collector_config cc;
	hw_collector_config_default(&cc);
	static struct hw_record recs[1024];
	static struct hw_report reps[256];
	uint64_t reports_per_pass = 0, records_per_pass = 0;
	for (size_t i = 0; i < fr.n; i++) {
		struct hw_parse_out o = {.recs = recs, .rec_cap = 1024, .reps = reps, .rep_cap = 256};
		if (hw_parse_frame(&cc.parser, fr.data[i], fr.len[i], 0, &o) == HW_OK) {
			reports_per_pass += o.n_reps;
			records_per_pass += o.n_recs;
		}
	}
	double rpp = (double)reports_per_pass / (double)fr.n; /* reports per packet */

	const char *names[4] = {"bare_loop", "worker", "worker_record_sink", "worker_per_frame"};
	/* Whole-run rates, and per-chunk rates (CHUNK packets over the 10th-percentile chunk time of a
	 * run), which leave out the time other processes on a shared machine held the core or evicted
	 * its caches.  Medians over the runs. */
	double med[4], cmed[4], cpumed[4], scale2 = 0, cscale2 = 0;
	uint64_t sink_bytes = 0, sink_records = 0, sink_lost = 0; /* record files of all WORKER_SINK runs */
	double sink_rate[51] = {0}; /* reports per CPU-second of the sink thread, per WORKER_SINK run */
	for (int mode = 0; mode < 4; mode++) {
		double rate[51], crate[51], cpurate[51];
		for (int r = 0; r < runs; r++) {
			static struct hw_collector col;
			memset(&col, 0, sizeof(col));
			hw_collector_config_default(&col.cfg);
			col.cfg.records_dir = mode == WORKER_SINK ? sink_dir : NULL;
			col.cfg.rotate_bytes = 256ull << 20;
			col.cfg.records_encoding =
			    strcmp(encoding, "fixed") ? HW_RECORD_ENC_COMPACT : HW_RECORD_ENC_FIXED;
			if (mode != BARE && hw_collector_start(&col, 1, true, err, sizeof(err))) {
				fprintf(stderr, "bench_collector: %s\n", err);
				return 1;
			}
			struct run run = {.mode = (enum mode)mode,
			                  .port = ports[0],
			                  .ring = rings[0],
			                  .w = mode == BARE ? NULL : col.workers[0],
			                  .packets_target = per_run,
			                  .chunk = chunk_times[0]};
			double sink_cpu0 = mode == WORKER_SINK ? other_thread_cpu_s(col.sink_thread) : 0;
			if (mode == WORKER_SINK && nlcores >= 2) {
				/* the loop on the worker lcore; the sink thread (started from the main lcore, its core
				 * inherited) has the main lcore's core: the main lcore sleeps, as the collector's does
				 * (rte_eal_wait_lcore would spin on that core) */
				unsigned lc = rte_get_next_lcore(rte_lcore_id(), 1, 0);
				rte_eal_remote_launch(loop, &run, lc);
				const struct timespec nap = {0, 1000000};
				while (rte_eal_get_lcore_state(lc) != WAIT)
					nanosleep(&nap, NULL);
				rte_eal_wait_lcore(lc);
			} else {
				loop(&run);
			}
			const double sink_cpu = /* before finish: the thread is joined there */
			    mode == WORKER_SINK ? other_thread_cpu_s(col.sink_thread) - sink_cpu0 : 0;
			if (mode != BARE)
				hw_collector_finish(&col);
			if (mode == WORKER_SINK) {
				sink_bytes += remove_records(sink_dir);
				sink_records += col.files_written;
				sink_lost += col.files_lost;
			}
			rate[r] = (double)run.packets * rpp / run.seconds;
			cpurate[r] = (double)run.packets * rpp / run.cpu_s;
			crate[r] = CHUNK * rpp / run.chunk_s;
			if (mode == WORKER_SINK)
				sink_rate[r] = sink_cpu > 0 ? (double)run.packets * rpp / sink_cpu : 0;
		}
		qsort(rate, (size_t)runs, sizeof(double), cmp_double);
		qsort(crate, (size_t)runs, sizeof(double), cmp_double);
		qsort(cpurate, (size_t)runs, sizeof(double), cmp_double);
		med[mode] = rate[runs / 2];
		cmed[mode] = crate[runs / 2];
		cpumed[mode] = cpurate[runs / 2];
	}
	/* Scaling: the full worker on two lcores at once (main + one worker lcore), each its own port. */
	if (nports == 2) {
		double rate[51], crate[51];
		for (int r = 0; r < runs; r++) {
			static struct hw_collector col;
			memset(&col, 0, sizeof(col));
			hw_collector_config_default(&col.cfg);
			if (hw_collector_start(&col, 2, true, err, sizeof(err)))
				return 1;
			struct run runs2[2];
			for (int k = 0; k < 2; k++)
				runs2[k] = (struct run){.mode = WORKER,
				                        .port = ports[k],
				                        .ring = rings[k],
				                        .w = col.workers[k],
				                        .packets_target = per_run,
				                        .chunk = chunk_times[k]};
			unsigned lc = rte_get_next_lcore(rte_lcore_id(), 1, 0);
			rte_eal_remote_launch(loop, &runs2[1], lc);
			loop(&runs2[0]);
			rte_eal_wait_lcore(lc);
			hw_collector_finish(&col);
			double secs = runs2[0].seconds > runs2[1].seconds ? runs2[0].seconds : runs2[1].seconds;
			rate[r] = (double)(runs2[0].packets + runs2[1].packets) * rpp / secs;
			crate[r] = CHUNK * rpp / runs2[0].chunk_s + CHUNK * rpp / runs2[1].chunk_s;
		}
		qsort(rate, (size_t)runs, sizeof(double), cmp_double);
		qsort(crate, (size_t)runs, sizeof(double), cmp_double);
		scale2 = rate[runs / 2];
		cscale2 = crate[runs / 2];
	}
	printf("{\"input\": \"%s\", \"frames\": %zu, \"reports_per_frame\": %.3f, \"runs\": %d, \"packets_per_run\": "
	       "%llu,\n",
	       path, fr.n, rpp, runs, (unsigned long long)per_run);
	for (int m = 0; m < 4; m++)
		printf(" \"%s_reports_per_cpu_s\": %.0f,\n", names[m], cpumed[m]);
	qsort(sink_rate, (size_t)runs, sizeof(double), cmp_double);
	printf(" \"sink_thread_reports_per_cpu_s\": %.0f,\n", sink_rate[runs / 2]);
	printf(" \"record_files\": {\"encoding\": \"%s\", \"records_per_report\": %.3f, \"bytes_per_record\": %.2f, "
	       "\"records_lost\": %llu},\n",
	       encoding, reports_per_pass ? (double)records_per_pass / (double)reports_per_pass : 0.0,
	       sink_records ? (double)sink_bytes / (double)sink_records : 0.0, (unsigned long long)sink_lost);
	printf(" \"worker_over_per_frame\": %.3f,\n", cpumed[1] / cpumed[3]);
	printf(" \"worker_over_bare\": %.3f, \"sink_over_bare\": %.3f,\n", cpumed[1] / cpumed[0],
	       cpumed[2] / cpumed[0]);
	printf(" \"wall_clock\": {");
	for (int m = 0; m < 3; m++)
		printf("\"%s_reports_per_s\": %.0f, ", names[m], med[m]);
	printf("\"worker_over_bare\": %.3f, \"sink_over_bare\": %.3f},\n", med[1] / med[0], med[2] / med[0]);
	printf(" \"worker_2cores_reports_per_s\": %.0f, \"scaling_2_over_1\": %.3f,\n", scale2,
	       scale2 > 0 ? scale2 / med[1] : 0.0);
	printf(" \"fastest_chunks_not_sustained\": {\"chunk_packets\": %d, \"chunk_quantile\": 0.1", CHUNK);
	for (int m = 0; m < 3; m++)
		printf(", \"%s_reports_per_s\": %.0f", names[m], cmed[m]);
	printf(",\n  \"worker_over_bare\": %.3f, \"sink_over_bare\": %.3f, \"worker_2cores_reports_per_s\": %.0f, "
	       "\"scaling_2_over_1\": %.3f}}\n",
	       cmed[1] / cmed[0], cmed[2] / cmed[0], cscale2, cscale2 > 0 ? cscale2 / cmed[1] : 0.0);
	rte_eal_cleanup();
	return 0;
}
