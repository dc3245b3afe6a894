/* Memory for the hot paths' large tables (queue and flow tables, detector state): zeroed, untouched until
 * used, page-aligned, and from 2 MiB on backed by transparent huge pages where the kernel allows them. */
#ifndef HOPWATCH_TABLE_MEM_H
#define HOPWATCH_TABLE_MEM_H

#include <stddef.h>

/* The smallest table given huge pages, and the alignment of such a table. */
#define HW_TABLE_HUGE ((size_t)2 << 20)

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
