/* /metrics rendering when the workers' key counts are stale (issue 22 item 2): every slot of the queue and
 * sender tables in use while the counts still say 0, as a scrape can read them while workers fill slots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collector.h"
#include "metrics.h"
#include "worker.h"

/* Lines of text that start with prefix. */
static unsigned lines_starting(const char *text, const char *prefix)
{
	unsigned n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	return n;
}

static void stale_counts_full_tables(void **state)
{
	(void)state;
	enum { QUEUES = 4096, SENDERS = 1024 };
	struct hw_worker *w = calloc(1, sizeof(*w));
	assert_non_null(w);
	assert_int_equal(hw_queue_table_init(&w->queues, QUEUES), 0);
	assert_int_equal(hw_seq_tracker_init(&w->seqs, SENDERS), 0);
	assert_int_equal(w->queues.mask + 1, QUEUES);
	assert_int_equal(w->seqs.mask + 1, SENDERS);
	/* every slot a distinct key, n left at 0: the merge hash is first sized for 0 keys (16 entries) */
	for (uint32_t s = 0; s <= w->queues.mask; s++) {
		w->queues.slots[s].node = 0x0a000000u + s / 64;
		w->queues.slots[s].port = s % 64;
		w->queues.slots[s].queue = 3;
		w->queues.slots[s].reports = 1;
		w->queues.slots[s].used = 1;
	}
	for (uint32_t s = 0; s <= w->seqs.mask; s++) {
		w->seqs.slots[s].node = 0x0a000000u + s;
		w->seqs.slots[s].received = 5;
		w->seqs.slots[s].used = 1;
	}
	struct hw_collector c;
	memset(&c, 0, sizeof(c));
	c.cfg.latency_unit_ns = 1;
	c.cfg.occupancy_unit_bytes = 1;
	c.workers = &w;
	c.n_workers = 1;
	assert_int_equal(hw_collector_distinct_queues(&c), QUEUES);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	hw_metrics_render(&c, f);
	assert_int_equal(fclose(f), 0);
	/* one series per key: 4096 queues, 1024 senders */
	assert_int_equal(lines_starting(text, "hopwatch_queue_reports_total{"), QUEUES);
	assert_int_equal(lines_starting(text, "hopwatch_report_packets_received_total{"), SENDERS);
	assert_non_null(strstr(text, "hopwatch_queue_reports_total{node=\"10.0.0.63\",port=\"63\",queue=\"3\"} 1\n"));
	free(text);
	hw_queue_table_free(&w->queues);
	hw_seq_tracker_free(&w->seqs);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(stale_counts_full_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
