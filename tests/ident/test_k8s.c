/* The Kubernetes API source of lib/ident against a loopback server answering a recorded pod list and then a watch
 * stream: a pod added, deleted, an address reused by another job, a finished pod, each followed; a bookmark, a
 * server-ended watch resumed, a 410 Gone relisted; a malformed line, a 401/500 keep the last good mapping and are
 * reported; the bearer token is sent; https with the CA file.  Polls with a generous limit, no wall-clock asserts. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/ident.h"

#define POD_PHASE(name, ip, job, phase)                                                                                \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ml\",\"labels\":{\"job-name\":\"" job "\"}},"            \
	"\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"" phase "\",\"podIP\":\"" ip "\"}}"
#define POD(name, ip, job) POD_PHASE(name, ip, job, "Running")
#define LIST(rv, ...)                                                                                                  \
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"" rv                          \
	"\"},\"items\":[" __VA_ARGS__ "]}"
/* A watch event: the pod object with its resourceVersion. */
#define EV(type, rv, name, ip, job, phase)                                                                             \
	"{\"type\":\"" type "\",\"object\":{\"metadata\":{\"name\":\"" name                                            \
	"\",\"namespace\":\"ml\",\"resourceVersion\":"                                                                 \
	"\"" rv "\",\"labels\":{\"job-name\":\"" job                                                                   \
	"\"}},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"" phase "\",\"podIP\":\"" ip "\"}}}"

/* ---- the server: one list answer, and a watch that streams the lines queued ---- */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned list_status, watch_status; /* a watch answered with another status than 200 streams nothing */
	const char *list_body;
	const char *q[64]; /* lines for the newest watch */
	unsigned qh, qt;
	int end;  /* end the newest watch once its lines are sent */
	int down; /* stopping: every watch ends */
	unsigned lists, watches;
	char watch_rv[64]; /* the resourceVersion of the newest watch */
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static ssize_t stream(void *cls, uint64_t pos, char *buf, size_t max)
{
	unsigned mine = (unsigned)(uintptr_t)cls;
	(void)pos;
	pthread_mutex_lock(&S.mu);
	while (S.watches == mine && S.qh == S.qt && !S.end && !S.down)
		pthread_cond_wait(&S.cv, &S.mu);
	ssize_t n = MHD_CONTENT_READER_END_OF_STREAM;
	if (S.watches != mine || S.down) {
		/* an older watch (its client gone) or the end: nothing more */
	} else if (S.qh != S.qt) {
		n = snprintf(buf, max, "%s\n", S.q[S.qh++ % 64]);
	} else {
		S.end = 0;
	}
	pthread_mutex_unlock(&S.mu);
	return n;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *body)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *size, void **state)
{
	(void)cls, (void)version, (void)data, (void)size, (void)state;
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	if (strcmp(method, "GET") || strcmp(url, "/api/v1/pods") || !auth || strcmp(auth, "Bearer s3cret"))
		return answer(c, 401, "{}");
	const char *watch = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "watch");
	const char *rv = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "resourceVersion");
	pthread_mutex_lock(&S.mu);
	if (!watch || strcmp(watch, "1")) {
		S.lists++;
		unsigned status = S.list_status;
		const char *body = S.list_body;
		pthread_mutex_unlock(&S.mu);
		return answer(c, status, body);
	}
	unsigned mine = ++S.watches, status = S.watch_status;
	snprintf(S.watch_rv, sizeof(S.watch_rv), "%s", rv ? rv : "(none)");
	S.end = 0;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
	if (status != 200)
		return answer(c, status, "{\"kind\":\"Status\"}");
	struct MHD_Response *r =
	    MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, stream, (void *)(uintptr_t)mine, NULL);
	enum MHD_Result rc = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return rc;
}

static void set_list(unsigned status, const char *body)
{
	pthread_mutex_lock(&S.mu);
	S.list_status = status;
	S.list_body = body;
	pthread_mutex_unlock(&S.mu);
}

static void set_watch(unsigned status)
{
	pthread_mutex_lock(&S.mu);
	S.watch_status = status;
	pthread_mutex_unlock(&S.mu);
}

static void push(const char *line)
{
	pthread_mutex_lock(&S.mu);
	assert_true(S.qt - S.qh < 64);
	S.q[S.qt++ % 64] = line;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
}

static void end_watch(void)
{
	pthread_mutex_lock(&S.mu);
	S.end = 1;
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
}

