/* Telemetry Report v1.0 through hw_parse_frame / hw_parse_report.
 *
 * Spec: p4lang/p4-applications tag telemetry_v1.0, telemetry/specs/telemetry_report.mdk:
 *   word 0   ver:4 (=1) | length:4 (words of the report header incl. optional metadata) |
 *            nproto:3 (0 Ethernet, 1 IPv4, 2 IPv6) | rep_md_bits:6 | rsvd:6 | D | Q | F | hw_id:6
 *   word 1   switch id; word 2 sequence number; word 3 ingress timestamp (32 bits)
 *   then 4 B per rep_md bit, MSB first: b0 (0x20) ports 16+16, b1 (0x10) hop latency, b2 (0x08)
 *   queue id 8 + occupancy 24, b3 (0x04) egress timestamp, b4 (0x02) queue id 8 + drop reason 8 +
 *   pad 16, b5 (0x01) egress port tx utilization; then the inner packet.
 * Embedded INT stacks: INT v1.0 (tag telemetry_v1.0, INT.mdk): shim type:8 rsvd:8 length:8 (words
 * INCLUDING the shim) dscp:6 r:2; MD ver:4 (1) rep:2 C E M rsvd:10 hop_ml:5 rhc:8 bitmap:16 rsvd:16.
 *
 * Byte 1..3 of word 0 by hand: byte1 = nproto << 5 | rep_md >> 1,
 * byte2 = (rep_md & 1) << 7 | rsvd << 1 | D, byte3 = Q << 7 | F << 6 | hw_id.
 *
 * Vectors:
 *   tr1_every_rep_md_bit   literal frame; rep_md 0x3F (all six words), D Q F, nproto 1 (IPv4)
 *   tr1_parse_report_api   same report through hw_parse_report
 *   tr1_int10_stack_wrap   nproto 1, inner UDP with an INT v1.0 stack of 2 hops; rep_md 0x04 only,
 *                          32-bit timestamps wrapping: hop_latency = egress - ingress mod 2^32
 *   tr1_ipv6_unavailable   nproto 2 (IPv6 inner); egress ts all ones -> no egress ts, no latency
 *   tr1_ethernet_merge     nproto 0 (Ethernet inner) with INT v1.0 over TCP; the newest stack hop is
 *                          the reporting switch -> merged into one last hop
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

/* Vector 1.  Lengths by hand:
 *   report header = 16 fixed + 6 metadata words * 4 = 40 B -> length field 10
 *   inner IPv4 = 20 + TCP 20 = 40 B (total length 0x0028)
 *   UDP payload = 40 + 40 = 80 B; UDP length = 88 (0x0058); IPv4 total length = 108 (0x006c)
 *   frame = 14 + 108 = 122 B */
/* clang-format off */
static const uint8_t v1_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x00, 0x00, 0x6c,		    /* IHL 5, TOS 0, total length 108 */
	0x00, 0x00, 0x40, 0x00,		    /* ID 0, DF */
	0x40, 0x11, 0x26, 0x13,		    /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x00, 0x0b,		    /* src 10.0.0.11 */
	0x0a, 0x00, 0x00, 0x64,		    /* dst 10.0.0.100 */
	0x00, 0x00, 0x7f, 0xfe,		    /* UDP src port 0, dst port 32766 */
	0x00, 0x58, 0x00, 0x00,		    /* UDP length 88, checksum 0 */
	/* TR v1.0 header */
	0x1a,			/* ver 1 | length 10 words */
	0x3f,			/* nproto 1 (IPv4) = 001 | rep_md bits 0..4 = 11111 */
	0x81,			/* rep_md bit 5 = 1 | rsvd 000000 | D 1 */
	0xc7,			/* Q 1 | F 1 | hw_id 7 */
	0x00, 0x00, 0x00, 0x0b, /* switch id 11 */
	0xde, 0xad, 0xbe, 0xef, /* sequence number 0xdeadbeef */
	0x00, 0x00, 0x10, 0x00, /* ingress timestamp 0x1000 */
	0x00, 0x01, 0x00, 0x02, /* b0: ingress port 1, egress port 2 */
	0x00, 0x00, 0x02, 0x00, /* b1: hop latency 512 (given: NOT egress - ingress = 0x300) */
	0x04, 0x00, 0x00, 0x10, /* b2: queue id 4, occupancy 16 */
	0x00, 0x00, 0x13, 0x00, /* b3: egress timestamp 0x1300 */
	0x04, 0x2a, 0x00, 0x00, /* b4: queue id 4, drop reason 42, pad */
	0x00, 0x00, 0x00, 0x64, /* b5: egress port tx utilization 100 */
	/* inner IPv4 + TCP */
	0x45, 0x00, 0x00, 0x28, /* IHL 5, TOS 0, total length 40 */
	0x00, 0x07, 0x40, 0x00, /* ID 7, DF */
	0x40, 0x06, 0xe2, 0xa5, /* TTL 64, TCP, checksum */
	0xac, 0x10, 0x00, 0x01, /* src 172.16.0.1 */
	0xac, 0x10, 0x00, 0x02, /* dst 172.16.0.2 */
	0x0b, 0xb8, 0x0f, 0xa0, /* TCP src port 3000, dst port 4000 */
	0x00, 0x00, 0x00, 0x01, /* seq */
	0x00, 0x00, 0x00, 0x00, /* ack */
	0x50, 0x10, 0x10, 0x00, /* data offset 5, ACK, window */
	0x00, 0x00, 0x00, 0x00, /* checksum, urgent */
};
/* clang-format on */
#define V1_PAYLOAD_OFF (14 + 20 + 8)

