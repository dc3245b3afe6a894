/* The live stream when the reader keeps up: batches sent over a unix socket and over loopback TCP
 * arrive complete, in order and equal field by field, with their sequence numbers; several senders
 * share one listener; a sender reconnects to a listener that appears late. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "hopwatch/stream.h"
#include "sink_util.h"

/* Receive one batch (letting s push a partly sent frame meanwhile) and check it is batch `seq` of
 * `conn`, records seeds first.. first+n-1, sent after dropped_before records were dropped. */
static void expect_batch(struct sink_fx *f, struct hw_stream_sender *s, struct hw_stream_listener *l, uint32_t first,
                         long n, uint64_t seq, uint64_t dropped_before, unsigned conn)
{
	long got = 0;
	for (int tries = 0; tries < 40 && got == 0; tries++) {
		hw_stream_sender_flush(s);
		got = hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err));
	}
	if (got < 0)
		fail_msg("receive: %s", f->err);
	assert_int_equal(got, n);
	struct hw_record want;
	for (long i = 0; i < n; i++) {
		rec_fill(&want, first + (uint32_t)i);
		rec_assert_equal(&f->out[i], &want);
	}
	struct hw_stream_batch_info info;
	hw_stream_last_batch(l, &info);
	assert_int_equal(info.seq, seq);
	assert_int_equal(info.dropped_before, dropped_before);
	if (conn)
		assert_int_equal(info.conn, conn);
}

static void send_seeds(struct sink_fx *f, struct hw_stream_sender *s, uint32_t first, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rec_fill(&f->batch[i], first + (uint32_t)i);
	if (!hw_stream_send(s, f->batch, n))
		fail_msg("batch of %zu from seed %u dropped: %s", n, first, hw_stream_sender_error(s));
}

static void in_order(struct sink_fx *f, const char *listen_addr)
{
	struct hw_stream_listener *l = fx_listen(f, listen_addr);
	const char *addr = hw_stream_listener_address(l);
	struct hw_stream_sender *s = fx_sender(f, addr);
	uint32_t seed = 0;
	uint64_t total = 0;
	for (uint64_t b = 0; b < 60; b++) {
		size_t n = b == 59 ? HW_STREAM_MAX_BATCH : 1 + (b * 37) % 300;
		send_seeds(f, s, seed, n);
		expect_batch(f, s, l, seed, (long)n, b, 0, 1);
		seed += (uint32_t)n;
		total += n;
	}
	assert_int_equal(hw_stream_sent_records(s), total);
	assert_int_equal(hw_stream_dropped_records(s), 0);
	assert_int_equal(hw_stream_dropped_batches(s), 0);
	assert_int_equal(hw_stream_receive(l, f->out, 50, f->err, sizeof(f->err)), 0); /* nothing more */
	hw_stream_sender_close(s);
	hw_stream_listener_close(l);
}

static void unix_in_order(void **state)
{
	struct sink_fx *f = *state;
	in_order(f, f->addr);
}

static void tcp_in_order(void **state)
{
	struct sink_fx *f = *state;
	in_order(f, "tcp:127.0.0.1:0");
}

static void tcp_address_forms(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_listener *l = fx_listen(f, "tcp:127.0.0.1:0");
	const char *addr = hw_stream_listener_address(l);
	assert_memory_equal(addr, "tcp:127.0.0.1:", 14);
	assert_in_range(atoi(addr + 14), 1, INT_MAX);
	hw_stream_listener_close(l);
	l = hw_stream_listen("tcp:[::1]:0", f->err, sizeof(f->err));
	if (l) { /* hosts without IPv6 loopback skip this part */
		assert_memory_equal(hw_stream_listener_address(l), "tcp:[::1]:", 10);
		struct hw_stream_sender *s = fx_sender(f, hw_stream_listener_address(l));
		send_seeds(f, s, 7, 3);
		expect_batch(f, s, l, 7, 3, 0, 0, 1);
		hw_stream_sender_close(s);
		hw_stream_listener_close(l);
	}
	const char *bad[] = {"udp:1.2.3.4:5", "tcp:127.0.0.1", "tcp::80", "unix:", "stream.sock"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f->err[0] = 0;
		assert_null(hw_stream_sender_open(bad[i], f->err, sizeof(f->err)));
		if (!strstr(f->err, bad[i]))
			fail_msg("message \"%s\" does not name \"%s\"", f->err, bad[i]);
	}
}

static void several_senders(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_listener *l = fx_listen(f, f->addr);
	struct hw_stream_sender *s[3];
	for (int k = 0; k < 3; k++)
		s[k] = fx_sender(f, f->addr);
	/* Sender k sends batches of seeds k*100000 + 10*b ..; the reader sees each sender's in order. */
	for (int b = 0; b < 20; b++)
		for (int k = 0; k < 3; k++)
			send_seeds(f, s[k], (uint32_t)(k * 100000 + b * 10), 10);
	uint32_t next[3] = {0, 0, 0};
	uint64_t next_seq[3] = {0, 0, 0};
	for (int got = 0; got < 60; got++) {
		long n = hw_stream_receive(l, f->out, 2000, f->err, sizeof(f->err));
		if (n < 0)
			fail_msg("receive: %s", f->err);
		assert_int_equal(n, 10);
		int k = (int)((f->out[0].time_ns - 0x1000000000000000u) / 1000 / 100000);
		assert_in_range(k, 0, 2);
		struct hw_stream_batch_info info;
		hw_stream_last_batch(l, &info);
		assert_int_equal(info.seq, next_seq[k]++);
		struct hw_record want;
		for (int i = 0; i < 10; i++) {
			rec_fill(&want, (uint32_t)(k * 100000) + next[k]++);
			rec_assert_equal(&f->out[i], &want);
		}
	}
	for (int k = 0; k < 3; k++) {
		assert_int_equal(next[k], 200);
		hw_stream_sender_close(s[k]);
	}
	hw_stream_listener_close(l);
}

static void reconnects_to_late_listener(void **state)
{
	struct sink_fx *f = *state;
	struct hw_stream_sender *s = fx_sender(f, f->addr);
	rec_fill(&f->batch[0], 1);
	assert_int_equal(hw_stream_send(s, f->batch, 1), 0); /* nobody there yet */
	assert_non_null(strstr(hw_stream_sender_error(s), f->addr));
	struct hw_stream_listener *l = fx_listen(f, f->addr);
	struct timespec pause = {0, 150 * 1000000}; /* past the 100 ms between connect attempts */
	nanosleep(&pause, NULL);
	send_seeds(f, s, 2, 5);
	expect_batch(f, s, l, 2, 5, 0, 1, 1);
	assert_int_equal(hw_stream_dropped_records(s), 1);

	hw_stream_listener_close(l); /* the reader goes away and comes back */
	l = fx_listen(f, f->addr);
	rec_fill(&f->batch[0], 9);
	for (int i = 0; i < 5 && hw_stream_send(s, f->batch, 1); i++) /* sends fail once the loss is seen */
		nanosleep(&(struct timespec){0, 10 * 1000000}, NULL);
	nanosleep(&pause, NULL);
	send_seeds(f, s, 20, 4);
	long n = hw_stream_receive(l, f->out, 2000, f->err, sizeof(f->err));
	assert_int_equal(n, 4);
	struct hw_record want;
	rec_fill(&want, 20);
	rec_assert_equal(&f->out[0], &want);
	hw_stream_sender_close(s);
	hw_stream_listener_close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(unix_in_order, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(tcp_in_order, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(tcp_address_forms, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(several_senders, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(reconnects_to_late_listener, sink_fx_setup, sink_fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
