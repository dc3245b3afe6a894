/* Per-flow path tracking: each flow's current path signature (its node/port sequence), path changes,
 * in a table of fixed capacity with approximately-least-recently-used eviction that is counted. */
#ifndef HOPWATCH_FLOW_TABLE_H
#define HOPWATCH_FLOW_TABLE_H

#include <stdint.h>

/* 32 bytes, 32-byte aligned: an entry never straddles two cache lines, so the one prefetch of an entry
 * (hw_flow_table_prefetch_entry) covers it (at 40 bytes, half the entries took a second, unprefetched
 * miss).  Path changes are counted per table, not per entry: nothing read a per-flow count. */
struct hw_flow_entry {
	uint64_t flow_hash;
	uint64_t path_sig;
	uint64_t last_seen_ns;
	uint32_t bucket_next;
	uint16_t seen;   /* reported again since inserted or since the clock hand last passed */
	uint16_t n_hops; /* hops of path_sig's path (lib/facts: hw_path_report_use) */
} __attribute__((aligned(32)));
_Static_assert(sizeof(struct hw_flow_entry) == 32, "an entry is half a cache line");

/* Eviction is CLOCK (second chance), the usual constant-time approximation of LRU: when the table is
 * full, a hand sweeps the entries in a circle, clearing the seen mark of each flow that has one and
 * evicting the first flow without it, i.e. a flow not reported since its insertion or since the
 * hand's last turn.  A new flow starts unmarked, so a flood of one-report flows evicts itself
 * before the flows that keep reporting.  A hit only sets the mark in the entry it already read
 * (exact LRU moved the entry in a linked list, writing two other random entries per report). */
struct hw_flow_table {
	struct hw_flow_entry *e; /* cap entries, a table of table_mem.h (page-aligned) */
	uint32_t *buckets;       /* heads of hash chains, HW_FLOW_NONE when empty */
	uint32_t bucket_mask;
	uint32_t cap, n;
	uint32_t hand;         /* next entry the clock looks at */
	uint64_t evictions;    /* flows forgotten to make room */
	uint64_t path_changes; /* reports whose path differed from the flow's previous one */
	uint64_t new_flows;
};

#define HW_FLOW_NONE UINT32_MAX

int hw_flow_table_init(struct hw_flow_table *t, uint32_t capacity);
void hw_flow_table_free(struct hw_flow_table *t);
/* Note a whole-path report of flow_hash that took path path_sig of n_hops hops.  Returns 1 when the flow
 * was known and its path changed, 0 otherwise.  Evicts a flow (see above) when full. */
int hw_flow_table_update(struct hw_flow_table *t, uint64_t flow_hash, uint64_t path_sig, unsigned n_hops,
                         uint64_t now_ns);
/* The hops of flow_hash's known path, 0 when the flow is not in the table. */
unsigned hw_flow_table_hops(const struct hw_flow_table *t, uint64_t flow_hash);
/* Start loading the hash chain head that hw_flow_table_update(t, flow_hash, ...) reads first, so
 * that with a large table the miss overlaps other work. */
static inline __attribute__((always_inline)) void hw_flow_table_prefetch(const struct hw_flow_table *t,
                                                                         uint64_t flow_hash)
{
	__builtin_prefetch(&t->buckets[flow_hash & t->bucket_mask]);
}
/* Then, once that head has arrived, start loading the first entry of its chain (the flow's own entry
 * unless the chain is longer than one): the second step of a bulk lookup. */
static inline __attribute__((always_inline)) void hw_flow_table_prefetch_entry(const struct hw_flow_table *t,
                                                                               uint64_t flow_hash)
{
	uint32_t i = t->buckets[flow_hash & t->bucket_mask];
	if (i != HW_FLOW_NONE)
		__builtin_prefetch(&t->e[i], 1);
}
/* Bytes of memory the table holds (fixed at init). */
uint64_t hw_flow_table_bytes(const struct hw_flow_table *t);

#endif
