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
#include <time.h>

#include <cmocka.h>

#include "hopwatch/alert_sink.h"

static char got_url[128], got_body[8192];
static size_t got_len;
static char post_status[8][16]; /* the top-level "status" of each post, in order */
static int n_posts;
static unsigned reply_status = 200; /* what the server answers */

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
	if (n_posts < 8) {
		const char *st = strstr(got_body, "\"status\":\"");
		snprintf(post_status[n_posts++], sizeof(post_status[0]), "%.8s", st ? st + 10 : "?");
	}
	struct MHD_Response *r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret = MHD_queue_response(c, reply_status, r);
	MHD_destroy_response(r);
	return ret;
}

/* An event whose node name holds a quote and a backslash and whose detail ends in a newline, placed at
 * node 10.255.1.1 port Ethernet3 queue 2, with one number. */
static struct hw_an_event odd_event(void)
{
	struct hw_an_event e;
	memset(&e, 0, sizeof(e));
	e.id = 7;
	snprintf(e.alertname, sizeof(e.alertname), "X");
	e.severity = "warning";
	snprintf(e.node, sizeof(e.node), "sw\"1\\");
	e.node_id = 0x0aff0101; /* 10.255.1.1 = 10*2^24 + 255*2^16 + 1*2^8 + 1 = 184484097 */
	e.port = 3;
	snprintf(e.port_name, sizeof(e.port_name), "Ethernet3");
	e.queue = 2;
	e.hw_id = -1;
	e.n_numbers = 1;
	e.numbers[0].name = "occupancy";
	e.numbers[0].value = 1200000;
	snprintf(e.detail, sizeof(e.detail), "d\n");
	e.start_ns = 1767225600000000000ull; /* 20454 days after 1970-01-01: 2026-01-01T00:00:00Z */
	return e;
}

static struct MHD_Daemon *server(char *url, size_t size)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, NULL,
	                                        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	assert_non_null(d);
	snprintf(url, size, "http://127.0.0.1:%u", MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	return d;
}

/* A loopback server and a webhook sink (options o) posting to it. */
static struct hw_alert_sink *webhook_on(struct MHD_Daemon **d, const struct hw_alert_sink_opts *o)
{
	char url[64], err[256];
	*d = server(url, sizeof(url));
	struct hw_alert_sink *s = hw_alert_sink_start(HW_SINK_WEBHOOK, url, o, err, sizeof(err));
	assert_non_null(s);
	return s;
}

/* Post one event (its graph file svg, may be NULL) through a sink of kind with the external URL ext and
 * finish it as at exit; got_body then holds what arrived. */
static void post_one(enum hw_sink_kind kind, const char *svg, const char *ext)
{
	char url[64], err[256];
	struct MHD_Daemon *d = server(url, sizeof(url));
	const struct hw_alert_sink_opts o = {.capacity = 4, .external_url = ext};
	struct hw_alert_sink *s = hw_alert_sink_start(kind, url, &o, err, sizeof(err));
	assert_non_null(s);
	struct hw_an_event e = odd_event();
	assert_int_equal(hw_alert_sink_push(s, &e, svg), 1);
	/* at exit nothing is lost: finish waited for the POST's outcome, counted before it returns */
	assert_int_equal(hw_alert_sink_finish(s, 10000), 0);
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.posts_ok, 1);
	assert_int_equal(st.sent_alerts, 1);
	assert_int_equal(st.undelivered, 0);
	assert_int_equal(st.waiting, 0);
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

/* The labels and annotations both bodies carry for odd_event(), as JSON members; the incident is the first
 * alert's start to the millisecond (the sink saw no other). */
#define LABELS                                                                                                         \
	"{\"alertname\":\"X\",\"severity\":\"warning\",\"job\":\"hopwatch-analyzer\",\"node\":\"10.255.1.1\","         \
	"\"node_name\":\"sw\\\"1\\\\\",\"node_id\":\"184484097\",\"port\":\"Ethernet3\",\"queue\":\"2\","              \
	"\"incident\":\"2026-01-01T00:00:00.000Z\"}"
