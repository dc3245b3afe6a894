/* lib/facts against hand-worked sequences: report loss (in order, gap, late within the reorder window,
 * duplicate, too late, 22- and 32-bit wrap, a sender that restarts) and the path signature and rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "facts.h"

/* Apply seq and check the step's kind and newly lost count. */
static void step(struct hw_seq_fact *s, uint32_t seq, uint32_t mask, enum hw_seq_kind kind, uint32_t lost)
{
	const struct hw_seq_step st = hw_seq_update(s, seq, mask);
	assert_int_equal(st.kind, kind);
	assert_int_equal(st.lost, lost);
	assert_int_equal(st.recovered, kind == HW_SEQ_LATE);
}

static void seq_in_order(void **state)
{
	(void)state;
	struct hw_seq_fact s = {0};
	step(&s, 5, UINT32_MAX, HW_SEQ_FIRST, 0);
	step(&s, 6, UINT32_MAX, HW_SEQ_NEXT, 0);
	step(&s, 7, UINT32_MAX, HW_SEQ_NEXT, 0);
	assert_int_equal(s.highest, 7);
	assert_int_equal(s.window, 7); /* 7, 6, 5 seen: bits 0, 1, 2 = 0b111 */
}

static void seq_gap_late_duplicate(void **state)
{
	(void)state;
	struct hw_seq_fact s = {0};
	step(&s, 10, UINT32_MAX, HW_SEQ_FIRST, 0);
	step(&s, 14, UINT32_MAX, HW_SEQ_NEXT, 3); /* 11, 12, 13 skipped */
	assert_int_equal(s.window, 17);           /* 14 and 10 (4 behind): bits 0 and 4 = 0b10001 */
	step(&s, 12, UINT32_MAX, HW_SEQ_LATE, 0); /* 2 behind, not seen: late, recovers one */
	assert_int_equal(s.window, 21);           /* bit 2 added: 0b10101 */
	step(&s, 12, UINT32_MAX, HW_SEQ_DUPLICATE, 0);
	step(&s, 14, UINT32_MAX, HW_SEQ_DUPLICATE, 0); /* the highest itself */
	step(&s, 10, UINT32_MAX, HW_SEQ_DUPLICATE, 0);
	assert_int_equal(s.highest, 14);
}

/* The window is 64 numbers: 63 behind is late, 64 behind is too late (it stays lost). */
static void seq_window_edge(void **state)
{
	(void)state;
	struct hw_seq_fact s = {0};
	step(&s, 100, UINT32_MAX, HW_SEQ_FIRST, 0);
	step(&s, 200, UINT32_MAX, HW_SEQ_NEXT, 99);    /* 101..199 skipped */
	assert_int_equal(s.window, 1);                 /* a jump of 64 or more forgets the window */
	step(&s, 136, UINT32_MAX, HW_SEQ_TOO_LATE, 0); /* 200 - 136 = 64 behind */
	step(&s, 137, UINT32_MAX, HW_SEQ_LATE, 0);     /* 63 behind */
	step(&s, 137, UINT32_MAX, HW_SEQ_DUPLICATE, 0);
	step(&s, 136, UINT32_MAX, HW_SEQ_TOO_LATE, 0); /* still too late, never a duplicate */
}

/* TR v2.0 numbers are 22 bits: 0x3fffff is followed by 0, numbers are taken modulo 2^22, and a number
 * half the space (2^21) or more ahead is behind. */
static void seq_wrap_22(void **state)
{
	(void)state;
	const uint32_t m = hw_seq_mask(22);
	assert_int_equal(m, 0x3fffff); /* 2^22 - 1 */
	struct hw_seq_fact s = {0};
	step(&s, 0x3ffffe, m, HW_SEQ_FIRST, 0);
	step(&s, 0x3fffff, m, HW_SEQ_NEXT, 0);
	step(&s, 0, m, HW_SEQ_NEXT, 0);
	step(&s, 2, m, HW_SEQ_NEXT, 1);             /* 1 skipped */
	step(&s, 0x400003, m, HW_SEQ_NEXT, 0);      /* 0x400003 mod 2^22 = 3 */
	step(&s, 0x3fffff, m, HW_SEQ_DUPLICATE, 0); /* 4 behind 3 across the wrap */
	step(&s, 1, m, HW_SEQ_LATE, 0);
	struct hw_seq_fact h = {0};
	step(&h, 0, m, HW_SEQ_FIRST, 0);
	step(&h, 0x200000, m, HW_SEQ_TOO_LATE, 0);    /* 2^21 ahead = 2^21 behind: behind, far */
	step(&h, 0x1fffff, m, HW_SEQ_NEXT, 0x1ffffe); /* 2^21 - 1 ahead: forward, 2^21 - 2 skipped */
}

