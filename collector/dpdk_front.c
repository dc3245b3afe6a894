/* The DPDK front end: EAL, every probed ethdev port with RSS over N RX queues, one worker lcore per
 * queue set, burst receive into the worker, and the main lcore watching for stop and idleness. */
#include <pcap/pcap.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "front.h"
#include "rx_prefetch.h"

#define BURST 32
#define RX_DESC 1024
#define MAX_RXQ_PER_LCORE 32
#define SCRATCH_BYTES 16384
#define MBUF_CACHE 256  /* per-lcore mempool cache */
#define STOP_DRAIN 1024 /* passes over a worker's RX queues after a stop request */

/* What one port is given: RX queues and descriptors, and the mbufs it holds (docs/operations.md). */
struct port_plan {
	uint16_t nq, nrx, ntx;
	uint64_t held; /* nrx * nq, plus a replayed capture's frames (net_pcap infinite_rx) */
};

struct rxq {
	uint16_t port, queue;
	uint8_t pcap_ts; /* the port stamps mbufs with its capture time in microseconds (net_pcap) */
	uint8_t warm;    /* its driver copies each frame into its mbuf as it receives it (hw_rx_copies) */
};

struct lcore_work {
	struct hw_worker *w;
	unsigned n;
	struct rxq q[MAX_RXQ_PER_LCORE];
	uint8_t scratch[SCRATCH_BYTES]; /* multi-segment frames are copied here */
	uint64_t cpu_ns, wall_ns;       /* the worker thread's CPU time and lifetime (bench/side_by_side.py) */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int ts_offset = -1;
static uint64_t ts_flag;
static volatile bool workers_stop;

static int worker_main(void *arg)
{
	struct lcore_work *lw = arg;
	struct rte_mbuf *m[BURST];
	const uint64_t cpu0 = thread_cpu_ns(), wall0 = hw_mono_ns();
	/* After a stop request the queues are read on until they are dry: what the ports had received by
	 * then is recorded (STOP_DRAIN passes at most, so a port that never runs dry cannot hold it up). */
	unsigned after_stop = 0;
	while (!workers_stop || after_stop++ < STOP_DRAIN) {
		unsigned got = 0;
		for (unsigned i = 0; i < lw->n; i++) {
			const struct rxq *q = &lw->q[i];
			uint16_t n = rte_eth_rx_burst(q->port, q->queue, m, BURST);
			if (!n)
				continue;
			got += n;
			uint64_t now = hw_real_ns(); /* once per burst (vDSO, no system call) */
			hw_rx_prefetch_start(m, n, q->warm);
			for (uint16_t k = 0; k < n; k++) {
				hw_rx_prefetch_next(m, n, k, q->warm);
				struct rte_mbuf *b = m[k];
				uint64_t t = now;
				if (q->pcap_ts && ts_offset >= 0 && (b->ol_flags & ts_flag))
					t = *RTE_MBUF_DYNFIELD(b, ts_offset, rte_mbuf_timestamp_t *) * 1000ull;
				uint32_t len = rte_pktmbuf_pkt_len(b);
				const uint8_t *p = rte_pktmbuf_mtod(b, const uint8_t *);
				if (b->nb_segs > 1) {
					if (len > SCRATCH_BYTES)
						len = SCRATCH_BYTES; /* the parser sees a cut frame and says so */
					p = rte_pktmbuf_read(b, 0, len, lw->scratch);
				}
				hw_worker_stage(lw->w, p, len, t); /* parse now ... */
			}
			hw_worker_apply(lw->w); /* ... and the burst's state updates together, prefetched */
			rte_pktmbuf_free_bulk(m, n);
		}
		if (!got) {
			if (workers_stop)
				break;
			hw_worker_idle(lw->w); /* idle: hand the sinks what we have, once they want more */
		}
	}
	hw_worker_flush(lw->w);
	lw->cpu_ns = thread_cpu_ns() - cpu0;
	lw->wall_ns = hw_mono_ns() - wall0;
	return 0;
}

static int setup_port(uint16_t port, const struct port_plan *pl, struct rte_mempool *pool, bool *pcap_ts, char *err,
                      size_t errlen)
{
	uint16_t nq = pl->nq;
	struct rte_eth_dev_info info;
	int rc = rte_eth_dev_info_get(port, &info);
	if (rc) {
		snprintf(err, errlen, "port %u: cannot read device info: %s", port, rte_strerror(-rc));
		return -1;
	}
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof(conf));
	if (nq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
		    (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) & info.flow_type_rss_offloads;
	}
	/* net_pcap stamps every mbuf with the capture time (microseconds) in the rx timestamp dynfield,
	 * so replayed captures keep their own times; other ports get the receive wall-clock time. */
	*pcap_ts = info.driver_name && !strcmp(info.driver_name, "net_pcap");
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	rc = rte_eth_dev_configure(port, nq, 1, &conf);
	if (rc) {
		snprintf(err, errlen, "port %u (%s): cannot configure %u RX queues: %s", port, info.driver_name, nq,
		         rte_strerror(-rc));
		return -1;
	}
	for (uint16_t q = 0; q < nq; q++) {
		rc = rte_eth_rx_queue_setup(port, q, pl->nrx, rte_eth_dev_socket_id(port), NULL, pool);
		if (rc) {
			snprintf(
			    err, errlen,
			    "port %u (%s): RX queue %u with %u descriptors: %s (the mbuf pool has %u mbufs, %u free; "
			    "this port was planned to hold %llu)",
			    port, info.driver_name, q, pl->nrx, rte_strerror(-rc), pool->size,
			    rte_mempool_avail_count(pool), (unsigned long long)pl->held);
			return -1;
		}
	}
	rc = rte_eth_tx_queue_setup(port, 0, pl->ntx, rte_eth_dev_socket_id(port), NULL);
	if (rc) {
		snprintf(err, errlen, "port %u: TX queue: %s", port, rte_strerror(-rc));
		return -1;
	}
	rc = rte_eth_dev_start(port);
	if (rc) {
		snprintf(err, errlen, "port %u (%s): cannot start: %s", port, info.driver_name, rte_strerror(-rc));
		return -1;
	}
	rte_eth_promiscuous_enable(port);
	return 0;
}

