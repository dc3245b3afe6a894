/* Helpers shared by the record file and stream sinks: little-endian loads and stores and the stream
 * frame header (error text: errf.h, the clock: clock.h, addresses: sock_addr.h, all in lib/common). */
#ifndef HOPWATCH_SINKS_INTERNAL_H
#define HOPWATCH_SINKS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "errf.h"
#include "sock_addr.h"

static inline void hw_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void hw_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void hw_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t hw_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t hw_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t hw_get_le64(const uint8_t *p)
{
	return (uint64_t)hw_get_le32(p) | (uint64_t)hw_get_le32(p + 4) << 32;
}

/* Stream frame header (stream.h), decoded. */
struct hw_frame_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t rec_size;
	uint32_t count;
	uint32_t reserved;
	uint64_t seq;
	uint64_t dropped;
};
void hw_frame_hdr_put(uint8_t out[32], uint32_t count, uint64_t seq, uint64_t dropped);
void hw_frame_hdr_get(const uint8_t in[32], struct hw_frame_hdr *h);

#endif
