/* Unit tests of the LLDP TLV parser with frames built by hand from the TLV tables of IEEE 802.1AB-2016
 * (clause 8), 802.1Q annex D and 802.3 clause 79: every ID subtype, every TLV a fabric uses, malformed TLVs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hopwatch/lldp.h"

/* A complete frame, byte by byte.  Header of each TLV: type (7 bits) | length (9 bits). */
static const uint8_t FULL[] = {
    0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e,                                    /* dst: nearest bridge */
    0x02, 0x11, 0x22, 0x33, 0x44, 0x66,                                    /* src */
    0x88, 0xcc,                                                            /* ethertype LLDP */
    0x02, 0x07, 0x04, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55,                  /* chassis ID, MAC 00:11:22:33:44:55 */
    0x04, 0x0a, 0x05, 'E',  't',  'h',  'e',  'r',  'n',  'e',  't',  '0', /* port ID, ifname Ethernet0 */
    0x06, 0x02, 0x00, 0x78,                                                /* TTL 120 */
    0x08, 0x05, 't',  'o',  '-',  's',  '1',                               /* port description */
    0x0a, 0x05, 'l',  'e',  'a',  'f',  '1',                               /* system name */
    0x0c, 0x05, 'S',  'O',  'N',  'i',  'C',                               /* system description */
    0x0e, 0x04, 0x00, 0x14, 0x00, 0x10, /* capabilities: bridge+router, router enabled */
    0x10, 0x0c, 0x05, 0x01, 10,   0,    0,    1,    0x02, 0x00, 0x00, 0x00, 0x05, 0x00, /* mgmt 10.0.0.1 ifIndex 5 */
    0x10, 0x18, 0x11, 0x02, 0x20, 0x01, 0x0d, 0xb8, 0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0x01,                               /* mgmt 2001:db8::1 */
    0x03, 0x00, 0x00, 0x00, 0x07, 0x00,                               /* ... system port number 7, no OID */
    0xfe, 0x06, 0x00, 0x12, 0x0f, 0x04, 0x24, 0x00,                   /* 802.3 max frame size 9216 */
    0xfe, 0x09, 0x00, 0x12, 0x0f, 0x03, 0x03, 0x00, 0x00, 0x00, 0x2a, /* 802.3 link aggregation, id 42 */
    0xfe, 0x06, 0x00, 0x80, 0xc2, 0x01, 0x00, 0x64,                   /* 802.1 port VLAN 100 */
    0xfe, 0x06, 0x00, 0x80, 0xc2, 0x0b, 0x88, 0x18,                   /* 802.1 PFC: willing, cap 8, prio 3+4 */
    0xfe, 0x05, 0x00, 0x1b, 0x21, 0x01, 0xff,                         /* unknown org (CEE DCBX OUI) */
    0x12, 0x02, 0xaa, 0xbb,                                           /* unknown TLV type 9 */
    0x00, 0x00,                                                       /* End */
    0x00, 0x00, 0x00, 0x00,                                           /* padding */
};

static void full_frame(void **state)
{
	(void)state;
	struct hw_lldp_info i;
	assert_int_equal(hw_lldp_parse_frame(FULL, sizeof(FULL), &i), HW_LLDP_OK);
	assert_int_equal(i.chassis.subtype, HW_LLDP_CHASSIS_MAC);
	assert_string_equal(i.chassis.text, "00:11:22:33:44:55");
	assert_int_equal(i.port.subtype, HW_LLDP_PORT_IFNAME);
	assert_string_equal(i.port.text, "Ethernet0");
	assert_int_equal(i.ttl, 120);
	assert_string_equal(i.port_descr, "to-s1");
	assert_string_equal(i.sys_name, "leaf1");
	assert_string_equal(i.sys_descr, "SONiC");
	assert_int_equal(i.cap_system, HW_LLDP_CAP_BRIDGE | HW_LLDP_CAP_ROUTER);
	assert_int_equal(i.cap_enabled, HW_LLDP_CAP_ROUTER);
	assert_int_equal(i.n_mgmt, 2);
	assert_string_equal(i.mgmt[0].text, "10.0.0.1");
	assert_int_equal(i.mgmt[0].if_subtype, 2);
	assert_int_equal(i.mgmt[0].if_number, 5);
	assert_string_equal(i.mgmt[1].text, "2001:db8::1");
	assert_int_equal(i.mgmt[1].if_subtype, 3);
	assert_int_equal(i.mgmt[1].if_number, 7);
	assert_true(i.has & HW_LLDP_HAS_MAX_FRAME);
	assert_int_equal(i.max_frame, 9216);
	assert_true(i.has & HW_LLDP_HAS_LINK_AGG);
	assert_int_equal(i.agg_status, 3);
	assert_int_equal(i.agg_port_id, 42);
	assert_int_equal(i.port_vlan, 100);
	assert_true(i.has & HW_LLDP_HAS_PFC);
	assert_int_equal(i.pfc_willing, 1);
	assert_int_equal(i.pfc_mbc, 0);
	assert_int_equal(i.pfc_cap, 8);
	assert_int_equal(i.pfc_enable, 0x18);
	assert_int_equal(i.n_unknown, 2);
	assert_memory_equal(i.src_mac, FULL + 6, 6);
}

