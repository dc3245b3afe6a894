/* Every named rejection reason of enum hw_result, each triggered by a minimal hand-made packet
 * that is fine except for the one defect.  After any error: n_recs = n_reps = 0 (a packet is
 * parsed whole or rejected whole) and err_offset lies inside the input.
 *
 *   l2_truncated       frame ends inside the MAC addresses; inside a VLAN tag
 *   ip_truncated       frame ends inside the IPv4 header; inside an IPv6 extension header
 *   ip_header          IPv4 IHL 4 (< 5); version 6 behind ethertype 0x0800; IPv4 total length
 *                      beyond the frame; IPv6 payload length beyond the frame
 *   udp_length         UDP length > the IP payload; UDP length 7 (< its own header)
 *   report_truncated   payload ends inside the TR v2.0 group header, inside an individual report
 *                      header, inside a TR v1.0 header, inside a TR v0.5 local header
 *   report_version     first nibble 3 and 15 on the report port
 *   report_length      TR v2.0 report_length past the payload (lying); md_length past the report
 *                      and the payload; lying second report of a coalesced packet (whole packet
 *                      rejected); TR v1.0 length past the payload
 *   report_type        TR v2.0 rep_type 3 (reserved); in_type 7 (reserved); TR v0.5 nproto 3;
 *                      TR v1.0 nproto 5
 *   report_md          TR v2.0 RepMdBits needing 3 words with md_length 1; TR v1.0 rep_md 0x3F
 *                      with length 4 (no metadata words)
 *   inner_truncated    TR v2.0 in_type IPv4 with 12 B of inner packet; TR v0.5 inner Ethernet 10 B
 *   int_shim           v2.1-position shim type 15
 *   int_version        MD version 15 under a v2.1 shim (bare, and inside a TR v2.0 report after a
 *                      good report); MD version 3 under a v1.0 shim
 *   int_length         v2.1 shim length 2 (< the 3-word MD header); shim length past the packet
 *   int_bitmap         v2.1 bitmap 0xFC00 (8 words) with hop_ml 2; v1.0 bitmap 0xF000 with hop_ml 2
 *   int_hops           stack of 5 words with hop_ml 2; v0.5 total hop count 3 with 2 hops in the
 *                      stack; 3 hops with cfg.max_hops 2
 *   too_many           2 hops with rec_cap 1; 2 coalesced reports with rep_cap 1 (both fit by default)
 *
 * Readings encoded: md_length pointing past the report and the payload is report_length (a length
 * field pointing past its container), while RepMdBits needing more words than an in-bounds
 * md_length is report_md; a v0.5 total hop count larger than the stack is int_hops; shim type 15
 * under the v2.1 layout is int_shim.
 *
 * Also: the names of the parse outcomes, and of the drop reason codes drop reports carry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/record.h"
#include "hopwatch/wire.h"
#include "vec_util.h"

static void expect_frame_error(const struct hw_parser_config *cfg, const uint8_t *frame, size_t len,
                               enum hw_result want)
{
	struct vec_out v;
	vec_out_init(&v);
	enum hw_result got = hw_parse_frame(cfg, frame, len, VEC_TIME_NS, &v.out);
	vec_assert_rejected(got, want, &v, len);
}

/* A report payload to UDP 32766 behind Ethernet/IPv4/UDP (lengths computed by vec_udp4_frame). */
static void expect_report_error(const uint8_t *payload, size_t len, enum hw_result want)
{
	struct hw_parser_config cfg;
	uint8_t frame[512];
	hw_parser_config_default(&cfg);
	size_t n = vec_udp4_frame(frame, sizeof(frame), payload, len, 0, 32766, 0);
	assert_int_not_equal(n, 0);
	expect_frame_error(&cfg, frame, n, want);
	/* the same payload through hw_parse_report */
	struct vec_out v;
	vec_out_init(&v);
	vec_assert_rejected(hw_parse_report(&cfg, payload, len, VEC_TIME_NS, &v.out), want, &v, len);
}

/* A bare INT packet: UDP payload behind IPv4 TOS 0x5c (DSCP 0x17, the default INT DSCP). */
static void expect_int_error_cfg(const struct hw_parser_config *cfg, const uint8_t *payload, size_t len,
                                 enum hw_result want)
{
	uint8_t frame[512];
	size_t n = vec_udp4_frame(frame, sizeof(frame), payload, len, 5001, 5002, 0x5c);
	assert_int_not_equal(n, 0);
	expect_frame_error(cfg, frame, n, want);
}

