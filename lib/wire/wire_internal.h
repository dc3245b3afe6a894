/* Internals shared by the wire parser's files: the bounds-checked span accessor, the parse
 * context, metadata decode plans and the inner-packet summary.  Not a public header. */
#ifndef HOPWATCH_WIRE_INTERNAL_H
#define HOPWATCH_WIRE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu_clones.h"
#include "hopwatch/wire.h"
#include "hopwatch/wire_layout.h"

/* A byte span.  Every read of packet bytes goes through hw_at(): it hands out a pointer to n bytes
 * at off only when all n are inside the span, so nothing can be read past the end. */
struct hw_span {
	const uint8_t *p;
	size_t len;
};

static inline const uint8_t *hw_at(struct hw_span s, size_t off, size_t n)
{
	return (off <= s.len && n <= s.len - off) ? s.p + off : NULL;
}

/* The part of s from off on (off must be <= s.len: callers check with hw_at first). */
static inline struct hw_span hw_tail(struct hw_span s, size_t off)
{
	return (struct hw_span){s.p + off, s.len - off};
}

/* Big-endian loads, used only on windows hw_at() granted. */
static inline uint16_t hw_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t hw_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}
static inline uint32_t hw_be32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}
static inline uint64_t hw_be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

/* Whether port is one of the n configured ports. */
static inline bool hw_port_listed(const uint16_t *ports, unsigned n, uint16_t port)
{
	for (unsigned i = 0; i < n; i++)
		if (ports[i] == port)
			return true;
	return false;
}

/* One parse call's state: configuration, output arrays and where the input starts. */
struct hw_ctx {
	const struct hw_parser_config *cfg;
	struct hw_parse_out *out;
	const uint8_t *base;
	uint64_t time_ns;
};

static inline enum hw_result hw_fail(struct hw_ctx *c, const uint8_t *where, enum hw_result r)
{
	c->out->err_offset = (uint32_t)(where - c->base);
	return r;
}

/* A record's 136 bytes as four 32-byte vectors and a word: loaded once (the report's template),
 * they stay in registers and each record is written with five stores (AVX2 builds; baseline builds
 * split each vector in two).  A memcpy of the template per record reloads it every time (the record
 * stores might alias it), a memset of this size becomes `rep stos`, whose start-up cost is a large
 * share of a 30 ns report budget.  Stores bound the parser's speed. */
typedef uint64_t hw_v2 __attribute__((vector_size(16)));
typedef uint64_t hw_v4 __attribute__((vector_size(32)));
struct hw_record_image {
	hw_v4 y0, y1, y2, y3;
	uint64_t w8;
};
_Static_assert(sizeof(struct hw_record) == 4 * 32 + 8, "hw_record_image covers the record");

static inline __attribute__((always_inline)) struct hw_record_image hw_record_load(const struct hw_record *r)
{
	const uint8_t *p = (const uint8_t *)r;
	struct hw_record_image m;
	memcpy(&m.y0, p, 32);
	memcpy(&m.y1, p + 32, 32);
	memcpy(&m.y2, p + 64, 32);
	memcpy(&m.y3, p + 96, 32);
	memcpy(&m.w8, p + 128, 8);
	return m;
}

static inline __attribute__((always_inline)) void hw_record_store(struct hw_record *r, struct hw_record_image m)
{
	uint8_t *p = (uint8_t *)r;
	memcpy(p, &m.y0, 32);
	memcpy(p + 32, &m.y1, 32);
	memcpy(p + 64, &m.y2, 32);
	memcpy(p + 96, &m.y3, 32);
	memcpy(p + 128, &m.w8, 8);
}

static inline __attribute__((always_inline)) void hw_record_zero(struct hw_record *r)
{
	const hw_v4 z = {0, 0, 0, 0};
	hw_record_store(r, (struct hw_record_image){z, z, z, z, 0});
}

/* ---- metadata decode plans: one bitmap, many hops ------------------------------------------ */

/* The metadata fields the collector records. */
enum hw_md_kind {
	MD_NODE,     /* node id (32) */
	MD_L1_PORTS, /* ingress (16) + egress (16) */
	MD_LATENCY,  /* hop latency (32) */
	MD_QUEUE,    /* queue id (8) + occupancy (24) */
	MD_ING_TS,   /* ingress timestamp (32 or 64) */
	MD_EG_TS,    /* egress timestamp (32 or 64) */
	MD_L2_PORTS, /* ingress (32) + egress (32), or 16 + 16 (GEANT) */
	MD_TX_UTIL,  /* egress port tx utilisation (32) */
	MD_BUFFER,   /* buffer id (8) + occupancy (24) */
	MD_DROP,     /* queue id (8) + drop reason (8) + pad (16) */
	MD_KINDS
};