static unsigned lists(void)
{
	pthread_mutex_lock(&S.mu);
	unsigned n = S.lists;
	pthread_mutex_unlock(&S.mu);
	return n;
}

/* tls_key/tls_cert: PEM text for https, NULL for http. */
static struct MHD_Daemon *server(char *url, size_t size, const char *tls_key, const char *tls_cert)
{
	pthread_mutex_lock(&S.mu);
	S.list_status = S.watch_status = 200;
	S.qh = S.qt = 0;
	S.end = S.down = 0;
	S.lists = S.watches = 0;
	S.watch_rv[0] = 0;
	pthread_mutex_unlock(&S.mu);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct MHD_Daemon *d =
	    tls_key ? MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_TLS, 0,
	                               NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	                               MHD_OPTION_HTTPS_MEM_KEY, tls_key, MHD_OPTION_HTTPS_MEM_CERT, tls_cert,
	                               MHD_OPTION_END)
	            : MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL,
	                               handle, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	assert_non_null(d);
	snprintf(url, size, "%s://127.0.0.1:%u/api/v1/pods", tls_key ? "https" : "http",
	         MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	return d;
}

static void server_stop(struct MHD_Daemon *d)
{
	pthread_mutex_lock(&S.mu);
	S.down = 1; /* watches blocked in stream() end */
	pthread_cond_broadcast(&S.cv);
	pthread_mutex_unlock(&S.mu);
	MHD_stop_daemon(d);
}

static void token_file(char *path, const char *token)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, token, strlen(token)), (ssize_t)strlen(token));
	close(fd);
}

/* ---- waiting for the client ---- */

static const char *job(const struct hw_ident *id, const char *addr)
{
	uint8_t ip[16] = {0};
	ip[10] = ip[11] = 0xff;
	assert_int_equal(inet_pton(AF_INET, addr, ip + 12), 1);
	const struct hw_ident_entry *e = hw_ident_lookup(id, ip, UINT32_MAX);
	return e ? e->job : NULL;
}

static int same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

#define LIMIT_S 120
#define STEP_NS 5000000 /* 5 ms */

/* Reload until addr's job is want (NULL: unknown); fails after LIMIT_S. */
static void until_job(struct hw_ident *id, const char *addr, const char *want)
{
	char err[512];
	for (int i = 0; i < LIMIT_S * 200 && !same(job(id, addr), want); i++) {
		hw_ident_reload(id, err, sizeof(err));
		nanosleep(&(struct timespec){0, STEP_NS}, NULL);
	}
	const char *got = job(id, addr);
	if (!same(got, want))
		fail_msg("%s: job %s, expected %s", addr, got ? got : "(none)", want ? want : "(none)");
}

/* Reload until a failure is reported whose message holds what; fails after LIMIT_S. */
static void until_failure(struct hw_ident *id, const char *what)
{
	char err[512] = "";
	for (int i = 0; i < LIMIT_S * 200; i++) {
		if (hw_ident_reload(id, err, sizeof(err)) > 0 && strstr(err, what))
			return;
		nanosleep(&(struct timespec){0, STEP_NS}, NULL);
	}
	fail_msg("no failure naming \"%s\" (last: %s)", what, err);
}

/* Until watch number n (or a later one) has come, the newest from resourceVersion rv; fails after LIMIT_S. */
static void until_watch(unsigned n, const char *rv)
{
	int ok = 0;
	for (int i = 0; i < LIMIT_S * 200 && !ok; i++) {
		pthread_mutex_lock(&S.mu);
		ok = S.watches >= n && !strcmp(S.watch_rv, rv);
		pthread_mutex_unlock(&S.mu);
		if (!ok)
			nanosleep(&(struct timespec){0, STEP_NS}, NULL);
	}
	if (!ok)
		fail_msg("no watch %u from resourceVersion %s (newest: %u from %s)", n, rv, S.watches, S.watch_rv);
}

/* Until the server has answered n lists; fails after LIMIT_S. */
static void until_lists(unsigned n)
{
	for (int i = 0; i < LIMIT_S * 200 && lists() < n; i++)
		nanosleep(&(struct timespec){0, STEP_NS}, NULL);
	if (lists() < n)
		fail_msg("%u lists, expected %u", lists(), n);
}

static struct hw_ident_stats stats(const struct hw_ident *id)
{
	struct hw_ident_stats st;
	hw_ident_stats(id, &st);
	return st;
}

