/* Unit tests of lib/common's HTTP client against a libmicrohttpd server on 127.0.0.1: status and body,
 * POST bodies and their content type, the kept body's limit, streaming, timeout, refused connection,
 * and credentials kept out of error text. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
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

#include "http_client.h"

/* What the server saw of the last request (one request at a time in these tests). */
static char got_body[256], got_type[128], got_method[16];
static size_t got_len;

/* /hold waits until the test releases it (or 10 s pass): a peer that does not answer in time. */
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static int released;

static void release_hold(void)
{
	pthread_mutex_lock(&hold_mu);
	released = 1;
	pthread_cond_broadcast(&hold_cv);
	pthread_mutex_unlock(&hold_mu);
}

static void wait_hold(void)
{
	struct timespec end;
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += 10;
	pthread_mutex_lock(&hold_mu);
	while (!released && pthread_cond_timedwait(&hold_cv, &hold_mu, &end) == 0)
		;
	pthread_mutex_unlock(&hold_mu);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *data_size, void **req)
{
	(void)cls;
	(void)version;
	static int first;
	if (!*req) { /* the headers: the body (if any) follows in the next calls */
		*req = &first;
		got_len = 0;
		got_body[0] = 0;
		const char *t = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
		snprintf(got_type, sizeof(got_type), "%s", t ? t : "");
		snprintf(got_method, sizeof(got_method), "%s", method);
		return MHD_YES;
	}
	if (*data_size) {
		size_t k = *data_size < sizeof(got_body) - 1 - got_len ? *data_size : sizeof(got_body) - 1 - got_len;
		memcpy(got_body + got_len, data, k);
		got_len += k;
		got_body[got_len] = 0;
		*data_size = 0;
		return MHD_YES;
	}
	if (!strcmp(url, "/teapot"))
		return reply(c, 418, "short and stout");
	if (!strcmp(url, "/digits"))
		return reply(c, 200, "0123456789");
	if (!strcmp(url, "/echo"))
		return reply(c, 200, got_body);
	if (!strcmp(url, "/hold")) {
		wait_hold();
		return reply(c, 200, "late");
	}
	return reply(c, 404, "no such page");
}

static struct MHD_Daemon *server;
static unsigned port;

static int start(void **state)
{
	(void)state;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	server = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
	                          handle, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	if (!server)
		return -1;
	port = MHD_get_daemon_info(server, MHD_DAEMON_INFO_BIND_PORT)->port;
	return 0;
}

static int stop(void **state)
{
	(void)state;
	release_hold();
	MHD_stop_daemon(server);
	return 0;
}

static struct hw_http *open_path(const char *path, const struct hw_http_opts *o)
{
	char url[128], err[256] = "";
	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", port, path);
	struct hw_http *h = hw_http_open(url, o, err, sizeof(err));
	assert_non_null(h);
	assert_string_equal(err, "");
	return h;
}

static void test_status_and_body(void **state)
{
	(void)state;
	const struct hw_http_opts o = {.timeout_ms = 5000, .body_max = 100};
	struct hw_http *h = open_path("/teapot", &o);
	struct hw_http_reply r;
	/* an answer that is not 2xx is still an answer: 0, the status and the body as sent */
	assert_int_equal(hw_http_get(h, &r), 0);
	assert_int_equal(r.status, 418);
	assert_string_equal(r.body, "short and stout");
	assert_int_equal(r.body_len, 15);
	assert_string_equal(got_method, "GET");
	/* the same handle again */
	assert_int_equal(hw_http_get(h, &r), 0);
	assert_int_equal(r.status, 418);
	hw_http_close(h);
}

