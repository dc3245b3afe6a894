/* The worker's burst path (hw_worker_stage per frame, hw_worker_apply per burst) leaves exactly the
 * state and counters of hw_worker_frame per frame, on a generated capture that exercises evictions,
 * path changes, coalesced reports, drops and full scratch / pending arrays; and an idle worker keeps
 * filling its batch while the sink is behind.  Usage: GEN (hopwatch-gen). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/pcap_input.h"
#include "worker.h"

static const char *gen;

struct frames {
	uint8_t **data;
	size_t *len;
	uint64_t *t;
	size_t n, cap;
};

static void add_frame(void *arg, const uint8_t *frame, size_t len, uint64_t t)
{
	struct frames *f = arg;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 1024;
		f->data = realloc(f->data, f->cap * sizeof(*f->data));
		f->len = realloc(f->len, f->cap * sizeof(*f->len));
		f->t = realloc(f->t, f->cap * sizeof(*f->t));
		assert_non_null(f->data);
		assert_non_null(f->len);
		assert_non_null(f->t);
	}
	f->data[f->n] = malloc(len);
	assert_non_null(f->data[f->n]);
	memcpy(f->data[f->n], frame, len);
	f->len[f->n] = len;
	f->t[f->n++] = t;
}

/* The frames of a capture hopwatch-gen writes with GEN_ARGS (then removed). */
static struct frames generated(const char *gen_args)
{
	char dir[] = "/tmp/test_collector_burst.XXXXXX", pcap[64], cmd[1024], err[256];
	assert_non_null(mkdtemp(dir));
	snprintf(pcap, sizeof(pcap), "%s/c.pcap", dir);
	snprintf(cmd, sizeof(cmd), "%s reports %s --out %s 2>/dev/null", gen, gen_args, pcap);
	assert_int_equal(system(cmd), 0);
	struct frames f = {0};
	assert_int_equal(hw_pcap_read_file(pcap, add_frame, &f, NULL, err, sizeof(err)), 0);
	unlink(pcap);
	rmdir(dir);
	return f;
}

static void free_frames(struct frames *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->data[i]);
	free(f->data);
	free(f->len);
	free(f->t);
}

static struct hw_worker *new_worker(const struct hw_worker_sizes *sz, bool with_ring)
{
	struct hw_worker *w = aligned_alloc(64, (sizeof(struct hw_worker) + 63) / 64 * 64);
	assert_non_null(w);
	struct hw_parser_config pc;
	hw_parser_config_default(&pc);
	assert_int_equal(hw_worker_init(w, 0, &pc, sz, with_ring, false), 0);
	return w;
}

static void burst_equals_frames(void **state)
{
	(void)state;
	/* 3 reports per packet of 4 + 1 records: 15 records a frame, so the 1024-record scratch array
	 * fills after 68 frames and the 512 pending reports after 86, inside one 300-frame burst. */
	struct frames f =
	    generated("--format tr2.0 --hops 4 --coalesce 3 --count 30000 --flows 2000 --flow-paths stable "
	              "--path-change-rate 0.05 --drop-rate 0.05 --seq-gap-every 97 --nodes 16 --queues 2048");
	assert_true(f.n >= 10000); /* 30000 reports, 3 a packet */

	/* 256 flows tracked for 2000 in the capture: the flow table evicts on most new reports */
	const struct hw_worker_sizes sz = {.queues = 65536, .senders = 1024, .flows = 256, .ring_batches = 0};
	struct hw_worker *a = new_worker(&sz, false), *b = new_worker(&sz, false);
	for (size_t i = 0; i < f.n; i++)
		hw_worker_frame(a, f.data[i], f.len[i], f.t[i]);
	const size_t bursts[] = {1, 32, 300, 7};
	for (size_t i = 0, k = 0; i < f.n; k++) {
		size_t end = i + bursts[k % 4];
		for (; i < end && i < f.n; i++)
			hw_worker_stage(b, f.data[i], f.len[i], f.t[i]);
		hw_worker_apply(b);
	}

	assert_memory_equal(&a->cnt, &b->cnt, sizeof(a->cnt));
	assert_int_equal(a->cnt.reports, 30000);
	assert_true(a->cnt.path_changes > 0); /* the comparison covers path changes ... */
	assert_true(a->flows.evictions > 0);  /* ... and evictions */
	assert_int_equal(a->flows.evictions, b->flows.evictions);
	assert_int_equal(a->flows.path_changes, b->flows.path_changes);
	assert_int_equal(a->flows.new_flows, b->flows.new_flows);
	assert_int_equal(a->flows.hand, b->flows.hand);
	assert_memory_equal(a->flows.e, b->flows.e, a->flows.cap * sizeof(*a->flows.e));
	assert_int_equal(a->queues.n, b->queues.n);
	assert_memory_equal(a->queues.slots, b->queues.slots, (a->queues.mask + 1) * sizeof(*a->queues.slots));
	assert_int_equal(a->seqs.n, b->seqs.n);
	assert_memory_equal(a->seqs.slots, b->seqs.slots, (a->seqs.mask + 1) * sizeof(*a->seqs.slots));
	uint64_t lost = 0;
	for (uint32_t s = 0; s <= a->seqs.mask; s++)
		lost += a->seqs.slots[s].lost;
	assert_true(lost > 0); /* --seq-gap-every left gaps: the sequence state is compared with content */

	hw_worker_free(a);
	hw_worker_free(b);
	free(a);
	free(b);
	free_frames(&f);
}