static void check_v1(const struct vec_out *v)
{
	static const uint8_t src[4] = {172, 16, 0, 1}, dst[4] = {172, 16, 0, 2};
	const uint8_t fl = HW_RF_DROPPED | HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW | HW_RF_POSTCARD;
	assert_int_equal(v->out.n_reps, 1);
	assert_int_equal(v->out.n_recs, 1);
	assert_int_equal(v->reps[0].node, 11);
	assert_int_equal(v->reps[0].seq, 0xdeadbeef);
	assert_int_equal(v->reps[0].hw_id, 7);
	assert_int_equal(v->reps[0].format, HW_FORMAT_TR10);
	assert_int_equal(v->reps[0].flags, fl);
	assert_int_equal(v->reps[0].seq_bits, 32);
	assert_int_equal(v->reps[0].first, 0);
	assert_int_equal(v->reps[0].n_hops, 1);
	assert_int_equal(v->reps[0].drop_reason, 42);
	const struct hw_record *r = &v->recs[0];
	vec_assert_report_fields(r, 11, 7, 0xdeadbeef, fl, HW_FORMAT_TR10, 1);
	assert_int_equal(r->hop_index, 0);
	assert_int_equal(r->node_id, 11);
	assert_int_equal(r->int_version, HW_INT_NONE);
	assert_int_equal(r->valid, HW_V_PORTS | HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS |
	                               HW_V_DROP | HW_V_TX_UTIL | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(r->ingress_port, 1);
	assert_int_equal(r->egress_port, 2);
	assert_int_equal(r->hop_latency, 512);
	assert_int_equal(r->queue_id, 4);
	assert_int_equal(r->queue_occupancy, 16);
	assert_int_equal(r->ingress_ts, 0x1000);
	assert_int_equal(r->egress_ts, 0x1300);
	assert_int_equal(r->drop_reason, 42);
	assert_int_equal(r->egress_tx_util, 100);
	vec_assert_flow4(r, src, dst, 6, 3000, 4000);
	vec_assert_tclass(r, 0, 0);
}

static void tr1_every_rep_md_bit(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	hw_parser_config_default(&cfg);
	vec_check_frame(v1_frame, sizeof(v1_frame));
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, v1_frame, sizeof(v1_frame), VEC_TIME_NS, &v.out), HW_OK);
	check_v1(&v);
}

static void tr1_parse_report_api(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(
	    hw_parse_report(&cfg, v1_frame + V1_PAYLOAD_OFF, sizeof(v1_frame) - V1_PAYLOAD_OFF, VEC_TIME_NS, &v.out),
	    HW_OK);
	check_v1(&v);
}

/* Vector 2: header 16 + 1 metadata word = 20 B (length 5); inner IPv4 20 + UDP 8 + INT shim 4 +
 * MD 8 + stack 16 = 56 B (total length 0x38, UDP length 36 = 0x24); INT v1.0 shim length =
 * 1 (shim) + 2 (MD) + 4 (stack) = 7 words.  UDP payload = 20 + 56 = 76 B. */
