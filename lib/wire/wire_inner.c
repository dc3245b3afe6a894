/* Packets as the collector sees them inside reports (and bare INT frames): Ethernet/VLAN/MPLS, IPv4,
 * IPv6 with extension headers, UDP/TCP, INT detection, VXLAN-GPE and Geneve carriers, RoCEv2 BTH. */
#include "wire_internal.h"

enum { ETH_IPV4 = 0x0800, ETH_IPV6 = 0x86dd, ETH_TEB = 0x6558, ETH_MPLS = 0x8847, ETH_MPLS_MC = 0x8848 };
enum { IPP_TCP = 6, IPP_UDP = 17, IPP_SCTP = 132 };
enum { MAX_VLAN_TAGS = 3, MAX_MPLS_LABELS = 8, MAX_IPV6_EXT = 8, MAX_TUNNEL_DEPTH = 1 };
enum { VXLAN_PORT = 4789 }; /* RFC 7348 */

/* Where the L4 payload is, once the headers are read. */
struct hw_l4 {
	struct hw_span payload;
	uint8_t proto;
	uint8_t has_ports;
};

static enum hw_result parse_at(struct hw_ctx *c, struct hw_span s, enum hw_l3_start start, bool strict,
                               struct hw_inner *in, int depth);

static enum hw_result cut(struct hw_ctx *c, const uint8_t *where, bool strict, enum hw_result strict_reason)
{
	return hw_fail(c, where, strict ? strict_reason : HW_E_INNER_TRUNCATED);
}

/* ::ffff:a.b.c.d, stored as two 8-byte words so the flow hash's 8-byte loads of it are forwarded
 * from the stores (a 12 + 4 byte store pair would make them wait for the stores to retire). */
static void set_v4(uint8_t dst[16], const uint8_t *a)
{
	static const uint8_t ffff[4] = {0, 0, 0xff, 0xff};
	uint8_t hi[8];
	memcpy(hi, ffff, 4);
	memcpy(hi + 4, a, 4);
	uint64_t lo = 0, h;
	memcpy(&h, hi, 8);
	memcpy(dst, &lo, 8);
	memcpy(dst + 8, &h, 8);
}

/* IPv4 at s[off]: header checks, flow addresses, traffic class; *l3_end = end of the datagram. */
static enum hw_result parse_ipv4(struct hw_ctx *c, struct hw_span s, size_t off, bool strict, struct hw_inner *in,
                                 size_t *l4_off, size_t *l3_end, uint8_t *proto, bool *l4_ok)
{
	const uint8_t *ip = hw_at(s, off, 20);
	if (!ip)
		return cut(c, s.p + off, strict, HW_E_IP_TRUNCATED);
	unsigned ihl = (ip[0] & 0x0f) * 4u;
	if ((ip[0] >> 4) != 4 || ihl < 20)
		return hw_fail(c, ip, HW_E_IP_HEADER);
	if (!hw_at(s, off, ihl))
		return cut(c, ip, strict, HW_E_IP_TRUNCATED);
	size_t tot = hw_be16(ip + 2);
	if (strict) {
		if (tot < ihl || tot > s.len - off)
			return hw_fail(c, ip, HW_E_IP_HEADER);
		*l3_end = off + tot;
	} else {
		/* A truncated copy: trust total length only to cut off padding after it. */
		*l3_end = (tot >= ihl && tot <= s.len - off) ? off + tot : s.len;
	}
	in->tmpl.dscp = ip[1] >> 2;
	in->tmpl.ecn = ip[1] & 3;
	in->tmpl.valid |= HW_V_TCLASS;
	set_v4(in->tmpl.src_ip, ip + 12);
	set_v4(in->tmpl.dst_ip, ip + 16);
	*proto = ip[9];
	*l4_off = off + ihl;
	*l4_ok = (hw_be16(ip + 6) & 0x1fff) == 0; /* later fragments carry no L4 header */
	return HW_OK;
}

