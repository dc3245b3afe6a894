/* The data packet a report carries (or a bare INT packet): Ethernet, IPv4/IPv6, UDP/TCP, the INT-MD
 * stack over L4 or behind VXLAN-GPE / Geneve, and a RoCEv2 BTH for UDP 4791 flows. */
#include <string.h>

#include "bytes.h"
#include "gen.h"
#include "hopwatch/wire.h"

static const uint8_t host_mac_a[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0x01};
static const uint8_t host_mac_b[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0x02};

uint8_t *gen_eth(uint8_t *p, const uint8_t dst[6], const uint8_t src[6], uint16_t ethertype)
{
	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	return gen_put16(p + 12, ethertype);
}

uint16_t gen_ip_checksum(const uint8_t *h, size_t len)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* IPv4 header without options; total length and checksum are filled by fix_ip4(). */
static uint8_t *ip4(uint8_t *p, const uint8_t src[4], const uint8_t dst[4], uint8_t proto, uint8_t dscp, uint8_t ecn)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	p[1] = (uint8_t)(dscp << 2 | ecn);
	p[6] = 0x40; /* DF */
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	return p + 20;
}

static void fix_ip4(uint8_t *ip, size_t total)
{
	gen_put16(ip + 2, (uint32_t)total);
	ip[10] = ip[11] = 0;
	gen_put16(ip + 10, gen_ip_checksum(ip, 20));
}

static uint8_t *ip6(uint8_t *p, const uint8_t src[16], const uint8_t dst[16], uint8_t proto, uint8_t dscp, uint8_t ecn)
{
	uint8_t tc = (uint8_t)(dscp << 2 | ecn);
	memset(p, 0, 40);
	p[0] = (uint8_t)(0x60 | tc >> 4);
	p[1] = (uint8_t)(tc << 4);
	p[6] = proto;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	return p + 40;
}

static uint8_t *udp(uint8_t *p, uint16_t sport, uint16_t dport)
{
	gen_put16(p, sport);
	gen_put16(p + 2, dport);
	gen_put32(p + 4, 0); /* length filled later, checksum 0 */
	return p + 8;
}

static uint8_t *tcp(uint8_t *p, uint16_t sport, uint16_t dport, uint32_t seq)
{
	memset(p, 0, 20);
	gen_put16(p, sport);
	gen_put16(p + 2, dport);
	gen_put32(p + 4, seq);
	p[12] = 5 << 4;
	p[13] = 0x18; /* PSH ACK */
	gen_put16(p + 14, 0xffff);
	return p + 20;
}

/* RoCEv2 Base Transport Header, 12 bytes: opcode, SE/M/pad/tver, P_Key, F/B/rsvd, dest QP (24),
 * A/rsvd, PSN (24). */
static uint8_t *bth(uint8_t *p, uint8_t opcode, uint32_t qp, uint32_t psn)
{
	p[0] = opcode;
	p[1] = 0;
	gen_put16(p + 2, 0xffff);
	p[4] = 0;
	gen_put24(p + 5, qp);
	p[8] = 0;
	gen_put24(p + 9, psn);
	return p + 12;
}

static uint8_t *payload(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, int roce)
{
	unsigned n = cfg->payload;
	if (roce) {
		p = bth(p, r->roce_opcode, r->flow->qp, r->psn);
		n = n > 12 ? n - 12 : 0;
	}
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(0x41 + i % 26);
	return p + n;
}

static int has_int(const struct gen_cfg *cfg, const struct gen_report *r)
{
	return cfg->int_ver != GEN_INT_NONE && r->n_stack > 0;
}

