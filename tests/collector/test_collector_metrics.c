/* /metrics rendering when the workers' key counts are stale (issue 22 item 2): every slot of the queue and
 * sender tables in use while the counts still say 0, as a scrape can read them while workers fill slots;
 * the names file's labels (node_name, port_name), re-read when the file changes (issue 16); and the
 * per-queue series cap (item 4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collector.h"
#include "metrics.h"
#include "node_names.h"
#include "worker.h"

/* Lines of text that start with prefix. */
static unsigned lines_starting(const char *text, const char *prefix)
{
	unsigned n = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += strncmp(p, prefix, strlen(prefix)) == 0;
	return n;
}

/* Replace path's content with text. */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A collector of one worker w, units 1 ns and 1 byte. */
static void one_worker(struct hw_collector *c, struct hw_worker **w)
{
	memset(c, 0, sizeof(*c));
	c->cfg.latency_unit_ns = 1;
	c->cfg.occupancy_unit_bytes = 1;
	c->workers = w;
	c->n_workers = 1;
}

/* The /metrics text of c (malloc'ed). */
static char *render_text(const struct hw_collector *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	hw_metrics_render(c, f);
	assert_int_equal(fclose(f), 0);
	return text;
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
	/* every slot a distinct key.  The queue table's keys are slots[0, n), as its claims leave them (the merge
	 * reads no further); the sender table's count is left at 0, stale: the merge hash is first sized for
	 * 0 senders (16 entries) and must grow to hold all 1024. */
	for (uint32_t s = 0; s <= w->queues.mask; s++) {
		w->queues.slots[s].node = 0x0a000000u + s / 64;
		w->queues.slots[s].port = s % 64;
		w->queues.slots[s].queue = 3;
		w->queues.slots[s].reports = 1;
	}
	w->queues.n = QUEUES;
	for (uint32_t s = 0; s <= w->seqs.mask; s++) {
		w->seqs.slots[s].node = 0x0a000000u + s;
		w->seqs.slots[s].received = 5;
		w->seqs.slots[s].used = 1;
	}
	struct hw_collector c;
	one_worker(&c, &w);
	assert_int_equal(hw_collector_distinct_queues(&c), QUEUES);
	char *text = render_text(&c);
	/* one series per key: 4096 queues, 1024 senders */
	assert_int_equal(lines_starting(text, "hopwatch_queue_reports_total{"), QUEUES);
	assert_int_equal(lines_starting(text, "hopwatch_report_packets_received_total{"), SENDERS);
	assert_non_null(strstr(text, "hopwatch_queue_reports_total{node=\"10.0.0.63\",port=\"63\",queue=\"3\"} 1\n"));
	free(text);
	hw_queue_table_free(&w->queues);
	hw_seq_tracker_free(&w->seqs);
	free(w);
}

/* The names file hopwatch-analyzer topology --names-out writes: node_name on the node's series, port_name on
 * the queue's where the file names the port; unnamed nodes and ports keep node and port alone; a changed
 * file is re-read at the next scrape, a bad one keeps the names read before. */
