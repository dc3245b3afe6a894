/* The generator's deterministic random numbers: splitmix64, seeded from --seed.
 * Same seed and options give the same sequence, hence byte-identical output files. */
#ifndef HOPWATCH_GEN_RNG_H
#define HOPWATCH_GEN_RNG_H

#include <stdint.h>

static inline uint64_t gen_splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Stateless mix of one value (paths, ports: stable per flow and node). */
static inline uint64_t gen_mix(uint64_t x)
{
	uint64_t s = x;
	return gen_splitmix(&s);
}

/* Threshold for "true with probability p" tests against a 64-bit random value. */
static inline uint64_t gen_prob_threshold(double p)
{
	if (p <= 0)
		return 0;
	if (p >= 1)
		return UINT64_MAX;
	return (uint64_t)(p * 18446744073709551616.0);
}

#endif
