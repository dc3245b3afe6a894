/* Sizing of the collector's fixed tables: capacities are powers of two so that a mask replaces the
 * modulo, and open-addressing tables stop taking keys at three quarters full. */
#ifndef HOPWATCH_TABLE_SIZE_H
#define HOPWATCH_TABLE_SIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* The smallest power of two >= want, within [lo, hi] (lo and hi powers of two). */
static inline uint32_t hw_pow2_at_least(uint32_t want, uint32_t lo, uint32_t hi)
{
	uint32_t n = lo;
	while (n < want && n < hi)
		n <<= 1;
	return n;
}

/* Keys an open-addressing table of cap slots takes before it reports overflow. */
static inline uint32_t hw_table_limit(uint32_t cap)
{
	return cap / 4 * 3;
}

/* Ask for transparent huge pages over the 2 MiB-aligned inside of a large table (a hint: nothing
 * changes where the kernel has none).  A table of a few thousand keys hashed over tens of megabytes
 * touches a different 4 KiB page with almost every key, so without them nearly every access to it
 * misses the TLB; with them the whole table is covered by a few dozen TLB entries.  The price is
 * memory: a 2 MiB page is zeroed and kept as soon as one of its keys is used. */
static inline void hw_table_hugepages(void *mem, size_t len)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20, a = ((uintptr_t)mem + huge - 1) & ~(huge - 1),
	                end = ((uintptr_t)mem + len) & ~(huge - 1);
	if (end > a)
		(void)madvise((void *)a, end - a, MADV_HUGEPAGE);
#else
	(void)mem;
	(void)len;
#endif
}

#endif
