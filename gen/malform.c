/* Deliberate malformations applied to a built frame: each kind breaks one length, version or
 * header so that a correct collector rejects the whole packet (and the truth gets no records). */
#include <string.h>

#include "bytes.h"
#include "gen.h"
#include "hopwatch/wire.h"

static const char *const names[GEN_M_COUNT] = {
    [GEN_M_NONE] = "none",
    [GEN_M_TRUNCATE] = "truncate",
    [GEN_M_REPORT_LENGTH] = "report-length",
    [GEN_M_SHIM_LENGTH] = "shim-length",
    [GEN_M_HOPS] = "hops",
    [GEN_M_REPORT_VERSION] = "report-version",
    [GEN_M_INT_VERSION] = "int-version",
    [GEN_M_BITMAP] = "bitmap",
    [GEN_M_IP_HLEN] = "ip-header-length",
    [GEN_M_UDP_LENGTH] = "udp-length",
};

const char *gen_malform_name(unsigned kind)
{
	return kind < GEN_M_COUNT ? names[kind] : NULL;
}

const char *gen_malform_unsupported(const struct gen_cfg *cfg, unsigned kind)
{
	int has_int = cfg->int_ver != GEN_INT_NONE && cfg->hops > 0;
	switch (kind) {
	case GEN_M_REPORT_LENGTH:
		if (cfg->format == GEN_FMT_TR05 || cfg->format == GEN_FMT_INT)
			return "the format has no report length field (tr2.0 and tr1.0 only)";
		return NULL;
	case GEN_M_REPORT_VERSION: return cfg->format == GEN_FMT_INT ? "bare INT packets have no report header" : NULL;
	case GEN_M_SHIM_LENGTH:
	case GEN_M_HOPS:
	case GEN_M_INT_VERSION:
	case GEN_M_BITMAP:
		return has_int ? NULL : "needs an embedded INT stack (--int-version 2.1|1.0|0.5 and --hops >= 1)";
	case GEN_M_UDP_LENGTH:
		return cfg->format == GEN_FMT_INT && cfg->l4 == GEN_L4_TCP ? "bare INT over TCP has no UDP header"
		                                                           : NULL;
	default: return NULL;
	}
}

static void fix_ip4_csum(uint8_t *ip)
{
	ip[10] = ip[11] = 0;
	unsigned ihl = (ip[0] & 15u) * 4;
	if (ihl < 20)
		ihl = 20;
	gen_put16(ip + 10, gen_ip_checksum(ip, ihl));
}

/* Byte offset of the shim's length field and how many bits it has. */
static unsigned shim_len_off(unsigned kind)
{
	switch (kind) {
	case GEN_SHIM_21:
	case GEN_SHIM_21_GPE: return 1;
	case GEN_SHIM_GENEVE: return 3;
	default: return 2;
	}
}

/* Smallest valid shim length value (MD header, no hops) for the shim kind. */
static unsigned shim_min(const struct gen_cfg *cfg, unsigned kind)
{
	unsigned md = cfg->int_ver == GEN_INT_V21 ? 3 : 2;
	switch (kind) {
	case GEN_SHIM_21:
	case GEN_SHIM_21_GPE:
	case GEN_SHIM_GENEVE: return md;
	case GEN_SHIM_10_GPE: return md + 1;
	default: return md + 1 + (cfg->int_ver == GEN_INT_V05 ? 1 : 0); /* v0.5 tail; GEANT tail optional */
	}
}

static int shim_length(const struct gen_cfg *cfg, struct gen_pkt *k, uint64_t rnd, int whole_hops)
{
	struct gen_marks *m = &k->marks;
	if (!m->shim_off)
		return 0;
	uint8_t *f = k->buf + m->shim_off + shim_len_off(m->shim_kind);
	unsigned maxv = m->shim_kind == GEN_SHIM_GENEVE ? 31 : 255;
	unsigned cur = m->shim_kind == GEN_SHIM_GENEVE ? (*f & 31u) : *f;
	unsigned room = (unsigned)(m->inner_end - m->stack_end) / 4; /* words after the stack */
	if (whole_hops) {
		/* claim more hops than the packet holds */
		unsigned hw = m->hop_words ? m->hop_words : 1;
		unsigned add = (room / hw + 1) * hw;
		if (cfg->int_ver == GEN_INT_V05 && cfg->profile != HW_PROFILE_GEANT) {
			uint8_t *md = k->buf + m->md_off;
			unsigned extra = room / hw + 1;
			md[3] = (uint8_t)(md[3] + extra); /* total_hop_cnt */
		}
		if (cur + add <= maxv) {
			unsigned v = cur + add;
			*f = m->shim_kind == GEN_SHIM_GENEVE ? (uint8_t)((*f & 0xe0) | v) : (uint8_t)v;
			return 1;
		}
		/* cannot point far enough: fall back to a length below the metadata header */
	} else if ((rnd & 1) && cur + room + 1 <= maxv) {
		unsigned v = cur + room + 1 + (unsigned)((rnd >> 8) % (maxv - cur - room));
		*f = m->shim_kind == GEN_SHIM_GENEVE ? (uint8_t)((*f & 0xe0) | v) : (uint8_t)v;
		return 1;
	}
	unsigned v = (unsigned)((rnd >> 16) % shim_min(cfg, m->shim_kind));
	*f = m->shim_kind == GEN_SHIM_GENEVE ? (uint8_t)((*f & 0xe0) | v) : (uint8_t)v;
	return 1;
}

