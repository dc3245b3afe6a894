/* Per-(node, egress port, queue) statistics: an open-addressing table with linear probing that is
 * written by one worker and read, without locks, by the exporter (keys are published last). */
#include <stdlib.h>
#include <stdint.h>

#include "queue_table.h"
#include "table_size.h"

int hw_queue_table_init(struct hw_queue_table *t, uint32_t capacity)
{
	uint32_t cap = hw_pow2_at_least(capacity, 16, 1u << 30);
	/* calloc, not aligned_alloc + memset: pages are zeroed by the kernel as they are first touched,
	 * so a large table costs memory only for the keys in use.  One spare slot pays for the alignment. */
	t->mem = calloc((size_t)cap + 1, sizeof(*t->slots));
	if (!t->mem)
		return -1;
	t->slots = (struct hw_queue_stats *)(((uintptr_t)t->mem + 63) & ~(uintptr_t)63);
	t->mask = cap - 1;
	t->limit = hw_table_limit(cap);
	t->n = 0;
	t->overflow = 0;
	return 0;
}

void hw_queue_table_free(struct hw_queue_table *t)
{
	free(t->mem);
	t->mem = NULL;
	t->slots = NULL;
}

unsigned hw_hist_bucket(uint64_t v)
{
	return hw_hist_bucket_inline(v);
}

void hw_queue_table_add(struct hw_queue_table *t, const struct hw_record *r)
{
	/* The record read once: the slot's 32-bit stores could alias it, and would force reloads. */
	const uint32_t valid = r->valid, node = r->node_id, occ = r->queue_occupancy, lat = r->hop_latency;
	const uint64_t now = r->time_ns;
	const uint32_t port = hw_queue_key_port(r), queue = hw_queue_key_queue(r);
	struct hw_queue_stats *const slots = t->slots;
	const uint32_t mask = t->mask;
	uint32_t i = hw_queue_key_hash(node, port, queue) & mask;
	struct hw_queue_stats *s;
	for (;;) {
		s = &slots[i];
		if (!s->used) {
			if (t->n >= t->limit) {
				t->overflow++;
				return;
			}
			s->node = node;
			s->port = port;
			s->queue = queue;
			__atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
			t->n++;
			break;
		}
		if (s->node == node && s->port == port && s->queue == queue)
			break;
		i = (i + 1) & mask;
	}
	s->reports++;
	s->last_seen_ns = now;
	if (__builtin_expect(valid & HW_V_DROP, 0))
		s->drops++;
	if (valid & HW_V_QUEUE) {
		s->last_occupancy = occ;
		if (occ > s->max_occupancy)
			s->max_occupancy = occ;
		s->occ_sum += occ;
		s->occ_hist[hw_hist_bucket_inline(occ)]++;
	}
	if (valid & HW_V_HOP_LATENCY) {
		s->last_latency = lat;
		if (lat > s->max_latency)
			s->max_latency = lat;
		s->lat_sum += lat;
		s->lat_hist[hw_hist_bucket_inline(lat)]++;
	}
}
