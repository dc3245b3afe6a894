/* The /metrics server under a flood of idle connections (issue 22 item 3): more than FD_SETSIZE of them from
 * one client address, and a scrape from another address still answers; idle connections are closed.  Slow
 * readers of a large text (item 4) share one rendering instead of holding a copy each. */
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
#include <time.h>
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
static struct hw_metrics_http *start_with(unsigned *port, hw_metrics_render_fn fn, void *arg)
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
		struct hw_metrics_http *s = hw_metrics_http_start(addr, fn, arg, err, sizeof(err));
		if (s)
			return s;
	}
	fail_msg("no free port for the server");
	return NULL;
}

static struct hw_metrics_http *start(unsigned *port)
{
	return start_with(port, render, NULL);
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

#define BIG_MB 16 /* the large text: 16 MiB of one 64-byte sample line repeated */

static void render_big(void *arg, FILE *f)
{
	(void)arg;
	static const char line[] = "hopwatch_test_big{node=\"10.0.0.1\",port=\"1\",queue=\"0\"} 123456789\n";
	_Static_assert(sizeof(line) - 1 == 64, "64-byte line");
	fputs("# TYPE hopwatch_test_big gauge\n", f);
	for (unsigned i = 0; i < BIG_MB * 1024 * 1024 / 64; i++)
		fputs(line, f);
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, res = 0;
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld %ld", &size, &res), 2);
	fclose(f);
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Issue 22 item 4: twelve clients ask for a 16 MiB /metrics text and then read nothing.  Each response used
 * to be rendered whole for its connection (12 copies, 192 MiB held until the idle timeout); now the scrapes
 * arriving while the others are still sent share one rendering. */
static void slow_readers_share_one_rendering(void **state)
{
	(void)state;
	enum { READERS = 12 };
	unsigned port;
	struct hw_metrics_http *s = start_with(&port, render_big, NULL);
	long before = rss_kib();
	double t0 = now_s();
	int fds[READERS];
	static const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
	for (int i = 0; i < READERS; i++) {
		char from[32];
		snprintf(from, sizeof(from), "127.0.0.%d", 10 + i);
		fds[i] = connect_from(from, port);
		int small = 4096; /* a reader that takes little: the server holds the rest of its text */
		setsockopt(fds[i], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
		assert_int_equal(send(fds[i], req, sizeof(req) - 1, MSG_NOSIGNAL), (ssize_t)(sizeof(req) - 1));
	}
	/* every response started (its first bytes are here), polled for at most 60 s each */
	for (int i = 0; i < READERS; i++) {
		struct pollfd p = {.fd = fds[i], .events = POLLIN};
		assert_int_equal(poll(&p, 1, 60000), 1);
	}
	double took = now_s() - t0;
	long grew = rss_kib() - before;
	unsigned long renders = hw_metrics_http_renders(s);
	/* Every rendering happened between t0 and now.  One shared text is reused for HW_METRICS_HTTP_SHARE_MS
	 * (1 s) while it is being sent, so at most 1 + took/1 s renderings (1 on any host that is not badly
	 * stalled; 12 before the fix).  Each costs at most 4 x 16 MiB resident (open_memstream grows by
	 * doubling; under ASan the smaller buffers it freed stay in quarantine: 55 MiB measured) plus 16 MiB
	 * for everything else: 80 MiB for one rendering, where 12 copies are at least 192 MiB. */
	print_message("%lu rendering(s) for %d readers in %.2f s, resident memory grew %ld KiB\n", renders, READERS,
	              took, grew);
	assert_in_range(renders, 1, 1 + (unsigned long)(took * 1000 / HW_METRICS_HTTP_SHARE_MS));
	assert_true(grew <= (long)renders * 4 * BIG_MB * 1024 + 16 * 1024);
	for (int i = 0; i < READERS; i++)
		close(fds[i]);
	hw_metrics_http_stop(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(slow_readers_share_one_rendering),
	    cmocka_unit_test(flood_of_idle_connections),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