/* A live worker whose sink thread is stalled (nobody takes batches from a 4-batch ring), idle between
 * every frame as at a low packet rate: the first frame's batch is handed over at once (the sink had
 * nothing), the later ones go on filling one held batch instead of a slot each, so none is dropped; the
 * held batch goes out at the first idle after the sink has caught up. */
static void idle_holds_batch_while_sink_behind(void **state)
{
	(void)state;
	/* 150 reports of 4 INT hops, one report a frame: 150 frames of 5 records (the 4 hops, and the
	 * reporting sink's own hop that a TR v2.0 report carries) */
	struct frames f = generated("--format tr2.0 --hops 4 --count 150");
	assert_int_equal(f.n, 150);

	const struct hw_worker_sizes sz = {.queues = 4096, .senders = 64, .flows = 4096, .ring_batches = 4};
	struct hw_worker *w = new_worker(&sz, true);
	for (size_t i = 0; i < f.n; i++) {
		hw_worker_frame(w, f.data[i], f.len[i], f.t[i]);
		hw_worker_idle(w);
		/* frame 1 published; every later frame held in the second batch (one slot waiting, not 4 full;
		 * its 149 x 5 = 745 records stay below the 960 that would publish it as full) */
		assert_int_equal(hw_batch_ring_waiting(&w->ring), 1);
	}
	assert_int_equal(w->cnt.records, 750);
	/* a batch per frame would have filled the 4 slots at frame 4 and dropped 146 frames x 5 records */
	assert_int_equal(w->cnt.sink_dropped, 0);

	struct hw_batch *b = hw_batch_ring_peek(&w->ring); /* the sink wakes up */
	assert_non_null(b);
	assert_int_equal(b->n, 5);
	hw_batch_ring_release(&w->ring);
	assert_null(hw_batch_ring_peek(&w->ring)); /* the held batch is not published ... */
	hw_worker_idle(w);                         /* ... until the next idle sees the sink caught up */
	b = hw_batch_ring_peek(&w->ring);
	assert_non_null(b);
	assert_int_equal(b->n, 149 * 5);
	assert_int_equal(b->recs[0].hop_index, 0);
	assert_int_equal(b->recs[4].hop_index, 4);
	assert_int_equal(b->recs[5].hop_index, 0); /* the next frame's report */
	hw_batch_ring_release(&w->ring);
	hw_worker_idle(w); /* nothing held: nothing published */
	assert_null(hw_batch_ring_peek(&w->ring));

	hw_worker_free(w);
	free(w);
	free_frames(&f);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_collector_burst HOPWATCH-GEN\n");
		return 2;
	}
	gen = argv[1];
	const struct CMUnitTest tests[] = {cmocka_unit_test(burst_equals_frames),
	                                   cmocka_unit_test(idle_holds_batch_while_sink_behind)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