/* The metadata formats, by name F: HW_MD_<F>_MAP(X, ...) lists X(kind, bit, ...) for every bit
 * whose field the collector records (bit 0 = most significant; other bits are reserved or not
 * recorded); HW_MD_<F>_WIDE has the bits that are 8 bytes wide (every other bit is 4 bytes), _TS64
 * and _L2_16 the widths of timestamps and L2 ports.  Tables and fixed plans are built from these. */
#define HW_MD_FORMATS(X) X(INT21) X(INT10) X(INT05) X(GEANT) X(TR2) X(TR1)
#define HW_MD_COMMON_MAP_(X, a, b, c)                                                                                  \
	X(MD_NODE, 0, a, b, c)                                                                                         \
	X(MD_L1_PORTS, 1, a, b, c)                                                                                     \
	X(MD_LATENCY, 2, a, b, c) X(MD_QUEUE, 3, a, b, c) X(MD_ING_TS, 4, a, b, c) X(MD_EG_TS, 5, a, b, c)
/* INT v2.0/v2.1 instruction bitmap: bits 4-6 (timestamps, L2 ports) are 8 bytes; 9-14 reserved and
 * 15 checksum complement, 4 bytes each. */
#define HW_MD_INT21_MAP(X, a, b, c)                                                                                    \
	HW_MD_COMMON_MAP_(X, a, b, c) X(MD_L2_PORTS, 6, a, b, c) X(MD_TX_UTIL, 7, a, b, c) X(MD_BUFFER, 8, a, b, c)
#define HW_MD_INT21_WIDE 0x0e00
#define HW_MD_INT21_TS64 1
#define HW_MD_INT21_L2_16 0
/* INT v1.0: 4-byte timestamps; L2 ports (bit 6) are 8 bytes. */
#define HW_MD_INT10_MAP HW_MD_INT21_MAP
#define HW_MD_INT10_WIDE 0x0200
#define HW_MD_INT10_TS64 0
#define HW_MD_INT10_L2_16 0
/* INT v0.5: every instruction 4 bytes; bit 6 is queue id + congestion status (not recorded). */
#define HW_MD_INT05_MAP(X, a, b, c) HW_MD_COMMON_MAP_(X, a, b, c) X(MD_TX_UTIL, 7, a, b, c)
#define HW_MD_INT05_WIDE 0x0000
#define HW_MD_INT05_TS64 0
#define HW_MD_INT05_L2_16 0
/* GEANT int-platform: v1.0 bit meanings, 8-byte timestamps, 16 + 16-bit L2 ports. */
#define HW_MD_GEANT_MAP HW_MD_INT21_MAP
#define HW_MD_GEANT_WIDE 0x0c00
#define HW_MD_GEANT_TS64 1
#define HW_MD_GEANT_L2_16 1
/* Telemetry Report v2.0 RepMdBits: bit 0 reserved (the node id is in the group header), bits 4-6
 * 8 bytes, bit 15 queue id + drop reason. */
#define HW_MD_TR2_MAP(X, a, b, c)                                                                                      \
	X(MD_L1_PORTS, 1, a, b, c)                                                                                     \
	X(MD_LATENCY, 2, a, b, c)                                                                                      \
	X(MD_QUEUE, 3, a, b, c)                                                                                        \
	X(MD_ING_TS, 4, a, b, c)                                                                                       \
	X(MD_EG_TS, 5, a, b, c)                                                                                        \
	X(MD_L2_PORTS, 6, a, b, c) X(MD_TX_UTIL, 7, a, b, c) X(MD_BUFFER, 8, a, b, c) X(MD_DROP, 15, a, b, c)
#define HW_MD_TR2_WIDE 0x0e00
#define HW_MD_TR2_TS64 1
#define HW_MD_TR2_L2_16 0
/* Telemetry Report v1.0 RepMdBits, 6 bits placed at the top of the map by the caller: ports, hop
 * latency, queue, egress timestamp, drop, tx utilisation; all 4 bytes. */
