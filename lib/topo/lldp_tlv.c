/* The LLDP TLV parser (IEEE 802.1AB-2016 clause 8, 802.1Q annex D, 802.3 clause 79) over a byte span.
 * No allocation, no globals: every byte is read through span_at(), which checks the bounds. */
#include <stdio.h>
#include <string.h>

#include "hopwatch/lldp.h"

struct span {
	const uint8_t *p;
	size_t len;
};

/* The one accessor: n bytes at off, or NULL when they are not all inside the span. */
static const uint8_t *span_at(struct span s, size_t off, size_t n)
{
	if (!s.p || off > s.len || n > s.len - off)
		return NULL;
	return s.p + off;
}

static struct span span_sub(struct span s, size_t off, size_t n)
{
	const uint8_t *p = span_at(s, off, n);
	return (struct span){p, p ? n : 0};
}

/* Callers check the span length first; a failed read yields 0 rather than a wild read. */
static uint8_t rd8(struct span s, size_t off)
{
	const uint8_t *p = span_at(s, off, 1);
	return p ? p[0] : 0;
}

static uint16_t rd16(struct span s, size_t off)
{
	const uint8_t *p = span_at(s, off, 2);
	return p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
}

static uint32_t rd32(struct span s, size_t off)
{
	const uint8_t *p = span_at(s, off, 4);
	return p ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] : 0;
}

/* Length of the character at off when it is printable text: 1 for ASCII 0x20..0x7e, 2..4 for a
 * well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF; LLDP's
 * text TLVs are SnmpAdminString, which is UTF-8), 0 for a control character or a malformed byte. */
