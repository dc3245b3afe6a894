/* Unit tests of the alert sink: with a peer that accepts TCP but never answers, pushing hands over or
 * refuses at once (the network is the sink thread's problem) and what does not fit the bounded queue and
 * table is counted as dropped.  No assertion reads the clock: the counts hold on a machine of any speed. */
#include <arpa/inet.h>
#include <errno.h>
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

#include "hopwatch/alert_sink.h"

/* A loopback listener that never accepts: connects succeed, requests hang until curl's timeout. */
static int silent_peer(char *url, size_t size)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	assert_return_code(fd, errno);
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
	struct hw_alert_sink *s = hw_alert_sink_start(
	    HW_SINK_ALERTMANAGER, url, &(struct hw_alert_sink_opts){.capacity = 4, .resend_ns = 60000000000ull}, err,
	    sizeof(err));
	assert_non_null(s);
	uint64_t refused = 0;
	for (uint64_t i = 1; i <= 100; i++) {
		struct hw_an_event e = event(i);
		int queued = hw_alert_sink_push(s, &e, NULL);
		assert_in_range(queued, 0, 1);
		refused += !queued;
		if (i % 10 == 0)
			usleep(20000); /* let the thread take some into its table and hang in the POST */
	}
	/* Nothing can be delivered: the wait ends with alerts still undelivered. */
	assert_int_equal(hw_alert_sink_drain(s, 300), 0);
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.pushed, 100);
	/* Whatever the thread's pace, at most 4 wait in the hand-off ring and 4 in the table (capacity 4
	 * each), and at most 4 more sit in the batch the thread took from the ring, whose failed merges it
	 * counts only once its POST returns: at least 100 - 12 = 88 of the 100 are counted as dropped.
	 * Every refused push is among them. */
	assert_in_range(st.dropped, 100 - 12, 100);
	assert_in_range(st.dropped, refused, 100);
	assert_int_equal(st.posts_ok, 0);
	hw_alert_sink_stop(s);
	close(fd);
}

static void test_bad_url(void **state)
{
	(void)state;
	char err[256];
	assert_null(hw_alert_sink_start(HW_SINK_WEBHOOK, "ftp://x", &(struct hw_alert_sink_opts){.capacity = 4}, err,
	                                sizeof(err)));
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
