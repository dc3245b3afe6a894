/* Unit test of what the alert sink POSTs: the Alertmanager and webhook bodies, received by a
 * libmicrohttpd server on loopback, with quotes, backslashes and control characters escaped. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "hopwatch/alert_sink.h"

static char got_url[128], got_body[4096];
static size_t got_len;

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *data_size, void **req)
{
	(void)cls;
	(void)method;
	(void)version;
	static int first;
	if (!*req) {
		*req = &first;
		got_len = 0;
		got_body[0] = 0;
		snprintf(got_url, sizeof(got_url), "%s", url);
		return MHD_YES;
	}
	if (*data_size) {
		size_t room = sizeof(got_body) - 1 - got_len, k = *data_size < room ? *data_size : room;
		memcpy(got_body + got_len, data, k);
		got_len += k;
		got_body[got_len] = 0;
		*data_size = 0;
		return MHD_YES;
	}
	struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* An event whose node name holds a quote and a backslash and whose detail ends in a newline. */
static struct hw_an_event odd_event(void)
{
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	e.id = 7;
	snprintf(e.alertname, sizeof(e.alertname), "X");
	e.severity = "warning";
	snprintf(e.node, sizeof(e.node), "sw\"1\\");
	e.port = UINT32_MAX;
	e.queue = -1;
	e.hw_id = -1;
	snprintf(e.detail, sizeof(e.detail), "d\n");
	e.start_ns = 1767225600000000000ull; /* 20454 days after 1970-01-01: 2026-01-01T00:00:00Z */
	return e;
}

/* Post one event through a sink of kind to the server; got_body then holds what arrived. */
static void post_one(enum hw_sink_kind kind)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, NULL,
	                                        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	assert_non_null(d);
	char url[64], err[256];
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	struct hw_alert_sink *s = hw_alert_sink_start(kind, url, 4, 0, err, sizeof(err));
	assert_non_null(s);
	struct hw_an_event e = odd_event();
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	assert_int_equal(hw_alert_sink_drain(s, 10000), 1);
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.posts_ok, 1);
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

static void test_alertmanager_body(void **state)
{
	(void)state;
	post_one(HW_SINK_ALERTMANAGER);
	assert_string_equal(got_url, "/api/v2/alerts");
	/* labels alertname, severity, job, node (node_id 0, no port, queue or hw_id: left out); the summary is
	 * the detail; the quote and backslash of sw"1\ get a backslash and the newline becomes \u000a (they
	 * were '_' before); startsAt with 9 fraction digits */
	assert_string_equal(got_body,
	                    "[{\"labels\":{\"alertname\":\"X\",\"severity\":\"warning\",\"job\":\"hopwatch-analyzer\","
	                    "\"node\":\"sw\\\"1\\\\\"},\"annotations\":{\"summary\":\"d\\u000a\",\"event_id\":\"7\"},"
	                    "\"startsAt\":\"2026-01-01T00:00:00.000000000Z\"}]");
}

static void test_webhook_body(void **state)
{
	(void)state;
	post_one(HW_SINK_WEBHOOK);
	assert_string_equal(got_url, "/");
	/* {"events":[ the event's JSON line ]}: firing, node_id 0 always there, no numbers or flows */
	assert_string_equal(got_body,
	                    "{\"events\":[{\"event\":\"X\",\"state\":\"firing\",\"id\":7,\"severity\":\"warning\","
	                    "\"start_ns\":1767225600000000000,\"node_id\":0,\"node\":\"sw\\\"1\\\\\","
	                    "\"numbers\":{},\"flows\":[],\"detail\":\"d\\u000a\"}]}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alertmanager_body),
	    cmocka_unit_test(test_webhook_body),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