static void names_labels(void **state)
{
	(void)state;
	struct hw_worker *w = calloc(1, sizeof(*w));
	assert_non_null(w);
	assert_int_equal(hw_queue_table_init(&w->queues, 16), 0);
	assert_int_equal(hw_seq_tracker_init(&w->seqs, 16), 0);
	/* 184484097 = 10.255.1.1 (named leaf1, its port 3 named Ethernet3); 184484098 = 10.255.1.2 (not named) */
	const uint32_t node[2] = {184484097u, 184484098u};
	for (uint32_t s = 0; s < 2; s++) {
		w->queues.slots[s].node = node[s];
		w->queues.slots[s].port = 3;
		w->queues.slots[s].queue = 1;
		w->queues.slots[s].reports = 7;
		w->seqs.slots[s].node = node[s];
		w->seqs.slots[s].hw_id = 2;
		w->seqs.slots[s].received = 5;
		w->seqs.slots[s].used = 1;
	}
	w->queues.n = 2; /* the queue keys are slots[0, n) */
	char path[] = "/tmp/hw-names-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	/* a name with a quote and a backslash: escaped in the label value as the exposition format asks */
	write_file(path, "node\t184484097\tleaf\"1\\\nport\t184484097\t3\tEthernet3\nport\t184484097\t4\tEthernet4\n");
	struct hw_collector c;
	one_worker(&c, &w);
	char err[512];
	c.names = hw_node_names_open(path, err, sizeof(err));
	assert_non_null(c.names);
	char *text = render_text(&c);
	assert_non_null(strstr(text, "hopwatch_queue_reports_total{node=\"10.255.1.1\",node_name=\"leaf\\\"1\\\\\","
	                             "port=\"3\",port_name=\"Ethernet3\",queue=\"1\"} 7\n"));
	assert_non_null(strstr(text, "hopwatch_queue_reports_total{node=\"10.255.1.2\",port=\"3\",queue=\"1\"} 7\n"));
	assert_non_null(strstr(text,
	                       "hopwatch_report_packets_received_total{node=\"10.255.1.1\",node_name=\"leaf\\\"1\\\\\","
	                       "hw_id=\"2\"} 5\n"));
	assert_non_null(strstr(text, "hopwatch_node_last_report_timestamp_seconds{node=\"10.255.1.2\"} "));
	assert_non_null(strstr(text, "hopwatch_queue_hop_latency_seconds_count{node=\"10.255.1.1\",node_name="));
	free(text);
	/* renamed (a longer file: its size differs, so the change is seen whatever the clock's resolution) */
	write_file(path, "node\t184484097\tleaf-one\nnode\t184484098\tleaf2\n");
	text = render_text(&c);
	assert_non_null(strstr(text,
	                       "hopwatch_queue_reports_total{node=\"10.255.1.1\",node_name=\"leaf-one\",port=\"3\","
	                       "queue=\"1\"} 7\n"));
	assert_non_null(strstr(text, "hopwatch_queue_reports_total{node=\"10.255.1.2\",node_name=\"leaf2\",port=\"3\","
	                             "queue=\"1\"} 7\n"));
	free(text);
	/* a bad line (no name): the names read before stay */
	write_file(path, "node\t184484097\n");
	text = render_text(&c);
	assert_non_null(strstr(text, "node_name=\"leaf-one\""));
	free(text);
	hw_node_names_close(c.names);
	/* at start a bad file is an error naming the file and the line */
	write_file(path, "node\t1\tspine1\nswitch\t2\tleaf1\n");
	assert_null(hw_node_names_open(path, err, sizeof(err)));
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "line 2"));
	unlink(path);
	assert_null(hw_node_names_open(path, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot open"));
	hw_queue_table_free(&w->queues);
	hw_seq_tracker_free(&w->seqs);
	free(w);
}

/* The series cap (issue 22 item 4: a full queue table rendered 153 MB per scrape): with 1000 queues and
 * metrics_max_queues 10, only the 10 with the most hop records get series, and the other 990 are counted. */
static void series_cap(void **state)
{
	(void)state;
	enum { QUEUES = 1024, KEYS = 1000, MAX = 10 };
	struct hw_worker *w = calloc(1, sizeof(*w));
	assert_non_null(w);
	assert_int_equal(hw_queue_table_init(&w->queues, QUEUES), 0);
	assert_int_equal(hw_seq_tracker_init(&w->seqs, 16), 0);
	/* queue k of node 10.0.0.1 (port k, queue 0) has k + 1 hop records: the 10 busiest are ports 990..999 */
	for (uint32_t k = 0; k < KEYS; k++) {
		struct hw_queue_stats *q = &w->queues.slots[k];
		q->node = 0x0a000001u;
		q->port = k;
		q->queue = 0;
		q->reports = k + 1;
	}
	w->queues.n = KEYS;
	struct hw_collector c;
	one_worker(&c, &w);
	c.cfg.metrics_max_queues = MAX;
	char *text = render_text(&c);
	assert_int_equal(lines_starting(text, "hopwatch_queue_reports_total{"), MAX);
	/* every per-queue family is capped: 12 bucket lines (11 bounds + +Inf) per queue per histogram */
	assert_int_equal(lines_starting(text, "hopwatch_queue_hop_latency_seconds_bucket{"), MAX * 12);
	assert_int_equal(lines_starting(text, "hopwatch_queue_occupancy_observed_bytes_count{"), MAX);
	assert_non_null(
	    strstr(text, "hopwatch_queue_reports_total{node=\"10.0.0.1\",port=\"999\",queue=\"0\"} 1000\n"));
	assert_non_null(strstr(text, "hopwatch_queue_reports_total{node=\"10.0.0.1\",port=\"990\",queue=\"0\"} 991\n"));
	assert_null(strstr(text, "port=\"989\""));
	assert_non_null(strstr(text, "\nhopwatch_collector_metrics_queues_omitted 990\n"));
	free(text);
	/* 0 = no cap: all 1000 shown, none omitted */
	c.cfg.metrics_max_queues = 0;
	text = render_text(&c);
	assert_int_equal(lines_starting(text, "hopwatch_queue_reports_total{"), KEYS);
	assert_non_null(strstr(text, "\nhopwatch_collector_metrics_queues_omitted 0\n"));
	free(text);
	hw_queue_table_free(&w->queues);
	hw_seq_tracker_free(&w->seqs);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(stale_counts_full_tables),
	    cmocka_unit_test(names_labels),
	    cmocka_unit_test(series_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
