/* Telemetry Report v0.5 encoder, fabric-tna style: 12-byte fixed header, then the switch-local
 * header (nproto 2) or the drop header (nproto 1), then the inner Ethernet frame. */
#include <string.h>

#include "bytes.h"
#include "gen.h"

void gen_tr05_build(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	const struct gen_report *r = &k->reps[0];
	const struct gen_hop *h = &r->hops[r->n_stack];
	const int drop = !!(r->flags & HW_RF_DROPPED);
	gen_outer_begin(cfg, k);
	uint8_t *hdr = k->buf + k->len;
	k->marks.rep_off = (uint16_t)k->len;
	memset(hdr, 0, 12);
	/* ver:4 (0) nproto:4 | D Q F rsvd:15 hw_id:6 | seq:32 | ig_tstamp:32 */
	gen_put_bits(hdr, 4, 4, drop ? 1 : 2);
	gen_put_bits(hdr, 8, 1, drop);
	gen_put_bits(hdr, 9, 1, !!(r->flags & HW_RF_CONGESTED_QUEUE));
	gen_put_bits(hdr, 10, 1, !!(r->flags & HW_RF_TRACKED_FLOW));
	gen_put_bits(hdr, 26, 6, k->hw_id);
	gen_put32(hdr + 4, k->seq);
	gen_put32(hdr + 8, (uint32_t)h->ig_ts);
	uint8_t *p = hdr + 12;
	/* switch_id:32 ig_port:16 eg_port:16 queue_id:8, then occupancy:24 egress_ts:32 (local) or
	 * drop_reason:8 pad:16 (drop) */
	p = gen_put32(p, gen_node_id(cfg, k->node_idx));
	p = gen_put16(p, h->in_port);
	p = gen_put16(p, h->out_port);
	p = gen_put8(p, h->qid);
	if (drop) {
		p = gen_put8(p, r->drop_reason);
		p = gen_put16(p, 0);
	} else {
		p = gen_put24(p, h->qocc);
		p = gen_put32(p, (uint32_t)h->eg_ts);
	}
	p = gen_data_packet(cfg, r, p, k->buf, &k->marks, 1, 1, 0);
	k->len = (size_t)(p - k->buf);
	k->marks.rep_end = (uint16_t)k->len;
	gen_outer_finish(cfg, k);
}