#define HW_MD_TR1_MAP(X, a, b, c)                                                                                      \
	X(MD_L1_PORTS, 0, a, b, c)                                                                                     \
	X(MD_LATENCY, 1, a, b, c)                                                                                      \
	X(MD_QUEUE, 2, a, b, c) X(MD_EG_TS, 3, a, b, c) X(MD_DROP, 4, a, b, c) X(MD_TX_UTIL, 5, a, b, c)
#define HW_MD_TR1_WIDE 0x0000
#define HW_MD_TR1_TS64 0
#define HW_MD_TR1_L2_16 0

enum hw_md_format {
#define HW_X_FMT_ID(F) HW_MD_ID_##F,
	HW_MD_FORMATS(HW_X_FMT_ID)
#undef HW_X_FMT_ID
};

/* One metadata format as data: the field each bit selects (-1: none), the 8-byte bits, widths. */
struct hw_md_table {
	int8_t kind[16];
	uint16_t wide;
	uint8_t ts64;
	uint8_t l2_16;
	uint8_t id; /* enum hw_md_format */
};
extern const struct hw_md_table hw_md_int21, hw_md_int10, hw_md_int05, hw_md_geant, hw_md_tr2, hw_md_tr1;

/* Compile-time layout arithmetic over a bitmap v of format F: the size of bit i, the offset of
 * bit b (bytes of the set bits before it), the field at bit b, the offset of field k (-1: absent). */
#define HW_MD_SET_(v, i) (((unsigned)(v) >> (15 - (i))) & 1u)
#define HW_MD_BSZ_(F, v, i) (HW_MD_SET_(v, i) * (4u + 4u * HW_MD_SET_(HW_MD_##F##_WIDE, i)))
#define HW_MD_BT_(F, v, i, b) ((i) < (b) ? HW_MD_BSZ_(F, v, i) : 0u)
#define HW_MD_BOFF_(F, v, b)                                                                                           \
	(HW_MD_BT_(F, v, 0, b) + HW_MD_BT_(F, v, 1, b) + HW_MD_BT_(F, v, 2, b) + HW_MD_BT_(F, v, 3, b) +               \
	 HW_MD_BT_(F, v, 4, b) + HW_MD_BT_(F, v, 5, b) + HW_MD_BT_(F, v, 6, b) + HW_MD_BT_(F, v, 7, b) +               \
	 HW_MD_BT_(F, v, 8, b) + HW_MD_BT_(F, v, 9, b) + HW_MD_BT_(F, v, 10, b) + HW_MD_BT_(F, v, 11, b) +             \
	 HW_MD_BT_(F, v, 12, b) + HW_MD_BT_(F, v, 13, b) + HW_MD_BT_(F, v, 14, b) + HW_MD_BT_(F, v, 15, b))
#define HW_X_KIND_AT_(k, bit, F, v, b) +((bit) == (b) ? (k) + 1 : 0)
#define HW_MD_KIND_AT_(F, b) (int8_t)(-1 HW_MD_##F##_MAP(HW_X_KIND_AT_, F, 0, b))
#define HW_X_OFF_OF_(k, bit, F, v, want) +((k) == (want) && HW_MD_SET_(v, bit) ? (int)HW_MD_BOFF_(F, v, bit) + 1 : 0)
#define HW_MD_OFF_OF_(F, v, k) (int16_t)(-1 HW_MD_##F##_MAP(HW_X_OFF_OF_, F, v, k))

#define HW_MD_TABLE(F)                                                                                                 \
	{                                                                                                              \
		{HW_MD_KIND_AT_(F, 0),  HW_MD_KIND_AT_(F, 1),  HW_MD_KIND_AT_(F, 2),  HW_MD_KIND_AT_(F, 3),            \
		 HW_MD_KIND_AT_(F, 4),  HW_MD_KIND_AT_(F, 5),  HW_MD_KIND_AT_(F, 6),  HW_MD_KIND_AT_(F, 7),            \
		 HW_MD_KIND_AT_(F, 8),  HW_MD_KIND_AT_(F, 9),  HW_MD_KIND_AT_(F, 10), HW_MD_KIND_AT_(F, 11),           \
		 HW_MD_KIND_AT_(F, 12), HW_MD_KIND_AT_(F, 13), HW_MD_KIND_AT_(F, 14), HW_MD_KIND_AT_(F, 15)},          \
		    HW_MD_##F##_WIDE, HW_MD_##F##_TS64, HW_MD_##F##_L2_16, HW_MD_ID_##F                                \
	}

