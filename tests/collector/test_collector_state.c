/* The collector's per-worker state: sequence tracking across wrap, flow table LRU eviction and
 * path changes, queue statistics and histogram buckets, all against values worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "flow_table.h"
#include "queue_table.h"
#include "seq_tracker.h"

static struct hw_seq_state fresh(unsigned bits)
{
	struct hw_seq_state s;
	memset(&s, 0, sizeof(s));
	s.bits = (uint8_t)bits;
	return s;
}

static void seq_in_order_and_gap(void **state)
{
	(void)state;
	struct hw_seq_state s = fresh(32);
	for (uint32_t i = 10; i < 20; i++)
		hw_seq_apply(&s, i);
	assert_int_equal(s.received, 10);
	assert_int_equal(s.lost, 0);
	hw_seq_apply(&s, 25); /* 20..24 missing */
	assert_int_equal(s.lost, 5);
	hw_seq_apply(&s, 22); /* late: was counted lost */
	assert_int_equal(s.lost, 4);
	assert_int_equal(s.reordered, 1);
	hw_seq_apply(&s, 22); /* again: duplicate */
	assert_int_equal(s.duplicate, 1);
	hw_seq_apply(&s, 25); /* the highest again: duplicate */
	assert_int_equal(s.duplicate, 2);
	assert_int_equal(s.received, 14); /* 10 in order + 25, 22, 22, 25 */
}

static void seq_wraps_at_22_bits(void **state)
{
	(void)state;
	struct hw_seq_state s = fresh(22);
	const uint32_t top = (1u << 22) - 1; /* 4194303 */
	hw_seq_apply(&s, top - 1);
	hw_seq_apply(&s, top);
	hw_seq_apply(&s, 0); /* wrap: next after top is 0 */
	hw_seq_apply(&s, 1);
	assert_int_equal(s.lost, 0);
	hw_seq_apply(&s, 4); /* 2, 3 lost */
	assert_int_equal(s.lost, 2);
	hw_seq_apply(&s, top); /* 5 behind the highest (4): duplicate of top */
	assert_int_equal(s.duplicate, 1);
	assert_int_equal(s.reordered, 0);
}

static void seq_wraps_at_32_bits(void **state)
{
	(void)state;
	struct hw_seq_state s = fresh(32);
	hw_seq_apply(&s, 0xfffffffeu);
	hw_seq_apply(&s, 0xffffffffu);
	hw_seq_apply(&s, 0);
	hw_seq_apply(&s, 2);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.received, 4);
}

static void seq_tracker_keys(void **state)
{
	(void)state;
	struct hw_seq_tracker t;
	assert_int_equal(hw_seq_tracker_init(&t, 16), 0);
	hw_seq_tracker_add(&t, 7, 0, 1, 22);
	hw_seq_tracker_add(&t, 7, 1, 100, 22); /* another hw_id: its own sequence */
	hw_seq_tracker_add(&t, 7, 0, 3, 22);
	hw_seq_tracker_add(&t, 7, 1, 101, 22);
	hw_seq_tracker_add(&t, 9, 0, 5, 0); /* no sequence (bare INT): ignored */
	assert_int_equal(t.n, 2);
	uint64_t lost = 0;
	for (uint32_t i = 0; i <= t.mask; i++)
		if (t.slots[i].used)
			lost += t.slots[i].lost;
	assert_int_equal(lost, 1);
	hw_seq_tracker_free(&t);
}

static void flow_lru_and_path_changes(void **state)
{
	(void)state;
	struct hw_flow_table t;
	assert_int_equal(hw_flow_table_init(&t, 3), 0);
	assert_int_equal(hw_flow_table_update(&t, 1, 100, 3, 1), 0);
	assert_int_equal(hw_flow_table_update(&t, 2, 200, 3, 2), 0);
	assert_int_equal(hw_flow_table_update(&t, 3, 300, 3, 3), 0);
	assert_int_equal(hw_flow_table_update(&t, 1, 101, 3, 4), 1); /* flow 1 changed path; now most recent */
	assert_int_equal(hw_flow_table_update(&t, 4, 400, 3, 5), 0); /* full: evicts flow 2 (least recent) */
	assert_int_equal(t.evictions, 1);
	assert_int_equal(hw_flow_table_update(&t, 3, 300, 3, 6), 0); /* 3 is still known, same path */
	assert_int_equal(hw_flow_table_hops(&t, 3), 3);              /* the hop count given with its path */
	assert_int_equal(hw_flow_table_hops(&t, 77), 0);             /* never reported */
	assert_int_equal(t.evictions, 1);
	assert_int_equal(hw_flow_table_update(&t, 2, 999, 3, 7), 0); /* 2 was forgotten: new, evicts 1 */
	assert_int_equal(t.evictions, 2);
	assert_int_equal(hw_flow_table_update(&t, 1, 101, 3, 8), 0); /* 1 was forgotten too: new again */
	assert_int_equal(t.path_changes, 1);
	assert_int_equal(t.n, 3);
	hw_flow_table_free(&t);
}

