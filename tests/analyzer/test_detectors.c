/* Unit tests of the analyzer's detectors with hand-made record sequences: each test feeds records on
 * record time and checks the events (kind, count, order, numbers), including hysteresis. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "hopwatch/analyzer.h"

#define MAXEV 256
static struct hw_an_event evs[MAXEV];
static int n_ev;

static void collect(void *ctx, const struct hw_an_event *e)
{
	(void)ctx;
	if (n_ev < MAXEV)
		evs[n_ev++] = *e;
}

/* Raises (resolved 0; an update of a firing alert is not one) or resolves of name. */
static int count(const char *name, int resolved)
{
	int n = 0;
	for (int i = 0; i < n_ev; i++)
		n += strcmp(evs[i].alertname, name) == 0 && evs[i].resolved == resolved && !evs[i].update;
	return n;
}

static int first(const char *name, int resolved)
{
	for (int i = 0; i < n_ev; i++)
		if (strcmp(evs[i].alertname, name) == 0 && evs[i].resolved == resolved)
			return i;
	return -1;
}

static double number(const struct hw_an_event *e, const char *name)
{
	for (unsigned i = 0; i < e->n_numbers; i++)
		if (strcmp(e->numbers[i].name, name) == 0)
			return e->numbers[i].value;
	fail_msg("event %s has no number %s", e->alertname, name);
	return 0;
}

static uint32_t seq;
static uint8_t report_flags;   /* report_flags of the records rec() makes */
static uint8_t path_queue = 3; /* the queue of every hop report_path() makes (setup: 3) */
/* One single-hop report at node 1, egress port 2, queue 3, from source host src. */
static struct hw_record rec(uint64_t t, uint32_t occ, uint32_t lat, uint8_t src)
{
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.time_ns = t;
	r.valid = HW_V_PORTS | HW_V_QUEUE | HW_V_HOP_LATENCY | HW_V_FLOW;
	r.format = HW_FORMAT_TR20;
	r.report_node = 1;
	r.report_seq = seq++ & 0x3fffff;
	r.report_flags = report_flags;
	r.node_id = 1;
	r.ingress_port = 1;
	r.egress_port = 2;
	r.queue_id = 3;
	r.queue_occupancy = occ;
	r.hop_latency = lat;
	r.path_len = 1;
	r.src_ip[10] = r.src_ip[11] = 0xff;
	r.src_ip[15] = src;
	r.dst_ip[15] = 200;
	r.ip_proto = 17;
	r.src_port = 1000;
	r.dst_port = 4791;
	r.flow_hash = hw_flow_hash(r.src_ip, r.dst_ip, r.ip_proto, r.src_port, r.dst_port);
	return r;
}

static struct hw_an_config cfg;
static struct hw_analyzer *mk(void)
{
	n_ev = 0;
	seq = 0;
	char err[256];
	struct hw_analyzer *a = hw_an_create(&cfg, NULL, NULL, collect, NULL, err, sizeof(err));
	assert_non_null(a);
	return a;
}

static void feed(struct hw_analyzer *a, struct hw_record r)
{
	hw_an_ingest(a, &r, 1);
}

static int setup(void **state)
{
	(void)state;
	path_queue = 3;
	hw_an_config_default(&cfg);
	cfg.enabled = (1u << HW_AN_KIND_COUNT) - 1;
	/* The rules below are worked with configured thresholds (the tests of the thresholds derived from the
	 * fabric are test_thresholds_*): they override the fabric's for every queue. */
	cfg.high_queue.raise = 10000;
	cfg.high_queue.clear = 8000;
	cfg.high_latency.raise = 1000000;
	cfg.high_latency.clear = 800000;
	cfg.microburst_raise = 10000;
	cfg.microburst_clear = 2000;
	cfg.microburst_max_ns = 1000000;
	cfg.incast_occupancy = 10000;
	return 0;
}

/* A ramp 0 -> 20000 over 2 ms: QueueBuildup warns before HighQueue fires, one event each. */
static void test_ramp_buildup_before_high(void **state)
{
	(void)state;
	struct hw_analyzer *a = mk();
	uint64_t t0 = 1000000000000ull;
	for (int i = 0; i <= 200; i++)
		feed(a, rec(t0 + (uint64_t)i * 10000, (uint32_t)i * 100, 500, 1));
	hw_an_finish(a);
	assert_int_equal(count("QueueBuildup", 0), 1);
	assert_int_equal(count("HighQueue", 0), 1);
	int b = first("QueueBuildup", 0), h = first("HighQueue", 0);
	assert_in_range(h, b + 1, INT_MAX); /* QueueBuildup was emitted first */
	assert_in_range(evs[h].start_ns, evs[b].start_ns + 1, UINT64_MAX);
	assert_true(number(&evs[b], "occupancy") < cfg.high_queue.raise);
	assert_true(number(&evs[b], "slope_per_ms") > 9000 && number(&evs[b], "slope_per_ms") < 11000);
	/* HighQueue only after hold_ns above the threshold (crossed at 1 ms) */
	assert_in_range(evs[h].start_ns, t0 + 1000000, t0 + 1010000);
	assert_int_equal(evs[h].node_id, 1);
	assert_int_equal(evs[h].port, 2);
	assert_int_equal(evs[h].queue, 3);
	hw_an_destroy(a);
}

/* A linear ramp of 6 bytes per us, sampled every 10 us (occupancy 60 i at t0 + 10 i us).  The least-squares
 * line through such samples is the ramp itself, so with lead 1 ms QueueBuildup predicts occupancy + 6000.
 *  a) The projection alone (queue_buildup.from 0): it fires at the first sample with occupancy >= 4000: i = 67
 *     (4020, t0 + 670 us; i = 66 predicts 9960).  The queue crosses 10000 at i = 167 (10020, t0 + 1670 us):
 *     HighQueue's episode starts there (raised after hold_ns), exactly lead_ns after the warning.
 *  b) from 0.75, rising 3, hold_ns 0: not before the queue is at 7500: i = 125 (t0 + 1250 us), the three
 *     newest samples not falling; lead 420 us, eta (10000 - 7500) / 6000 ms.  With the default hold_ns (10 us)
 *     the queue must also have been at 7500 or above 10 us before: sample 125 is the first, so i = 126 (7560,
 *     t0 + 1260 us), eta (10000 - 7560) / 6000 ms.
 *  c) The same with sample 125 dipping to 7000: below 7500 there, and at i = 126 the newest three (7440,
 *     7000, 7560) fall once: raised at i = 127 (7620, t0 + 1270 us; sample 126, 7560, held 10 us before). */
static void ramp(struct hw_analyzer *a, uint64_t t0, int dip)
{
	for (int i = 0; i <= 200; i++)
		feed(a, rec(t0 + (uint64_t)i * 10000, i == dip ? 7000 : (uint32_t)i * 60, 500, 1));
}

static void test_buildup_lead_on_linear_ramp(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_QUEUE_BUILDUP | 1u << HW_AN_HIGH_QUEUE;
	cfg.buildup_from = 0;
	struct hw_analyzer *a = mk();
	uint64_t t0 = 3000000000000ull;
	ramp(a, t0, -1);
	assert_int_equal(count("QueueBuildup", 0), 1);
	assert_int_equal(count("HighQueue", 0), 1);
	const struct hw_an_event *b = &evs[first("QueueBuildup", 0)], *h = &evs[first("HighQueue", 0)];
	assert_int_equal(b->start_ns, t0 + 670000);
	assert_int_equal(h->start_ns, t0 + 1670000);
	assert_int_equal(h->start_ns - b->start_ns, cfg.buildup_lead_ns);
	assert_int_equal((int)number(b, "occupancy"), 4020);
	assert_true(fabs(number(b, "slope_per_ms") - 6000) < 1e-6);
	assert_true(fabs(number(b, "eta_ms") - (10000.0 - 4020) / 6000) < 1e-9);
	hw_an_destroy(a);

	cfg.buildup_from = 0.75;
	for (int hold = 0; hold <= 1; hold++) {
		cfg.buildup_hold_ns = hold ? 10000 : 0;
		a = mk();
		ramp(a, t0, -1);
		assert_int_equal(count("QueueBuildup", 0), 1);
		b = &evs[first("QueueBuildup", 0)];
		uint32_t occ = hold ? 7560 : 7500;
		assert_int_equal(b->start_ns, t0 + (hold ? 1260000 : 1250000));
		assert_int_equal((int)number(b, "occupancy"), occ);
		assert_true(fabs(number(b, "eta_ms") - (10000.0 - occ) / 6000) < 1e-9);
		hw_an_destroy(a);
	}

	a = mk();
	ramp(a, t0, 125);
	assert_int_equal(count("QueueBuildup", 0), 1);
	b = &evs[first("QueueBuildup", 0)];
	assert_int_equal(b->start_ns, t0 + 1270000);
	assert_int_equal((int)number(b, "occupancy"), 7620);
	hw_an_destroy(a);
}

/* A steep climb after a flat stretch: 12 empty samples 80 us apart (0..880 us), then 2000 bytes per 10 us
 * from 900 us (0, 2000, 4000, 6000, 8000, 10000 at 900..950 us).  The line through the window's 16 newest
 * samples, dragged down by the flat ones, predicts only 1024, 2601, 4517, 7281 for 910..940 us: no warning
 * before the crossing at 950 us.  The newest 4 samples, trusted from half the threshold (steep_from 0.5),
 * lie on 200 bytes per us: QueueBuildup at 930 us (occupancy 6000), 20 us before the crossing, with
 * queue_buildup.from 0; with 0.75 not before 7500: at 940 us (8000), 10 us before (hold_ns 0).  With the
 * default hold_ns (10 us) none: 8000 at 940 us is the only sample between 7500 and the threshold. */
/* 12 empty samples 80 us apart from t0 (0..880 us): a flat past before a climb. */
static void flat(struct hw_analyzer *a, uint64_t t0)
{
	for (int k = 0; k < 12; k++)
		feed(a, rec(t0 + (uint64_t)k * 80000, 0, 500, 1));
}

static void steep_ramp(struct hw_analyzer *a, uint64_t t0)
{
	flat(a, t0);
	for (int j = 0; j <= 5; j++)
		feed(a, rec(t0 + 900000 + (uint64_t)j * 10000, (uint32_t)j * 2000, 500, 1));
}

static void test_buildup_steep_ramp(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_QUEUE_BUILDUP;
	uint64_t t0 = 4000000000000ull;
	cfg.buildup_from = 0.75;
	struct hw_analyzer *a = mk();
	steep_ramp(a, t0);
	assert_int_equal(count("QueueBuildup", 0), 0); /* the default hold_ns: never held at 7500 for 10 us */
	hw_an_destroy(a);
	cfg.buildup_hold_ns = 0;
	for (int from0 = 1; from0 >= 0; from0--) {
		cfg.buildup_from = from0 ? 0 : 0.75;
		a = mk();
		steep_ramp(a, t0);
		assert_int_equal(count("QueueBuildup", 0), 1);
		const struct hw_an_event *b = &evs[first("QueueBuildup", 0)];
		assert_int_equal(b->start_ns, t0 + (from0 ? 930000 : 940000));
		assert_int_equal((int)number(b, "occupancy"), from0 ? 6000 : 8000);
		assert_true(fabs(number(b, "slope_per_ms") - 200000) < 1e-3);
		hw_an_destroy(a);
	}
	cfg.buildup_from = 0;
	cfg.buildup_steep_from = 2; /* off: the window's line alone */
	a = mk();
	steep_ramp(a, t0);
	assert_int_equal(count("QueueBuildup", 0), 0);
	hw_an_destroy(a);
}

/* The reachable ceiling: PFC pauses each ingress port at Xoff, so one flow (one port) cannot take a lossless queue
 * past Xoff.  The ramp of test_buildup_lead_on_linear_ramp (60 i bytes at t0 + 10 i us, threshold 10000) at a
 * lossless queue with Xoff 10000 (the threshold at Xoff), queue_buildup.min_flows 2 (the default):
 *  a) one flow all along: never two flows within the 1 ms window, no QueueBuildup (HighQueue still fires);
 *  b) a second flow's record at i = 130 only (t0 + 1300 us, 7800 bytes): from there two flows within the window,
 *     and the other conditions hold since i = 125: raised at i = 130, occupancy 7800;
 *  c) the second flow at i = 10 (t0 + 100 us) only: at i = 125 (t0 + 1250 us) it is 1150 us old, beyond the
 *     1 ms window: no QueueBuildup;
 *  d) as a) with min_flows 1: the rule is off, raised at i = 126 (7560) as in the linear ramp's case b) (with the
 *     default hold_ns: in b) above the queue has held at 7500 or more since i = 125, so i = 130 stands). */
static void flows_ramp(struct hw_analyzer *a, uint64_t t0, int second)
{
	for (int i = 0; i <= 200; i++)
		feed(a, rec(t0 + (uint64_t)i * 10000, (uint32_t)i * 60, 500, i == second ? 2 : 1));
}

static void test_buildup_reachable_ceiling(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_QUEUE_BUILDUP | 1u << HW_AN_HIGH_QUEUE;
	cfg.fabric.lossless_queues = 1u << 3;
	cfg.fabric.xoff_bytes = 10000; /* = high_queue.raise */
	assert_int_equal(cfg.buildup_min_flows, 2);
	uint64_t t0 = 3000000000000ull;
	static const int second[] = {-1, 130, 10};
	static const uint64_t at[] = {0, 1300000, 0};
	for (unsigned k = 0; k < 3; k++) {
		struct hw_analyzer *a = mk();
		flows_ramp(a, t0, second[k]);
		hw_an_finish(a);
		assert_int_equal(count("HighQueue", 0), 1);
		assert_int_equal(count("QueueBuildup", 0), at[k] ? 1 : 0);
		if (at[k]) {
			const struct hw_an_event *b = &evs[first("QueueBuildup", 0)];
			assert_int_equal(b->start_ns, t0 + at[k]);
			assert_int_equal((int)number(b, "occupancy"), 7800);
		}
		hw_an_destroy(a);
	}
	cfg.buildup_min_flows = 1;
	struct hw_analyzer *a = mk();
	flows_ramp(a, t0, -1);
	assert_int_equal(count("QueueBuildup", 0), 1);
	assert_int_equal(evs[first("QueueBuildup", 0)].start_ns, t0 + 1260000);
	assert_int_equal((int)number(&evs[first("QueueBuildup", 0)], "occupancy"), 7560);
	hw_an_destroy(a);
}

/* queue_buildup.hold_ns: a climb that stops short (a burst released by PFC upstream, seen on clean fabrics) against
 * one that holds.  Threshold 10000, from 0.75 (level 7500), lossy queue (no min_flows rule), 12 empty samples 80 us
 * apart, then at 900, 910, 914 us: 3000, 6000, 7600 and
 *  a) spike: 7800 at 920 us, 5000 at 930 us: with hold_ns 0 raised at 914 us (7600: at the level, the newest three
 *     rising, the newest four samples' line 3000 -> 7600 in 14 us projects far past 10000); with the default
 *     10 us none: at 914 the sample before (6000) is below 7500, at 920 the oldest sample at the level (914 us) is
 *     6 us old, at 930 the queue is below the level;
 *  b) held: 7900 at 924 us instead: at 924 the sample of 914 us (7600) is 10 us old, at the level and not above
 *     7900: raised at 924 us, occupancy 7900. */
static void spike(struct hw_analyzer *a, uint64_t t0, int held)
{
	flat(a, t0);
	feed(a, rec(t0 + 900000, 3000, 500, 1));
	feed(a, rec(t0 + 910000, 6000, 500, 2));
	feed(a, rec(t0 + 914000, 7600, 500, 3));
	if (held) {
		feed(a, rec(t0 + 924000, 7900, 500, 1));
		return;
	}
	feed(a, rec(t0 + 920000, 7800, 500, 1));
	feed(a, rec(t0 + 930000, 5000, 500, 2));
}

static void test_buildup_hold(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_QUEUE_BUILDUP;
	assert_int_equal(cfg.buildup_hold_ns, 10000);
	uint64_t t0 = 6000000000000ull;
	/* {hold_ns, held, expected start after t0 (0: no warning), its occupancy} */
	static const uint64_t cases[][4] = {{10000, 0, 0, 0}, {10000, 1, 924000, 7900}, {0, 0, 914000, 7600}};
	for (unsigned k = 0; k < 3; k++) {
		cfg.buildup_hold_ns = cases[k][0];
		struct hw_analyzer *a = mk();
		spike(a, t0, (int)cases[k][1]);
		assert_int_equal(count("QueueBuildup", 0), cases[k][2] ? 1 : 0);
		if (cases[k][2]) {
			assert_int_equal(evs[first("QueueBuildup", 0)].start_ns, t0 + cases[k][2]);
			assert_int_equal((int)number(&evs[first("QueueBuildup", 0)], "occupancy"), (int)cases[k][3]);
		}
		hw_an_destroy(a);
	}
}

/* queue_buildup.steady: the hold waived for a climb that is not slowing down.  Threshold 10000, level 7500 (from
 * 0.75), lossy queue, 12 empty samples 80 us apart, then 4500, 6000, 7500 at 900, 904, 908 us and
 *  a) steady: 9000 at 912 us (10500 at 916 us, above the threshold: no early warning there).  At 912 the time hold
 *     fails (7500 at 908 us is 4 us old, 6000 before it is below the level).  The newest four samples lie on
 *     1500 bytes per 4 us = 375 bytes per us; the newest step is 1500 in 4 us = 375 per us >= 1 x 375: with
 *     steady 1 raised at 912 us, occupancy 9000 (the line projects 9000 + 375 x 1000 us, far past 10000; the
 *     newest three samples rise).  At 908 the sample before (6000) is below the level: no waiver there;
 *  b) slowing: 8000 at 912 us instead.  The newest four samples' line: times 0, 4, 8, 12 us (mean 6), occupancy
 *     4500, 6000, 7500, 8000 (mean 6500): slope ((-6)(-2000) + (-2)(-500) + 2 x 1000 + 6 x 1500) / (36 + 4 + 4 +
 *     36) = 24000 / 80 = 300 bytes per us; the newest step 500 in 4 us = 125 per us: below 1 x 300 (none with
 *     steady 1), at least 0.4 x 300 = 120 (raised at 912 us, occupancy 8000, with steady 0.4);
 *  c) steady 0 (the default): neither is raised (the time hold alone). */
static void climb(struct hw_analyzer *a, uint64_t t0, uint32_t at912)
{
	flat(a, t0);
	static const uint32_t occ[] = {4500, 6000, 7500, 0, 10500}; /* [3]: at912 */
	for (unsigned j = 0; j < 5; j++)
		feed(a, rec(t0 + 900000 + j * 4000ull, j == 3 ? at912 : occ[j], 500, 1));
}

static void test_buildup_steady(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_QUEUE_BUILDUP;
	assert_true(cfg.buildup_steady == 0);
	uint64_t t0 = 7000000000000ull;
	/* {steady x 10, the sample at 912 us, raised (1) or not} */
	static const unsigned cases[][3] = {{10, 9000, 1}, {10, 8000, 0}, {4, 8000, 1}, {0, 9000, 0}, {0, 8000, 0}};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cfg.buildup_steady = cases[k][0] / 10.0;
		struct hw_analyzer *a = mk();
		climb(a, t0, cases[k][1]);
		assert_int_equal(count("QueueBuildup", 0), (int)cases[k][2]);
		if (cases[k][2]) {
			assert_int_equal(evs[first("QueueBuildup", 0)].start_ns, t0 + 912000);
			assert_int_equal((int)number(&evs[first("QueueBuildup", 0)], "occupancy"), (int)cases[k][1]);
		}
		hw_an_destroy(a);
	}
}