/* ---- the tests ---- */

static const char list1[] = LIST("100", POD("a-0", "10.7.0.1", "alpha"));
static const char list2[] = LIST("200", POD("c-0", "10.7.0.1", "gamma") "," POD("d-0", "10.7.0.4", "delta"));

static void watch_follows_and_keeps(void **state)
{
	(void)state;
	char url[128], tok[] = "/tmp/test_k8s_XXXXXX", err[512];
	struct MHD_Daemon *d = server(url, sizeof(url), NULL, NULL);
	set_list(200, list1);
	token_file(tok, "s3cret\n");
	struct hw_ident *id = hw_ident_create(NULL);
	const struct hw_ident_k8s_opts o = {.token_file = tok, .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &o, err, sizeof(err)), 0);
	/* the first list is in when the source is added; the watch follows from its resourceVersion */
	assert_string_equal(job(id, "10.7.0.1"), "alpha");
	assert_null(job(id, "10.7.0.2"));
	until_watch(1, "100");
	push(EV("ADDED", "101", "b-0", "10.7.0.2", "beta", "Running"));
	until_job(id, "10.7.0.2", "beta");
	assert_string_equal(job(id, "10.7.0.1"), "alpha");
	/* a deletion names the pod; its status is not needed */
	push("{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"a-0\",\"namespace\":\"ml\","
	     "\"resourceVersion\":\"102\"}}}");
	until_job(id, "10.7.0.1", NULL);
	assert_string_equal(job(id, "10.7.0.2"), "beta");
	push(EV("ADDED", "103", "c-0", "10.7.0.1", "gamma", "Running")); /* a's address, another job's pod */
	until_job(id, "10.7.0.1", "gamma");
	push(EV("MODIFIED", "104", "b-0", "10.7.0.2", "beta", "Succeeded")); /* finished: left out */
	until_job(id, "10.7.0.2", NULL);
	struct hw_ident_stats st = stats(id);
	assert_int_equal(st.stale, 0);
	assert_int_equal(st.entries, 1);    /* c-0 alone */
	assert_int_equal(st.k8s_events, 4); /* the four events above, none other */
	assert_int_equal(st.k8s_lists, 1);
	assert_int_equal(st.load_errors, 0);
	/* a bookmark moves the resourceVersion on; the server ends the watch: resumed from there, not listed */
	push("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"150\"}}}");
	end_watch();
	until_watch(2, "150");
	assert_int_equal(lists(), 1);
	/* 410 Gone in the stream: listed again (list2), watched from its resourceVersion; not a failure */
	set_list(200, list2);
	push("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\"}}");
	until_job(id, "10.7.0.4", "delta");
	until_watch(3, "200");
	assert_int_equal(lists(), 2);
	st = stats(id);
	assert_int_equal(st.stale, 0);
	assert_int_equal(st.load_errors, 0);
	/* a malformed line: reported; listing again fails (500): stale, the mapping of list2 kept */
	set_list(500, "oops");
	push("{\"type\":\"ADDED\",\"object\":");
	until_failure(id, "watch event 1:");
	until_failure(id, "HTTP status 500");
	st = stats(id);
	assert_int_equal(st.stale, 1);
	assert_int_equal(st.entries, 2);
	assert_true(st.load_errors >= 2); /* the line, then at least one list */
	assert_string_equal(job(id, "10.7.0.1"), "gamma");
	assert_string_equal(job(id, "10.7.0.4"), "delta");
	/* the list mended, the watch refused (401): reported, the list's mapping kept */
	set_watch(401);
	set_list(200, list1);
	until_failure(id, "watch: HTTP status 401");
	until_job(id, "10.7.0.1", "alpha");
	assert_null(job(id, "10.7.0.4"));
	/* the watch answers 410 Gone at once: listed again (list2), and not reported as a failure */
	set_list(200, list2);
	set_watch(410);
	unsigned l = lists();
	until_lists(l + 2); /* a 401 answered before the switch was published before the list after it */
	hw_ident_reload(id, err, sizeof(err));
	uint64_t errors = stats(id).load_errors;
	until_lists(l + 4); /* two more lists, each followed by a watch answered 410 */
	until_job(id, "10.7.0.4", "delta");
	hw_ident_reload(id, err, sizeof(err));
	st = stats(id);
	assert_int_equal(st.stale, 0);
	assert_int_equal(st.load_errors, errors);
	set_watch(200); /* the lines pushed go to the next watch */
	push(EV("ADDED", "201", "e-0", "10.7.0.5", "epsilon", "Running"));
	until_job(id, "10.7.0.5", "epsilon");
	st = stats(id);
	assert_int_equal(st.stale, 0);
	assert_int_equal(st.load_errors, errors);
	assert_true(st.k8s_lists >= 6); /* list1, list2 (410 in the stream), the lists of the 500s, 401s and 410s */
	hw_ident_destroy(id);           /* ends the watch under way */
	unlink(tok);
	server_stop(d);
}