static void expect_int_error(const uint8_t *payload, size_t len, enum hw_result want)
{
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	expect_int_error_cfg(&cfg, payload, len, want);
}

/* ------------------------------------------------------------------------------------------ */
static void l2_truncated(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	/* clang-format off */
	static const uint8_t short_frame[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
		0x02, 0x00, 0x00, 0x00,		    /* src MAC cut after 4 of 6 bytes */
	};
	/* clang-format on */
	expect_frame_error(&cfg, short_frame, sizeof(short_frame), HW_E_L2_TRUNCATED);
	/* clang-format off */
	static const uint8_t cut_tag[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* MACs */
		0x81, 0x00, /* TPID 802.1Q */
		0x00, 0x64, /* TCI VID 100; the tag's inner ethertype (2 B) is missing */
	};
	/* clang-format on */
	expect_frame_error(&cfg, cut_tag, sizeof(cut_tag), HW_E_L2_TRUNCATED);
}

static void ip_truncated(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	/* clang-format off */
	static const uint8_t cut_ipv4[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* MACs */
		0x08, 0x00,		/* IPv4 */
		0x45, 0x00, 0x00, 0x1c, /* IHL 5, total length 28 */
		0x00, 0x00, 0x40, 0x00, /* ID, DF */
		0x40, 0x11,		/* TTL, UDP -- frame ends after 10 of the 20 header bytes */
	};
	/* clang-format on */
	expect_frame_error(&cfg, cut_ipv4, sizeof(cut_ipv4), HW_E_IP_TRUNCATED);
	/* IPv6 whose payload length (2) matches the frame, but the payload starts an 8-byte
	 * Hop-by-Hop header: the packet ends inside its extension header */
	/* clang-format off */
	static const uint8_t cut_ext[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* MACs */
		0x86, 0xdd,		/* IPv6 */
		0x60, 0x00, 0x00, 0x00, /* version 6 */
		0x00, 0x02, 0x00, 0x40, /* payload length 2; next header 0 (Hop-by-Hop); hop limit 64 */
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, /* src */
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x64, /* dst */
		0x11, 0x00, /* HBH next header 17, hdr ext len 0 (8 B) -- only 2 B present */
	};
	/* clang-format on */
	expect_frame_error(&cfg, cut_ext, sizeof(cut_ext), HW_E_IP_TRUNCATED);
}

static void ip_header(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	/* IPv4 with IHL 4 (16 B: less than the fixed 20 B header); frame has a full 20 B + UDP */
	/* clang-format off */
	static const uint8_t ihl4[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
		0x44, 0x00, 0x00, 0x1c, /* version 4, IHL 4 (invalid), total length 28 */
		0x00, 0x00, 0x40, 0x00, /* ID, DF */
		0x40, 0x11, 0x00, 0x00, /* TTL, UDP, checksum (not relevant) */
		0x0a, 0x00, 0x00, 0x01, /* src */
		0x0a, 0x00, 0x00, 0x64, /* dst */
		0x00, 0x00, 0x7f, 0xfe, /* UDP src port 0, dst port 32766 */
		0x00, 0x08, 0x00, 0x00, /* UDP length 8 */
	};
	/* clang-format on */
	expect_frame_error(&cfg, ihl4, sizeof(ihl4), HW_E_IP_HEADER);
	/* version nibble 6 behind ethertype IPv4 */
	uint8_t v6in4[sizeof(ihl4)];
	memcpy(v6in4, ihl4, sizeof(ihl4));
	v6in4[14] = 0x65; /* version 6, IHL 5 */
	expect_frame_error(&cfg, v6in4, sizeof(v6in4), HW_E_IP_HEADER);
	/* IPv4 total length 200 in a frame that holds 28 B of IP */
	uint8_t longer[sizeof(ihl4)];
	memcpy(longer, ihl4, sizeof(ihl4));
	longer[14] = 0x45;
	longer[16] = 0x00, longer[17] = 0xc8;
	expect_frame_error(&cfg, longer, sizeof(longer), HW_E_IP_HEADER);
	/* IPv6 payload length 100 with 8 B of payload */
	/* clang-format off */
	static const uint8_t v6long[] = {
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xdd,
		0x60, 0x00, 0x00, 0x00,		/* version 6 */
		0x00, 0x64, 0x11, 0x40,		/* payload length 100 (only 8 follow); UDP; hop limit */
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x64,
		0x00, 0x00, 0x7f, 0xfe, 0x00, 0x08, 0x00, 0x00, /* UDP to 32766, length 8 */
	};
	/* clang-format on */
	expect_frame_error(&cfg, v6long, sizeof(v6long), HW_E_IP_HEADER);
}

