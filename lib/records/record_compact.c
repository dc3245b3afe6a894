/* The compact record encoding (record_compact.h), generated from HW_RECORD_FIELDS (record.h): which fields a
 * report shares, the group encoder and decoder, and how each field's type is written. */
#include <pthread.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "errf.h"
#include "record_compact.h"
#include "sinks_internal.h"

/* Which fields every record of one report shares (1: written once per group) and which are the hop's own
 * (0: written per record).  Every field of HW_RECORD_FIELDS must be named here: a field missing from this
 * table is a compile error where the list is expanded below. */
#define HW_RC_SHARED_time_ns 1
#define HW_RC_SHARED_report_node 1
#define HW_RC_SHARED_hw_id 1
#define HW_RC_SHARED_report_seq 1
#define HW_RC_SHARED_report_flags 1
#define HW_RC_SHARED_format 1
#define HW_RC_SHARED_int_version 0
#define HW_RC_SHARED_valid 0
#define HW_RC_SHARED_hop_index 0
#define HW_RC_SHARED_path_len 1
#define HW_RC_SHARED_node_id 0
#define HW_RC_SHARED_ingress_port 0
#define HW_RC_SHARED_egress_port 0
#define HW_RC_SHARED_l2_ingress_port 0
#define HW_RC_SHARED_l2_egress_port 0
#define HW_RC_SHARED_hop_latency 0
#define HW_RC_SHARED_queue_id 0
#define HW_RC_SHARED_queue_occupancy 0
#define HW_RC_SHARED_ingress_ts 0
#define HW_RC_SHARED_egress_ts 0
#define HW_RC_SHARED_egress_tx_util 0
#define HW_RC_SHARED_buffer_id 0
#define HW_RC_SHARED_buffer_occupancy 0
#define HW_RC_SHARED_drop_reason 0
#define HW_RC_SHARED_src_ip 1
#define HW_RC_SHARED_dst_ip 1
#define HW_RC_SHARED_src_port 1
#define HW_RC_SHARED_dst_port 1
#define HW_RC_SHARED_ip_proto 1
#define HW_RC_SHARED_dscp 1
#define HW_RC_SHARED_ecn 1
#define HW_RC_SHARED_roce_opcode 1
#define HW_RC_SHARED_roce_dest_qp 1
#define HW_RC_SHARED_flow_hash 1

#define SHARED(name) HW_RC_SHARED_##name

/* A field's bit in its group's mask: its place among the shared fields (RPOS) or among the hop fields
 * (HPOS), in list order.  Each row adds an enumerator and a second one that steps the count back when
 * the field is of the other kind, so the next field gets the same place. */
#define RPOS_ROW(a, name, type, le, valid, ch, kind, jpos)                                                             \
	RPOS_##name, RPOS_END_##name = RPOS_##name + SHARED(name) - 1,
#define HPOS_ROW(a, name, type, le, valid, ch, kind, jpos) HPOS_##name, HPOS_END_##name = HPOS_##name - SHARED(name),
enum { RPOS_BEFORE_ = -1, HW_RECORD_FIELDS(RPOS_ROW, _) N_SHARED };
enum { HPOS_BEFORE_ = -1, HW_RECORD_FIELDS(HPOS_ROW, _) N_HOP };
_Static_assert(N_SHARED + N_HOP == HW_RECORD_NFIELDS, "every field is shared or the hop's own");
_Static_assert(N_SHARED <= 32 && N_HOP <= 32, "a group's masks are 32 bits");

/* Each (type, kind) of the list has one coding:
 *   u8                 1 byte;
 *   u16, u32           LEB128 varint of the value (u16 at most 3 bytes, u32 at most 5);
 *   u64, kind UINT     LEB128 varint of the zigzag-coded difference to the previous record's value (times
 *                      and device timestamps: small steps), at most 10 bytes;
 *   u64, kind HEX      8 bytes little-endian (flow_hash: a hash has no small differences);
 *   ip16               16 bytes in order.
 * A (type, kind) pair not listed here is a compile error. */
#define CODE_u8_UINT u8
#define CODE_u8_FLAGS u8
#define CODE_u8_FORMAT u8
#define CODE_u8_INTVER u8
#define CODE_u16_UINT u16
#define CODE_u32_UINT u32
#define CODE_u32_VALID u32
#define CODE_u64_UINT delta
#define CODE_u64_HEX raw64
#define CODE_ip16_IP ip16
#define CODE_(type, kind) CODE_##type##_##kind
#define CALL_(m, code) m##code
#define CALL(m, code) CALL_(m, code)

