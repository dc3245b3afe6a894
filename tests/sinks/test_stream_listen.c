/* The stream listener's unix socket file (stream.h): a second listener cannot take over the path of one
 * that is running, a stale file is replaced, and a listener removes the file only while it is its own.
 * Over tcp, one host cannot take every connection slot (issue 22: 64 idle ones locked the collector out). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/stream.h"
#include "sink_util.h"

static char dir[256], path[300], addr[320];

static int setup(void **state)
{
	(void)state;
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/s.sock", dir);
	snprintf(addr, sizeof(addr), "unix:%s", path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	tmpdir_remove(dir);
	return 0;
}

static int exists(void)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* A running listener keeps its path: the second one is refused, naming the path, and the first still
 * owns the file afterwards; closing it removes the file. */
static void live_path_refused(void **state)
{
	(void)state;
	char err[512] = "";
	struct hw_stream_listener *a = hw_stream_listen(addr, err, sizeof(err));
	assert_non_null(a);
	struct hw_stream_listener *b = hw_stream_listen(addr, err, sizeof(err));
	assert_null(b);
	assert_non_null(strstr(err, "another process is listening"));
	assert_non_null(strstr(err, path));
	assert_true(exists());
	hw_stream_listener_close(a);
	assert_false(exists());
}

/* A socket file nobody listens on (its process died without removing it) is replaced. */
static void stale_path_replaced(void **state)
{
	(void)state;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd); /* bound, never listening, closed: the file stays, stale */
	assert_true(exists());
	char err[512] = "";
	struct hw_stream_listener *l = hw_stream_listen(addr, err, sizeof(err));
	assert_non_null(l);
	hw_stream_listener_close(l);
	assert_false(exists());
}

/* A listener whose file was replaced by another's (removed by hand, then a new listener) leaves the new
 * file alone when it closes. */
static void close_keeps_anothers_file(void **state)
{
	(void)state;
	char err[512] = "";
	struct hw_stream_listener *old = hw_stream_listen(addr, err, sizeof(err));
	assert_non_null(old);
	unlink(path);
	struct hw_stream_listener *now = hw_stream_listen(addr, err, sizeof(err));
	assert_non_null(now);
	hw_stream_listener_close(old);
	assert_true(exists());
	hw_stream_listener_close(now);
	assert_false(exists());
}

/* 64 idle connections from 127.0.0.2 (the listener's whole table before the per-peer limit): 8
 * (HW_STREAM_MAX_PER_PEER) are kept, the other 56 refused and counted, and a sender from 127.0.0.1 still
 * gets its batch through.  Every wait is polled, for at most 60 s. */
static void one_host_cannot_take_every_slot(void **state)
{
	(void)state;
	enum { IDLE = 64 };
	char err[512] = "", where[64];
	struct hw_stream_listener *l = hw_stream_listen("tcp:127.0.0.1:0", err, sizeof(err));
	assert_non_null(l);
	const char *bound = hw_stream_listener_address(l); /* tcp:127.0.0.1:PORT */
	unsigned port = (unsigned)atoi(strrchr(bound, ':') + 1);
	int fds[IDLE];
	for (int i = 0; i < IDLE; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_true(fds[i] >= 0);
		struct sockaddr_in src = {.sin_family = AF_INET},
		                   dst = {.sin_family = AF_INET, .sin_port = htons(port)};
		inet_pton(AF_INET, "127.0.0.2", &src.sin_addr);
		inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
		assert_int_equal(bind(fds[i], (struct sockaddr *)&src, sizeof(src)), 0);
		assert_int_equal(connect(fds[i], (struct sockaddr *)&dst, sizeof(dst)), 0);
		/* accepted (or refused) as they come: the kernel's accept queue holds 64 */
		static struct hw_record out[HW_STREAM_MAX_BATCH];
		assert_int_equal(hw_stream_receive(l, out, 0, err, sizeof(err)), 0);
	}
	static struct hw_record out[HW_STREAM_MAX_BATCH];
	uint64_t per_peer = 0;
	for (int t = 0; t < 6000 && hw_stream_refused(l, &per_peer) < IDLE - HW_STREAM_MAX_PER_PEER; t++)
		assert_int_equal(hw_stream_receive(l, out, 10, err, sizeof(err)), 0);
	assert_int_equal(hw_stream_refused(l, &per_peer), IDLE - HW_STREAM_MAX_PER_PEER);
	assert_int_equal(per_peer, IDLE - HW_STREAM_MAX_PER_PEER);
	snprintf(where, sizeof(where), "tcp:127.0.0.1:%u", port);
	struct hw_stream_sender *s = hw_stream_sender_open(where, err, sizeof(err));
	assert_non_null(s);
	struct hw_record r;
	rec_fill(&r, 7);
	long got = 0;
	for (int t = 0; t < 6000 && got == 0; t++) { /* the first sends go while the connect is under way */
		hw_stream_send(s, &r, 1);
		got = hw_stream_receive(l, out, 10, err, sizeof(err));
	}
	assert_int_equal(got, 1);
	rec_assert_equal(&out[0], &r);
	hw_stream_refused(l, &per_peer);
	assert_int_equal(per_peer, IDLE - HW_STREAM_MAX_PER_PEER); /* the sender from 127.0.0.1 was not refused */
	hw_stream_sender_close(s);
	for (int i = 0; i < IDLE; i++)
		close(fds[i]);
	hw_stream_listener_close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(live_path_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(stale_path_replaced, setup, teardown),
	    cmocka_unit_test_setup_teardown(close_keeps_anothers_file, setup, teardown),
	    cmocka_unit_test(one_host_cannot_take_every_slot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