/* Where each field sits in one hop's (or one report's) metadata for a given bitmap: byte offset
 * per kind, -1 when absent.  Built once per report, used for every hop.  off[MD_KINDS] is a scratch
 * slot that takes the offsets of bits the collector does not record, so building has no branches. */
struct hw_md_plan {
	int16_t off[MD_KINDS + 1];
	uint16_t bytes; /* total size the bitmap needs */
	uint8_t ts64;
	uint8_t l2_16;
	uint8_t fixed; /* enum hw_md_fixed: this plan is one of hw_md_fixed_plans */
};

/* The plan of bitmap v in format F, as a constant initializer. */
#define HW_MD_PLAN(F, v)                                                                                               \
	{                                                                                                              \
		{HW_MD_OFF_OF_(F, v, MD_NODE),                                                                         \
		 HW_MD_OFF_OF_(F, v, MD_L1_PORTS),                                                                     \
		 HW_MD_OFF_OF_(F, v, MD_LATENCY),                                                                      \
		 HW_MD_OFF_OF_(F, v, MD_QUEUE),                                                                        \
		 HW_MD_OFF_OF_(F, v, MD_ING_TS),                                                                       \
		 HW_MD_OFF_OF_(F, v, MD_EG_TS),                                                                        \
		 HW_MD_OFF_OF_(F, v, MD_L2_PORTS),                                                                     \
		 HW_MD_OFF_OF_(F, v, MD_TX_UTIL),                                                                      \
		 HW_MD_OFF_OF_(F, v, MD_BUFFER),                                                                       \
		 HW_MD_OFF_OF_(F, v, MD_DROP),                                                                         \
		 -1},                                                                                                  \
		    (uint16_t)HW_MD_BOFF_(F, v, 16), HW_MD_##F##_TS64, HW_MD_##F##_L2_16, HW_MD_FIXED_##F##_##v        \
	}

/* The bitmaps fabrics commonly use (and hopwatch-gen's defaults), X(format, bitmap): their plans
 * are constants, and the hop loops get a decoder specialised to each (see hw_emit). */
#define HW_MD_FIXED_LIST(X) X(INT21, 0xFC00) X(INT10, 0xFC00) X(TR2, 0x7C00) X(TR1, 0xF000)

enum hw_md_fixed {
	HW_MD_FIXED_NONE = 0,
#define HW_X_FIXED_ID(F, v) HW_MD_FIXED_##F##_##v,
	HW_MD_FIXED_LIST(HW_X_FIXED_ID)
#undef HW_X_FIXED_ID
	    HW_MD_FIXED_COUNT
};