/* IPv6 at s[off], skipping extension headers. */
static enum hw_result parse_ipv6(struct hw_ctx *c, struct hw_span s, size_t off, bool strict, struct hw_inner *in,
                                 size_t *l4_off, size_t *l3_end, uint8_t *proto, bool *l4_ok)
{
	const uint8_t *ip = hw_at(s, off, 40);
	if (!ip)
		return cut(c, s.p + off, strict, HW_E_IP_TRUNCATED);
	if ((ip[0] >> 4) != 6)
		return hw_fail(c, ip, HW_E_IP_HEADER);
	size_t plen = hw_be16(ip + 4);
	if (strict) {
		if (plen > s.len - off - 40)
			return hw_fail(c, ip, HW_E_IP_HEADER);
		*l3_end = off + 40 + plen;
	} else {
		*l3_end = (plen <= s.len - off - 40) ? off + 40 + plen : s.len;
	}
	unsigned tc = (hw_be16(ip) >> 4) & 0xff;
	in->tmpl.dscp = (uint8_t)(tc >> 2);
	in->tmpl.ecn = tc & 3;
	in->tmpl.valid |= HW_V_TCLASS;
	memcpy(in->tmpl.src_ip, ip + 8, 16);
	memcpy(in->tmpl.dst_ip, ip + 24, 16);

	struct hw_span l3 = {s.p, *l3_end};
	uint8_t nh = ip[6];
	size_t pos = off + 40;
	*l4_ok = true;
	for (int i = 0; i < MAX_IPV6_EXT; i++) {
		const uint8_t *e;
		size_t elen;
		switch (nh) {
		case 0:   /* hop-by-hop options */
		case 43:  /* routing */
		case 60:  /* destination options */
		case 135: /* mobility */
		case 139: /* HIP */
		case 140: /* shim6 */
			if (!(e = hw_at(l3, pos, 2)))
				return cut(c, s.p + pos, strict, HW_E_IP_TRUNCATED);
			elen = ((size_t)e[1] + 1) * 8;
			break;
		case 51: /* authentication header */
			if (!(e = hw_at(l3, pos, 2)))
				return cut(c, s.p + pos, strict, HW_E_IP_TRUNCATED);
			elen = ((size_t)e[1] + 2) * 4;
			break;
		case 44: /* fragment */
			if (!(e = hw_at(l3, pos, 8)))
				return cut(c, s.p + pos, strict, HW_E_IP_TRUNCATED);
			elen = 8;
			if (hw_be16(e + 2) >> 3)
				*l4_ok = false;
			break;
		default: goto done;
		}
		if (!hw_at(l3, pos, elen))
			return cut(c, s.p + pos, strict, HW_E_IP_TRUNCATED);
		nh = e[0];
		pos += elen;
	}
done:
	*proto = nh;
	*l4_off = pos;
	if (nh == 59) /* no next header */
		*l4_ok = false;
	return HW_OK;
}

/* L2 (optional), L3 and the L4 header: fills the flow template and returns the L4 payload. */
static enum hw_result parse_headers(struct hw_ctx *c, struct hw_span s, enum hw_l3_start start, bool strict,
                                    struct hw_inner *in, struct hw_l4 *l4)
{
	size_t off = 0;
	unsigned ethertype = start == HW_START_IPV6 ? ETH_IPV6 : ETH_IPV4;
	l4->proto = 0;
	l4->has_ports = 0;
	l4->payload = (struct hw_span){s.p + s.len, 0};

