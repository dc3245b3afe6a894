/* Large tables of the hot paths on whole pages of their own: each record touches lines spread over megabytes of
 * them, and with 4 KiB pages every such line also needs a page walk (docs/performance.md, round 24). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "table_mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define HW_TABLE_CALLOC 1 /* AddressSanitizer guards what calloc gives, not what mmap gives */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HW_TABLE_CALLOC 1
#endif
#endif

/* Kept in the bytes just before each table: what to hand back. */
struct table_head {
	void *start; /* the mapping (calloc: the allocation) */
	size_t len;  /* the mapping's bytes (calloc: 0) */
};

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

void *hw_table_alloc(size_t bytes)
{
	const size_t page = page_size();
	const size_t align = bytes >= HW_TABLE_HUGE ? HW_TABLE_HUGE : page;
	if (bytes > SIZE_MAX / 2)
		return NULL;
#ifdef HW_TABLE_CALLOC
	unsigned char *raw = calloc(1, bytes + align + sizeof(struct table_head));
	if (!raw)
		return NULL;
	unsigned char *t = (unsigned char *)hw_round_up((uintptr_t)raw + sizeof(struct table_head), align);
	memcpy(t - sizeof(struct table_head), &(struct table_head){raw, 0}, sizeof(struct table_head));
	return t;
#else
	/* a page for the head before the table, the table's last huge page whole (the kernel gives a huge page only
	 * to a 2 MiB extent inside the mapping), and room to slide the table onto its boundary; then the slack is
	 * handed back */
	const size_t body = hw_round_up(bytes ? bytes : 1, align);
	const size_t len = page + body + align;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	unsigned char *t = (unsigned char *)hw_round_up((uintptr_t)m + page, align);
	unsigned char *start = t - page, *end = t + body;
	if (start > m)
		munmap(m, (size_t)(start - m));
	if (m + len > end)
		munmap(end, (size_t)(m + len - end));
	if (align == HW_TABLE_HUGE)
		(void)madvise(t, body, MADV_HUGEPAGE); /* a hint: EINVAL where the kernel has no THP */
	memcpy(t - sizeof(struct table_head), &(struct table_head){start, (size_t)(end - start)},
	       sizeof(struct table_head));
	return t;
#endif
}

void hw_table_free(void *table)
{
	if (!table)
		return;
	struct table_head h;
	memcpy(&h, (unsigned char *)table - sizeof(h), sizeof(h));
	if (h.len)
		munmap(h.start, h.len);
	else
		free(h.start);
}