/* a valid 24-byte TR v2.0 report: group + one report with hop latency 13 (see test_wire_outer.c) */
/* clang-format off */
static const uint8_t tr2_small[] = {
	0x20, 0x00, 0x00, 0x2a, /* ver 2 | hw_id 0 | seq 42 */
	0x00, 0x00, 0x00, 0x63, /* node 99 */
	0x10, 0x03, 0x01, 0x00, /* rep_type 1 | in_type 0; report_length 3; md_length 1; flags 0 */
	0x20, 0x00, 0x00, 0x00, /* RepMdBits 0x2000; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DSMdBits, DSMdStatus */
	0x00, 0x00, 0x00, 0x0d, /* hop latency 13 */
};
/* clang-format on */

static void udp_length(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	uint8_t frame[128];
	hw_parser_config_default(&cfg);
	/* IPv4 total length 20 + 8 + 24 = 52 is right; the UDP length says 200 */
	size_t n = vec_udp4_frame(frame, sizeof(frame), tr2_small, sizeof(tr2_small), 0, 32766, 0);
	frame[14 + 20 + 4] = 0x00, frame[14 + 20 + 5] = 0xc8;
	expect_frame_error(&cfg, frame, n, HW_E_UDP_LENGTH);
	/* UDP length 7: shorter than the UDP header itself */
	frame[14 + 20 + 5] = 0x07;
	expect_frame_error(&cfg, frame, n, HW_E_UDP_LENGTH);
}

static void report_truncated(void **state)
{
	(void)state;
	/* 5 of the 8 group header bytes */
	static const uint8_t g5[] = {0x20, 0x00, 0x00, 0x01, 0x00};
	expect_report_error(g5, sizeof(g5), HW_E_REPORT_TRUNCATED);
	/* group header + 2 of the 4 individual report header bytes */
	/* clang-format off */
	static const uint8_t i2[] = {
		0x20, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* group: ver 2, seq 1, node 1 */
		0x10, 0x03,					/* rep_type 1 | in_type 0; report_length 3 ... */
	};
	/* clang-format on */
	expect_report_error(i2, sizeof(i2), HW_E_REPORT_TRUNCATED);
	/* 10 of the 16 TR v1.0 header bytes */
	/* clang-format off */
	static const uint8_t t1[] = {
		0x14, 0x20, 0x00, 0x00, /* ver 1 | length 4 | nproto 1 ... */
		0x00, 0x00, 0x00, 0x01, /* switch id 1 */
		0x00, 0x00,		/* sequence number cut */
	};
	/* clang-format on */
	expect_report_error(t1, sizeof(t1), HW_E_REPORT_TRUNCATED);
	/* TR v0.5 nproto 2: fixed 12 B, then 8 of the 16 local header bytes */
	/* clang-format off */
	static const uint8_t t05[] = {
		0x02, 0x20, 0x00, 0x01, /* ver 0 | nproto 2 (local header); F; hw_id 1 */
		0x00, 0x00, 0x00, 0x01, /* seq 1 */
		0x00, 0x00, 0x00, 0x10, /* ingress ts */
		0x00, 0x00, 0x00, 0x65, /* local: switch id 101 */
		0x00, 0x01, 0x00, 0x02, /* ports -- queue and egress ts missing */
	};
	/* clang-format on */
	expect_report_error(t05, sizeof(t05), HW_E_REPORT_TRUNCATED);
}

static void report_version(void **state)
{
	(void)state;
	uint8_t p[sizeof(tr2_small)];
	memcpy(p, tr2_small, sizeof(p));
	p[0] = 0x30; /* version 3: no such telemetry report version */
	expect_report_error(p, sizeof(p), HW_E_REPORT_VERSION);
	p[0] = 0xf0; /* version 15 */
	expect_report_error(p, sizeof(p), HW_E_REPORT_VERSION);
}