/* Entry 0 is the plan with every field absent (the start of a built plan). */
static const struct hw_md_plan hw_md_fixed_plans[HW_MD_FIXED_COUNT] = {
    {{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, 0, 0, 0, HW_MD_FIXED_NONE},
#define HW_X_FIXED_PLAN(F, v) HW_MD_PLAN(F, v),
    HW_MD_FIXED_LIST(HW_X_FIXED_PLAN)
#undef HW_X_FIXED_PLAN
};

/* The plan of bitmap bits in format t: one of hw_md_fixed_plans when the bitmap is a common one
 * (nothing to build or copy), otherwise built into *scratch. */
static inline const struct hw_md_plan *hw_md_plan_pick(struct hw_md_plan *scratch, const struct hw_md_table *t,
                                                       uint16_t bits)
{
#define HW_X_FIXED_PICK(F, v)                                                                                          \
	if (t->id == HW_MD_ID_##F && bits == (v))                                                                      \
		return &hw_md_fixed_plans[HW_MD_FIXED_##F##_##v];
	HW_MD_FIXED_LIST(HW_X_FIXED_PICK)
#undef HW_X_FIXED_PICK
	struct hw_md_plan *plan = scratch;
	*plan = hw_md_fixed_plans[HW_MD_FIXED_NONE];
	unsigned off = 0;
	uint32_t m = bits;
	while (m) { /* one turn per set bit, most significant first */
		unsigned b = (unsigned)__builtin_clz(m) - 16;
		m &= ~(0x8000u >> b);
		int k = t->kind[b];
		plan->off[k < 0 ? MD_KINDS : k] = (int16_t)off;
		off += 4u + 4u * ((t->wide >> (15 - b)) & 1u);
	}
	plan->bytes = (uint16_t)off;
	plan->ts64 = t->ts64;
	plan->l2_16 = t->l2_16;
	return plan;
}

/* The plan of bitmap bits in format t, in *plan. */
static inline void hw_md_plan_build(struct hw_md_plan *plan, const struct hw_md_table *t, uint16_t bits)
{
	const struct hw_md_plan *p = hw_md_plan_pick(plan, t, bits);
	if (p != plan)
		*plan = *p;
}

/* Two adjacent 32-bit record fields written with one 8-byte store (stores bound the parser). */
_Static_assert(offsetof(struct hw_record, egress_port) == offsetof(struct hw_record, ingress_port) + 4 &&
                   offsetof(struct hw_record, queue_occupancy) == offsetof(struct hw_record, hop_latency) + 4,
               "hw_store_pair fields are adjacent");
static inline void hw_store_pair(uint32_t *first, uint32_t a, uint32_t b)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t x = (uint64_t)b << 32 | a;
#else
	uint64_t x = (uint64_t)a << 32 | b;
#endif
	memcpy(first, &x, sizeof(x));
}

/* Whether a field value is present: all-ones is absent, unless the caller knows no word is. */
static inline bool hw_present32(uint32_t w, bool check)
{
	return !check || w != UINT32_MAX;
}

/* Decode validated metadata at p into r: fields and valid bits; an all-ones value is absent.  With
 * check false the caller has seen no all-ones word in the metadata, so every field is present. */
static inline __attribute__((always_inline)) void hw_md_decode_as(const struct hw_md_plan *pl, const uint8_t *p,
                                                                  struct hw_record *r, const bool check)
{
	uint32_t v = r->valid, w;
	int o;
	if ((o = pl->off[MD_NODE]) >= 0 && hw_present32(w = hw_be32(p + o), check))
		r->node_id = w;
	if ((o = pl->off[MD_L1_PORTS]) >= 0 && hw_present32(w = hw_be32(p + o), check)) {
		/* egress all ones with an ingress port: no egress chosen (a drop), not port 65535 */
		hw_store_pair(&r->ingress_port, w >> 16, (w & 0xffff) == 0xffff ? HW_PORT_NONE : w & 0xffff);
		v |= HW_V_PORTS;
	}
	uint32_t lat = 0, occ = 0;
	bool has_lat = false, has_occ = false;
	if ((o = pl->off[MD_LATENCY]) >= 0 && hw_present32(w = hw_be32(p + o), check)) {
		lat = w;
		has_lat = true;
		v |= HW_V_HOP_LATENCY;
	}
	if ((o = pl->off[MD_QUEUE]) >= 0 && hw_present32(w = hw_be32(p + o), check)) {
		r->queue_id = (uint8_t)(w >> 24);
		occ = w & 0xffffff;
		has_occ = true;
		v |= HW_V_QUEUE;
	}
	if (has_lat && has_occ) { /* the usual hop: one store for both */
		hw_store_pair(&r->hop_latency, lat, occ);
	} else {
		if (has_lat)
			r->hop_latency = lat;
		if (has_occ)
			r->queue_occupancy = occ;
	}
	const uint64_t ts_absent = pl->ts64 ? UINT64_MAX : UINT32_MAX;
	uint64_t ing = 0, eg = 0;
	bool has_ing = false, has_eg = false;
	if ((o = pl->off[MD_ING_TS]) >= 0) {
		ing = pl->ts64 ? hw_be64(p + o) : hw_be32(p + o);
		has_ing = !check || ing != ts_absent;
	}
	if ((o = pl->off[MD_EG_TS]) >= 0) {
		eg = pl->ts64 ? hw_be64(p + o) : hw_be32(p + o);
		has_eg = !check || eg != ts_absent;
	}
	if (has_ing && has_eg) { /* the usual hop: one 16-byte store for both */
		_Static_assert(offsetof(struct hw_record, egress_ts) == offsetof(struct hw_record, ingress_ts) + 8,
		               "timestamps are adjacent");
		const hw_v2 both = {ing, eg};
		memcpy(&r->ingress_ts, &both, sizeof(both));
		v |= HW_V_INGRESS_TS | HW_V_EGRESS_TS;
	} else {
		if (has_ing) {
			r->ingress_ts = ing;
			v |= HW_V_INGRESS_TS;
		}
		if (has_eg) {
			r->egress_ts = eg;
			v |= HW_V_EGRESS_TS;
		}
	}
	if ((o = pl->off[MD_L2_PORTS]) >= 0) {
		w = hw_be32(p + o);
		if (pl->l2_16) {
			if (hw_present32(w, check)) {
				r->l2_ingress_port = w >> 16;
				r->l2_egress_port = w & 0xffff;
				v |= HW_V_L2_PORTS;
			}
		} else {
			uint32_t e = hw_be32(p + o + 4);
			if (!check || w != UINT32_MAX || e != UINT32_MAX) {
				r->l2_ingress_port = w;
				r->l2_egress_port = e;
				v |= HW_V_L2_PORTS;
			}
		}
	}
	if ((o = pl->off[MD_TX_UTIL]) >= 0 && hw_present32(w = hw_be32(p + o), check)) {
		r->egress_tx_util = w;
		v |= HW_V_TX_UTIL;
	}
	if ((o = pl->off[MD_BUFFER]) >= 0 && hw_present32(w = hw_be32(p + o), check)) {
		r->buffer_id = (uint8_t)(w >> 24);
		r->buffer_occupancy = w & 0xffffff;
		v |= HW_V_BUFFER;
	}
	if ((o = pl->off[MD_DROP]) >= 0 && hw_present32(w = hw_be32(p + o), check)) {
		r->queue_id = (uint8_t)(w >> 24);
		r->drop_reason = (uint8_t)(w >> 16);
		v |= HW_V_DROP;
	}
	r->valid = v;
}

static inline __attribute__((always_inline)) void hw_md_decode(const struct hw_md_plan *pl, const uint8_t *p,
                                                               struct hw_record *r)
{
	hw_md_decode_as(pl, p, r, true);
}

/* Whether none of the 32-bit words of the bytes (a multiple of 4) of metadata at p is all-ones: then
 * no field is absent (a 64-bit field is absent only when both its words are all-ones).  One or two
 * vector compares for up to 32 bytes; false (check each field) for longer metadata. */
static inline bool hw_md_none_absent(const uint8_t *p, unsigned bytes)
{
#if defined(__SSE2__)
	if (bytes >= 16 && bytes <= 32) { /* the second window overlaps the first when bytes < 32 */
		const __m128i ones = _mm_set1_epi32(-1);
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(p + bytes - 16));
		return _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi32(a, ones), _mm_cmpeq_epi32(b, ones))) == 0;
	}
