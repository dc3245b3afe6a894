/* libFuzzer target for HTTP replies as the Alertmanager/webhook sender and the ClickHouse sink get them: both
 * keep only the status (and ClickHouse's first body line), so what parses the reply is libcurl under
 * lib/common/http_client.c.  A thread on loopback answers each request with the input; the reply's status, body
 * and error text must be sane and never show the URL's password.  The input also goes through hw_http_redact. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "http_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int listener = -1;
static char url[128];

struct answer {
	const uint8_t *data;
	size_t size;
};

/* Read one request whole (headers, then Content-Length bytes), answer it with the input and close: a reply
 * sent before the request is read could be lost to a reset. */
static void *serve(void *arg)
{
	const struct answer *a = arg;
	int c = accept(listener, NULL, NULL);
	if (c < 0)
		return NULL;
	const struct timeval tv = {5, 0}; /* a client that never finishes its request does not hold the run */
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	char req[65536];
	size_t n = 0, want = 0;
	for (;;) {
		ssize_t k = read(c, req + n, sizeof(req) - 1 - n);
		if (k <= 0)
			break;
		n += (size_t)k;
		req[n] = 0;
		char *end = strstr(req, "\r\n\r\n");
		if (!end)
			continue;
		if (!want) {
			const char *cl = strcasestr(req, "\r\nContent-Length:");
			want = (size_t)(end + 4 - req) + (cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0);
		}
		if (n >= want || n >= sizeof(req) - 1)
			break;
	}
	for (size_t off = 0; off < a->size;) {
		ssize_t k = write(c, a->data + off, a->size - off);
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	close(c); /* the request was read whole: a plain close, no reset (the client may keep its end open) */
	return NULL;
}

static int start(void)
{
	listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	if (listener < 0 || bind(listener, (struct sockaddr *)&sa, sizeof(sa)) || listen(listener, 16) ||
	    getsockname(listener, (struct sockaddr *)&sa, &len))
		return -1;
	const struct timeval tv = {5, 0}; /* accept too: a request that never comes does not hold the run */
	setsockopt(listener, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(url, sizeof(url), "http://hopwatch:fuzzSecret@127.0.0.1:%u/?password=fuzzSecret2", ntohs(sa.sin_port));
	return 0;
}

/* One request with the options of a sender (body_max as it keeps), answered with the input. */
static void one(const struct answer *a, size_t body_max)
{
	const struct hw_http_opts o = {
	    .connect_timeout_ms = 1000, .timeout_ms = 2000, .content_type = "application/json", .body_max = body_max};
	char err[256];
	struct hw_http *h = hw_http_open(url, &o, err, sizeof(err));
	if (!h)
		return;
	pthread_t t;
	if (pthread_create(&t, NULL, serve, (void *)a)) {
		hw_http_close(h);
		return;
	}
	struct hw_http_reply r;
	int rc = hw_http_post(h, "[]", 2, &r);
	pthread_join(t, NULL);
	if (!r.body || r.body[r.body_len] || r.body_len > body_max || strlen(r.body) > r.body_len)
		__builtin_trap(); /* the kept body is not within body_max and NUL-terminated */
	if (rc && (!r.err[0] || strnlen(r.err, sizeof(r.err)) >= sizeof(r.err) || r.what < r.err ||
	           r.what > r.err + strlen(r.err)))
		__builtin_trap(); /* a failed request says why */
	if (strstr(r.err, "fuzzSecret") || strstr(hw_http_url(h), "fuzzSecret"))
		__builtin_trap(); /* a password in a message */
	if (!rc && r.status >= 200 && r.status < 300 && (a->size < 5 || strncasecmp((const char *)a->data, "HTTP/", 5)))
		__builtin_trap(); /* accepted as delivered though the answer is no HTTP reply */
	/* the ClickHouse sink's message: the body's first line */
	char why[400];
	snprintf(why, sizeof(why), "%.*s", (int)strcspn(r.body, "\n"), r.body);
	hw_http_close(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (listener < 0 && start())
		return 0;
	const struct answer a = {data, size};
	one(&a, 0);   /* the Alertmanager/webhook sender: the status only */
	one(&a, 511); /* the ClickHouse sink: the status and the start of the body */
	/* the input as a URL, for messages */
	char *u = malloc(size + 1), out[2048], small[16];
	if (!u)
		return 0;
	memcpy(u, data, size);
	u[size] = 0;
	if (strlen(hw_http_redact(u, out, sizeof(out))) >= sizeof(out) ||
	    strlen(hw_http_redact(u, small, sizeof(small))) >= sizeof(small))
		__builtin_trap();
	free(u);
	return 0;
}