static size_t text_char(struct span s, size_t off)
{
	uint8_t c = rd8(s, off);
	if (c >= 0x20 && c < 0x7f)
		return 1;
	size_t n;
	uint8_t lo = 0x80, hi = 0xbf; /* the range of the second byte */
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0; /* overlong below U+0800 */
		if (c == 0xed)
			hi = 0x9f; /* surrogates U+D800..U+DFFF */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90; /* overlong below U+10000 */
		if (c == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return 0; /* control, DEL, a continuation byte, 0xc0/0xc1 or 0xf5.. */
	}
	if (!span_at(s, off, n))
		return 0;
	uint8_t c1 = rd8(s, off + 1);
	if (c1 < lo || c1 > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((rd8(s, off + i) & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Text TLV to a C string: printable ASCII and well-formed UTF-8 kept as they are, any other byte written
 * as '?'; cut at size - 1 bytes, never inside a character. */
static void copy_str(struct span s, char *dst, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < s.len;) {
		size_t n = text_char(s, i);
		size_t w = n ? n : 1;
		if (o + w > size - 1)
			break;
		if (n)
			memcpy(dst + o, span_at(s, i, n), n);
		else
			dst[o] = '?';
		o += w;
		i += w;
	}
	dst[o] = '\0';
}

/* Every character printable text (text_char), and not empty. */
static int printable(struct span s)
{
	for (size_t i = 0; i < s.len;) {
		size_t n = text_char(s, i);
		if (!n)
			return 0;
		i += n;
	}
	return s.len > 0;
}

static void hex_text(struct span s, char *dst, size_t size)
{
	size_t o = 0;
	dst[0] = '\0';
	for (size_t i = 0; i < s.len && o + 4 <= size; i++)
		o += (size_t)snprintf(dst + o, size - o, i ? ":%02x" : "%02x", rd8(s, i));
}

/* Address in a network-address ID: family byte then the address. 0 when malformed. */
static int netaddr_ok(struct span v)
{
	if (v.len < 2)
		return 0;
	uint8_t fam = rd8(v, 0);
	if (fam == 1)
		return v.len == 5;
	if (fam == 2)
		return v.len == 17;
	return 1;
}

/* Decode a Chassis ID or Port ID value (after the subtype byte).  kind_mac/kind_net are the subtype
 * numbers that carry a MAC or a network address.  Returns 0 when the value fails its subtype's rules. */
static int read_id(struct span tlv, uint8_t kind_mac, uint8_t kind_net, struct hw_lldp_id *id)
{
	if (tlv.len < 2 || tlv.len > 256)
		return 0;
	struct span v = span_sub(tlv, 1, tlv.len - 1);
	id->subtype = rd8(tlv, 0);
	const uint8_t *raw = span_at(v, 0, v.len);
	if (!raw || v.len > sizeof(id->raw))
		return 0;
	id->len = (uint8_t)v.len;
	memcpy(id->raw, raw, v.len);
	if (id->subtype == kind_mac) {
		if (v.len != 6)
			return 0;
		hex_text(v, id->text, sizeof(id->text));
	} else if (id->subtype == kind_net) {
		if (!netaddr_ok(v))
			return 0;
		hw_lldp_addr_text(rd8(v, 0), span_at(v, 1, v.len - 1), v.len - 1, id->text, sizeof(id->text));
	} else if (printable(v)) {
		copy_str(v, id->text, sizeof(id->text));
	} else {
		hex_text(v, id->text, sizeof(id->text));
	}
	return 1;
}

static enum hw_lldp_result read_mgmt(struct span v, struct hw_lldp_info *out)
{
	/* addr string length (1) | subtype (1) | addr | if subtype (1) | if number (4) | oid len (1) | oid */
	if (v.len < 9)
		return HW_LLDP_E_MGMT_ADDR;
	size_t alen = rd8(v, 0);
	if (alen < 2 || alen > 32 || 1 + alen + 6 > v.len)
		return HW_LLDP_E_MGMT_ADDR;
	size_t oid_len = rd8(v, 1 + alen + 5);
	if (oid_len > 128 || 1 + alen + 6 + oid_len != v.len)
		return HW_LLDP_E_MGMT_ADDR;
	uint8_t family = rd8(v, 1);
	struct span a = span_sub(v, 2, alen - 1);
	if ((family == 1 && a.len != 4) || (family == 2 && a.len != 16))
		return HW_LLDP_E_MGMT_ADDR;
	if (out->n_mgmt >= HW_LLDP_MGMT_MAX) {
		out->mgmt_dropped++;
		return HW_LLDP_OK;
	}
	struct hw_lldp_mgmt *m = &out->mgmt[out->n_mgmt++];
	m->family = family;
	m->len = (uint8_t)a.len;
	memcpy(m->addr, span_at(a, 0, a.len), a.len);
	m->if_subtype = rd8(v, 1 + alen);
	m->if_number = rd32(v, 1 + alen + 1);
	hw_lldp_addr_text(family, m->addr, m->len, m->text, sizeof(m->text));
	return HW_LLDP_OK;
}

static const uint8_t OUI_8021[3] = {0x00, 0x80, 0xc2};
static const uint8_t OUI_8023[3] = {0x00, 0x12, 0x0f};

static int once(struct hw_lldp_info *out, uint32_t bit)
{
	if (out->has & bit)
		return 0;
	out->has |= bit;
	return 1;
}

/* Organizationally specific TLV: OUI (3) | subtype (1) | info. */
static enum hw_lldp_result read_org(struct span v, struct hw_lldp_info *out)
{
	if (v.len < 4)
		return HW_LLDP_E_ORG;
	const uint8_t *oui = span_at(v, 0, 3);
	uint8_t sub = rd8(v, 3);
	struct span info = span_sub(v, 4, v.len - 4);
	if (memcmp(oui, OUI_8021, 3) == 0) {
		switch (sub) {
		case 1: /* Port VLAN ID */
			if (info.len != 2)
				return HW_LLDP_E_PORT_VLAN;
			if (!once(out, HW_LLDP_HAS_PORT_VLAN))
				return HW_LLDP_E_DUPLICATE;
			out->port_vlan = rd16(info, 0);
			return HW_LLDP_OK;
		case 7: /* Link Aggregation (802.1AX / 802.1Q-2014 D.2.7) */ goto link_agg;
		case 11: /* DCBX PFC configuration (802.1Q D.2.10): willing|mbc|rsvd:2|cap:4, enable bitmap */
			if (info.len != 2)
				return HW_LLDP_E_PFC;
			if (!once(out, HW_LLDP_HAS_PFC))
				return HW_LLDP_E_DUPLICATE;
			out->pfc_willing = rd8(info, 0) >> 7;
			out->pfc_mbc = (rd8(info, 0) >> 6) & 1;
			out->pfc_cap = rd8(info, 0) & 0x0f;
			out->pfc_enable = rd8(info, 1);
			return HW_LLDP_OK;
		default: break;
		}
	} else if (memcmp(oui, OUI_8023, 3) == 0) {
		switch (sub) {
		case 3: /* Link Aggregation (802.3 clause 79.3.3, deprecated, same layout) */ goto link_agg;
		case 4: /* Maximum Frame Size */
			if (info.len != 2)
				return HW_LLDP_E_MAX_FRAME;
			if (!once(out, HW_LLDP_HAS_MAX_FRAME))
				return HW_LLDP_E_DUPLICATE;
			out->max_frame = rd16(info, 0);
			return HW_LLDP_OK;
		default: break;
		}
	}
	out->n_unknown++;
	return HW_LLDP_OK;
link_agg:
	/* The 802.3 TLV is the deprecated form of the 802.1 one; senders may carry both, each once. */
	if (info.len != 5)
		return HW_LLDP_E_LINK_AGG;
	uint8_t from = sub == 7 ? 1 : 2;
	if (out->agg_from & from)
		return HW_LLDP_E_DUPLICATE;
	out->agg_from |= from;
	out->has |= HW_LLDP_HAS_LINK_AGG;
	out->agg_status = rd8(info, 0);
	out->agg_port_id = rd32(info, 1);
	return HW_LLDP_OK;
}

static enum hw_lldp_result read_string(struct span v, struct hw_lldp_info *out, uint32_t bit, char *dst)
{
	if (!once(out, bit))
		return HW_LLDP_E_DUPLICATE;
	copy_str(v, dst, HW_LLDP_STR_MAX);
	return HW_LLDP_OK;
}

static enum hw_lldp_result read_tlv(unsigned type, struct span v, struct hw_lldp_info *out)
{
	switch (type) {
	case HW_LLDP_TLV_CHASSIS_ID:
	case HW_LLDP_TLV_PORT_ID:
	case HW_LLDP_TLV_TTL: return HW_LLDP_E_DUPLICATE; /* only allowed as the first three */
	case HW_LLDP_TLV_PORT_DESCR: return read_string(v, out, HW_LLDP_HAS_PORT_DESCR, out->port_descr);
	case HW_LLDP_TLV_SYS_NAME: return read_string(v, out, HW_LLDP_HAS_SYS_NAME, out->sys_name);
	case HW_LLDP_TLV_SYS_DESCR: return read_string(v, out, HW_LLDP_HAS_SYS_DESCR, out->sys_descr);
	case HW_LLDP_TLV_CAPABILITIES:
		if (v.len != 4)
			return HW_LLDP_E_CAPABILITIES;
		if (!once(out, HW_LLDP_HAS_CAPABILITIES))
			return HW_LLDP_E_DUPLICATE;
		out->cap_system = rd16(v, 0);
		out->cap_enabled = rd16(v, 2);
		return HW_LLDP_OK;
	case HW_LLDP_TLV_MGMT_ADDR: return read_mgmt(v, out);
	case HW_LLDP_TLV_ORG: return read_org(v, out);
	default: out->n_unknown++; return HW_LLDP_OK;
	}
}

/* The three mandatory TLVs, in order. */
static enum hw_lldp_result read_mandatory(unsigned index, unsigned type, struct span v, struct hw_lldp_info *out)
{
	static const unsigned want[3] = {HW_LLDP_TLV_CHASSIS_ID, HW_LLDP_TLV_PORT_ID, HW_LLDP_TLV_TTL};
	if (type != want[index])
		return HW_LLDP_E_ORDER;
	if (type == HW_LLDP_TLV_CHASSIS_ID) {
		if (v.len >= 1 && (rd8(v, 0) == 0 || rd8(v, 0) > 7))
			return HW_LLDP_E_CHASSIS_SUBTYPE;
		return read_id(v, HW_LLDP_CHASSIS_MAC, HW_LLDP_CHASSIS_NETADDR, &out->chassis) ? HW_LLDP_OK
		                                                                               : HW_LLDP_E_CHASSIS_ID;
	}
	if (type == HW_LLDP_TLV_PORT_ID) {
		if (v.len >= 1 && (rd8(v, 0) == 0 || rd8(v, 0) > 7))
			return HW_LLDP_E_PORT_SUBTYPE;
		return read_id(v, HW_LLDP_PORT_MAC, HW_LLDP_PORT_NETADDR, &out->port) ? HW_LLDP_OK : HW_LLDP_E_PORT_ID;
	}
	if (v.len != 2)
		return HW_LLDP_E_TTL;
	out->ttl = rd16(v, 0);
	return HW_LLDP_OK;
}

enum hw_lldp_result hw_lldp_parse_pdu(const uint8_t *pdu, size_t len, struct hw_lldp_info *out)
{
	memset(out, 0, sizeof(*out));
	struct span s = {pdu, pdu ? len : 0};
	size_t off = 0;
	for (unsigned i = 0;; i++) {
		out->error_offset = (uint16_t)(off > 0xffff ? 0xffff : off);
		if (off == s.len)
			return i < 3 ? HW_LLDP_E_ORDER : HW_LLDP_E_NO_END;
		if (!span_at(s, off, 2))
			return HW_LLDP_E_TLV_TRUNCATED;
		uint16_t hdr = rd16(s, off);
		unsigned type = hdr >> 9, tlen = hdr & 0x1ff;
		struct span v = span_sub(s, off + 2, tlen);
		if (!v.p)
			return HW_LLDP_E_TLV_LENGTH;
		out->n_tlv++;
		enum hw_lldp_result r;
		if (type == HW_LLDP_TLV_END) {
			if (i < 3)
				return HW_LLDP_E_ORDER;
			return tlen ? HW_LLDP_E_END_LENGTH : HW_LLDP_OK;
		}
		r = i < 3 ? read_mandatory(i, type, v, out) : read_tlv(type, v, out);
		if (r != HW_LLDP_OK)
			return r;
		off += 2 + tlen;
	}
}

static int lldp_dest(const uint8_t *d)
{
	static const uint8_t pre[5] = {0x01, 0x80, 0xc2, 0x00, 0x00};
	return memcmp(d, pre, 5) == 0 && (d[5] == 0x0e || d[5] == 0x03 || d[5] == 0x00);
}

enum hw_lldp_result hw_lldp_parse_frame(const uint8_t *frame, size_t len, struct hw_lldp_info *out)
{
	struct span s = {frame, frame ? len : 0};
	memset(out, 0, sizeof(*out));
	const uint8_t *dst = span_at(s, 0, 6), *src = span_at(s, 6, 6);
	if (!dst || !src || !span_at(s, 12, 2))
		return HW_LLDP_E_L2_TRUNCATED;
	size_t off = 12;
	uint16_t et = rd16(s, off);
	for (int tags = 0; (et == 0x8100 || et == 0x88a8) && tags < 2; tags++) {
		off += 4;
		if (!span_at(s, off, 2))
			return HW_LLDP_E_L2_TRUNCATED;
		et = rd16(s, off);
	}
	if (et != HW_LLDP_ETHERTYPE || !lldp_dest(dst))
		return HW_LLDP_NOT_LLDP;
	struct span pdu = span_sub(s, off + 2, s.len - (off + 2));
	uint8_t mac[6];
	memcpy(mac, src, 6);
	enum hw_lldp_result r = hw_lldp_parse_pdu(pdu.p, pdu.len, out);
	memcpy(out->src_mac, mac, 6);
	return r;
}
