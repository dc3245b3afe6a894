/* The stream listener's unix socket file (stream.h): a second listener cannot take over the path of one
 * that is running, a stale file is replaced, and a listener removes the file only while it is its own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(live_path_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(stale_path_replaced, setup, teardown),
	    cmocka_unit_test_setup_teardown(close_keeps_anothers_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