int gen_malform_apply(const struct gen_cfg *cfg, struct gen_pkt *k, unsigned kind, uint64_t rnd)
{
	struct gen_marks *m = &k->marks;
	uint8_t *b = k->buf;
	switch (kind) {
	case GEN_M_TRUNCATE:
		if (k->len < 2)
			return 0;
		k->len = 1 + (size_t)(rnd % (k->len - 1));
		return 1;
	case GEN_M_REPORT_LENGTH:
		if (cfg->format == GEN_FMT_TR20) {
			uint8_t *h = b + m->rep_off;
			unsigned remaining = (unsigned)(k->len - m->rep_off - 4) / 4;
			if (remaining + 1 <= 0xfe)
				h[1] = (uint8_t)(remaining + 1 + (rnd >> 8) % (0xfe - remaining));
			else
				h[2] = 0xfe; /* md_length beyond the report */
			return 1;
		}
		if (cfg->format == GEN_FMT_TR10) {
			/* header length below the 4 words of the fixed header */
			b[m->rep_off] = (uint8_t)((b[m->rep_off] & 0xf0) | (rnd >> 8) % 4);
			return 1;
		}
		return 0;
	case GEN_M_SHIM_LENGTH: return shim_length(cfg, k, rnd, 0);
	case GEN_M_HOPS: return shim_length(cfg, k, rnd, 1);
	case GEN_M_REPORT_VERSION:
		if (cfg->format == GEN_FMT_INT)
			return 0;
		b[m->payload_off] = (uint8_t)((b[m->payload_off] & 0x0f) | (3 + (rnd >> 8) % 13) << 4);
		return 1;
	case GEN_M_INT_VERSION:
		if (!m->md_off)
			return 0;
		b[m->md_off] = (uint8_t)((b[m->md_off] & 0x0f) | (5 + (rnd >> 8) % 11) << 4);
		return 1;
	case GEN_M_BITMAP: {
		if (!m->md_off)
			return 0;
		uint8_t *bm = b + m->md_off + 4;
		int le = cfg->profile == HW_PROFILE_GEANT;
		uint16_t v = le ? (uint16_t)(bm[0] | bm[1] << 8) : gen_get16(bm);
		static const uint16_t extra[] = {GEN_I_NODE,  GEN_I_PORTS, GEN_I_LATENCY, GEN_I_QUEUE,
		                                 GEN_I_IG_TS, GEN_I_EG_TS, GEN_I_TX_UTIL, GEN_I_L2_PORTS};
		unsigned added = 0;
		for (unsigned i = 0; i < 8 && added < 2; i++)
			if (!(v & extra[i])) {
				v |= extra[i];
				added++;
			}
		if (!added)
			return 0;
		if (le) {
			bm[0] = (uint8_t)v;
			bm[1] = (uint8_t)(v >> 8);
		} else
			gen_put16(bm, v);
		return 1;
	}
	case GEN_M_IP_HLEN: {
		uint8_t *ip = b + m->ip_off;
		if ((ip[0] >> 4) != 4)
			return 0;
		ip[0] = (uint8_t)(0x40 | (rnd >> 8) % 5);
		fix_ip4_csum(ip);
		return 1;
	}
	case GEN_M_UDP_LENGTH: {
		if (!m->udp_off)
			return 0;
		uint8_t *u = b + m->udp_off;
		unsigned have = (unsigned)(k->len - m->udp_off);
		unsigned v = (rnd & 1) ? (unsigned)((rnd >> 8) % 8) : have + 1 + (unsigned)((rnd >> 8) % 64);
		gen_put16(u + 4, v);
		return 1;
	}
	default: return 0;
	}
}