	if (start == HW_START_ETH) {
		const uint8_t *eth = hw_at(s, 0, 14);
		if (!eth)
			return cut(c, s.p, strict, HW_E_L2_TRUNCATED);
		ethertype = hw_be16(eth + 12);
		off = 14;
		for (int i = 0;
		     i < MAX_VLAN_TAGS && (ethertype == 0x8100 || ethertype == 0x88a8 || ethertype == 0x9100); i++) {
			const uint8_t *tag = hw_at(s, off, 4);
			if (!tag)
				return cut(c, s.p + off, strict, HW_E_L2_TRUNCATED);
			ethertype = hw_be16(tag + 2);
			off += 4;
		}
		/* An MPLS label stack (RFC 3032): label:20 TC:3 S:1 TTL:8 per entry, S set on the last one.
		 * Below it, IP by its version nibble (RFC 4385's first-nibble rule); anything else (a
		 * pseudowire control word, more than MAX_MPLS_LABELS entries) is not IP. */
		if (ethertype == ETH_MPLS || ethertype == ETH_MPLS_MC) {
			ethertype = 0;
			for (int i = 0; i < MAX_MPLS_LABELS; i++) {
				const uint8_t *lse = hw_at(s, off, 4);
				if (!lse)
					return cut(c, s.p + off, strict, HW_E_L2_TRUNCATED);
				off += 4;
				if (lse[2] & 1) {
					const uint8_t *v = hw_at(s, off, 1);
					if (!v)
						return cut(c, s.p + off, strict, HW_E_L2_TRUNCATED);
					ethertype = v[0] >> 4 == 4 ? ETH_IPV4 : v[0] >> 4 == 6 ? ETH_IPV6 : 0;
					break;
				}
			}
		}
	}

	size_t l4_off, l3_end;
	uint8_t proto;
	bool l4_ok;
	enum hw_result r;
	if (ethertype == ETH_IPV4)
		r = parse_ipv4(c, s, off, strict, in, &l4_off, &l3_end, &proto, &l4_ok);
	else if (ethertype == ETH_IPV6)
		r = parse_ipv6(c, s, off, strict, in, &l4_off, &l3_end, &proto, &l4_ok);
	else
		return strict ? HW_NOT_REPORT : HW_OK; /* not IP: no flow */
	if (r != HW_OK)
		return r;

	in->tmpl.ip_proto = proto;
	in->tmpl.valid |= HW_V_FLOW;
	l4->proto = proto;
	struct hw_span l3 = {s.p, l3_end};
	if (!l4_ok || (proto != IPP_UDP && proto != IPP_TCP)) {
		l4->payload = (struct hw_span){s.p + l4_off, l3_end - l4_off};
		/* SCTP's common header starts with the two ports as UDP's and TCP's do (RFC 9260 3.1) */
		const uint8_t *sc = proto == IPP_SCTP && l4_ok ? hw_at(l3, l4_off, 4) : NULL;
		if (sc) {
			in->tmpl.src_port = hw_be16(sc);
			in->tmpl.dst_port = hw_be16(sc + 2);
		}
		return HW_OK;
	}
	if (proto == IPP_UDP) {
		const uint8_t *u = hw_at(l3, l4_off, 8);
		if (!u)
			return cut(c, s.p + l4_off, strict, HW_E_L4_TRUNCATED);
		size_t ulen = hw_be16(u + 4), avail = l3_end - l4_off;
		if (strict && (ulen < 8 || ulen > avail))
			return hw_fail(c, u, HW_E_UDP_LENGTH);
		if (!strict && (ulen < 8 || ulen > avail))
			ulen = avail;
		in->tmpl.src_port = hw_be16(u);
		in->tmpl.dst_port = hw_be16(u + 2);
		l4->payload = (struct hw_span){u + 8, ulen - 8};
	} else {
		const uint8_t *t = hw_at(l3, l4_off, 20);
		if (!t)
			return cut(c, s.p + l4_off, strict, HW_E_L4_TRUNCATED);
		size_t doff = (size_t)(t[12] >> 4) * 4;
		if (doff < 20 || !hw_at(l3, l4_off, doff))
			return cut(c, t, strict, HW_E_L4_TRUNCATED);
		in->tmpl.src_port = hw_be16(t);
		in->tmpl.dst_port = hw_be16(t + 2);
		l4->payload = (struct hw_span){t + doff, l3_end - l4_off - doff};
	}
	l4->has_ports = 1;
	return HW_OK;
}

