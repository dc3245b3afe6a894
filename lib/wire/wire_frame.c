/* The parser's entry points: a received Ethernet frame or a report's UDP payload in, records out.
 * Dispatches on the report version and keeps the all-or-nothing output promise. */
#include "wire_internal.h"

static void ctx_init(struct hw_ctx *c, const struct hw_parser_config *cfg, struct hw_parse_out *out,
                     const uint8_t *base, uint64_t time_ns)
{
	c->cfg = cfg;
	c->out = out;
	c->base = base;
	c->time_ns = time_ns;
	out->n_recs = 0;
	out->n_reps = 0;
	out->err_offset = 0;
}

static enum hw_result finish(struct hw_ctx *c, enum hw_result r)
{
	if (r != HW_OK) {
		c->out->n_recs = 0;
		c->out->n_reps = 0;
	}
	return r;
}

static enum hw_result dispatch_report(struct hw_ctx *c, struct hw_span s)
{
	const uint8_t *v = hw_at(s, 0, 1);
	if (!v)
		return hw_fail(c, s.p, HW_E_REPORT_TRUNCATED);
	switch (v[0] >> 4) {
	case 0: return hw_parse_tr05(c, s);
	case 1: return hw_parse_tr1(c, s);
	case 2: return hw_parse_tr2(c, s);
	default: return hw_fail(c, v, HW_E_REPORT_VERSION);
	}
}

enum hw_result hw_parse_report(const struct hw_parser_config *cfg, const uint8_t *payload, size_t len, uint64_t time_ns,
                               struct hw_parse_out *out)
{
	struct hw_ctx c;
	ctx_init(&c, cfg, out, payload, time_ns);
	return finish(&c, dispatch_report(&c, (struct hw_span){payload, len}));
}

/* The common outer stack of a report, Ethernet (no VLAN) / IPv4 (no options, not a fragment) / UDP
 * to a report port, with lengths that agree: checked as one 42-byte window, and *report set to the
 * UDP payload.  Anything else returns false and takes the generic walk, which gives the same
 * payload for these frames and the errors for the others. */
static bool outer_fast(const struct hw_parser_config *cfg, struct hw_span s, struct hw_span *report)
{
	enum { ETH = 14, IP = 20, UDP = 8 };
	const uint8_t *h = hw_at(s, 0, ETH + IP + UDP);
	if (!h || hw_be16(h + 12) != 0x0800 || h[ETH] != 0x45 || h[ETH + 9] != 17 || (hw_be16(h + ETH + 6) & 0x1fff))
		return false;
	size_t tot = hw_be16(h + ETH + 2), ulen = hw_be16(h + ETH + IP + 4);
	if (tot < IP + UDP || tot > s.len - ETH || ulen < UDP || ulen > tot - IP)
		return false;
	if (!hw_port_listed(cfg->report_ports, cfg->n_report_ports, hw_be16(h + ETH + IP + 2)))
		return false;
	*report = (struct hw_span){h + ETH + IP + UDP, ulen - UDP};
	return true;
}

/* Every frame outer_fast() does not take: the generic walk, then a report or a bare INT packet.
 * Kept out of line so the fast path does not pay for its stack frame. */
static __attribute__((noinline)) enum hw_result parse_frame_generic(struct hw_ctx *c, struct hw_span s)
{
	struct hw_inner in;
	hw_inner_clear(&in);
	struct hw_span report;
	enum hw_result r = hw_frame_parse(c, s, &in, &report);
	if (r != HW_OK)
		return r;
	if (report.p)
		return dispatch_report(c, report);

	/* A bare INT-MD data packet: no report header; the newest hop stands for the sender. */
	struct hw_report_meta m = {0};
	m.format = HW_FORMAT_INT;
	if (in.stack.n_hops && in.stack.plan->off[MD_NODE] >= 0) {
		const uint8_t *node = in.stack.newest + in.stack.plan->off[MD_NODE];
		uint32_t id = hw_be32(node);
		m.node = id == UINT32_MAX ? 0 : id;
	}
	return hw_emit(c, &m, &in, NULL);
}

enum hw_result hw_parse_frame(const struct hw_parser_config *cfg, const uint8_t *frame, size_t len, uint64_t time_ns,
                              struct hw_parse_out *out)
{
	struct hw_ctx c;
	ctx_init(&c, cfg, out, frame, time_ns);
	struct hw_span s = {frame, len}, report;
	if (outer_fast(cfg, s, &report))
		return finish(&c, dispatch_report(&c, report));
	return finish(&c, parse_frame_generic(&c, s));
}