/* summary: alertname, the place (name, dotted id, port name, queue), occupancy 1200000 B = 1.2 MB, the UTC
 * start to the millisecond; description: the same place, the detail, the values, "still going" (firing) */
#define ANNOTATIONS                                                                                                    \
	"{\"summary\":\"X at sw\\\"1\\\\ (10.255.1.1) port Ethernet3 queue 2: occupancy 1.2 MB; since 2026-01-01 "     \
	"00:00:00.000 UTC\",\"description\":\"X (warning) at sw\\\"1\\\\ (10.255.1.1) port Ethernet3 queue 2. "        \
	"d\\u000a. "                                                                                                   \
	"Values: occupancy 1.2 MB. Started 2026-01-01 00:00:00.000 UTC, still going.\",\"occupancy\":\"1200000\","     \
	"\"event_id\":\"7\""

static void test_alertmanager_body(void **state)
{
	(void)state;
	post_one(HW_SINK_ALERTMANAGER, NULL, NULL);
	assert_string_equal(got_url, "/api/v2/alerts");
	/* the quote and backslash of sw"1\ get a backslash and the newline becomes \u000a; no graph and no
	 * external URL: no generatorURL; startsAt with 9 fraction digits; firing: no endsAt */
	assert_string_equal(got_body, "[{\"labels\":" LABELS ",\"annotations\":" ANNOTATIONS
	                              "},\"startsAt\":\"2026-01-01T00:00:00.000000000Z\"}]");
}

static void test_alertmanager_graph_url(void **state)
{
	(void)state;
	post_one(HW_SINK_ALERTMANAGER, "/var/lib/hopwatch/svg/event-1-7-X.svg", "http://an.example:9464/");
	/* the graph's file name under the external URL's /svg/ (its trailing slash dropped), as the annotation
	 * graph_url (instead of the file path) and as generatorURL */
	assert_non_null(strstr(got_body, ",\"graph_url\":\"http://an.example:9464/svg/event-1-7-X.svg\"}"));
	assert_non_null(strstr(got_body, "\"generatorURL\":\"http://an.example:9464/svg/event-1-7-X.svg\"}]"));
	assert_null(strstr(got_body, "/var/lib"));
}

static void test_webhook_body(void **state)
{
	(void)state;
	post_one(HW_SINK_WEBHOOK, NULL, NULL);
	assert_string_equal(got_url, "/");
	/* Alertmanager's webhook body, version 4, as Alertmanager sends it: one firing alert, endsAt the zero
	 * time, generatorURL empty (no external URL), its fingerprint; the group is its alertname; with one
	 * alert the common labels and annotations are all of its own */
	const char *fp = strstr(got_body, "\"fingerprint\":\"");
	assert_non_null(fp);
	char want[4096];
	snprintf(
	    want, sizeof(want),
	    "{\"version\":\"4\",\"receiver\":\"hopwatch\",\"status\":\"firing\",\"alerts\":[{\"status\":\"firing\","
	    "\"labels\":" LABELS ",\"annotations\":" ANNOTATIONS "},\"startsAt\":\"2026-01-01T00:00:00.000000000Z\","
	    "\"endsAt\":\"0001-01-01T00:00:00Z\",\"generatorURL\":\"\",\"fingerprint\":\"%.16s\"}],"
	    "\"groupLabels\":{\"alertname\":\"X\"},\"commonLabels\":" LABELS ",\"commonAnnotations\":" ANNOTATIONS
	    "},\"externalURL\":\"\",\"groupKey\":\"{}:{alertname=\\\"X\\\"}\",\"truncatedAlerts\":0}",
	    fp + 15);
	assert_string_equal(got_body, want);
	for (int i = 0; i < 16; i++) /* 16 hex digits */
		assert_non_null(strchr("0123456789abcdef", fp[15 + i]));
}

