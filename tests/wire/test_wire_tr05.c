/* Telemetry Report v0.5 (fabric-tna / Deep Insight, INT-XD postcards) through hw_parse_frame.
 *
 * Spec: p4lang/p4-applications tag telemetry_v0.5, telemetry/specs/telemetry_report.mdk, and the
 * fabric-tna header layouts in include/hopwatch/wire_layout.h:
 *   fixed 12 B  ver:4 (0) | nproto:4 (0 Ethernet, 1 drop header + Ethernet, 2 switch-local header
 *               + Ethernet) | D Q F | rsvd:15 | hw_id:6 | seq:32 | ingress_ts:32
 *   local 16 B  switch_id:32 | ig_port:16 | eg_port:16 | queue_id:8 | queue_occ:24 | egress_ts:32
 *   drop  12 B  switch_id:32 | ig_port:16 | eg_port:16 | queue_id:8 | drop_reason:8 | pad:16
 * fabric-tna sends them to UDP 32766 from source port 0; timestamps are 32-bit ns and wrap every
 * ~4.3 s, so hop_latency = egress_ts - ingress_ts mod 2^32.
 * Embedded INT v0.5 (tag telemetry_v0.5, INT.mdk): shim type:8 rsvd:8 length:8 (words incl. shim
 * and 4 B tail) rsvd:8; MD ver:4 (0) rep:2 C E rsvd:3 ins_cnt:5 max_hop:8 total_hop:8 bitmap:16
 * rsvd:16; tail proto:8 dport:16 dscp:8.
 *
 * Byte 0/1/3 of the fixed header by hand: byte0 = ver << 4 | nproto, byte1 = D << 7 | Q << 6 |
 * F << 5 | rsvd, byte3 = rsvd:2 | hw_id:6.
 *
 * Vectors:
 *   tr05_local_wrap      literal frame; nproto 2 (local header), F, ingress 0xffffff00 / egress
 *                        0x00000100 -> hop_latency 0x200 across the 32-bit wrap
 *   tr05_parse_report    same through hw_parse_report
 *   tr05_drop            nproto 1 (drop header), D, drop reason -> record and hw_report
 *   tr05_local_int05     nproto 2 with an INT v0.5 stack in the inner packet whose newest hop is
 *                        the reporting switch (merged)
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
 *   inner = Ethernet 14 + IPv4 20 + UDP 8 + 4 data = 46 B (inner IPv4 total length 32 = 0x20,
 *           inner UDP length 12 = 0x0c)
 *   UDP payload = fixed 12 + local 16 + inner 46 = 74 B; UDP length 82 (0x52);
 *   IPv4 total length 20 + 82 = 102 (0x66); frame 14 + 102 = 116 B */
/* clang-format off */
static const uint8_t v1_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x00, 0x00, 0x66,		    /* IHL 5, TOS 0, total length 102 */
	0x00, 0x00, 0x40, 0x00,		    /* ID 0, DF */
	0x40, 0x11, 0x26, 0x1f,		    /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x00, 0x05,		    /* src 10.0.0.5 */
	0x0a, 0x00, 0x00, 0x64,		    /* dst 10.0.0.100 */
	0x00, 0x00, 0x7f, 0xfe,		    /* UDP src port 0 (fabric-tna), dst port 32766 */
	0x00, 0x52, 0x00, 0x00,		    /* UDP length 82, checksum 0 */
	/* fixed header */
	0x02,			/* ver 0 | nproto 2 (switch-local header + Ethernet) */
	0x20,			/* D 0 Q 0 F 1 | rsvd */
	0x00,			/* rsvd */
	0x01,			/* rsvd:2 | hw_id 1 */
	0x00, 0x00, 0x00, 0x07, /* sequence number 7 */
	0xff, 0xff, 0xff, 0x00, /* ingress timestamp 0xffffff00 */
	/* switch-local header */
	0x00, 0x00, 0x00, 0x65, /* switch id 101 */
	0x00, 0x01, 0x00, 0x02, /* ingress port 1, egress port 2 */
	0x00, 0x00, 0x01, 0x23, /* queue id 0, queue occupancy 0x000123 = 291 */
	0x00, 0x00, 0x01, 0x00, /* egress timestamp 0x00000100 (wrapped) */
	/* inner Ethernet */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x22, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x11, /* src MAC */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x00, 0x00, 0x20,		    /* IHL 5, TOS 0, total length 32 */
	0x00, 0x09, 0x40, 0x00,		    /* ID 9, DF */
	0x40, 0x11, 0x26, 0xc2,		    /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x00, 0x01,		    /* src 10.0.0.1 */
	0x0a, 0x00, 0x00, 0x02,		    /* dst 10.0.0.2 */
	0x04, 0x00, 0x08, 0x00,		    /* UDP src port 1024, dst port 2048 */
	0x00, 0x0c, 0x00, 0x00,		    /* UDP length 12, checksum 0 */
	0x01, 0x02, 0x03, 0x04,		    /* data */
};
/* clang-format on */
#define V1_PAYLOAD_OFF (14 + 20 + 8)

