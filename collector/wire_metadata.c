/* Per-hop metadata: which bytes each bitmap bit selects in every INT and report version, and
 * the decoder that turns one hop's (or one report's) metadata into record fields. */
#include "wire_internal.h"

const struct hw_record hw_zero_record;

/* INT v2.0/v2.1 instruction bitmap: 8-byte timestamps and L2 ports; bits 9-15 reserved or checksum. */
const struct hw_md_table hw_md_int21 = {
    {MD_NODE, MD_L1_PORTS, MD_LATENCY, MD_QUEUE, MD_ING_TS64, MD_EG_TS64, MD_L2_PORTS, MD_TX_UTIL, MD_BUFFER},
    {4, 4, 4, 4, 8, 8, 8, 4, 4, 4, 4, 4, 4, 4, 4, 4},
};

/* INT v1.0: as v2.1 but 4-byte timestamps. */
const struct hw_md_table hw_md_int10 = {
    {MD_NODE, MD_L1_PORTS, MD_LATENCY, MD_QUEUE, MD_ING_TS32, MD_EG_TS32, MD_L2_PORTS, MD_TX_UTIL, MD_BUFFER},
    {4, 4, 4, 4, 4, 4, 8, 4, 4, 4, 4, 4, 4, 4, 4, 4},
};

/* INT v0.5: every instruction is 4 bytes; bit 6 is queue id + congestion status (not recorded). */
const struct hw_md_table hw_md_int05 = {
    {MD_NODE, MD_L1_PORTS, MD_LATENCY, MD_QUEUE, MD_ING_TS32, MD_EG_TS32, MD_SKIP, MD_TX_UTIL},
    {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
};

/* GEANT int-platform: v1.0 bit meanings with 8-byte timestamps and 16-bit L2 ports. */
const struct hw_md_table hw_md_geant = {
    {MD_NODE, MD_L1_PORTS, MD_LATENCY, MD_QUEUE, MD_ING_TS64, MD_EG_TS64, MD_L2_PORTS16, MD_TX_UTIL, MD_BUFFER},
    {4, 4, 4, 4, 8, 8, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
};

/* Telemetry Report v2.0 RepMdBits: bit 0 reserved (node id is in the group header), bit 15 drop. */
const struct hw_md_table hw_md_tr2 = {
    {MD_SKIP, MD_L1_PORTS, MD_LATENCY, MD_QUEUE, MD_ING_TS64, MD_EG_TS64, MD_L2_PORTS, MD_TX_UTIL, MD_BUFFER, 0, 0, 0,
     0, 0, 0, MD_DROP},
    {4, 4, 4, 4, 8, 8, 8, 4, 4, 4, 4, 4, 4, 4, 4, 4},
};

/* Telemetry Report v1.0 RepMdBits (6 bits, placed in the top of the 16-bit map by the caller). */
const struct hw_md_table hw_md_tr1 = {
    {MD_L1_PORTS, MD_LATENCY, MD_QUEUE, MD_EG_TS32, MD_DROP, MD_TX_UTIL},
    {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
};

void hw_md_plan_build(struct hw_md_plan *plan, const struct hw_md_table *t, uint16_t bits)
{
	unsigned off = 0, n = 0;
	uint32_t m = bits;
	while (m) {
		unsigned b = (unsigned)__builtin_clz(m) - 16; /* 0 = most significant bit of the map */
		m &= ~(0x8000u >> b);
		if (t->kind[b] != MD_SKIP) {
			plan->kind[n] = t->kind[b];
			plan->off[n] = (uint8_t)off;
			n++;
		}
		off += t->size[b];
	}
	plan->n = (uint8_t)n;
	plan->bytes = (uint16_t)off;
}

void hw_md_decode(const struct hw_md_plan *plan, const uint8_t *p, struct hw_record *r)
{
	for (unsigned i = 0; i < plan->n; i++) {
		const uint8_t *q = p + plan->off[i];
		uint32_t w = hw_be32(q);
		switch (plan->kind[i]) {
		case MD_NODE:
			if (w != UINT32_MAX)
				r->node_id = w;
			break;
		case MD_L1_PORTS:
			if (w != UINT32_MAX) {
				r->ingress_port = w >> 16;
				r->egress_port = w & 0xffff;
				r->valid |= HW_V_PORTS;
			}
			break;
		case MD_LATENCY:
			if (w != UINT32_MAX) {
				r->hop_latency = w;
				r->valid |= HW_V_HOP_LATENCY;
			}
			break;
		case MD_QUEUE:
			if (w != UINT32_MAX) {
				r->queue_id = (uint8_t)(w >> 24);
				r->queue_occupancy = w & 0xffffff;
				r->valid |= HW_V_QUEUE;
			}
			break;
		case MD_ING_TS32:
			if (w != UINT32_MAX) {
				r->ingress_ts = w;
				r->valid |= HW_V_INGRESS_TS;
			}
			break;
		case MD_EG_TS32:
			if (w != UINT32_MAX) {
				r->egress_ts = w;
				r->valid |= HW_V_EGRESS_TS;
			}
			break;
		case MD_ING_TS64: {
			uint64_t v = hw_be64(q);
			if (v != UINT64_MAX) {
				r->ingress_ts = v;
				r->valid |= HW_V_INGRESS_TS;
			}
			break;
		}
		case MD_EG_TS64: {
			uint64_t v = hw_be64(q);
			if (v != UINT64_MAX) {
				r->egress_ts = v;
				r->valid |= HW_V_EGRESS_TS;
			}
			break;
		}
		case MD_L2_PORTS: {
			uint32_t e = hw_be32(q + 4);
			if (w != UINT32_MAX || e != UINT32_MAX) {
				r->l2_ingress_port = w;
				r->l2_egress_port = e;
				r->valid |= HW_V_L2_PORTS;
			}
			break;
		}
		case MD_L2_PORTS16:
			if (w != UINT32_MAX) {
				r->l2_ingress_port = w >> 16;
				r->l2_egress_port = w & 0xffff;
				r->valid |= HW_V_L2_PORTS;
			}
			break;
		case MD_TX_UTIL:
			if (w != UINT32_MAX) {
				r->egress_tx_util = w;
				r->valid |= HW_V_TX_UTIL;
			}
			break;
		case MD_BUFFER:
			if (w != UINT32_MAX) {
				r->buffer_id = (uint8_t)(w >> 24);
				r->buffer_occupancy = w & 0xffffff;
				r->valid |= HW_V_BUFFER;
			}
			break;
		case MD_DROP:
			if (w != UINT32_MAX) {
				r->queue_id = (uint8_t)(w >> 24);
				r->drop_reason = (uint8_t)(w >> 16);
				r->valid |= HW_V_DROP;
			}
			break;
		default: break;
		}
	}
}

void hw_md_derive_latency(struct hw_record *r, bool ts32)
{
	const uint32_t need = HW_V_INGRESS_TS | HW_V_EGRESS_TS;
	if (ts32 && (r->valid & need) == need && !(r->valid & HW_V_HOP_LATENCY)) {
		r->hop_latency = (uint32_t)r->egress_ts - (uint32_t)r->ingress_ts; /* wraps mod 2^32 */
		r->valid |= HW_V_HOP_LATENCY;
	}
}