/* A resolve that comes at once is held back: the alert stays firing (active, waiting) until the minimum
 * visible time (an hour here, never reached) or a drain lets it go; then one resolved notification. */
static void test_min_visible(void **state)
{
	(void)state;
	struct MHD_Daemon *d;
	struct hw_alert_sink *s =
	    webhook_on(&d, &(struct hw_alert_sink_opts){.capacity = 4, .min_visible_ns = 3600000000000ull});
	struct hw_an_event e = odd_event();
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	e.resolved = 1;
	e.end_ns = e.start_ns + 11000000; /* 11 ms later */
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	struct hw_alert_sink_stats st;
	for (;;) { /* until the firing notification went out and both events were taken in */
		hw_alert_sink_stats(s, &st);
		if (st.posts_ok == 1 && st.waiting == 1)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	assert_int_equal(st.active, 1);
	assert_non_null(strstr(got_body, "\"status\":\"firing\""));
	assert_int_equal(hw_alert_sink_drain(s, 10000), 1);
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.posts_ok, 2);
	assert_int_equal(st.active, 0);
	/* resolved: endsAt is the event's end, 11 ms after its start; the description says how long it lasted */
	assert_non_null(strstr(got_body, "\"status\":\"resolved\",\"alerts\":[{\"status\":\"resolved\""));
	assert_non_null(strstr(got_body, "\"endsAt\":\"2026-01-01T00:00:00.011000000Z\""));
	assert_non_null(strstr(got_body, "lasted 11 ms"));
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

/* An alert whose resolve is handed over right behind its firing, with no minimum visible time, and
 * drained at once: the receiver is still told it fired (first post "firing"), then that it resolved
 * (second post), never only of the resolve. */
static void test_firing_before_resolve(void **state)
{
	(void)state;
	struct MHD_Daemon *d;
	n_posts = 0;
	struct hw_alert_sink *s = webhook_on(&d, &(struct hw_alert_sink_opts){.capacity = 4, .min_visible_ns = 1});
	struct hw_an_event e = odd_event();
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	e.resolved = 1;
	e.end_ns = e.start_ns + 1000000;
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	assert_int_equal(hw_alert_sink_drain(s, 10000), 1);
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.posts_ok, 2);
	assert_int_equal(n_posts, 2);
	assert_string_equal(post_status[0], "firing\",");
	assert_string_equal(post_status[1], "resolved");
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

/* The incident label of the alert in got_body into buf ("" when none). */
static void got_incident(char *buf, size_t size)
{
	const char *p = strstr(got_body, "\"incident\":\"");
	buf[0] = 0;
	if (p) {
		p += strlen("\"incident\":\"");
		snprintf(buf, size, "%.*s", (int)(strchr(p, '"') - p), p);
	}
}

/* Push e, wait until it was delivered (alone: the previous ones are delivered), and check its incident label. */
static void push_expect_incident(struct hw_alert_sink *s, struct hw_an_event *e, const char *want)
{
	char inc[64];
	assert_int_equal(hw_alert_sink_push(s, e, NULL), 1);
	assert_int_equal(hw_alert_sink_drain(s, 10000), 1);
	got_incident(inc, sizeof(inc));
	assert_string_equal(inc, want);
}

/* The incident label follows the detector's incident; alerts without one (and new incidents) join an incident
 * raised within 1 s that they touch (a switch at their place or their link's far end, or a flow). */
static void test_incident_label(void **state)
{
	(void)state;
	struct MHD_Daemon *d;
	struct hw_alert_sink *s = webhook_on(&d, &(struct hw_alert_sink_opts){.capacity = 16});
	const uint64_t t0 = 1767225600000000000ull, sec = 1000000000ull; /* 2026-01-01T00:00:00Z */
	struct hw_an_event e = odd_event();
	/* the first alert, of detector incident 5 at t0: a new incident named by its start */
	e.id = 1, e.incident = 5, e.start_ns = t0;
	push_expect_incident(s, &e, "2026-01-01T00:00:00.000Z");
	/* no detector incident (PacketDrops), 0.5 s later: within the 1 s gap, it joins */
	e.id = 2, e.incident = 0, e.start_ns = t0 + sec / 2;
	push_expect_incident(s, &e, "2026-01-01T00:00:00.000Z");
	/* incident 5 again 10 s later, after a quiet far longer than the gap: still the same incident */
	e.id = 3, e.incident = 5, e.start_ns = t0 + 10 * sec;
	push_expect_incident(s, &e, "2026-01-01T00:00:00.000Z");
	/* a new detector incident 9 at t0 + 20 s, 10 s after the latest raise: a new incident */
	e.id = 4, e.incident = 9, e.start_ns = t0 + 20 * sec;
	push_expect_incident(s, &e, "2026-01-01T00:00:20.000Z");
	/* incident 5 once more, 0.1 s into incident 9's time: its own label, not the one current by time */
	e.id = 5, e.incident = 5, e.start_ns = t0 + 20 * sec + sec / 10;
	push_expect_incident(s, &e, "2026-01-01T00:00:00.000Z");
	/* no detector incident, 0.2 s after incident 9's raise, at the same switch as both: it joins the one
	 * most recently raised, incident 5 (re-raised at 20.1 s) */
	e.id = 6, e.incident = 0, e.start_ns = t0 + 20 * sec + sec / 5;
	push_expect_incident(s, &e, "2026-01-01T00:00:00.000Z");
	/* a new detector incident 0.1 s later at another switch (sw9), with no flow of theirs: within the 1 s
	 * but touching neither, an incident of its own (background congestion elsewhere is not their line) */
	struct hw_an_event o = odd_event();
	snprintf(o.node, sizeof(o.node), "sw9");
	o.node_id = 9;
	o.n_flows = 1, o.flows[0] = 0xabc;
	o.id = 7, o.incident = 11, o.start_ns = t0 + 20 * sec + 3 * sec / 10;
	push_expect_incident(s, &o, "2026-01-01T00:00:20.300Z");
	/* PacketDrops at sw9: joins sw9's incident, though incident 5 is at its first switch too */
	o.id = 8, o.incident = 0, o.n_flows = 0, o.start_ns = t0 + 20 * sec + 4 * sec / 10;
	push_expect_incident(s, &o, "2026-01-01T00:00:20.300Z");
	/* a new incident at sw7, whose link leads to sw9: it touches sw9's by the link's far end */
	snprintf(o.node, sizeof(o.node), "sw7");
	o.node_id = 7;
	snprintf(o.link, sizeof(o.link), "sw7:Ethernet1--sw9:Ethernet4");
	o.id = 9, o.incident = 12, o.start_ns = t0 + 20 * sec + 5 * sec / 10;
	push_expect_incident(s, &o, "2026-01-01T00:00:20.300Z");
	/* a new incident at a switch without a name (node id 5) or link, naming flow 0xabc of alert 7: by the flow */
	o.node[0] = 0, o.link[0] = 0;
	o.node_id = 5;
	o.n_flows = 2, o.flows[0] = 0x123, o.flows[1] = 0xabc;
	o.id = 10, o.incident = 13, o.start_ns = t0 + 20 * sec + 6 * sec / 10;
	push_expect_incident(s, &o, "2026-01-01T00:00:20.300Z");
	/* an unrelated incident (node id 3, no flow) raised in the same millisecond as sw9's: a name of its own */
	o.node_id = 3, o.n_flows = 0;
	o.id = 11, o.incident = 14, o.start_ns = t0 + 20 * sec + 3 * sec / 10;
	push_expect_incident(s, &o, "2026-01-01T00:00:20.300Z-2");
	/* an alert with no place and no flow at 20.7 s: the incident most recently raised (sw9's, at 20.6 s) */
	o.node_id = 0;
	o.id = 12, o.incident = 0, o.start_ns = t0 + 20 * sec + 7 * sec / 10;
	push_expect_incident(s, &o, "2026-01-01T00:00:20.300Z");
	/* a new incident at node id 3 whose link leads to sw9, at 20.8 s: it touches 20.300Z-2 by its own switch
	 * and 20.300Z (raised more recently, at 20.7 s) by its link's far end: its own switch's incident */
	o.node_id = 3;
	snprintf(o.link, sizeof(o.link), "sw3:Ethernet1--sw9:Ethernet4");
	o.id = 14, o.incident = 16, o.start_ns = t0 + 20 * sec + 8 * sec / 10;
	push_expect_incident(s, &o, "2026-01-01T00:00:20.300Z-2");
	o.link[0] = 0;
	/* node id 5 again, a new incident 2 s later: more than 1 s after any raise, a new incident */
	o.node_id = 5;
	o.id = 15, o.incident = 15, o.start_ns = t0 + 23 * sec;
	push_expect_incident(s, &o, "2026-01-01T00:00:23.000Z");
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

/* A webhook that answers 500 to everything: at exit the sink counts both alerts as undelivered (and
 * says so in waiting), after at least one failed POST and none that succeeded. */
static void test_lost_at_exit(void **state)
{
	(void)state;
	reply_status = 500;
	struct MHD_Daemon *d;
	struct hw_alert_sink *s = webhook_on(&d, &(struct hw_alert_sink_opts){.capacity = 4});
	struct hw_an_event e = odd_event();
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	e.id = 8; /* a second alert: another episode */
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	struct hw_alert_sink_stats st;
	for (;;) { /* until the thread took both in and its first POST failed */
		hw_alert_sink_stats(s, &st);
		if (st.posts_failed >= 1)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	/* two alerts handed over, none delivered: 2 lost, whatever the drain time */
	assert_int_equal(hw_alert_sink_finish(s, 300), 2);
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.pushed, 2);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.posts_ok, 0);
	assert_int_equal(st.sent_alerts, 0);
	assert_int_equal(st.undelivered, 2);
	assert_int_equal(st.waiting, 2);
	assert_in_range(st.posts_failed, 1, 100);
	/* after the finish a push is refused and counted as dropped */
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 0);
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.dropped, 1);
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
	reply_status = 200;
}