/* queue_buildup.starver_cut: a lossy queue starved by a lossless class that PFC is cutting.  Node 1, lossless queue 3
 * (fabric.lossless_queues), threshold 10000 for every queue.  Lossy queue 0 of port 2 climbs as the linear ramp
 * (60 i bytes at t0 + 10 i us): at the default from 0.75 (7500) from i = 125 and held 10 us at i = 126, so raised
 * at t0 + 1260 us, occupancy 7560, when nothing else holds it back.  With each of its samples, port 2's queue 3
 * (the higher-priority class at the same port) and port 5's queue 3 (the same class on the same switch) report:
 *  a) port 2 queue 3 at 0 (the class passes without queueing: under 0.1 x 10000 = 1000), port 5 queue 3 at 12000
 *     (a HighQueue episode from 100 us on, the default hold): the starvation depends on traffic PFC is cutting on
 *     the switch's ingress links: no QueueBuildup at queue 0 (its HighQueue at the crossing still fires);
 *  b) as a) with starver_cut 0: raised at 1260 us, 7560;
 *  c) port 2 queue 3 at 5000 (a backlog of its own, >= 1000): the rule does not apply, raised at 1260 us;
 *  d) port 5 queue 3 at 5000 (below 10000: no HighQueue episode on the switch): raised at 1260 us;
 *  e) port 2 queue 3 reports only with queue 0's first sample (t0), 1260 us old at i = 126, beyond the 1 ms
 *     window: not known to pass the port now, raised at 1260 us. */
static struct hw_record rec_pq(uint64_t t, uint32_t port, uint8_t queue, uint32_t occ)
{
	struct hw_record r = rec(t, occ, 500, (uint8_t)(10 + port));
	r.egress_port = port;
	r.queue_id = queue;
	return r;
}

static void test_buildup_starver_cut(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_QUEUE_BUILDUP | 1u << HW_AN_HIGH_QUEUE;
	cfg.fabric.lossless_queues = 1u << 3;
	assert_int_equal(cfg.buildup_starver_cut, 1);
	uint64_t t0 = 8000000000000ull;
	/* {starver_cut, port 2 queue 3, port 5 queue 3, port 2 queue 3 only at i = 0, raised} */
	static const unsigned cases[][5] = {
	    {1, 0, 12000, 0, 0}, {0, 0, 12000, 0, 1}, {1, 5000, 12000, 0, 1}, {1, 0, 5000, 0, 1}, {1, 0, 12000, 1, 1}};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cfg.buildup_starver_cut = (uint8_t)cases[k][0];
		struct hw_analyzer *a = mk();
		for (int i = 0; i <= 200; i++) {
			uint64_t t = t0 + (uint64_t)i * 10000;
			feed(a, rec_pq(t, 2, 0, (uint32_t)i * 60));
			if (!cases[k][3] || i == 0)
				feed(a, rec_pq(t + 1, 2, 3, cases[k][1]));
			feed(a, rec_pq(t + 2, 5, 3, cases[k][2]));
		}
		hw_an_finish(a);
		int n = 0, at = -1;
		for (int i = 0; i < n_ev; i++)
			if (strcmp(evs[i].alertname, "QueueBuildup") == 0 && !evs[i].resolved && !evs[i].update) {
				assert_int_equal(evs[i].port, 2);
				assert_int_equal(evs[i].queue, 0);
				n++;
				at = i;
			}
		assert_int_equal(n, (int)cases[k][4]);
		if (cases[k][4]) {
			assert_int_equal(evs[at].start_ns, t0 + 1260000);
			assert_int_equal((int)number(&evs[at], "occupancy"), 7560);
		}
		int hq0 = 0;
		for (int i = 0; i < n_ev; i++)
			hq0 += strcmp(evs[i].alertname, "HighQueue") == 0 && !evs[i].resolved && !evs[i].update &&
			       evs[i].port == 2 && evs[i].queue == 0;
		assert_int_equal(hq0, 1);
		hw_an_destroy(a);
	}
}

/* queue_buildup.starver_cut upstream: the class that starves the lossy queue is paused on a switch before it.  The
 * ramp of test_buildup_starver_cut at node 1 port 2 queue 0 (raised at t0 + 1260 us, occupancy 7560, when nothing
 * holds it back).  With each of its samples, two reports of queue 3 (the lossless class; PathChange keeps their
 * paths): flow S (source 7) with the path 10:5 > M:7 > 1:2, reading 0 at every hop (the class passes node 1 port 2
 * without queueing), and flow P (source 9) with the path N:5 > 20:8, reading 0 then X (node 20 port 8: the same class
 * on another switch).  Xoff 400000 (the default) but in d), threshold 10000 for every queue:
 *  a) M = 20, N = 10, X = 12000: node 20 port 8 in a HighQueue episode from 100 us on pauses the links that feed it,
 *     the one from node 10 among them, by which S comes into node 20 too: no QueueBuildup (the rule before looked at
 *     node 1 alone: raised);
 *  b) M = 21: node 20 is not on S's path: raised at 1260 us, 7560;
 *  c) X = 5000 (below 10000: no episode; below Xoff): raised at 1260 us;
 *  d) HighQueue off and Xoff 10000: node 20 port 8's newest sample at Xoff, as a congestion tree's victim's is (no
 *     HighQueue episode kept there): no QueueBuildup;
 *  e) S's path 10:5 > 1:2 > 20:7 (node 20 after node 1: its pause would fill node 1's queue 3 first): raised;
 *  f) N = 11: P comes into node 20 from another switch than S does, so node 20 pauses another link: raised. */
static void report_path(struct hw_analyzer *a, uint64_t t, int n, const uint32_t *nodes, const uint32_t *ports,
                        const uint32_t *occ, uint8_t src, uint32_t report_node);

static void test_buildup_starver_cut_upstream(void **state)
{
	(void)state;
	cfg.fabric.lossless_queues = 1u << 3;
	assert_int_equal(cfg.buildup_starver_cut, 1);
	uint64_t t0 = 9000000000000ull;
	/* {M, X, HighQueue on, Xoff, node 1 second on S's path (e), N, raised} */
	static const unsigned cases[][7] = {{20, 12000, 1, 400000, 0, 10, 0}, {21, 12000, 1, 400000, 0, 10, 1},
	                                    {20, 5000, 1, 400000, 0, 10, 1},  {20, 12000, 0, 10000, 0, 10, 0},
	                                    {20, 12000, 1, 400000, 1, 10, 1}, {20, 12000, 1, 400000, 0, 11, 1}};
	for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cfg.enabled =
		    1u << HW_AN_QUEUE_BUILDUP | 1u << HW_AN_PATH_CHANGE | (cases[k][2] ? 1u << HW_AN_HIGH_QUEUE : 0u);
		cfg.fabric.xoff_bytes = cases[k][3];
		const uint32_t mid[3] = {10, cases[k][0], 1}, mid_p[3] = {5, 7, 2};
		const uint32_t after[3] = {10, 1, cases[k][0]}, after_p[3] = {5, 2, 7}, zero[3] = {0, 0, 0};
		const uint32_t p_nodes[2] = {cases[k][5], 20}, p_ports[2] = {5, 8}, p_occ[2] = {0, cases[k][1]};
		struct hw_analyzer *a = mk();
		for (int i = 0; i <= 200; i++) {
			uint64_t t = t0 + (uint64_t)i * 10000;
			feed(a, rec_pq(t, 2, 0, (uint32_t)i * 60));
			report_path(a, t + 1, 3, cases[k][4] ? after : mid, cases[k][4] ? after_p : mid_p, zero, 7, 0);
			report_path(a, t + 2, 2, p_nodes, p_ports, p_occ, 9, 0);
		}
		hw_an_finish(a);
		assert_int_equal(count("QueueBuildup", 0), (int)cases[k][6]);
		if (cases[k][6]) {
			const struct hw_an_event *b = &evs[first("QueueBuildup", 0)];
			assert_int_equal(b->node_id, 1);
			assert_int_equal(b->port, 2);
			assert_int_equal(b->queue, 0);
			assert_int_equal(b->start_ns, t0 + 1260000);
			assert_int_equal((int)number(b, "occupancy"), 7560);
		}
		hw_an_destroy(a);
	}
}

/* Values wobbling between the clear and raise thresholds stay one episode; a quiet period resolves it,
 * and a new excursion is a second episode. */
static void test_hysteresis_one_event_per_episode(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	struct hw_analyzer *a = mk();
	uint64_t t = 5000000000ull;
	for (int i = 0; i < 20; i++, t += 10000) /* 200 us above: past hold_ns */
		feed(a, rec(t, 12000, 500, 1));
	for (int i = 0; i < 100; i++, t += 10000) /* wobbling across raise, above clear */
		feed(a, rec(t, (i & 1) ? 12000 : 9000, 500, 1));
	assert_int_equal(count("HighQueue", 0), 1);
	assert_int_equal(count("HighQueue", 1), 0);
	for (int i = 0; i < 150; i++, t += 10000) /* 1.5 ms below clear (8000) */
		feed(a, rec(t, 100, 500, 1));
	assert_int_equal(count("HighQueue", 1), 1);
	assert_int_equal(evs[first("HighQueue", 1)].id, evs[first("HighQueue", 0)].id);
	for (int i = 0; i < 30; i++, t += 10000)
		feed(a, rec(t, 15000, 500, 1));
	assert_int_equal(count("HighQueue", 0), 2);
	/* silence longer than clear_ns resolves through the tick */
	hw_an_tick(a, t + 5000000);
	assert_int_equal(count("HighQueue", 1), 2);
	hw_an_destroy(a);
}

/* The analyzer's record-time counters: records set aside and clock jumps. */
static void assert_clock(const struct hw_analyzer *a, uint64_t set_aside, uint64_t jumps)
{
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.records_set_aside, set_aside);
	assert_int_equal(st.clock_jumps, jumps);
}

/* Record time sanity (issue 22 item 6): one record an hour ahead, and one at 2^64 - 1, among records 10 us
 * apart are set aside: the clock stays at the newest normal record and the active HighQueue is not resolved
 * (an hour of record time would close its clear window of 1 ms, as the tick at the end shows). */
static void test_clock_far_future_set_aside(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	struct hw_analyzer *a = mk();
	uint64_t t = 5000000000ull;
	for (int i = 0; i < 20; i++, t += 10000) /* 200 us above 10000: past hold_ns, raised */
		feed(a, rec(t, 12000, 500, 1));
	assert_int_equal(count("HighQueue", 0), 1);
	feed(a, rec(t + 3600000000000ull, 100, 500, 1)); /* an hour ahead, below clear */
	feed(a, rec(UINT64_MAX, 100, 500, 1));
	assert_int_equal(hw_an_now(a), t - 10000); /* the last normal record's time */
	for (int i = 0; i < 10; i++, t += 10000)   /* 100 us more above: the episode goes on */
		feed(a, rec(t, 12000, 500, 1));
	assert_int_equal(count("HighQueue", 1), 0);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.records, 32); /* 20 + 2 + 10, the 2 counted and set aside */
	assert_clock(a, 2, 0);
	hw_an_tick(a, t + 5000000); /* 5 ms of silence > clear_ns (1 ms): resolved by time that is trusted */
	assert_int_equal(count("HighQueue", 1), 1);
	hw_an_destroy(a);
}

/* A real gap in the input (a replay paused for a minute): the first report after it is set aside, the second
 * (another report, within 10 s of the first) confirms the jump, and the clock moves: the 1 ms clear window
 * has passed, the episode resolves. */
static void test_clock_gap_confirmed(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	struct hw_analyzer *a = mk();
	uint64_t t = 5000000000ull;
	for (int i = 0; i < 20; i++, t += 10000)
		feed(a, rec(t, 12000, 500, 1));
	assert_int_equal(count("HighQueue", 0), 1);
	t += 60000000000ull; /* a minute later */
	feed(a, rec(t, 100, 500, 1));
	assert_int_equal(count("HighQueue", 1), 0);
	feed(a, rec(t + 10000, 100, 500, 1));
	assert_int_equal(hw_an_now(a), t + 10000);
	assert_int_equal(count("HighQueue", 1), 1);
	assert_clock(a, 1, 1);
	hw_an_destroy(a);
}

/* The first record is the bad one (2^64 - 2): the second report, far behind it, moves the clock back, and the
 * detectors work on the records that follow (200 us above raise: one HighQueue). */
static void test_clock_first_record_bad(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	struct hw_analyzer *a = mk();
	feed(a, rec(UINT64_MAX - 1, 100, 500, 2));
	uint64_t t = 5000000000ull;
	for (int i = 0; i < 20; i++, t += 10000)
		feed(a, rec(t, 12000, 500, 1));
	assert_int_equal(hw_an_now(a), t - 10000);
	assert_int_equal(count("HighQueue", 0), 1);
	assert_clock(a, 0, 1);
	hw_an_destroy(a);
}

/* A short spike above the raise threshold does not pass hold_ns: no HighQueue. */
static void test_hold_time_filters_spike(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	struct hw_analyzer *a = mk();
	uint64_t t = 5000000000ull;
	feed(a, rec(t, 20000, 0, 1));
	feed(a, rec(t + 50000, 20000, 0, 1));
	feed(a, rec(t + 60000, 100, 0, 1));
	assert_int_equal(count("HighQueue", 0), 0);
	hw_an_destroy(a);
}

static void test_high_hop_latency(void **state)
{
	(void)state;
	struct hw_analyzer *a = mk();
	uint64_t t = 7000000000ull;
	for (int i = 0; i < 30; i++, t += 10000)
		feed(a, rec(t, 100, 2000000, 1));
	for (int i = 0; i < 150; i++, t += 10000)
		feed(a, rec(t, 100, 1000, 1));
	assert_int_equal(count("HighHopLatency", 0), 1);
	assert_int_equal(count("HighHopLatency", 1), 1);
	assert_true(number(&evs[first("HighHopLatency", 0)], "hop_latency") >= 1000000);
	hw_an_destroy(a);
}

/* Latency and occupancy high together: the latency follows from the occupancy, one HighQueue and no
 * HighHopLatency.  Setup: latency raise 1 ms, occupancy raise 10000, both hold 100 us.  Samples every 10 us: the
 * latency is 2 ms from t0, the occupancy 20000 from t0 + 10 us.  HighHopLatency's hold ends at t0 + 100 us, while
 * HighQueue's run (begun t0 + 10 us) has held only 90 us: not yet raised, but the queue is high, so no
 * HighHopLatency; HighQueue raises at t0 + 110 us. */
static void test_high_latency_follows_occupancy(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_HIGH_LATENCY;
	struct hw_analyzer *a = mk();
	uint64_t t0 = 7500000000ull, t = t0;
	for (int i = 0; i < 30; i++, t += 10000)
		feed(a, rec(t, i ? 20000 : 100, 2000000, 1));
	assert_int_equal(count("HighQueue", 0), 1);
	assert_true(evs[first("HighQueue", 0)].start_ns == t0 + 10000);
	assert_int_equal(count("HighHopLatency", 0), 0);
	hw_an_destroy(a);
}

/* The derived latency threshold is a queueing time: it is compared with the latency above the queue's floor.  The
 * default configuration: queue 3 not placed is a lossless 100G host link, Xoff 400000 and Xon 300000 bytes, so
 * HighHopLatency's derived levels are 400000 * 8 / 100 = 32000 ns and 300000 * 8 / 100 = 24000 ns (an_thresholds.c)
 * above the floor.  Samples every 10 us: 20 at occupancy 100 and latency 10000 ns (the switch's forwarding time:
 * the floor), then 30 (300 us, over the hold of 100 us) at occupancy 300000 (below Xoff: no HighQueue) with its
 * drain time on top, 10000 + 300000 * 8 / 100 = 34000 ns: above 32000 but not above 42000 = 10000 + 32000, so no
 * HighHopLatency.  Then 30 at occupancy 100 and 60000 ns (time spent beyond what the occupancy says): one, its
 * threshold 42000. */
static void test_high_latency_over_floor(void **state)
{
	(void)state;
	hw_an_config_default(&cfg);
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_HIGH_LATENCY;
	struct hw_analyzer *a = mk();
	uint64_t t = 7700000000ull;
	for (int i = 0; i < 20; i++, t += 10000)
		feed(a, rec(t, 100, 10000, 1));
	for (int i = 0; i < 30; i++, t += 10000)
		feed(a, rec(t, 300000, 34000, 1));
	assert_int_equal(count("HighHopLatency", 0), 0);
	assert_int_equal(count("HighQueue", 0), 0);
	for (int i = 0; i < 30; i++, t += 10000)
		feed(a, rec(t, 100, 60000, 1));
	assert_int_equal(count("HighHopLatency", 0), 1);
	const struct hw_an_event *e = &evs[first("HighHopLatency", 0)];
	assert_true(number(e, "threshold") == 42000);
	assert_true(number(e, "hop_latency") == 60000);
	hw_an_destroy(a);
}

/* Up and down within 200 us: one Microburst (raised and resolved); a 2 ms plateau is not one. */
static void test_microburst(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_MICROBURST;
	struct hw_analyzer *a = mk();
	uint64_t t = 9000000000ull;
	feed(a, rec(t, 100, 0, 1));
	feed(a, rec(t + 100000, 15000, 0, 1));
	feed(a, rec(t + 200000, 18000, 0, 1));
	feed(a, rec(t + 300000, 100, 0, 1));
	/* it fell at t + 300 us; a record 100 us later still below: it did not climb back within max_ns / 20 (50 us) */
	feed(a, rec(t + 400000, 100, 0, 1));
	assert_int_equal(count("Microburst", 0), 1);
	assert_int_equal(count("Microburst", 1), 1);
	const struct hw_an_event *e = &evs[first("Microburst", 1)];
	assert_int_equal((int)number(e, "peak"), 18000);
	assert_int_equal(e->end_ns - e->start_ns, 200000);
	t += 10000000;
	for (int i = 0; i < 200; i++)
		feed(a, rec(t + (uint64_t)i * 10000, 15000, 0, 1));
	feed(a, rec(t + 2000000, 100, 0, 1));
	assert_int_equal(count("Microburst", 0), 1);
	hw_an_destroy(a);
}

/* The swing rule: a PFC victim swinging between Xon and Xoff is one episode.  Raise 10000, clear 2000, max_ns 1 ms
 * (setup), so a fall below 2000 that climbs back to 10000 within max_ns / 20 = 50 us does not end the burst.
 * Samples every 10 us from t: 100, 15000 (t + 10 us: it begins), 18000, 1000 (t + 30: falls), 12000 (t + 40: back
 * 10 us later), 16000, 500 (t + 60: falls), 14000 (t + 70: back), 1000 (t + 80: falls), then 100 every 10 us to t
 * + 200 us (no climb back: over at its last fall).  One Microburst, not three: start t + 10 us, end t + 80 us,
 * duration 70 us, peak 18000.  Then (swing too slow) a fall at t' + 10 us and a climb back 60 us later (> 50 us):
 * two bursts, each 10 us long. */
static void test_microburst_swing(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_MICROBURST;
	struct hw_analyzer *a = mk();
	const uint64_t t = 9500000000ull;
	const uint32_t occ[9] = {100, 15000, 18000, 1000, 12000, 16000, 500, 14000, 1000};
	for (int i = 0; i <= 20; i++)
		feed(a, rec(t + (uint64_t)i * 10000, i < 9 ? occ[i] : 100, 0, 1));
	assert_int_equal(count("Microburst", 0), 1);
	assert_int_equal(count("Microburst", 1), 1);
	const struct hw_an_event *e = &evs[first("Microburst", 1)];
	assert_true(e->start_ns == t + 10000 && e->end_ns == t + 80000);
	assert_true(number(e, "peak") == 18000 && number(e, "duration_us") == 70);
	hw_an_destroy(a);

	a = mk();
	const uint64_t t2 = 9600000000ull;
	const uint32_t slow[10] = {15000, 100, 100, 100, 100, 100, 100, 15000, 100, 100};
	for (int i = 0; i < 10; i++)
		feed(a, rec(t2 + (uint64_t)i * 10000, slow[i], 0, 1));
	hw_an_finish(a); /* the input ends: the second burst's fall is its end */
	assert_int_equal(count("Microburst", 0), 2);
	hw_an_destroy(a);
}

