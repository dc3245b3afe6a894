/* The stream listener against raw bytes: a frame written out by hand from stream.h is accepted;
 * a bad magic, version, record size, an oversized batch and a frame cut off by the peer are each
 * rejected with their own message, that connection is closed, and other senders carry on. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/record_file.h"
#include "hopwatch/stream.h"
#include "sink_util.h"

static struct hw_stream_listener *listener; /* on the fixture's unix address */

static int setup(void **state)
{
	sink_fx_setup(state);
	struct sink_fx *f = *state;
	listener = fx_listen(f, f->addr);
	return 0;
}

static int teardown(void **state)
{
	hw_stream_listener_close(listener);
	return sink_fx_teardown(state);
}

/* A plain blocking unix socket connected to the listener. */
static int raw_client(struct sink_fx *f)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	snprintf(un.sun_path, sizeof(un.sun_path), "%s", f->addr + 5);
	assert_int_equal(connect(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	return fd;
}

/* Frame header by hand: "SBWH" is 0x48574253 little-endian. */
static size_t hand_header(uint8_t *p, uint16_t version, uint16_t rec_size, uint32_t count)
{
	const uint8_t h[32] = {0x53,
	                       0x42,
	                       0x57,
	                       0x48, /* magic */
	                       (uint8_t)version,
	                       (uint8_t)(version >> 8), /* version */
	                       (uint8_t)rec_size,
	                       (uint8_t)(rec_size >> 8), /* record size */
	                       (uint8_t)count,
	                       (uint8_t)(count >> 8),
	                       (uint8_t)(count >> 16),
	                       0, /* count */
	                       0,
	                       0,
	                       0,
	                       0, /* reserved */
	                       0x0d,
	                       0x0c,
	                       0x0b,
	                       0x0a,
	                       0,
	                       0,
	                       0,
	                       0, /* seq 0x0a0b0c0d */
	                       0x2a,
	                       0,
	                       0,
	                       0,
	                       0,
	                       0,
	                       0,
	                       0}; /* dropped 42 */
	memcpy(p, h, 32);
	return 32;
}

static void write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		assert_in_range(k, 1, n); /* write(2) returns at most n */
		p += k;
		n -= (size_t)k;
	}
}

static void hand_frame_accepted(void **state)
{
	struct sink_fx *f = *state;
	int fd = raw_client(f);
	uint8_t buf[32 + 2 * HW_RECORD_SIZE];
	hand_header(buf, 1, HW_RECORD_SIZE, 2);
	struct hw_record r[2];
	rec_fill(&r[0], 11);
	rec_fill(&r[1], 12);
	hw_record_to_le(&r[0], buf + 32);
	hw_record_to_le(&r[1], buf + 32 + HW_RECORD_SIZE);
	/* In three pieces, to exercise reassembly. */
	write_all(fd, buf, 5);
	assert_int_equal(hw_stream_receive(listener, f->out, 50, f->err, sizeof(f->err)), 0);
	write_all(fd, buf + 5, 100);
	assert_int_equal(hw_stream_receive(listener, f->out, 50, f->err, sizeof(f->err)), 0);
	write_all(fd, buf + 105, sizeof(buf) - 105);
	assert_int_equal(hw_stream_receive(listener, f->out, 2000, f->err, sizeof(f->err)), 2);
	rec_assert_equal(&f->out[0], &r[0]);
	rec_assert_equal(&f->out[1], &r[1]);
	struct hw_stream_batch_info info;
	hw_stream_last_batch(listener, &info);
	assert_int_equal(info.seq, 0x0a0b0c0d);
	assert_int_equal(info.dropped_before, 42);
	close(fd);
	assert_int_equal(hw_stream_receive(listener, f->out, 50, f->err, sizeof(f->err)), 0); /* clean close */
}

struct bad {
	const char *what;
	uint8_t magic0;
	uint16_t version, rec_size;
	uint32_t count;
	const char *expect;
};