static void flow_table_many_flows_stay_bounded(void **state)
{
	(void)state;
	struct hw_flow_table t;
	assert_int_equal(hw_flow_table_init(&t, 1000), 0);
	uint64_t bytes = hw_flow_table_bytes(&t);
	for (uint64_t f = 0; f < 100000; f++)
		hw_flow_table_update(&t, f * 0x9e3779b97f4a7c15ull, f, 3, f);
	assert_int_equal(t.n, 1000);
	assert_int_equal(t.evictions, 99000);
	assert_int_equal(hw_flow_table_bytes(&t), bytes);
	/* the last 1000 flows are the ones kept */
	assert_int_equal(hw_flow_table_update(&t, 99999 * 0x9e3779b97f4a7c15ull, 99999, 3, 1), 0);
	assert_int_equal(t.evictions, 99000);
	hw_flow_table_free(&t);
}

static void hist_buckets_match_le(void **state)
{
	(void)state;
	/* bounds 2^6, 2^8, ..., 2^26 (the /metrics "le" values); bucket k: (bound k-1, bound k] */
	assert_int_equal(HW_HIST_BUCKETS, 12);
	assert_int_equal(hw_hist_le_exp(0), 6);
	assert_int_equal(hw_hist_le_exp(HW_HIST_BOUNDS - 1), 26);
	assert_int_equal(hw_hist_bucket(0), 0);
	assert_int_equal(hw_hist_bucket(1), 0);
	assert_int_equal(hw_hist_bucket(64), 0);  /* <= 2^6 */
	assert_int_equal(hw_hist_bucket(65), 1);  /* (2^6, 2^8] */
	assert_int_equal(hw_hist_bucket(128), 1); /* 2^7: between two bounds, the upper one's bucket */
	assert_int_equal(hw_hist_bucket(256), 1);
	assert_int_equal(hw_hist_bucket(257), 2);
	assert_int_equal(hw_hist_bucket(1024), 2);
	assert_int_equal(hw_hist_bucket(1025), 3);
	assert_int_equal(hw_hist_bucket(1u << 26), 10);       /* the last bound */
	assert_int_equal(hw_hist_bucket((1u << 26) + 1), 11); /* above every bound */
	assert_int_equal(hw_hist_bucket(UINT64_MAX), 11);
	/* every value in its bucket's range, around each bound */
	for (unsigned k = 0; k < HW_HIST_BOUNDS; k++) {
		uint64_t bound = 1ull << hw_hist_le_exp(k);
		assert_int_equal(hw_hist_bucket(bound), k);
		assert_int_equal(hw_hist_bucket(bound + 1), k + 1);
	}
	/* the worker's table look-up for 32-bit values: the values above by hand, then the same bucket as
	 * hw_hist_bucket around every power of two */
	assert_int_equal(hw_hist_bucket32(0), 0);
	assert_int_equal(hw_hist_bucket32(1), 0);
	assert_int_equal(hw_hist_bucket32(2), 0);
	assert_int_equal(hw_hist_bucket32(64), 0);
	assert_int_equal(hw_hist_bucket32(65), 1);
	assert_int_equal(hw_hist_bucket32(1024), 2);
	assert_int_equal(hw_hist_bucket32(1025), 3);
	assert_int_equal(hw_hist_bucket32(1u << 26), 10);
	assert_int_equal(hw_hist_bucket32((1u << 26) + 1), 11);
	assert_int_equal(hw_hist_bucket32(UINT32_MAX), 11);
	for (unsigned e = 0; e < 32; e++)
		for (int d = -1; d <= 1; d++) {
			uint32_t v = (uint32_t)((1ull << e) + (uint64_t)(int64_t)d);
			assert_int_equal(hw_hist_bucket32(v), hw_hist_bucket(v));
		}
}

/* Samples in a histogram: the sum of its buckets (as /metrics derives _count). */
static uint64_t hist_count(const uint64_t *hist)
{
	uint64_t n = 0;
	for (unsigned b = 0; b < HW_HIST_BUCKETS; b++)
		n += hist[b];
	return n;
}