/* 5 drop reports in 1000 records (0.5% > 0.1%): one PacketDrops with the drop reason; a clean window
 * resolves it.  Its start is the first drop (record 7, at 11 s + 7 * 5 us = 11000035000 ns), not the
 * window's start (11 s): no alert begins before its first evidence. */
static void test_packet_drops(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PACKET_DROPS;
	struct hw_analyzer *a = mk();
	uint64_t t = 11000000000ull;
	for (int i = 0; i < 1000; i++, t += 5000) { /* 5 ms */
		struct hw_record r = rec(t, 100, 0, 1);
		if (i % 200 == 7) {
			r.valid |= HW_V_DROP;
			r.report_flags |= HW_RF_DROPPED;
			r.drop_reason = 71;
		}
		feed(a, r);
	}
	for (int i = 0; i < 4000; i++, t += 5000) /* 20 ms clean */
		feed(a, rec(t, 100, 0, 1));
	assert_int_equal(count("PacketDrops", 0), 1);
	assert_int_equal(count("PacketDrops", 1), 1);
	const struct hw_an_event *e = &evs[first("PacketDrops", 0)];
	assert_int_equal((int)number(e, "drops"), 5);
	assert_int_equal((int)number(e, "drop_reason"), 71);
	/* 71 is SWITCH_DROP_REASON_TRAFFIC_MANAGER in switch.p4 (and DROP_REASON_TRAFFIC_MANAGER in fabric-tna):
	 * the detail names it for the person reading the alert */
	assert_string_equal(e->detail, "drop reason 71 (traffic manager: queue or buffer full)");
	assert_true(e->start_ns == 11000035000ull);
	hw_an_destroy(a);
}

static void test_drops_below_ratio(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PACKET_DROPS;
	struct hw_analyzer *a = mk();
	uint64_t t = 11000000000ull;
	for (int i = 0; i < 4000; i++, t += 2000) { /* 1 drop in 2000 per window = 0.05% */
		struct hw_record r = rec(t, 100, 0, 1);
		if (i % 2000 == 3)
			r.valid |= HW_V_DROP;
		feed(a, r);
	}
	hw_an_finish(a);
	assert_int_equal(count("PacketDrops", 0), 0);
	hw_an_destroy(a);
}

/* Report sequence numbers of one sender: TR v2.0 wraps at 2^22 without a loss; one skipped number
 * right after the wrap is one lost report (1 of 200 = 0.5%). */
static void test_report_loss_22bit_wrap(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_REPORT_LOSS;
	struct hw_analyzer *a = mk();
	seq = 0x3fffff - 99;
	uint64_t t = 13000000000ull;
	for (int i = 0; i < 200; i++, t += 1000) {
		if (i == 101)
			seq++; /* skip 0x000001 */
		feed(a, rec(t, 100, 0, 1));
	}
	hw_an_finish(a);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.reports_lost, 1);
	assert_int_equal(count("TelemetryReportLoss", 0), 1);
	const struct hw_an_event *e = &evs[first("TelemetryReportLoss", 0)];
	assert_int_equal((int)number(e, "lost"), 1);
	assert_int_equal((int)number(e, "expected"), 201); /* 200 received + 1 lost */
	/* starts at the first report after the gap (record 101, at 13 s + 101 us), not the window's start */
	assert_true(e->start_ns == 13000000000ull + 101000);
	assert_int_equal(e->hw_id, 0);
	assert_int_equal(e->queue, -1);
	assert_int_equal(e->node_id, 1);
	hw_an_destroy(a);
}

/* TR v1.0 numbers are 32 bits: 0xffffffff -> 0 is no loss, and a number from the past is ignored. */
static void test_report_loss_32bit(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_REPORT_LOSS;
	struct hw_analyzer *a = mk();
	uint32_t seqs[] = {0xfffffffdu, 0xfffffffeu, 0xffffffffu, 0, 1, 0xfffffffeu, 2, 3};
	uint64_t t = 15000000000ull;
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++, t += 1000) {
		struct hw_record r = rec(t, 100, 0, 1);
		r.format = HW_FORMAT_TR10;
		r.report_seq = seqs[i];
		feed(a, r);
	}
	hw_an_finish(a);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.reports_lost, 0);
	assert_int_equal(count("TelemetryReportLoss", 0), 0);
	hw_an_destroy(a);
}

/* The sender table when full (issue 22 item 12: each unknown sender's report walked all 4096 slots, 27x
 * slower, and the sender was dropped silently).  5000 senders, one report each: the first 3072 (3/4 of the
 * 4096 slots) are tracked, the other 1928 reports counted untracked.  Then a tracked sender (node 1) and an
 * untracked one (node 5000) each skip number 11: only node 1's loss is counted (1), and node 5000's report
 * is the 1929th untracked. */
static void test_sender_table_full(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_REPORT_LOSS;
	struct hw_analyzer *a = mk();
	uint64_t t = 17000000000ull;
	for (uint32_t n = 1; n <= 5000; n++, t += 100) {
		struct hw_record r = rec(t, 100, 0, 1);
		r.report_node = n;
		r.report_seq = 10;
		feed(a, r);
	}
	uint32_t skip[] = {1, 5000};
	for (int i = 0; i < 2; i++, t += 100) {
		struct hw_record r = rec(t, 100, 0, 1);
		r.report_node = skip[i];
		r.report_seq = 12;
		feed(a, r);
	}
	hw_an_finish(a);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.senders_untracked, 5000 - 3072 + 1);
	assert_int_equal(st.reports_lost, 1);
	hw_an_destroy(a);
}

/* One report of n hops from report_node (0: the reporting switch is node 1) about a packet of source host
 * src: hop h at nodes[h], egress port ports[h] (NULL: all 5), queue 3 with occupancy occ[h]. */
static void report_path(struct hw_analyzer *a, uint64_t t, int n, const uint32_t *nodes, const uint32_t *ports,
                        const uint32_t *occ, uint8_t src, uint32_t report_node)
{
	uint32_t s = seq;
	for (int h = 0; h < n; h++) {
		struct hw_record r = rec(t, occ[h], 0, src);
		if (report_node)
			r.report_node = report_node;
		r.report_seq = s;
		r.node_id = nodes[h];
		r.egress_port = ports ? ports[h] : 5;
		r.queue_id = path_queue;
		r.hop_index = (uint8_t)h;
		r.path_len = (uint8_t)n;
		hw_an_ingest(a, &r, 1);
	}
	seq = s + 1;
}

/* A three-hop report of one flow; the middle switch chosen by spine. */
static uint8_t path_src = 1; /* the flow: its source host */
static void path_report(struct hw_analyzer *a, uint64_t t, uint32_t spine)
{
	const uint32_t nodes[3] = {10, spine, 30}, ports[3] = {5, 7, 9}, occ[3] = {100, 100, 100};
	report_path(a, t, 3, nodes, ports, occ, path_src, 0);
}

/* One flow moves from spine 20 to spine 21: one PathChange placed at the hop it left (node 20, its egress
 * port 7).  A second flow leaves the same hop half a second later: it joins that alert (one per cause), which
 * resolves clear_ns (1 s) after the last move, with both flows. */
static void test_path_change(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE;
	struct hw_analyzer *a = mk();
	uint64_t t = 17000000000ull;
	for (int i = 0; i < 5; i++, t += 1000)
		path_report(a, t, 20);
	assert_int_equal(count("PathChange", 0), 0);
	for (int i = 0; i < 5; i++, t += 1000)
		path_report(a, t, 21);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 1);
	const struct hw_an_event *e = &evs[first("PathChange", 0)];
	assert_int_equal(e->node_id, 20); /* the hop the flow left: node 20 ... */
	assert_int_equal(e->port, 7);     /* ... egress port 7 */
	assert_int_equal(e->n_flows, 1);
	assert_int_equal((int)number(e, "moved_flows"), 1);
	assert_non_null(strstr(e->detail, "10:5>20:7>30:9 -> 10:5>21:7>30:9"));
	/* the path it left, as data: 10:5, 20:7, 30:9 */
	assert_int_equal(e->n_old_path, 3);
	assert_int_equal(e->old_path[0][0], 10);
	assert_int_equal(e->old_path[0][1], 5);
	assert_int_equal(e->old_path[1][0], 20);
	assert_int_equal(e->old_path[1][1], 7);
	assert_int_equal(e->old_path[2][0], 30);
	assert_int_equal(e->old_path[2][1], 9);
	/* a second flow leaves 20:7 half a second later: the same cause, no second alert */
	path_src = 2;
	path_report(a, t, 20);
	path_report(a, t + 500000000ull, 21);
	hw_an_finish(a); /* a report is judged when the next one starts, or at the end */
	path_src = 1;
	assert_int_equal(count("PathChange", 0), 1);
	/* last move at t + 0.5 s: resolved at t + 1.5 s, not before */
	hw_an_tick(a, t + 1400000000ull);
	assert_int_equal(count("PathChange", 1), 0);
	hw_an_tick(a, t + 1600000000ull);
	assert_int_equal(count("PathChange", 1), 1);
	e = &evs[n_ev - 1];
	assert_int_equal((int)number(e, "moved_flows"), 2);
	assert_int_equal((int)number(e, "moved_back"), 0);
	assert_int_equal(e->n_flows, 2);
	assert_int_equal(e->flows[0], evs[first("PathChange", 0)].flows[0]);
	hw_an_destroy(a);
}

/* Queue and drop reports from a switch before the sink carry the path up to that switch: no PathChange.
 * A sink report with the other spine is one. */
static void test_path_change_ignores_partial_paths(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE;
	struct hw_analyzer *a = mk();
	uint64_t t = 18000000000ull;
	const uint32_t nodes[2] = {10, 20}, ports[2] = {5, 7}, occ[2] = {300000, 300000};
	for (int i = 0; i < 5; i++, t += 1000)
		path_report(a, t, 20);
	report_flags = HW_RF_CONGESTED_QUEUE | HW_RF_INTERMEDIATE; /* TR v2.0 queue report from the spine */
	report_path(a, t, 2, nodes, ports, occ, path_src, 20);
	report_flags = HW_RF_CONGESTED_QUEUE; /* the same without the I flag (TR v1.0) */
	report_path(a, t + 1000, 2, nodes, ports, occ, path_src, 20);
	report_flags = HW_RF_DROPPED; /* a drop report from the spine */
	report_path(a, t + 2000, 2, nodes, ports, occ, path_src, 20);
	report_flags = HW_RF_TRACKED_FLOW | HW_RF_CONGESTED_QUEUE; /* sink reports */
	path_report(a, t + 3000, 20);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 0);
	path_report(a, t + 4000, 21);
	hw_an_finish(a);
	report_flags = 0;
	assert_int_equal(count("PathChange", 0), 1);
	hw_an_destroy(a);
}

/* A three-hop report whose hops have these occupancies. */
static void tree_report(struct hw_analyzer *a, uint64_t t, const uint32_t occ[3])
{
	const uint32_t nodes[3] = {10, 11, 12};
	report_path(a, t, 3, nodes, NULL, occ, 1, 0);
}

/* Congestion at the last hop only: no tree; then the two upstream queues congest on the same path: one
 * CongestionTree at the root (last hop) naming both victims, resolved with the root's HighQueue.  The
 * victims (15000 and 18000, above raise 10000, but upstream of the congested root on the report's path)
 * raise no HighQueue of their own: the root's HighQueue stays the only one. */
static void test_congestion_tree(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE;
	struct hw_analyzer *a = mk();
	uint64_t t = 23000000000ull;
	const uint32_t root_only[3] = {100, 100, 20000}, spread[3] = {15000, 18000, 20000}, calm[3] = {100, 100, 100};
	for (int i = 0; i < 30; i++, t += 10000)
		tree_report(a, t, root_only);
	assert_int_equal(count("HighQueue", 0), 1);
	assert_int_equal(count("CongestionTree", 0), 0);
	for (int i = 0; i < 30; i++, t += 10000)
		tree_report(a, t, spread);
	assert_int_equal(count("HighQueue", 0), 1);
	assert_int_equal(count("CongestionTree", 0), 1);
	const struct hw_an_event *e = &evs[first("CongestionTree", 0)];
	assert_int_equal(e->node_id, 12);
	assert_int_equal((int)number(e, "victims"), 2);
	assert_non_null(strstr(e->detail, "root 12:5/3, victims 10:5/3 11:5/3"));
	for (int i = 0; i < 200; i++, t += 10000)
		tree_report(a, t, calm);
	assert_int_equal(count("CongestionTree", 1), 1);
	assert_int_equal(count("CongestionTree", 0), 1);
	hw_an_destroy(a);
}

/* A firing tree that gathers a victim later updates its alert naming it.  As test_congestion_tree: the tree at
 * 12:5 is raised naming 10:5 and 11:5.  Then reports come over a longer path 9:5 -> 10:5 -> 11:5 -> 12:5 with 9:5
 * at 15000 (above the victim level, the HighQueue clear 8000): a third victim.  At the next tick its alert is
 * updated (same id, not a new raise): victims 3, the detail naming all three, 9:5 last (the order they came).
 * Later ticks, with no new victim, add nothing: one update. */
static void test_tree_names_later_victims(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE;
	struct hw_analyzer *a = mk();
	uint64_t t = 23500000000ull;
	const uint32_t root_only[3] = {100, 100, 20000}, spread[3] = {15000, 18000, 20000};
	const uint32_t longer[4] = {9, 10, 11, 12}, longer_occ[4] = {15000, 15000, 18000, 20000};
	for (int i = 0; i < 30; i++, t += 10000)
		tree_report(a, t, root_only);
	for (int i = 0; i < 30; i++, t += 10000)
		tree_report(a, t, spread);
	assert_int_equal(count("CongestionTree", 0), 1);
	const int raised = first("CongestionTree", 0);
	assert_int_equal((int)number(&evs[raised], "victims"), 2);
	const int before = n_ev;
	for (int i = 0; i < 250; i++, t += 10000) /* 2.5 ms: two ticks (every 1 ms of record time) at least */
		report_path(a, t, 4, longer, NULL, longer_occ, 1, 0);
	int updates = 0, last = -1;
	for (int i = before; i < n_ev; i++)
		if (!strcmp(evs[i].alertname, "CongestionTree") && evs[i].update && !evs[i].resolved)
			updates++, last = i;
	assert_int_equal(updates, 1);
	assert_int_equal(count("CongestionTree", 0), 1); /* an update, not a raise */
	assert_true(evs[last].id == evs[raised].id);
	assert_int_equal((int)number(&evs[last], "victims"), 3);
	assert_non_null(strstr(evs[last].detail, "root 12:5/3, victims 10:5/3 11:5/3 9:5/3"));
	hw_an_destroy(a);
}

/* An Incast whose root then spreads a tree: the tree's victims are data of the Incast, one alert.  Paths
 * 10:5 -> 11:5 -> 12:5 from sources 1..8 in turn, every 10 us; the root 12:5 drains as it fills (20000 and
 * 18000 in turn, above the incast level 10000, never frozen).  The 4th report brings the 4th source: Incast
 * (its raise, counted once).  Then 10:5 and 11:5 fill too (15000, 18000: above the victim level, the HighQueue
 * clear 8000): 2 victims (congestion_tree.victims) make the tree, which goes into the Incast as an update (an
 * Incast event again, same id, victims 2), no CongestionTree.  Calm: the Incast resolves once, and the count
 * of active Incasts is back to 0 (the update was not counted as a raise). */
static void test_tree_folds_into_incast(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE | 1u << HW_AN_INCAST;
	struct hw_analyzer *a = mk();
	uint64_t t = 24000000000ull;
	const uint32_t nodes[3] = {10, 11, 12}, calm[3] = {100, 100, 100};
	for (int i = 0; i < 30; i++, t += 10000) {
		const uint32_t root_only[3] = {100, 100, i % 2 ? 18000 : 20000};
		report_path(a, t, 3, nodes, NULL, root_only, (uint8_t)(1 + i % 8), 0);
	}
	assert_int_equal(count("Incast", 0), 1);
	assert_int_equal(count("CongestionTree", 0), 0);
	for (int i = 0; i < 30; i++, t += 10000) {
		const uint32_t spread[3] = {15000, 18000, i % 2 ? 18000 : 20000};
		report_path(a, t, 3, nodes, NULL, spread, (uint8_t)(1 + i % 8), 0);
	}
	assert_int_equal(count("CongestionTree", 0), 0);
	assert_int_equal(count("Incast", 0), 1);
	/* the tree's update of the Incast: the one with victims (the Incast's own, at 8 sources, has none) */
	int raise = first("Incast", 0), update = -1;
	for (int i = raise + 1; i < n_ev && update < 0; i++)
		for (unsigned k = 0; k < evs[i].n_numbers && evs[i].update; k++)
			if (!strcmp(evs[i].alertname, "Incast") && !strcmp(evs[i].numbers[k].name, "victims"))
				update = i;
	assert_true(update > raise);
	assert_true(evs[update].id == evs[raise].id && evs[update].start_ns == evs[raise].start_ns);
	assert_int_equal((int)number(&evs[update], "victims"), 2);
	assert_non_null(strstr(evs[update].detail, "root 12:5/3, victims"));
	for (int i = 0; i < 200; i++, t += 10000)
		report_path(a, t, 3, nodes, NULL, calm, 1, 0);
	assert_int_equal(count("Incast", 1), 1);
	assert_int_equal(count("CongestionTree", 1), 0);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.active[HW_AN_INCAST], 0);
	hw_an_destroy(a);
}

/* A two-hop report of one flow: node `up` port 5 (occupancy occ_up) then the root, node 12 port 5. */
static void two_hop(struct hw_analyzer *a, uint64_t t, uint32_t up, uint32_t occ_up, uint32_t occ_root)
{
	const uint32_t nodes[2] = {up, 12}, occ[2] = {occ_up, occ_root};
	report_path(a, t, 2, nodes, NULL, occ, (uint8_t)up, 0);
}

/* A tree of 3 queues on shared paths: flows from node 10 and from node 11 both end in queue 12:5/3, which
 * is congested (20000, HighQueue); the packets found 9000 bytes at 10:5 and 11:5, below HighQueue's raise
 * (10000) but above its clear level (8000), the default victim level.  Each path shows one victim; together
 * they make one CongestionTree at the root naming 2 victims, raised with the report that shows the second
 * (the first report after HighQueue's hold of 100 us that comes from node 11).  Upstream queues at 5000 are
 * not victims; with congestion_tree.victim_occupancy 4000 they are. */
static void test_congestion_tree_shared_paths(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE;
	struct hw_analyzer *a = mk();
	uint64_t t0 = 29000000000ull, t = t0;
	for (int i = 0; i < 40; i++, t += 10000) /* 10 us apart, alternating 10, 11, 10, ... */
		two_hop(a, t, (uint32_t)(10 + i % 2), 5000, 20000);
	assert_int_equal(count("HighQueue", 0), 1); /* the root only */
	assert_int_equal(count("CongestionTree", 0), 0);
	for (int i = 0; i < 40; i++, t += 10000)
		two_hop(a, t, (uint32_t)(10 + i % 2), 9000, 20000);
	hw_an_finish(a);
	assert_int_equal(count("HighQueue", 0), 1);
	assert_int_equal(count("CongestionTree", 0), 1);
	const struct hw_an_event *e = &evs[first("CongestionTree", 0)];
	assert_int_equal(e->node_id, 12);
	assert_int_equal(e->port, 5);
	assert_int_equal(e->queue, 3);
	assert_int_equal((int)number(e, "victims"), 2);
	assert_string_equal(e->detail, "root 12:5/3, victims 10:5/3 11:5/3");
	assert_int_equal(e->start_ns, t0 + 410000); /* reports at 400 us (node 10) and 410 us (node 11) */
	hw_an_destroy(a);

	cfg.tree_victim_occupancy = 4000;
	a = mk();
	t = t0;
	for (int i = 0; i < 40; i++, t += 10000)
		two_hop(a, t, (uint32_t)(10 + i % 2), 5000, 20000);
	assert_int_equal(count("CongestionTree", 0), 1);
	/* HighQueue is raised with the record at 100 us (hold_ns); the reports at 100 and 110 us show the victims */
	assert_int_equal(evs[first("CongestionTree", 0)].start_ns, t0 + 110000);
	hw_an_destroy(a);
}