/* The packet a tunnel carries: its flow replaces the tunnel's own (the tenant flow is what an
 * operator asks about).  A cut tunneled packet keeps the outer flow. */
static void tunneled_flow(struct hw_ctx *c, struct hw_span s, enum hw_l3_start start, struct hw_inner *in, int depth)
{
	if (depth >= MAX_TUNNEL_DEPTH)
		return;
	struct hw_inner t;
	hw_inner_clear(&t);
	uint32_t saved_err = c->out->err_offset;
	if (parse_at(c, s, start, false, &t, depth + 1) == HW_OK && (t.tmpl.valid & HW_V_FLOW)) {
		const uint32_t keep = HW_V_FLOW | HW_V_TCLASS | HW_V_ROCE;
		memcpy(in->tmpl.src_ip, t.tmpl.src_ip, 16);
		memcpy(in->tmpl.dst_ip, t.tmpl.dst_ip, 16);
		in->tmpl.src_port = t.tmpl.src_port;
		in->tmpl.dst_port = t.tmpl.dst_port;
		in->tmpl.ip_proto = t.tmpl.ip_proto;
		in->tmpl.dscp = t.tmpl.dscp;
		in->tmpl.ecn = t.tmpl.ecn;
		in->tmpl.roce_opcode = t.tmpl.roce_opcode;
		in->tmpl.roce_dest_qp = t.tmpl.roce_dest_qp;
		in->tmpl.valid = (in->tmpl.valid & ~keep) | (t.tmpl.valid & keep);
	}
	c->out->err_offset = saved_err;
}

static enum hw_l3_start start_from_gpe(unsigned np, bool *ok)
{
	*ok = true;
	switch (np) {
	case 0x01: return HW_START_IPV4;
	case 0x02: return HW_START_IPV6;
	case 0x03: return HW_START_ETH;
	default: *ok = false; return HW_START_ETH;
	}
}

/* VXLAN-GPE: next protocol 0x82 (INT v2.x shim), 0x08 (v1.0) or 0x05 (v0.5) announces INT. */
static enum hw_result parse_gpe(struct hw_ctx *c, struct hw_span pl, struct hw_inner *in, int depth)
{
	const uint8_t *g = hw_at(pl, 0, 8);
	if (!g)
		return hw_fail(c, pl.p, HW_E_INNER_TRUNCATED);
	unsigned np = g[3];
	size_t next_off = 8;
	if (np == 0x82 || np == 0x08 || np == 0x05) {
		const uint8_t *sh = hw_at(pl, 8, 4);
		if (!sh)
			return hw_fail(c, pl.p + 8, HW_E_INT_LENGTH);
		unsigned type;
		size_t md_len;
		if (np == 0x82) { /* type:4 rsvd:4 | length (words after the shim) | G rsvd | next protocol */
			type = sh[0] >> 4;
			md_len = (size_t)sh[1] * 4;
		} else { /* type:8 | rsvd | length (words, counting the shim) | next protocol */
			type = sh[0];
			if (sh[2] < 1)
				return hw_fail(c, sh, HW_E_INT_LENGTH);
			md_len = (size_t)sh[2] * 4 - 4;
		}
		if (!hw_at(pl, 12, md_len))
			return hw_fail(c, sh, HW_E_INT_LENGTH);
		if (type == 1) {
			enum hw_result r = hw_intmd_parse_md(c, hw_tail(pl, 12), md_len, in);
			if (r != HW_OK)
				return r;
		}
		np = sh[3];
		next_off = 12 + md_len;
	}
	bool ok;
	enum hw_l3_start st = start_from_gpe(np, &ok);
	if (ok)
		tunneled_flow(c, hw_tail(pl, next_off), st, in, depth);
	return HW_OK;
}

