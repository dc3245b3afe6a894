/* The collector's report-loss counter and the analyzer's TelemetryReportLoss alert, fed the same reordered
 * report sequence, count the same loss (both use lib/facts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/analyzer.h"
#include "seq_tracker.h"

/* What the analyzer emitted: events, and the numbers of the raised TelemetryReportLoss. */
struct seen {
	int events, raised;
	double lost, expected;
};

static void on_event(void *ctx, const struct hw_an_event *e)
{
	struct seen *s = ctx;
	s->events++;
	if (strcmp(e->alertname, "TelemetryReportLoss") != 0 || e->resolved)
		return;
	s->raised++;
	for (unsigned i = 0; i < e->n_numbers; i++) {
		if (strcmp(e->numbers[i].name, "lost") == 0)
			s->lost = e->numbers[i].value;
		else if (strcmp(e->numbers[i].name, "expected") == 0)
			s->expected = e->numbers[i].value;
	}
}

/* One single-hop TR v2.0 report of sender (node 1, hw_id 0) with sequence number seq at time t. */
static struct hw_record rec(uint64_t t, uint32_t seq)
{
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.time_ns = t;
	r.valid = HW_V_PORTS;
	r.format = HW_FORMAT_TR20;
	r.report_node = 1;
	r.report_seq = seq;
	r.node_id = 1;
	r.ingress_port = 1;
	r.egress_port = 2;
	r.path_len = 1;
	return r;
}

/* 0..9 in order; 12 then 10, 11 (reordered); 13..19; 25 then 21 late; 26..29; 12 again (a duplicate).
 * Lost: 12 skips 10, 11 (2); 10 and 11 arrive (0); 25 skips 20..24 (5); 21 arrives (4).  So 4 lost
 * (20, 22, 23, 24) of the 30 numbers 0..29: received 26 distinct numbers, reordered 10, 11, 21. */
static const uint32_t seqs[] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  12, 10, 11, 13,
                                14, 15, 16, 17, 18, 19, 25, 21, 26, 27, 28, 29, 12};

static void collector_and_analyzer_agree(void **state)
{
	(void)state;
	const size_t n = sizeof(seqs) / sizeof(seqs[0]);

	struct hw_seq_tracker t;
	assert_int_equal(hw_seq_tracker_init(&t, 16), 0);
	for (size_t i = 0; i < n; i++)
		hw_seq_tracker_add(&t, 1, 0, seqs[i], 22);
	const struct hw_seq_state *s = NULL;
	for (uint32_t i = 0; i <= t.mask; i++)
		if (t.slots[i].used)
			s = &t.slots[i];
	assert_non_null(s);
	assert_int_equal(s->lost, 4);
	assert_int_equal(s->reordered, 3);
	assert_int_equal(s->duplicate, 1);
	assert_int_equal(s->received, 27); /* every packet, the duplicate too */
	hw_seq_tracker_free(&t);

	struct hw_an_config cfg;
	hw_an_config_default(&cfg);
	cfg.enabled = 1u << HW_AN_REPORT_LOSS;
	char err[256];
	struct seen seen = {0};
	struct hw_analyzer *a = hw_an_create(&cfg, NULL, NULL, on_event, &seen, err, sizeof(err));
	assert_non_null(a);
	uint64_t time = 20000000000ull; /* 1 us apart: all in one window */
	for (size_t i = 0; i < n; i++, time += 1000) {
		struct hw_record r = rec(time, seqs[i]);
		hw_an_ingest(a, &r, 1);
	}
	hw_an_finish(a);
	struct hw_an_stats st;
	hw_an_stats(a, &st);
	assert_int_equal(st.reports_lost, 4);
	assert_int_equal(seen.events, 1); /* raised when the end of input closes the window; none clears it */
	assert_int_equal(seen.raised, 1);
	assert_int_equal((int)seen.lost, 4);
	assert_int_equal((int)seen.expected, 30); /* 26 received + 4 lost: the numbers 0..29 */
	hw_an_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(collector_and_analyzer_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
