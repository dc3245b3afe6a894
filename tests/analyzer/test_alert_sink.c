/* Unit tests of the alert sink: with a peer that accepts TCP but never answers, pushing stays fast (the
 * network is the sink thread's problem) and what does not fit the bounded queue and table is counted. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/alert_sink.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A loopback listener that never accepts: connects succeed, requests hang until curl's timeout. */
static int silent_peer(char *url, size_t size)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(url, size, "http://127.0.0.1:%u", ntohs(sa.sin_port));
	return fd;
}

static struct hw_an_event event(uint64_t id)
{
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	e.id = id;
	e.kind = HW_AN_HIGH_QUEUE;
	snprintf(e.alertname, sizeof(e.alertname), "%s", hw_an_kind_name(e.kind));
	e.severity = "warning";
	e.node_id = 1;
	e.port = (uint32_t)id;
	e.queue = 3;
	e.hw_id = -1;
	e.start_ns = 1767225600000000000ull;
	return e;
}

static void test_bounded_and_never_blocks(void **state)
{
	(void)state;
	char url[64], err[256];
	int fd = silent_peer(url, sizeof(url));
	struct hw_alert_sink *s = hw_alert_sink_start(HW_SINK_ALERTMANAGER, url, 4, 60000000000ull, err, sizeof(err));
	assert_non_null(s);
	uint64_t worst = 0;
	for (uint64_t i = 1; i <= 100; i++) {
		struct hw_an_event e = event(i);
		uint64_t t0 = now_ns();
		hw_alert_sink_push(s, &e, NULL);
		uint64_t dt = now_ns() - t0;
		if (dt > worst)
			worst = dt;
		if (i % 10 == 0)
			usleep(20000); /* let the thread take some into its table and hang in the POST */
	}
	assert_true(worst < 5000000); /* < 5 ms even though the peer never answers */
	assert_int_equal(hw_alert_sink_drain(s, 300), 0);
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.pushed, 100);
	assert_true(st.dropped >= 100 - 8); /* 4 in the hand-off ring + 4 in the table at the most */
	assert_int_equal(st.posts_ok, 0);
	hw_alert_sink_stop(s);
	close(fd);
}

static void test_bad_url(void **state)
{
	(void)state;
	char err[256];
	assert_null(hw_alert_sink_start(HW_SINK_WEBHOOK, "ftp://x", 4, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "ftp://x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bounded_and_never_blocks),
	    cmocka_unit_test(test_bad_url),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
