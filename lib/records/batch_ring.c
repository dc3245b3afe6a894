/* The batch ring's private allocation (once, at start-up), its count of records still waiting, and the
 * shared form's wake-up; the shared form's memory is hw_shm_writer's (stream_shm.c). */
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "batch_ring.h"
#include "clock.h"
#include "table_mem.h"

uint32_t hw_batch_ring_slots(uint32_t want)
{
	return hw_pow2_at_least(want, 2, 1u << 16);
}

int hw_batch_ring_init(struct hw_batch_ring *r, uint32_t size)
{
	uint32_t n = hw_batch_ring_slots(size);
	memset(r, 0, sizeof(*r));
	r->slots = calloc(n, sizeof(*r->slots));
	r->ctl = aligned_alloc(64, sizeof(*r->ctl));
	if (!r->slots || !r->ctl) {
		hw_batch_ring_free(r);
		return -1;
	}
	memset(r->ctl, 0, sizeof(*r->ctl));
	r->ctl->consumer = 1; /* the sink thread, from start to end */
	r->mask = n - 1;
	return 0;
}

void hw_batch_ring_free(struct hw_batch_ring *r)
{
	if (!r->shared) {
		free(r->slots);
		free(r->ctl);
	}
	r->slots = NULL;
	r->ctl = NULL;
}

uint64_t hw_batch_ring_records_waiting(const struct hw_batch_ring *r)
{
	uint32_t tail = __atomic_load_n(&r->ctl->tail, __ATOMIC_ACQUIRE);
	uint32_t head = __atomic_load_n(&r->ctl->head, __ATOMIC_ACQUIRE);
	uint64_t n = 0;
	for (uint32_t i = tail; i != head; i++)
		n += r->slots[i & r->mask].n;
	return n;
}

void hw_batch_ring_wake(uint32_t *bell)
{
	/* Against the sleeper's store of 1, fence, check of every ring (stream_shm.c): either it sees this
	 * batch, or this load sees its 1.  The wake is shared (no FUTEX_PRIVATE_FLAG): the sleeper is in another
	 * process. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(bell, __ATOMIC_RELAXED)) {
		__atomic_store_n(bell, 0, __ATOMIC_RELAXED);
		syscall(SYS_futex, bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
}

struct hw_batch *hw_batch_ring_slot_wait(struct hw_batch_ring *r, const volatile bool *stop,
                                         const volatile sig_atomic_t *interrupt, bool *gave_up)
{
	uint64_t still_since = 0; /* after a stop signal: since when the consumer has taken nothing */
	uint32_t tail = 0;
	for (;;) {
		struct hw_batch *b = hw_batch_ring_slot(r);
		if (b || *gave_up || (stop && *stop) || !hw_batch_ring_has_consumer(r))
			return b;
		if (interrupt && *interrupt) { /* stopping: wait on while the consumer keeps taking batches */
			uint32_t t = __atomic_load_n(&r->ctl->tail, __ATOMIC_ACQUIRE);
			uint64_t now = hw_mono_ns();
			if (!still_since || t != tail) {
				still_since = now;
				tail = t;
			} else if (now - still_since > HW_STOP_WAIT_NS) {
				*gave_up = true;
				return NULL;
			}
		}
		sched_yield();
	}
}