/* VXLAN-GPE or Geneve carrying INT (by version) and the tenant frame. */
static uint8_t *tunnel(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, const uint8_t *base,
                       struct gen_marks *m)
{
	const struct gen_flow *f = r->flow;
	int first = m && !m->shim_off;
	uint8_t *shim;
	if (cfg->encap == GEN_ENCAP_VXLAN_GPE) {
		/* R R Ver:2 I P B O | rsvd:16 | next protocol:8 | VNI:24 rsvd:8 */
		uint8_t np_int = cfg->int_ver == GEN_INT_V21 ? 0x82 : cfg->int_ver == GEN_INT_V10 ? 0x08 : 0x05;
		p[0] = 0x0c;
		p[1] = p[2] = 0;
		p[3] = has_int(cfg, r) ? np_int : 0x03;
		gen_put24(p + 4, 0x1000 + (f->sport & 0xff));
		p[7] = 0;
		p += 8;
		if (has_int(cfg, r)) {
			shim = p;
			uint8_t *end = gen_int_md_stack(cfg, r, shim + 4, base, m);
			size_t md_stack = (size_t)(end - (shim + 4));
			if (cfg->int_ver == GEN_INT_V21) {
				/* type:4 rsvd:4 length:8 (words excluding the shim) G:1 rsvd:7 next protocol:8 */
				shim[0] = 1 << 4;
				shim[1] = (uint8_t)(md_stack / 4);
				shim[2] = 0;
				if (first)
					m->shim_kind = GEN_SHIM_21_GPE;
			} else {
				/* type:8 rsvd:8 length:8 (words including the shim) next protocol:8 */
				shim[0] = 1;
				shim[1] = 0;
				shim[2] = (uint8_t)(md_stack / 4 + 1);
				if (first)
					m->shim_kind = GEN_SHIM_10_GPE;
			}
			shim[3] = 0x03; /* Ethernet follows */
			if (first)
				m->shim_off = (uint16_t)(shim - base);
			p = end;
		}
	} else {
		/* Geneve: ver:2 opt_len:6 | O C rsvd:6 | protocol type:16 | VNI:24 rsvd:8, then options */
		size_t opt = has_int(cfg, r) ? 4 + gen_int_md_stack_bytes(cfg, r) : 0;
		p[0] = (uint8_t)(opt / 4);
		p[1] = 0;
		gen_put16(p + 2, 0x6558);
		gen_put24(p + 4, 0x2000 + (f->sport & 0xff));
		p[7] = 0;
		p += 8;
		if (has_int(cfg, r)) {
			/* option class:16 | type:8 | R R R length:5 (words of option data) */
			shim = p;
			gen_put16(shim, 0x0103);
			shim[2] = 1; /* INT-MD (hop-by-hop) */
			shim[3] = (uint8_t)((opt - 4) / 4);
			p = gen_int_md_stack(cfg, r, shim + 4, base, m);
			if (first) {
				m->shim_kind = GEN_SHIM_GENEVE;
				m->shim_off = (uint16_t)(shim - base);
			}
		}
	}
	/* tenant frame: Ethernet / IPv4 / UDP or TCP / payload */
	p = gen_eth(p, host_mac_b, host_mac_a, 0x0800);
	uint8_t *tip = p;
	p = ip4(p, f->t_src, f->t_dst, f->t_proto, f->dscp, f->ecn);
	uint8_t *tl4 = p;
	if (f->t_proto == 17)
		p = udp(p, f->t_sport, f->t_dport);
	else
		p = tcp(p, f->t_sport, f->t_dport, r->psn);
	p = payload(cfg, r, p, 0);
	if (f->t_proto == 17)
		gen_put16(tl4 + 4, (uint32_t)(p - tl4));
	fix_ip4(tip, (size_t)(p - tip));
	return p;
}

uint8_t *gen_data_packet(const struct gen_cfg *cfg, const struct gen_report *r, uint8_t *p, const uint8_t *base,
                         struct gen_marks *m, int with_eth, int truncated, unsigned pad_to)
{
	const struct gen_flow *f = r->flow;
	const int tun = cfg->encap != GEN_ENCAP_L4;
	const int by_dscp = has_int(cfg, r) && !tun && cfg->detect == GEN_DETECT_DSCP;
	const uint8_t dscp = by_dscp ? cfg->int_dscp : f->dscp;
	const uint8_t ecn = r->ecn_ce                                     ? 3
	                    : by_dscp && cfg->profile == HW_PROFILE_GEANT ? 0
	                                                                  : f->ecn; /* GEANT: TOS = 0x80 */
	uint8_t *start = p;
	if (with_eth)
		p = gen_eth(p, host_mac_b, host_mac_a, f->ipv6 ? 0x86dd : 0x0800);
	uint8_t *ip = p;
	if (f->ipv6)
		p = ip6(p, f->src_ip, f->dst_ip, f->proto, dscp, ecn);
	else
		p = ip4(p, f->src_ip + 12, f->dst_ip + 12, f->proto, dscp, ecn);
	if (r->ttl)
		ip[f->ipv6 ? 7 : 8] = r->ttl;
	uint8_t *l4 = p;
	const int roce = f->roce && !tun;
	if (f->proto == 17) {
		uint16_t dport = f->vis_dport;
		if (has_int(cfg, r) && !tun && cfg->detect == GEN_DETECT_PORT)
			dport = cfg->int_port;
		p = udp(p, f->vis_sport, dport);
	} else {
		p = tcp(p, f->vis_sport, f->vis_dport, r->psn);
	}
	if (tun)
		p = tunnel(cfg, r, p, base, m);
	else {
		if (has_int(cfg, r))
			p = gen_int_l4(cfg, r, p, base, m, f->dscp);
		p = payload(cfg, r, p, roce);
	}
	size_t extra = 0;
	if (truncated && cfg->orig_payload > cfg->payload)
		extra = (size_t)(cfg->orig_payload - cfg->payload);
	if (f->proto == 17)
		gen_put16(l4 + 4, (uint32_t)((size_t)(p - l4) + extra));
	if (f->ipv6)
		gen_put16(ip + 4, (uint32_t)((size_t)(p - l4) + extra));
	else
		fix_ip4(ip, (size_t)(p - ip) + extra);
	if (pad_to > 1)
		while ((size_t)(p - start) % pad_to)
			*p++ = 0;
	if (m && m->shim_off && !m->inner_end)
		m->inner_end = (uint16_t)(p - base);
	return p;
}
