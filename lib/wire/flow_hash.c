/* hw_flow_hash: the stable 64-bit flow hash stored in every record.
 * Defined here once so that the collector, the generator and the analyzer agree on it. */
#include <string.h>

#include "hopwatch/record.h"

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* 64 x 64 -> 128-bit multiply, folded: the mixing step of wyhash-style hashes. */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
	__extension__ typedef unsigned __int128 u128;
	u128 r = (u128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* The key is 40 bytes: src_ip[16] dst_ip[16] src_port (big-endian) dst_port (big-endian)
 * ip_proto 0 0 0, read as five little-endian 64-bit words w0..w4.  With the constants below:
 * h = mum(w0^k0, w1^k1) ^ mum(w2^k2, w3^k3) ^ mum(w4^k4, k5); hash = mum(h^k6, 40^k7).
 * Three independent multiplies then one: a few nanoseconds, and the value never changes. */
uint64_t hw_flow_hash(const uint8_t src_ip[16], const uint8_t dst_ip[16], uint8_t ip_proto, uint16_t src_port,
                      uint16_t dst_port)
{
	static const uint64_t k[8] = {0xa0761d6478bd642full, 0xe7037ed1a0b428dbull, 0x8ebc6af09c88c6e3ull,
	                              0x589965cc75374cc3ull, 0x1d8e4e27c47d124full, 0x9e3779b97f4a7c15ull,
	                              0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull};
	/* w4, the tail bytes sport_hi sport_lo dport_hi dport_lo proto 0 0 0 read little-endian, built
	 * in a register (a byte array would be stored and reloaded). */
	uint64_t w4 = (uint64_t)__builtin_bswap32((uint32_t)src_port << 16 | dst_port) | (uint64_t)ip_proto << 32;
	uint64_t h = mum(load_le64(src_ip) ^ k[0], load_le64(src_ip + 8) ^ k[1]) ^
	             mum(load_le64(dst_ip) ^ k[2], load_le64(dst_ip + 8) ^ k[3]) ^ mum(w4 ^ k[4], k[5]);
	return mum(h ^ k[6], 40 ^ k[7]);
}
