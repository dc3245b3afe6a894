/* INT-MD encoders: shim headers (TCP/UDP, VXLAN-GPE, Geneve option), metadata headers and the
 * per-hop stack for INT v2.1, v1.0, v0.5 and the GEANT profile, written from the spec tables. */
#include <string.h>

#include "bytes.h"
#include "gen.h"
#include "hopwatch/wire.h"

/* Words of one hop for each instruction bit, by version (INT v2.1 sec. "INT-MD Metadata Header
 * Format": bits 4-6 take 8 bytes; v1.0: only bit 6 takes 8 bytes; v0.5: every instruction 4 bytes;
 * GEANT: 8-byte timestamps, 16-bit L2 ports). */
unsigned gen_int_hop_words(uint16_t bitmap, unsigned int_ver, unsigned profile)
{
	unsigned w = 0;
	int ts8 = int_ver == GEN_INT_V21 || profile == HW_PROFILE_GEANT;
	if (bitmap & GEN_I_NODE)
		w += 1;
	if (bitmap & GEN_I_PORTS)
		w += 1;
	if (bitmap & GEN_I_LATENCY)
		w += 1;
	if (bitmap & GEN_I_QUEUE)
		w += 1;
	if (bitmap & GEN_I_IG_TS)
		w += ts8 ? 2 : 1;
	if (bitmap & GEN_I_EG_TS)
		w += ts8 ? 2 : 1;
	if (bitmap & GEN_I_L2_PORTS)
		w += (profile == HW_PROFILE_GEANT || int_ver == GEN_INT_V05) ? 1 : 2;
	if (bitmap & GEN_I_TX_UTIL)
		w += 1;
	if (bitmap & GEN_I_BUFFER)
		w += 1;
	if (bitmap & GEN_I_CHECKSUM)
		w += 1;
	return w;
}

static uint8_t *ones(uint8_t *p, unsigned n)
{
	memset(p, 0xff, n);
	return p + n;
}

/* One hop's metadata in instruction bit order, checksum complement last. */
static uint8_t *put_hop(const struct gen_cfg *cfg, const struct gen_hop *h, uint8_t *p)
{
	const uint16_t b = cfg->instructions;
	const uint16_t u = h->unavail;
	const int ts8 = cfg->int_ver == GEN_INT_V21 || cfg->profile == HW_PROFILE_GEANT;
	if (b & GEN_I_NODE)
		p = (u & GEN_I_NODE) ? ones(p, 4) : gen_put32(p, h->node_id);
	if (b & GEN_I_PORTS) {
		if (u & GEN_I_PORTS)
			p = ones(p, 4);
		else {
			p = gen_put16(p, h->in_port);
			p = gen_put16(p, h->out_port);
		}
	}
	if (b & GEN_I_LATENCY)
		p = (u & GEN_I_LATENCY) ? ones(p, 4) : gen_put32(p, h->latency);
	if (b & GEN_I_QUEUE) {
		if (u & GEN_I_QUEUE)
			p = ones(p, 4);
		else {
			p = gen_put8(p, h->qid);
			p = gen_put24(p, h->qocc);
		}
	}
	if (b & GEN_I_IG_TS) {
		if (u & GEN_I_IG_TS)
			p = ones(p, ts8 ? 8 : 4);
		else
			p = ts8 ? gen_put64(p, h->ig_ts) : gen_put32(p, (uint32_t)h->ig_ts);
	}
	if (b & GEN_I_EG_TS) {
		if (u & GEN_I_EG_TS)
			p = ones(p, ts8 ? 8 : 4);
		else
			p = ts8 ? gen_put64(p, h->eg_ts) : gen_put32(p, (uint32_t)h->eg_ts);
	}
	if (b & GEN_I_L2_PORTS) {
		int l2_16 = cfg->profile == HW_PROFILE_GEANT;
		if (u & GEN_I_L2_PORTS)
			p = ones(p, l2_16 ? 4 : 8);
		else if (l2_16) {
			p = gen_put16(p, h->l2_in);
			p = gen_put16(p, h->l2_out);
		} else {
			p = gen_put32(p, h->l2_in);
			p = gen_put32(p, h->l2_out);
		}
	}
	if (b & GEN_I_TX_UTIL)
		p = (u & GEN_I_TX_UTIL) ? ones(p, 4) : gen_put32(p, h->tx_util);
	if (b & GEN_I_BUFFER) {
		if (u & GEN_I_BUFFER)
			p = ones(p, 4);
		else {
			p = gen_put8(p, h->bid);
			p = gen_put24(p, h->bocc);
		}
	}
	if (b & GEN_I_CHECKSUM)
		p = gen_put32(p, 0); /* checksum complement: the generator leaves L4 checksums at zero */
	return p;
}

/* Hop budget the source granted: remaining hop count = budget - hops. */
static unsigned hop_budget(const struct gen_cfg *cfg, unsigned n)
{
	if (cfg->p4)
		return GEN_P4_MAX_HOPS; /* the max_hops of the source's watchlist entry */
	return n <= 16 ? 16 : 64;
}

static unsigned md_header_bytes(const struct gen_cfg *cfg)
{
	return cfg->int_ver == GEN_INT_V21 ? 12 : 8;
}

size_t gen_int_md_stack_bytes(const struct gen_cfg *cfg, const struct gen_report *r)
{
	return md_header_bytes(cfg) +
	       4u * r->n_stack * gen_int_hop_words(cfg->instructions, cfg->int_ver, cfg->profile);
}

