/* Big-endian byte and bit writers for the generator's encoders.
 * Written from the spec tables (bit 0 = most significant bit), independent of the parser's readers. */
#ifndef HOPWATCH_GEN_BYTES_H
#define HOPWATCH_GEN_BYTES_H

#include <stdint.h>

static inline uint8_t *gen_put8(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	return p + 1;
}

static inline uint8_t *gen_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return p + 2;
}

static inline uint8_t *gen_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
	return p + 3;
}

static inline uint8_t *gen_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

static inline uint8_t *gen_put64(uint8_t *p, uint64_t v)
{
	gen_put32(p, (uint32_t)(v >> 32));
	return gen_put32(p + 4, (uint32_t)v);
}

/* OR value v (width bits, <= 32) into the big-endian bit field starting at bit off of p.
 * The field must be zero beforehand (headers are cleared before their fields are set). */
static inline void gen_put_bits(uint8_t *p, unsigned off, unsigned width, uint32_t v)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned bit = off + i;
		if ((v >> (width - 1 - i)) & 1u)
			p[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
	}
}

static inline uint16_t gen_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

#endif
