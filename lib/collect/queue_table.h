/* Per-(node, egress port, queue) statistics kept by one collector worker: report counts, last and
 * maximum occupancy, latency and occupancy histograms.  Fixed capacity, no allocation per packet. */
#ifndef HOPWATCH_QUEUE_TABLE_H
#define HOPWATCH_QUEUE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

/* Histogram buckets, one per bound /metrics shows and one above them: the bounds are 2^e device units
 * for e = 6, 8, ..., 26 (HW_HIST_BOUNDS of them, hw_hist_le_exp(k)); bucket k < HW_HIST_BOUNDS counts
 * the values v with 2^hw_hist_le_exp(k - 1) < v <= 2^hw_hist_le_exp(k) (bucket 0: v <= 2^6), so buckets
 * 0..k hold exactly the values <= the k-th bound (Prometheus "le"); the last bucket takes everything
 * larger.  Only these counts are ever rendered: finer buckets would cost the worker cache lines for
 * nothing. */
#define HW_HIST_LE_FIRST 6
#define HW_HIST_LE_STEP 2
#define HW_HIST_BOUNDS 11
#define HW_HIST_BUCKETS (HW_HIST_BOUNDS + 1)

/* The exponent of the k-th bound (k < HW_HIST_BOUNDS). */
static inline unsigned hw_hist_le_exp(unsigned k)
{
	return HW_HIST_LE_FIRST + HW_HIST_LE_STEP * k;
}

/* A key field that the hop did not carry (HW_PORT_NONE: hopwatch/record.h). */
#define HW_QUEUE_NONE 0xffu

/* One key's statistics, 64-byte aligned, four lines: every hop touches the first line (key and
 * summary) and one bucket line of each histogram; a histogram's sample count is the sum of its buckets.
 * Only what /metrics shows is kept (metrics_render.c). */
struct hw_queue_stats {
	uint32_t node;
	uint32_t port;
	uint32_t queue; /* HW_QUEUE_NONE when unknown; a key is published by the table's n (hw_queue_table) */
	uint64_t reports;
	uint64_t last_seen_ns;
	uint64_t occ_sum, lat_sum;
	uint32_t last_occupancy; /* device units */
	uint32_t max_occupancy;
	uint64_t drops;
	uint64_t occ_hist[HW_HIST_BUCKETS]; /* second line on: a bucket line per sample */
	uint64_t lat_hist[HW_HIST_BUCKETS];
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct hw_queue_stats, occ_hist) == 64, "the summary fills the first line");
_Static_assert(sizeof(struct hw_queue_stats) == 256, "a slot is four lines");

/* Keys are hashed into index, whose entries name their slot; slots are handed out in order, so the
 * n keys in use sit in slots[0..n) however large the capacity: with a few thousand queues in a table
 * sized for 65,536, their lines span a few hundred pages rather than one page each (a TLB miss per hop,
 * which no prefetch hid).  A slot, once given, keeps its key. */
struct hw_queue_table {
	struct hw_queue_stats *slots; /* capacity entries, a table of table_mem.h (page-aligned); keys in [0, n) */
	uint32_t *index;   /* capacity entries: 1 + the slot of the key hashed here (probing on), 0 = empty */
	uint32_t mask;     /* capacity - 1 (capacity a power of two) */
	uint32_t limit;    /* at most this many keys (capacity * 3/4): bounded probing */
	uint32_t n;        /* keys in use: slots[0..n) */
	uint64_t overflow; /* hops not tracked because the table was full */
};

/* capacity is rounded up to a power of two; 0 on success, -1 when memory is short. */
int hw_queue_table_init(struct hw_queue_table *t, uint32_t capacity);
void hw_queue_table_free(struct hw_queue_table *t);
/* Account one hop record (its node, egress port and queue). */
void hw_queue_table_add(struct hw_queue_table *t, const struct hw_record *r);
/* The bucket of a value (for tests and exporters). */
unsigned hw_hist_bucket(uint64_t v);

static inline unsigned hw_hist_bucket_inline(uint64_t v)
{
	if (v <= 1u << HW_HIST_LE_FIRST)
		return 0;
	unsigned e = 64 - (unsigned)__builtin_clzll(v - 1); /* smallest e with v <= 2^e, here > HW_HIST_LE_FIRST */
	/* the first bound 2^hw_hist_le_exp(k) with e <= hw_hist_le_exp(k) */
	unsigned k = (e - HW_HIST_LE_FIRST + HW_HIST_LE_STEP - 1) / HW_HIST_LE_STEP;
	return k < HW_HIST_BUCKETS ? k : HW_HIST_BUCKETS - 1;
}

/* The bucket of a 32-bit value (a record's occupancy or latency) by one table look-up on the count of
 * leading zeros, for the worker's loop: x = v - 1 with its lowest bit set has the bit length of v - 1
 * for v >= 2 (v <= 2^e exactly when that length is <= e), 1 for v = 1, and for v = 0 wraps to 2^64 - 1
 * (no leading zeros, entry 0: bucket 0).  The same bucket as hw_hist_bucket_inline (test_collector_state.c). */
