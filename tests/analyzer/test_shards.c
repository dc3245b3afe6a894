/* Unit tests of the sharded detectors (hw_an_shards, lib/analysis/an_shard.c): the merge of the shards' steps back
 * into record order, worked by hand, and the events of a sharded analyzer equal to one thread's on a long run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/analyzer.h"

#define MAXEV 4096
struct evlist {
	struct hw_an_event e[MAXEV];
	int n;
};

static void collect(void *ctx, const struct hw_an_event *e)
{
	struct evlist *l = ctx;
	if (l->n < MAXEV)
		l->e[l->n++] = *e;
}

static struct hw_an_config cfg;
static uint32_t seqs[16];

/* A one-hop report of node (its own sender) at egress port 2, queue 3. */
static struct hw_record rec(uint32_t node, uint64_t t, uint32_t occ)
{
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.time_ns = t;
	r.valid = HW_V_PORTS | HW_V_QUEUE | HW_V_FLOW;
	r.format = HW_FORMAT_TR20;
	r.report_node = node;
	r.report_seq = seqs[node % 16]++;
	r.node_id = node;
	r.ingress_port = 1;
	r.egress_port = 2;
	r.queue_id = 3;
	r.queue_occupancy = occ;
	r.path_len = 1;
	r.flow_hash = 0x1000 + node;
	return r;
}

static struct hw_analyzer *mk(struct evlist *l, unsigned shards)
{
	char err[256];
	memset(seqs, 0, sizeof(seqs));
	l->n = 0;
	struct hw_analyzer *a = hw_an_create(&cfg, NULL, NULL, collect, l, err, sizeof(err));
	assert_non_null(a);
	assert_int_equal(hw_an_shards(a, shards, err, sizeof(err)), 0);
	return a;
}

static void same_events(const struct evlist *x, const struct evlist *y)
{
	assert_int_equal(x->n, y->n);
	for (int i = 0; i < x->n; i++) {
		const struct hw_an_event *a = &x->e[i], *b = &y->e[i];
		assert_string_equal(a->alertname, b->alertname);
		assert_int_equal(a->resolved, b->resolved);
		assert_int_equal(a->update, b->update);
		assert_int_equal(a->id, b->id);
		assert_int_equal(a->incident, b->incident);
		assert_int_equal(a->node_id, b->node_id);
		assert_int_equal(a->start_ns, b->start_ns);
		assert_int_equal(a->end_ns, b->end_ns);
		assert_int_equal(a->n_numbers, b->n_numbers);
		for (unsigned k = 0; k < a->n_numbers; k++) {
			assert_string_equal(a->numbers[k].name, b->numbers[k].name);
			assert_true(a->numbers[k].value == b->numbers[k].value);
		}
		assert_int_equal(a->n_flows, b->n_flows);
		assert_memory_equal(a->flows, b->flows, a->n_flows * sizeof(a->flows[0]));
	}
}

#define T0 1767225600000000000ull
#define US 1000ull
#define MS 1000000ull

/* The four calls of the merge test, each one hw_an_ingest batch; see test_merge_order. */
static void merge_run(struct hw_analyzer *a)
{
	/* 1: the queues of nodes 1, 2, 4, 5 made (table order), quiet; the clock set and confirmed (two reports) */
	struct hw_record c1[] = {rec(1, T0, 100), rec(2, T0 + 1 * US, 100), rec(4, T0 + 2 * US, 100),
	                         rec(5, T0 + 3 * US, 100)};
	hw_an_ingest(a, c1, 4);
	/* 2: raises at nodes 4, 2, 1 (hold_ns 0: the crossing sample raises), a quiet record of node 1 between */
	const uint64_t t = T0 + 10 * US;
	struct hw_record c2[] = {rec(4, t, 20000), rec(1, t + 1 * US, 100), rec(2, t + 2 * US, 20000),
	                         rec(1, t + 3 * US, 20000)};
	hw_an_ingest(a, c2, 4);
	/* 3: 2 ms later: the tick before its first record ends the three quiet episodes (silent >= clear_ns 1 ms) in
	 * table order 1, 2, 4; then node 5 raises; node 1's record comes after the tick that resolved it */
	const uint64_t t2 = t + 2 * MS;
	struct hw_record c3[] = {rec(5, t2, 20000), rec(1, t2 + 1 * US, 100)};
	hw_an_ingest(a, c3, 2);
	/* 4: node 5 below its clear level from +400 us: resolved by its record at +1600 us (below for 1200 us >= 1 ms;
	 * no gap of 1 ms, so no tick ends it); node 2 raises again between */
	struct hw_record c4[] = {rec(5, t2 + 400 * US, 100), rec(2, t2 + 800 * US, 20000), rec(5, t2 + 800 * US, 100),
	                         rec(5, t2 + 1200 * US, 100), rec(5, t2 + 1600 * US, 100)};
	hw_an_ingest(a, c4, 5);
}

/* The shard steps HighQueue ahead of the core; the raises and resolves come out in record order, ticks at their
 * place, the same as one thread. */