/* Geneve option types of the INT class (INT v2.1, INT over Geneve: the shim types); the type byte's high
 * bit is Geneve's critical flag (RFC 8926 3.5), not part of the type. */
#define GENEVE_INT_MD 1u

/* Geneve: an INT-MD option of the INT class carries the metadata header and stack; other INT option
 * types (INT-Destination, INT-MX) carry no hop and are passed over. */
static enum hw_result parse_geneve(struct hw_ctx *c, struct hw_span pl, struct hw_inner *in, int depth)
{
	const uint8_t *h = hw_at(pl, 0, 8);
	if (!h)
		return hw_fail(c, pl.p, HW_E_INNER_TRUNCATED);
	size_t opt_len = (size_t)(h[0] & 0x3f) * 4;
	unsigned ptype = hw_be16(h + 2);
	const uint8_t *opts = hw_at(pl, 8, opt_len);
	if (!opts)
		return hw_fail(c, h, HW_E_INNER_TRUNCATED);
	struct hw_span os = {opts, opt_len};
	size_t pos = 0;
	bool found = false;
	while (pos < opt_len) {
		const uint8_t *o = hw_at(os, pos, 4);
		if (!o)
			return hw_fail(c, opts + pos, HW_E_INT_LENGTH);
		size_t dl = (size_t)(o[3] & 0x1f) * 4;
		if (!hw_at(os, pos + 4, dl))
			return hw_fail(c, o, HW_E_INT_LENGTH);
		if (!found && hw_be16(o) == c->cfg->geneve_int_class && (o[2] & 0x7fu) == GENEVE_INT_MD) {
			enum hw_result r = hw_intmd_parse_md(c, hw_tail(os, pos + 4), dl, in);
			if (r != HW_OK)
				return r;
			found = true;
		}
		pos += 4 + dl;
	}
	if (ptype == ETH_TEB)
		tunneled_flow(c, hw_tail(pl, 8 + opt_len), HW_START_ETH, in, depth);
	else if (ptype == ETH_IPV4 || ptype == ETH_IPV6)
		tunneled_flow(c, hw_tail(pl, 8 + opt_len), ptype == ETH_IPV4 ? HW_START_IPV4 : HW_START_IPV6, in,
		              depth);
	return HW_OK;
}

/* The L4 payload: INT by UDP port, tunnel or DSCP, then the RoCEv2 BTH after it. */
static enum hw_result parse_payload(struct hw_ctx *c, struct hw_inner *in, const struct hw_l4 *l4, int depth)
{
	const struct hw_parser_config *cfg = c->cfg;
	struct hw_span pl = l4->payload;
	size_t used = 0;
	enum hw_result r = HW_OK;
	uint16_t dport = in->tmpl.dst_port;

	if (depth == 0 && l4->proto == IPP_UDP && hw_port_listed(cfg->int_ports, cfg->n_int_ports, dport)) {
		uint8_t ip_dscp = in->tmpl.dscp;
		r = hw_intmd_parse(c, pl, in, &used);
		in->tmpl.dscp = ip_dscp; /* detected by port: the DSCP on the wire is the original */
		if (in->has_tail)
			in->tmpl.dst_port = in->tail_dport; /* v0.5: the tail keeps the original port */
	} else if (depth == 0 && l4->proto == IPP_UDP && cfg->vxlan_gpe_port && dport == cfg->vxlan_gpe_port) {
		return parse_gpe(c, pl, in, depth);
	} else if (depth == 0 && l4->proto == IPP_UDP && cfg->geneve_port && dport == cfg->geneve_port) {
		return parse_geneve(c, pl, in, depth);
	} else if (depth == 0 && cfg->int_dscp_mask && (in->tmpl.dscp & cfg->int_dscp_mask) == cfg->int_dscp) {
		r = hw_intmd_parse(c, pl, in, &used); /* restores the original DSCP from the shim or tail */
	}
	if (r != HW_OK)
		return r;

