/* hw_flow_hash: the stable 64-bit flow hash stored in every record.
 * Defined here once so that the collector, the generator and the analyzer agree on it. */
#include <string.h>

#include "hopwatch/record.h"

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* The key is 40 bytes: src_ip[16] dst_ip[16] src_port (big-endian) dst_port (big-endian)
 * ip_proto 0 0 0, read as five little-endian 64-bit words; each word is mixed in with two
 * multiplications and the result goes through the MurmurHash3 64-bit finaliser. */
uint64_t hw_flow_hash(const uint8_t src_ip[16], const uint8_t dst_ip[16], uint8_t ip_proto, uint16_t src_port,
                      uint16_t dst_port)
{
	const uint64_t k1 = 0x87c37b91114253d5ull, k2 = 0x4cf5ad432745937full;
	uint8_t tail[8] = {(uint8_t)(src_port >> 8),
	                   (uint8_t)src_port,
	                   (uint8_t)(dst_port >> 8),
	                   (uint8_t)dst_port,
	                   ip_proto,
	                   0,
	                   0,
	                   0};
	uint64_t h = 0x9e3779b97f4a7c15ull;
	const uint8_t *parts[5] = {src_ip, src_ip + 8, dst_ip, dst_ip + 8, tail};
	for (int i = 0; i < 5; i++) {
		uint64_t w = load_le64(parts[i]) * k1;
		h ^= rotl64(w, 31) * k2;
		h = rotl64(h, 27) * 5 + 0x52dce729;
	}
	h ^= 40;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}