static void seq_wrap_32(void **state)
{
	(void)state;
	const uint32_t m = hw_seq_mask(32);
	assert_int_equal(m, UINT32_MAX);
	struct hw_seq_fact s = {0};
	step(&s, 0xfffffffeu, m, HW_SEQ_FIRST, 0);
	step(&s, 0xffffffffu, m, HW_SEQ_NEXT, 0);
	step(&s, 1, m, HW_SEQ_NEXT, 1); /* 0 skipped */
	step(&s, 0, m, HW_SEQ_LATE, 0);
	step(&s, 0xfffffffeu, m, HW_SEQ_DUPLICATE, 0); /* 3 behind 1 across the wrap */
}

/* A sender that restarts its numbering: far below the old highest, every number is too late until the
 * sender passes its old highest; close below it (within the window), the numbers look like duplicates. */
static void seq_sender_reset(void **state)
{
	(void)state;
	struct hw_seq_fact s = {0};
	step(&s, 1000, UINT32_MAX, HW_SEQ_FIRST, 0);
	step(&s, 0, UINT32_MAX, HW_SEQ_TOO_LATE, 0);
	step(&s, 1, UINT32_MAX, HW_SEQ_TOO_LATE, 0);
	step(&s, 1001, UINT32_MAX, HW_SEQ_NEXT, 0);
	struct hw_seq_fact r = {0};
	for (uint32_t i = 0; i <= 10; i++)
		step(&r, i, UINT32_MAX, i ? HW_SEQ_NEXT : HW_SEQ_FIRST, 0);
	for (uint32_t i = 0; i <= 10; i++) /* restarted at 0: 10 .. 0 behind 10, all seen */
		step(&r, i, UINT32_MAX, HW_SEQ_DUPLICATE, 0);
	step(&r, 11, UINT32_MAX, HW_SEQ_NEXT, 0);
}

static void seq_bits_of_format(void **state)
{
	(void)state;
	assert_int_equal(hw_seq_bits(HW_FORMAT_TR20), 22);
	assert_int_equal(hw_seq_bits(HW_FORMAT_TR10), 32);
	assert_int_equal(hw_seq_bits(HW_FORMAT_TR05), 32);
	assert_int_equal(hw_seq_bits(HW_FORMAT_INT), 0);
	assert_int_equal(hw_seq_bits(HW_FORMAT_NONE), 0);
}

/* One hop (node 0, ports 0, 0): v = 0, h = seed * 0x100000001b3 mod 2^64
 *   = (seed << 40) + seed * 0x1b3 = 0xf29ce40000000000 + 0x8601b9398d40976c = 0x789e9d398d40976c,
 * h >> 29 = 0x3c4f4e9cc, h ^ (h >> 29) = 0x789e9d3a49b47ea0. */
static void path_sig_value(void **state)
{
	(void)state;
	assert_int_equal(hw_path_sig_step(HW_PATH_SIG_SEED, 0, 0, 0), 0x789e9d3a49b47ea0ull);
	assert_int_equal(hw_path_sig_done(0), 1); /* 0 means "no path" to the callers */
	assert_int_equal(hw_path_sig_done(0x789e9d3a49b47ea0ull), 0x789e9d3a49b47ea0ull);
}

static uint64_t sig3(const uint32_t hops[3][3])
{
	uint64_t h = HW_PATH_SIG_SEED;
	for (int i = 0; i < 3; i++)
		h = hw_path_sig_step(h, hops[i][0], hops[i][1], hops[i][2]);
	return hw_path_sig_done(h);
}

/* Every field of every hop and the hops' order count; node ids reach the low 32 bits. */
static void path_sig_fields(void **state)
{
	(void)state;
	const uint32_t p[3][3] = {{1, 1, 2}, {2, 3, 4}, {3, 5, 6}};
	uint32_t q[3][3];
	const uint64_t base = sig3(p);
	assert_int_equal(sig3(p), base);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			memcpy(q, p, sizeof(q));
			q[i][j] += 1;
			assert_int_not_equal(sig3((const uint32_t(*)[3])q), base);
			if (j == 0) /* a node id only: the low halves differ too */
				assert_int_not_equal((uint32_t)sig3((const uint32_t(*)[3])q), (uint32_t)base);
		}
	const uint32_t swapped[3][3] = {{2, 3, 4}, {1, 1, 2}, {3, 5, 6}};
	assert_int_not_equal(sig3(swapped), base);
}