/* The metadata header and the stack (newest hop first). */
uint8_t *gen_int_md_stack(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, const uint8_t *base,
                          struct gen_marks *m)
{
	const unsigned n = r->n_stack;
	const unsigned hw = gen_int_hop_words(cfg->instructions, cfg->int_ver, cfg->profile);
	uint8_t *md = p;
	memset(md, 0, md_header_bytes(cfg));
	if (cfg->int_ver == GEN_INT_V21) {
		/* ver:4 D E M rsvd:12 hop_ml:5 rhc:8 | bitmap:16 ds_id:16 | ds_instruction:16 ds_flags:16 */
		gen_put_bits(md, 0, 4, 2);
		gen_put_bits(md, 19, 5, hw);
		gen_put_bits(md, 24, 8, hop_budget(cfg, n) - n);
		gen_put16(md + 4, cfg->instructions);
		p = md + 12;
	} else if (cfg->profile == HW_PROFILE_GEANT) {
		/* v1.0 layout; hop_ml = instruction count (not the hop's words) unless told otherwise;
		 * bitmap little-endian */
		gen_put_bits(md, 0, 4, 1);
		gen_put_bits(md, 19, 5, cfg->geant_hop_ml_words ? hw : (unsigned)__builtin_popcount(cfg->instructions));
		gen_put_bits(md, 24, 8, hop_budget(cfg, n) - n);
		md[4] = (uint8_t)cfg->instructions;
		md[5] = (uint8_t)(cfg->instructions >> 8);
		p = md + 8;
	} else if (cfg->int_ver == GEN_INT_V10) {
		/* ver:4 rep:2 C E M rsvd:10 hop_ml:5 rhc:8 | bitmap:16 rsvd:16 */
		gen_put_bits(md, 0, 4, 1);
		gen_put_bits(md, 19, 5, hw);
		gen_put_bits(md, 24, 8, hop_budget(cfg, n) - n);
		gen_put16(md + 4, cfg->instructions);
		p = md + 8;
	} else {
		/* v0.5: ver:4 rep:2 C E rsvd:3 ins_cnt:5 max_hop_cnt:8 total_hop_cnt:8 | bitmap:16 rsvd:16 */
		gen_put_bits(md, 0, 4, 0);
		gen_put_bits(md, 11, 5, hw);
		gen_put_bits(md, 16, 8, hop_budget(cfg, n));
		gen_put_bits(md, 24, 8, n);
		gen_put16(md + 4, cfg->instructions);
		p = md + 8;
	}
	for (unsigned i = n; i-- > 0;)
		p = put_hop(cfg, &r->hops[i], p);
	if (m && !m->md_off) {
		m->md_off = (uint16_t)(md - base);
		m->stack_end = (uint16_t)(p - base);
		m->hop_words = (uint8_t)hw;
	}
	return p;
}

/* INT over TCP/UDP: shim, MD header, stack (and the v0.5 / GEANT tail).  orig_dscp and the flow's
 * original destination port go where the version keeps them. */
uint8_t *gen_int_l4(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, const uint8_t *base,
                    struct gen_marks *m, uint8_t orig_dscp)
{
	uint8_t *shim = p;
	int first = m && !m->shim_off;
	uint8_t *end = gen_int_md_stack(cfg, r, shim + 4, base, m);
	size_t md_stack = (size_t)(end - (shim + 4));
	if (cfg->int_ver == GEN_INT_V21 && cfg->profile != HW_PROFILE_GEANT) {
		/* type:4 npt:2 rsvd:2 | length:8 (MD + stack words, shim not counted) | 16-bit npt field */
		int npt = cfg->detect == GEN_DETECT_PORT ? 1 : 0;
		shim[0] = (uint8_t)(1u << 4 | (unsigned)npt << 2);
		shim[1] = (uint8_t)(md_stack / 4);
		if (npt == 1)
			gen_put16(shim + 2, r->flow->dport);
		else {
			shim[2] = 0;
			shim[3] = (uint8_t)(orig_dscp << 2); /* rsvd:8 dscp:6 r:2 */
		}
		if (first)
			m->shim_kind = GEN_SHIM_21;
	} else if (cfg->int_ver == GEN_INT_V10 && cfg->profile != HW_PROFILE_GEANT) {
		/* type:8 rsvd:8 length:8 (words including the shim) dscp:6 r:2 */
		shim[0] = 1;
		shim[1] = 0;
		shim[2] = (uint8_t)((md_stack + 4) / 4);
		shim[3] = (uint8_t)(orig_dscp << 2);
		if (first)
			m->shim_kind = GEN_SHIM_10;
	} else if (cfg->profile == HW_PROFILE_GEANT && cfg->geant_no_tail) {
		/* GEANT without a tail: type:8 rsvd:8 length:8 (shim + MD + stack) rsvd:8 */
		shim[0] = 1;
		shim[1] = 0;
		shim[2] = (uint8_t)((md_stack + 4) / 4);
		shim[3] = 0;
		if (first)
			m->shim_kind = GEN_SHIM_10;
	} else {
		/* v0.5 and GEANT: type:8 rsvd:8 length:8 (shim + MD + stack + tail) rsvd:8, then the tail
		 * proto:8 dport:16 dscp:8 */
		shim[0] = 1;
		shim[1] = 0;
		shim[2] = (uint8_t)((md_stack + 8) / 4);
		shim[3] = 0;
		end = gen_put8(end, r->flow->proto);
		end = gen_put16(end, r->flow->dport);
		end = gen_put8(end, cfg->profile == HW_PROFILE_GEANT ? 0 : orig_dscp);
		if (first)
			m->shim_kind = GEN_SHIM_10;
	}
	if (first)
		m->shim_off = (uint16_t)(shim - base);
	return end;
}
