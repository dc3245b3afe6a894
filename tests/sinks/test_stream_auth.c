/* The authenticated stream (stream.h, shared key): batches from a sender with the listener's key arrive
 * whole; a sender without it, with another key, or a frame tagged for another connection's challenge (a
 * replay) is refused, its connection closed and counted; a keyed sender whose listener sends no challenge
 * gives up with a message; key files are checked. */
#include <fcntl.h>
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

#include "hopwatch/record_file.h"
#include "hopwatch/stream.h"
#include "sink_util.h"
#include "sinks_internal.h"

static const uint8_t key_a[] = "0123456789abcdef0123456789abcdef", key_b[] = "fedcba9876543210fedcba9876543210";
#define KEY_LEN 32

/* Send batch (seeds first..first+n-1) from s until the listener returns something: the record count, or
 * -1 with f->err (a refused connection). */
static long exchange(struct sink_fx *f, struct hw_stream_sender *s, struct hw_stream_listener *l, uint32_t first,
                     uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		rec_fill(&f->batch[i], first + i);
	long got = 0;
	for (int tries = 0; tries < 100 && got == 0; tries++) { /* up to 5 s: connect, challenge, frame */
		hw_stream_send(s, f->batch, n);
		got = hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err));
	}
	return got;
}

static void same_key_delivers(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_listener *l = fx_listen(f, f->addr);
	struct hw_stream_sender *s = fx_sender(f, f->addr);
	hw_stream_listener_set_key(l, key_a, KEY_LEN);
	hw_stream_sender_set_key(s, key_a, KEY_LEN);
	long got = exchange(f, s, l, 100, 7);
	if (got < 0)
		fail_msg("receive: %s", f->err);
	assert_int_equal(got, 7);
	struct hw_record want;
	for (int i = 0; i < 7; i++) {
		rec_fill(&want, 100 + (uint32_t)i);
		rec_assert_equal(&f->out[i], &want);
	}
	assert_int_equal(hw_stream_auth_failures(l), 0);
	hw_stream_sender_close(s);
	hw_stream_listener_close(l);
}

/* Without a key, or with another key: refused and counted, nothing delivered. */
static void missing_or_wrong_key_refused(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_listener *l = fx_listen(f, f->addr);
	hw_stream_listener_set_key(l, key_a, KEY_LEN);
	struct hw_stream_sender *plain = fx_sender(f, f->addr);
	assert_int_equal(exchange(f, plain, l, 1, 3), -1);
	assert_non_null(strstr(f->err, "frame without authentication"));
	assert_int_equal(hw_stream_auth_failures(l), 1);
	hw_stream_sender_close(plain);
	struct hw_stream_sender *other = fx_sender(f, f->addr);
	hw_stream_sender_set_key(other, key_b, KEY_LEN);
	assert_int_equal(exchange(f, other, l, 1, 3), -1);
	assert_non_null(strstr(f->err, "not authenticated by the stream key"));
	assert_int_equal(hw_stream_auth_failures(l), 2);
	hw_stream_sender_close(other);
	hw_stream_listener_close(l);
}

/* A raw client with the right key tags its frame for a challenge other than the one it was sent (as a
 * frame recorded from another connection would be): refused. */