/* clang-format off */
static const uint8_t v2_payload[] = {
	0x15,			/* ver 1 | length 5 */
	0x22,			/* nproto 1 = 001 | rep_md bits 0..4 = 00010 (rep_md 0x04: b3 egress ts) */
	0x00,			/* rep_md bit 5 = 0 | rsvd | D 0 */
	0x42,			/* Q 0 | F 1 | hw_id 2 */
	0x00, 0x00, 0x00, 0x0c, /* switch id 12 */
	0x00, 0x00, 0x00, 0x01, /* sequence number 1 */
	0xff, 0xff, 0xff, 0x00, /* ingress timestamp 0xffffff00 (just before the 32-bit wrap) */
	0x00, 0x00, 0x01, 0x00, /* b3: egress timestamp 0x00000100 (after the wrap) */
	0x45, 0x5c, 0x00, 0x38, /* inner IPv4, TOS 0x5c = DSCP 0x17 (INT) | ECN 0, total length 56 */
	0x00, 0x08, 0x40, 0x00, /* ID 8, DF */
	0x40, 0x11, 0x23, 0x4f, /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x01, 0x01, /* src 10.0.1.1 */
	0x0a, 0x00, 0x02, 0x02, /* dst 10.0.2.2 */
	0x13, 0x89, 0x13, 0x8a, /* UDP src port 5001, dst port 5002 */
	0x00, 0x24, 0x00, 0x00, /* UDP length 36, checksum 0 */
	0x01, 0x00, 0x07, 0x00, /* INT v1.0 shim: type 1 (hop-by-hop) | rsvd | length 7 | DSCP 0, R R */
	0x10, 0x00, 0x02, 0x06, /* MD: ver 1, rep 0, C E M 0 | rsvd | hop_ml 2 | remaining hop count 6 */
	0x90, 0x00, 0x00, 0x00, /* bitmap 0x8000 switch id | 0x1000 queue id + occupancy; rsvd */
	0x00, 0x00, 0x00, 0x0b, /* newest hop: switch id 11 */
	0x01, 0x00, 0x00, 0x20, /*             queue id 1, occupancy 32 */
	0x00, 0x00, 0x00, 0x0a, /* oldest hop: switch id 10 */
	0x01, 0x00, 0x00, 0x10, /*             queue id 1, occupancy 16 */
};
/* clang-format on */

static void tr1_int10_stack_wrap(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 1, 1}, dst[4] = {10, 0, 2, 2};
	assert_int_equal(sizeof(v2_payload), 76);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v2_payload, sizeof(v2_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 3);
	assert_int_equal(v.reps[0].flags, HW_RF_TRACKED_FLOW);
	for (unsigned i = 0; i < 3; i++) {
		vec_assert_report_fields(&v.recs[i], 12, 2, 1, HW_RF_TRACKED_FLOW, HW_FORMAT_TR10, 3);
		assert_int_equal(v.recs[i].hop_index, i);
		vec_assert_flow4(&v.recs[i], src, dst, 17, 5001, 5002);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
	}
	assert_int_equal(v.recs[0].node_id, 10);
	assert_int_equal(v.recs[0].int_version, HW_INT_V10);
	assert_int_equal(v.recs[0].valid, HW_V_QUEUE | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[0].queue_id, 1);
	assert_int_equal(v.recs[0].queue_occupancy, 16);
	assert_int_equal(v.recs[1].node_id, 11);
	assert_int_equal(v.recs[1].int_version, HW_INT_V10);
	assert_int_equal(v.recs[1].queue_occupancy, 32);
	/* the reporting switch: 0x00000100 - 0xffffff00 mod 2^32 = 0x200 */
	assert_int_equal(v.recs[2].node_id, 12);
	assert_int_equal(v.recs[2].int_version, HW_INT_NONE);
	assert_int_equal(v.recs[2].valid,
	                 HW_V_INGRESS_TS | HW_V_EGRESS_TS | HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[2].ingress_ts, 0xffffff00u);
	assert_int_equal(v.recs[2].egress_ts, 0x00000100u);
	assert_int_equal(v.recs[2].hop_latency, 0x200);
}

/* Vector 3: header 16 + 2 words = 24 B (length 6); inner IPv6 40 + TCP 20 = 60 B (payload length
 * 20).  UDP payload = 84 B. */
/* clang-format off */
static const uint8_t v3_payload[] = {
	0x16,			/* ver 1 | length 6 */
	0x52,			/* nproto 2 (IPv6) = 010 | rep_md bits 0..4 = 10010 (rep_md 0x24: b0 ports, b3) */
	0x00,			/* rep_md bit 5 = 0 | rsvd | D 0 */
	0x80,			/* Q 1 | F 0 | hw_id 0 */
	0x00, 0x00, 0x00, 0x0d, /* switch id 13 */
	0x00, 0x00, 0x00, 0x02, /* sequence number 2 */
	0x00, 0x00, 0x00, 0x64, /* ingress timestamp 100 */
	0x00, 0x05, 0x00, 0x06, /* b0: ports 5 -> 6 */
	0xff, 0xff, 0xff, 0xff, /* b3: egress timestamp unavailable (all ones) */
	0x60, 0x00, 0x00, 0x00, /* inner IPv6: ver 6, TC 0, flow label 0 */
	0x00, 0x14, 0x06, 0x40, /* payload length 20, next header 6 TCP, hop limit 64 */
	0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* src fd00::1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* dst fd00::2 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x16, 0xc3, 0x50, /* TCP src port 22, dst port 50000 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, ack */
	0x50, 0x10, 0x01, 0x00, /* data offset 5, ACK, window */
	0x00, 0x00, 0x00, 0x00, /* checksum, urgent */
};
/* clang-format on */

