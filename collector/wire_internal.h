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

/* What one bitmap bit's bytes hold. */
enum hw_md_kind {
	MD_SKIP = 0,   /* reserved or not recorded: skipped by size */
	MD_NODE,       /* node id (32) */
	MD_L1_PORTS,   /* ingress (16) + egress (16) */
	MD_LATENCY,    /* hop latency (32) */
	MD_QUEUE,      /* queue id (8) + occupancy (24) */
	MD_ING_TS32,   /* ingress timestamp (32) */
	MD_EG_TS32,    /* egress timestamp (32) */
	MD_ING_TS64,   /* ingress timestamp (64) */
	MD_EG_TS64,    /* egress timestamp (64) */
	MD_L2_PORTS,   /* ingress (32) + egress (32) */
	MD_L2_PORTS16, /* ingress (16) + egress (16) (GEANT) */
	MD_TX_UTIL,    /* egress port tx utilisation (32) */
	MD_BUFFER,     /* buffer id (8) + occupancy (24) */
	MD_DROP,       /* queue id (8) + drop reason (8) + pad (16) */
};

/* Per-bit kind and size for one metadata format, bit 0 = most significant of a 16-bit map. */
struct hw_md_table {
	uint8_t kind[16];
	uint8_t size[16];
};
extern const struct hw_md_table hw_md_int21, hw_md_int10, hw_md_int05, hw_md_geant, hw_md_tr2, hw_md_tr1;

/* The fields a bitmap selects, with their byte offsets inside one hop's (or report's) metadata. */
struct hw_md_plan {
	uint8_t n;
	uint8_t kind[16];
	uint8_t off[16];
	uint16_t bytes; /* total size the bitmap needs */
};

void hw_md_plan_build(struct hw_md_plan *plan, const struct hw_md_table *t, uint16_t bits);
/* Decode plan->bytes validated bytes at p into r (sets fields and valid bits; all-ones = absent). */
void hw_md_decode(const struct hw_md_plan *plan, const uint8_t *p, struct hw_record *r);
/* For hops with 32-bit timestamps and no latency field: hop_latency = egress - ingress mod 2^32. */
void hw_md_derive_latency(struct hw_record *r, bool ts32);

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
};

static inline void hw_inner_clear(struct hw_inner *in)
{
	memcpy(&in->tmpl, &hw_zero_record, sizeof(in->tmpl));
	in->stack.version = HW_INT_NONE;
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
