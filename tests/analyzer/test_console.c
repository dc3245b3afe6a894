/* Unit test of the console output (lib/outputs/console.c) over HTTP on loopback: the per-queue millisecond
 * ring behind /api/queue (highest occupancy and latency per ms, the 2,000 ms window), its errors, the page. */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "an_outputs.h"
#include "http_client.h"

#define MS 1000000ull /* ns */

static char base[64];
static struct an_output *con;

/* A loopback port nothing listens on now (the kernel's choice). */
static int free_port(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof(a);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || getsockname(s, (struct sockaddr *)&a, &n)) {
		if (s >= 0)
			close(s);
		return -1;
	}
	close(s);
	return ntohs(a.sin_port);
}

static int setup(void **state)
{
	(void)state;
	char err[256] = "";
	for (int i = 0; i < 20 && !con; i++) { /* another process may take the port in between: try another */
		char addr[32];
		snprintf(addr, sizeof(addr), "127.0.0.1:%d", free_port());
		const struct an_console_opts o = {.addr = addr};
		con = an_out_console(&o, err, sizeof(err));
		snprintf(base, sizeof(base), "http://%s", addr);
	}
	if (!con)
		fprintf(stderr, "an_out_console: %s\n", err);
	return con ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	con->ops->close(con);
	return 0;
}

/* GET base+path: the status, the body into body. */
static long get(const char *path, char *body, size_t size)
{
	char url[256], err[256];
	snprintf(url, sizeof(url), "%s%s", base, path);
	const struct hw_http_opts o = {.timeout_ms = 30000, .body_max = size - 1};
	struct hw_http *h = hw_http_open(url, &o, err, sizeof(err));
	assert_non_null(h);
	struct hw_http_reply r;
	hw_http_get(h, &r);
	snprintf(body, size, "%s", r.body ? r.body : "");
	long status = r.status;
	hw_http_close(h);
	return status;
}

/* A record of queue 2 of port 3 of node 7 (the other fields zero). */
static struct hw_record rec(uint64_t t_ns, uint32_t occ, uint32_t lat, uint32_t valid)
{
	return (struct hw_record){.time_ns = t_ns,
	                          .node_id = 7,
	                          .egress_port = 3,
	                          .queue_id = 2,
	                          .queue_occupancy = occ,
	                          .hop_latency = lat,
	                          .valid = valid};
}

static void test_queue_ring(void **state)
{
	(void)state;
	const uint32_t all = HW_V_PORTS | HW_V_QUEUE | HW_V_HOP_LATENCY;
	struct hw_record r[6] = {
	    rec(1000 * MS + 200000, 100, 500, all),                     /* ms 1000 */
	    rec(1000 * MS + 700000, 300, 400, all),                     /* ms 1000: occupancy 300 is the higher */
	    rec(1001 * MS + 100000, 50, 9999, HW_V_PORTS | HW_V_QUEUE), /* ms 1001: no latency bit, latency 0 */
	    rec(1001 * MS + 200000, 77777, 1, HW_V_PORTS),              /* no queue: not in any ring */
	    rec(1001 * MS + 300000, 88888, 1, all),                     /* no egress port: not in any ring */
	};
	r[4].egress_port = HW_PORT_NONE;
	r[5] = rec(1001 * MS + 400000, 40, 700, all); /* ms 1001: occupancy 50 stays, latency 700 */
	con->ops->records(con, NULL, r, 6);
	char body[4096];
	assert_int_equal(get("/api/queue?node=7&port=3&queue=2", body, sizeof(body)), 200);
	/* per ms: the highest occupancy and the highest latency of its records, in ms since the epoch */
	assert_non_null(strstr(body, "\"known\":true"));
	assert_non_null(strstr(body, "\"points\":[[1000,300,500],[1001,50,700]]"));

	/* 2,500 ms later: the window is the newest 2,000 ms (1501 .. 3500), so ms 1000 and 1001 are out */
	struct hw_record late = rec(3500 * MS, 9, 11, all);
	con->ops->records(con, NULL, &late, 1);
	assert_int_equal(get("/api/queue?node=7&port=3&queue=2", body, sizeof(body)), 200);
	assert_non_null(strstr(body, "\"points\":[[3500,9,11]]"));

	/* another queue of the same port has no ring */
	assert_int_equal(get("/api/queue?node=7&port=3&queue=1", body, sizeof(body)), 200);
	assert_non_null(strstr(body, "\"known\":false"));
	assert_non_null(strstr(body, "\"points\":[]"));
}

static void test_errors_and_page(void **state)
{
	(void)state;
	char body[8192];
	assert_int_equal(get("/api/queue?node=7&port=3", body, sizeof(body)), 400);
	assert_int_equal(get("/api/queue?node=7&port=3&queue=256", body, sizeof(body)), 400);
	assert_int_equal(get("/api/queue?node=x7&port=3&queue=2", body, sizeof(body)), 400);
	assert_int_equal(get("/api/nothing", body, sizeof(body)), 404);
	assert_int_equal(get("/metrics", body, sizeof(body)), 404); /* the console's server has no /metrics */
	/* before the first tick: no snapshot yet, said so */
	assert_int_equal(get("/api/fabric", body, sizeof(body)), 200);
	assert_non_null(strstr(body, "\"pending\":true"));
	assert_int_equal(get("/console/", body, sizeof(body)), 200);
	assert_non_null(strstr(body, "<script src=\"/console/console.js\">"));
	assert_int_equal(get("/console/console.js", body, sizeof(body)), 200);
	assert_int_equal(get("/console/console.css", body, sizeof(body)), 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_queue_ring),
	    cmocka_unit_test(test_errors_and_page),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