static void tr1_ipv6_unavailable(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t dst[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	assert_int_equal(sizeof(v3_payload), 84);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v3_payload, sizeof(v3_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 1);
	const struct hw_record *r = &v.recs[0];
	vec_assert_report_fields(r, 13, 0, 2, HW_RF_CONGESTED_QUEUE | HW_RF_POSTCARD, HW_FORMAT_TR10, 1);
	assert_int_equal(r->node_id, 13);
	assert_int_equal(r->valid, HW_V_PORTS | HW_V_INGRESS_TS | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(r->ingress_port, 5);
	assert_int_equal(r->egress_port, 6);
	assert_int_equal(r->ingress_ts, 100);
	vec_assert_flow(r, src, dst, 6, 22, 50000);
	vec_assert_tclass(r, 0, 0);
}

/* Vector 4: header 16 + 1 word = 20 B (length 5); inner Ethernet 14 + IPv4 20 + TCP 20 + INT shim 4
 * + MD 8 + stack 8 = 74 B; IPv4 total length 60 (0x3c); INT v1.0 shim length 1 + 2 + 2 = 5.
 * UDP payload = 94 B. */
/* clang-format off */
static const uint8_t v4_payload[] = {
	0x15,			/* ver 1 | length 5 */
	0x08,			/* nproto 0 (Ethernet) = 000 | rep_md bits 0..4 = 01000 (rep_md 0x10: b1) */
	0x00,			/* rep_md bit 5 = 0 | rsvd | D 0 */
	0x41,			/* Q 0 | F 1 | hw_id 1 */
	0x00, 0x00, 0x00, 0x0e, /* switch id 14 */
	0x00, 0x00, 0x00, 0x03, /* sequence number 3 */
	0x00, 0x00, 0x20, 0x00, /* ingress timestamp 0x2000 */
	0x00, 0x00, 0x00, 0x33, /* b1: hop latency 51 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0b, /* inner Ethernet dst */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, /* src */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x5c, 0x00, 0x3c,		    /* IHL 5, DSCP 0x17 | ECN 0, total length 60 */
	0x00, 0x09, 0x40, 0x00,		    /* ID 9, DF */
	0x40, 0x06, 0xa5, 0x03,		    /* TTL 64, TCP, checksum */
	0xc0, 0xa8, 0x0a, 0x01,		    /* src 192.168.10.1 */
	0xc0, 0xa8, 0x0a, 0x02,		    /* dst 192.168.10.2 */
	0x9c, 0x40, 0x00, 0x50,		    /* TCP src port 40000, dst port 80 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, ack */
	0x50, 0x18, 0x01, 0x00,		    /* data offset 5 (INT right after), PSH ACK, window */
	0x00, 0x00, 0x00, 0x00,		    /* checksum, urgent */
	0x01, 0x00, 0x05, 0x00,		    /* INT v1.0 shim: type 1 | rsvd | length 5 | DSCP 0 */
	0x10, 0x00, 0x01, 0x06,		    /* MD ver 1 | hop_ml 1 | remaining hop count 6 */
	0x80, 0x00, 0x00, 0x00,		    /* bitmap 0x8000 switch id; rsvd */
	0x00, 0x00, 0x00, 0x0e,		    /* newest hop: switch id 14 (= the reporting switch) */
	0x00, 0x00, 0x00, 0x0d,		    /* oldest hop: switch id 13 */
};
/* clang-format on */

static void tr1_ethernet_merge(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {192, 168, 10, 1}, dst[4] = {192, 168, 10, 2};
	assert_int_equal(sizeof(v4_payload), 94);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v4_payload, sizeof(v4_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 2);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_report_fields(&v.recs[i], 14, 1, 3, HW_RF_TRACKED_FLOW, HW_FORMAT_TR10, 2);
		assert_int_equal(v.recs[i].hop_index, i);
		assert_int_equal(v.recs[i].int_version, HW_INT_V10);
		vec_assert_flow4(&v.recs[i], src, dst, 6, 40000, 80);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
	}
	assert_int_equal(v.recs[0].node_id, 13);
	assert_int_equal(v.recs[0].valid, HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[1].node_id, 14);
	assert_int_equal(v.recs[1].valid, HW_V_HOP_LATENCY | HW_V_INGRESS_TS | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[1].hop_latency, 51);
	assert_int_equal(v.recs[1].ingress_ts, 0x2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tr1_every_rep_md_bit), cmocka_unit_test(tr1_parse_report_api),
	    cmocka_unit_test(tr1_int10_stack_wrap), cmocka_unit_test(tr1_ipv6_unavailable),
	    cmocka_unit_test(tr1_ethernet_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
