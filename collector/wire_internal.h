/* Internals shared by the wire parser's files: the bounds-checked span accessor, the parse
 * context, metadata decode plans and the inner-packet summary.  Not a public header. */
#ifndef HOPWATCH_WIRE_INTERNAL_H
#define HOPWATCH_WIRE_INTERNAL_H

#include <stdbool.h>
#include <string.h>

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

/* Zero a record with plain vector stores (a memset of this size becomes `rep stos`, whose start-up
 * cost is a large share of a 30 ns report budget). */
extern const struct hw_record hw_zero_record;

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

/* One metadata format: the field each bitmap bit selects (bit 0 = most significant, -1 = reserved
 * or not recorded), which bits are 8 bytes wide (every other bit is 4 bytes), and the widths of
 * timestamps and L2 ports. */
struct hw_md_table {
	int8_t kind[16];
	uint16_t wide;
	uint8_t ts64;
	uint8_t l2_16;
};
extern const struct hw_md_table hw_md_int21, hw_md_int10, hw_md_int05, hw_md_geant, hw_md_tr2, hw_md_tr1;

/* Where each field sits in one hop's (or one report's) metadata for a given bitmap: byte offset
 * per kind, -1 when absent.  Built once per report, used for every hop.  off[MD_KINDS] is a scratch
 * slot that takes the offsets of bits the collector does not record, so building has no branches. */
struct hw_md_plan {
	int16_t off[MD_KINDS + 1];
	uint16_t bytes; /* total size the bitmap needs */
	uint8_t ts64;
	uint8_t l2_16;
};

/* A plan with every field absent, copied in before the set bits are walked. */
extern const struct hw_md_plan hw_md_plan_empty;

static inline void hw_md_plan_build(struct hw_md_plan *plan, const struct hw_md_table *t, uint16_t bits)
{
	*plan = hw_md_plan_empty;
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
}

/* Decode validated metadata at p into r: fields and valid bits; an all-ones value is absent. */
static inline void hw_md_decode(const struct hw_md_plan *pl, const uint8_t *p, struct hw_record *r)
{
	uint32_t v = r->valid, w;
	int o;
	if ((o = pl->off[MD_NODE]) >= 0 && (w = hw_be32(p + o)) != UINT32_MAX)
		r->node_id = w;
	if ((o = pl->off[MD_L1_PORTS]) >= 0 && (w = hw_be32(p + o)) != UINT32_MAX) {
		r->ingress_port = w >> 16;
		r->egress_port = w & 0xffff;
		v |= HW_V_PORTS;
	}
	if ((o = pl->off[MD_LATENCY]) >= 0 && (w = hw_be32(p + o)) != UINT32_MAX) {
		r->hop_latency = w;
		v |= HW_V_HOP_LATENCY;
	}
	if ((o = pl->off[MD_QUEUE]) >= 0 && (w = hw_be32(p + o)) != UINT32_MAX) {
		r->queue_id = (uint8_t)(w >> 24);
		r->queue_occupancy = w & 0xffffff;
		v |= HW_V_QUEUE;
	}
	if ((o = pl->off[MD_ING_TS]) >= 0) {
		uint64_t t = pl->ts64 ? hw_be64(p + o) : hw_be32(p + o);
		if (t != (pl->ts64 ? UINT64_MAX : UINT32_MAX)) {
			r->ingress_ts = t;
			v |= HW_V_INGRESS_TS;
		}
	}
	if ((o = pl->off[MD_EG_TS]) >= 0) {
		uint64_t t = pl->ts64 ? hw_be64(p + o) : hw_be32(p + o);
		if (t != (pl->ts64 ? UINT64_MAX : UINT32_MAX)) {
			r->egress_ts = t;
			v |= HW_V_EGRESS_TS;
		}
	}
	if ((o = pl->off[MD_L2_PORTS]) >= 0) {
		w = hw_be32(p + o);
		if (pl->l2_16) {
			if (w != UINT32_MAX) {
				r->l2_ingress_port = w >> 16;
				r->l2_egress_port = w & 0xffff;
				v |= HW_V_L2_PORTS;
			}
		} else {
			uint32_t e = hw_be32(p + o + 4);
			if (w != UINT32_MAX || e != UINT32_MAX) {
				r->l2_ingress_port = w;
				r->l2_egress_port = e;
				v |= HW_V_L2_PORTS;
			}
		}
	}
	if ((o = pl->off[MD_TX_UTIL]) >= 0 && (w = hw_be32(p + o)) != UINT32_MAX) {
		r->egress_tx_util = w;
		v |= HW_V_TX_UTIL;
	}
	if ((o = pl->off[MD_BUFFER]) >= 0 && (w = hw_be32(p + o)) != UINT32_MAX) {
		r->buffer_id = (uint8_t)(w >> 24);
		r->buffer_occupancy = w & 0xffffff;
		v |= HW_V_BUFFER;
	}
	if ((o = pl->off[MD_DROP]) >= 0 && (w = hw_be32(p + o)) != UINT32_MAX) {
		r->queue_id = (uint8_t)(w >> 24);
		r->drop_reason = (uint8_t)(w >> 16);
		v |= HW_V_DROP;
	}
	r->valid = v;
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
	uint8_t ts32;    /* timestamps in this stack are 32 bits */
	uint16_t n_hops; /* hops on the wire */
	uint16_t hop_bytes;
	const uint8_t *newest; /* first hop on the wire = newest; n_hops * hop_bytes validated bytes */
	struct hw_md_plan plan;
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
	memcpy(&in->tmpl, &hw_zero_record, sizeof(in->tmpl));
	in->stack.version = HW_INT_NONE;
	in->has_tail = 0;
}

enum hw_l3_start {
	HW_START_ETH,
	HW_START_IPV4,
	HW_START_IPV6,
};

/* Parse a packet from its L2 or L3 header: flow 5-tuple, DSCP/ECN, RoCE BTH, INT-MD stack.
 * strict: the packet is the received frame (IP/UDP lengths must agree with the bytes), not a
 * truncated copy inside a report.  Headers that are cut give HW_E_INNER_TRUNCATED (or the outer
 * reasons when strict). */
enum hw_result hw_inner_parse(struct hw_ctx *c, struct hw_span s, enum hw_l3_start start, bool strict,
                              struct hw_inner *in);

/* A received frame, strictly: when it is UDP to a report port, *report is its payload (the caller
 * parses the report); otherwise, with cfg->bare_int, the frame is searched for an INT-MD stack
 * (HW_NOT_REPORT when it has none). */
enum hw_result hw_frame_parse(struct hw_ctx *c, struct hw_span s, struct hw_inner *in, struct hw_span *report);

/* Parse the INT-MD shim + metadata header + stack at s (the L4 payload).  udp_int_port: the UDP
 * destination port announced INT (v2.1 NPT=1).  On success *consumed = bytes of INT data. */
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

/* Emit the records of one report: the embedded stack oldest first, then the reporting node's own
 * hop (own; NULL when the report has none).  The own hop is merged into the newest stack hop when
 * that hop names the same node. */
enum hw_result hw_emit(struct hw_ctx *c, const struct hw_report_meta *m, const struct hw_inner *in,
                       const struct hw_record *own);

enum hw_result hw_parse_tr2(struct hw_ctx *c, struct hw_span s);
enum hw_result hw_parse_tr1(struct hw_ctx *c, struct hw_span s);
enum hw_result hw_parse_tr05(struct hw_ctx *c, struct hw_span s);

#endif