#endif
	(void)p;
	(void)bytes;
	return false;
}

/* One stack hop's metadata: without the per-field absent tests when no word is all-ones (the usual
 * hop), with them otherwise. */
static inline __attribute__((always_inline)) void hw_md_decode_hop(const struct hw_md_plan *pl, const uint8_t *p,
                                                                   struct hw_record *r)
{
	if (hw_md_none_absent(p, pl->bytes))
		hw_md_decode_as(pl, p, r, false);
	else
		hw_md_decode_as(pl, p, r, true);
}

/* hw_md_decode with the plan folded to a constant when it is one of the fixed plans. */
static inline __attribute__((always_inline)) void hw_md_decode_fixed(const struct hw_md_plan *pl, const uint8_t *p,
                                                                     struct hw_record *r)
{
	switch (pl->fixed) {
#define HW_X_FIXED_DECODE(F, v)                                                                                        \
	case HW_MD_FIXED_##F##_##v: hw_md_decode_hop(&hw_md_fixed_plans[HW_MD_FIXED_##F##_##v], p, r); break;
		HW_MD_FIXED_LIST(HW_X_FIXED_DECODE)
#undef HW_X_FIXED_DECODE
	default: hw_md_decode(pl, p, r); break;
	}
}

/* For hops with 32-bit timestamps and no latency field: hop_latency = egress - ingress mod 2^32. */
static inline void hw_md_derive_latency(struct hw_record *r, bool ts32)
{
	const uint32_t need = HW_V_INGRESS_TS | HW_V_EGRESS_TS;
	if (ts32 && (r->valid & need) == need && !(r->valid & HW_V_HOP_LATENCY)) {
		r->hop_latency = (uint32_t)r->egress_ts - (uint32_t)r->ingress_ts; /* wraps mod 2^32 */
		r->valid |= HW_V_HOP_LATENCY;
	}
}

/* ---- inner packets and embedded INT-MD stacks ---------------------------------------------- */