/* A congested queue that reports show upstream of another congested queue is a victim, not a second root:
 * 11:5 (15000) sits on the path 11:5 -> 12:5 (20000), and reports ending at 11:5 (queue reports from node
 * 11) carry 9000 at 10:5 and 9500 at 13:5 upstream of it.  Taken alone those would make 11:5 a root with
 * 2 victims; instead there is one tree, at 12:5, naming 11:5 and 10:5 (2 = congestion_tree.victims), and
 * 13:5 joins it later (victims 3 when it resolves). */
static void test_congestion_tree_one_root(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE;
	struct hw_analyzer *a = mk();
	uint64_t t = 31000000000ull;
	for (int i = 0; i < 60; i++, t += 10000) {
		two_hop(a, t, 11, 15000, 20000);
		const uint32_t nodes[2] = {(uint32_t)(i % 2 ? 13 : 10), 11}, occ[2] = {i % 2 ? 9500u : 9000u, 15000};
		report_path(a, t + 5000, 2, nodes, NULL, occ, 7, 11); /* node 11 about a packet it holds */
	}
	assert_int_equal(count("HighQueue", 0), 2);
	assert_int_equal(count("CongestionTree", 0), 1);
	const struct hw_an_event *e = &evs[first("CongestionTree", 0)];
	assert_int_equal(e->node_id, 12);
	assert_int_equal((int)number(e, "victims"), 2);
	assert_string_equal(e->detail, "root 12:5/3, victims 11:5/3 10:5/3");
	for (int i = 0; i < 200; i++, t += 10000) /* calm: HighQueue and the tree resolve */
		two_hop(a, t, 11, 100, 100);
	assert_int_equal(count("CongestionTree", 1), 1);
	assert_int_equal((int)number(&evs[first("CongestionTree", 1)], "victims"), 3);
	assert_int_equal(count("CongestionTree", 0), 1);
	hw_an_destroy(a);
}

/* *t made from map alone and an analyzer that grows it as records name ports (run --map without LLDP); with_map 0:
 * an analyzer without topology or map (t is made all the same, for hw_topo_free). */
static struct hw_analyzer *map_only_analyzer(struct hw_topo *t, const struct hw_topo_map *map, int with_map)
{
	struct hw_topo_error terr = {0};
	hw_topo_init(t);
	assert_int_equal(hw_topo_from_map(t, map, &terr), HW_TOPO_OK);
	char err[256];
	n_ev = 0;
	struct hw_analyzer *a =
	    hw_an_create(&cfg, with_map ? t : NULL, with_map ? map : NULL, collect, NULL, err, sizeof(err));
	assert_non_null(a);
	if (with_map)
		hw_an_grow_topology(a, t);
	return a;
}

/* A map without LLDP (run --map alone): its ports are known, their links are not, so where 11:5 leads is what the
 * report paths through it say.  Ten two-hop reports 11:5 (100) -> 12:5 (20000), 10 us apart from t0, end before
 * 12:5's HighQueue (hold 100 us: raised with the record at t0 + 100 us) and so mark nothing; reports from node 12
 * alone (12:5 at 20000) from t0 + 100 us keep it high.  Then node 11 reports 11:5 at 15000 (above incast.occupancy
 * 10000) about sources 1..4, from t0 + 200 us: 4 sources, an Incast, unless 11:5 is a victim.  With the map's
 * topology 11:5 leads to node 12 (the paths), where 12:5 is in a HighQueue episode: a victim, no Incast (nor at
 * 12:5: one source).  Without a topology nothing says where 11:5 leads: Incast at 11:5. */
static void test_victim_by_paths_on_map_alone(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE | 1u << HW_AN_INCAST;
	struct hw_topo_map_node mn[2] = {{.node_id = 11, .name = "s11", .tier = -1},
	                                 {.node_id = 12, .name = "s12", .tier = -1}};
	struct hw_topo_map map = {.nodes = mn, .n_nodes = 2, .port_format = "Ethernet%u"};
	for (int with_map = 1; with_map >= 0; with_map--) {
		struct hw_topo t;
		struct hw_analyzer *a = map_only_analyzer(&t, &map, with_map);
		const uint64_t t0 = 35000000000ull;
		uint64_t ts = t0;
		const uint32_t n11[1] = {11}, n12[1] = {12}, o11[1] = {15000}, o12[1] = {20000};
		for (int i = 0; i < 10; i++, ts += 10000)
			two_hop(a, ts, 11, 100, 20000);
		for (int i = 0; i < 40; i++, ts += 10000) {
			report_path(a, ts, 1, n12, NULL, o12, 12, 12);
			if (ts >= t0 + 200000) { /* sink reports (F): 11:5 drains (test_incast_needs_drain) */
				report_flags = HW_RF_TRACKED_FLOW;
				report_path(a, ts + 1000, 1, n11, NULL, o11, (uint8_t)(1 + i % 4), 11);
				report_flags = 0;
			}
		}
		hw_an_finish(a);
		assert_int_equal(count("HighQueue", 0) >= 1, 1);
		assert_int_equal(count("Incast", 0), with_map ? 0 : 1);
		if (!with_map)
			assert_int_equal(evs[first("Incast", 0)].node_id, 11);
		hw_an_destroy(a);
		hw_topo_free(&t);
	}
}

/* The pause spreads hop by hop: 10:5 -> 11:5 -> 12:5 (a map without LLDP; the paths say where each leads).  Ten
 * three-hop reports 10:5 (100) -> 11:5 (100) -> 12:5 (root), 10 us apart from t0, end before 12:5's HighQueue could
 * be raised (hold 100 us, at t0 + 100 us at the earliest), so they say where the queues lead and mark nothing.  Then,
 * every 10 us, node 12 reports 12:5 (root) and node 11 reports 11:5 at 5000 (below the victim level, HighQueue's
 * clear 8000); from t0 + 200 us node 10 reports 10:5 at 15000 (above incast.occupancy 10000) about sources 1..4
 * (sink reports, so it drains: test_incast_needs_drain): 4 sources, an Incast at 10:5 unless it is a victim.
 * Root 20000: 12:5 in a HighQueue episode pauses 11:5, which pauses 10:5 (two links down): no Incast, whether or
 * not any detector asked about 11:5 before (Microburst off, then on: it never asks, 11:5 stays below its burst
 * level).  Root 100: nothing pauses 10:5: its Incast (node 10). */
static void test_victim_two_links_down(void **state)
{
	(void)state;
	struct hw_topo_map_node mn[3] = {{.node_id = 10, .name = "s10", .tier = -1},
	                                 {.node_id = 11, .name = "s11", .tier = -1},
	                                 {.node_id = 12, .name = "s12", .tier = -1}};
	struct hw_topo_map map = {.nodes = mn, .n_nodes = 3, .port_format = "Ethernet%u"};
	for (int k = 0; k < 3; k++) {
		const uint32_t root = k < 2 ? 20000 : 100;
		cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE | 1u << HW_AN_INCAST |
		              (k == 1 ? 1u << HW_AN_MICROBURST : 0u);
		struct hw_topo t;
		struct hw_analyzer *a = map_only_analyzer(&t, &map, 1);
		const uint64_t t0 = 36000000000ull;
		uint64_t ts = t0;
		const uint32_t path[3] = {10, 11, 12}, calm[3] = {100, 100, root};
		const uint32_t n10[1] = {10}, n11[1] = {11}, n12[1] = {12}, o10[1] = {15000}, o11[1] = {5000},
		               o12[1] = {root};
		for (int i = 0; i < 10; i++, ts += 10000)
			report_path(a, ts, 3, path, NULL, calm, 9, 0);
		for (int i = 0; i < 40; i++, ts += 10000) {
			report_path(a, ts, 1, n12, NULL, o12, 12, 12);
			report_path(a, ts + 500, 1, n11, NULL, o11, 11, 11);
			if (ts >= t0 + 200000) {
				report_flags = HW_RF_TRACKED_FLOW;
				report_path(a, ts + 1000, 1, n10, NULL, o10, (uint8_t)(1 + i % 4), 10);
				report_flags = 0;
			}
		}
		hw_an_finish(a);
		/* 12:5 (root 20000), 10:5 (its own when not a victim) */
		assert_int_equal(count("HighQueue", 0) >= 1, 1);
		assert_int_equal(count("Incast", 0), root == 100);
		if (root == 100)
			assert_int_equal(evs[first("Incast", 0)].node_id, 10);
		hw_an_destroy(a);
		hw_topo_free(&t);
	}
}

/* A tree handed to a silent root ends with it (CongestionTree's an_tick_arm: its tick visits only the armed
 * queues).  A map without LLDP; t0: two-hop reports 11:5 (100) -> 12:5 (100), 10 us
 * apart, say where 11:5 leads (node 12) and mark nothing (no HighQueue).  From t0 + 100 us node 11 reports 11:5 at
 * 15000 every 10 us (HighQueue raised at t0 + 200 us: 12:5 is not high then, so 11:5 is no victim), and from
 * t0 + 255 us node 12 reports 12:5 at 20000 (HighQueue at t0 + 355 us), its last record at t0 + 395 us.  Ticks: at
 * t0 (the first record), then at the first record 1 ms or more after the last tick: t0 + 1.01 ms (12:5 has records
 * since t0: visited, nothing to keep), t0 + 2.01 ms.  Node 11 then reports two packets it holds, 10:5 (9000) ->
 * 11:5 (15000) at t0 + 1.01 ms and 13:5 (9500) -> 11:5 at t0 + 1.02 ms: 11:5's 2nd victim, and 11:5 leads to 12:5,
 * high: the victims go to 12:5 with 11:5 (3), raised there at t0 + 1.02 ms (settle_root, raise_tree); no record of
 * 12:5 nor report through 11:5 after that.  Calm records at node 20 from t0 + 1.2 ms: the tick at t0 + 2.01 ms,
 * 1.615 ms after 12:5's last record (clear_ns 1 ms), ends its HighQueue and, in the same tick, its tree.  Without
 * the arms of settle_root and raise_tree no tick visits 12:5: no resolve (each arm alone suffices). */
static void test_tree_at_silent_root_resolves(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE;
	struct hw_topo_map_node mn[2] = {{.node_id = 11, .name = "s11", .tier = -1},
	                                 {.node_id = 12, .name = "s12", .tier = -1}};
	struct hw_topo_map map = {.nodes = mn, .n_nodes = 2, .port_format = "Ethernet%u"};
	struct hw_topo t;
	struct hw_analyzer *a = map_only_analyzer(&t, &map, 1);
	const uint64_t t0 = 36000000000ull;
	const uint32_t n11[1] = {11}, n12[1] = {12}, n20[1] = {20}, o11[1] = {15000}, o12[1] = {20000}, calm[1] = {100};
	for (uint64_t ts = t0; ts < t0 + 100000; ts += 10000)
		two_hop(a, ts, 11, 100, 100);
	for (uint64_t ts = t0 + 100000; ts < t0 + 400000; ts += 10000) {
		report_path(a, ts, 1, n11, NULL, o11, 1, 11);
		if (ts >= t0 + 250000)
			report_path(a, ts + 5000, 1, n12, NULL, o12, 2, 12);
	}
	assert_int_equal(count("HighQueue", 0), 2);
	for (int i = 0; i < 2; i++) {
		const uint32_t nodes[2] = {i ? 13u : 10u, 11}, occ[2] = {i ? 9500u : 9000u, 15000};
		report_path(a, t0 + 1010000 + (uint64_t)i * 10000, 2, nodes, NULL, occ, (uint8_t)(3 + i), 11);
	}
	for (uint64_t ts = t0 + 1200000; ts < t0 + 2500000; ts += 10000)
		report_path(a, ts, 1, n20, NULL, calm, 20, 20);
	assert_int_equal(count("CongestionTree", 0), 1);
	const struct hw_an_event *e = &evs[first("CongestionTree", 0)];
	assert_int_equal(e->node_id, 12);
	assert_int_equal((int)number(e, "victims"), 3);
	assert_int_equal(e->start_ns, t0 + 1020000);
	assert_int_equal(count("CongestionTree", 1), 1); /* before hw_an_finish: a tick ended it */
	e = &evs[first("CongestionTree", 1)];
	assert_int_equal(e->node_id, 12);
	assert_int_equal(e->end_ns, t0 + 2010000);
	int hq = -1; /* 12:5's HighQueue resolve */
	for (int i = 0; i < n_ev; i++)
		if (!strcmp(evs[i].alertname, "HighQueue") && evs[i].resolved && evs[i].node_id == 12)
			hq = i;
	assert_true(hq >= 0);
	assert_int_equal(evs[hq].end_ns, t0 + 2010000);
	hw_an_destroy(a);
	hw_topo_free(&t);
}

/* A map-only topology grows a port for every (node, port) a record names, however many: 40 switches in the map
 * (ids 1..40, "EthernetN"), each record names egress port p and ingress port p % 64 + 1 of node n for every n in
 * 1..40 and p in 1..64 (2,560 pairs: more than the analyzer's memory of the pairs named holds, so pairs share
 * slots and some are forgotten and named again), twice over.  By the records, every switch ends with the 64
 * ports Ethernet1..Ethernet64 and nothing else, and every record's queue is placed (5,120 records). */
static void test_map_only_grows_every_port(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	cfg.max_queues = 4096;
	struct hw_topo_map_node mn[40];
	memset(mn, 0, sizeof(mn));
	for (int i = 0; i < 40; i++) {
		mn[i].node_id = (uint32_t)(i + 1);
		mn[i].tier = -1;
		snprintf(mn[i].name, sizeof(mn[i].name), "s%d", i + 1);
	}
	struct hw_topo_map map = {.nodes = mn, .n_nodes = 40, .port_format = "Ethernet%u"};
	struct hw_topo t;
	struct hw_analyzer *a = map_only_analyzer(&t, &map, 1);
	uint64_t ts = 36000000000ull;
	uint32_t seq_no = 0;
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t n = 1; n <= 40; n++)
			for (uint32_t p = 1; p <= 64; p++, ts += 1000) {
				struct hw_record r;
				memset(&r, 0, sizeof(r));
				r.time_ns = ts;
				r.valid = HW_V_PORTS | HW_V_QUEUE;
				r.format = HW_FORMAT_TR20;
				r.report_node = n;
				r.report_seq = seq_no++;
				r.node_id = n;
				r.egress_port = p;
				r.ingress_port = p % 64 + 1;
				r.queue_occupancy = 100;
				r.path_len = 1;
				hw_an_ingest(a, &r, 1);
			}
	hw_an_finish(a);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.records, 5120);
	assert_int_equal(st.placed, 5120);
	assert_int_equal(st.unplaced, 0);
	assert_int_equal(t.n_ports, 40 * 64);
	for (uint32_t n = 1; n <= 40; n++) {
		const uint32_t node = hw_topo_find_node_by_id(&t, n);
		assert_int_not_equal(node, HW_TOPO_NONE);
		for (uint32_t p = 1; p <= 64; p++) {
			char ifname[32];
			snprintf(ifname, sizeof(ifname), "Ethernet%u", p);
			assert_int_not_equal(hw_topo_find_port_by_name(&t, node, ifname), HW_TOPO_NONE);
		}
	}
	hw_an_destroy(a);
	hw_topo_free(&t);
}

/* Sources converging on 12:5 through 11:5, both full: the Incast is where they converge (12:5, congested
 * first, in a HighQueue episode), not at 11:5, which reports show upstream of it (paused from downstream).
 * 12:5 drains as it fills (20000 and 18000 in turn: 2000 B apart, more than the 1 % of 10000 a frozen queue
 * stays within), so it is not a host that stopped draining (test_incast_not_storm). */
static void test_incast_not_upstream(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE | 1u << HW_AN_INCAST;
	struct hw_analyzer *a = mk();
	uint64_t t = 33000000000ull;
	const uint32_t nodes[2] = {11, 12};
	for (int i = 0; i < 20; i++, t += 10000) { /* 12:5 fills from one source: HighQueue after 100 us */
		const uint32_t calm_full[2] = {100, i % 2 ? 18000 : 20000};
		report_path(a, t, 2, nodes, NULL, calm_full, 1, 0);
	}
	for (int i = 0; i < 40; i++, t += 10000) { /* then 8 sources, and 11:5 fills too */
		const uint32_t full[2] = {20000, i % 2 ? 18000 : 20000};
		report_path(a, t, 2, nodes, NULL, full, (uint8_t)(1 + i % 8), 0);
	}
	assert_int_equal(count("Incast", 0), 1);
	assert_int_equal(evs[first("Incast", 0)].node_id, 12);
	hw_an_destroy(a);
}

/* 11:5 fills and drains within 30 us on the path 11:5 -> 12:5: a Microburst when 12:5 is calm, none when
 * 12:5 is congested (in a HighQueue episode): then 11:5 is paused from downstream, not hit by a burst. */
static int burst_upstream(uint32_t root_occ)
{
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE | 1u << HW_AN_MICROBURST;
	struct hw_analyzer *a = mk();
	uint64_t t = 35000000000ull;
	const uint32_t nodes[2] = {11, 12};
	uint32_t occ[2] = {100, root_occ};
	for (int i = 0; i < 20; i++, t += 10000)
		report_path(a, t, 2, nodes, NULL, occ, 1, 0);
	const uint32_t burst[4] = {20000, 20000, 20000, 100};
	for (int i = 0; i < 4; i++, t += 10000) {
		occ[0] = burst[i];
		report_path(a, t, 2, nodes, NULL, occ, 1, 0);
	}
	hw_an_finish(a);
	int n = count("Microburst", 0);
	hw_an_destroy(a);
	return n;
}

static void test_microburst_not_when_paused(void **state)
{
	(void)state;
	assert_int_equal(burst_upstream(100), 1);
	assert_int_equal(burst_upstream(20000), 0);
	/* queue 0 is lossy (fabric.lossless_queues: 3 and 4): it drops instead of being paused, so 12:5/0 being
	 * congested does not make 11:5/0 a victim, and its burst is its own */
	path_queue = 0;
	assert_int_equal(burst_upstream(20000), 1);
	path_queue = 3;
}

/* 8 sources on one congested queue: Incast; 2 sources: not.  The records are sink reports (F): the flows'
 * packets leave the queue, it drains (test_incast_needs_drain). */
static void test_incast(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_INCAST;
	report_flags = HW_RF_TRACKED_FLOW;
	struct hw_analyzer *a = mk();
	uint64_t t = 19000000000ull;
	for (int i = 0; i < 40; i++, t += 1000)
		feed(a, rec(t, 20000, 0, (uint8_t)(1 + i % 2)));
	assert_int_equal(count("Incast", 0), 0);
	for (int i = 0; i < 40; i++, t += 1000)
		feed(a, rec(t, 20000, 0, (uint8_t)(1 + i % 8)));
	assert_int_equal(count("Incast", 0), 1);
	assert_true(number(&evs[first("Incast", 0)], "sources") >= cfg.incast_sources);
	for (int i = 0; i < 200; i++, t += 10000)
		feed(a, rec(t, 100, 0, 1));
	assert_int_equal(count("Incast", 1), 1);
	assert_int_equal(count("Incast", 0), 1);
	hw_an_destroy(a);
	report_flags = 0;
}

