/* The outer Ethernet/IPv4/UDP headers of a telemetry report packet, from the sender node to the
 * collector, and the frame builder that dispatches to the report format's encoder. */
#include <string.h>

#include "bytes.h"
#include "gen.h"

static const uint8_t collector_mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x64};

void gen_outer_begin(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	uint8_t *p = k->buf;
	uint32_t a = k->node_idx + 1;
	uint8_t src_mac[6] = {0x02, 0x00, 0x0a, (uint8_t)(a >> 16), (uint8_t)(a >> 8), (uint8_t)a};
	if (cfg->p4) {
		/* report_encap of p4/cli/: from 00:00:0a:00:<node>:03 (port 3) to the collector's MAC */
		static const uint8_t p4_collector_mac[6] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x64};
		const uint8_t p4_src[6] = {0x00, 0x00, 0x0a, 0x00, (uint8_t)a, 0x03};
		p = gen_eth(p, p4_collector_mac, p4_src, 0x0800);
	} else
		p = gen_eth(p, collector_mac, src_mac, 0x0800);
	memset(p, 0, 28);
	p[0] = 0x45;
	gen_put16(p + 4, cfg->p4 ? 0 : k->seq & 0xffff); /* identification */
	p[6] = 0x40;                                     /* DF */
	p[8] = 64;
	p[9] = 17;
	p[12] = cfg->sender_net[0];
	p[13] = cfg->sender_net[1];
	p[14] = (uint8_t)(cfg->sender_net[2] + (a >> 8));
	p[15] = (uint8_t)(cfg->sender_net[3] + a);
	memcpy(p + 16, cfg->collector_ip, 4);
	uint16_t sport;
	if (cfg->src_port >= 0)
		sport = (uint16_t)cfg->src_port;
	else if (cfg->p4)
		sport = (uint16_t)(GEN_P4_SRC_PORT + a); /* 50001, 50002, 50003 in p4/cli */
	else if (cfg->format == GEN_FMT_TR05)
		sport = 0; /* fabric-tna */
	else
		sport = (uint16_t)(49152 + (k->node_idx & 0x3fff));
	gen_put16(p + 20, sport);
	gen_put16(p + 22, cfg->dst_port);
	memset(&k->marks, 0, sizeof(k->marks));
	k->marks.ip_off = 14;
	k->marks.udp_off = 34;
	k->marks.payload_off = 42;
	k->len = 42;
}

void gen_outer_finish(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	(void)cfg;
	uint8_t *ip = k->buf + 14;
	gen_put16(ip + 2, (uint32_t)(k->len - 14));
	ip[10] = ip[11] = 0;
	gen_put16(ip + 10, gen_ip_checksum(ip, 20));
	gen_put16(k->buf + 38, (uint32_t)(k->len - 34));
	k->marks.len = (uint16_t)k->len;
}

/* A bare INT-MD data packet as the sink receives it (no report around it). */
void gen_int_build(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	memset(&k->marks, 0, sizeof(k->marks));
	const struct gen_report *r = &k->reps[0];
	uint8_t *end = gen_data_packet(cfg, r, k->buf, k->buf, &k->marks, 1, 0, 0);
	k->len = (size_t)(end - k->buf);
	k->marks.ip_off = 14;
	k->marks.udp_off = r->flow->proto == 17 ? (uint16_t)(14 + (r->flow->ipv6 ? 40 : 20)) : 0;
	k->marks.payload_off = (uint16_t)(14 + (r->flow->ipv6 ? 40 : 20) + (r->flow->proto == 17 ? 8 : 20));
	k->marks.inner_end = (uint16_t)k->len;
	k->marks.len = (uint16_t)k->len;
}

void gen_build_frame(const struct gen_cfg *cfg, struct gen_pkt *k)
{
	switch (cfg->format) {
	case GEN_FMT_TR20:
		gen_tr2_begin(cfg, k);
		for (unsigned i = 0; i < k->n_reps; i++)
			gen_tr2_add(cfg, k, &k->reps[i]);
		gen_tr2_close(cfg, k);
		gen_outer_finish(cfg, k);
		break;
	case GEN_FMT_TR10: gen_tr1_build(cfg, k); break;
	case GEN_FMT_TR05: gen_tr05_build(cfg, k); break;
	case GEN_FMT_INT: gen_int_build(cfg, k); break;
	}
}
