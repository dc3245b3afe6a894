/* The flow table: hash chains over a fixed entry array and a CLOCK hand over the same array, so that
 * lookup and insert are O(1), eviction amortised O(1), and memory never grows after init. */
#include <stdint.h>

#include "facts.h"
#include "flow_table.h"
#include "table_mem.h"
#include "table_size.h"

int hw_flow_table_init(struct hw_flow_table *t, uint32_t capacity)
{
	if (capacity < 1)
		capacity = 1;
	uint32_t nb = hw_pow2_at_least(capacity, 16, 1u << 30);
	/* zeroed pages, untouched until used (table_mem.h); the buckets are all written below */
	t->e = hw_table_alloc((size_t)capacity * sizeof(*t->e));
	t->buckets = hw_table_alloc((size_t)nb * sizeof(uint32_t));
	if (!t->e || !t->buckets) {
		hw_flow_table_free(t);
		return -1;
	}
	for (uint32_t i = 0; i < nb; i++)
		t->buckets[i] = HW_FLOW_NONE;
	t->bucket_mask = nb - 1;
	t->cap = capacity;
	t->n = 0;
	t->hand = 0;
	t->evictions = t->path_changes = t->new_flows = 0;
	return 0;
}

void hw_flow_table_free(struct hw_flow_table *t)
{
	hw_table_free(t->e);
	hw_table_free(t->buckets);
	t->e = NULL;
	t->buckets = NULL;
}

uint64_t hw_flow_table_bytes(const struct hw_flow_table *t)
{
	return ((uint64_t)t->cap + 1) * sizeof(struct hw_flow_entry) +
	       ((uint64_t)t->bucket_mask + 1) * sizeof(uint32_t);
}

static void bucket_remove(struct hw_flow_table *t, uint32_t i)
{
	uint32_t *p = &t->buckets[t->e[i].flow_hash & t->bucket_mask];
	while (*p != i)
		p = &t->e[*p].bucket_next;
	*p = t->e[i].bucket_next;
}

/* The entry to reuse: the first unmarked one from the hand on, clearing marks on the way.  Every
 * step but the last clears a mark set by a hit, so the sweep costs O(1) per report on average. */
static uint32_t clock_victim(struct hw_flow_table *t)
{
	uint32_t i = t->hand;
	while (t->e[i].seen) {
		t->e[i].seen = 0;
		i = i + 1 == t->cap ? 0 : i + 1;
	}
	t->hand = i + 1 == t->cap ? 0 : i + 1;
	return i;
}

unsigned hw_flow_table_hops(const struct hw_flow_table *t, uint64_t flow_hash)
{
	for (uint32_t i = t->buckets[flow_hash & t->bucket_mask]; i != HW_FLOW_NONE; i = t->e[i].bucket_next)
		if (t->e[i].flow_hash == flow_hash)
			return t->e[i].n_hops;
	return 0;
}

int hw_flow_table_update(struct hw_flow_table *t, uint64_t flow_hash, uint64_t path_sig, unsigned n_hops,
                         uint64_t now_ns)
{
	uint32_t *head = &t->buckets[flow_hash & t->bucket_mask];
	for (uint32_t i = *head; i != HW_FLOW_NONE; i = t->e[i].bucket_next) {
		struct hw_flow_entry *x = &t->e[i];
		if (x->flow_hash != flow_hash)
			continue;
		int changed = hw_path_changed(x->path_sig, path_sig);
		if (changed) {
			x->path_sig = path_sig;
			x->n_hops = (uint16_t)n_hops;
			t->path_changes++;
		}
		x->last_seen_ns = now_ns;
		x->seen = 1;
		return changed;
	}
	uint32_t i;
	if (t->n < t->cap) {
		i = t->n++;
	} else {
		i = clock_victim(t); /* forget a flow not reported lately */
		bucket_remove(t, i);
		t->evictions++;
	}
	struct hw_flow_entry *x = &t->e[i];
	x->flow_hash = flow_hash;
	x->path_sig = path_sig;
	x->n_hops = (uint16_t)n_hops;
	x->last_seen_ns = now_ns;
	x->seen = 0;
	x->bucket_next = *head;
	*head = i;
	t->new_flows++;
	return 0;
}