struct hw_int_stack {
	uint8_t version; /* enum hw_int_version; HW_INT_NONE = no stack */
	uint16_t n_hops; /* hops on the wire */
	uint16_t hop_bytes;
	const uint8_t *newest;         /* first hop on the wire = newest; n_hops * hop_bytes validated bytes */
	const struct hw_md_plan *plan; /* one of hw_md_fixed_plans, or &built */
	struct hw_md_plan built;       /* the plan of a bitmap that has no fixed plan */
};

/* What the collector learns from a packet: the flow template every record of a report copies
 * (flow, traffic class and RoCE fields with their valid bits) and the embedded stack, if any. */
struct hw_inner {
	struct hw_record tmpl;
	struct hw_int_stack stack;
	uint16_t tail_dport; /* INT v0.5 tail: the original destination port, when has_tail */
	uint8_t has_tail;
};

static inline void hw_inner_clear(struct hw_inner *in)
{
	hw_record_zero(&in->tmpl);
	in->stack.version = HW_INT_NONE;
	in->has_tail = 0;
}

/* The report parsers' handling of hw_inner_parse()'s result: a copy cut inside its headers is a
 * normal report (TR v2.0 calls the inner packet "a truncated packet fragment"), flagged
 * HW_RF_INNER_TRUNCATED; any other error stays an error. */
static inline enum hw_result hw_inner_cut(enum hw_result r, uint8_t *report_flags)
{
	if (r == HW_E_INNER_TRUNCATED) {
		*report_flags |= HW_RF_INNER_TRUNCATED;
		return HW_OK;
	}
	return r;
}

enum hw_l3_start {
	HW_START_ETH,
	HW_START_IPV4,
	HW_START_IPV6,
};

/* Parse a packet from its L2 or L3 header: flow 5-tuple, DSCP/ECN, RoCE BTH, INT-MD stack.
 * strict: the packet is the received frame (IP/UDP lengths must agree with the bytes), not a
 * truncated copy inside a report.  Headers that are cut give HW_E_INNER_TRUNCATED (or the outer
 * reasons when strict) with what was read before the cut kept in *in (flow keys, flow hash): a report
 * parser keeps the report and marks it with hw_inner_cut(). */
enum hw_result hw_inner_parse(struct hw_ctx *c, struct hw_span s, enum hw_l3_start start, bool strict,
                              struct hw_inner *in);

/* A received frame, strictly: when it is UDP to a report port, *report is its payload (the caller
 * parses the report); otherwise, with cfg->bare_int, the frame is searched for an INT-MD stack
 * (HW_NOT_REPORT when it has none). */
enum hw_result hw_frame_parse(struct hw_ctx *c, struct hw_span s, struct hw_inner *in, struct hw_span *report);

/* Parse the INT-MD shim + metadata header + stack at s (the L4 payload).  On success *consumed = bytes
 * before the original L4 payload: the INT data, plus the original UDP header after it with v2.1 NPT 2. */
enum hw_result hw_intmd_parse(struct hw_ctx *c, struct hw_span s, struct hw_inner *in, size_t *consumed);
/* Metadata header + stack without a shim (Geneve option data): len bytes at s. */
enum hw_result hw_intmd_parse_md(struct hw_ctx *c, struct hw_span s, size_t len, struct hw_inner *in);

/* ---- reports ------------------------------------------------------------------------------- */

/* Report-level facts every record of one report carries. */
struct hw_report_meta {
	uint32_t node;
	uint32_t seq;
	uint8_t hw_id;
	uint8_t format;
	uint8_t flags;
	uint8_t seq_bits;
};

/* The reporting node's own hop: rec has node_id, valid and the fields already known; when plan is
 * set, the validated metadata at md is decoded on top of them as the record is written. */
struct hw_own {
	struct hw_record rec;
	const struct hw_md_plan *plan;
	const uint8_t *md;
};

/* Emit the records of one report: the embedded stack oldest first, then the reporting node's own
 * hop (own; NULL when the report has none).  The own hop is merged into the newest stack hop when
 * that hop names the same node.  The report's fields are stamped into in->tmpl. */
enum hw_result hw_emit(struct hw_ctx *c, const struct hw_report_meta *m, struct hw_inner *in, struct hw_own *own);

enum hw_result hw_parse_tr2(struct hw_ctx *c, struct hw_span s);
enum hw_result hw_parse_tr1(struct hw_ctx *c, struct hw_span s);
enum hw_result hw_parse_tr05(struct hw_ctx *c, struct hw_span s);

#endif