static void report_length(void **state)
{
	(void)state;
	/* report_length 20 words (80 B) but only 3 words follow the individual header */
	uint8_t p[sizeof(tr2_small)];
	memcpy(p, tr2_small, sizeof(p));
	p[9] = 0x14;
	expect_report_error(p, sizeof(p), HW_E_REPORT_LENGTH);

	/* md_length 10 words inside a report of 3 words, at the end of the payload */
	memcpy(p, tr2_small, sizeof(p));
	p[10] = 0x0a;
	expect_report_error(p, sizeof(p), HW_E_REPORT_LENGTH);

	/* a good first report followed by a lying one: the whole packet is rejected */
	/* clang-format off */
	static const uint8_t two[] = {
		0x20, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x63, /* group: ver 2, seq 42, node 99 */
		0x10, 0x03, 0x01, 0x00,				/* report 1: length 3, md 1 */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* RepMdBits 0x2000 */
		0x00, 0x00, 0x00, 0x0d,				/* latency 13 */
		0x10, 0x09, 0x01, 0x00,				/* report 2: length 9 (only 3 follow) */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* RepMdBits 0x2000 */
		0x00, 0x00, 0x00, 0x0e,				/* latency 14 */
	};
	/* clang-format on */
	expect_report_error(two, sizeof(two), HW_E_REPORT_LENGTH);

	/* TR v1.0 length 15 words (60 B) with a 20 B payload */
	/* clang-format off */
	static const uint8_t t1[] = {
		0x1f, 0x08, 0x00, 0x00, /* ver 1 | length 15 | nproto 0 | rep_md 0x10 (b1 latency) */
		0x00, 0x00, 0x00, 0x01, /* switch id 1 */
		0x00, 0x00, 0x00, 0x01, /* seq 1 */
		0x00, 0x00, 0x00, 0x10, /* ingress ts */
		0x00, 0x00, 0x00, 0x05, /* b1: hop latency 5 */
	};
	/* clang-format on */
	expect_report_error(t1, sizeof(t1), HW_E_REPORT_LENGTH);
}