#define BOUND_u8 1
#define BOUND_u16 3
#define BOUND_u32 5
#define BOUND_delta 10
#define BOUND_raw64 8
#define BOUND_ip16 16

/* One and two bytes first: most values (ports, nodes, latencies, occupancies, timestamp steps) are below 2^14. */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	if (v < 0x80) {
		*p = (uint8_t)v;
		return p + 1;
	}
	if (v < 0x4000) {
		p[0] = (uint8_t)(v | 0x80);
		p[1] = (uint8_t)(v >> 7);
		return p + 2;
	}
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t zigzag(uint64_t d)
{
	return d << 1 ^ (uint64_t) - (int64_t)(d >> 63);
}

static inline uint64_t unzigzag(uint64_t z)
{
	return z >> 1 ^ (uint64_t) - (int64_t)(z & 1);
}

#define EQ_u8(a, b) ((a) == (b))
#define EQ_u16(a, b) ((a) == (b))
#define EQ_u32(a, b) ((a) == (b))
#define EQ_delta(a, b) ((a) == (b))
#define EQ_raw64(a, b) ((a) == (b))
#define EQ_ip16(a, b) (!memcmp((a), (b), 16))

#define PUT_u8(p, v, pv) (*(p)++ = (v))
#define PUT_u16(p, v, pv) ((p) = put_varint((p), (v)))
#define PUT_u32(p, v, pv) ((p) = put_varint((p), (v)))
#define PUT_delta(p, v, pv) ((p) = put_varint((p), zigzag((uint64_t)(v) - (uint64_t)(pv))))
#define PUT_raw64(p, v, pv)                                                                                            \
	do {                                                                                                           \
		for (int b_ = 0; b_ < 8; b_++)                                                                         \
			*(p)++ = (uint8_t)((v) >> (8 * b_));                                                           \
	} while (0)
#define PUT_ip16(p, v, pv) (memcpy((p), (v), 16), (p) += 16)

/* A group's widest: its count, the report mask and every shared field (RC_FIXED_BOUND), then per record its
 * mask and every hop field (RC_HOP_BOUND). */
#define RB(a, name, type, le, valid, ch, kind, jpos) +(SHARED(name) ? CALL(BOUND_, CODE_(type, kind)) : 0)
#define HB(a, name, type, le, valid, ch, kind, jpos) +(SHARED(name) ? 0 : CALL(BOUND_, CODE_(type, kind)))
enum { RC_FIXED_BOUND = 1 + 5 + (0 HW_RECORD_FIELDS(RB, _)), RC_HOP_BOUND = 5 + (0 HW_RECORD_FIELDS(HB, _)) };
#undef RB
#undef HB

size_t hw_rc_group_bound(size_t n)
{
	return RC_FIXED_BOUND + n * RC_HOP_BOUND;
}

/* Which fields of two records differ, found with a few wide comparisons instead of one per field: bit i of
 * w says whether the 4 bytes at 4i (of the first 128) differ, bit i of b whether byte 120 + i does.  Every
 * field of at least 2 bytes lies in the first 128 bytes and owns its dwords (the u16 ports share one, and
 * both are shared fields), every one-byte field lies at 120 or later (checked below); so a field differs
 * when any of its bits (FW, FB) is set. */
struct rdiff {
	uint32_t w, b;
};

#define SIZE_u8 1
#define SIZE_u16 2
#define SIZE_u32 4
#define SIZE_u64 8
#define SIZE_ip16 16
#define IS_u8_u8 1
#define IS_u8_u16 0
#define IS_u8_u32 0
#define IS_u8_u64 0
#define IS_u8_ip16 0
#define IS_u16_u8 0
#define IS_u16_u16 1
#define IS_u16_u32 0
#define IS_u16_u64 0
#define IS_u16_ip16 0
#define FW_(type, le)                                                                                                  \
	(CALL(IS_u8_, type)                                                                                            \
	     ? 0u                                                                                                      \
	     : (uint32_t)(((1ull << (CALL(SIZE_, type) < 4 ? 1 : CALL(SIZE_, type) / 4)) - 1) << (le) / 4))
#define FB_(type, le) (CALL(IS_u8_, type) ? 1u << ((le)-120) : 0u)