static void check_v1(const struct vec_out *v)
{
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
	const uint8_t fl = HW_RF_TRACKED_FLOW | HW_RF_POSTCARD;
	assert_int_equal(v->out.n_reps, 1);
	assert_int_equal(v->out.n_recs, 1);
	assert_int_equal(v->reps[0].node, 101);
	assert_int_equal(v->reps[0].seq, 7);
	assert_int_equal(v->reps[0].hw_id, 1);
	assert_int_equal(v->reps[0].format, HW_FORMAT_TR05);
	assert_int_equal(v->reps[0].flags, fl);
	assert_int_equal(v->reps[0].seq_bits, 32);
	assert_int_equal(v->reps[0].n_hops, 1);
	const struct hw_record *r = &v->recs[0];
	vec_assert_report_fields(r, 101, 1, 7, fl, HW_FORMAT_TR05, 1);
	assert_int_equal(r->hop_index, 0);
	assert_int_equal(r->node_id, 101);
	assert_int_equal(r->int_version, HW_INT_NONE);
	assert_int_equal(r->valid, HW_V_PORTS | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS | HW_V_HOP_LATENCY |
	                               HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(r->ingress_port, 1);
	assert_int_equal(r->egress_port, 2);
	assert_int_equal(r->queue_id, 0);
	assert_int_equal(r->queue_occupancy, 291);
	assert_int_equal(r->ingress_ts, 0xffffff00u);
	assert_int_equal(r->egress_ts, 0x00000100u);
	assert_int_equal(r->hop_latency, 0x200); /* 0x100 - 0xffffff00 mod 2^32 = 512 */
	vec_assert_flow4(r, src, dst, 17, 1024, 2048);
	vec_assert_tclass(r, 0, 0);
}

static void tr05_local_wrap(void **state)
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

static void tr05_parse_report(void **state)
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

/* Vector 2: fixed 12 + drop 12 + inner Ethernet 14 + IPv4 20 + TCP 20 = 78 B of UDP payload. */
/* clang-format off */
static const uint8_t v2_payload[] = {
	0x01,			/* ver 0 | nproto 1 (drop header + Ethernet) */
	0x80,			/* D 1 Q 0 F 0 | rsvd */
	0x00,			/* rsvd */
	0x02,			/* rsvd:2 | hw_id 2 */
	0x00, 0x00, 0x00, 0x08, /* sequence number 8 */
	0x00, 0x00, 0x05, 0x00, /* ingress timestamp 0x500 */
	0x00, 0x00, 0x00, 0x66, /* drop header: switch id 102 */
	0x00, 0x03, 0x00, 0x04, /* ingress port 3, egress port 4 */
	0x02, 0x47, 0x00, 0x00, /* queue id 2, drop reason 0x47 = 71, pad */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x22, /* inner Ethernet dst */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x11, /* src */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x00, 0x00, 0x28,		    /* IHL 5, TOS 0, total length 40 */
	0x00, 0x0a, 0x40, 0x00,		    /* ID 10, DF */
	0x40, 0x06, 0x26, 0xc0,		    /* TTL 64, TCP, checksum */
	0x0a, 0x00, 0x00, 0x03,		    /* src 10.0.0.3 */
	0x0a, 0x00, 0x00, 0x04,		    /* dst 10.0.0.4 */
	0x00, 0x50, 0xd4, 0x31,		    /* TCP src port 80, dst port 54321 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, ack */
	0x50, 0x11, 0x01, 0x00,		    /* data offset 5, FIN ACK, window */
	0x00, 0x00, 0x00, 0x00,		    /* checksum, urgent */
};
/* clang-format on */

static void tr05_drop(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 3}, dst[4] = {10, 0, 0, 4};
	const uint8_t fl = HW_RF_DROPPED | HW_RF_POSTCARD;
	assert_int_equal(sizeof(v2_payload), 78);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v2_payload, sizeof(v2_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 1);
	assert_int_equal(v.reps[0].flags, fl);
	assert_int_equal(v.reps[0].drop_reason, 71);
	const struct hw_record *r = &v.recs[0];
	vec_assert_report_fields(r, 102, 2, 8, fl, HW_FORMAT_TR05, 1);
	assert_int_equal(r->node_id, 102);
	assert_int_equal(r->int_version, HW_INT_NONE);
	/* queue id from the drop header (HW_V_DROP covers it), no occupancy; no egress ts -> no latency */
	assert_int_equal(r->valid, HW_V_PORTS | HW_V_DROP | HW_V_INGRESS_TS | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(r->ingress_port, 3);
	assert_int_equal(r->egress_port, 4);
	assert_int_equal(r->queue_id, 2);
	assert_int_equal(r->drop_reason, 71);
	assert_int_equal(r->ingress_ts, 0x500);
	vec_assert_flow4(r, src, dst, 6, 80, 54321);
	vec_assert_tclass(r, 0, 0);
}

/* Vector 3: fixed 12 + local 16 + inner Ethernet 14 + IPv4 20 + UDP 8 + INT v0.5 (shim 4 + MD 8 +
 * stack 8 + tail 4 = 24) = 94 B.  Inner IPv4 total length 20 + 8 + 24 = 52 (0x34), UDP length 32
 * (0x20); INT v0.5 shim length = 1 + 2 + 2 + 1 = 6 words (shim + MD + stack + tail). */
/* clang-format off */
static const uint8_t v3_payload[] = {
	0x02, 0x60, 0x00, 0x03, /* ver 0 | nproto 2; D 0 Q 1 F 1; rsvd; hw_id 3 */
	0x00, 0x00, 0x00, 0x09, /* sequence number 9 */
	0x00, 0x00, 0x00, 0x10, /* ingress timestamp 16 */
	0x00, 0x00, 0x00, 0x67, /* local: switch id 103 */
	0x00, 0x05, 0x00, 0x06, /* ports 5 -> 6 */
	0x01, 0x00, 0x00, 0x40, /* queue id 1, occupancy 64 */
	0x00, 0x00, 0x00, 0x30, /* egress timestamp 48 -> latency 32 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x22, /* inner Ethernet dst */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x11, /* src */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x5c, 0x00, 0x34,		    /* IHL 5, TOS 0x5c = DSCP 0x17 (INT) | ECN 0, total length 52 */
	0x00, 0x0b, 0x40, 0x00,		    /* ID 11, DF */
	0x40, 0x11, 0x26, 0x50,		    /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x00, 0x01,		    /* src 10.0.0.1 */
	0x0a, 0x00, 0x00, 0x02,		    /* dst 10.0.0.2 */
	0x13, 0x89, 0x13, 0x8a,		    /* UDP src port 5001, dst port 5002 */
	0x00, 0x20, 0x00, 0x00,		    /* UDP length 32, checksum 0 */
	0x01, 0x00, 0x06, 0x00,		    /* INT v0.5 shim: type 1 (hop-by-hop) | rsvd | length 6 | rsvd */
	0x00,				    /* MD: ver 0 | rep 0 | C 0 | E 0 */
	0x01,				    /* rsvd:3 | ins_cnt 1 */
	0x08,				    /* max hop count 8 */
	0x02,				    /* total hop count 2 */
	0x80, 0x00, 0x00, 0x00,		    /* bitmap 0x8000 switch id; rsvd */
	0x00, 0x00, 0x00, 0x67,		    /* newest hop: switch id 103 (= the reporting switch) */
	0x00, 0x00, 0x00, 0x66,		    /* oldest hop: switch id 102 */
	0x11, 0x13, 0x8a, 0x00,		    /* tail: proto 17 | dst port 5002 | original DSCP 0 */
};
/* clang-format on */

static void tr05_local_int05(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
	const uint8_t fl = HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW;
	assert_int_equal(sizeof(v3_payload), 94);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v3_payload, sizeof(v3_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 2);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_report_fields(&v.recs[i], 103, 3, 9, fl, HW_FORMAT_TR05, 2);
		assert_int_equal(v.recs[i].hop_index, i);
		assert_int_equal(v.recs[i].int_version, HW_INT_V05);
		vec_assert_flow4(&v.recs[i], src, dst, 17, 5001, 5002);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
	}
	assert_int_equal(v.recs[0].node_id, 102);
	assert_int_equal(v.recs[0].valid, HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[1].node_id, 103);
	assert_int_equal(v.recs[1].valid, HW_V_PORTS | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS |
	                                      HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[1].ingress_port, 5);
	assert_int_equal(v.recs[1].egress_port, 6);
	assert_int_equal(v.recs[1].queue_id, 1);
	assert_int_equal(v.recs[1].queue_occupancy, 64);
	assert_int_equal(v.recs[1].ingress_ts, 16);
	assert_int_equal(v.recs[1].egress_ts, 48);
	assert_int_equal(v.recs[1].hop_latency, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tr05_local_wrap),
	    cmocka_unit_test(tr05_parse_report),
	    cmocka_unit_test(tr05_drop),
	    cmocka_unit_test(tr05_local_int05),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