static void path_rule(void **state)
{
	(void)state;
	const unsigned Q = HW_RF_CONGESTED_QUEUE, F = HW_RF_TRACKED_FLOW, D = HW_RF_DROPPED, I = HW_RF_INTERMEDIATE;
	assert_true(hw_path_report_whole(0, 2, true));
	assert_true(hw_path_report_whole(F, 5, true));
	assert_true(hw_path_report_whole(Q | F, 5, true)); /* the sink's tracked flow report */
	assert_false(hw_path_report_whole(Q, 5, true));    /* a queue report: path so far */
	assert_false(hw_path_report_whole(D, 5, true));
	assert_false(hw_path_report_whole(D | F, 5, true));
	assert_false(hw_path_report_whole(I | F, 5, true));
	assert_false(hw_path_report_whole(F, 1, true));  /* one hop is no path */
	assert_false(hw_path_report_whole(F, 5, false)); /* no flow */
	struct hw_record hops[3];
	memset(hops, 0, sizeof(hops));
	hops[0].valid = hops[1].valid = hops[2].valid = HW_V_PORTS | HW_V_FLOW;
	assert_true(hw_path_hops_have_ports(hops, 3));
	hops[1].valid = HW_V_FLOW; /* the middle hop without ports: a hole */
	assert_false(hw_path_hops_have_ports(hops, 3));
	assert_true(hw_path_hops_have_ports(hops, 1));
	assert_false(hw_path_changed(7, 7));
	assert_true(hw_path_changed(7, 8));
}

/* How a report is compared with its flow's known path (hw_path_report_use), worked through the BMv2 line
 * s1 > s2 > s3: the sink s3 reports 3 hops with F; the transit s2's queue report carries 2 hops. */
static void path_use(void **state)
{
	(void)state;
	const unsigned Q = HW_RF_CONGESTED_QUEUE, F = HW_RF_TRACKED_FLOW, D = HW_RF_DROPPED, I = HW_RF_INTERMEDIATE;
	assert_int_equal(hw_path_report_use(F, 3, true, 0), HW_PATH_WHOLE); /* the sink: sets the path */
	assert_int_equal(hw_path_report_use(F, 3, true, 3), HW_PATH_WHOLE);
	/* s2's queue report as BMv2 sent it, Q+F without I: 2 hops < the 3 known, so the path so far */
	assert_int_equal(hw_path_report_use(Q | F, 2, true, 3), HW_PATH_PREFIX);
	/* ... and with I set (the fixed P4 program), whatever is known */
	assert_int_equal(hw_path_report_use(Q | F | I, 2, true, 0), HW_PATH_PREFIX);
	assert_int_equal(hw_path_report_use(Q | F | I, 3, true, 3), HW_PATH_PREFIX);
	/* the sink's own congested queue: Q+F with as many hops as known (or more) is the whole path */
	assert_int_equal(hw_path_report_use(Q | F, 3, true, 3), HW_PATH_WHOLE);
	assert_int_equal(hw_path_report_use(Q | F, 4, true, 3), HW_PATH_WHOLE);
	/* a Q+F report with no path known yet cannot be judged shorter: taken whole (as before) */
	assert_int_equal(hw_path_report_use(Q | F, 2, true, 0), HW_PATH_WHOLE);
	/* a shorter sink report without Q is a change to a shorter path */
	assert_int_equal(hw_path_report_use(F, 2, true, 3), HW_PATH_WHOLE);
	assert_int_equal(hw_path_report_use(Q, 2, true, 3), HW_PATH_PREFIX);
	assert_int_equal(hw_path_report_use(D | F, 2, true, 3), HW_PATH_PREFIX);
	assert_int_equal(hw_path_report_use(F, 1, true, 3), HW_PATH_NONE);  /* one hop is no path */
	assert_int_equal(hw_path_report_use(F, 3, false, 3), HW_PATH_NONE); /* no flow */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(seq_in_order),       cmocka_unit_test(seq_gap_late_duplicate),
	    cmocka_unit_test(seq_window_edge),    cmocka_unit_test(seq_wrap_22),
	    cmocka_unit_test(seq_wrap_32),        cmocka_unit_test(seq_sender_reset),
	    cmocka_unit_test(seq_bits_of_format), cmocka_unit_test(path_sig_value),
	    cmocka_unit_test(path_sig_fields),    cmocka_unit_test(path_rule),
	    cmocka_unit_test(path_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
