/* A single-producer single-consumer ring of record batches: how a collector worker hands records to the
 * sink thread, or through a shared file to an analyzer (stream_shm.h), without locks, allocation or syscalls. */
#ifndef HOPWATCH_BATCH_RING_H
#define HOPWATCH_BATCH_RING_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "hopwatch/record.h"

#define HW_BATCH_RECS 1024

struct hw_batch {
	uint32_t n;
	uint32_t worker;
	struct hw_record recs[HW_BATCH_RECS];
};

/* The ring's indices, apart from its slots, so that both can live in a mapping shared by two processes. */
struct hw_batch_ring_ctl {
	_Alignas(64) uint32_t head; /* written by the producer */
	_Alignas(64) uint32_t tail; /* written by the consumer */
	uint32_t consumer;          /* a consumer takes batches: a lossless producer waits for it (private: 1) */
	uint64_t taken;             /* records in the batches the consumer gave back (written by it) */
};

struct hw_batch_ring {
	struct hw_batch *slots;
	struct hw_batch_ring_ctl *ctl;
	uint32_t *bell; /* shared rings: set by a consumer about to sleep, which a publish then wakes (futex) */
	uint32_t mask;
	uint32_t shared; /* slots and ctl are in a shared mapping (hw_shm_writer): not freed with the ring */
};

/* Wakes the consumer sleeping on bell, if one is (once per published batch: a fence and a load). */
void hw_batch_ring_wake(uint32_t *bell);

/* The slots of a ring asked for `want`: a power of two from 2 to 65536. */
uint32_t hw_batch_ring_slots(uint32_t want);
/* size is rounded so (hw_batch_ring_slots).  0, or -1 when memory is short. */
int hw_batch_ring_init(struct hw_batch_ring *r, uint32_t size);
void hw_batch_ring_free(struct hw_batch_ring *r);

/* Producer: the slot to fill next, or NULL when the ring is full. */
static inline struct hw_batch *hw_batch_ring_slot(struct hw_batch_ring *r)
{
	uint32_t head = __atomic_load_n(&r->ctl->head, __ATOMIC_RELAXED);
	uint32_t tail = __atomic_load_n(&r->ctl->tail, __ATOMIC_ACQUIRE);
	return (head - tail) <= r->mask ? &r->slots[head & r->mask] : NULL;
}
/* Producer: hand the filled slot to the consumer. */
static inline void hw_batch_ring_publish(struct hw_batch_ring *r)
{
	__atomic_store_n(&r->ctl->head, __atomic_load_n(&r->ctl->head, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
	if (r->bell)
		hw_batch_ring_wake(r->bell);
}
/* Batches published that the consumer has not given back yet (0: it has caught up); any thread. */
static inline uint32_t hw_batch_ring_waiting(const struct hw_batch_ring *r)
{
	return __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE) - __atomic_load_n(&r->ctl->tail, __ATOMIC_ACQUIRE);
}
/* Producer: whether to wait for a full ring to drain (lossless input) rather than drop: only while some
 * consumer is there to drain it. */
static inline int hw_batch_ring_has_consumer(const struct hw_batch_ring *r)
{
	return __atomic_load_n(&r->ctl->consumer, __ATOMIC_ACQUIRE) != 0;
}
/* Consumer: the oldest published batch, or NULL. */
static inline struct hw_batch *hw_batch_ring_peek(struct hw_batch_ring *r)
{
	uint32_t head = __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE);
	uint32_t tail = __atomic_load_n(&r->ctl->tail, __ATOMIC_RELAXED);
	return head != tail ? &r->slots[tail & r->mask] : NULL;
}
/* Consumer: give the batch hw_batch_ring_peek returned back. */
static inline void hw_batch_ring_release(struct hw_batch_ring *r)
{
	uint32_t tail = __atomic_load_n(&r->ctl->tail, __ATOMIC_RELAXED);
	__atomic_store_n(&r->ctl->taken, __atomic_load_n(&r->ctl->taken, __ATOMIC_RELAXED) + r->slots[tail & r->mask].n,
	                 __ATOMIC_RELAXED);
	__atomic_store_n(&r->ctl->tail, tail + 1, __ATOMIC_RELEASE);
}
/* After a stop signal, a lossless wait ends once the consumer has taken nothing for this long (an analyzer
 * stalled on shm:, say): what the front end drains after the signal still waits for a live one. */
#define HW_STOP_WAIT_NS 1000000000ull

/* Producer of lossless input: the slot to fill next, waiting for one while a consumer is there to drain the ring.
 * NULL (drop the batch) when no consumer is there, when *stop is set, or when *interrupt (a stop signal) is set
 * and the consumer has taken nothing for HW_STOP_WAIT_NS; that last sets *gave_up, and later calls with it set do
 * not wait (the batches still queued behind a stalled consumer do not each cost a second).  stop and interrupt
 * may be NULL. */
struct hw_batch *hw_batch_ring_slot_wait(struct hw_batch_ring *r, const volatile bool *stop,
                                         const volatile sig_atomic_t *interrupt, bool *gave_up);

/* Records in the batches published and not given back yet (any thread; exact once the producer has stopped). */
uint64_t hw_batch_ring_records_waiting(const struct hw_batch_ring *r);

#endif