/* Wait until n posts were answered (a loaded host may be slow: no deadline but the test's). */
static void wait_posts(struct hw_alert_sink *s, uint64_t n)
{
	struct hw_alert_sink_stats st;
	for (;;) {
		hw_alert_sink_stats(s, &st);
		if (st.posts_ok >= n)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
}

/* An Alertmanager sink posting to a fresh server (*d), minimum visible and resend times an hour. */
static struct hw_alert_sink *hour_sink(struct MHD_Daemon **d)
{
	char url[64], err[256];
	*d = server(url, sizeof(url));
	n_posts = 0;
	const struct hw_alert_sink_opts o = {
	    .capacity = 4, .min_visible_ns = 3600000000000ull, .resend_ns = 3600000000000ull};
	struct hw_alert_sink *s = hw_alert_sink_start(HW_SINK_ALERTMANAGER, url, &o, err, sizeof(err));
	assert_non_null(s);
	return s;
}

/* odd_event() as an Incast raised at 4 sources (min_sources 4). */
static struct hw_an_event incast_at_4(void)
{
	struct hw_an_event e = odd_event();
	e.kind = HW_AN_INCAST;
	snprintf(e.alertname, sizeof(e.alertname), "Incast");
	e.n_numbers = 2;
	e.numbers[0].name = "sources";
	e.numbers[0].value = 4;
	e.numbers[1].name = "min_sources";
	e.numbers[1].value = 4;
	return e;
}

/* An incast raised at 4 sources that reached 16 before it resolved: its resolve is held back (minimum
 * visible time an hour), and the alert still firing takes the resolve's final count, same labels, new
 * annotations, posted to Alertmanager at once; the resolve posted at the drain says 16 too. */
static void test_update_while_firing(void **state)
{
	(void)state;
	struct MHD_Daemon *d;
	struct hw_alert_sink *s = hour_sink(&d);
	struct hw_an_event e = incast_at_4();
	e.n_numbers = 3; /* sources 4, occupancy 1.2 MB, min_sources 4 */
	e.numbers[2] = e.numbers[1];
	e.numbers[1].name = "occupancy";
	e.numbers[1].value = 1200000;
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	wait_posts(s, 1);
	char first[8192];
	snprintf(first, sizeof(first), "%s", got_body);
	/* the culprit first: the place, the sources, how full (no link: no host named; no detail: no victim) */
	assert_non_null(strstr(first, "Incast: culprit sw\\\"1\\\\ (10.255.1.1) port Ethernet3 queue 2, sources 4 "
	                              "(1.2 MB queued); victims: none named; since 2026-01-01 00:00:00.000 UTC"));
	/* the resolve: 16 sources (the detector's final count), occupancy back down to 0 */
	struct hw_an_event r = e;
	r.resolved = 1;
	r.end_ns = r.start_ns + 5000000; /* 5 ms later */
	r.n_numbers = 1;
	r.numbers[0].name = "sources";
	r.numbers[0].value = 16;
	assert_int_equal(hw_alert_sink_push(s, &r, NULL), 1);
	wait_posts(s, 2);
	/* still firing (no endsAt), the same labels as the first post, sources 16; the occupancy it was raised
	 * at (1.2 MB) is kept: only growing numbers are taken */
	assert_null(strstr(got_body, "endsAt"));
	const char *la = strstr(first, "\"annotations\":");
	assert_non_null(
	    strstr(got_body, "sources 16 (1.2 MB queued); victims: none named; since 2026-01-01 00:00:00.000 UTC"));
	assert_non_null(strstr(got_body, "Values: sources 16, occupancy 1.2 MB, threshold 4 sources. Started"));
	assert_non_null(strstr(got_body, "\"sources\":\"16\""));
	assert_int_equal(strncmp(got_body, first, (size_t)(la - first)), 0); /* labels: byte for byte */
	assert_int_equal(hw_alert_sink_drain(s, 10000), 1);
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.posts_ok, 3);
	assert_non_null(strstr(got_body, "\"endsAt\":\"2026-01-01T00:00:00.005000000Z\""));
	assert_non_null(strstr(got_body, "sources 16"));
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

/* Updates of a firing Incast (hw_an_event.update): the detector's own at 16 sources, then a congestion
 * tree's that names its 2 victims (and no sources).  Each is posted to Alertmanager at once as the same
 * alert (labels byte for byte as the raise's) with new annotations; the tree's keeps the 16 sources the
 * alert already said beside its victims and detail. */
static void test_update_event(void **state)
{
	(void)state;
	struct MHD_Daemon *d;
	struct hw_alert_sink *s = hour_sink(&d);
	struct hw_an_event e = incast_at_4();
	e.detail[0] = 0;
	e.follows_id = 7; /* raised in a tree's aftermath: the updates, which do not say so, keep it */
	e.follows_kind = HW_AN_CONGESTION_TREE;
	snprintf(e.follows, sizeof(e.follows), "leaf9:Ethernet2/3");
	assert_int_equal(hw_alert_sink_push(s, &e, NULL), 1);
	wait_posts(s, 1);
	char first[8192];
	snprintf(first, sizeof(first), "%s", got_body);
	const char *la = strstr(first, "\"annotations\":");
	assert_non_null(la);
	assert_non_null(strstr(first, "\"sources\":\"4\""));
	struct hw_an_event u = e; /* it grew */
	u.update = 1;
	u.follows_id = 0;
	u.follows[0] = 0;
	u.numbers[0].value = 16;
	assert_int_equal(hw_alert_sink_push(s, &u, NULL), 1);
	wait_posts(s, 2);
	assert_int_equal(strncmp(got_body, first, (size_t)(la - first)), 0);
	assert_non_null(strstr(got_body, "\"sources\":\"16\""));
	assert_null(strstr(got_body, "endsAt"));
	struct hw_an_event t = e; /* the tree at its root: victims, no sources, nothing it follows */
	t.update = 1;
	t.follows_id = 0;
	t.follows[0] = 0;
	t.n_numbers = 1;
	t.numbers[0].name = "victims";
	t.numbers[0].value = 2;
	snprintf(t.detail, sizeof(t.detail), "root sw:Ethernet3/2, victims a:1/2 b:1/2");
	assert_int_equal(hw_alert_sink_push(s, &t, NULL), 1);
	wait_posts(s, 3);
	assert_int_equal(strncmp(got_body, first, (size_t)(la - first)), 0);
	assert_non_null(strstr(got_body, "\"victims\":\"2\""));
	assert_non_null(strstr(got_body, "\"sources\":\"16\""));
	/* what the alert said first it still says first (incast_at_4's sources, at the grown 16, and min_sources
	 * 4), then the tree's news */
	assert_non_null(strstr(got_body, "Values: sources 16, threshold 4 sources, victims 2."));
	/* what it follows, said by the raise only, still said after both updates */
	assert_non_null(
	    strstr(got_body, ", after the CongestionTree at leaf9 Ethernet2 queue 3; victims (2, queue 2)"));
	/* the detail's victims "a:1/2 b:1/2" as places: how many, their one queue, each switch and port */
	assert_non_null(strstr(got_body, "; victims (2, queue 2): a port 1, b port 1; since"));
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

/* A post lists an incident's cause first: a CongestionTree is raised, then the Incast of the same incident
 * 185 µs later (an incast's tree shows before enough of its senders do).  The webhook answers 500 until a
 * POST failed, after both were handed over, so the one POST that succeeds holds both: the Incast (rank 0)
 * before the tree (rank 1), though the tree was raised first. */
static void test_cause_first(void **state)
{
	(void)state;
	struct MHD_Daemon *d;
	n_posts = 0;
	reply_status = 500;
	struct hw_alert_sink *s = webhook_on(&d, &(struct hw_alert_sink_opts){.capacity = 8});
	struct hw_an_event t = odd_event();
	t.id = 1, t.incident = 5, t.kind = HW_AN_CONGESTION_TREE;
	snprintf(t.alertname, sizeof(t.alertname), "CongestionTree");
	struct hw_an_event i = incast_at_4();
	i.id = 2, i.incident = 5, i.start_ns = t.start_ns + 185000;
	assert_int_equal(hw_alert_sink_push(s, &t, NULL), 1);
	assert_int_equal(hw_alert_sink_push(s, &i, NULL), 1);
	struct hw_alert_sink_stats st = {0};
	for (int k = 0; k < 6000 && !st.posts_failed; k++) { /* a failed POST: up to 60 s on a loaded host */
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
		hw_alert_sink_stats(s, &st);
	}
	assert_true(st.posts_failed >= 1);
	reply_status = 200;
	assert_int_equal(hw_alert_sink_drain(s, 30000), 1);
	hw_alert_sink_stats(s, &st);
	assert_int_equal(st.posts_ok, 1);
	assert_int_equal(st.sent_alerts, 2);
	const char *pi = strstr(got_body, "\"alertname\":\"Incast\""),
	           *pt = strstr(got_body, "\"alertname\":\"CongestionTree\"");
	assert_non_null(pi);
	assert_non_null(pt);
	assert_true(pi < pt);
	hw_alert_sink_stop(s);
	MHD_stop_daemon(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alertmanager_body),     cmocka_unit_test(test_alertmanager_graph_url),
	    cmocka_unit_test(test_webhook_body),          cmocka_unit_test(test_min_visible),
	    cmocka_unit_test(test_incident_label),        cmocka_unit_test(test_lost_at_exit),
	    cmocka_unit_test(test_firing_before_resolve), cmocka_unit_test(test_update_while_firing),
	    cmocka_unit_test(test_update_event),          cmocka_unit_test(test_cause_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