static uint64_t total_packets(const struct hw_collector *c)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < c->n_workers; i++)
		n += HW_READ(c->workers[i]->cnt.packets);
	return n;
}

/* Frames in a capture file, or 0 when it cannot be read (the port's own set-up then says why). */
static uint64_t capture_frames(const char *path)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, ebuf);
	if (!p)
		return 0;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t n = 0;
	while (pcap_next_ex(p, &h, &data) == 1)
		n++;
	pcap_close(p);
	return n;
}

/* net_pcap with infinite_rx=1 loads every frame of its rx_pcap files into mbufs of the RX queue's pool
 * when the queue is set up, and keeps them: those mbufs come on top of the descriptors. */
static uint64_t pcap_vdev_mbufs(const struct rte_eth_dev_info *info)
{
	if (!info->driver_name || strcmp(info->driver_name, "net_pcap") || !info->device)
		return 0;
	const struct rte_devargs *da = rte_dev_devargs(info->device);
	if (!da || !da->args)
		return 0;
	char args[1024];
	snprintf(args, sizeof(args), "%s", da->args);
	bool infinite = false;
	uint64_t frames = 0;
	char *save = NULL;
	for (char *kv = strtok_r(args, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		if (!strncmp(kv, "infinite_rx=", 12))
			infinite = strtol(kv + 12, NULL, 10) != 0;
		else if (!strncmp(kv, "rx_pcap=", 8))
			frames += capture_frames(kv + 8);
	}
	return infinite ? frames : 0;
}

static void plan_port(uint16_t port, const struct rte_eth_dev_info *info, unsigned nw, struct port_plan *pl)
{
	pl->nq = (uint16_t)(nw < info->max_rx_queues ? nw : info->max_rx_queues);
	if (!pl->nq)
		pl->nq = 1;
	pl->nrx = RX_DESC;
	pl->ntx = 64;
	rte_eth_dev_adjust_nb_rx_tx_desc(port, &pl->nrx, &pl->ntx);
	pl->held = (uint64_t)pl->nrx * pl->nq + pcap_vdev_mbufs(info);
}

/* Publish every port's ethdev counters for /metrics and the status line (main lcore, once a second). */
static void read_nic_stats(struct hw_collector *c)
{
	unsigned i = 0;
	uint16_t port;
	RTE_ETH_FOREACH_DEV(port)
	{
		struct rte_eth_stats st;
		if (i >= HW_MAX_NIC_PORTS || rte_eth_stats_get(port, &st))
			continue;
		struct hw_nic_stats *n = &c->loss.nic[i++];
		n->port = port;
		__atomic_store_n(&n->rx, st.ipackets, __ATOMIC_RELAXED);
		__atomic_store_n(&n->imissed, st.imissed, __ATOMIC_RELAXED);
		__atomic_store_n(&n->ierrors, st.ierrors, __ATOMIC_RELAXED);
		__atomic_store_n(&n->nombuf, st.rx_nombuf, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->loss.n_nic, i, __ATOMIC_RELEASE);
}

int hw_dpdk_front_run(struct hw_collector *c, int eal_argc, char **argv, char *err, size_t errlen)
{
	if (rte_eal_init(eal_argc, argv) < 0) {
		snprintf(err, errlen, "DPDK EAL initialisation failed: %s (EAL options go before '--')",
		         rte_strerror(rte_errno));
		return 2;
	}
	int rc = 1;
	uint16_t nports = rte_eth_dev_count_avail();
	unsigned lcores = rte_lcore_count();
	if (!nports) {
		snprintf(err, errlen,
		         "no DPDK ports: bind a NIC to a DPDK driver or add a --vdev (net_pcap, "
		         "net_af_packet, net_ring, ...)");
		goto out;
	}
	if (lcores < 2) {
		snprintf(err, errlen, "need at least two lcores (e.g. -l 0-1): the main lcore and one worker");
		goto out;
	}
	unsigned nw = lcores - 1;
	if (c->cfg.workers && c->cfg.workers < nw)
		nw = c->cfg.workers;
	if (ts_offset < 0 && rte_mbuf_dyn_rx_timestamp_register(&ts_offset, &ts_flag) < 0)
		ts_offset = -1;

	/* The pool, like DPDK's NB_MBUF: every RX descriptor of every queue filled, plus a burst in every
	 * worker's hands, plus what the per-lcore caches may hold (up to 1.5 x their size each), rounded
	 * up to 2^k - 1 (the mempool's best size). */
	static struct port_plan plan[RTE_MAX_ETHPORTS];
	uint64_t need = (uint64_t)BURST * nw + (uint64_t)MBUF_CACHE * 3 / 2 * lcores;
	uint16_t port;
	RTE_ETH_FOREACH_DEV(port)
	{
		struct rte_eth_dev_info info;
		if (rte_eth_dev_info_get(port, &info))
			continue;
		plan_port(port, &info, nw, &plan[port]);
		need += plan[port].held;
	}
	uint64_t n_mbufs = 1;
	while (n_mbufs - 1 < need)
		n_mbufs <<= 1;
	n_mbufs -= 1;
	if (n_mbufs > UINT32_MAX) {
		snprintf(err, errlen, "the mbuf pool would need %llu mbufs: too many (fewer queues or descriptors)",
		         (unsigned long long)need);
		goto out;
	}
	struct rte_mempool *pool = rte_pktmbuf_pool_create("hw_mbufs", (unsigned)n_mbufs, MBUF_CACHE, 0,
	                                                   RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (!pool) {
		snprintf(err, errlen,
		         "cannot create the mbuf pool of %llu mbufs x %u bytes (%.0f MiB) on socket %d: %s (more "
		         "hugepage memory: -m or --socket-mem; or fewer ports, queues or descriptors)",
		         (unsigned long long)n_mbufs, (unsigned)RTE_MBUF_DEFAULT_BUF_SIZE,
		         (double)n_mbufs * (RTE_MBUF_DEFAULT_BUF_SIZE + sizeof(struct rte_mbuf)) / 1048576.0,
		         (int)rte_socket_id(), rte_strerror(rte_errno));
		goto out;
	}
	fprintf(stderr, "mbuf pool: %llu mbufs (%llu needed: descriptors, bursts, caches)\n",
	        (unsigned long long)n_mbufs, (unsigned long long)need);
	if (hw_collector_start(c, nw, c->cfg.lossless, err, errlen))
		goto out;

	static struct lcore_work work[RTE_MAX_LCORE];
	for (unsigned i = 0; i < nw; i++)
		work[i].w = c->workers[i];
	RTE_ETH_FOREACH_DEV(port)
	{
		struct rte_eth_dev_info info;
		if (rte_eth_dev_info_get(port, &info))
			continue;
		const struct port_plan *pl = &plan[port];
		bool pcap_ts;
		if (setup_port(port, pl, pool, &pcap_ts, err, errlen))
			goto finish;
		for (uint16_t q = 0; q < pl->nq; q++) {
			struct lcore_work *lw = &work[q % nw];
			if (lw->n < MAX_RXQ_PER_LCORE)
				lw->q[lw->n++] = (struct rxq){port, q, pcap_ts, hw_rx_copies(info.driver_name)};
		}
		fprintf(stderr, "port %u: %s, %u RX queue%s\n", port, info.driver_name, pl->nq,
		        pl->nq > 1 ? "s (RSS)" : "");
	}

	read_nic_stats(c); /* before the workers run: the series are on /metrics from the first record's scrape */
	unsigned wi = 0, lcore;
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (wi < nw)
			rte_eal_remote_launch(worker_main, &work[wi], lcore);
		wi++;
	}
	hw_collector_ready(c);

	uint64_t last = 0, idle_since = rte_get_timer_cycles(), stats_at = idle_since;
	const uint64_t hz = rte_get_timer_hz();
	while (!hw_stop_requested) {
		usleep(50000);
		__atomic_store_n(&c->front_beat, c->front_beat + 1, __ATOMIC_RELAXED);
		uint64_t now = rte_get_timer_cycles(), n = total_packets(c);
		if (now - stats_at >= hz) {
			read_nic_stats(c);
			stats_at = now;
		}
		if (n != last) {
			last = n;
			idle_since = now;
		} else if (c->cfg.idle_exit_s > 0 && (double)(now - idle_since) / (double)hz >= c->cfg.idle_exit_s) {
			break;
		}
	}
	rc = 0;
	workers_stop = true;
	rte_eal_mp_wait_lcore();
	for (unsigned i = 0; i < nw; i++) /* for rates per worker CPU-second (bench/side_by_side.py) */
		fprintf(stderr, "worker%u_cpu_ns %llu\nworker%u_wall_ns %llu\n", i, (unsigned long long)work[i].cpu_ns,
		        i, (unsigned long long)work[i].wall_ns);

finish:
	hw_collector_finish(c);
	RTE_ETH_FOREACH_DEV(port)
	{
		struct rte_eth_stats st;
		if (rte_eth_stats_get(port, &st) == 0)
			fprintf(stderr, "port%u_rx %llu\nport%u_missed %llu\nport%u_errors %llu\nport%u_nombuf %llu\n",
			        port, (unsigned long long)st.ipackets, port, (unsigned long long)st.imissed, port,
			        (unsigned long long)st.ierrors, port, (unsigned long long)st.rx_nombuf);
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
out:
	rte_eal_cleanup();
	return rc;
}