static void first_list_must_succeed(void **state)
{
	(void)state;
	char url[128], tok[] = "/tmp/test_k8s_XXXXXX", err[512];
	struct MHD_Daemon *d = server(url, sizeof(url), NULL, NULL);
	set_list(200, list1);
	token_file(tok, "wrong\n");
	struct hw_ident *id = hw_ident_create(NULL);
	/* the server wants "Bearer s3cret": a wrong token is refused, and adding the source fails saying so */
	const struct hw_ident_k8s_opts o = {.token_file = tok, .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "HTTP status 401"));
	assert_non_null(strstr(err, "127.0.0.1"));
	/* no token at all: the same */
	const struct hw_ident_k8s_opts none = {.every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &none, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "HTTP status 401"));
	/* a token file that is not there: named */
	const struct hw_ident_k8s_opts gone = {.token_file = "/nonexistent/token", .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &gone, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/token"));
	/* a list cut short: the parser's message, naming the URL and line 1 */
	char good[] = "/tmp/test_k8s_XXXXXX";
	token_file(good, "s3cret\n");
	set_list(200, "{\"kind\":\"PodList\",\"items\":[");
	const struct hw_ident_k8s_opts right = {.token_file = good, .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &right, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/api/v1/pods:1:"));
	assert_int_equal(stats(id).sources, 0);
	hw_ident_destroy(id);
	unlink(tok);
	unlink(good);
	server_stop(d);
}

/* text of a whole file, malloc'd */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *p = calloc(1, 1 << 16);
	assert_non_null(p);
	size_t n = fread(p, 1, (1 << 16) - 1, f);
	assert_true(n > 0);
	fclose(f);
	return p;
}

/* https: a self-signed certificate for 127.0.0.1 made with openssl req, given as the CA file. */
static void tls_with_ca_file(void **state)
{
	(void)state;
	if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		print_message("libmicrohttpd without TLS: skipped\n");
		skip();
	}
	char dir[] = "/tmp/test_k8s_tls_XXXXXX", cmd[1024], key[128], crt[128];
	assert_non_null(mkdtemp(dir));
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	snprintf(crt, sizeof(crt), "%s/crt.pem", dir);
	snprintf(
	    cmd, sizeof(cmd),
	    "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 "
	    "-addext subjectAltName=IP:127.0.0.1 -keyout %s -out %s 2>/dev/null",
	    key, crt);
	if (system(cmd) != 0) {
		print_message("no openssl to make a certificate: skipped\n");
		skip();
	}
	char *k = slurp(key), *c = slurp(crt), url[128], tok[] = "/tmp/test_k8s_XXXXXX", err[512];
	struct MHD_Daemon *d = server(url, sizeof(url), k, c);
	set_list(200, list1);
	token_file(tok, "s3cret\n");
	struct hw_ident *id = hw_ident_create(NULL);
	/* the system's CAs do not know the certificate: the first list fails, naming the URL */
	const struct hw_ident_k8s_opts sys = {.token_file = tok, .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &sys, err, sizeof(err)), -1);
	assert_non_null(strstr(err, url));
	/* with the CA file: listed, then watched */
	const struct hw_ident_k8s_opts o = {.token_file = tok, .ca_file = crt, .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &o, err, sizeof(err)), 0);
	assert_string_equal(job(id, "10.7.0.1"), "alpha");
	until_watch(1, "100");
	push(EV("ADDED", "101", "b-0", "10.7.0.2", "beta", "Running"));
	until_job(id, "10.7.0.2", "beta");
	hw_ident_destroy(id);
	server_stop(d);
	unlink(tok);
	unlink(key);
	unlink(crt);
	rmdir(dir);
	free(k);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(watch_follows_and_keeps),
	    cmocka_unit_test(first_list_must_succeed),
	    cmocka_unit_test(tls_with_ca_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
