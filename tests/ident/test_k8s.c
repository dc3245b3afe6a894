/* The Kubernetes API source of lib/ident against a loopback server answering recorded pod lists: a pod added, a
 * pod deleted, an address reused by another job, each followed; a 401, a 500 and a malformed list keep the last
 * good mapping and are reported; the bearer token is sent.  Polls with a generous limit, no wall-clock asserts. */
#include <arpa/inet.h>
#include <microhttpd.h>
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

#define POD(name, ip, job)                                                                                             \
	"{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"ml\",\"labels\":{\"job-name\":\"" job "\"}},"            \
	"\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Running\",\"podIP\":\"" ip "\"}}"
#define LIST(...) "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"items\":[" __VA_ARGS__ "]}"

/* The recorded answers, by phase. */
static const struct {
	unsigned status;
	const char *body;
} answers[] = {
    {200, LIST(POD("a-0", "10.7.0.1", "alpha"))},                                    /* 0 */
    {200, LIST(POD("a-0", "10.7.0.1", "alpha") "," POD("b-0", "10.7.0.2", "beta"))}, /* 1: b added */
    {200, LIST(POD("b-0", "10.7.0.2", "beta"))},                                     /* 2: a deleted */
    {200, LIST(POD("b-0", "10.7.0.2", "beta") "," POD("c-0", "10.7.0.1", "gamma"))}, /* 3: a's address is c's */
    {401, "{\"kind\":\"Status\",\"code\":401}"},                                     /* 4 */
    {500, "oops"},                                                                   /* 5 */
    {200, "{\"kind\":\"PodList\",\"items\":["},                                      /* 6: cut short */
};
static volatile int phase;

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *data, size_t *size, void **state)
{
	(void)cls, (void)version, (void)data, (void)size, (void)state;
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	int p = phase;
	unsigned status = answers[p].status;
	const char *body = answers[p].body;
	if (strcmp(method, "GET") || strcmp(url, "/api/v1/pods") || !auth || strcmp(auth, "Bearer s3cret")) {
		status = 401;
		body = "{}";
	}
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static struct MHD_Daemon *server(char *url, size_t size)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, NULL,
	                                        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	assert_non_null(d);
	snprintf(url, size, "http://127.0.0.1:%u/api/v1/pods", MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
	return d;
}

static void token_file(char *path, const char *token)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, token, strlen(token)), (ssize_t)strlen(token));
	close(fd);
}

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

/* Reload until addr's job is want (NULL: unknown); fails after LIMIT_S. */
static void until_job(struct hw_ident *id, const char *addr, const char *want)
{
	char err[512];
	for (int i = 0; i < LIMIT_S * 100 && !same(job(id, addr), want); i++) {
		hw_ident_reload(id, err, sizeof(err));
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	const char *got = job(id, addr);
	if (!same(got, want))
		fail_msg("%s: job %s, expected %s", addr, got ? got : "(none)", want ? want : "(none)");
}

/* Reload until a failure is reported whose message holds what; fails after LIMIT_S. */
static void until_failure(struct hw_ident *id, const char *what)
{
	char err[512] = "";
	for (int i = 0; i < LIMIT_S * 100; i++) {
		if (hw_ident_reload(id, err, sizeof(err)) > 0 && strstr(err, what))
			return;
		nanosleep(&(struct timespec){0, 10000000}, NULL);
	}
	fail_msg("no failure naming \"%s\" (last: %s)", what, err);
}

static void list_follows_and_keeps(void **state)
{
	(void)state;
	char url[128], tok[] = "/tmp/test_k8s_XXXXXX", err[512];
	struct MHD_Daemon *d = server(url, sizeof(url));
	token_file(tok, "s3cret\n");
	phase = 0;
	struct hw_ident *id = hw_ident_create(NULL);
	const struct hw_ident_k8s_opts o = {.token_file = tok, .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &o, err, sizeof(err)), 0);
	/* the first list is in when the source is added */
	assert_string_equal(job(id, "10.7.0.1"), "alpha");
	assert_null(job(id, "10.7.0.2"));
	phase = 1; /* b added */
	until_job(id, "10.7.0.2", "beta");
	assert_string_equal(job(id, "10.7.0.1"), "alpha");
	phase = 2; /* a deleted */
	until_job(id, "10.7.0.1", NULL);
	assert_string_equal(job(id, "10.7.0.2"), "beta");
	phase = 3; /* a's address taken by c of another job */
	until_job(id, "10.7.0.1", "gamma");
	struct hw_ident_stats st;
	hw_ident_stats(id, &st);
	assert_int_equal(st.stale, 0);
	assert_int_equal(st.entries, 2);
	/* 401, 500, a list cut short: each reported (naming the URL or the status), the mapping of phase 3 kept */
	phase = 4;
	until_failure(id, "HTTP status 401");
	assert_non_null(strstr(url, "127.0.0.1"));
	phase = 5;
	until_failure(id, "HTTP status 500");
	phase = 6;
	until_failure(id, "/api/v1/pods:1:"); /* the parser's message: the URL, line 1 */
	hw_ident_stats(id, &st);
	assert_int_equal(st.stale, 1);
	assert_int_equal(st.entries, 2);
	assert_string_equal(job(id, "10.7.0.1"), "gamma");
	assert_string_equal(job(id, "10.7.0.2"), "beta");
	/* good again: no longer stale */
	phase = 1;
	until_job(id, "10.7.0.1", "alpha");
	hw_ident_stats(id, &st);
	assert_int_equal(st.stale, 0);
	hw_ident_destroy(id);
	unlink(tok);
	MHD_stop_daemon(d);
}

static void first_list_must_succeed(void **state)
{
	(void)state;
	char url[128], tok[] = "/tmp/test_k8s_XXXXXX", err[512];
	struct MHD_Daemon *d = server(url, sizeof(url));
	token_file(tok, "wrong\n");
	phase = 0;
	struct hw_ident *id = hw_ident_create(NULL);
	/* the server wants "Bearer s3cret": a wrong token is refused, and adding the source fails saying so */
	const struct hw_ident_k8s_opts o = {.token_file = tok, .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &o, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "HTTP status 401"));
	/* no token at all: the same */
	const struct hw_ident_k8s_opts none = {.every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &none, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "HTTP status 401"));
	/* a token file that is not there: named */
	const struct hw_ident_k8s_opts gone = {.token_file = "/nonexistent/token", .every_s = 0.05};
	assert_int_equal(hw_ident_add_k8s(id, url, &gone, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/token"));
	struct hw_ident_stats st;
	hw_ident_stats(id, &st);
	assert_int_equal(st.sources, 0);
	hw_ident_destroy(id);
	unlink(tok);
	MHD_stop_daemon(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(list_follows_and_keeps),
	    cmocka_unit_test(first_list_must_succeed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
