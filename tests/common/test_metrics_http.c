/* The /metrics server under a flood of idle connections (issue 22 item 3): more than FD_SETSIZE of them from
 * one client address, and a scrape from another address still answers; idle connections are closed. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/metrics_http.h"

#define FLOOD 1100 /* the count: above FD_SETSIZE (1024), which select() cannot watch */

static void render(void *arg, FILE *f)
{
	(void)arg;
	fputs("# TYPE hopwatch_test_total counter\nhopwatch_test_total 42\n", f);
}

/* A server on a port of 127.0.0.1 the kernel said was free (tried again if another process took it). */
static struct hw_metrics_http *start(unsigned *port)
{
	for (int tries = 0; tries < 20; tries++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		socklen_t len = sizeof(a);
		assert_true(fd >= 0);
		assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
		assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
		close(fd);
		*port = ntohs(a.sin_port);
		char addr[64], err[256];
		snprintf(addr, sizeof(addr), "127.0.0.1:%u", *port);
		struct hw_metrics_http *s = hw_metrics_http_start(addr, render, NULL, err, sizeof(err));
		if (s)
			return s;
	}
	fail_msg("no free port for the server");
	return NULL;
}

/* A TCP connection from the loopback address from (127.0.0.x) to the server. */
static int connect_from(const char *from, unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, from, &src.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&src, sizeof(src)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&dst, sizeof(dst)), 0);
	return fd;
}

/* Whether the server closed fd, waiting at most ms. */
static int closed_within(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char c;
	return poll(&p, 1, ms) == 1 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

/* GET /metrics from 127.0.0.1 (HTTP/1.0: the server closes after the answer); the whole answer, read
 * for at most 60 s (a loaded host is slow; a server that does not answer never is). */
static void scrape(unsigned port, char *buf, size_t size)
{
	int fd = connect_from("127.0.0.1", port);
	static const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
	assert_int_equal(send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL), (ssize_t)(sizeof(req) - 1));
	size_t n = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		assert_int_equal(poll(&p, 1, 60000), 1);
		ssize_t k = recv(fd, buf + n, size - 1 - n, 0);
		assert_true(k >= 0);
		if (k == 0 || (n += (size_t)k) == size - 1)
			break;
	}
	buf[n] = 0;
	close(fd);
}

static void flood_of_idle_connections(void **state)
{
	(void)state;
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < 2 * FLOOD + 256)
		skip(); /* the flood's both ends live in this process */
	rl.rlim_cur = 2 * FLOOD + 256;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	unsigned port;
	struct hw_metrics_http *s = start(&port);
	static int fds[FLOOD];
	for (int i = 0; i < FLOOD; i++)
		fds[i] = connect_from("127.0.0.2", port);
	char buf[4096];
	scrape(port, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "HTTP/1.1 200 OK\r\n", 17), 0);
	assert_non_null(strstr(buf, "\r\n\r\n# TYPE hopwatch_test_total counter\nhopwatch_test_total 42\n"));
	/* per address at most HW_METRICS_HTTP_MAX_PER_IP (8) stay open: the other 1092 are closed, and the 8
	 * are closed too once idle for HW_METRICS_HTTP_TIMEOUT_S (10 s); waited for, at most 60 s each */
	int open = 0;
	for (int i = 0; i < FLOOD; i++)
		open += !closed_within(fds[i], 0);
	assert_in_range(open, 0, HW_METRICS_HTTP_MAX_PER_IP);
	for (int i = 0; i < FLOOD; i++) {
		assert_true(closed_within(fds[i], 60000));
		close(fds[i]);
	}
	scrape(port, buf, sizeof(buf));
	assert_non_null(strstr(buf, "hopwatch_test_total 42\n"));
	hw_metrics_http_stop(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(flood_of_idle_connections),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
