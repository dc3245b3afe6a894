/* Telemetry Report v2.0 encoder: group header, individual INT reports (RepMdBits metadata) with the
 * truncated inner packet; several reports coalesced per packet.  From telemetry_report.mdk v2.0. */
#include <string.h>

#include "bytes.h"
#include "gen.h"

/* Bytes of the variable optional baseline metadata: 4 per bit, 8 for bits 4-6 (0x0800, 0x0400,
 * 0x0200). */
unsigned gen_tr2_md_bytes(uint16_t bits)
{
	unsigned n = 0;
	for (unsigned b = 0; b < 16; b++)
		if (bits & (0x8000u >> b))
			n += (b >= 4 && b <= 6) ? 8 : 4;
	return n;
}

uint16_t gen_tr2_report_bits(const struct gen_cfg *cfg, const struct gen_report *r)
{
	if (cfg->p4)
		return (r->flags & HW_RF_DROPPED) ? GEN_P4_REP_MD_DROP : GEN_P4_REP_MD;
	uint16_t bits = cfg->sink_md_stack ? 0 : cfg->rep_md & (uint16_t)~GEN_R_DROP;
	if (r->flags & HW_RF_DROPPED)
		bits |= GEN_R_DROP;
	return bits;
}

static unsigned in_type(const struct gen_cfg *cfg, const struct gen_report *r)
{
	if (cfg->in_type == GEN_IN_ETH)
		return 3;
	return r->flow->ipv6 ? 5 : 4;
}

void gen_tr2_begin(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	gen_outer_begin(cfg, k);
	uint8_t *g = k->buf + k->len;
	memset(g, 0, 8);
	/* ver:4 (2) | hw_id:6 | seq:22 | node_id:32 */
	gen_put_bits(g, 0, 4, 2);
	gen_put_bits(g, 4, 6, k->hw_id);
	gen_put_bits(g, 10, 22, k->seq & 0x3fffff);
	gen_put32(g + 4, gen_node_id(cfg, k->node_idx));
	k->len += 8;
}

/* The last report of a packet may say 0xFF: "to the end of the payload". */
void gen_tr2_close(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	if (cfg->last_len_ff && k->marks.last_rep_off)
		k->buf[k->marks.last_rep_off + 1] = 0xff;
}

int gen_tr2_add(const struct gen_cfg *cfg, struct gen_pkt *k, const struct gen_report *r)
{
	const struct gen_hop *h = &r->hops[r->n_stack];
	const uint16_t bits = gen_tr2_report_bits(cfg, r);
	uint8_t *hdr = k->buf + k->len;
	uint8_t *p = hdr + 4;
	if (!k->marks.rep_off)
		k->marks.rep_off = (uint16_t)(hdr - k->buf);
	/* INT main contents: RepMdBits:16 ds_id:16 | ds_md_bits:16 ds_md_status:16 */
	p = gen_put16(p, bits);
	p = gen_put16(p, 0);
	p = gen_put16(p, 0);
	p = gen_put16(p, 0);
	uint8_t *md = p;
	if (bits & GEN_R_PORTS) {
		p = gen_put16(p, h->in_port);
		p = gen_put16(p, h->out_port);
	}
	if (bits & GEN_R_LATENCY)
		p = gen_put32(p, h->latency);
	if (bits & GEN_R_QUEUE) {
		p = gen_put8(p, h->qid);
		p = gen_put24(p, h->qocc);
	}
	if (bits & GEN_R_IG_TS)
		p = gen_put64(p, h->ig_ts);
	if (bits & GEN_R_EG_TS)
		p = gen_put64(p, h->eg_ts);
	if (bits & GEN_R_L2_PORTS) {
		p = gen_put32(p, h->l2_in);
		p = gen_put32(p, h->l2_out);
	}
	if (bits & GEN_R_TX_UTIL)
		p = gen_put32(p, h->tx_util);
	if (bits & GEN_R_BUFFER) {
		p = gen_put8(p, h->bid);
		p = gen_put24(p, h->bocc);
	}
	if (bits & GEN_R_DROP) {
		p = gen_put8(p, h->qid);
		p = gen_put8(p, r->drop_reason);
		p = gen_put16(p, 0);
	}
	size_t md_bytes = (size_t)(p - md);
	if (cfg->p4) {
		/* hopwatch_v1model.p4: the whole packet from IPv4 on, cut to min(total length,
		 * HW_REPORT_INNER_MAX) rounded down to whole words */
		uint8_t *inner = p;
		p = gen_data_packet(cfg, r, p, k->buf, &k->marks, 0, 0, 0);
		size_t keep = (size_t)(p - inner);
		if (keep > GEN_P4_INNER_MAX)
			keep = GEN_P4_INNER_MAX;
		p = inner + (keep & ~(size_t)3);
		if (k->marks.inner_end > (size_t)(p - k->buf))
			k->marks.inner_end = (uint16_t)(p - k->buf);
	} else
		p = gen_data_packet(cfg, r, p, k->buf, &k->marks, cfg->in_type == GEN_IN_ETH, 1, 4);
	size_t words = (size_t)(p - (hdr + 4)) / 4;
	/* rep_type:4 in_type:4 | report_length:8 | md_length:8 | D Q F I rsvd:4 */
	hdr[0] = (uint8_t)(1u << 4 | in_type(cfg, r));
	hdr[1] = (uint8_t)(words >= 0xff ? 0xff : words);
	hdr[2] = (uint8_t)(md_bytes / 4);
	hdr[3] = (uint8_t)(((r->flags & HW_RF_DROPPED) ? 0x80 : 0) | ((r->flags & HW_RF_CONGESTED_QUEUE) ? 0x40 : 0) |
	                   ((r->flags & HW_RF_TRACKED_FLOW) ? 0x20 : 0) | ((r->flags & HW_RF_INTERMEDIATE) ? 0x10 : 0));
	if (k->marks.rep_off == (uint16_t)(hdr - k->buf))
		k->marks.rep_end = (uint16_t)(p - k->buf);
	k->marks.last_rep_off = (uint16_t)(hdr - k->buf);
	k->len = (size_t)(p - k->buf);
	return words >= 0xff;
}