/* An incast growing while it fires: sources 1..20 each once, 1 us apart, on a queue at 20000 (above the incast
 * level 10000), all within the 1 ms window.  incast.sources 4: raised at the 4th source saying 4; an update
 * each time the sources reach twice the count last sent: at 8 and at 16 (the next, 32, never comes); the
 * same id and start as the raise, not counted as raises; the resolve, after the queue drains, says 20. */
static void test_incast_updates_as_it_grows(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_INCAST;
	report_flags = HW_RF_TRACKED_FLOW; /* sink reports: the queue drains (test_incast_needs_drain) */
	struct hw_analyzer *a = mk();
	uint64_t t = 19000000000ull;
	for (int i = 1; i <= 20; i++, t += 1000)
		feed(a, rec(t, 20000, 0, (uint8_t)i));
	for (int i = 1; i <= 20; i++, t += 1000) /* the same sources again: no growth, no update */
		feed(a, rec(t, 20000, 0, (uint8_t)i));
	assert_int_equal(count("Incast", 0), 1);
	int raise = first("Incast", 0);
	assert_int_equal((int)number(&evs[raise], "sources"), 4);
	const int want[2] = {8, 16};
	int n_up = 0;
	for (int i = 0; i < n_ev; i++) {
		if (!evs[i].update)
			continue;
		assert_true(n_up < 2);
		assert_string_equal(evs[i].alertname, "Incast");
		assert_false(evs[i].resolved);
		assert_true(evs[i].id == evs[raise].id && evs[i].start_ns == evs[raise].start_ns && i > raise);
		assert_int_equal((int)number(&evs[i], "sources"), want[n_up++]);
	}
	assert_int_equal(n_up, 2);
	for (int i = 0; i < 200; i++, t += 10000)
		feed(a, rec(t, 100, 0, 1));
	assert_int_equal(count("Incast", 1), 1);
	assert_int_equal((int)number(&evs[first("Incast", 1)], "sources"), 20);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.active[HW_AN_INCAST], 0);
	assert_int_equal((int)st.events_raised, 1);
	hw_an_destroy(a);
	report_flags = 0;
}

/* A host that stopped draining (PFC storm) is not an incast.  Thresholds (setup): incast level 10000, HighQueue
 * clear 8000, hold_ns 100 us, 4 sources.  Storm: queue reports every 10 us for 300 us at a flat 12000 (frozen:
 * >= clear 8000 and within 1 % of the raise level, 100 B, for 100 us from t0, so from t0 + 100 us), naming the
 * one flow a queue report names.  Release: the backlog drains 12000 - 50 i (i = 0..39, every 10 us: 12000 ..
 * 10050, all >= 10000, moving 500 B per 100 us, never flat) from 8 sources, never below clear 8000: still the
 * storm's backlog, no Incast.  Then one sample at 7000 (< 8000: drained) and the same 40 samples again: now a
 * fan-in, one Incast.  The same 40 samples on a queue that never froze: 8 >= 4 sources above 10000, one Incast,
 * raised at the 4th source, resolved when the queue then freezes.  The 40 samples are sink reports (F): the
 * flows' packets leave the queue (test_incast_needs_drain). */
static void drain_8_sources(struct hw_analyzer *a, uint64_t t)
{
	report_flags = HW_RF_TRACKED_FLOW;
	for (int i = 0; i < 40; i++, t += 10000)
		feed(a, rec(t, (uint32_t)(12000 - 50 * i), 0, (uint8_t)(1 + i % 8)));
	report_flags = 0;
}

static void test_incast_not_storm(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_INCAST;
	struct hw_analyzer *a = mk();
	uint64_t t0 = 19000000000ull, t = t0;
	for (int i = 0; i < 30; i++, t += 10000)
		feed(a, rec(t, 12000, 0, 1));
	drain_8_sources(a, t);
	assert_int_equal(count("Incast", 0), 0);
	t += 400000;
	feed(a, rec(t, 7000, 0, 1));
	drain_8_sources(a, t + 10000);
	assert_int_equal(count("Incast", 0), 1);
	hw_an_destroy(a);

	a = mk();
	drain_8_sources(a, t);
	assert_int_equal(count("Incast", 0), 1);
	assert_int_equal(number(&evs[first("Incast", 0)], "sources"), 4); /* raised at the 4th source */
	/* then the host stops draining: flat at 12000 from f0 (1950 B away from the last sample, 10050), frozen
	 * 100 us later: the Incast resolves there */
	uint64_t f0 = t + 400000;
	for (int i = 0; i < 30; i++)
		feed(a, rec(f0 + (uint64_t)i * 10000, 12000, 0, 1));
	assert_int_equal(count("Incast", 1), 1);
	assert_true(evs[first("Incast", 1)].end_ns == f0 + 100000);
	hw_an_destroy(a);
}

/* An Incast needs the queue seen draining within high_queue.hold_ns (100 us), or to have waited 3 hold_ns (300 us)
 * for that without freezing: a host that stopped draining (a PFC storm) only fills its port's queue, and its queue
 * reports name the flows held there.  Thresholds (setup): incast level 10000, HighQueue clear 8000 and raise 10000
 * (a fall counts beyond 1 %: 100 B), 4 sources.  Queue reports (Q, no F) every 10 us from t0: sample i at
 * 9000 + 500 i (i = 0..39), about source 1 + i % 8.  At or above 10000 from i = 2 (sources 3, 4, 5, 6): 4 sources
 * at i = 5 (t0 + 50 us), where an Incast was raised before this rule.
 *  a) A departure (F) at t0 - 10 us at 5000, below clear (the queue was nearly empty), then the 40 samples:
 *     rising 500 B every 10 us (never flat: not frozen), nothing leaves: the Incast waits from t0 + 50 us and is
 *     raised 300 us later, at i = 35 (t0 + 350 us).
 *  b) The same with sample 20 (t0 + 200 us, 19000) a sink report (F: a packet of the flow left): Incast raised
 *     there, start t0 + 200 us, saying the sources by then (i = 2..20: all 8).
 *  c) Sample 20 instead falls to 18300, 200 B below sample 19 (18500 >= clear): raised there too.  A fall of 50
 *     B (18450: within the 100 B a flat queue moves) is not a departure: raised at t0 + 350 us as in a).
 *  d) The storm: from i = 15 (t0 + 150 us) flat at 16500; frozen 100 us later (t0 + 250 us), before the wait
 *     (until t0 + 350 us) is over: no Incast. */
static void fill_no_drain(struct hw_analyzer *a, uint64_t t0, int f_at, uint32_t occ20, int flat_from)
{
	for (int i = 0; i < 40; i++) {
		report_flags = i == f_at ? HW_RF_TRACKED_FLOW : HW_RF_CONGESTED_QUEUE;
		int k = flat_from >= 0 && i > flat_from ? flat_from : i;
		uint32_t occ = i == 20 && occ20 ? occ20 : (uint32_t)(9000 + 500 * k);
		feed(a, rec(t0 + (uint64_t)i * 10000, occ, 0, (uint8_t)(1 + i % 8)));
	}
	report_flags = 0;
}

static void test_incast_needs_drain(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_INCAST;
	const uint64_t t0 = 21000000000ull;
	struct hw_analyzer *a = mk();
	report_flags = HW_RF_TRACKED_FLOW;
	feed(a, rec(t0 - 10000, 5000, 0, 1));
	fill_no_drain(a, t0, -1, 0, -1);
	assert_int_equal(count("Incast", 0), 1);
	assert_int_equal(evs[first("Incast", 0)].start_ns, t0 + 350000);
	hw_an_destroy(a);

	a = mk();
	fill_no_drain(a, t0, 20, 0, -1);
	assert_int_equal(count("Incast", 0), 1);
	assert_int_equal(evs[first("Incast", 0)].start_ns, t0 + 200000);
	assert_int_equal((int)number(&evs[first("Incast", 0)], "sources"), 8);
	hw_an_destroy(a);

	const uint32_t fall[2] = {18300, 18450};
	for (int k = 0; k < 2; k++) {
		a = mk();
		fill_no_drain(a, t0, -1, fall[k], -1);
		assert_int_equal(count("Incast", 0), 1);
		assert_int_equal(evs[first("Incast", 0)].start_ns, t0 + (k ? 350000 : 200000));
		hw_an_destroy(a);
	}

	a = mk();
	fill_no_drain(a, t0, -1, 0, 15);
	hw_an_finish(a);
	assert_int_equal(count("Incast", 0), 0);
	hw_an_destroy(a);
}

static struct hw_record roce(uint64_t t, uint8_t opcode, uint8_t dscp, uint8_t queue)
{
	struct hw_record r = rec(t, 100, 0, 1);
	r.valid |= HW_V_ROCE | HW_V_TCLASS;
	r.roce_opcode = opcode;
	r.dscp = dscp;
	r.queue_id = queue;
	return r;
}

static void test_dscp_mismatch(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_DSCP_MISMATCH;
	struct hw_analyzer *a = mk();
	uint64_t t = 21000000000ull;
	feed(a, roce(t, 0x04, 26, 3));      /* RoCE data (SEND only) in its class */
	feed(a, roce(t + 10, 0x81, 48, 6)); /* CNP in its class */
	assert_int_equal(count("RoceDscpMismatch", 0), 0);
	for (int i = 0; i < 10; i++)
		feed(a, roce(t + 100 + (uint64_t)i, 0x04, 0, 0)); /* data with DSCP 0 in queue 0 */
	assert_int_equal(count("RoceDscpMismatch", 0), 1);
	const struct hw_an_event *e = &evs[first("RoceDscpMismatch", 0)];
	assert_int_equal((int)number(e, "dscp"), 0);
	assert_int_equal((int)number(e, "expected_dscp"), 26);
	assert_int_equal(e->node_id, 1);
	assert_int_equal(e->port, 1); /* the ingress port: facing the source host */
	assert_int_equal(e->queue, 0);
	hw_an_tick(a, t + 200000000ull);
	assert_int_equal(count("RoceDscpMismatch", 1), 1);
	feed(a, roce(t + 300000000ull, 0x81, 26, 3)); /* a CNP in the data class */
	assert_int_equal(count("RoceDscpMismatch", 0), 2);
	assert_int_equal((int)number(&evs[n_ev - 1], "expected_dscp"), 48);
	hw_an_destroy(a);
}

static void test_event_json(void **state)
{
	(void)state;
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	strcpy(e.alertname, "HighQueue");
	e.severity = "warning";
	e.id = 7;
	e.start_ns = 1;
	e.port = 3;
	e.queue = 2;
	strcpy(e.node, "leaf\"1");
	e.n_numbers = 1;
	e.numbers[0].name = "occupancy";
	e.numbers[0].value = 12345;
	e.n_flows = 1;
	e.flows[0] = 0xabc;
	char buf[1024];
	hw_an_event_json(&e, NULL, buf, sizeof(buf));
	json_error_t je;
	json_t *j = json_loads(buf, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "event")), "HighQueue");
	assert_string_equal(json_string_value(json_object_get(j, "node")), "leaf\"1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "numbers"), "occupancy")), 12345);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "flows"), 0)), "0000000000000abc");
	json_decref(j);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_config(void **state)
{
	(void)state;
	struct hw_an_config c;
	char err[512];
	const char *p = "test_analyzer_config.json";
	hw_an_config_default(&c);
	/* thresholds 0: derived per queue from the fabric section (100G hosts, 400G fabric, Xoff 400 KB) */
	assert_true(c.high_latency.raise == 0 && c.high_queue.raise == 0 && c.microburst_raise == 0);
	assert_true(c.fabric.host_gbps == 100 && c.fabric.fabric_gbps == 400 && c.fabric.xoff_bytes == 400e3);
	assert_int_equal(c.fabric.lossless_queues, 0x18); /* queues 3 and 4: 1 << 3 | 1 << 4 = 8 + 16 */
	assert_true(c.drops_ratio == 0.001 && c.seq_loss_ratio == 0.001);
	assert_int_equal(c.microburst_max_ns, 500000);
	write_file(p, "{\"high_queue\":{\"raise\":500,\"clear\":400},\"detectors\":{\"Microburst\":false}}");
	assert_int_equal(hw_an_config_load(&c, p, err, sizeof(err)), 0);
	assert_true(c.high_queue.raise == 500 && c.high_queue.clear == 400);
	assert_false(c.enabled & (1u << HW_AN_MICROBURST));
	assert_true(c.buildup_steep_from == 0.5 && c.tree_victim_occupancy == 0);
	write_file(p, "{\"queue_buildup\":{\"steep_from\":0.7},\"congestion_tree\":{\"victim_occupancy\":300000}}");
	assert_int_equal(hw_an_config_load(&c, p, err, sizeof(err)), 0);
	assert_true(c.buildup_steep_from == 0.7 && c.tree_victim_occupancy == 300000);
	write_file(p, "{\"high_queue\":{\"rise\":500}}");
	assert_int_equal(hw_an_config_load(&c, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "high_queue.rise: unknown key"));
	assert_non_null(strstr(err, p));
	write_file(p, "{\"hi_queue\":{}}");
	assert_int_equal(hw_an_config_load(&c, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "hi_queue: unknown key"));
	write_file(p, "{\"incast\":{\"sources\":-3}}");
	assert_int_equal(hw_an_config_load(&c, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "incast.sources"));
	write_file(p, "{\"detectors\":{\"Nope\":true}}");
	assert_int_equal(hw_an_config_load(&c, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "detectors.Nope"));
	/* a whole number far beyond any integer (4e97 ns): refused as out of range, no cast of it to an integer
	 * on the way (fuzz_analyzer_config found one under UBSan) */
	write_file(p, "{\"high_queue\":{\"hold_ns\":40e96}}");
	assert_int_equal(hw_an_config_load(&c, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "high_queue.hold_ns"));
	assert_non_null(strstr(err, "out of range"));
	remove(p);
}

/* The queue table is bounded: more distinct queues than max_queues are counted, not stored. */
/* Ticks visit only the armed queues, those with something left to time out (detector.h tick_armed: armed by the
 * record that raised the episode, AN_RECORD_ARMING): three HighQueue episodes on queues 0, 65 and 129 of 130
 * (three words of the tick bitmaps), then records of queue 1 alone.  Each episode resolves at the first tick clear_ns
 * (1 ms, the default) or more after its last record: ticks come every millisecond of record time at a record (every 100
 * us here), so between 1 ms and 1 ms + 1 ms + 100 us after it; all three in one tick, in table order (what a walk of
 * every queue gives).  A tick that visited only the queues with a record since the last one would resolve none. */
static void test_tick_resolves_idle_queues(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	struct hw_analyzer *a = mk();
	const uint64_t t0 = 5000000000ull;
	for (uint32_t p = 0; p < 130; p++) /* queue index = port: made in this order */
		feed(a, rec_pq(t0 - 1000 + p, p, 3, 100));
	const uint32_t hot[3] = {0, 65, 129};
	const uint64_t at[3] = {t0, t0 + 50000, t0 + 150000}; /* above 10,000 for 150 us >= hold_ns 100 us */
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 3; i++)
			feed(a, rec_pq(at[k], hot[i], 3, 20000));
	assert_int_equal(count("HighQueue", 0), 3);
	const uint64_t last = t0 + 150000;
	for (uint64_t t = last + 100000; t <= last + 3000000; t += 100000)
		feed(a, rec_pq(t, 1, 3, 100));
	assert_int_equal(count("HighQueue", 1), 3);
	int k = 0;
	for (int i = 0; i < n_ev; i++) {
		if (!evs[i].resolved)
			continue;
		assert_int_equal(evs[i].port, hot[k]);
		assert_true(evs[i].end_ns >= last + 1000000);
		assert_true(evs[i].end_ns <= last + 2100000);
		assert_true(evs[i].end_ns == evs[first("HighQueue", 1)].end_ns);
		k++;
	}
	hw_an_destroy(a);
}

static void test_bounded_queues(void **state)
{
	(void)state;
	cfg.max_queues = 4;
	struct hw_analyzer *a = mk();
	for (uint32_t i = 0; i < 10; i++) {
		struct hw_record r = rec(1000 + i, 1, 0, 1);
		r.egress_port = i;
		feed(a, r);
	}
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.queues, 4);
	assert_int_equal(st.queues_dropped, 6);
	hw_an_destroy(a);
}

/* Events wait in the analyzer's queue and reach the emit callback when hw_an_ingest returns: the callback
 * sees the analyzer after the whole call; with hw_an_deliver_per_step, after the step that raised it. */
static struct hw_analyzer *seen_by;
static uint64_t now_at_emit[4];
static int n_at_emit;

static void note_now(void *ctx, const struct hw_an_event *e)
{
	(void)ctx;
	(void)e;
	if (n_at_emit < 4)
		now_at_emit[n_at_emit++] = hw_an_now(seen_by);
}

static void test_events_after_ingest(void **state)
{
	(void)state;
	char err[256];
	uint64_t t0 = 1000000000000ull;
	/* 21 records of one queue, 10 us apart, occupancy 20000 (>= high_queue.raise 10000) from t0 on: HighQueue
	 * is raised at the first record at least hold_ns (100 us) after t0, record 10 (t0 + 100 us); the batch
	 * ends with record 20 (t0 + 200 us).  No other detector fires: the occupancy is flat (no buildup), it never
	 * falls (no microburst), one source (no incast), no drops, one-hop reports (no path change, no tree). */
	struct hw_record r[21];
	for (int per_step = 0; per_step < 2; per_step++) {
		seq = 0;
		for (int i = 0; i <= 20; i++)
			r[i] = rec(t0 + (uint64_t)i * 10000, 20000, 500, 1);
		seen_by = hw_an_create(&cfg, NULL, NULL, note_now, NULL, err, sizeof(err));
		assert_non_null(seen_by);
		hw_an_deliver_per_step(seen_by, per_step);
		n_at_emit = 0;
		hw_an_ingest(seen_by, r, 21);
		assert_int_equal(n_at_emit, 1);
		if (per_step)
			assert_int_equal(now_at_emit[0], t0 + 100000); /* record 10, the raise */
		else
			assert_int_equal(now_at_emit[0], t0 + 200000); /* record 20, the end of the call */
		hw_an_destroy(seen_by);
	}
}

/* The BMv2 line s1 > s2 > s3 (nodes 10, 20, 30): the sink's reports (F) carry 3 hops; the transit s2's
 * queue reports came as Q+F without I and carry 2 hops (10:5, 20:7).  Compared with the first 2 hops of the
 * flow's path they agree: no PathChange (the analyzer raised `10:5>20:7>30:9 -> 10:5>20:7` five times).
 * A Q+F 2-hop report through spine 21 at t1 disagrees with the prefix: still no alert by itself; the sink's
 * report through 21 at t1 + 5000 then raises one, starting at t1, the first evidence. */
static void test_path_change_transit_prefix(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE;
	struct hw_analyzer *a = mk();
	uint64_t t = 40000000000ull;
	const uint32_t via20[2] = {10, 20}, via21[2] = {10, 21}, ports[2] = {5, 7}, occ[2] = {100, 63};
	report_flags = HW_RF_TRACKED_FLOW;
	path_report(a, t, 20);
	t += 1000;
	for (int i = 0; i < 5; i++, t += 1000) {
		report_flags = HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW; /* s2's, no I */
		report_path(a, t, 2, via20, ports, occ, path_src, 20);
		report_flags = HW_RF_TRACKED_FLOW;
		path_report(a, t + 500, 20);
	}
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 0);
	const uint64_t t1 = t;
	report_flags = HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW;
	report_path(a, t1, 2, via21, ports, occ, path_src, 21);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 0); /* a prefix never raises by itself */
	report_flags = HW_RF_TRACKED_FLOW;
	path_report(a, t1 + 5000, 21);
	hw_an_finish(a);
	report_flags = 0;
	assert_int_equal(count("PathChange", 0), 1);
	const struct hw_an_event *e = &evs[first("PathChange", 0)];
	assert_int_equal(e->start_ns, t1);
	assert_int_equal(e->node_id, 20); /* the hop left: 20:7 */
	assert_int_equal(e->port, 7);
	hw_an_destroy(a);
}

