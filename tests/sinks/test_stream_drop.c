/* The live stream when the reader is absent or slow: the sender never blocks and drops whole
 * batches, counting them; what does arrive is complete, valid and in order, and each frame's
 * dropped-before count matches what the sender lost before it. */
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
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/stream.h"
#include "sink_util.h"

#define PER_BATCH 100u

/* 10000 batches to nobody: each send returns at once with nothing sent, and all are counted as
 * dropped.  (A send that waited for a peer would never return: the test would hang, not pass.) */
static void drops_without_blocking(struct sink_fx *f, const char *addr)
{
	struct hw_stream_sender *s = fx_sender(f, addr);
	for (unsigned i = 0; i < 10; i++)
		rec_fill(&f->batch[i], i);
	for (int b = 0; b < 10000; b++)
		assert_int_equal(hw_stream_send(s, f->batch, 10), 0);
	assert_int_equal(hw_stream_dropped_batches(s), 10000);
	assert_int_equal(hw_stream_dropped_records(s), 100000);
	assert_int_equal(hw_stream_sent_records(s), 0);
	if (!strstr(hw_stream_sender_error(s), addr))
		fail_msg("error \"%s\" does not name %s", hw_stream_sender_error(s), addr);
	hw_stream_sender_close(s);
}

static void unix_no_listener(void **state)
{
	struct sink_fx *f = *state;
	drops_without_blocking(f, f->addr);
}

static void tcp_no_listener(void **state)
{
	struct sink_fx *f = *state;
	/* A bound socket that does not listen: its port refuses connections and stays ours. */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(in);
	assert_int_equal(bind(fd, (struct sockaddr *)&in, len), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&in, &len), 0);
	char addr[64];
	snprintf(addr, sizeof(addr), "tcp:127.0.0.1:%u", ntohs(in.sin_port));
	drops_without_blocking(f, addr);
	close(fd);
}

/* Sender floods a listener that does not read (a send that blocked on the full socket would never
 * return: nobody reads until the loop ends); then the listener drains everything. */
static void stalled_reader(struct sink_fx *f, const char *listen_addr)
{
	struct hw_stream_listener *l = fx_listen(f, listen_addr);
	struct hw_stream_sender *s = fx_sender(f, hw_stream_listener_address(l));
	const uint32_t nbatch = 4000; /* 54 MB: far more than socket buffers hold */
	for (uint32_t b = 0; b < nbatch; b++) {
		for (uint32_t i = 0; i < PER_BATCH; i++)
			rec_fill(&f->batch[i], b * PER_BATCH + i);
		hw_stream_send(s, f->batch, PER_BATCH);
	}
	assert_int_not_equal(hw_stream_dropped_batches(s), 0);
	uint64_t pending = hw_stream_sender_flush(s) ? 0 : PER_BATCH; /* a frame the socket took part of */
	assert_int_equal(hw_stream_sent_records(s) + hw_stream_dropped_records(s) + pending,
	                 (uint64_t)nbatch * PER_BATCH);
	print_message("%s: %llu records sent, %llu dropped in %llu batches, %llu pending\n", listen_addr,
	              (unsigned long long)hw_stream_sent_records(s), (unsigned long long)hw_stream_dropped_records(s),
	              (unsigned long long)hw_stream_dropped_batches(s), (unsigned long long)pending);

	/* Now read everything, letting the sender push a partly sent frame. */
	uint64_t received = 0;
	int64_t last_batch = -1;
	int idle = 0;
	struct hw_record want;
	while (idle < 3) {
		int flushed = hw_stream_sender_flush(s);
		long n = hw_stream_receive(l, f->out, 100, f->err, sizeof(f->err));
		if (n < 0)
			fail_msg("receive: %s", f->err);
		if (n == 0) {
			idle += flushed;
			continue;
		}
		assert_int_equal(n, PER_BATCH);
		uint64_t b = (f->out[0].time_ns - 0x1000000000000000u) / 1000 / PER_BATCH;
		assert_in_range((int64_t)b, last_batch + 1, INT64_MAX); /* in order; gaps are dropped batches */
		last_batch = (int64_t)b;
		for (uint32_t i = 0; i < PER_BATCH; i++) {
			rec_fill(&want, (uint32_t)b * PER_BATCH + i);
			rec_assert_equal(&f->out[i], &want);
		}
		struct hw_stream_batch_info info;
		hw_stream_last_batch(l, &info);
		assert_int_equal(info.dropped_before, b * PER_BATCH - received);
		assert_int_equal(info.seq, received / PER_BATCH);
		received += (uint64_t)n;
	}
	assert_int_equal(received, hw_stream_sent_records(s));
	assert_int_equal(hw_stream_sent_records(s) + hw_stream_dropped_records(s), (uint64_t)nbatch * PER_BATCH);
	assert_int_equal(hw_stream_dropped_records(s), hw_stream_dropped_batches(s) * PER_BATCH);
	assert_int_not_equal(received, 0);
	hw_stream_sender_close(s);
	hw_stream_listener_close(l);
}

static void unix_stalled_reader(void **state)
{
	struct sink_fx *f = *state;
	stalled_reader(f, f->addr);
}

static void tcp_stalled_reader(void **state)
{
	struct sink_fx *f = *state;
	stalled_reader(f, "tcp:127.0.0.1:0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(unix_no_listener, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(tcp_no_listener, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(unix_stalled_reader, sink_fx_setup, sink_fx_teardown),
	    cmocka_unit_test_setup_teardown(tcp_stalled_reader, sink_fx_setup, sink_fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
