/* Memory for the hot paths' large tables (queue and flow tables, detector state), zeroed, untouched
 * until used, page-aligned, huge-paged from 2 MiB where allowed; and the rounding their sizes use. */
#ifndef HOPWATCH_TABLE_MEM_H
#define HOPWATCH_TABLE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* The smallest table given huge pages, and the alignment of such a table. */
#define HW_TABLE_HUGE ((size_t)2 << 20)

/* The smallest power of two >= want, within [lo, hi] (lo and hi powers of two): a table's or a ring's slots. */
static inline uint32_t hw_pow2_at_least(uint32_t want, uint32_t lo, uint32_t hi)
{
	uint32_t n = lo;
	while (n < want && n < hi)
		n <<= 1;
	return n;
}

/* n rounded up to a multiple of to (a power of 2): a table's size to its pages, a row to its lines. */
static inline size_t hw_round_up(size_t n, size_t to)
{
	return (n + to - 1) & ~(to - 1);
}

/* A table of bytes, zero-filled, on a page boundary (on an HW_TABLE_HUGE boundary from HW_TABLE_HUGE bytes
 * on); NULL when out of memory.  Its pages cost memory only once touched.  Free it with hw_table_free. */
void *hw_table_alloc(size_t bytes);
/* Frees a table of hw_table_alloc; NULL is ignored. */
void hw_table_free(void *table);

#endif