/* Three flows (sources 1, 2, 3) leave spine 20 for spine 21 at t0 + 1000, + 2000, + 3000: one PathChange at
 * 20:7, raised gather_ns (1 ms) after the first move with moved_flows 3.  They move back at t0 + 2 ms,
 * + 2 ms + 1000, + 2 ms + 2000: the alert resolves with the last one back (t0 + 2 ms + 2000), moved_back 3. */
static void test_path_change_one_per_cause_and_back(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE;
	struct hw_analyzer *a = mk();
	const uint64_t t0 = 50000000000ull;
	for (uint8_t s = 1; s <= 3; s++) {
		path_src = s;
		path_report(a, t0 - 10000 + s, 20);
	}
	for (uint8_t s = 1; s <= 3; s++) {
		path_src = s;
		path_report(a, t0 + 1000ull * s, 21);
	}
	path_src = 4; /* a fourth flow's first report: the third move is judged when the next report starts */
	path_report(a, t0 + 4000, 20);
	hw_an_tick(a, t0 + 500000); /* 0.5 ms after the first move: still gathering */
	assert_int_equal(count("PathChange", 0), 0);
	for (uint8_t s = 1; s <= 3; s++) {
		path_src = s;
		path_report(a, t0 + 2000000 + 1000ull * (s - 1), 20);
	}
	hw_an_finish(a);
	path_src = 1;
	assert_int_equal(count("PathChange", 0), 1);
	assert_int_equal(count("PathChange", 1), 1);
	const struct hw_an_event *r = &evs[first("PathChange", 0)], *c = &evs[first("PathChange", 1)];
	assert_int_equal((int)number(r, "moved_flows"), 3);
	assert_int_equal(r->n_flows, 3);
	assert_int_equal(r->start_ns, t0 + 1000);
	assert_int_equal(r->id, c->id);
	assert_int_equal((int)number(c, "moved_back"), 3);
	assert_int_equal(c->end_ns, t0 + 2002000);
	hw_an_destroy(a);
}

/* A report of flow src (source host) at time t over n hops {node, ingress port, egress port}. */
static void hops_report(struct hw_analyzer *a, uint64_t t, uint8_t src, int n, const uint32_t hops[][3])
{
	uint32_t s = seq;
	for (int h = 0; h < n; h++) {
		struct hw_record r = rec(t, 100, 0, src);
		r.report_seq = s;
		r.report_node = hops[n - 1][0];
		r.node_id = hops[h][0];
		r.ingress_port = hops[h][1];
		r.egress_port = hops[h][2];
		r.hop_index = (uint8_t)h;
		r.path_len = (uint8_t)n;
		hw_an_ingest(a, &r, 1);
	}
	seq = s + 1;
}

/* Leaves 101, 102, 103 and spines 201, 202; leaf port 1 goes to spine 201, port 2 to spine 202 (the same
 * number both ways), spine port k to leaf 10k, hosts on leaf port 9 (ingress 8).  The link 103:2--202:3
 * goes down.  Flows A (101 -> 103), B (103 -> 101) and D (102 -> 103) crossed it and move to spine 201; flow
 * C (102 -> 101, over 201) is rehashed to 202 without having crossed it.  The links each move left (old
 * hops whose node and egress port the new path does not take):
 *   A: 101:2--202:1, 202:3--103:2      B: 103:2--202:3, 202:1--101:2
 *   C: 102:1--201:2, 201:1--101:1      D: 102:2--202:2, 202:3--103:2
 * 202:3--103:2 was left by A, B and D (3), 101:2--202:1 by A and B (2, and C's new path takes it), the
 * others by one: one PathChange for the four moves (within gather_ns of each other), placed where A left the
 * failed link (node 202, port 3), crossed 3, moved_flows 4.  All four move back: resolved, moved_back 4. */
static void test_path_change_link_down_one_alert(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE;
	struct hw_analyzer *a = mk();
	const uint32_t a_old[3][3] = {{101, 8, 2}, {202, 1, 3}, {103, 2, 9}},
	               a_new[3][3] = {{101, 8, 1}, {201, 1, 3}, {103, 1, 9}};
	const uint32_t b_old[3][3] = {{103, 8, 2}, {202, 3, 1}, {101, 2, 9}},
	               b_new[3][3] = {{103, 8, 1}, {201, 3, 1}, {101, 1, 9}};
	const uint32_t c_old[3][3] = {{102, 8, 1}, {201, 2, 1}, {101, 1, 9}},
	               c_new[3][3] = {{102, 8, 2}, {202, 2, 1}, {101, 2, 9}};
	const uint32_t d_old[3][3] = {{102, 8, 2}, {202, 2, 3}, {103, 2, 9}},
	               d_new[3][3] = {{102, 8, 1}, {201, 2, 3}, {103, 1, 9}};
	const uint32_t(*olds[4])[3] = {a_old, b_old, c_old, d_old}, (*news[4])[3] = {a_new, b_new, c_new, d_new};
	const uint64_t t0 = 60000000000ull;
	for (int f = 0; f < 4; f++)
		hops_report(a, t0 + (uint64_t)f, (uint8_t)(f + 1), 3, olds[f]);
	for (int f = 0; f < 4; f++) /* 100 us apart */
		hops_report(a, t0 + 100000 + 100000ull * (uint64_t)f, (uint8_t)(f + 1), 3, news[f]);
	for (int f = 0; f < 4; f++) /* back 10 ms later */
		hops_report(a, t0 + 10000000 + (uint64_t)f, (uint8_t)(f + 1), 3, olds[f]);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 1);
	assert_int_equal(count("PathChange", 1), 1);
	const struct hw_an_event *r = &evs[first("PathChange", 0)], *c = &evs[first("PathChange", 1)];
	assert_int_equal(r->node_id, 202);
	assert_int_equal(r->port, 3);
	assert_int_equal((int)number(r, "moved_flows"), 4);
	assert_int_equal((int)number(r, "crossed"), 3);
	assert_int_equal(r->n_flows, 4);
	assert_non_null(strstr(r->detail, "left link 202:3--103:2"));
	assert_int_equal((int)number(c, "moved_back"), 4);
	assert_int_equal(c->end_ns, t0 + 10000003); /* the last one back (D) */
	hw_an_destroy(a);
}

/* A flow first seen in a transit's Q+F report without I (2 hops: 10:5, 20:7), then in its sink's report
 * (3 hops: 10:5, 20:7, 30:9): the sink's path extends the one known, so the path completed, no move.  A
 * later sink report through spine 21 is a move. */
static void test_path_change_transit_first(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE;
	struct hw_analyzer *a = mk();
	const uint32_t via20[2] = {10, 20}, ports[2] = {5, 7}, occ[2] = {100, 63};
	uint64_t t = 70000000000ull;
	report_flags = HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW;
	report_path(a, t, 2, via20, ports, occ, path_src, 20);
	report_flags = HW_RF_TRACKED_FLOW;
	path_report(a, t + 1000, 20);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 0);
	path_report(a, t + 2000, 21);
	hw_an_finish(a);
	report_flags = 0;
	assert_int_equal(count("PathChange", 0), 1);
	hw_an_destroy(a);
}

/* The BMv2 line of p4/README.md as issue #23 ran it: h1 > s1 > s2 > s3 > h2, nodes 1, 2, 3, each switch in on
 * port 1 and out on port 2.  Per packet of one flow: s2's queue report (2 hops, 1:2>2:2; Q F I as the program
 * sends it now, Q F without I as tests/p4/data has it), then the sink s3's report (3 hops, 1:2>2:2>3:2; F,
 * or Q F when s3's own queue is congested), and once s2's drop report (D F, TTL expired: 2 hops, s2's egress
 * none).  The flow's first report is s2's.  None of them moves the flow: 0 PathChange (the analyzer raised
 * "path 1:2>2:2>3:2 -> 1:2>2:2" five times).  Then s1 sends the flow out of port 4 through s4 (node 4) to
 * s3: 1:4>4:2>3:2.  s4's I report (1:4>4:2) at t1 raises nothing by itself; the sink's report at t1 + 500
 * does: one PathChange starting at t1 (the first evidence), placed at 1:2, the first of the two links the
 * move left (1:2--2:1 and 2:2--3:1, one move each: a tie goes to the first seen; the new path takes
 * neither).  Later reports of the new path, I or not, raise nothing more. */
static void test_path_change_bmv2_line(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE;
	struct hw_analyzer *a = mk();
	const unsigned Q = HW_RF_CONGESTED_QUEUE, F = HW_RF_TRACKED_FLOW, I = HW_RF_INTERMEDIATE;
	const uint32_t line3[3] = {1, 2, 3}, line2[2] = {1, 2}, out3[3] = {2, 2, 2}, out2[2] = {2, 2};
	const uint32_t drop_out[2] = {2, HW_PORT_NONE}, occ[3] = {3, 63, 5};
	uint64_t t = 90000000000ull;
	for (int pkt = 0; pkt < 10; pkt++, t += 10000) {
		report_flags = (uint8_t)(Q | F | (pkt % 2 ? 0 : I)); /* s2: the path so far */
		report_path(a, t, 2, line2, out2, occ, path_src, 2);
		report_flags = (uint8_t)(F | (pkt % 3 ? 0 : Q)); /* s3, the sink: the whole path */
		report_path(a, t + 500, 3, line3, out3, occ, path_src, 3);
	}
	report_flags = HW_RF_DROPPED | HW_RF_TRACKED_FLOW; /* s2 drops one in ingress: no egress port */
	report_path(a, t, 2, line2, drop_out, occ, path_src, 2);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 0);

	const uint64_t t1 = t + 10000;
	const uint32_t via4_3[3] = {1, 4, 3}, via4_2[2] = {1, 4}, out4_3[3] = {4, 2, 2}, out4_2[2] = {4, 2};
	report_flags = (uint8_t)(Q | F | I); /* s4's queue report: the new path so far */
	report_path(a, t1, 2, via4_2, out4_2, occ, path_src, 4);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 0); /* a path so far never raises by itself */
	report_flags = (uint8_t)F;
	report_path(a, t1 + 500, 3, via4_3, out4_3, occ, path_src, 3);
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 1);
	const struct hw_an_event *e = &evs[first("PathChange", 0)];
	assert_int_equal(e->start_ns, t1);
	assert_int_equal(e->node_id, 1);
	assert_int_equal(e->port, 2);
	assert_int_equal((int)number(e, "moved_flows"), 1);
	assert_non_null(strstr(e->detail, "left link 1:2--2:1"));
	assert_non_null(strstr(e->detail, "path 1:2>2:2>3:2 -> 1:4>4:2>3:2"));
	for (int pkt = 0; pkt < 5; pkt++) {
		const uint64_t tp = t1 + 10000 * (uint64_t)(pkt + 1);
		report_flags = (uint8_t)(Q | F | (pkt % 2 ? 0 : I));
		report_path(a, tp, 2, via4_2, out4_2, occ, path_src, 4);
		report_flags = (uint8_t)(F | Q);
		report_path(a, tp + 500, 3, via4_3, out4_3, occ, path_src, 3);
	}
	hw_an_finish(a);
	report_flags = 0;
	assert_int_equal(count("PathChange", 0), 1);
	hw_an_destroy(a);
}

/* A TR v0.5 postcard (tracked flow) of RoCE data with DSCP dscp from switch node (ingress 1, egress port). */
static void postcard(struct hw_analyzer *a, uint64_t t, uint32_t node, uint32_t port, uint8_t dscp)
{
	struct hw_record r = roce(t, 0x04, dscp, 0);
	r.format = HW_FORMAT_TR05;
	r.report_flags = HW_RF_POSTCARD | HW_RF_TRACKED_FLOW;
	r.report_node = r.node_id = node;
	r.egress_port = port;
	hw_an_ingest(a, &r, 1);
}

/* Postcards (postcards.window_ns 50 us): each packet of flow 1 is reported by switches 10, 20, 30 at
 * t, t + 11, t + 22 (arrival order = path order), packets 111 us apart (more than the window: each packet
 * is complete before the next).  Packets 1-3 take 10:5>20:7>30:9, packets 4-5 10:5>21:7>30:9: the assembled
 * paths make one PathChange at the link 20:7 left (20:7--30:1), when packet 5 confirms packet 4's path,
 * starting at packet 4.  The flow's RoCE data has DSCP 0 (expected
 * 26): one RoceDscpMismatch, at the first hop (node 10) only, not at 20, 21 or 30. */
static void test_postcards_assemble_paths(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_PATH_CHANGE | 1u << HW_AN_DSCP_MISMATCH;
	struct hw_analyzer *a = mk();
	uint64_t t = 80000000000ull;
	for (int pkt = 0; pkt < 5; pkt++, t += 111000) {
		postcard(a, t, 10, 5, 0);
		postcard(a, t + 11, pkt < 3 ? 20 : 21, 7, 0);
		postcard(a, t + 22, 30, 9, 0);
	}
	hw_an_finish(a);
	assert_int_equal(count("PathChange", 0), 1);
	const struct hw_an_event *e = &evs[first("PathChange", 0)];
	assert_int_equal(e->node_id, 20);
	assert_int_equal(e->port, 7);
	assert_int_equal((int)number(e, "moved_flows"), 1);
	assert_int_equal(e->start_ns, 80000000000ull + 3 * 111000); /* packet 4's first postcard */
	assert_int_equal(count("RoceDscpMismatch", 0), 1);
	assert_int_equal(evs[first("RoceDscpMismatch", 0)].node_id, 10);
	hw_an_destroy(a);
}

/* Units from the map: node 1 is a BMv2 switch (time in us, occupancy in packets of 1500 B).  A record with
 * hop latency 1200 (us) and occupancy 10 (packets) is 1,200,000 ns and 15,000 bytes: above HighQueue's
 * raise (10,000 B, setup) and HighHopLatency's (1,000,000 ns), so each fires after its hold (100 us: records
 * every 10 us); without the map the same records (1200 ns, 10 B) raise nothing.  Each detector is run on its
 * own: HighHopLatency is not raised while HighQueue holds the same queue (it would repeat the same fact). */
static void test_units_from_map(void **state)
{
	(void)state;
	struct hw_topo_map_node node = {.node_id = 1, .name = "s1", .tier = -1, .units = {1000, 1500}};
	struct hw_topo_map map = {.nodes = &node, .n_nodes = 1};
	static const struct {
		enum hw_an_kind kind;
		const char *name, *number;
		int value;
	} k[2] = {{HW_AN_HIGH_QUEUE, "HighQueue", "occupancy", 15000},
	          {HW_AN_HIGH_LATENCY, "HighHopLatency", "hop_latency", 1200000}};
	for (int d = 0; d < 2; d++) {
		cfg.enabled = 1u << k[d].kind;
		for (int with_map = 0; with_map < 2; with_map++) {
			n_ev = 0;
			char err[256];
			struct hw_analyzer *a =
			    hw_an_create(&cfg, NULL, with_map ? &map : NULL, collect, NULL, err, sizeof(err));
			assert_non_null(a);
			uint64_t t = 90000000000ull;
			for (int i = 0; i < 30; i++, t += 10000)
				feed(a, rec(t, 10, 1200, 1));
			hw_an_finish(a);
			assert_int_equal(count(k[d].name, 0), with_map);
			if (with_map)
				assert_int_equal((int)number(&evs[first(k[d].name, 0)], k[d].number), k[d].value);
			hw_an_destroy(a);
		}
	}
}

/* Units from the configuration ("units" section), for nodes the map gives none.  The same records as above
 * (hop latency 1200, occupancy 10 on node 1):
 * - {"target": "bmv2"}: 1200 us = 1,200,000 ns and 10 packets * 1500 B = 15,000 B, so HighQueue fires at
 *   15000 (above setup's 10,000 B raise);
 * - {"occupancy_unit": "cells", "unit_bytes": 2000}: 10 * 2000 = 20,000 B (time stays ns);
 * - {"target": "bmv2"} with a map entry for node 1 saying ns and bytes ({1, 1}): the map wins, 10 B, no
 *   HighQueue.
 * A unit the map file would refuse is refused here too, naming the file and "units". */
static void test_units_from_config(void **state)
{
	(void)state;
	char err[512];
	const char *p = "test_analyzer_units.json";
	struct hw_topo_map_node node = {.node_id = 1, .name = "s1", .tier = -1, .units = {1, 1}};
	struct hw_topo_map map = {.nodes = &node, .n_nodes = 1};
	static const struct {
		const char *json;
		int with_map, fires, occupancy;
	} k[3] = {{"{\"units\":{\"target\":\"bmv2\"}}", 0, 1, 15000},
	          {"{\"units\":{\"occupancy_unit\":\"cells\",\"unit_bytes\":2000}}", 0, 1, 20000},
	          {"{\"units\":{\"target\":\"bmv2\"}}", 1, 0, 0}};
	const struct hw_an_config base = cfg;
	for (int i = 0; i < 3; i++) {
		cfg = base;
		cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
		write_file(p, k[i].json);
		assert_int_equal(hw_an_config_load(&cfg, p, err, sizeof(err)), 0);
		n_ev = 0;
		struct hw_analyzer *a =
		    hw_an_create(&cfg, NULL, k[i].with_map ? &map : NULL, collect, NULL, err, sizeof(err));
		assert_non_null(a);
		uint64_t t = 90000000000ull;
		for (int j = 0; j < 30; j++, t += 10000)
			feed(a, rec(t, 10, 1200, 1));
		hw_an_finish(a);
		assert_int_equal(count("HighQueue", 0), k[i].fires);
		if (k[i].fires)
			assert_int_equal((int)number(&evs[first("HighQueue", 0)], "occupancy"), k[i].occupancy);
		hw_an_destroy(a);
	}
	cfg = base;
	write_file(p, "{\"units\":{\"time_unit\":\"ms\"}}");
	assert_int_equal(hw_an_config_load(&cfg, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "units: time_unit"));
	assert_non_null(strstr(err, p));
	write_file(p, "{\"units\":{\"speed\":1}}");
	assert_int_equal(hw_an_config_load(&cfg, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "units.speed: unknown key"));
	cfg = base;
	remove(p);
}

/* Thresholds from the fabric (default configuration, no topology: the queue is not placed, so its link is
 * taken as a host link, fabric.host_gbps = 100).  Queue 3 is lossless (fabric.lossless_queues has bits 3 and
 * 4): HighQueue at PFC Xoff = 400000 bytes, HighHopLatency at the time 400000 bytes take at 100 Gb/s =
 * 400000 * 8 / 100 = 32000 ns.  Queue 0 is lossy: 40 % of the 1024000-byte buffer = 409600 bytes, and
 * 409600 * 8 / 100 = 32768 ns. */
static void test_thresholds_from_fabric(void **state)
{
	(void)state;
	hw_an_config_default(&cfg);
	struct hw_analyzer *a = mk();
	struct hw_record r = rec(1000, 100, 700, 1);
	feed(a, r);
	r.queue_id = 0;
	feed(a, r);
	assert_int_equal(hw_an_queue_count(a), 2);
	struct hw_an_queue_info qi;
	assert_int_equal(hw_an_queue_get(a, 0, &qi), 0);
	assert_int_equal(qi.queue, 3);
	assert_true(qi.raise == 400000 && qi.lat_raise == 32000);
	assert_int_equal(hw_an_queue_get(a, 1, &qi), 0);
	assert_int_equal(qi.queue, 0);
	assert_true(qi.raise == 409600 && qi.lat_raise == 32768);
	hw_an_destroy(a);
}