/* Every prefix of the frame is rejected without reading past it (ASan/UBSan builds check the reads). */
static void every_prefix_rejected(void **state)
{
	(void)state;
	struct hw_lldp_info i;
	size_t end = sizeof(FULL) - 4 - 2; /* offset of the End TLV */
	for (size_t n = 0; n < end + 2; n++) {
		enum hw_lldp_result r = hw_lldp_parse_frame(FULL, n, &i);
		assert_int_not_equal(r, HW_LLDP_OK);
		assert_int_not_equal(r, HW_LLDP_NOT_LLDP);
	}
	assert_int_equal(hw_lldp_parse_frame(FULL, end + 2, &i), HW_LLDP_OK);
}

/* Builder for the cases below: an LLDPDU assembled from TLVs given as type, length, value bytes. */
struct pdu {
	uint8_t b[600];
	size_t n;
};
static void tlv(struct pdu *p, unsigned type, size_t len, const void *v)
{
	p->b[p->n++] = (uint8_t)(type << 1 | len >> 8);
	p->b[p->n++] = (uint8_t)(len & 0xff);
	memcpy(p->b + p->n, v, len);
	p->n += len;
}
static const uint8_t CH_MAC[] = {4, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
static const uint8_t PT_IF[] = {5, 'e', 't', 'h', '1'};
static const uint8_t TTL120[] = {0, 120};
static void mandatory(struct pdu *p)
{
	p->n = 0;
	tlv(p, 1, sizeof(CH_MAC), CH_MAC);
	tlv(p, 2, sizeof(PT_IF), PT_IF);
	tlv(p, 3, 2, TTL120);
}
static enum hw_lldp_result end_and_parse(struct pdu *p, struct hw_lldp_info *i)
{
	tlv(p, 0, 0, "");
	return hw_lldp_parse_pdu(p->b, p->n, i);
}

/* The mandatory TLVs with the chassis ID (which = 1) or the port ID (which = 2) value replaced by v. */
static enum hw_lldp_result with_id(int which, const uint8_t *v, size_t len, struct hw_lldp_info *i)
{
	struct pdu p = {.n = 0};
	tlv(&p, 1, which == 1 ? len : sizeof(CH_MAC), which == 1 ? v : CH_MAC);
	tlv(&p, 2, which == 2 ? len : sizeof(PT_IF), which == 2 ? v : PT_IF);
	tlv(&p, 3, 2, TTL120);
	return end_and_parse(&p, i);
}

struct id_case {
	uint8_t v[20];
	size_t len;
	const char *text;
};

static void chassis_subtypes(void **state)
{
	(void)state;
	static const struct id_case cases[] = {
	    {{1, 'c', 'h', '1'}, 4, "ch1"},                                                /* chassis component */
	    {{2, 'u', 'p', 'l'}, 4, "upl"},                                                /* interface alias */
	    {{3, 'p', '7'}, 3, "p7"},                                                      /* port component */
	    {{4, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01}, 7, "de:ad:be:ef:00:01"},             /* MAC */
	    {{5, 1, 192, 0, 2, 9}, 6, "192.0.2.9"},                                        /* network address, IPv4 */
	    {{5, 2, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 18, "fe80::1"}, /* IPv6 */
	    {{6, 'e', 't', 'h', '0'}, 5, "eth0"},                                          /* interface name */
	    {{7, 0x01, 0x02}, 3, "01:02"}, /* locally assigned, not printable */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct hw_lldp_info i;
		assert_int_equal(with_id(1, cases[k].v, cases[k].len, &i), HW_LLDP_OK);
		assert_int_equal(i.chassis.subtype, cases[k].v[0]);
		assert_string_equal(i.chassis.text, cases[k].text);
		assert_int_equal(i.chassis.len, cases[k].len - 1);
	}
}

static void port_subtypes(void **state)
{
	(void)state;
	static const struct id_case cases[] = {
	    {{1, 'u', 'p'}, 3, "up"},                              /* interface alias */
	    {{2, 'p', 'c'}, 3, "pc"},                              /* port component */
	    {{3, 0x02, 0, 0, 0, 0, 0x07}, 7, "02:00:00:00:00:07"}, /* MAC (lldpd's default) */
	    {{4, 1, 10, 1, 2, 3}, 6, "10.1.2.3"},                  /* network address */
	    {{5, 's', 'w', 'p', '1'}, 5, "swp1"},                  /* interface name */
	    {{6, 'c', '9'}, 3, "c9"},                              /* agent circuit ID */
	    {{7, '1', '2'}, 3, "12"},                              /* locally assigned */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct hw_lldp_info i;
		assert_int_equal(with_id(2, cases[k].v, cases[k].len, &i), HW_LLDP_OK);
		assert_int_equal(i.port.subtype, cases[k].v[0]);
		assert_string_equal(i.port.text, cases[k].text);
	}
}

static void ttl_zero_and_tags(void **state)
{
	(void)state;
	static const uint8_t shutdown[] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x03, 2,    0,    0,    0,    0,   1, 0x81,
	                                   0x00, 0x00, 0x0a, 0x88, 0xcc, 0x02, 0x07, 0x04, 2,    0,    0,   0, 0,
	                                   1,    0x04, 0x02, 0x07, '1',  0x06, 0x02, 0x00, 0x00, 0x00, 0x00};
	struct hw_lldp_info i;
	assert_int_equal(hw_lldp_parse_frame(shutdown, sizeof(shutdown), &i), HW_LLDP_OK); /* VLAN tag, :03 */
	assert_int_equal(i.ttl, 0);
	assert_string_equal(i.port.text, "1");
	uint8_t f[sizeof(FULL)];
	memcpy(f, FULL, sizeof(f));
	f[5] = 0x00; /* customer bridge address */
	assert_int_equal(hw_lldp_parse_frame(f, sizeof(f), &i), HW_LLDP_OK);
	f[5] = 0x01; /* not an LLDP address */
	assert_int_equal(hw_lldp_parse_frame(f, sizeof(f), &i), HW_LLDP_NOT_LLDP);
	memcpy(f, FULL, sizeof(f));
	f[13] = 0xcd; /* ethertype 0x88cd */
	assert_int_equal(hw_lldp_parse_frame(f, sizeof(f), &i), HW_LLDP_NOT_LLDP);
	assert_int_equal(hw_lldp_parse_frame(f, 10, &i), HW_LLDP_E_L2_TRUNCATED);
	assert_int_equal(hw_lldp_parse_frame(shutdown, 16, &i), HW_LLDP_E_L2_TRUNCATED); /* inside the tag */
}

/* One malformed TLV after the mandatory ones, and the name it must be rejected with. */
static void malformed_optional(void **state)
{
	(void)state;
	static const struct {
		unsigned type;
		uint8_t v[32];
		size_t len;
		enum hw_lldp_result want;
	} cases[] = {
	    {7, {0, 4, 0}, 3, HW_LLDP_E_CAPABILITIES},
	    {8, {5, 1, 10, 0, 0, 1, 2, 0, 0, 0}, 10, HW_LLDP_E_MGMT_ADDR},        /* no OID length */
	    {8, {5, 1, 10, 0, 0, 1, 2, 0, 0, 0, 5, 5}, 12, HW_LLDP_E_MGMT_ADDR},  /* OID length 5, none */
	    {8, {4, 1, 10, 0, 0, 2, 0, 0, 0, 5, 0}, 11, HW_LLDP_E_MGMT_ADDR},     /* IPv4 of 3 bytes */
	    {8, {40, 1, 10, 0, 0, 1, 2, 0, 0, 0, 5, 0}, 12, HW_LLDP_E_MGMT_ADDR}, /* addr length past end */
	    {127, {0x00, 0x80, 0xc2}, 3, HW_LLDP_E_ORG},
	    {127, {0x00, 0x80, 0xc2, 0x01, 0x00}, 5, HW_LLDP_E_PORT_VLAN},
	    {127, {0x00, 0x80, 0xc2, 0x0b, 0x08}, 5, HW_LLDP_E_PFC},
	    {127, {0x00, 0x80, 0xc2, 0x07, 0x03, 0, 0, 0}, 8, HW_LLDP_E_LINK_AGG},
	    {127, {0x00, 0x12, 0x0f, 0x03, 0x03, 0, 0, 0, 1, 9}, 10, HW_LLDP_E_LINK_AGG},
	    {127, {0x00, 0x12, 0x0f, 0x04, 0x24}, 5, HW_LLDP_E_MAX_FRAME},
	    {1, {4, 0, 1, 2, 3, 4, 5}, 7, HW_LLDP_E_DUPLICATE}, /* a second chassis ID */
	    {3, {0, 1}, 2, HW_LLDP_E_DUPLICATE},                /* a second TTL */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pdu p;
		struct hw_lldp_info i;
		mandatory(&p);
		tlv(&p, cases[k].type, cases[k].len, cases[k].v);
		enum hw_lldp_result r = end_and_parse(&p, &i);
		if (r != cases[k].want)
			fail_msg("case %zu: got %s, want %s", k, hw_lldp_result_name(r),
			         hw_lldp_result_name(cases[k].want));
		assert_int_equal(i.error_offset, 2 + sizeof(CH_MAC) + 2 + sizeof(PT_IF) + 2 + 2); /* the 4th TLV */
	}
}

static void duplicates_rejected(void **state)
{
	(void)state;
	static const uint8_t pfc[] = {0x00, 0x80, 0xc2, 0x0b, 0x08, 0x08}, mfs[] = {0x00, 0x12, 0x0f, 0x04, 0x05, 0xdc};
	static const uint8_t lag1[] = {0x00, 0x80, 0xc2, 0x07, 0x01, 0, 0, 0, 0};
	static const uint8_t lag3[] = {0x00, 0x12, 0x0f, 0x03, 0x01, 0, 0, 0, 0};
	struct pdu p;
	struct hw_lldp_info i;
	const void *twice[][2] = {{pfc, pfc}, {mfs, mfs}, {lag3, lag3}};
	size_t lens[] = {sizeof(pfc), sizeof(mfs), sizeof(lag1)};
	for (size_t k = 0; k < 3; k++) {
		mandatory(&p);
		tlv(&p, 127, lens[k], twice[k][0]);
		tlv(&p, 127, lens[k], twice[k][1]);
		assert_int_equal(end_and_parse(&p, &i), HW_LLDP_E_DUPLICATE);
	}
	mandatory(&p); /* the 802.1 and the deprecated 802.3 link aggregation TLV together are fine */
	tlv(&p, 127, sizeof(lag1), lag1);
	tlv(&p, 127, sizeof(lag3), lag3);
	assert_int_equal(end_and_parse(&p, &i), HW_LLDP_OK);
	assert_int_equal(i.agg_from, 3);
	mandatory(&p);
	tlv(&p, 5, 2, "s1");
	tlv(&p, 5, 2, "s2");
	assert_int_equal(end_and_parse(&p, &i), HW_LLDP_E_DUPLICATE);
	mandatory(&p);
	tlv(&p, 127, sizeof(mfs), mfs);
	assert_int_equal(end_and_parse(&p, &i), HW_LLDP_OK);
	assert_int_equal(i.max_frame, 1500);
}

static void malformed_mandatory(void **state)
{
	(void)state;
	struct pdu p;
	struct hw_lldp_info i;
	static const uint8_t bad_mac[] = {4, 1, 2, 3, 4, 5}, sub0[] = {0, 'x'}, sub8[] = {8, 'x'}, only_sub[] = {6};
	static const uint8_t bad_ip[] = {5, 1, 10, 0, 0}, pt_sub9[] = {9, 'x'}, pt_mac[] = {3, 1, 2, 3};
	static const uint8_t long_id[300] = {7};
	static const struct {
		const uint8_t *v;
		size_t len;
		int which; /* 1 chassis, 2 port */
		enum hw_lldp_result want;
	} cases[] = {
	    {bad_mac, sizeof(bad_mac), 1, HW_LLDP_E_CHASSIS_ID},
	    {sub0, 2, 1, HW_LLDP_E_CHASSIS_SUBTYPE},
	    {sub8, 2, 1, HW_LLDP_E_CHASSIS_SUBTYPE},
	    {only_sub, 1, 1, HW_LLDP_E_CHASSIS_ID},
	    {bad_ip, sizeof(bad_ip), 1, HW_LLDP_E_CHASSIS_ID},
	    {long_id, 300, 1, HW_LLDP_E_CHASSIS_ID},
	    {pt_sub9, 2, 2, HW_LLDP_E_PORT_SUBTYPE},
	    {pt_mac, sizeof(pt_mac), 2, HW_LLDP_E_PORT_ID},
	    {only_sub, 0, 2, HW_LLDP_E_PORT_ID},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		enum hw_lldp_result r = with_id(cases[k].which, cases[k].v, cases[k].len, &i);
		if (r != cases[k].want)
			fail_msg("case %zu: got %s, want %s", k, hw_lldp_result_name(r),
			         hw_lldp_result_name(cases[k].want));
	}
	/* order, TTL length, End, truncation */
	p.n = 0;
	tlv(&p, 2, sizeof(PT_IF), PT_IF);
	assert_int_equal(end_and_parse(&p, &i), HW_LLDP_E_ORDER);
	p.n = 0;
	tlv(&p, 1, sizeof(CH_MAC), CH_MAC);
	tlv(&p, 2, sizeof(PT_IF), PT_IF);
	assert_int_equal(end_and_parse(&p, &i), HW_LLDP_E_ORDER); /* End before TTL */
	p.n = 0;
	tlv(&p, 1, sizeof(CH_MAC), CH_MAC);
	tlv(&p, 2, sizeof(PT_IF), PT_IF);
	tlv(&p, 3, 3, "\0\1\2");
	assert_int_equal(end_and_parse(&p, &i), HW_LLDP_E_TTL);
	mandatory(&p);
	assert_int_equal(hw_lldp_parse_pdu(p.b, p.n, &i), HW_LLDP_E_NO_END);
	mandatory(&p);
	tlv(&p, 0, 1, "x");
	assert_int_equal(hw_lldp_parse_pdu(p.b, p.n, &i), HW_LLDP_E_END_LENGTH);
	mandatory(&p);
	p.b[p.n++] = 0x0a; /* half a TLV header */
	assert_int_equal(hw_lldp_parse_pdu(p.b, p.n, &i), HW_LLDP_E_TLV_TRUNCATED);
	mandatory(&p);
	p.b[p.n++] = 0x0a;
	p.b[p.n++] = 0x40; /* system name of 64 bytes, 1 present */
	p.b[p.n++] = 'x';
	assert_int_equal(hw_lldp_parse_pdu(p.b, p.n, &i), HW_LLDP_E_TLV_LENGTH);
	assert_int_equal(hw_lldp_parse_pdu(NULL, 0, &i), HW_LLDP_E_ORDER);
}

/* Text TLVs are SnmpAdminString (UTF-8, 802.1AB-2016 8.5.6): well-formed UTF-8 is kept byte for byte,
 * every other byte becomes '?', and a cut at the buffer's end never splits a character. */
struct text_case {
	uint8_t v[16];
	size_t len;
	const char *text;
};

static void utf8_text(void **state)
{
	(void)state;
	static const struct text_case cases[] = {
	    /* "Zürich": ü is U+00FC = C3 BC in UTF-8 */
	    {{'Z', 0xc3, 0xbc, 'r', 'i', 'c', 'h'}, 7, "Z\xc3\xbcrich"},
	    /* the same in Latin-1: FC alone is no UTF-8 lead byte */
	    {{'Z', 0xfc, 'r', 'i', 'c', 'h'}, 6, "Z?rich"},
	    /* U+20AC EURO SIGN = E2 82 AC; U+1F600 = F0 9F 98 80 */
	    {{0xe2, 0x82, 0xac, '-', 0xf0, 0x9f, 0x98, 0x80}, 8, "\xe2\x82\xac-\xf0\x9f\x98\x80"},
	    /* overlong '/' (C0 AF): C0 is never a lead byte, AF alone is a continuation byte */
	    {{'a', 0xc0, 0xaf, 'b'}, 4, "a??b"},
	    /* surrogate U+D800 (ED A0 80): after ED the second byte must be 80..9F, so three '?' */
	    {{0xed, 0xa0, 0x80}, 3, "???"},
	    /* above U+10FFFF (F4 90 80 80): after F4 the second byte must be 80..8F */
	    {{0xf4, 0x90, 0x80, 0x80}, 4, "????"},
	    /* a sequence cut by the end of the TLV (E2 82 of a three-byte character) */
	    {{'a', 'b', 0xe2, 0x82}, 4, "ab??"},
	    /* control characters and DEL */
	    {{'x', 0x07, 0x0a, 0x7f, 'y'}, 5, "x???y"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pdu p;
		struct hw_lldp_info i;
		mandatory(&p);
		tlv(&p, 5, cases[k].len, cases[k].v); /* system name */
		assert_int_equal(end_and_parse(&p, &i), HW_LLDP_OK);
		assert_string_equal(i.sys_name, cases[k].text);
	}

	/* A port ID of subtype interface name (5) in UTF-8 is text, not hex: "p\xc3\xa9" (pé). */
	static const uint8_t port_utf8[] = {5, 'p', 0xc3, 0xa9};
	struct hw_lldp_info i;
	assert_int_equal(with_id(2, port_utf8, sizeof(port_utf8), &i), HW_LLDP_OK);
	assert_string_equal(i.port.text, "p\xc3\xa9");

	/* A system description of 256 bytes: 254 'a', then U+00E9 (C3 A9).  The string holds 255 bytes and
	 * its NUL; 254 + 2 = 256 > 255, so the character is left out whole: 254 bytes, all 'a'. */
	struct pdu p;
	uint8_t descr[256];
	memset(descr, 'a', 254);
	descr[254] = 0xc3;
	descr[255] = 0xa9;
	mandatory(&p);
	tlv(&p, 6, sizeof(descr), descr);
	assert_int_equal(end_and_parse(&p, &i), HW_LLDP_OK);
	assert_int_equal(strlen(i.sys_descr), 254);
	assert_int_equal(i.sys_descr[253], 'a');
}

static void names(void **state)
{
	(void)state;
	assert_string_equal(hw_lldp_result_name(HW_LLDP_E_PFC), "pfc");
	assert_non_null(strstr(hw_lldp_result_message(HW_LLDP_E_MAX_FRAME), "Maximum Frame Size"));
	assert_string_equal(hw_lldp_result_name(HW_LLDP_RESULT_COUNT), "invalid");
	assert_string_equal(hw_lldp_cap_name(HW_LLDP_CAP_ROUTER), "router");
	assert_null(hw_lldp_cap_name(0x8000));
	assert_string_equal(hw_lldp_port_subtype_name(HW_LLDP_PORT_MAC), "mac");
	assert_string_equal(hw_lldp_chassis_subtype_name(HW_LLDP_CHASSIS_MAC), "mac");
	assert_string_equal(hw_lldp_chassis_subtype_name(9), "reserved");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(full_frame),          cmocka_unit_test(every_prefix_rejected),
	    cmocka_unit_test(chassis_subtypes),    cmocka_unit_test(port_subtypes),
	    cmocka_unit_test(ttl_zero_and_tags),   cmocka_unit_test(malformed_optional),
	    cmocka_unit_test(duplicates_rejected), cmocka_unit_test(malformed_mandatory),
	    cmocka_unit_test(utf8_text),           cmocka_unit_test(names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