static void test_merge_order(void **state)
{
	(void)state;
	hw_an_config_default(&cfg);
	cfg.enabled = 1u << HW_AN_HIGH_QUEUE;
	cfg.high_queue = (struct hw_an_hyst){10000, 8000, 0, 1000000};
	static struct evlist one, two;
	struct hw_analyzer *a1 = mk(&one, 1), *a2 = mk(&two, 2);
	merge_run(a1);
	merge_run(a2);
	/* by hand: call 2 raises 4, 2, 1 (record order); call 3's tick resolves 1, 2, 4 (table order), then 5
	 * raises; call 4: 2 raises (record 2 of 5), 5 resolves (record 5) */
	const uint32_t node[] = {4, 2, 1, 1, 2, 4, 5, 2, 5};
	const int resolved[] = {0, 0, 0, 1, 1, 1, 0, 0, 1};
	assert_int_equal(two.n, 9);
	for (int i = 0; i < 9; i++) {
		assert_string_equal(two.e[i].alertname, "HighQueue");
		assert_int_equal(two.e[i].node_id, node[i]);
		assert_int_equal(two.e[i].resolved, resolved[i]);
	}
	assert_int_equal(two.e[8].end_ns, T0 + 10 * US + 2 * MS + 1600 * US);
	same_events(&one, &two);
	/* what the shard did (one shard thread: a2 has 2 threads), by hand; a record is stepped on the shard unless
	 * its step raises or resolves, or its queue is new or the core's (handed back) in that call.  Call 1: none
	 * (the first two records before the clock is confirmed, the other two make their queues).  Call 2: node
	 * 1's quiet record; the three raises hand their queues back.  Call 3: both records' queues silent for 2 ms
	 * (a tick may come first) with episodes the shard does not know (node 5's queue was new, node 1's went
	 * back): handed back.  Call 4: node 5's three records below its clear level before the resolve, which
	 * hands back; node 2's raise hands back before its step (silent, its episode not known). */
	struct hw_an_stats s1, s2;
	hw_an_stats(a1, &s1);
	hw_an_stats(a2, &s2);
	assert_int_equal(s1.records_sharded, 0);
	assert_int_equal(s2.records_sharded, 0 + 1 + 0 + 3);
	assert_int_equal(s2.shard_handbacks, 0 + 3 + 2 + 2);
	hw_an_destroy(a1);
	hw_an_destroy(a2);
}

/* Every detector on, 8 nodes of 8 queues, occupancy on random walks with bursts and pauses, 40,000 records in
 * batches of 1,000: the sharded analyzer (2 and 3 shards) raises exactly the events of one thread. */
static void random_run(struct hw_analyzer *a, struct hw_an_stats *s)
{
	static struct hw_record b[1000];
	uint32_t occ[64] = {0};
	uint64_t t = T0;
	srand(7);
	for (int k = 0; k < 40; k++) {
		for (int i = 0; i < 1000; i++) {
			const uint32_t node = 1 + (uint32_t)(rand() % 8), qi = (node - 1) * 8 + (uint32_t)(rand() % 8);
			int step = rand() % 1001 - 500;
			if (rand() % 2000 == 0)
				step = 12000; /* a burst */
			occ[qi] = (uint32_t)((int)occ[qi] + step < 0 ? 0 : (int)occ[qi] + step);
			if (occ[qi] > 40000)
				occ[qi] = 40000;
			t += (uint64_t)(rand() % 20) * US;
			if (rand() % 2000 == 0)
				t += 3 * MS; /* a pause: ticks end quiet episodes */
			b[i] = rec(node, t, occ[qi]);
			b[i].queue_id = (uint8_t)(qi % 8);
			b[i].valid |= HW_V_HOP_LATENCY;
			b[i].hop_latency = occ[qi] / 10;
			b[i].src_ip[15] = (uint8_t)(rand() % 8);
			b[i].flow_hash = 0x1000 + (uint64_t)(rand() % 64);
		}
		hw_an_ingest(a, b, 1000);
	}
	hw_an_finish(a);
	hw_an_stats(a, s);
}

/* Raises of the two high detectors in l. */
static int count_high(const struct evlist *l)
{
	int n = 0;
	for (int i = 0; i < l->n; i++)
		n += (l->e[i].kind == HW_AN_HIGH_QUEUE || l->e[i].kind == HW_AN_HIGH_LATENCY) && !l->e[i].resolved;
	return n;
}

static void test_random_identical(void **state)
{
	(void)state;
	hw_an_config_default(&cfg);
	cfg.enabled = (1u << HW_AN_KIND_COUNT) - 1;
	cfg.high_queue = (struct hw_an_hyst){20000, 15000, 100000, 1000000};
	cfg.high_latency = (struct hw_an_hyst){2000, 1500, 100000, 1000000};
	static struct evlist one, more;
	struct hw_an_stats s1, s;
	struct hw_analyzer *a1 = mk(&one, 1);
	random_run(a1, &s1);
	hw_an_destroy(a1);
	assert_true(count_high(&one) >= 10); /* not an empty comparison */
	for (unsigned shards = 2; shards <= 3; shards++) {
		struct hw_analyzer *a = mk(&more, shards);
		random_run(a, &s);
		hw_an_destroy(a);
		same_events(&one, &more);
		assert_int_equal(s.records, s1.records);
		print_message("%u shards: %d events the same, %llu of %llu records sharded, %llu handed back\n", shards,
		              more.n, (unsigned long long)s.records_sharded, (unsigned long long)s.records,
		              (unsigned long long)s.shard_handbacks);
		/* most records stepped on the shards; some transitions handed back */
		assert_true(s.records_sharded > s.records / 2);
		assert_true(s.shard_handbacks >= 10);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge_order),
	    cmocka_unit_test(test_random_identical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