/* Thresholds from the map's fabric (default configuration, queues not placed: host links).  The map's top level
 * says 25G hosts, Xoff 200000, Xon 150000, a 2000000-byte lossy buffer; node 1's entry says its own Xoff 600000.
 *  - node 1, queue 3 (lossless): its Xoff, 600000; latency 600000 * 8 / 25 = 192000 ns;
 *  - node 1, queue 0 (lossy): 40 % of 2000000 = 800000; 800000 * 8 / 25 = 256000 ns;
 *  - node 2 (no entry), queue 3: the top level's Xoff, 200000; 200000 * 8 / 25 = 64000 ns;
 * and the analyzer's fabric (what QueueBuildup compares with) carries the top level's Xoff, 200000.  A
 * configured high_queue.raise (10000) still holds for every queue: the map describes, the user overrides. */
static void test_thresholds_from_map(void **state)
{
	(void)state;
	hw_an_config_default(&cfg);
	struct hw_topo_map_node node = {.node_id = 1, .name = "s1", .tier = -1, .fabric = {.xoff_bytes = 600000}};
	struct hw_topo_map map = {
	    .nodes = &node,
	    .n_nodes = 1,
	    .fabric = {.host_gbps = 25, .xoff_bytes = 200000, .xon_bytes = 150000, .lossy_buffer_bytes = 2000000}};
	for (int configured = 0; configured < 2; configured++) {
		cfg.high_queue.raise = configured ? 10000 : 0;
		cfg.high_queue.clear = configured ? 8000 : 0;
		char err[256];
		n_ev = 0;
		struct hw_analyzer *a = hw_an_create(&cfg, NULL, &map, collect, NULL, err, sizeof(err));
		assert_non_null(a);
		assert_true(hw_an_config_of(a)->fabric.xoff_bytes == 200000);
		struct hw_record r = rec(1000, 100, 700, 1);
		feed(a, r);
		r.queue_id = 0;
		feed(a, r);
		r.queue_id = 3;
		r.node_id = 2;
		feed(a, r);
		struct hw_an_queue_info qi;
		static const double want[3][2] = {{600000, 192000}, {800000, 256000}, {200000, 64000}};
		for (uint32_t i = 0; i < 3; i++) {
			assert_int_equal(hw_an_queue_get(a, i, &qi), 0);
			if (configured) /* 10000 * 8 / 25 = 3200 ns */
				assert_true(qi.raise == 10000 && qi.lat_raise == 3200);
			else
				assert_true(qi.raise == want[i][0] && qi.lat_raise == want[i][1]);
		}
		hw_an_destroy(a);
	}
	hw_an_config_default(&cfg);
}

/* A configured threshold holds for every queue: high_queue.raise 10000 (setup) on both classes, and the
 * latency stays derived from it: 10000 * 8 / 100 = 800 ns when high_hop_latency.raise is 0. */
static void test_thresholds_configured(void **state)
{
	(void)state;
	cfg.high_latency.raise = 0;
	struct hw_analyzer *a = mk();
	struct hw_record r = rec(1000, 100, 700, 1);
	feed(a, r);
	r.queue_id = 0;
	feed(a, r);
	struct hw_an_queue_info qi;
	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(hw_an_queue_get(a, i, &qi), 0);
		assert_true(qi.raise == 10000 && qi.lat_raise == 800);
	}
	hw_an_destroy(a);
}

/* HighQueue over a fraction of the window (raise 10000, clear 8000, hold 100 us, fraction 0.75): the window is
 * 16 slots of 6.25 us, so at t it covers [t - 100 us + 6.25 us, t) when t is on a slot edge (t0 = 1e9 ns =
 * 160000 slots).  High is from a sample >= raise until one below clear; each sample holds 10 us to the next.
 *  a) 20000 except every fifth (i % 5 == 4: 7000, below clear): at t0 + 100 us the run began at t0 (100 us
 *     old) and the window [t0 + 6.25, t0 + 100) us holds 93.75 us, 20 of them low ([40, 50) and [90, 100)):
 *     73.75 / 93.75 = 0.79 >= 0.75: raised there (sample 10, 20000), start t0.
 *  b) two of five at 7000 (i % 5 >= 3): 30 us high per 50 us, so any 93.75 us window holds at most 2 x 30 =
 *     60 us high: 0.64 < 0.75, never raised.
 *  c) 20000 and 9000 alternating (a lossless queue held at Xoff by PFC: 9000 is below raise, above clear):
 *     high all along, 1.0 at t0 + 100 us: raised there, start t0 (over the last hold_ns only half the
 *     samples are at or above raise). */
static void test_high_queue_fraction(void **state)
{
	(void)state;
	const uint64_t t0 = 1000000000;
	for (int c = 0; c < 3; c++) {
		struct hw_analyzer *a = mk();
		for (int i = 0; i <= 40; i++) {
			uint32_t v = c == 0   ? (i % 5 == 4 ? 7000 : 20000)
			             : c == 1 ? (i % 5 >= 3 ? 7000 : 20000)
			                      : (i % 2 ? 9000 : 20000);
			feed(a, rec(t0 + (uint64_t)i * 10000, v, 700, 1));
			if (i == 9)
				assert_int_equal(count("HighQueue", 0), 0); /* not before t0 + 100 us */
			if (i == 10)
				assert_int_equal(count("HighQueue", 0), c == 1 ? 0 : 1); /* a), c): at t0 + 100 us */
		}
		if (c == 1) {
			assert_int_equal(count("HighQueue", 0), 0);
		} else {
			assert_int_equal(count("HighQueue", 0), 1);
			int h = first("HighQueue", 0);
			assert_true(evs[h].start_ns == t0);
			assert_true(number(&evs[h], "occupancy") == 20000);
		}
		hw_an_destroy(a);
	}
}

/* HighQueue on sparse samples (raise 10000, clear 8000, hold 100 us, fraction 0.75, clear_ns 1 ms): each
 * sample's value holds until the next, so a queue reported every 300 us stays one run.
 *  a) 20000 at t0 and t0 + 300 us: at the second, the run began at t0 (300 us >= hold), the window holds
 *     min(300, 100) = 100 us seen, all of it above (the first sample's value): raised there, start t0.
 *  b) 20000 at t0, 5000 at t0 + 50 us (high 50 us: not raised), 20000 at t0 + 200, 250, 290 us: the sample
 *     below held 150 us >= hold, so the run ended and a new one began at t0 + 200 us: at t0 + 290 us it is
 *     90 us old, not raised (the window [t0 + 193.75, t0 + 290) us is 90 / 96.25 high, so a run kept from t0
 *     would raise here); 20000 at t0 + 300 us raises, start t0 + 200 us.
 *  c) 20000 at t0, then t0 + 1.2 ms, t0 + 1.5 ms: 1.2 ms of silence >= clear_ns ends the run (reports stop
 *     when the queue is below), the run restarts at t0 + 1.2 ms and raises at t0 + 1.5 ms, start t0 + 1.2 ms.
 *  d) 20000 at t0 and t0 + 50 us, 25000 at t0 + 90 us, 5000 at t0 + 100 us: high from t0 until t0 + 100 us,
 *     a whole hold_ns, judged at the sample that ends it: raised there, start t0, occupancy its peak 25000.
 *     The same with the drop at t0 + 95 us (high 95 us) is not raised. */
/* Feeds samples {us after t0, occupancy} of the test queue to a; the HighQueue raises so far. */
static int feed_us(struct hw_analyzer *a, uint64_t t0, const uint32_t (*s)[2], int n)
{
	for (int i = 0; i < n; i++)
		feed(a, rec(t0 + (uint64_t)s[i][0] * 1000, s[i][1], 700, 1));
	return count("HighQueue", 0);
}

static void test_high_queue_sparse_samples(void **state)
{
	(void)state;
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	const uint64_t t0 = 1000000000;
	static const uint32_t a1[][2] = {{0, 20000}}, a2[][2] = {{300, 20000}};
	static const uint32_t b1[][2] = {{0, 20000}, {50, 5000}, {200, 20000}, {250, 20000}, {290, 20000}},
	                      b2[][2] = {{300, 20000}};
	static const uint32_t c1[][2] = {{0, 20000}, {1200, 20000}}, c2[][2] = {{1500, 20000}};
	static const uint32_t d[][2] = {{0, 20000}, {50, 20000}, {90, 25000}, {95, 5000}, {100, 5000}};
	struct {
		const uint32_t (*before)[2], (*after)[2];
		int n_before, n_after;
		uint64_t start;
	} runs[] = {{a1, a2, 1, 1, t0}, {b1, b2, 5, 1, t0 + 200000}, {c1, c2, 2, 1, t0 + 1200000}};
	for (unsigned k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct hw_analyzer *a = mk();
		assert_int_equal(feed_us(a, t0, runs[k].before, runs[k].n_before), 0);
		assert_int_equal(feed_us(a, t0, runs[k].after, runs[k].n_after), 1);
		assert_true(evs[first("HighQueue", 0)].start_ns == runs[k].start);
		hw_an_destroy(a);
	}
	for (int drop = 95; drop <= 100; drop += 5) { /* d): the drop at 95 us (d[3]) or at 100 us (d[4]) */
		struct hw_analyzer *a = mk();
		assert_int_equal(feed_us(a, t0, d, 3), 0);
		assert_int_equal(feed_us(a, t0, drop == 95 ? &d[3] : &d[4], 1), drop == 100);
		if (drop == 100) {
			const struct hw_an_event *e = &evs[first("HighQueue", 0)];
			assert_true(e->start_ns == t0 && number(e, "occupancy") == 25000);
		}
		hw_an_destroy(a);
	}
}

/* One incident per root cause: HighQueue (raise 10000, clear 8000, hold 100 us, clear_ns 1 ms) above from t0
 * to t0 + 200 us raises at t0 + 100 us; 5000 from t0 + 210 us resolves it at t0 + 1210 us (1 ms below).  Above
 * again from t0 + 1300 us it raises at t0 + 1400 us, 190 us after the incident's last event (<= 1 ms): the
 * same incident, so the alert keeps its id (an update). */
static void test_incident_reraise_keeps_id(void **state)
{
	(void)state;
	const uint64_t t0 = 1000000000;
	struct hw_analyzer *a = mk();
	for (int i = 0; i <= 150; i++) {
		uint64_t us = (uint64_t)i * 10;
		feed(a, rec(t0 + us * 1000, (us <= 200 || us >= 1300) ? 20000 : 5000, 700, 1));
	}
	assert_int_equal(count("HighQueue", 0), 2);
	assert_int_equal(count("HighQueue", 1), 1);
	int f1 = -1, f2 = -1;
	for (int i = 0; i < n_ev; i++)
		if (strcmp(evs[i].alertname, "HighQueue") == 0 && !evs[i].resolved)
			*(f1 < 0 ? &f1 : &f2) = i;
	assert_true(evs[f1].start_ns == t0 && evs[f2].start_ns == t0 + 1300000);
	assert_true(evs[f1].incident != 0);
	assert_true(evs[f1].incident == evs[f2].incident);
	assert_true(evs[f1].id == evs[f2].id);
	hw_an_destroy(a);
}

/* The first raise of name at node (resolved 0); -1 when none. */
static int raised_at(const char *name, uint32_t node)
{
	for (int i = 0; i < n_ev; i++)
		if (strcmp(evs[i].alertname, name) == 0 && !evs[i].resolved && evs[i].node_id == node)
			return i;
	return -1;
}

/* A congestion tree's aftermath joins its incident (an_incident.c).  Paths 10:5 -> 11:5 -> 12:5 (queue 3,
 * lossless; HighQueue raise 10000, clear 8000, hold 100 us, clear_ns 1 ms) every 10 us from t0, from sources 1
 * and 2 in turn, for 400 us: the root 12:5 at 20000 raises HighQueue and a CongestionTree naming the two
 * upstream queues (15000 and 18000: above the victim level, the clear 8000), which hold flows 1 and 2.  From
 * t1 = t0 + 400 us the root stays at 20000 (its incident open) and, in run 1, the victims let go (100: below
 * their raise, released); 5 us after each of those reports, 13:5 -> 40:5 from source 1 finds 40:5 at 20000
 * and 14:5 -> 41:5 from source 3 finds 41:5 at 20000 (13:5 and 14:5 at 100).  Both raise HighQueue after the
 * 100 us hold.  40:5's recent flows are flow 1 alone, which the tree held at a queue that released it (1 of 1,
 * at least a third): the tree's backlog bursting on, the tree's incident.  41:5's flow 3 was never held: an
 * incident of its own.  Run 2: the same but the victims still hold (15000, 18000) while 40:5 fills: flow 1 is
 * still paused there, so 40:5's congestion is its own: another incident. */
static void aftermath_run(int release, uint64_t *tree_inc, uint64_t *inc40, uint64_t *inc41)
{
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE;
	struct hw_analyzer *a = mk();
	const uint64_t t0 = 31000000000ull, t1 = t0 + 400000;
	const uint32_t tree[3] = {10, 11, 12}, held[3] = {15000, 18000, 20000}, let_go[3] = {100, 100, 20000};
	const uint32_t to40[2] = {13, 40}, to41[2] = {14, 41}, fill[2] = {100, 20000};
	for (int i = 0; i < 40; i++)
		report_path(a, t0 + (uint64_t)i * 10000, 3, tree, NULL, held, (uint8_t)(1 + i % 2), 0);
	assert_int_equal(count("CongestionTree", 0), 1);
	for (int i = 0; i < 40; i++) {
		uint64_t t = t1 + (uint64_t)i * 10000;
		report_path(a, t, 3, tree, NULL, release ? let_go : held, (uint8_t)(1 + i % 2), 0);
		report_path(a, t + 5000, 2, to40, NULL, fill, 1, 0);
		report_path(a, t + 5000, 2, to41, NULL, fill, 3, 0);
	}
	int tr = raised_at("CongestionTree", 12), h40 = raised_at("HighQueue", 40), h41 = raised_at("HighQueue", 41);
	assert_true(tr >= 0 && h40 >= 0 && h41 >= 0);
	assert_true(evs[h40].start_ns == t1 + 5000); /* the run's first sample above */
	*tree_inc = evs[tr].incident;
	*inc40 = evs[h40].incident;
	*inc41 = evs[h41].incident;
	assert_true(evs[raised_at("HighQueue", 12)].incident == *tree_inc);
	hw_an_destroy(a);
}

/* A PFC storm's aftermath at the tree's own switches, and its bursts folded into the root's alert (an_incident.c).
 * The tree of aftermath_run (10:5 -> 11:5 -> 12:5, victims 10:5 and 11:5 holding flows 1 and 2, root 12:5 at
 * 20000 raising HighQueue and CongestionTree), then from t1 = t0 + 400 us the storm is over: the victims let go
 * (100) and the root too (5000: below its clear, 8000, so it no longer holds its senders back; above the
 * Microburst clear, 2000, so the root's 400 us high is no Microburst; its HighQueue and CongestionTree stay active
 * until below-clear has lasted clear_ns, 1 ms, past the end of the run), and every 10 us, 5 us after each tree
 * report:
 *  - 11:7 (a port of the victim 11:5's switch) from source 4 at 20000: flow 4 was never held anywhere the
 *    telemetry sees, but the tree let go at its root and had paused 11:5, a queue of the same switch, which let
 *    go: the switch's own hosts were paused too and their backlog fills 11:7, so its HighQueue (after the 100
 *    us hold) is the tree's incident;
 *  - 41:5 from source 3 at 20000: flow 3 never held, switch 41 held nothing: an incident of its own;
 *  - 40:5 from source 1 (flow 1, held at 10:5 and 11:5, released) at 20000 for the reports i = 5..7 (t1 + 55
 *    to t1 + 75 us) and 100 otherwise: a burst above microburst.raise (10000) that falls below its clear
 *    (2000) at t1 + 85 us, 30 us later (< max_ns, 1 ms; < the 100 us hold, so no HighQueue): the tree's
 *    backlog bursting on, so no Microburst of its own but an update of the root's CongestionTree (same id
 *    and incident) with aftermath_bursts 1 and aftermath_peak 20000;
 *  - 42:5 from source 3 the same burst: flow 3 never held, switch 42 held nothing: a Microburst of its own
 *    (the only Microburst raised), in an incident that is not the tree's. */
/* The run above; late: the release phase lasts 1.6 ms and 11:7 fills only from t1 + 1.2 ms (100 before); root_holds:
 * the root stays at 20000 from t1 (a tree that lasts while its victims let go).  The analyzer (to destroy), the
 * tree's CongestionTree id and incident, and 11:7's first HighQueue (-1: none). */
static struct hw_analyzer *storm_run(int late, int root_holds, uint64_t *tree_id, uint64_t *tree_inc, int *h117)
{
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE | 1u << HW_AN_MICROBURST;
	struct hw_analyzer *a = mk();
	const uint64_t t0 = 32000000000ull, t1 = t0 + 400000;
	const uint32_t tree[3] = {10, 11, 12}, held[3] = {15000, 18000, 20000};
	const uint32_t let_go[3] = {100, 100, root_holds ? 20000 : 5000};
	const uint32_t n117[1] = {11}, p117[1] = {7}, to40[2] = {13, 40}, to41[2] = {14, 41}, to42[2] = {14, 42};
	const uint32_t fill1[1] = {20000}, low1[1] = {100}, fill[2] = {100, 20000}, low[2] = {100, 100};
	for (int i = 0; i < 40; i++)
		report_path(a, t0 + (uint64_t)i * 10000, 3, tree, NULL, held, (uint8_t)(1 + i % 2), 0);
	int tr = raised_at("CongestionTree", 12);
	assert_true(tr >= 0);
	*tree_id = evs[tr].id;
	*tree_inc = evs[tr].incident;
	for (int i = 0; i < (late ? 160 : 40); i++) {
		uint64_t t = t1 + (uint64_t)i * 10000;
		int in_burst = i >= 5 && i <= 7;
		report_path(a, t, 3, tree, NULL, let_go, (uint8_t)(1 + i % 2), 0);
		report_path(a, t + 5000, 1, n117, p117, !late || i >= 120 ? fill1 : low1, 4, 0);
		report_path(a, t + 5000, 2, to41, NULL, fill, 3, 0);
		report_path(a, t + 5000, 2, to40, NULL, in_burst ? fill : low, 1, 0);
		report_path(a, t + 5000, 2, to42, NULL, in_burst ? fill : low, 3, 0);
	}
	*h117 = -1;
	for (int i = 0; i < n_ev && *h117 < 0; i++) /* 11:5 raised one before its tree was seen */
		if (strcmp(evs[i].alertname, "HighQueue") == 0 && evs[i].node_id == 11 && evs[i].port == 7)
			*h117 = i;
	return a;
}

/* The last update of storm_run's root alert (the CongestionTree at 12:5), -1 when none. */
static int root_update(void)
{
	int up = -1;
	for (int i = 0; i < n_ev; i++)
		if (evs[i].update && strcmp(evs[i].alertname, "CongestionTree") == 0 && evs[i].node_id == 12)
			up = i;
	return up;
}

static void test_incident_aftermath_storm(void **state)
{
	(void)state;
	uint64_t tree_id, tree_inc;
	int h117;
	struct hw_analyzer *a = storm_run(0, 0, &tree_id, &tree_inc, &h117);
	int h41 = raised_at("HighQueue", 41);
	assert_true(tree_inc != 0 && h117 >= 0 && h41 >= 0);
	assert_true(evs[h117].incident == tree_inc); /* the victim's switch: the tree's aftermath */
	assert_true(evs[h41].incident != tree_inc);  /* nothing of it held there: its own */
	assert_int_equal(count("Microburst", 0), 1);
	int mb = raised_at("Microburst", 42);
	assert_true(mb >= 0 && evs[mb].incident != tree_inc);
	assert_int_equal(raised_at("Microburst", 40), -1);
	int up = root_update();
	assert_true(up >= 0);
	assert_true(evs[up].id == tree_id && evs[up].incident == tree_inc && !evs[up].resolved);
	assert_true(number(&evs[up], "aftermath_bursts") == 1);
	assert_true(number(&evs[up], "aftermath_peak") == 20000);
	hw_an_destroy(a);
}

