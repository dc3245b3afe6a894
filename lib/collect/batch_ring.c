/* Allocation of the batch ring's slots (once, at start-up). */
#include <stdlib.h>

#include "batch_ring.h"
#include "table_size.h"

int hw_batch_ring_init(struct hw_batch_ring *r, uint32_t size)
{
	uint32_t n = hw_pow2_at_least(size, 2, 1u << 16);
	r->slots = calloc(n, sizeof(*r->slots));
	if (!r->slots)
		return -1;
	r->mask = n - 1;
	r->head = r->tail = 0;
	return 0;
}

void hw_batch_ring_free(struct hw_batch_ring *r)
{
	free(r->slots);
	r->slots = NULL;
}