extern const uint8_t hw_hist_bucket_by_clz[64];
static inline unsigned hw_hist_bucket32(uint32_t v)
{
	return hw_hist_bucket_by_clz[__builtin_clzll(((uint64_t)v - 1) | 1)];
}

/* A hop's key: (node, egress port or HW_PORT_NONE, queue id or HW_QUEUE_NONE) and its hash. */
static inline uint32_t hw_queue_key_port(const struct hw_record *r)
{
	return (r->valid & HW_V_PORTS) ? r->egress_port : HW_PORT_NONE;
}
static inline uint32_t hw_queue_key_queue(const struct hw_record *r)
{
	return (r->valid & (HW_V_QUEUE | HW_V_DROP)) ? r->queue_id : HW_QUEUE_NONE;
}
static inline uint32_t hw_queue_key_hash(uint32_t node, uint32_t port, uint32_t queue)
{
	uint64_t h = ((uint64_t)node << 32 | port) * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)queue * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h >> 32);
}

/* Where one hop's update goes, worked out once while its record is still in L1 (hw_worker_stage):
 * the key's home slot, where the probe starts, and the histogram buckets of its occupancy and
 * latency (bucket 0 for a field the hop did not carry: never counted, only prefetched). */
struct hw_queue_hop {
	uint32_t home;
	uint16_t occ_b, lat_b; /* not uint8_t: a char store may alias anything, and the records would be reloaded */
};

static inline struct hw_queue_hop hw_queue_hop_of(const struct hw_queue_table *t, const struct hw_record *r)
{
	const uint32_t valid = r->valid;
	return (struct hw_queue_hop){
	    .home = hw_queue_key_hash(r->node_id, hw_queue_key_port(r), hw_queue_key_queue(r)) & t->mask,
	    .occ_b = (uint16_t)((valid & HW_V_QUEUE) ? hw_hist_bucket32(r->queue_occupancy) : 0),
	    .lat_b = (uint16_t)((valid & HW_V_HOP_LATENCY) ? hw_hist_bucket32(r->hop_latency) : 0)};
}

/* Start loading the index entry hw_queue_table_add_hop(t, r, h) reads first ... */
static inline __attribute__((always_inline)) void hw_queue_table_prefetch(const struct hw_queue_table *t,
                                                                          struct hw_queue_hop h)
{
	__builtin_prefetch(&t->index[h.home]);
}

/* ... then, once it has arrived, the lines of the slot it names that the update writes: the summary
 * line and the histogram bucket lines of the hop's occupancy and latency (the second step of a bulk
 * lookup, as for the flow table). */
static inline __attribute__((always_inline)) void hw_queue_table_prefetch_slot(const struct hw_queue_table *t,
                                                                               struct hw_queue_hop h)
{
	const uint32_t k = t->index[h.home];
	if (k) {
		const struct hw_queue_stats *s = &t->slots[k - 1];
		__builtin_prefetch(s, 1);
		__builtin_prefetch(&s->occ_hist[h.occ_b], 1);
		__builtin_prefetch(&s->lat_hist[h.lat_b], 1);
	}
}

/* Give a new key the next slot and index entry i (or count an overflow and return NULL): the rare
 * part of an update. */
struct hw_queue_stats *hw_queue_table_claim(struct hw_queue_table *t, uint32_t i, uint32_t node, uint32_t port,
                                            uint32_t queue);

/* Account one hop record whose hw_queue_hop_of(t, r) is h: the same as hw_queue_table_add(t, r),
 * inline in the worker's loop and without working out the hash and buckets again. */
static inline void hw_queue_table_add_hop(struct hw_queue_table *t, const struct hw_record *r, struct hw_queue_hop h)
{
	/* The record read once: the slot's 32-bit stores could alias it, and would force reloads. */
	const uint32_t valid = r->valid, node = r->node_id, occ = r->queue_occupancy, lat = r->hop_latency;
	const uint64_t now = r->time_ns;
	const uint32_t port = hw_queue_key_port(r), queue = hw_queue_key_queue(r);
	const uint32_t *const index = t->index;
	const uint32_t mask = t->mask;
	uint32_t i = h.home;
	struct hw_queue_stats *s;
	for (;;) {
		const uint32_t k = index[i];
		if (__builtin_expect(!k, 0)) {
			s = hw_queue_table_claim(t, i, node, port, queue);
			if (!s)
				return;
			break;
		}
		s = &t->slots[k - 1];
		if (s->node == node && s->port == port && s->queue == queue)
			break;
		i = (i + 1) & mask;
	}
	s->reports++;
	s->last_seen_ns = now;
	if (__builtin_expect(valid & HW_V_DROP, 0))
		s->drops++;
	if (valid & HW_V_QUEUE) { /* the last and largest occupancy (gauges), the sum and the bucket */
		s->last_occupancy = occ;
		if (occ > s->max_occupancy)
			s->max_occupancy = occ;
		s->occ_sum += occ;
		s->occ_hist[h.occ_b]++;
	}
	if (valid & HW_V_HOP_LATENCY) { /* latency: the histogram only */
		s->lat_sum += lat;
		s->lat_hist[h.lat_b]++;
	}
}

#endif