static void replayed_frame_refused(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_listener *l = fx_listen(f, f->addr);
	hw_stream_listener_set_key(l, key_a, KEY_LEN);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *path = f->addr + 5; /* "unix:" */
	assert_true(strlen(path) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err)); /* accepts: the challenge goes out */
	uint8_t challenge[HW_STREAM_CHALLENGE], other[HW_STREAM_CHALLENGE];
	assert_int_equal(recv(fd, challenge, sizeof(challenge), MSG_WAITALL), (ssize_t)sizeof(challenge));
	memcpy(other, challenge, sizeof(other));
	other[0] ^= 1; /* another connection's challenge */
	uint8_t frame[HW_STREAM_FRAME_HEADER + HW_RECORD_SIZE + HW_STREAM_TAG];
	struct hw_record r;
	rec_fill(&r, 5);
	hw_frame_hdr_put(frame, HW_STREAM_VERSION_AUTH, 1, 0, 0);
	hw_record_to_le(&r, frame + HW_STREAM_FRAME_HEADER);
	struct hw_frame_mac *m = hw_frame_mac_new(key_a, KEY_LEN);
	assert_non_null(m);
	assert_int_equal(hw_frame_mac_tag(m, other, frame, HW_STREAM_FRAME_HEADER + HW_RECORD_SIZE,
	                                  frame + HW_STREAM_FRAME_HEADER + HW_RECORD_SIZE),
	                 0);
	assert_int_equal(send(fd, frame, sizeof(frame), 0), (ssize_t)sizeof(frame));
	long got = 0;
	for (int tries = 0; tries < 100 && got == 0; tries++)
		got = hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err));
	assert_int_equal(got, -1);
	assert_non_null(strstr(f->err, "not authenticated"));
	assert_int_equal(hw_stream_auth_failures(l), 1);
	/* the same frame tagged for its own challenge is taken */
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err));
	assert_int_equal(recv(fd, challenge, sizeof(challenge), MSG_WAITALL), (ssize_t)sizeof(challenge));
	hw_frame_mac_tag(m, challenge, frame, HW_STREAM_FRAME_HEADER + HW_RECORD_SIZE,
	                 frame + HW_STREAM_FRAME_HEADER + HW_RECORD_SIZE);
	assert_int_equal(send(fd, frame, sizeof(frame), 0), (ssize_t)sizeof(frame));
	got = 0;
	for (int tries = 0; tries < 100 && got == 0; tries++)
		got = hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err));
	assert_int_equal(got, 1);
	rec_assert_equal(&f->out[0], &r);
	hw_frame_mac_free(m);
	close(fd);
	hw_stream_listener_close(l);
}

/* A keyed sender and a listener without a key: no challenge comes, the sender gives up after a second
 * with a message naming the likely cause, and every batch is counted as dropped. */
static void listener_without_key(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_listener *l = fx_listen(f, f->addr);
	struct hw_stream_sender *s = fx_sender(f, f->addr);
	hw_stream_sender_set_key(s, key_a, KEY_LEN);
	rec_fill(&f->batch[0], 1);
	for (int i = 0; i < 40 && !strstr(hw_stream_sender_error(s), "challenge"); i++) {
		hw_stream_send(s, f->batch, 1);
		hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err));
	}
	assert_non_null(strstr(hw_stream_sender_error(s), "no authentication challenge"));
	assert_int_equal(hw_stream_sent_records(s), 0);
	assert_true(hw_stream_dropped_records(s) > 0);
	hw_stream_sender_close(s);
	hw_stream_listener_close(l);
}

static void key_files(void **state)
{
	struct sink_fx *f = *state;
	char path[400], err[512];
	uint8_t key[HW_STREAM_KEY_MAX];
	size_t len = 0;
	snprintf(path, sizeof(path), "%s/key", f->dir);
	assert_int_equal(hw_stream_key_load(path, key, &len, err, sizeof(err)), -1); /* missing */
	assert_non_null(strstr(err, path));
	FILE *k = fopen(path, "w");
	fputs("0123456789abcdef0123456789abcdef\n", k); /* 32 bytes and a newline, which is dropped */
	fclose(k);
	chmod(path, 0644);
	assert_int_equal(hw_stream_key_load(path, key, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "chmod 600"));
	chmod(path, 0600);
	assert_int_equal(hw_stream_key_load(path, key, &len, err, sizeof(err)), 0);
	assert_int_equal(len, 32);
	assert_memory_equal(key, key_a, 32);
	k = fopen(path, "w");
	fputs("short\n", k); /* 5 bytes: too short */
	fclose(k);
	assert_int_equal(hw_stream_key_load(path, key, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "5 bytes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(same_key_delivers, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(missing_or_wrong_key_refused, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(replayed_frame_refused, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(listener_without_key, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(key_files, sink_fx_setup, sink_fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
