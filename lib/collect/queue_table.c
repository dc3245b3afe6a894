/* Per-(node, egress port, queue) statistics: an open-addressing index with linear probing over slots
 * handed out in order, written by one worker and read, without locks, by the exporter (keys published last). */
#include <stdint.h>

#include "queue_table.h"
#include "table_mem.h"
#include "table_size.h"

int hw_queue_table_init(struct hw_queue_table *t, uint32_t capacity)
{
	uint32_t cap = hw_pow2_at_least(capacity, 16, 1u << 30);
	/* not aligned_alloc + memset: pages are zeroed by the kernel as they are first touched, so a large
	 * table costs memory only for the keys in use (table_mem.h) */
	t->slots = hw_table_alloc((size_t)cap * sizeof(*t->slots));
	t->index = hw_table_alloc((size_t)cap * sizeof(*t->index));
	if (!t->slots || !t->index) {
		hw_queue_table_free(t);
		return -1;
	}
	t->mask = cap - 1;
	t->limit = hw_table_limit(cap);
	t->n = 0;
	t->overflow = 0;
	return 0;
}

void hw_queue_table_free(struct hw_queue_table *t)
{
	hw_table_free(t->slots);
	hw_table_free(t->index);
	t->index = NULL;
	t->slots = NULL;
}

unsigned hw_hist_bucket(uint64_t v)
{
	return hw_hist_bucket_inline(v);
}

/* Entry c: the bucket of the values whose v - 1 has 64 - c significant bits, i.e. the smallest e with
 * v <= 2^e is 64 - c; entry 0 only for v = 0 among 32-bit values (hw_hist_bucket32). */
#define BY_E(e)                                                                                                        \
	((e) <= HW_HIST_LE_FIRST ? 0                                                                                   \
	                         : (((e)-HW_HIST_LE_FIRST + HW_HIST_LE_STEP - 1) / HW_HIST_LE_STEP < HW_HIST_BUCKETS   \
	                                ? ((e)-HW_HIST_LE_FIRST + HW_HIST_LE_STEP - 1) / HW_HIST_LE_STEP               \
	                                : HW_HIST_BUCKETS - 1))
#define BY_CLZ(c) ((c) == 0 ? 0 : BY_E(64 - (c)))
#define ROW8(c)                                                                                                        \
	BY_CLZ(c), BY_CLZ(c + 1), BY_CLZ(c + 2), BY_CLZ(c + 3), BY_CLZ(c + 4), BY_CLZ(c + 5), BY_CLZ(c + 6),           \
	    BY_CLZ(c + 7)
const uint8_t hw_hist_bucket_by_clz[64] = {ROW8(0),  ROW8(8),  ROW8(16), ROW8(24),
                                           ROW8(32), ROW8(40), ROW8(48), ROW8(56)};

struct hw_queue_stats *hw_queue_table_claim(struct hw_queue_table *t, uint32_t i, uint32_t node, uint32_t port,
                                            uint32_t queue)
{
	if (t->n >= t->limit) {
		t->overflow++;
		return NULL;
	}
	struct hw_queue_stats *s = &t->slots[t->n];
	s->node = node;
	s->port = port;
	s->queue = queue;
	t->index[i] = t->n + 1;
	__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE); /* readers of slots[0, n) see its key set */
	return s;
}

void hw_queue_table_add(struct hw_queue_table *t, const struct hw_record *r)
{
	hw_queue_table_add_hop(t, r, hw_queue_hop_of(t, r));
}