static void test_post_body_and_type(void **state)
{
	(void)state;
	const struct hw_http_opts o = {.timeout_ms = 5000, .content_type = "application/json", .body_max = 100};
	struct hw_http *h = open_path("/echo", &o);
	struct hw_http_reply r;
	/* 7 bytes of the 9 given: the length counts, not the NUL */
	assert_int_equal(hw_http_post(h, "{\"a\":1}xx", 7, &r), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(got_method, "POST");
	assert_string_equal(got_type, "application/json");
	assert_string_equal(got_body, "{\"a\":1}");
	assert_string_equal(r.body, "{\"a\":1}");
	hw_http_close(h);
}

static void test_body_limit(void **state)
{
	(void)state;
	const struct hw_http_opts o = {.timeout_ms = 5000, .body_max = 4};
	struct hw_http *h = open_path("/digits", &o);
	struct hw_http_reply r;
	/* "0123456789" with room for 4 bytes: "0123" */
	assert_int_equal(hw_http_get(h, &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, 4);
	assert_string_equal(r.body, "0123");
	hw_http_close(h);
	/* body_max 0: nothing kept, the body is "" */
	const struct hw_http_opts none = {.timeout_ms = 5000};
	h = open_path("/digits", &none);
	assert_int_equal(hw_http_get(h, &r), 0);
	assert_int_equal(r.body_len, 0);
	assert_string_equal(r.body, "");
	hw_http_close(h);
}

struct sink {
	char text[64];
	size_t len;
	long status;
	int stop;
};

static int on_body(void *ctx, long status, const char *data, size_t n)
{
	struct sink *s = ctx;
	memcpy(s->text + s->len, data, n);
	s->len += n;
	s->status = status;
	return s->stop;
}

static void test_streamed_body(void **state)
{
	(void)state;
	struct sink s = {.len = 0};
	const struct hw_http_opts o = {.timeout_ms = 5000, .on_body = on_body, .ctx = &s};
	struct hw_http *h = open_path("/digits", &o);
	struct hw_http_reply r;
	assert_int_equal(hw_http_get(h, &r), 0);
	assert_int_equal(s.status, 200);
	assert_int_equal(s.len, 10);
	assert_memory_equal(s.text, "0123456789", 10);
	/* the receiver stops the transfer: the request fails and says so */
	s.len = 0;
	s.stop = 1;
	assert_int_equal(hw_http_get(h, &r), -1);
	assert_string_equal(r.what, "stopped by the receiver");
	hw_http_close(h);
}

static void test_timeout(void **state)
{
	(void)state;
	const struct hw_http_opts o = {.timeout_ms = 100, .body_max = 100};
	struct hw_http *h = open_path("/hold", &o);
	struct hw_http_reply r;
	/* the server holds the request until released: the client gives up, no status */
	assert_int_equal(hw_http_get(h, &r), -1);
	assert_int_equal(r.status, 0);
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "http://127.0.0.1:%u/hold: ", port);
	assert_memory_equal(r.err, prefix, strlen(prefix));
	assert_ptr_equal(r.what, r.err + strlen(prefix));
	assert_non_null(strstr(r.what, "imed out")); /* libcurl: "Operation timed out after ..." */
	release_hold();
	hw_http_close(h);
}

static void test_refused_and_credentials_hidden(void **state)
{
	(void)state;
	/* a port bound but not listening: connecting to it is refused */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	assert_return_code(fd, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	char url[128], want[128], err[256];
	snprintf(url, sizeof(url), "http://user:secret@127.0.0.1:%u/?database=d&password=s2", ntohs(sa.sin_port));
	/* the password of user:password@ and of password= become *** */
	snprintf(want, sizeof(want), "http://user:***@127.0.0.1:%u/?database=d&password=***: ", ntohs(sa.sin_port));
	const struct hw_http_opts o = {.connect_timeout_ms = 2000, .timeout_ms = 5000};
	struct hw_http *h = hw_http_open(url, &o, err, sizeof(err));
	assert_non_null(h);
	char shown[128];
	snprintf(shown, sizeof(shown), "http://user:***@127.0.0.1:%u/?database=d&password=***", ntohs(sa.sin_port));
	assert_string_equal(hw_http_url(h), shown);
	struct hw_http_reply r;
	assert_int_equal(hw_http_post(h, "x", 1, &r), -1);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.err, want, strlen(want));
	assert_null(strstr(r.err, "secret"));
	assert_null(strstr(r.err, "s2"));
	hw_http_close(h);
	close(fd);
}

static void test_redact(void **state)
{
	(void)state;
	char out[256];
	/* nothing to hide */
	assert_string_equal(hw_http_redact("http://h:8123/", out, sizeof(out)), "http://h:8123/");
	/* a user without a password is kept */
	assert_string_equal(hw_http_redact("http://u@h/", out, sizeof(out)), "http://u@h/");
	/* user:password@ -> user:***@; an '@' in the path is not userinfo */
	assert_string_equal(hw_http_redact("https://u:p@h/a@b", out, sizeof(out)), "https://u:***@h/a@b");
	/* password= as the first and as a later parameter, up to the next '&'; mypassword= is another name */
	assert_string_equal(hw_http_redact("http://h/?password=x&user=u", out, sizeof(out)),
	                    "http://h/?password=***&user=u");
	assert_string_equal(hw_http_redact("http://h/?mypassword=x&password=yy", out, sizeof(out)),
	                    "http://h/?mypassword=x&password=***");
	/* a list of replica URLs: each URL's userinfo and password= are hidden, also after a typo'd scheme */
	assert_string_equal(
	    hw_http_redact("http://h1:8123/,htp://u:p@h2/?password=s,https://v:q@h3/", out, sizeof(out)),
	    "http://h1:8123/,htp://u:***@h2/?password=***,https://v:***@h3/");
	/* a text that starts with '?' (no URL): read from its first byte on, nothing before it (fuzz_http_reply) */
	assert_string_equal(hw_http_redact("?password=x", out, sizeof(out)), "?password=***");
	assert_string_equal(hw_http_redact("?", out, sizeof(out)), "?");
	/* cut to the buffer: 8 bytes hold 7 characters */
	assert_string_equal(hw_http_redact("http://h:8123/", out, 8), "http://");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_and_body), cmocka_unit_test(test_post_body_and_type),
	    cmocka_unit_test(test_body_limit),      cmocka_unit_test(test_streamed_body),
	    cmocka_unit_test(test_timeout),         cmocka_unit_test(test_refused_and_credentials_hidden),
	    cmocka_unit_test(test_redact),
	};
	return cmocka_run_group_tests(tests, start, stop);
}
