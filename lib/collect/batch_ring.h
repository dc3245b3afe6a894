/* A single-producer single-consumer ring of record batches: how a worker hands records to the sink
 * thread without locks, allocation or system calls. */
#ifndef HOPWATCH_BATCH_RING_H
#define HOPWATCH_BATCH_RING_H

#include <stdint.h>

#include "hopwatch/record.h"

#define HW_BATCH_RECS 1024

struct hw_batch {
	uint32_t n;
	uint32_t worker;
	struct hw_record recs[HW_BATCH_RECS];
};

struct hw_batch_ring {
	struct hw_batch *slots;
	uint32_t mask;
	_Alignas(64) uint32_t head; /* written by the producer */
	_Alignas(64) uint32_t tail; /* written by the consumer */
};

/* size is rounded up to a power of two (at least 2).  0, or -1 when memory is short. */
int hw_batch_ring_init(struct hw_batch_ring *r, uint32_t size);
void hw_batch_ring_free(struct hw_batch_ring *r);

/* Producer: the slot to fill next, or NULL when the ring is full. */
static inline struct hw_batch *hw_batch_ring_slot(struct hw_batch_ring *r)
{
	uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	return (r->head - tail) <= r->mask ? &r->slots[r->head & r->mask] : NULL;
}
/* Producer: hand the filled slot to the consumer. */
static inline void hw_batch_ring_publish(struct hw_batch_ring *r)
{
	__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
}
/* Producer: batches published that the consumer has not given back yet (0: it has caught up). */
static inline uint32_t hw_batch_ring_waiting(struct hw_batch_ring *r)
{
	return r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}
/* Consumer: the oldest published batch, or NULL. */
static inline struct hw_batch *hw_batch_ring_peek(struct hw_batch_ring *r)
{
	uint32_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	return head != r->tail ? &r->slots[r->tail & r->mask] : NULL;
}
/* Consumer: give the batch back. */
static inline void hw_batch_ring_release(struct hw_batch_ring *r)
{
	__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
}

#endif
