/* cmocka tests of the ClickHouse sink without ClickHouse: the RowBinary layout byte by byte, and
 * small HTTP servers in the test that answer 500 then 200, to count retries, acknowledged inserts,
 * failovers between replicas, drops when the queue is full, and what is left at close. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "clickhouse_sink.h"
#include "collector_config.h"

#define ROW 135u /* bytes of one RowBinary row of hw_ch_columns */

static void fill(struct hw_record *r, uint32_t seed)
{
	memset(r, 0, sizeof(*r));
	r->time_ns = 0x0102030405060708ull + seed;
	r->report_node = 0x11121314u;
	r->hw_id = 0x15;
	r->report_seq = 0x16171819u;
	r->report_flags = 0x1a;
	r->format = 3;
	r->int_version = 3;
	r->valid = 0x0fff;
	r->hop_index = 0x1b;
	r->path_len = 0x1c;
	r->node_id = 0x21222324u;
	r->roce_dest_qp = 0x00313233u;
	for (int i = 0; i < 16; i++) {
		r->src_ip[i] = (uint8_t)(0x40 + i);
		r->dst_ip[i] = (uint8_t)(0x60 + i);
	}
	r->src_port = 0x7172;
	r->dst_port = 0x7374;
	r->flow_hash = 0x8182838485868788ull;
}

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static void test_rowbinary_layout(void **state)
{
	(void)state;
	struct hw_record r[2];
	fill(&r[0], 0);
	fill(&r[1], 1);
	r[1].time_ns = r[0].time_ns; /* the next record of the same report packet */
	r[1].report_node = r[0].report_node;
	r[1].hw_id = r[0].hw_id;
	r[1].report_seq = r[0].report_seq;
	uint8_t out[2 * HW_CH_ROW_MAX];
	assert_int_equal(hw_ch_rowbinary(r, 2, 7, out), 2 * ROW);
	const uint8_t *p = out;
	assert_int_equal(le(p, 8), r[0].time_ns);
	assert_int_equal(le(p + 8, 4), r[0].report_node);
	assert_int_equal(p[12], r[0].hw_id);
	assert_int_equal(le(p + 13, 4), r[0].report_seq);
	assert_int_equal(p[17], r[0].report_flags);
	assert_int_equal(p[18], 3); /* format Enum8 'tr2.0' */
	assert_int_equal(p[19], 3); /* int_version Enum8 '2.1' */
	assert_int_equal(le(p + 20, 4), 0x0fff);
	assert_int_equal(p[24], r[0].hop_index);
	assert_int_equal(p[25], r[0].path_len);
	assert_int_equal(le(p + 26, 4), r[0].node_id);
	/* src_ip, dst_ip: FixedString(16) after the 4 + 4 + 4 + 4 + 4 + 1 + 4 + 8 + 8 + 4 + 1 + 4 + 1 bytes
	 * of ports .. drop_reason */
	assert_memory_equal(p + 81, r[0].src_ip, 16);
	assert_memory_equal(p + 97, r[0].dst_ip, 16);
	assert_int_equal(le(p + 113, 2), r[0].src_port);
	assert_int_equal(le(p + 115, 2), r[0].dst_port);
	assert_int_equal(le(p + 121, 4), r[0].roce_dest_qp);
	assert_int_equal(le(p + 125, 8), r[0].flow_hash);
	assert_int_equal(le(p + 133, 2), 7);            /* report_pos: the first row's is given */
	assert_int_equal(le(p + ROW + 133, 2), 8);      /* ... the next of the same report counts on */
	assert_int_equal(le(p + ROW, 8), r[1].time_ns); /* rows follow each other */
	/* the column list names every field once, in this order */
	assert_non_null(strstr(hw_ch_columns, "time_ns,report_node,hw_id,report_seq,report_flags,format,"));
	assert_non_null(strstr(hw_ch_columns, ",roce_opcode,roce_dest_qp,flow_hash,report_pos"));
}

/* ---- a fake ClickHouse: answers the first `fail_first` inserts with 500, the rest with 200 ---- */

struct fake {
	int fd;
	unsigned port;
	pthread_t th;
	volatile int stop;
	int fail_first;
	int requests;
	uint64_t rows_ok; /* rows of inserts answered 200 */
	char first_query[4096];
	uint64_t first_body; /* FNV-1a of the first request's body */
};