static void bad_headers_rejected(void **state)
{
	struct sink_fx *f = *state;
	const struct bad bads[] = {
	    {"magic", 0x54, 1, HW_RECORD_SIZE, 1, "bad magic 0x48574254 (expected 0x48574253)"},
	    {"version", 0x53, 3, HW_RECORD_SIZE, 1, "frame version 3 (expected 1)"}, /* 2: authenticated */
	    {"record size", 0x53, 1, 128, 1, "record size 128 (expected 136)"},
	    {"count", 0x53, 1, HW_RECORD_SIZE, HW_STREAM_MAX_BATCH + 1, "batch of 4097 records (at most 4096)"},
	};
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		int fd = raw_client(f);
		uint8_t buf[32 + HW_RECORD_SIZE] = {0};
		hand_header(buf, bads[i].version, bads[i].rec_size, bads[i].count);
		buf[0] = bads[i].magic0;
		write_all(fd, buf, sizeof(buf));
		f->err[0] = 0;
		assert_int_equal(hw_stream_receive(listener, f->out, 2000, f->err, sizeof(f->err)), -1);
		if (!strstr(f->err, bads[i].expect) || !strstr(f->err, f->addr) || !strstr(f->err, "connection closed"))
			fail_msg("%s: message \"%s\"", bads[i].what, f->err);
		char c;
		assert_int_equal(read(fd, &c, 1), 0); /* the listener hung up */
		close(fd);
	}
}

static void cut_frame_rejected(void **state)
{
	struct sink_fx *f = *state;
	int fd = raw_client(f);
	uint8_t buf[32 + HW_RECORD_SIZE] = {0};
	hand_header(buf, 1, HW_RECORD_SIZE, 1);
	write_all(fd, buf, 32 + 100);
	close(fd);
	assert_int_equal(hw_stream_receive(listener, f->out, 2000, f->err, sizeof(f->err)), -1);
	if (!strstr(f->err, "closed in the middle of a frame (132 bytes of it arrived)"))
		fail_msg("message \"%s\"", f->err);
}

static void good_sender_unaffected(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_sender *s = fx_sender(f, f->addr);
	int bad = raw_client(f);
	uint8_t junk[64];
	memset(junk, 0xab, sizeof(junk));
	write_all(bad, junk, sizeof(junk));
	struct hw_record r[3];
	for (int i = 0; i < 3; i++)
		rec_fill(&r[i], (uint32_t)(100 + i));
	assert_int_equal(hw_stream_send(s, r, 3), 1);
	int got_error = 0, got_batch = 0;
	for (int tries = 0; tries < 10 && !(got_error && got_batch); tries++) {
		long n = hw_stream_receive(listener, f->out, 500, f->err, sizeof(f->err));
		if (n < 0) {
			assert_non_null(strstr(f->err, "bad magic 0xabababab"));
			got_error++;
		} else if (n > 0) {
			assert_int_equal(n, 3);
			for (int i = 0; i < 3; i++)
				rec_assert_equal(&f->out[i], &r[i]);
			got_batch++;
		}
	}
	assert_int_equal(got_error, 1);
	assert_int_equal(got_batch, 1);
	close(bad);
	hw_stream_sender_close(s);
}

static void listen_refuses_non_socket(void **state)
{
	struct sink_fx *f = *state;
	char path[400], addr[420];
	snprintf(path, sizeof(path), "%s/plain-file", f->dir);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(addr, sizeof(addr), "unix:%s", path);
	assert_null(hw_stream_listen(addr, f->err, sizeof(f->err)));
	assert_non_null(strstr(f->err, "exists and is not a socket"));
	assert_non_null(strstr(f->err, path));
	assert_int_equal(access(path, F_OK), 0); /* left alone */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(hand_frame_accepted, setup, teardown),
	    cmocka_unit_test_setup_teardown(bad_headers_rejected, setup, teardown),
	    cmocka_unit_test_setup_teardown(cut_frame_rejected, setup, teardown),
	    cmocka_unit_test_setup_teardown(good_sender_unaffected, setup, teardown),
	    cmocka_unit_test_setup_teardown(listen_refuses_non_socket, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
