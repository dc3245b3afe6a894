/* Telemetry Report v1.0 encoder: 16-byte header, 4 bytes per rep_md bit, then the inner packet.
 * From telemetry_report.mdk at tag telemetry_v1.0. */
#include <string.h>

#include "bytes.h"
#include "gen.h"

unsigned gen_tr1_md_bytes(uint8_t bits)
{
	return 4u * (unsigned)__builtin_popcount(bits & 0x3f);
}

void gen_tr1_build(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	const struct gen_report *r = &k->reps[0];
	const struct gen_hop *h = &r->hops[r->n_stack];
	uint8_t bits = (uint8_t)(cfg->rep_md & 0x3f & ~GEN_R1_DROP);
	if (r->flags & HW_RF_DROPPED)
		bits |= GEN_R1_DROP;
	gen_outer_begin(cfg, k);
	uint8_t *hdr = k->buf + k->len;
	k->marks.rep_off = (uint16_t)k->len;
	memset(hdr, 0, 16);
	unsigned nproto = cfg->in_type == GEN_IN_ETH ? 0 : r->flow->ipv6 ? 2 : 1;
	/* ver:4 len:4 nproto:3 rep_md_bits:6 rsvd:6 D Q F hw_id:6 | switch_id | seq | ingress_ts */
	gen_put_bits(hdr, 0, 4, 1);
	gen_put_bits(hdr, 4, 4, 4 + gen_tr1_md_bytes(bits) / 4);
	gen_put_bits(hdr, 8, 3, nproto);
	gen_put_bits(hdr, 11, 6, bits);
	gen_put_bits(hdr, 23, 1, !!(r->flags & HW_RF_DROPPED));
	gen_put_bits(hdr, 24, 1, !!(r->flags & HW_RF_CONGESTED_QUEUE));
	gen_put_bits(hdr, 25, 1, !!(r->flags & HW_RF_TRACKED_FLOW));
	gen_put_bits(hdr, 26, 6, k->hw_id);
	gen_put32(hdr + 4, gen_node_id(cfg, k->node_idx));
	gen_put32(hdr + 8, k->seq);
	gen_put32(hdr + 12, (uint32_t)h->ig_ts);
	uint8_t *p = hdr + 16;
	if (bits & GEN_R1_PORTS) {
		p = gen_put16(p, h->in_port);
		p = gen_put16(p, h->out_port);
	}
	if (bits & GEN_R1_LATENCY)
		p = gen_put32(p, h->latency);
	if (bits & GEN_R1_QUEUE) {
		p = gen_put8(p, h->qid);
		p = gen_put24(p, h->qocc);
	}
	if (bits & GEN_R1_EG_TS)
		p = gen_put32(p, (uint32_t)h->eg_ts);
	if (bits & GEN_R1_DROP) {
		p = gen_put8(p, h->qid);
		p = gen_put8(p, r->drop_reason);
		p = gen_put16(p, 0);
	}
	if (bits & GEN_R1_TX_UTIL)
		p = gen_put32(p, h->tx_util);
	p = gen_data_packet(cfg, r, p, k->buf, &k->marks, cfg->in_type == GEN_IN_ETH, 1, 0);
	k->len = (size_t)(p - k->buf);
	k->marks.rep_end = (uint16_t)k->len;
	gen_outer_finish(cfg, k);
}