static uint64_t fnv(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
	return h;
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	while (!f->stop) {
		int c = accept(f->fd, NULL, NULL);
		if (c < 0)
			continue;
		static char buf[1 << 22];
		size_t got = 0;
		long clen = -1;
		char *hdr_end = NULL;
		for (;;) {
			ssize_t n = recv(c, buf + got, sizeof(buf) - 1 - got, 0);
			if (n <= 0)
				break;
			got += (size_t)n;
			buf[got] = 0;
			if (!hdr_end && (hdr_end = strstr(buf, "\r\n\r\n"))) {
				char *cl = strcasestr(buf, "Content-Length:");
				clen = cl ? strtol(cl + 15, NULL, 10) : 0;
			}
			if (hdr_end && (long)(got - (size_t)(hdr_end + 4 - buf)) >= clen)
				break;
		}
		if (!f->requests) {
			snprintf(f->first_query, sizeof(f->first_query), "%.*s", (int)strcspn(buf, "\r"), buf);
			if (hdr_end)
				f->first_body = fnv(hdr_end + 4, got - (size_t)(hdr_end + 4 - buf));
		}
		bool ok = f->requests++ >= f->fail_first;
		if (ok && clen > 0)
			f->rows_ok += (uint64_t)clen / ROW;
		const char *resp = ok ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
		                      : "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 20\r\nConnection: "
		                        "close\r\n\r\nCode: 241. too busy\n";
		ssize_t w = send(c, resp, strlen(resp), MSG_NOSIGNAL);
		(void)w;
		close(c);
	}
	return NULL;
}

static void fake_start(struct fake *f, int fail_first)
{
	memset(f, 0, sizeof(*f));
	f->fail_first = fail_first;
	f->fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	assert_int_equal(bind(f->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	socklen_t l = sizeof(a);
	getsockname(f->fd, (struct sockaddr *)&a, &l);
	f->port = ntohs(a.sin_port);
	assert_int_equal(listen(f->fd, 16), 0);
	struct timeval tv = {0, 100000};
	setsockopt(f->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)); /* accept wakes up to see stop */
	pthread_create(&f->th, NULL, fake_main, f);
}

static void fake_stop(struct fake *f)
{
	f->stop = 1;
	pthread_join(f->th, NULL);
	close(f->fd);
}

static struct hw_record recs[4096];

static void test_retry_then_acknowledged(void **state)
{
	(void)state;
	struct fake f;
	fake_start(&f, 2); /* two failures, then 200s */
	char url[128], err[256];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/?database=hopwatch", f.port);
	struct hw_ch_sink_opts o = {
	    .url = url, .table = "hops", .batch_records = 100, .batch_ms = 50, .queue_records = 10000, .drain_s = 10};
	struct hw_ch_sink *s = hw_ch_sink_open(&o, err, sizeof(err));
	assert_non_null(s);
	for (uint32_t i = 0; i < 1000; i++)
		fill(&recs[i], i);
	hw_ch_sink_put(s, recs, 250);
	hw_ch_sink_put(s, recs + 250, 750);
	struct hw_ch_sink_counts k;
	hw_ch_sink_close(s, &k);
	fake_stop(&f);
	assert_int_equal(k.inserted, 1000);
	assert_int_equal(k.dropped, 0);
	assert_int_equal(k.retries, 2);
	assert_int_equal(k.queued, 0);
	assert_int_equal(f.rows_ok, 1000);    /* nothing counted that the server did not take */
	assert_int_equal(f.requests, 10 + 2); /* ten batches of 100, two of them tried twice */
	assert_non_null(strstr(f.first_query, "POST /?database=hopwatch&wait_end_of_query=1&query=INSERT"));
	assert_non_null(strstr(f.first_query, "FORMAT%20RowBinary"));
}

/* A sink of batches of 100 records over replica URLs (url and/or urls), with its failback time. */
static struct hw_ch_sink *open_replicas(const char *url, const char *const *urls, unsigned n_urls, double failback_s)
{
	char err[256];
	struct hw_ch_sink_opts o = {.url = url,
	                            .urls = urls,
	                            .n_urls = n_urls,
	                            .table = "hops",
	                            .batch_records = 100,
	                            .batch_ms = 10,
	                            .queue_records = 10000,
	                            .drain_s = 10,
	                            .failback_s = failback_s};
	struct hw_ch_sink *s = hw_ch_sink_open(&o, err, sizeof(err));
	assert_non_null(s);
	return s;
}

/* Two replicas as one comma list: the first answers 500 to everything, so the first batch fails there
 * and goes to the second, unchanged, and every later batch goes to the second at once (failback only
 * after 1000 s). */
static void test_failover_to_the_next_replica(void **state)
{
	(void)state;
	struct fake a, b;
	fake_start(&a, 1 << 30);
	fake_start(&b, 0);
	char url[256];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/?database=hopwatch,http://127.0.0.1:%u/?database=hopwatch",
	         a.port, b.port);
	struct hw_ch_sink *s = open_replicas(url, NULL, 0, 1000);
	for (uint32_t i = 0; i < 1000; i++)
		fill(&recs[i], i);
	hw_ch_sink_put(s, recs, 1000);
	struct hw_ch_sink_counts k;
	hw_ch_sink_close(s, &k);
	fake_stop(&a);
	fake_stop(&b);
	assert_int_equal(k.inserted, 1000);
	assert_int_equal(k.dropped, 0);
	assert_int_equal(k.retries, 1);   /* the first batch, on replica a */
	assert_int_equal(k.failovers, 1); /* ... sent on to b, which took the rest too */
	assert_int_equal(a.requests, 1);
	assert_int_equal(a.rows_ok, 0);
	assert_int_equal(b.requests, 10); /* ten batches of 100 */
	assert_int_equal(b.rows_ok, 1000);
	/* the batch a refused reached b byte for byte: block deduplication needs the same block */
	assert_true(a.first_body == b.first_body);
	assert_non_null(strstr(b.first_query, "POST /?database=hopwatch&wait_end_of_query=1&query=INSERT"));
}