static void report_type(void **state)
{
	(void)state;
	uint8_t p[sizeof(tr2_small)];
	memcpy(p, tr2_small, sizeof(p));
	p[8] = 0x30; /* rep_type 3 (reserved) | in_type 0 */
	expect_report_error(p, sizeof(p), HW_E_REPORT_TYPE);
	p[8] = 0x17; /* rep_type 1 | in_type 7 (reserved) */
	expect_report_error(p, sizeof(p), HW_E_REPORT_TYPE);

	/* TR v0.5 nproto 3: not Ethernet, drop or local */
	/* clang-format off */
	static const uint8_t t05[] = {
		0x03, 0x20, 0x00, 0x01, /* ver 0 | nproto 3; F; hw_id 1 */
		0x00, 0x00, 0x00, 0x01, /* seq */
		0x00, 0x00, 0x00, 0x10, /* ingress ts */
		0x00, 0x00, 0x00, 0x65, 0x00, 0x01, 0x00, 0x02, /* 16 more bytes */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	/* clang-format on */
	expect_report_error(t05, sizeof(t05), HW_E_REPORT_TYPE);

	/* TR v1.0 nproto 5 (0 Ethernet, 1 IPv4, 2 IPv6 only): byte1 = 101 00000 */
	/* clang-format off */
	static const uint8_t t1[] = {
		0x14, 0xa0, 0x00, 0x40, /* ver 1 | length 4 | nproto 5 | rep_md 0 | F */
		0x00, 0x00, 0x00, 0x01, /* switch id */
		0x00, 0x00, 0x00, 0x01, /* seq */
		0x00, 0x00, 0x00, 0x10, /* ingress ts */
		0x45, 0x00, 0x00, 0x14, 0x00, 0x00, 0x40, 0x00, /* 20 B that would be an IPv4 header */
		0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
	};
	/* clang-format on */
	expect_report_error(t1, sizeof(t1), HW_E_REPORT_TYPE);
}

static void report_md(void **state)
{
	(void)state;
	/* RepMdBits 0x2800 = latency (1 word) + ingress ts (2 words) = 3 words, md_length 1; the
	 * report (length 5) and the payload hold 3 words after the fixed part, so no length field
	 * points past anything: only the bitmap/md_length disagreement is wrong */
	/* clang-format off */
	static const uint8_t p[] = {
		0x20, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* group: ver 2, seq 1, node 1 */
		0x10, 0x05, 0x01, 0x00,				/* rep_type 1 | in_type 0; length 5; md 1 */
		0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* RepMdBits 0x2800 */
		0x00, 0x00, 0x00, 0x05,				/* latency */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, /* (ingress ts, beyond md_length) */
	};
	/* clang-format on */
	expect_report_error(p, sizeof(p), HW_E_REPORT_MD);

	/* TR v1.0: rep_md 0x3F (6 words) but length 4 (header only) */
	/* clang-format off */
	static const uint8_t t1[] = {
		0x14, 0x3f, 0x80, 0x40, /* ver 1 | length 4 | nproto 1, rep_md 0x3F | F */
		0x00, 0x00, 0x00, 0x01, /* switch id */
		0x00, 0x00, 0x00, 0x01, /* seq */
		0x00, 0x00, 0x00, 0x10, /* ingress ts */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 24 B (what the metadata would be) */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	/* clang-format on */
	expect_report_error(t1, sizeof(t1), HW_E_REPORT_MD);
}

/* A report whose copy of the packet ends inside the copy's own headers is a report, not an error (TR
 * v2.0 calls the inner packet "a truncated packet fragment"): the switch's metadata is kept, the flow
 * keys read before the cut are kept, and each such report carries inner_truncated.  Parsed through
 * hw_parse_report; n records expected, each from node `node` with report flags `flags`. */
static void expect_cut_report(const uint8_t *payload, size_t len, unsigned n, uint32_t node, uint8_t flags)
{
	struct hw_parser_config cfg;
	struct vec_out v;
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_report(&cfg, payload, len, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, n);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(v.recs[i].node_id, node);
		assert_int_equal(v.recs[i].report_flags, flags);
	}
}

static void inner_truncated(void **state)
{
	(void)state;
	/* TR v2.0, in_type 4 (IPv4) with 3 words of inner packet: ends inside the 20 B IPv4 header.
	 * RepMdBits 0x2000 (hop latency 5).  One record: node 1, latency 5 kept; no flow (the addresses
	 * were not reached); flags F (0x20 in the D Q F I nibble) | postcard (no stack) | inner_truncated. */
	/* clang-format off */
	static const uint8_t p[] = {
		0x20, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /* group: ver 2, seq 1, node 1 */
		0x14, 0x06, 0x01, 0x20,				/* rep_type 1 | in_type 4; length 6; md 1; F */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* RepMdBits 0x2000 hop latency */
		0x00, 0x00, 0x00, 0x05,				/* hop latency 5 */
		0x45, 0x00, 0x00, 0x28, 0x00, 0x01, 0x40, 0x00, 0x40, 0x06, 0x00, 0x00, /* 12 B of IPv4 */
	};
	/* clang-format on */
	const uint8_t fl = HW_RF_TRACKED_FLOW | HW_RF_POSTCARD | HW_RF_INNER_TRUNCATED;
	expect_cut_report(p, sizeof(p), 1, 1, fl);
	struct hw_parser_config cfg;
	struct vec_out v;
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_report(&cfg, p, sizeof(p), VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.recs[0].valid, HW_V_HOP_LATENCY);
	assert_int_equal(v.recs[0].hop_latency, 5);

	/* The same individual report three times in one TR v2.0 packet (group 8 + 3 x 28 = 92 B): all three
	 * come out (before, the first cut copy rejected the whole packet: 3 in, 0 out). */
	uint8_t three[8 + 3 * 28];
	memcpy(three, p, 8);
	for (int i = 0; i < 3; i++)
		memcpy(three + 8 + 28 * i, p + 8, 28);
	expect_cut_report(three, sizeof(three), 3, 1, fl);

	/* The copy cut inside its UDP header (IPv4 20 B whole, 2 B of UDP): the addresses and protocol are
	 * kept, the ports are unknown (0): 10.0.0.1 -> 10.0.0.2, proto 17.  Length 9 words = 8 RepMdBits + 4
	 * latency + 22 packet + 2 padding. */
	/* clang-format off */
	static const uint8_t u[] = {
		0x20, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, /* group: ver 2, seq 2, node 1 */
		0x14, 0x09, 0x01, 0x00,				/* rep_type 1 | in_type 4; length 9; md 1 */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* RepMdBits 0x2000 hop latency */
		0x00, 0x00, 0x00, 0x07,				/* hop latency 7 */
		0x45, 0x00, 0x00, 0x30, 0x00, 0x01, 0x40, 0x00, /* IPv4, total length 48 (more than copied) */
		0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, /* TTL 64, UDP; src 10.0.0.1 */
		0x0a, 0x00, 0x00, 0x02,				/* dst 10.0.0.2 */
		0x13, 0x89, 0x00, 0x00,				/* 2 B of UDP (src port 5001), then padding */
	};
	/* clang-format on */
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
	vec_out_init(&v);
	assert_int_equal(hw_parse_report(&cfg, u, sizeof(u), VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 1);
	assert_int_equal(v.recs[0].report_flags, HW_RF_POSTCARD | HW_RF_INNER_TRUNCATED);
	vec_assert_flow4(&v.recs[0], src, dst, 17, 0, 0);
	assert_int_equal(v.recs[0].hop_latency, 7);

	/* TR v0.5 local report whose inner Ethernet header is 10 B: the report (node 0x65 = 101) is kept */
	/* clang-format off */
	static const uint8_t t05[] = {
		0x02, 0x20, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, /* fixed, nproto 2 */
		0x00, 0x00, 0x00, 0x65, 0x00, 0x01, 0x00, 0x02, /* local header */
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x20,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x22, 0x02, 0x00, 0x00, 0x00, /* 10 B of Ethernet */
	};
	/* clang-format on */
	vec_out_init(&v);
	assert_int_equal(hw_parse_report(&cfg, t05, sizeof(t05), VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 1);
	assert_int_equal(v.recs[0].node_id, 0x65);
	assert_int_not_equal(v.recs[0].report_flags & HW_RF_INNER_TRUNCATED, 0);
	assert_int_equal(v.recs[0].valid & HW_V_FLOW, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Bare INT base: v2.1 shim, MD header, 2 hops of node id (hop_ml 1) = 4 + 12 + 8 = 24 B. */
/* clang-format off */
static const uint8_t int21_ok[] = {
	0x10, 0x05, 0x00, 0x00, /* shim: type 1 | NPT 0; length 5 = 3 + 2 */
	0x20, 0x00, 0x01, 0x06, /* MD: ver 2 | hop_ml 1 | rhc 6 */
	0x80, 0x00, 0x00, 0x00, /* bitmap 0x8000 node id */
	0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x02, /* node 2 */
	0x00, 0x00, 0x00, 0x01, /* node 1 */
};
/* clang-format on */

static void int_base_is_valid(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[128];
	hw_parser_config_default(&cfg);
	size_t n = vec_udp4_frame(frame, sizeof(frame), int21_ok, sizeof(int21_ok), 5001, 5002, 0x5c);
	vec_out_init(&v);
	/* the unmodified base vector parses: the error vectors below differ in one field only */
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 2);
	assert_int_equal(v.recs[0].node_id, 1);
	assert_int_equal(v.recs[1].node_id, 2);
	/* and the small report too */
	vec_out_init(&v);
	assert_int_equal(hw_parse_report(&cfg, tr2_small, sizeof(tr2_small), VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 1);
}

static void int_shim(void **state)
{
	(void)state;
	uint8_t p[sizeof(int21_ok)];
	memcpy(p, int21_ok, sizeof(p));
	p[0] = 0xf0; /* type 15 (reserved; 1 MD, 2 destination, 3 MX) */
	expect_int_error(p, sizeof(p), HW_E_INT_SHIM);
}

static void int_version(void **state)
{
	(void)state;
	uint8_t p[sizeof(int21_ok)];
	memcpy(p, int21_ok, sizeof(p));
	p[4] = 0xf0; /* MD version 15 */
	expect_int_error(p, sizeof(p), HW_E_INT_VERSION);

	/* v1.0 shim (type byte 1, length incl. shim) with MD version 3 */
	/* clang-format off */
	static const uint8_t v10[] = {
		0x01, 0x00, 0x05, 0x00, /* v1.0 shim: type 1 | rsvd | length 5 = 1 + 2 + 2 | DSCP 0 */
		0x30, 0x00, 0x01, 0x06, /* MD: version 3 (unknown) | hop_ml 1 | rhc 6 */
		0x80, 0x00, 0x00, 0x00, /* bitmap 0x8000 */
		0x00, 0x00, 0x00, 0x02, /* node 2 */
		0x00, 0x00, 0x00, 0x01, /* node 1 */
	};
	/* clang-format on */
	expect_int_error(v10, sizeof(v10), HW_E_INT_VERSION);

	/* inside a TR v2.0 packet, in the second report; the first report is fine.
	 * report 2 inner: IPv4 20 + UDP 8 + 24 = 52 B = 13 words; report_length 2 + 0 + 13 = 15 */
	/* clang-format off */
	static const uint8_t rep[] = {
		0x20, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x63, /* group: ver 2, seq 42, node 99 */
		0x10, 0x03, 0x01, 0x00,				/* report 1: in_type 0, length 3, md 1 */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* RepMdBits 0x2000 */
		0x00, 0x00, 0x00, 0x0d,				/* latency 13 */
		0x14, 0x0f, 0x00, 0x20,				/* report 2: in_type 4, length 15, md 0, F */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* RepMdBits 0 */
		0x45, 0x5c, 0x00, 0x34, 0x00, 0x00, 0x40, 0x00, /* IPv4 DSCP 0x17, total length 52 */
		0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x01, /* UDP, checksum 0, src 10.0.0.1 */
		0x0a, 0x00, 0x00, 0x02,				/* dst 10.0.0.2 */
		0x13, 0x89, 0x13, 0x8a, 0x00, 0x20, 0x00, 0x00, /* UDP 5001 -> 5002, length 32 */
		0x10, 0x05, 0x00, 0x00,				/* INT v2.1 shim, length 5 */
		0xf0, 0x00, 0x01, 0x06,				/* MD version 15 (unknown) */
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* bitmap 0x8000 */
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, /* nodes 2, 1 */
	};
	/* clang-format on */
	expect_report_error(rep, sizeof(rep), HW_E_INT_VERSION);
}

static void int_length(void **state)
{
	(void)state;
	uint8_t p[sizeof(int21_ok)];
	memcpy(p, int21_ok, sizeof(p));
	p[1] = 0x02; /* shim length 2 words: below the 3-word MD header */
	expect_int_error(p, sizeof(p), HW_E_INT_LENGTH);
	p[1] = 0x28; /* shim length 40 words (160 B) with 20 B after the shim */
	expect_int_error(p, sizeof(p), HW_E_INT_LENGTH);
}

static void int_bitmap(void **state)
{
	(void)state;
	uint8_t p[sizeof(int21_ok)];
	memcpy(p, int21_ok, sizeof(p));
	p[6] = 0x02;              /* hop_ml 2: the stack of 2 words is then 1 hop */
	p[8] = 0xfc, p[9] = 0x00; /* bitmap 0xFC00 needs 1+1+1+1+2+2 = 8 words per hop > hop_ml 2 */
	expect_int_error(p, sizeof(p), HW_E_INT_BITMAP);

	/* v1.0: bitmap 0xF000 = 4 words (4 B each) with hop_ml 2 */
	/* clang-format off */
	static const uint8_t v10[] = {
		0x01, 0x00, 0x05, 0x00, /* v1.0 shim, length 5 = 1 + 2 + 2 */
		0x10, 0x00, 0x02, 0x06, /* MD: ver 1 | hop_ml 2 | rhc 6 */
		0xf0, 0x00, 0x00, 0x00, /* bitmap 0xF000: switch, ports, latency, queue = 4 words */
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, /* one 2-word hop */
	};
	/* clang-format on */
	expect_int_error(v10, sizeof(v10), HW_E_INT_BITMAP);
}

static void int_hops(void **state)
{
	(void)state;
	/* hop_ml 2, shim length 3 + 5 = 8: a stack of 5 words is not a whole number of hops */
	/* clang-format off */
	static const uint8_t odd[] = {
		0x10, 0x08, 0x00, 0x00, /* shim: length 8 */
		0x20, 0x00, 0x02, 0x06, /* MD: ver 2 | hop_ml 2 */
		0xa0, 0x00, 0x00, 0x00, /* bitmap node + latency (2 words) */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05, /* hop: node 2, latency 5 */
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, /* hop: node 1, latency 4 */
		0x00, 0x00, 0x00, 0x07,				/* a fifth word */
	};
	/* clang-format on */
	expect_int_error(odd, sizeof(odd), HW_E_INT_HOPS);

	/* v0.5: total hop count 3 with ins_cnt 1 needs 3 words; the shim length (1 + 2 + 2 + 1 = 6)
	 * and the packet hold a stack of 2 */
	/* clang-format off */
	static const uint8_t v05[] = {
		0x01, 0x00, 0x06, 0x00, /* v0.5 shim: length 6 (incl. shim and tail) */
		0x00, 0x01, 0x08, 0x03, /* MD: ver 0 | ins_cnt 1 | max hop 8 | total hop count 3 */
		0x80, 0x00, 0x00, 0x00, /* bitmap switch id */
		0x00, 0x00, 0x00, 0x02, /* switch 2 */
		0x00, 0x00, 0x00, 0x01, /* switch 1 */
		0x11, 0x13, 0x8a, 0x00, /* tail: UDP, dport 5002, DSCP 0 */
	};
	/* clang-format on */
	expect_int_error(v05, sizeof(v05), HW_E_INT_HOPS);

	/* 3 hops with cfg.max_hops 2 */
	/* clang-format off */
	static const uint8_t three[] = {
		0x10, 0x06, 0x00, 0x00, /* shim: length 6 = 3 + 3 */
		0x20, 0x00, 0x01, 0x05, /* MD: ver 2 | hop_ml 1 */
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* bitmap node id */
		0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, /* nodes 3, 2, 1 */
	};
	/* clang-format on */
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	cfg.max_hops = 2;
	expect_int_error_cfg(&cfg, three, sizeof(three), HW_E_INT_HOPS);
}

static void too_many(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[128];
	hw_parser_config_default(&cfg);

	/* 2 hops into rec_cap 1 */
	size_t n = vec_udp4_frame(frame, sizeof(frame), int21_ok, sizeof(int21_ok), 5001, 5002, 0x5c);
	vec_out_init(&v);
	v.out.rec_cap = 1;
	vec_assert_rejected(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_E_TOO_MANY, &v, n);

	/* 2 coalesced reports into rep_cap 1 */
	/* clang-format off */
	static const uint8_t two[] = {
		0x20, 0x00, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x63, /* group: ver 2, seq 42, node 99 */
		0x10, 0x03, 0x01, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x0d, /* report 1: latency 13 */
		0x10, 0x03, 0x01, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x0e, /* report 2: latency 14 */
	};
	/* clang-format on */
	n = vec_udp4_frame(frame, sizeof(frame), two, sizeof(two), 0, 32766, 0);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK); /* fits by default */
	assert_int_equal(v.out.n_reps, 2);
	vec_out_init(&v);
	v.out.rep_cap = 1;
	vec_assert_rejected(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_E_TOO_MANY, &v, n);
}

static void result_names(void **state)
{
	(void)state;
	/* the names the collector prints at exit (docs/records.md) */
	assert_string_equal(hw_result_name(HW_E_L2_TRUNCATED), "l2_truncated");
	assert_string_equal(hw_result_name(HW_E_IP_HEADER), "ip_header");
	assert_string_equal(hw_result_name(HW_E_REPORT_LENGTH), "report_length");
	assert_string_equal(hw_result_name(HW_E_INT_BITMAP), "int_bitmap");
	assert_string_equal(hw_result_name(HW_E_INT_HOPS), "int_hops");
}

/* Drop reason codes as switch.p4 (SWITCH_DROP_REASON_MTU_CHECK_FAIL 70, _TRAFFIC_MANAGER 71, _WRED 73, _ACL_DENY
 * 80, _INGRESS_PFC_WD_DROP 101) and fabric-tna (DROP_REASON_MPLS_TTL_ZERO 131) define them; 200 neither does. */
static void drop_reason_names(void **state)
{
	(void)state;
	assert_string_equal(hw_drop_reason_name(70), "MTU check failed: frame larger than the port's MTU");
	assert_string_equal(hw_drop_reason_name(71), "traffic manager: queue or buffer full");
	assert_string_equal(hw_drop_reason_name(73), "WRED (random early drop)");
	assert_string_equal(hw_drop_reason_name(80), "ACL deny");
	assert_string_equal(hw_drop_reason_name(101), "ingress PFC watchdog");
	assert_string_equal(hw_drop_reason_name(131), "MPLS TTL zero");
	assert_null(hw_drop_reason_name(200));
	assert_null(hw_drop_reason_name(256)); /* not an 8-bit code */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(l2_truncated),      cmocka_unit_test(ip_truncated),      cmocka_unit_test(ip_header),
	    cmocka_unit_test(udp_length),        cmocka_unit_test(report_truncated),  cmocka_unit_test(report_version),
	    cmocka_unit_test(report_length),     cmocka_unit_test(report_type),       cmocka_unit_test(report_md),
	    cmocka_unit_test(inner_truncated),   cmocka_unit_test(int_base_is_valid), cmocka_unit_test(int_shim),
	    cmocka_unit_test(int_version),       cmocka_unit_test(int_length),        cmocka_unit_test(int_bitmap),
	    cmocka_unit_test(int_hops),          cmocka_unit_test(too_many),          cmocka_unit_test(result_names),
	    cmocka_unit_test(drop_reason_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
