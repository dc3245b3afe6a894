/* Sizing of the collector's fixed tables: capacities are powers of two so that a mask replaces the
 * modulo, and open-addressing tables stop taking keys at three quarters full. */
#ifndef HOPWATCH_TABLE_SIZE_H
#define HOPWATCH_TABLE_SIZE_H

#include <stdint.h>

#include "table_mem.h" /* hw_pow2_at_least */

/* Keys an open-addressing table of cap slots takes before it reports overflow. */
static inline uint32_t hw_table_limit(uint32_t cap)
{
	return cap / 4 * 3;
}

#endif