/* Failback: after failback_s the first replica (now answering) gets the next batch again. */
static void test_failback_to_the_first_replica(void **state)
{
	(void)state;
	struct fake a, b;
	fake_start(&a, 1); /* refuses its first insert only */
	fake_start(&b, 0);
	char u0[128], u1[128];
	snprintf(u0, sizeof(u0), "http://127.0.0.1:%u/", a.port);
	snprintf(u1, sizeof(u1), "http://127.0.0.1:%u/", b.port);
	const char *const urls[2] = {u0, u1};
	struct hw_ch_sink *s = open_replicas(NULL, urls, 2, 0.2);
	hw_ch_sink_put(s, recs, 100);
	struct hw_ch_sink_counts k;
	for (int i = 0; i < 6000; i++) { /* up to 60 s on a loaded host: the first batch reaches b */
		hw_ch_sink_counts(s, &k);
		if (k.inserted == 100)
			break;
		usleep(10000);
	}
	assert_int_equal(k.inserted, 100);
	usleep(300000); /* more than failback_s since the failover */
	hw_ch_sink_put(s, recs + 100, 100);
	hw_ch_sink_close(s, &k);
	fake_stop(&a);
	fake_stop(&b);
	assert_int_equal(k.inserted, 200);
	assert_int_equal(k.failovers, 1);
	assert_int_equal(b.rows_ok, 100); /* the first batch */
	assert_int_equal(a.rows_ok, 100); /* the second: back on the first replica */
	assert_int_equal(a.requests, 2);
}

static void test_queue_full_drops_and_close_counts_the_rest(void **state)
{
	(void)state;
	char err[256];
	/* nobody listens on port 1 of loopback: every insert fails */
	struct hw_ch_sink_opts o = {.url = "http://127.0.0.1:1/",
	                            .table = "hops",
	                            .batch_records = 100,
	                            .batch_ms = 10,
	                            .queue_records = 300,
	                            .drain_s = 0.3};
	struct hw_ch_sink *s = hw_ch_sink_open(&o, err, sizeof(err));
	assert_non_null(s);
	hw_ch_sink_put(s, recs, 250);
	hw_ch_sink_put(s, recs, 250); /* 50 fit, 200 dropped at once */
	struct hw_ch_sink_counts k;
	hw_ch_sink_counts(s, &k);
	assert_int_equal(k.dropped, 200);
	assert_int_equal(k.queued, 300);
	hw_ch_sink_close(s, &k);
	assert_int_equal(k.inserted, 0);
	assert_int_equal(k.dropped, 500); /* the 300 still queued when the drain time ran out */
	assert_int_not_equal(k.retries, 0);
}

static void test_open_rejects_bad_options(void **state)
{
	(void)state;
	char err[256];
	struct hw_ch_sink_opts o = {
	    .url = "127.0.0.1:8123", .table = "hops", .batch_records = 10, .batch_ms = 10, .queue_records = 100};
	assert_null(hw_ch_sink_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "127.0.0.1:8123"));
	o.url = "ch-1:8123,http://ch-2:8123/"; /* a list whose first replica lacks http:// */
	assert_null(hw_ch_sink_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "'ch-1:8123'"));
	o.url = "http://u:secret@h1/,http://h2/,http://h3/,http://h4/,http://h5/,http://h6/,http://h7/,http://h8/,"
	        "http://h9/";
	assert_null(hw_ch_sink_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "more than 8 replica URLs"));
	o.url = "http://127.0.0.1:8123/";
	o.table = "hops; DROP TABLE x";
	assert_null(hw_ch_sink_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "table"));
	o.table = "hopwatch.hops";
	o.queue_records = 5;
	assert_null(hw_ch_sink_open(&o, err, sizeof(err)));
	assert_non_null(strstr(err, "at least one batch"));
}