#define PLACE_OK(a, name, type, le, valid, ch, kind, jpos)                                                             \
	_Static_assert(CALL(IS_u8_, type) ? (le) >= 120 && (le) < 136 : (le) + CALL(SIZE_, type) <= 128,               \
	               #name ": a one-byte field must lie at 120 or later, a wider one in the first 128 bytes");
HW_RECORD_FIELDS(PLACE_OK, _)
#undef PLACE_OK
#define SW(a, name, type, le, valid, ch, kind, jpos) | (SHARED(name) ? FW_(type, le) : 0u)
#define HW(a, name, type, le, valid, ch, kind, jpos) | (SHARED(name) ? 0u : FW_(type, le))
#define HWSUM(a, name, type, le, valid, ch, kind, jpos) +(SHARED(name) ? 0ull : (uint64_t)FW_(type, le))
#define SWSUM(a, name, type, le, valid, ch, kind, jpos)                                                                \
	+(SHARED(name) && !CALL(IS_u16_, type) ? (uint64_t)FW_(type, le) : 0ull)
#define SW16(a, name, type, le, valid, ch, kind, jpos) | (SHARED(name) && !CALL(IS_u16_, type) ? FW_(type, le) : 0u)
#define SB(a, name, type, le, valid, ch, kind, jpos) | (SHARED(name) ? FB_(type, le) : 0u)
enum { SHARED_W = 0u HW_RECORD_FIELDS(SW, _), HOP_W = 0u HW_RECORD_FIELDS(HW, _) };
enum { SHARED_B = 0u HW_RECORD_FIELDS(SB, _) };
_Static_assert((SHARED_W & HOP_W) == 0, "no dword holds both a shared and a hop field");
_Static_assert((0ull HW_RECORD_FIELDS(HWSUM, _)) == (uint64_t)HOP_W, "no dword holds two hop fields");
_Static_assert((0ull HW_RECORD_FIELDS(SWSUM, _)) == (uint64_t)(0u HW_RECORD_FIELDS(SW16, _)),
               "no dword holds two shared fields but u16 ones");
#undef SW
#undef HW
#undef HWSUM
#undef SWSUM
#undef SW16
#undef SB

static inline struct rdiff rec_diff(const struct hw_record *a, const struct hw_record *b)
{
	const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
#ifdef __SSE2__
#define CMP_(i)                                                                                                        \
	_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(x + 16 * (i))),                                              \
	                _mm_loadu_si128((const __m128i *)(y + 16 * (i))))
	/* each dword's all-ones or zero narrowed to one byte, in order: dwords 0-15, then 16-31 */
	__m128i lo = _mm_packs_epi16(_mm_packs_epi32(CMP_(0), CMP_(1)), _mm_packs_epi32(CMP_(2), CMP_(3)));
	__m128i hi = _mm_packs_epi16(_mm_packs_epi32(CMP_(4), CMP_(5)), _mm_packs_epi32(CMP_(6), CMP_(7)));
#undef CMP_
	uint32_t eqw = (uint32_t)_mm_movemask_epi8(lo) | (uint32_t)_mm_movemask_epi8(hi) << 16;
	uint32_t eqb = (uint32_t)_mm_movemask_epi8(
	    _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(x + 120)), _mm_loadu_si128((const __m128i *)(y + 120))));
	return (struct rdiff){~eqw, ~eqb & 0xffffu};
#else
	struct rdiff d = {0, 0};
	for (int i = 0; i < 32; i++)
		d.w |= (uint32_t) !!memcmp(x + 4 * i, y + 4 * i, 4) << i;
	for (int i = 0; i < 16; i++)
		d.b |= (uint32_t)(x[120 + i] != y[120 + i]) << i;
	return d;
#endif
}

/* The field masks of a diff, by table: each byte of w (tables 0-3) and of b (4-5) looked up gives the mask
 * bits of the fields whose dwords or bytes it covers; [0] the hop fields' mask, [1] the shared fields' but
 * the u16 ones (two in one dword, compared one by one). */
