/* Per-(node, egress port, queue) statistics kept by one collector worker: report counts, last and
 * maximum occupancy, latency and occupancy histograms.  Fixed capacity, no allocation per packet. */
#ifndef HOPWATCH_QUEUE_TABLE_H
#define HOPWATCH_QUEUE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hopwatch/record.h"

/* Histogram buckets: bucket i counts values v with 2^(i-1) < v <= 2^i (bucket 0: v <= 1), in
 * device units, so buckets 0..k hold exactly the values <= 2^k (Prometheus "le"); the last bucket
 * takes everything larger. */
#define HW_HIST_BUCKETS 33

/* A key field that the hop did not carry (HW_PORT_NONE: hopwatch/record.h). */
#define HW_QUEUE_NONE 0xffu

/* One key's statistics, 64-byte aligned: every hop touches the first line (key and summary) and one
 * bucket line of each histogram; a histogram's sample count is the sum of its buckets. */
struct hw_queue_stats {
	uint32_t node;
	uint32_t port;
	uint32_t queue; /* HW_QUEUE_NONE when unknown */
	uint32_t used;  /* nonzero once the key is set (written last, read first) */
	uint64_t reports;
	uint64_t last_seen_ns;
	uint64_t occ_sum, lat_sum;
	uint32_t last_occupancy; /* device units */
	uint32_t max_occupancy;
	uint32_t last_latency;
	uint32_t max_latency;
	uint64_t drops; /* second line on: rare or per-bucket */
	uint64_t occ_hist[HW_HIST_BUCKETS];
	uint64_t lat_hist[HW_HIST_BUCKETS];
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct hw_queue_stats, drops) == 64, "the summary fills the first line");

struct hw_queue_table {
	struct hw_queue_stats *slots; /* 64-byte aligned, inside mem */
	void *mem;
	uint32_t mask;     /* capacity - 1 (capacity a power of two) */
	uint32_t limit;    /* at most this many keys (capacity * 3/4): bounded probing */
	uint32_t n;        /* keys in use */
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
	if (v <= 1)
		return 0;
	unsigned b = 64 - (unsigned)__builtin_clzll(v - 1); /* smallest b with v <= 2^b */
	return b < HW_HIST_BUCKETS ? b : HW_HIST_BUCKETS - 1;
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

/* Start loading the lines hw_queue_table_add(t, r) will write: the key's home slot (where it
 * almost always is) and the histogram bucket lines of r's occupancy and latency. */
static inline void hw_queue_table_prefetch(const struct hw_queue_table *t, const struct hw_record *r)
{
	const struct hw_queue_stats *s =
	    &t->slots[hw_queue_key_hash(r->node_id, hw_queue_key_port(r), hw_queue_key_queue(r)) & t->mask];
	__builtin_prefetch(s, 1);
	if (r->valid & HW_V_QUEUE)
		__builtin_prefetch(&s->occ_hist[hw_hist_bucket_inline(r->queue_occupancy)], 1);
	if (r->valid & HW_V_HOP_LATENCY)
		__builtin_prefetch(&s->lat_hist[hw_hist_bucket_inline(r->hop_latency)], 1);
}

#endif