static int load(struct hw_collector_config *c, const char *json, char *err, size_t errlen)
{
	char path[] = "/tmp/hw-ch-config-XXXXXX";
	int fd = mkstemp(path);
	assert_return_code(fd, errno);
	assert_int_equal(write(fd, json, strlen(json)), (ssize_t)strlen(json));
	close(fd);
	hw_collector_config_default(c);
	int rc = hw_collector_config_load(c, path, err, errlen);
	unlink(path);
	return rc;
}

static void test_config_keys(void **state)
{
	(void)state;
	struct hw_collector_config c;
	char err[512];
	assert_int_equal(load(&c, "{\"sinks\": {}}", err, sizeof(err)), 0);
	assert_int_equal(c.n_clickhouse, 0);
	assert_string_equal(c.clickhouse_table, "hops");
	assert_int_equal(c.clickhouse_batch_records, 16384);
	assert_int_equal(c.clickhouse_queue_records, 262144);
	assert_int_equal(load(&c,
	                      "{\"sinks\": {\"clickhouse\": \"http://h:8123/?database=d\", \"clickhouse_table\": "
	                      "\"d.t\", \"clickhouse_batch_records\": 500, \"clickhouse_batch_ms\": 20, "
	                      "\"clickhouse_queue_records\": 9000, \"clickhouse_drain_seconds\": 2.5}}",
	                      err, sizeof(err)),
	                 0);
	assert_int_equal(c.n_clickhouse, 1); /* a string alone: one replica */
	assert_string_equal(c.clickhouse[0], "http://h:8123/?database=d");
	assert_string_equal(c.clickhouse_table, "d.t");
	assert_int_equal(c.clickhouse_batch_records, 500);
	assert_int_equal(c.clickhouse_batch_ms, 20);
	assert_int_equal(c.clickhouse_queue_records, 9000);
	assert_true(c.clickhouse_drain_s == 2.5);
	free((char *)c.clickhouse[0]); /* the loader keeps its strings for the life of the process */
	free((char *)c.clickhouse_table);
	assert_int_equal(
	    load(&c, "{\"sinks\": {\"clickhouse\": [\"http://a:8123/\", \"http://b:8123/\"]}}", err, sizeof(err)), 0);
	assert_int_equal(c.n_clickhouse, 2); /* an array: the replicas in failover order */
	assert_string_equal(c.clickhouse[0], "http://a:8123/");
	assert_string_equal(c.clickhouse[1], "http://b:8123/");
	free((char *)c.clickhouse[0]);
	free((char *)c.clickhouse[1]);
	assert_int_equal(load(&c, "{\"sinks\": {\"clickhouse\": null}}", err, sizeof(err)), 0);
	assert_int_equal(c.n_clickhouse, 0);
	assert_int_equal(load(&c, "{\"sinks\": {\"clickhouse\": [\"http://a/\", null]}}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"clickhouse\": expected a string or an array of at most 8 URLs"));
	assert_int_equal(load(&c, "{\"sinks\": {\"clickhouse\": [\"ftp://a/\"]}}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "an HTTP URL"));
	assert_int_equal(load(&c, "{\"sinks\": {\"clickhouse_batch_records\": 0}}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"clickhouse_batch_records\": expected an integer from 1"));
	assert_int_equal(load(&c, "{\"sinks\": {\"clickhouse_tabel\": \"x\"}}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "clickhouse_tabel"));
	assert_int_equal(load(&c, "{\"sinks\": {\"clickhouse\": 5}}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"clickhouse\": expected a string or an array of at most 8 URLs"));
	assert_non_null(strstr(err, "or null"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rowbinary_layout),
	    cmocka_unit_test(test_retry_then_acknowledged),
	    cmocka_unit_test(test_failover_to_the_next_replica),
	    cmocka_unit_test(test_failback_to_the_first_replica),
	    cmocka_unit_test(test_queue_full_drops_and_close_counts_the_rest),
	    cmocka_unit_test(test_open_rejects_bad_options),
	    cmocka_unit_test(test_config_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