	/* VXLAN (RFC 7348: flags with I set, VNI), also when INT over UDP (NPT 1) restored its port: the
	 * flow is the tenant packet's, as for VXLAN-GPE and Geneve (docs/records.md) */
	/* the original protocol (v2.1 NPT 2 keeps it in the shim; else the header's): a UDP payload */
	const bool udp = in->tmpl.ip_proto == IPP_UDP;
	if (depth == 0 && udp && in->tmpl.dst_port == VXLAN_PORT) {
		const uint8_t *vx = hw_at(pl, used, 8);
		if (vx && (vx[0] & 0x08))
			tunneled_flow(c, hw_tail(pl, used + 8), HW_START_ETH, in, depth);
		return HW_OK;
	}

	if (udp && cfg->roce_port && in->tmpl.dst_port == cfg->roce_port) {
		const uint8_t *bth = hw_at(pl, used, 12);
		if (bth) {
			in->tmpl.roce_opcode = bth[0];
			in->tmpl.roce_dest_qp = hw_be24(bth + 5);
			in->tmpl.valid |= HW_V_ROCE;
		}
	}
	return HW_OK;
}

static enum hw_result parse_at(struct hw_ctx *c, struct hw_span s, enum hw_l3_start start, bool strict,
                               struct hw_inner *in, int depth)
{
	struct hw_l4 l4;
	enum hw_result r = parse_headers(c, s, start, strict, in, &l4);
	if (r != HW_OK || !(in->tmpl.valid & HW_V_FLOW))
		return r;
	if (l4.has_ports) {
		r = parse_payload(c, in, &l4, depth);
		if (r != HW_OK)
			return r;
	}
	return HW_OK;
}

/* Flattened: the header walk, the INT detection and the stack checks are one function on the hot
 * path of every report (the calls between them cost about a tenth of a report's instructions). */
__attribute__((flatten)) enum hw_result hw_inner_parse(struct hw_ctx *c, struct hw_span s, enum hw_l3_start start,
                                                       bool strict, struct hw_inner *in)
{
	enum hw_result r = parse_at(c, s, start, strict, in, 0);
	/* A cut copy (HW_E_INNER_TRUNCATED) keeps the flow keys read before the cut */
	if ((r == HW_OK || r == HW_E_INNER_TRUNCATED) && (in->tmpl.valid & HW_V_FLOW))
		in->tmpl.flow_hash = hw_flow_hash(in->tmpl.src_ip, in->tmpl.dst_ip, in->tmpl.ip_proto,
		                                  in->tmpl.src_port, in->tmpl.dst_port);
	return r;
}

HW_HOT_CLONES enum hw_result hw_frame_parse(struct hw_ctx *c, struct hw_span s, struct hw_inner *in,
                                            struct hw_span *report)
{
	struct hw_l4 l4;
	report->p = NULL;
	report->len = 0;
	enum hw_result r = parse_headers(c, s, HW_START_ETH, true, in, &l4);
	if (r != HW_OK)
		return r;
	if (!(in->tmpl.valid & HW_V_FLOW) || !l4.has_ports)
		return HW_NOT_REPORT;
	const struct hw_parser_config *cfg = c->cfg;
	if (l4.proto == IPP_UDP && hw_port_listed(cfg->report_ports, cfg->n_report_ports, in->tmpl.dst_port)) {
		*report = l4.payload;
		return HW_OK;
	}
	if (!cfg->bare_int)
		return HW_NOT_REPORT;
	r = parse_payload(c, in, &l4, 0);
	if (r != HW_OK)
		return r;
	if (!in->stack.version)
		return HW_NOT_REPORT;
	in->tmpl.flow_hash =
	    hw_flow_hash(in->tmpl.src_ip, in->tmpl.dst_ip, in->tmpl.ip_proto, in->tmpl.src_port, in->tmpl.dst_port);
	return HW_OK;
}