static uint32_t mask_t[2][6][256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
	for (unsigned t = 0; t < 6; t++)
		for (unsigned v = 0; v < 256; v++) {
			uint32_t w = t < 4 ? v << (8 * t) : 0, b = t < 4 ? 0 : v << (8 * (t - 4)), hm = 0, sm = 0;
#define TM(a, name, type, le, valid, ch, kind, jpos)                                                                   \
	if ((FW_(type, le) & w) | (FB_(type, le) & b)) {                                                               \
		if (!SHARED(name))                                                                                     \
			hm |= 1u << (SHARED(name) ? 0 : HPOS_##name);                                                  \
		else if (!CALL(IS_u16_, type))                                                                         \
			sm |= 1u << (SHARED(name) ? RPOS_##name : 0);                                                  \
	}
			HW_RECORD_FIELDS(TM, _)
#undef TM
			mask_t[0][t][v] = hm;
			mask_t[1][t][v] = sm;
		}
}

/* which: 0 the hop fields' mask, 1 the shared fields' (without the u16 fields). */
static inline uint32_t table_mask(struct rdiff d, int which)
{
	const uint32_t(*t)[256] = mask_t[which];
	return t[0][d.w & 0xff] | t[1][d.w >> 8 & 0xff] | t[2][d.w >> 16 & 0xff] | t[3][d.w >> 24] | t[4][d.b & 0xff] |
	       t[5][d.b >> 8];
}

size_t hw_rc_encode_group(struct hw_record *prev, const struct hw_record *r, size_t n, uint8_t *out, size_t *taken)
{
	pthread_once(&tables_once, build_tables);
	size_t k = 0, lim = n < HW_RC_GROUP_MAX ? n : HW_RC_GROUP_MAX;
	uint8_t *p = out + 1; /* the count, out[0], is known at the end */
	uint32_t m = 0;
	const struct hw_record *pv = prev; /* the record before: *prev, then r[i - 1] */
#define RMASK16(x, name, type, le, valid, ch, kind, jpos)                                                              \
	if (SHARED(name) && CALL(IS_u16_, type))                                                                       \
		m |= (uint32_t)(x->name != pv->name) << (SHARED(name) ? RPOS_##name : 0);
#define RPUT(x, name, type, le, valid, ch, kind, jpos)                                                                 \
	if (SHARED(name) && (m >> (SHARED(name) ? RPOS_##name : 0) & 1))                                               \
		CALL(PUT_, CODE_(type, kind))(p, x->name, pv->name);
	struct rdiff d = rec_diff(&r[0], prev);
	m = table_mask(d, 1);
	HW_RECORD_FIELDS(RMASK16, r)
	p = put_varint(p, m);
	HW_RECORD_FIELDS(RPUT, r)
#define HPUT(x, name, type, le, valid, ch, kind, jpos)                                                                 \
	if (!SHARED(name) && (m >> (SHARED(name) ? 0 : HPOS_##name) & 1))                                              \
		CALL(PUT_, CODE_(type, kind))(p, x->name, pv->name);
	/* a record belongs to the group while its shared fields equal the one's before it (and so r[0]'s) */
	for (;;) {
		const struct hw_record *h = &r[k];
		m = table_mask(d, 0);
		p = put_varint(p, m);
		HW_RECORD_FIELDS(HPUT, h)
		pv = h;
		if (++k == lim)
			break;
		d = rec_diff(&r[k], h);
		if ((d.w & SHARED_W) | (d.b & SHARED_B))
			break;
	}
	out[0] = (uint8_t)k;
	*prev = r[k - 1];
	*taken = k;
	return (size_t)(p - out);
}

/* Bounds-checked reads for the decoder: each returns 0 on success, 1 when the input ends first, -1 when
 * the bytes are not a value of the field (set by a caller's message). */
struct rd {
	const uint8_t *p, *end;
};

static inline int get_varint(struct rd *d, uint64_t *v)
{
	if (d->end - d->p >= 2) { /* one and two bytes without a bounds check per byte */
		const uint8_t *p = d->p;
		if (p[0] < 0x80) {
			*v = p[0];
			d->p += 1;
			return 0;
		}
		if (p[1] < 0x80) {
			*v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
			d->p += 2;
			return 0;
		}
	}
	uint64_t x = 0;
	for (unsigned s = 0; s < 64; s += 7) {
		if (d->p == d->end)
			return 1;
		uint8_t b = *d->p++;
		if (s == 63 && b > 1)
			return -1; /* more than 64 bits */
		x |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1; /* an 11th byte */
}

static inline int get_u8(struct rd *d, uint8_t *v)
{
	if (d->p == d->end)
		return 1;
	*v = *d->p++;
	return 0;
}

/* A varint of at most max. */
static inline int get_upto(struct rd *d, uint64_t max, uint64_t *x)
{
	int rc = get_varint(d, x);
	return !rc && *x > max ? -1 : rc;
}

static inline int get_u16(struct rd *d, uint16_t *v)
{
	uint64_t x;
	int rc = get_upto(d, UINT16_MAX, &x);
	*v = rc ? *v : (uint16_t)x;
	return rc;
}

static inline int get_u32(struct rd *d, uint32_t *v)
{
	uint64_t x;
	int rc = get_upto(d, UINT32_MAX, &x);
	*v = rc ? *v : (uint32_t)x;
	return rc;
}

/* *v holds the previous record's value and becomes this one's. */
static inline int get_delta(struct rd *d, uint64_t *v)
{
	uint64_t z;
	int rc = get_varint(d, &z);
	if (!rc)
		*v += unzigzag(z);
	return rc;
}

static inline int get_raw64(struct rd *d, uint64_t *v)
{
	if (d->end - d->p < 8)
		return 1;
	uint64_t x = 0;
	for (int b = 0; b < 8; b++)
		x |= (uint64_t)d->p[b] << (8 * b);
	d->p += 8;
	*v = x;
	return 0;
}

static inline int get_ip16(struct rd *d, uint8_t *v)
{
	if (d->end - d->p < 16)
		return 1;
	memcpy(v, d->p, 16);
	d->p += 16;
	return 0;
}

#define GET_u8(d, v) get_u8((d), &(v))
#define GET_u16(d, v) get_u16((d), &(v))
#define GET_u32(d, v) get_u32((d), &(v))
#define GET_delta(d, v) get_delta((d), &(v))
#define GET_raw64(d, v) get_raw64((d), &(v))
#define GET_ip16(d, v) get_ip16((d), (v))

/* The bounds-checked decoder: every read checks the end of the input. */
long hw_rc_decode_group_checked(struct hw_record *prev, const uint8_t *in, size_t len, struct hw_record *out,
                                size_t *nrec, uint64_t off, char *err, size_t errlen)
{
	struct rd d = {in, in + len};
	struct hw_record cur = *prev;
	const char *bad = NULL;
	int rc;
	uint64_t m;
	if (len < 1)
		return 0;
	size_t k = *d.p++;
	if (k == 0) {
		hw_errf(err, errlen, "group at byte %llu: a count of 0 records", (unsigned long long)off);
		return -1;
	}
	if ((rc = get_varint(&d, &m)))
		goto stop;
	if (m >> N_SHARED) {
		bad = "report field mask names no field";
		goto malformed;
	}
#define RGET(x, name, type, le, valid, ch, kind, jpos)                                                                 \
	if (SHARED(name) && (m >> (SHARED(name) ? RPOS_##name : 0) & 1) &&                                             \
	    (rc = CALL(GET_, CODE_(type, kind))(&d, x.name))) {                                                        \
		bad = #name;                                                                                           \
		goto stop;                                                                                             \
	}
#define HGET(x, name, type, le, valid, ch, kind, jpos)                                                                 \
	if (!SHARED(name) && (m >> (SHARED(name) ? 0 : HPOS_##name) & 1) &&                                            \
	    (rc = CALL(GET_, CODE_(type, kind))(&d, x.name))) {                                                        \
		bad = #name;                                                                                           \
		goto stop;                                                                                             \
	}
	HW_RECORD_FIELDS(RGET, cur)
	for (size_t i = 0; i < k; i++) {
		if ((rc = get_varint(&d, &m)))
			goto stop;
		if (m >> N_HOP) {
			bad = "hop field mask names no field";
			goto malformed;
		}
		HW_RECORD_FIELDS(HGET, cur)
		memset(cur.pad_, 0, sizeof(cur.pad_));
		out[i] = cur;
	}
	*prev = cur;
	*nrec = k;
	return (long)(d.p - in);
stop:
	if (rc > 0)
		return 0; /* the input ends inside the group */
	hw_errf(err, errlen, "group at byte %llu: %s%s: an integer too long or too large for it",
	        (unsigned long long)off, bad ? "field " : "", bad ? bad : "field mask");
	return -1;
malformed:
	hw_errf(err, errlen, "group at byte %llu: %s", (unsigned long long)off, bad);
	return -1;
}

/* The fast path's reads: no check of the input's end, each varint at most as wide as its field's BOUND_
 * (the caller has checked that the group's worst case, hw_rc_group_bound, is buffered, and a group whose
 * every field keeps within its bound cannot be longer).  Anything else -- a varint wider than its bound
 * (a value too large, or an over-long encoding the checked path accepts), a mask naming no field -- makes
 * the fast path give up, and the checked path decodes the group again from its start and says why. */
#define FAST_FAIL_ goto slow

/* A varint of at most maxb bytes at p into x (uint64_t); p moves past it.  maxb is a constant: unrolled. */
#define FAST_VARINT(p, maxb, x)                                                                                        \
	do {                                                                                                           \
		(x) = *(p)++;                                                                                          \
		if ((x) >= 0x80) { /* the second byte inline, as most values take at most two */                       \
			uint64_t b1_ = *(p)++;                                                                         \
			(x) = ((x)&0x7f) | (b1_ & 0x7f) << 7;                                                          \
			if (b1_ >= 0x80)                                                                               \
				for (unsigned i_ = 2;; i_++) {                                                         \
					if (i_ == (maxb))                                                              \
						FAST_FAIL_;                                                            \
					uint64_t b_ = *(p)++;                                                          \
					if (i_ == 9 && b_ > 1)                                                         \
						FAST_FAIL_; /* more than 64 bits */                                    \
					(x) |= (b_ & 0x7f) << (7 * i_);                                                \
					if (b_ < 0x80)                                                                 \
						break;                                                                 \
				}                                                                                      \
		}                                                                                                      \
	} while (0)

#define FGET_u8(p, v) ((v) = *(p)++)
/* A u16 or u32 field: a varint of at most its bound and at most its largest value. */
#define FGET_UINT_(p, v, bound, max, ctype)                                                                            \
	do {                                                                                                           \
		uint64_t x_;                                                                                           \
		FAST_VARINT(p, bound, x_);                                                                             \
		if (x_ > (max))                                                                                        \
			FAST_FAIL_;                                                                                    \
		(v) = (ctype)x_;                                                                                       \
	} while (0)
#define FGET_u16(p, v) FGET_UINT_(p, v, BOUND_u16, UINT16_MAX, uint16_t)
#define FGET_u32(p, v) FGET_UINT_(p, v, BOUND_u32, UINT32_MAX, uint32_t)
#define FGET_delta(p, v)                                                                                               \
	do {                                                                                                           \
		uint64_t x_;                                                                                           \
		FAST_VARINT(p, BOUND_delta, x_);                                                                       \
		(v) += unzigzag(x_);                                                                                   \
	} while (0)
#define FGET_raw64(p, v)                                                                                               \
	do {                                                                                                           \
		(v) = hw_get_le64(p);                                                                                  \
		(p) += 8;                                                                                              \
	} while (0)
#define FGET_ip16(p, v) (memcpy((v), (p), 16), (p) += 16)

/* Room for a group of k records at its widest. */
#define GROUP_BOUND(k) (RC_FIXED_BOUND + (k)*RC_HOP_BOUND)

long hw_rc_decode_group(struct hw_record *prev, const uint8_t *in, size_t len, struct hw_record *out, size_t *nrec,
                        uint64_t off, char *err, size_t errlen)
{
	if (len < 1 || in[0] == 0 || len < GROUP_BOUND((size_t)in[0]))
		return hw_rc_decode_group_checked(prev, in, len, out, nrec, off, err, errlen);
	const uint8_t *p = in + 1;
	size_t k = in[0];
	uint64_t m;
	struct hw_record *cur = out;
	*cur = *prev;
	memset(cur->pad_, 0, sizeof(cur->pad_));
	FAST_VARINT(p, 5, m);
	if (m >> N_SHARED)
		goto slow;
#define FRGET(x, name, type, le, valid, ch, kind, jpos)                                                                \
	if (SHARED(name) && (m >> (SHARED(name) ? RPOS_##name : 0) & 1))                                               \
		CALL(FGET_, CODE_(type, kind))(p, x->name);
#define FHGET(x, name, type, le, valid, ch, kind, jpos)                                                                \
	if (!SHARED(name) && (m >> (SHARED(name) ? 0 : HPOS_##name) & 1))                                              \
		CALL(FGET_, CODE_(type, kind))(p, x->name);
	HW_RECORD_FIELDS(FRGET, cur)
	for (size_t i = 0; i < k; i++) {
		if (i)
			out[i] = out[i - 1], cur = &out[i];
		FAST_VARINT(p, 5, m);
		if (m >> N_HOP)
			goto slow;
		HW_RECORD_FIELDS(FHGET, cur)
	}
	*prev = out[k - 1];
	*nrec = k;
	return (long)(p - in);
slow:
	return hw_rc_decode_group_checked(prev, in, len, out, nrec, off, err, errlen);
}