/* The switch rule's window: in storm_run(1, 0) 11:7 fills from t1 + 1.2 ms and raises HighQueue after the 100 us
 * hold, at about t1 + 1.3 ms.  The tree's queues were last seen holding (at or above their clear level) no
 * later than t1 (from t1 on they report 100), more than high_queue.clear_ns (1 ms) before: not the storm's
 * letting go, so 11:7's congestion is an incident of its own, although the tree let go at its root and its
 * incident is still open (the root's HighQueue resolves at t1 + 1 ms, 5000 having lasted clear_ns; the incident
 * stays open clear_ns after that, to t1 + 2 ms). */
static void test_incident_aftermath_late(void **state)
{
	(void)state;
	uint64_t tree_id, tree_inc;
	int h117;
	struct hw_analyzer *a = storm_run(1, 0, &tree_id, &tree_inc, &h117);
	assert_true(tree_inc != 0 && h117 >= 0);
	assert_true(evs[h117].incident != tree_inc);
	hw_an_destroy(a);
}

/* A tree that lasts: storm_run(0, 1), the victims let go at t1 but the root stays at 20000 (at or above its clear,
 * 8000: it still holds its senders back), as a background tree's victims swing while PFC pauses and resumes
 * them.  11:7's HighQueue (source 4, a flow the telemetry never saw held) is at a switch whose queue the tree
 * paused and which let go, but the tree did not let go at its root, so that switch's hosts' backlog is not
 * released by it: 11:7's congestion is an incident of its own (the varied sweep's 394 KB burst at another leaf
 * was folded into such a tree's alert).  40:5's burst is still the tree's (flow 1 was held at 10:5 and 11:5,
 * which released it: the flow rule, which does not need the root to let go): an update of the root's
 * CongestionTree with aftermath_bursts 1, no Microburst at 40:5; 42:5's same burst of flow 3 is a Microburst. */
static void test_incident_aftermath_root_holds(void **state)
{
	(void)state;
	uint64_t tree_id, tree_inc;
	int h117;
	struct hw_analyzer *a = storm_run(0, 1, &tree_id, &tree_inc, &h117);
	assert_true(tree_inc != 0 && h117 >= 0);
	assert_true(evs[h117].incident != tree_inc);
	assert_int_equal(raised_at("Microburst", 40), -1);
	assert_true(raised_at("Microburst", 42) >= 0);
	int up = root_update();
	assert_true(up >= 0 && evs[up].id == tree_id && number(&evs[up], "aftermath_bursts") == 1);
	hw_an_destroy(a);
}

/* The aftermath join of a swinging burst is judged at its first fall (the swing rule keeps the episode open up to
 * max_ns / 20 = 50 us after each fall, and the state then is another tree's, other flows').  storm_run's tree
 * (10:5 -> 11:5 -> 12:5, flows 1 and 2 held at the victims 10:5 and 11:5, root 12:5 at 20000 holding all along:
 * CongestionTree and HighQueue active), then from t1 = t0 + 400 us a report of it every 10 us and, 5 us after each,
 * 13:5 -> 40:5 from source 1 (flow 1 alone) with 40:5 at 20000 for i = 5..7 (t1 + 55..75 us), 100 at i = 8 (t1 + 85
 * us: the first fall, below the clear 2000), 20000 at i = 9 (t1 + 95: back within 50 us, the same burst), 100 from
 * i = 10 (t1 + 105: the last fall; the record at t1 + 165 us, 60 us later, ends it).  No HighQueue at 40:5 (above
 * raise 30 us, then 10 us: under the 100 us hold).
 *  - hold_first: the victims hold (15000, 18000) up to i = 8 and let go (100) from i = 9 (t1 + 90 us).  At the first
 *    fall flow 1 is still paused where it was held: 40:5's burst is its own, one Microburst from t1 + 55 to t1 + 105
 *    us (50 us, peak 20000), no aftermath update.  Judged at the last fall, the victims had released flow 1 (a third
 *    of 40:5's flows): it would be folded into the root's alert and lost.
 *  - release_first: the reverse, let go up to i = 8 and hold from i = 9.  At the first fall flow 1 was released:
 *    the tree's backlog bursting on, an update of the root's CongestionTree (aftermath_bursts 1, aftermath_peak
 *    20000), no Microburst.  Judged at the last fall, it would be a Microburst of its own. */
static struct hw_analyzer *swing_join_run(int release_first, uint64_t *tree_id)
{
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE | 1u << HW_AN_CONGESTION_TREE | 1u << HW_AN_MICROBURST;
	struct hw_analyzer *a = mk();
	const uint64_t t0 = 33000000000ull, t1 = t0 + 400000;
	const uint32_t tree[3] = {10, 11, 12}, held[3] = {15000, 18000, 20000}, let_go[3] = {100, 100, 20000};
	const uint32_t to40[2] = {13, 40}, fill[2] = {100, 20000}, low[2] = {100, 100};
	for (int i = 0; i < 40; i++)
		report_path(a, t0 + (uint64_t)i * 10000, 3, tree, NULL, held, (uint8_t)(1 + i % 2), 0);
	int tr = raised_at("CongestionTree", 12);
	assert_true(tr >= 0);
	*tree_id = evs[tr].id;
	for (int i = 0; i < 20; i++) {
		uint64_t t = t1 + (uint64_t)i * 10000;
		int victims_hold = release_first ? i >= 9 : i < 9;
		int in_burst = (i >= 5 && i <= 7) || i == 9;
		report_path(a, t, 3, tree, NULL, victims_hold ? held : let_go, (uint8_t)(1 + i % 2), 0);
		report_path(a, t + 5000, 2, to40, NULL, in_burst ? fill : low, 1, 0);
	}
	return a;
}

static void test_incident_swing_join_first_fall(void **state)
{
	(void)state;
	uint64_t tree_id;
	struct hw_analyzer *a = swing_join_run(0, &tree_id);
	const uint64_t t1 = 33000000000ull + 400000;
	assert_int_equal(count("Microburst", 0), 1);
	int mb = raised_at("Microburst", 40);
	assert_true(mb >= 0);
	const struct hw_an_event *e = &evs[first("Microburst", 1)];
	assert_true(e->start_ns == t1 + 55000 && e->end_ns == t1 + 105000 && number(e, "peak") == 20000);
	assert_int_equal(root_update(), -1);
	hw_an_destroy(a);

	a = swing_join_run(1, &tree_id);
	assert_int_equal(count("Microburst", 0), 0);
	int up = root_update();
	assert_true(up >= 0 && evs[up].id == tree_id);
	assert_true(number(&evs[up], "aftermath_bursts") == 1 && number(&evs[up], "aftermath_peak") == 20000);
	hw_an_destroy(a);
}

static void test_incident_aftermath(void **state)
{
	(void)state;
	uint64_t tree, i40, i41;
	aftermath_run(1, &tree, &i40, &i41);
	assert_true(tree != 0 && i40 == tree); /* the released backlog's burst: the tree's incident */
	assert_true(i41 != 0 && i41 != tree);  /* a flow the tree never held: its own */
	aftermath_run(0, &tree, &i40, &i41);
	assert_true(i40 != 0 && i40 != tree); /* still held where it was paused: not the tree's backlog */
	assert_true(i41 != tree);
}

/* A Microburst whose fall is never reported (switches send queue reports only above a level): raise 10000,
 * clear 2000, max_ns 1 ms (setup), so reports that stop for max_ns / 5 = 200 us end it.  20000 at t0,
 * 25000 at t0 + 10 us, 15000 at t0 + 20 us, then silence; a record of another queue at t0 + 1.5 ms runs the
 * tick (the first record ran one at t0, the next is due at t0 + 1 ms): 1.48 ms silent >= 200 us, the rise
 * lasted 20 us <= 1 ms and fell from its 25000 peak: one Microburst, start t0, end t0 + 20 us, peak 25000,
 * duration 20 us.  The same shape lasting 1.2 ms (> max_ns) is sustained congestion: no Microburst. */
static void test_microburst_ends_silent(void **state)
{
	(void)state;
	const uint64_t t0 = 2000000000;
	struct hw_analyzer *a = mk();
	feed(a, rec(t0, 20000, 700, 1));
	feed(a, rec(t0 + 10000, 25000, 700, 1));
	feed(a, rec(t0 + 20000, 15000, 700, 1));
	struct hw_record other = rec(t0 + 1500000, 100, 700, 1);
	other.queue_id = 0;
	feed(a, other);
	assert_int_equal(count("Microburst", 0), 1);
	assert_int_equal(count("Microburst", 1), 1);
	const struct hw_an_event *e = &evs[first("Microburst", 1)];
	assert_true(e->start_ns == t0 && e->end_ns == t0 + 20000);
	assert_true(number(e, "peak") == 25000 && number(e, "duration_us") == 20);
	hw_an_destroy(a);

	a = mk();
	uint64_t t = t0;
	for (; t <= t0 + 1200000; t += 10000)
		feed(a, rec(t, t == t0 + 1200000 ? 15000 : 20000, 700, 1));
	other.time_ns = t0 + 3000000;
	feed(a, other);
	assert_int_equal(count("Microburst", 0), 0);
	hw_an_destroy(a);
}

/* Microburst with the levels derived from the fabric (defaults: Xoff 400 KB, Xon 300 KB, max_ns 500 us): the burst
 * level is Xon, 300000, its clear half of Xoff, 200000. */
static void derived_burst_levels(void)
{
	cfg.high_queue.raise = cfg.high_queue.clear = 0;
	cfg.microburst_raise = cfg.microburst_clear = 0;
	cfg.microburst_max_ns = 500000;
	cfg.incast_occupancy = 0;
}

/* A burst that stops short of Xoff (a 27 us burst of the sweep): 207000 at t0, 305000 at t0 + 10 us, 255000,
 * 205000, then silence (reports stop below the switch's report level); a record of another queue at t0 + 1.5 ms
 * runs the tick: silent 1.47 ms >= max_ns / 5 = 100 us.  305000 >= the burst level 300000: one Microburst from
 * t0 + 10 us (the first sample at the level) to t0 + 30 us (its last report), peak 305000, duration 20 us,
 * threshold 300000.  The same shape peaking at 295000 (< 300000) is none. */
static void test_microburst_below_xoff(void **state)
{
	(void)state;
	derived_burst_levels();
	cfg.enabled = 1u << HW_AN_MICROBURST;
	const uint64_t t0 = 3000000000ull;
	for (int peak_at_level = 1; peak_at_level >= 0; peak_at_level--) {
		struct hw_analyzer *a = mk();
		const uint32_t occ[4] = {207000, peak_at_level ? 305000 : 295000, 255000, 205000};
		for (int i = 0; i < 4; i++)
			feed(a, rec(t0 + (uint64_t)i * 10000, occ[i], 700, 1));
		struct hw_record other = rec(t0 + 1500000, 100, 700, 1);
		other.queue_id = 0;
		feed(a, other);
		assert_int_equal(count("Microburst", 0), peak_at_level);
		if (peak_at_level) {
			const struct hw_an_event *e = &evs[first("Microburst", 1)];
			assert_true(e->start_ns == t0 + 10000 && e->end_ns == t0 + 30000);
			assert_true(number(e, "peak") == 305000 && number(e, "duration_us") == 20);
			assert_true(number(e, "threshold") == 300000);
		}
		hw_an_destroy(a);
	}
}

/* A burst PFC then holds (a 48 us burst of the sweep that stayed above 900 KB for 1.8 ms): 115000 at t0, 310000
 * at t0 + 10 us (>= the burst level 300000: it begins), 683000 at t0 + 20 us (>= Xoff 400000: the rise took 10 us
 * <= max_ns / 5 = 100 us), then 900000, 1000000, 1100000, 1200000 in turn every 10 us up to t0 + 1 ms (moving by
 * 100000 > 1 % of Xoff: not frozen), 150000 (< 200000, the burst clear) at t0 + 1.01 ms.  It lasted 1 ms >
 * max_ns, but rose fast on a lossless queue (queue 3) with one source: one Microburst from t0 + 10 us to t0 +
 * 1.01 ms, peak 1200000, rise_us 10, duration_us 1000, its detail saying PFC held it 990 us (from t0 + 20 us).  Not a
 * Microburst with the same shape: (src 4) from 4 sources, an Incast fires at the queue (>= 4 sources at or above Xoff):
 * a fan-in that lasts; (flat) the queue held at 1000000 after the rise: frozen, a host that stopped draining; (lossy)
 * on queue 0, lossy (levels 40 % / 30 % of 1024000: 409600 Xoff-like, burst level 307200, clear 204800): no PFC holds
 * it, it is starved. */
static int held_burst(int sources, int flat, uint8_t queue)
{
	derived_burst_levels();
	cfg.enabled = 1u << HW_AN_MICROBURST | 1u << HW_AN_INCAST;
	struct hw_analyzer *a = mk();
	const uint64_t t0 = 4000000000ull;
	const uint32_t held[4] = {900000, 1000000, 1100000, 1200000};
	for (int i = 0; i <= 101; i++) {
		uint32_t occ = i == 0 ? 115000 : i == 1 ? 310000 : i == 2 ? 683000 : i == 101 ? 150000 : held[i % 4];
		if (flat && i > 2 && i < 101)
			occ = 1000000;
		struct hw_record r = rec(t0 + (uint64_t)i * 10000, occ, 700, (uint8_t)(1 + i % sources));
		r.queue_id = queue;
		feed(a, r);
	}
	hw_an_finish(a); /* the input ends at the fall: it cannot climb back (the swing rule) */
	int n = count("Microburst", 0);
	if (n == 1) {
		const struct hw_an_event *e = &evs[first("Microburst", 1)];
		assert_true(e->start_ns == t0 + 10000 && e->end_ns == t0 + 1010000);
		assert_true(number(e, "peak") == 1200000 && number(e, "rise_us") == 10);
		assert_true(number(e, "duration_us") == 1000);
		/* held from the 683000 at t0 + 20 us to t0 + 1.01 ms: 990 us */
		assert_non_null(
		    strstr(e->detail, "(400000 bytes) 10 us after the burst level, then PFC held it high for 990 us"));
		assert_int_equal(count("Incast", 0), 0);
	}
	hw_an_destroy(a);
	return n;
}

static void test_microburst_held_by_pfc(void **state)
{
	(void)state;
	assert_int_equal(held_burst(1, 0, 3), 1);
	assert_int_equal(held_burst(4, 0, 3), 0);
	assert_int_equal(count("Incast", 0), 1);
	assert_int_equal(held_burst(1, 1, 3), 0);
	assert_int_equal(held_burst(1, 0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_ramp_buildup_before_high, setup),
	    cmocka_unit_test_setup(test_buildup_lead_on_linear_ramp, setup),
	    cmocka_unit_test_setup(test_buildup_steep_ramp, setup),
	    cmocka_unit_test_setup(test_buildup_reachable_ceiling, setup),
	    cmocka_unit_test_setup(test_buildup_hold, setup),
	    cmocka_unit_test_setup(test_buildup_steady, setup),
	    cmocka_unit_test_setup(test_buildup_starver_cut, setup),
	    cmocka_unit_test_setup(test_buildup_starver_cut_upstream, setup),
	    cmocka_unit_test_setup(test_hysteresis_one_event_per_episode, setup),
	    cmocka_unit_test_setup(test_hold_time_filters_spike, setup),
	    cmocka_unit_test_setup(test_high_hop_latency, setup),
	    cmocka_unit_test_setup(test_high_latency_follows_occupancy, setup),
	    cmocka_unit_test_setup(test_high_latency_over_floor, setup),
	    cmocka_unit_test_setup(test_microburst, setup),
	    cmocka_unit_test_setup(test_microburst_swing, setup),
	    cmocka_unit_test_setup(test_microburst_not_when_paused, setup),
	    cmocka_unit_test_setup(test_packet_drops, setup),
	    cmocka_unit_test_setup(test_drops_below_ratio, setup),
	    cmocka_unit_test_setup(test_report_loss_22bit_wrap, setup),
	    cmocka_unit_test_setup(test_report_loss_32bit, setup),
	    cmocka_unit_test_setup(test_sender_table_full, setup),
	    cmocka_unit_test_setup(test_path_change, setup),
	    cmocka_unit_test_setup(test_path_change_ignores_partial_paths, setup),
	    cmocka_unit_test_setup(test_incast, setup),
	    cmocka_unit_test_setup(test_incast_updates_as_it_grows, setup),
	    cmocka_unit_test_setup(test_incast_not_upstream, setup),
	    cmocka_unit_test_setup(test_incast_not_storm, setup),
	    cmocka_unit_test_setup(test_incast_needs_drain, setup),
	    cmocka_unit_test_setup(test_congestion_tree, setup),
	    cmocka_unit_test_setup(test_tree_names_later_victims, setup),
	    cmocka_unit_test_setup(test_congestion_tree_shared_paths, setup),
	    cmocka_unit_test_setup(test_congestion_tree_one_root, setup),
	    cmocka_unit_test_setup(test_tree_folds_into_incast, setup),
	    cmocka_unit_test_setup(test_dscp_mismatch, setup),
	    cmocka_unit_test_setup(test_event_json, setup),
	    cmocka_unit_test_setup(test_config, setup),
	    cmocka_unit_test_setup(test_bounded_queues, setup),
	    cmocka_unit_test_setup(test_tick_resolves_idle_queues, setup),
	    cmocka_unit_test_setup(test_events_after_ingest, setup),
	    cmocka_unit_test_setup(test_path_change_transit_prefix, setup),
	    cmocka_unit_test_setup(test_path_change_one_per_cause_and_back, setup),
	    cmocka_unit_test_setup(test_path_change_link_down_one_alert, setup),
	    cmocka_unit_test_setup(test_path_change_transit_first, setup),
	    cmocka_unit_test_setup(test_path_change_bmv2_line, setup),
	    cmocka_unit_test_setup(test_postcards_assemble_paths, setup),
	    cmocka_unit_test_setup(test_units_from_map, setup),
	    cmocka_unit_test_setup(test_units_from_config, setup),
	    cmocka_unit_test_setup(test_thresholds_from_fabric, setup),
	    cmocka_unit_test_setup(test_thresholds_from_map, setup),
	    cmocka_unit_test_setup(test_victim_by_paths_on_map_alone, setup),
	    cmocka_unit_test_setup(test_victim_two_links_down, setup),
	    cmocka_unit_test_setup(test_tree_at_silent_root_resolves, setup),
	    cmocka_unit_test_setup(test_thresholds_configured, setup),
	    cmocka_unit_test_setup(test_high_queue_fraction, setup),
	    cmocka_unit_test_setup(test_high_queue_sparse_samples, setup),
	    cmocka_unit_test_setup(test_incident_reraise_keeps_id, setup),
	    cmocka_unit_test_setup(test_incident_aftermath, setup),
	    cmocka_unit_test_setup(test_incident_aftermath_storm, setup),
	    cmocka_unit_test_setup(test_incident_aftermath_late, setup),
	    cmocka_unit_test_setup(test_incident_aftermath_root_holds, setup),
	    cmocka_unit_test_setup(test_incident_swing_join_first_fall, setup),
	    cmocka_unit_test_setup(test_microburst_ends_silent, setup),
	    cmocka_unit_test_setup(test_microburst_below_xoff, setup),
	    cmocka_unit_test_setup(test_microburst_held_by_pfc, setup),
	    cmocka_unit_test_setup(test_clock_far_future_set_aside, setup),
	    cmocka_unit_test_setup(test_clock_gap_confirmed, setup),
	    cmocka_unit_test_setup(test_clock_first_record_bad, setup),
	    cmocka_unit_test_setup(test_map_only_grows_every_port, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