static void queue_stats(void **state)
{
	(void)state;
	struct hw_queue_table t;
	assert_int_equal(hw_queue_table_init(&t, 16), 0);
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.node_id = 5;
	r.egress_port = 7;
	r.queue_id = 3;
	r.valid = HW_V_PORTS | HW_V_QUEUE | HW_V_HOP_LATENCY;
	const uint32_t occ[4] = {100, 900, 300, 0};
	for (int i = 0; i < 4; i++) {
		r.queue_occupancy = occ[i];
		r.hop_latency = 1000u * (uint32_t)(i + 1);
		r.time_ns = (uint64_t)i;
		hw_queue_table_add(&t, &r);
	}
	r.valid = HW_V_PORTS | HW_V_DROP; /* a drop on the same queue */
	hw_queue_table_add(&t, &r);
	r.egress_port = 8; /* another port: another key */
	hw_queue_table_add(&t, &r);
	assert_int_equal(t.n, 2);
	const struct hw_queue_stats *s = NULL;
	for (uint32_t i = 0; i < t.n; i++) /* the keys in use: slots[0, n) */
		if (t.slots[i].port == 7)
			s = &t.slots[i];
	assert_non_null(s);
	assert_int_equal(s->reports, 5);
	assert_int_equal(s->drops, 1);
	assert_int_equal(s->last_occupancy, 0);
	assert_int_equal(s->max_occupancy, 900);
	assert_int_equal(s->occ_sum, 1300);
	assert_int_equal(hist_count(s->lat_hist), 4);
	assert_int_equal(hist_count(s->occ_hist), 4);
	assert_int_equal(s->lat_sum, 10000); /* 1000 + 2000 + 3000 + 4000 */
	assert_int_equal(s->lat_hist[2], 1); /* 1000: 256 < v <= 1024 */
	assert_int_equal(s->lat_hist[3], 3); /* 2000, 3000, 4000: 1024 < v <= 4096 */
	assert_int_equal(s->occ_hist[0], 1); /* 0 <= 64 */
	assert_int_equal(s->occ_hist[1], 1); /* 100: 64 < v <= 256 */
	assert_int_equal(s->occ_hist[2], 2); /* 300, 900: 256 < v <= 1024 */
	hw_queue_table_free(&t);
}

static void queue_table_overflow_counted(void **state)
{
	(void)state;
	struct hw_queue_table t;
	assert_int_equal(hw_queue_table_init(&t, 16), 0); /* 16 slots, at most 12 keys */
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.valid = HW_V_PORTS;
	for (uint32_t p = 0; p < 20; p++) {
		r.egress_port = p;
		hw_queue_table_add(&t, &r);
	}
	assert_int_equal(t.n, 12);
	assert_int_equal(t.overflow, 8);
	hw_queue_table_free(&t);
}

/* Slots are handed out in order (queue_table.h): the k-th new key takes slots[k - 1] whatever its hash,
 * so n keys sit in slots[0..n) of a much larger table; a key seen again goes back to its own slot. */
static void queue_slots_in_order(void **state)
{
	(void)state;
	enum { CAP = 4096, KEYS = 100 };
	struct hw_queue_table t;
	assert_int_equal(hw_queue_table_init(&t, CAP), 0);
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.valid = HW_V_PORTS | HW_V_QUEUE;
	r.node_id = 9;
	for (uint32_t p = 0; p < KEYS; p++) {
		r.egress_port = 1000 + 7 * p; /* hashes spread over the 4096 slots; slots do not */
		hw_queue_table_add(&t, &r);
	}
	r.egress_port = 1000 + 7 * 42; /* the 43rd key again */
	hw_queue_table_add(&t, &r);
	assert_int_equal(t.n, KEYS);
	for (uint32_t p = 0; p < KEYS; p++) {
		assert_int_equal(t.slots[p].node, 9);
		assert_int_equal(t.slots[p].port, 1000 + 7 * p);
		assert_int_equal(t.slots[p].reports, p == 42 ? 2 : 1);
	}
	const struct hw_queue_stats untouched = {0}; /* no slot past n written at all */
	for (uint32_t i = KEYS; i < CAP; i++)
		assert_memory_equal(&t.slots[i], &untouched, sizeof(untouched));
	hw_queue_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(seq_in_order_and_gap),         cmocka_unit_test(seq_wraps_at_22_bits),
	    cmocka_unit_test(seq_wraps_at_32_bits),         cmocka_unit_test(seq_tracker_keys),
	    cmocka_unit_test(flow_lru_and_path_changes),    cmocka_unit_test(flow_table_many_flows_stay_bounded),
	    cmocka_unit_test(hist_buckets_match_le),        cmocka_unit_test(queue_stats),
	    cmocka_unit_test(queue_table_overflow_counted), cmocka_unit_test(queue_slots_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
