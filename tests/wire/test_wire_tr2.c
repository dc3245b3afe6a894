/* Telemetry Report v2.0 (coalesced reports) through hw_parse_frame / hw_parse_report.
 *
 * Spec: p4lang/p4-applications telemetry/specs/telemetry_report.mdk, v2.0 (commit 42cbfa4):
 *   group header   ver:4 (=2) | hw_id:6 | seq:22 | node_id:32
 *   indiv header   rep_type:4 | in_type:4 | report_length:8 (words after this word, 0xFF = to end
 *                  of payload) | md_length:8 (words of variable metadata) | D Q F I | rsvd:4
 *   INT main       rep_md_bits:16 | ds_id:16 | ds_md_bits:16 | ds_md_status:16, then metadata in
 *                  bit order, then DS metadata, then the inner packet.
 * and INT v2.1 (telemetry/specs/INT.mdk at HEAD) for stacks embedded in the inner packet.
 *
 * Vectors (every byte commented):
 *   tr2_single_int_stack   literal frame; 1 report, RepMdBits 0x4000|0x1000, in_type IPv4, inner
 *                          UDP with an INT v2.1 stack of 2 hops (DSCP 0x17) -> 3 records
 *   tr2_parse_report_api   same report handed to hw_parse_report (UDP payload only)
 *   tr2_coalesced          3 individual reports in one packet: in_type Ethernet (0x2000, 0x0800,
 *                          0x0400, Q), in_type IPv6 + RoCEv2 CNP (0x0200, 0x0100, 0x0080, I),
 *                          in_type IPv4 drop report (0x0001, D, report_length 0xFF)
 *   tr2_merge_sink_hop     sink in the stack and in RepMdBits: one merged last hop
 *   tr2_inner_only_flags   rep_type 0 (inner only), D|Q|F|I, md_length to be ignored, hw_id 63
 *   tr2_all_rep_md_bits    RepMdBits 0x7F81 in one report (order of the metadata), in_type none
 *   tr2_unavailable_and_ds all-ones values clear valid bits; DS metadata skipped via md_length;
 *                          second report found after it
 *
 * Readings encoded where the spec/convention leaves room (see also the other files):
 *   - the merged last hop (sink in the stack AND in RepMdBits) keeps int_version HW_INT_V21: it
 *     came from the stack; its valid bits are the union of both sources.
 *   - rep_type 0 (inner only) carries none of the reporting node's own metadata (TR v2.0 4.1): with an
 *     embedded stack its records are the stack's hops only, even when the stack does not hold the
 *     group node; without a stack, one record names the group node.
 *   - a drop word (0x0001) gives HW_V_DROP, which covers its queue id and reason.
 *   - a truncated inner packet (IPv6 payload length / UDP length larger than what is carried) is
 *     normal for a report and not an error.
 *   - when DSCP announced INT, the record's DSCP is the original one the source saved in the shim
 *     (v2.1 NPT 0, v1.0 shim, v0.5 tail), not the INT mark; ECN is as carried (docs/records.md).
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

/* ------------------------------------------------------------------------------------------ */
/* Vector 1: one INT report with an embedded INT v2.1 stack.
 * Lengths by hand:
 *   inner packet  = IPv4 20 + UDP 8 + shim 4 + MD hdr 12 + stack 16 + payload 4 = 64 B
 *                   -> inner IPv4 total length 64 (0x0040), inner UDP length 64 - 20 = 44 (0x002c)
 *   INT shim len  = MD hdr 3 words + stack 4 words = 7 (v2.1: shim not counted)
 *   report_length = main fixed 2 + md_length 2 + inner 16 = 20 words (0x14)
 *   indiv report  = 4 + 20 * 4 = 84 B; UDP payload = group 8 + 84 = 92 B
 *   outer UDP length = 8 + 92 = 100 (0x0064); outer IPv4 total length = 20 + 100 = 120 (0x0078)
 *   frame = 14 + 120 = 134 B */
/* clang-format off */
static const uint8_t v1_frame[] = {
	/* Ethernet */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC (collector) */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x08, 0x00,			    /* ethertype IPv4 */
	/* outer IPv4 */
	0x45, 0x00,		/* version 4, IHL 5; TOS 0 */
	0x00, 0x78,		/* total length 120 (see above) */
	0x00, 0x00, 0x40, 0x00, /* ID 0; flags DF, fragment offset 0 */
	0x40, 0x11,		/* TTL 64; protocol 17 UDP */
	0x26, 0x0f,		/* header checksum (computed over this header) */
	0x0a, 0x00, 0x00, 0x03, /* src 10.0.0.3 (the reporting switch) */
	0x0a, 0x00, 0x00, 0x64, /* dst 10.0.0.100 (collector) */
	/* outer UDP */
	0x00, 0x00, /* src port 0 */
	0x7f, 0xfe, /* dst port 32766 = default cfg.report_ports[0] */
	0x00, 0x64, /* length 100 (see above) */
	0x00, 0x00, /* checksum 0 (not used) */
	/* TR v2.0 group header: word 0 = ver 2 << 28 | hw_id 5 << 22 | seq 0x12345 = 0x21412345 */
	0x21, 0x41, 0x23, 0x45, /* ver 2 | hw_id 5 | sequence number 0x12345 (22 bits) */
	0x00, 0x00, 0x00, 0x03, /* node id 3 */
	/* individual report header */
	0x14, /* rep_type 1 (INT) | in_type 4 (IPv4) */
	0x14, /* report_length 20 words (see above) */
	0x02, /* md_length 2 words: L1 ports (1) + queue (1) */
	0x20, /* D 0, Q 0, F 1, I 0 | rsvd 0 */
	/* INT main contents, fixed part */
	0x50, 0x00, /* RepMdBits 0x4000 L1 ports | 0x1000 queue id + occupancy */
	0x00, 0x00, /* domain specific id 0 */
	0x00, 0x00, /* DSMdBits 0 */
	0x00, 0x00, /* DSMdStatus 0 */
	/* variable optional baseline metadata, in bit order */
	0x00, 0x07, 0x00, 0x09, /* 0x4000: L1 ingress port 7, L1 egress port 9 */
	0x03, 0x00, 0x01, 0x00, /* 0x1000: queue id 3, queue occupancy 0x000100 = 256 */
	/* inner packet (truncated original packet), IPv4 */
	0x45, 0x5d,		/* version 4, IHL 5; TOS 0x5d = DSCP 0x17 (INT marker) << 2 | ECN 1 */
	0x00, 0x40,		/* total length 64 (see above) */
	0x00, 0x01, 0x00, 0x00, /* ID 1; no flags */
	0x40, 0x11,		/* TTL 64; protocol 17 UDP */
	0xf5, 0xfb,		/* header checksum */
	0xc0, 0xa8, 0x01, 0x01, /* src 192.168.1.1 */
	0xc0, 0xa8, 0x02, 0x02, /* dst 192.168.2.2 */
	/* inner UDP */
	0x30, 0x39, /* src port 12345 */
	0x13, 0x88, /* dst port 5000 */
	0x00, 0x2c, /* length 44 (see above) */
	0x00, 0x00, /* checksum 0 */
	/* INT v2.1 shim for TCP/UDP */
	0x10,	    /* type 1 (INT-MD) << 4 | NPT 0 (DSCP marks INT) | rsvd */
	0x07,	    /* length 7 words = MD header 3 + stack 4 (shim not counted since v2.0) */
	0x00, 0x68, /* NPT 0: reserved byte; original DSCP 26 (0x1a << 2 = 0x68) | R R */
	/* INT v2.1 metadata header */
	0x20,	    /* ver 2 | D 0 E 0 M 0 | rsvd */
	0x00,	    /* rsvd */
	0x02,	    /* rsvd (3 bits) | hop_ml 2 words: node id + hop latency */
	0x06,	    /* remaining hop count 6 (8 - 2 hops) */
	0xa0, 0x00, /* instruction bitmap 0x8000 node id | 0x2000 hop latency */
	0x00, 0x00, /* domain specific id 0 */
	0x00, 0x00, /* DS instruction 0 */
	0x00, 0x00, /* DS flags 0 */
	/* INT stack, newest hop first */
	0x00, 0x00, 0x00, 0x02, /* hop (newest): node id 2 */
	0x00, 0x00, 0x03, 0xe8, /*               hop latency 1000 */
	0x00, 0x00, 0x00, 0x01, /* hop (oldest, the source): node id 1 */
	0x00, 0x00, 0x01, 0xf4, /*               hop latency 500 */
	/* inner UDP payload */
	0x64, 0x61, 0x74, 0x61, /* "data" */
};
/* clang-format on */
#define V1_PAYLOAD_OFF (14 + 20 + 8)

static void check_v1_records(const struct vec_out *v)
{
	static const uint8_t src[4] = {192, 168, 1, 1}, dst[4] = {192, 168, 2, 2};
	assert_int_equal(v->out.n_reps, 1);
	assert_int_equal(v->out.n_recs, 3);

	const struct hw_report *rep = &v->reps[0];
	assert_int_equal(rep->node, 3);
	assert_int_equal(rep->seq, 0x12345);
	assert_int_equal(rep->hw_id, 5);
	assert_int_equal(rep->format, HW_FORMAT_TR20);
	assert_int_equal(rep->flags, HW_RF_TRACKED_FLOW);
	assert_int_equal(rep->seq_bits, 22);
	assert_int_equal(rep->first, 0);
	assert_int_equal(rep->n_hops, 3);

	for (unsigned i = 0; i < 3; i++) {
		const struct hw_record *r = &v->recs[i];
		vec_assert_report_fields(r, 3, 5, 0x12345, HW_RF_TRACKED_FLOW, HW_FORMAT_TR20, 3);
		assert_int_equal(r->hop_index, i);
		vec_assert_flow4(r, src, dst, 17, 12345, 5000);
		vec_assert_tclass(r, 26, 1); /* original DSCP from the shim; the wire says 0x17 (INT mark) */
	}
	/* hop 0: the oldest stack entry (INT source) */
	assert_int_equal(v->recs[0].node_id, 1);
	assert_int_equal(v->recs[0].int_version, HW_INT_V21);
	assert_int_equal(v->recs[0].valid, HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v->recs[0].hop_latency, 500);
	/* hop 1: newest stack entry */
	assert_int_equal(v->recs[1].node_id, 2);
	assert_int_equal(v->recs[1].int_version, HW_INT_V21);
	assert_int_equal(v->recs[1].valid, HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v->recs[1].hop_latency, 1000);
	/* hop 2: the reporting node (group node id 3, not in the stack) with its RepMdBits fields */
	assert_int_equal(v->recs[2].node_id, 3);
	assert_int_equal(v->recs[2].int_version, HW_INT_NONE);
	assert_int_equal(v->recs[2].valid, HW_V_PORTS | HW_V_QUEUE | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v->recs[2].ingress_port, 7);
	assert_int_equal(v->recs[2].egress_port, 9);
	assert_int_equal(v->recs[2].queue_id, 3);
	assert_int_equal(v->recs[2].queue_occupancy, 256);
}

static void tr2_single_int_stack(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	hw_parser_config_default(&cfg);
	vec_check_frame(v1_frame, sizeof(v1_frame));
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, v1_frame, sizeof(v1_frame), VEC_TIME_NS, &v.out), HW_OK);
	check_v1_records(&v);
}

static void tr2_parse_report_api(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(
	    hw_parse_report(&cfg, v1_frame + V1_PAYLOAD_OFF, sizeof(v1_frame) - V1_PAYLOAD_OFF, VEC_TIME_NS, &v.out),
	    HW_OK);
	check_v1_records(&v);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 2: three coalesced individual reports (UDP payload; outer layers by vec_udp4_frame).
 * Group: word 0 = 2 << 28 | 1 << 22 | 0x3FFFFF = 0x207FFFFF (largest 22-bit sequence number).
 * Report a: 4 + 4 * 21 = 88 B; report b: 4 + 4 * 21 = 88 B; report c: 4 + 52 = 56 B.
 * UDP payload = 8 + 88 + 88 + 56 = 240 B. */
/* clang-format off */
static const uint8_t v2_payload[] = {
	/* group header */
	0x20, 0x7f, 0xff, 0xff, /* ver 2 | hw_id 1 | seq 0x3FFFFF */
	0x0a, 0x0b, 0x0c, 0x0d, /* node id 0x0a0b0c0d */

	/* --- report a: inner Ethernet, hop latency + 64-bit timestamps, Q --- */
	0x13, /* rep_type 1 (INT) | in_type 3 (Ethernet) */
	0x15, /* report_length 21 = fixed 2 + md 5 + inner 14 (56 B) */
	0x05, /* md_length 5 = latency 1 + ingress ts 2 + egress ts 2 */
	0x40, /* D 0 Q 1 F 0 I 0 */
	0x2c, 0x00,			/* RepMdBits 0x2000 hop latency | 0x0800 ingress ts | 0x0400 egress ts */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DSMdBits, DSMdStatus: 0 */
	0x00, 0x00, 0x00, 0x64,		/* 0x2000: hop latency 100 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* 0x0800: ingress ts 0x0000000100000000 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x64, /* 0x0400: egress ts 0x0000000100000064 */
	/* inner Ethernet, 14 + 20 + 20 + 2 = 56 B */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0b, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, /* src MAC */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0xb8,			    /* IHL 5; TOS 0xb8 = DSCP 46 (EF) << 2 | ECN 0 */
	0x00, 0x2a,			    /* total length 42 = 20 + TCP 20 + 2 data */
	0x00, 0x02, 0x40, 0x00,		    /* ID 2, DF */
	0x40, 0x06, 0x26, 0x0f,		    /* TTL 64, proto 6 TCP, checksum */
	0x0a, 0x01, 0x00, 0x01,		    /* src 10.1.0.1 */
	0x0a, 0x02, 0x00, 0x02,		    /* dst 10.2.0.2 */
	0x04, 0xd2, 0x00, 0x50,		    /* TCP src port 1234, dst port 80 */
	0x00, 0x00, 0x00, 0x01,		    /* seq 1 */
	0x00, 0x00, 0x00, 0x00,		    /* ack 0 */
	0x50, 0x10, 0xff, 0xff,		    /* data offset 5, ACK; window 65535 */
	0x00, 0x00, 0x00, 0x00,		    /* checksum, urgent pointer */
	0x68, 0x69,			    /* data "hi" */

	/* --- report b: inner IPv6 RoCEv2 CNP, L2 ports + tx util + buffer, I --- */
	0x15, /* rep_type 1 | in_type 5 (IPv6) */
	0x15, /* report_length 21 = fixed 2 + md 4 + inner 15 (60 B) */
	0x04, /* md_length 4 = L2 ports 2 + tx util 1 + buffer 1 */
	0x10, /* D 0 Q 0 F 0 I 1 */
	0x03, 0x80,			    /* RepMdBits 0x0200 L2 ports | 0x0100 tx util | 0x0080 buffer */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DSMdBits, DSMdStatus */
	0x00, 0x01, 0x00, 0x00,		    /* 0x0200: L2 ingress port 65536 */
	0x00, 0x01, 0x00, 0x01,		    /*         L2 egress port 65537 */
	0x00, 0x00, 0x27, 0x10,		    /* 0x0100: egress tx util 10000 */
	0x05, 0x00, 0x02, 0x00,		    /* 0x0080: buffer id 5, buffer occupancy 512 */
	/* inner IPv6, truncated: the original packet was 40 + 1024 B, 60 B are carried */
	0x66, 0xb1, 0x23, 0x45, /* ver 6 | TC 0x6b = DSCP 26 << 2 | ECN 3 (CE) | flow label 0x12345 */
	0x04, 0x00,		/* payload length 1024 (original, more than is carried) */
	0x11, 0x40,		/* next header 17 UDP, hop limit 64 */
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, /* src 2001:db8::1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, /* dst 2001:db8::2 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0xc0, 0x00, 0x12, 0xb7, /* UDP src port 49152, dst port 4791 (RoCEv2) */
	0x04, 0x00, 0x00, 0x00, /* UDP length 1024, checksum 0 */
	0x81, 0x00, 0xff, 0xff, /* BTH opcode 0x81 (CNP) | SE M Pad TVer 0 | P_Key 0xffff */
	0x00, 0x00, 0xab, 0xcd, /* reserved | dest QP 0x00abcd */
	0x00, 0x00, 0x00, 0x07, /* A 0 | PSN 7 */

	/* --- report c: drop report, inner IPv4, report_length 0xFF (to end of payload) --- */
	0x14,			/* rep_type 1 | in_type 4 (IPv4) */
	0xff,			/* report_length 0xFF: extends to the end of the UDP payload (13 words here) */
	0x01,			/* md_length 1 = drop word */
	0x80,			/* D 1 Q 0 F 0 I 0 */
	0x00, 0x01,		/* RepMdBits 0x0001 queue id + drop reason + pad */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DSMdBits, DSMdStatus */
	0x07, 0x50, 0x00, 0x00, /* 0x0001: queue id 7, drop reason 0x50, pad */
	0x45, 0x00, 0x00, 0x28, /* inner IPv4 IHL 5, TOS 0, total length 40 */
	0x00, 0x03, 0x40, 0x00, /* ID 3, DF */
	0x40, 0x06, 0x26, 0xc0, /* TTL 64, TCP, checksum */
	0x0a, 0x01, 0x00, 0x05, /* src 10.1.0.5 */
	0x0a, 0x02, 0x00, 0x06, /* dst 10.2.0.6 */
	0x1f, 0x90, 0x01, 0xbb, /* TCP src port 8080, dst port 443 */
	0x00, 0x00, 0x00, 0x00, /* seq */
	0x00, 0x00, 0x00, 0x00, /* ack */
	0x50, 0x02, 0x72, 0x10, /* data offset 5, SYN, window */
	0x00, 0x00, 0x00, 0x00, /* checksum, urgent */
};
/* clang-format on */

static void tr2_coalesced(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[512];
	assert_int_equal(sizeof(v2_payload), 240);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v2_payload, sizeof(v2_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 3);
	assert_int_equal(v.out.n_recs, 3);

	static const uint8_t rep_flags[3] = {HW_RF_CONGESTED_QUEUE | HW_RF_POSTCARD,
	                                     HW_RF_INTERMEDIATE | HW_RF_POSTCARD, HW_RF_DROPPED | HW_RF_POSTCARD};
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(v.reps[i].node, 0x0a0b0c0d);
		assert_int_equal(v.reps[i].seq, 0x3fffff);
		assert_int_equal(v.reps[i].hw_id, 1);
		assert_int_equal(v.reps[i].format, HW_FORMAT_TR20);
		assert_int_equal(v.reps[i].flags, rep_flags[i]);
		assert_int_equal(v.reps[i].seq_bits, 22);
		assert_int_equal(v.reps[i].first, i);
		assert_int_equal(v.reps[i].n_hops, 1);
		const struct hw_record *r = &v.recs[i];
		vec_assert_report_fields(r, 0x0a0b0c0d, 1, 0x3fffff, rep_flags[i], HW_FORMAT_TR20, 1);
		assert_int_equal(r->hop_index, 0);
		assert_int_equal(r->node_id, 0x0a0b0c0d);
		assert_int_equal(r->int_version, HW_INT_NONE);
	}

	/* report a */
	const struct hw_record *a = &v.recs[0];
	static const uint8_t a_src[4] = {10, 1, 0, 1}, a_dst[4] = {10, 2, 0, 2};
	assert_int_equal(a->valid, HW_V_HOP_LATENCY | HW_V_INGRESS_TS | HW_V_EGRESS_TS | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(a->hop_latency, 100);
	assert_int_equal(a->ingress_ts, 0x0000000100000000ull);
	assert_int_equal(a->egress_ts, 0x0000000100000064ull);
	vec_assert_flow4(a, a_src, a_dst, 6, 1234, 80);
	vec_assert_tclass(a, 46, 0);

	/* report b */
	const struct hw_record *b = &v.recs[1];
	static const uint8_t b_src[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t b_dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	assert_int_equal(b->valid, HW_V_L2_PORTS | HW_V_TX_UTIL | HW_V_BUFFER | HW_V_FLOW | HW_V_TCLASS | HW_V_ROCE);
	assert_int_equal(b->l2_ingress_port, 65536);
	assert_int_equal(b->l2_egress_port, 65537);
	assert_int_equal(b->egress_tx_util, 10000);
	assert_int_equal(b->buffer_id, 5);
	assert_int_equal(b->buffer_occupancy, 512);
	vec_assert_flow(b, b_src, b_dst, 17, 49152, 4791);
	vec_assert_tclass(b, 26, 3);
	assert_int_equal(b->roce_opcode, 0x81);
	assert_int_equal(b->roce_dest_qp, 0xabcd);

	/* report c: drop; the drop word gives queue id and reason (HW_V_DROP covers both) */
	const struct hw_record *c = &v.recs[2];
	static const uint8_t c_src[4] = {10, 1, 0, 5}, c_dst[4] = {10, 2, 0, 6};
	assert_int_equal(c->valid, HW_V_DROP | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(c->queue_id, 7);
	assert_int_equal(c->drop_reason, 0x50);
	assert_int_equal(v.reps[2].drop_reason, 0x50);
	vec_assert_flow4(c, c_src, c_dst, 6, 8080, 443);
	vec_assert_tclass(c, 0, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 3: the sink (node 10) pushed its own stack entry AND reports a queue in RepMdBits: the
 * two are one hop.  Inner: IPv4 20 + TCP 20 + shim 4 + MD 12 + stack 16 = 72 B (0x48), no data.
 * report_length = 2 + 1 + 18 = 21; UDP payload = 8 + 4 + 84 = 96 B. */
/* clang-format off */
static const uint8_t v3_payload[] = {
	0x20, 0x00, 0x00, 0x01, /* ver 2 | hw_id 0 | seq 1 */
	0x00, 0x00, 0x00, 0x0a, /* node id 10 */
	0x14,			/* rep_type 1 | in_type 4 (IPv4) */
	0x15,			/* report_length 21 */
	0x01,			/* md_length 1 (queue) */
	0x60,			/* D 0 Q 1 F 1 I 0 */
	0x10, 0x00,		/* RepMdBits 0x1000 queue id + occupancy */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DSMdBits, DSMdStatus */
	0x02, 0x00, 0x10, 0x00, /* 0x1000: queue id 2, occupancy 0x001000 = 4096 */
	0x45, 0x5c, 0x00, 0x48, /* inner IPv4, TOS 0x5c = DSCP 0x17 | ECN 0, total length 72 */
	0x00, 0x04, 0x40, 0x00, /* ID 4, DF */
	0x40, 0x06, 0xb8, 0xfc, /* TTL 64, TCP, checksum */
	0xc0, 0xa8, 0x00, 0x01, /* src 192.168.0.1 */
	0xc0, 0xa8, 0x00, 0x02, /* dst 192.168.0.2 */
	0x27, 0x10, 0x4e, 0x20, /* TCP src port 10000, dst port 20000 */
	0x00, 0x00, 0x00, 0x64, /* seq */
	0x00, 0x00, 0x00, 0x00, /* ack */
	0x50, 0x18, 0x01, 0x00, /* data offset 5 (no options: INT follows at byte 20), PSH ACK, window */
	0x00, 0x00, 0x00, 0x00, /* checksum, urgent */
	0x10, 0x07, 0x00, 0x00, /* INT v2.1 shim: type 1 | NPT 0; length 7 = 3 + 4; reserved; DSCP 0 */
	0x20, 0x00, 0x02, 0x07, /* MD: ver 2, D E M 0 | hop_ml 2 | remaining hop count 7 */
	0xa0, 0x00, 0x00, 0x00, /* bitmap 0x8000 node id | 0x2000 hop latency; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DS instruction 0, DS flags 0 */
	0x00, 0x00, 0x00, 0x0a, /* newest hop: node id 10 (= the report's node) */
	0x00, 0x00, 0x00, 0x50, /*             hop latency 80 */
	0x00, 0x00, 0x00, 0x09, /* oldest hop: node id 9 */
	0x00, 0x00, 0x00, 0x28, /*             hop latency 40 */
};
/* clang-format on */

static void tr2_merge_sink_hop(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {192, 168, 0, 1}, dst[4] = {192, 168, 0, 2};
	assert_int_equal(sizeof(v3_payload), 96);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v3_payload, sizeof(v3_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 2);
	assert_int_equal(v.reps[0].n_hops, 2);
	assert_int_equal(v.reps[0].flags, HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_report_fields(&v.recs[i], 10, 0, 1, HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW,
		                         HW_FORMAT_TR20, 2);
		assert_int_equal(v.recs[i].hop_index, i);
		vec_assert_flow4(&v.recs[i], src, dst, 6, 10000, 20000);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim: 0 */
	}
	assert_int_equal(v.recs[0].node_id, 9);
	assert_int_equal(v.recs[0].int_version, HW_INT_V21);
	assert_int_equal(v.recs[0].valid, HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[0].hop_latency, 40);
	/* merged: stack entry (latency) + report metadata (queue) on one record */
	assert_int_equal(v.recs[1].node_id, 10);
	assert_int_equal(v.recs[1].int_version, HW_INT_V21); /* reading: the merged hop came from the stack */
	assert_int_equal(v.recs[1].valid, HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[1].hop_latency, 80);
	assert_int_equal(v.recs[1].queue_id, 2);
	assert_int_equal(v.recs[1].queue_occupancy, 4096);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 4: rep_type 0 (Inner Only): no main contents; md_length "should be set to zero upon
 * transmission, and ignored upon reception" -- here it is 3 and must be ignored.  All four flags.
 * Inner: IPv4 20 + UDP 8 + shim 4 + MD 12 + stack 16 = 60 B -> report_length 15.
 * UDP payload = 8 + 4 + 60 = 72 B. */
/* clang-format off */
static const uint8_t v4_payload[] = {
	0x2f, 0xc0, 0x00, 0x00, /* ver 2 | hw_id 63 (0x3f << 22 = 0x0fc00000) | seq 0 */
	0x00, 0x00, 0x00, 0x0c, /* node id 12 */
	0x04,			/* rep_type 0 (inner only) | in_type 4 (IPv4) */
	0x0f,			/* report_length 15 words = inner packet only */
	0x03,			/* md_length 3: must be ignored for rep_type 0 */
	0xf0,			/* D 1 Q 1 F 1 I 1 */
	0x45, 0x5c, 0x00, 0x3c, /* inner IPv4, DSCP 0x17, total length 60 */
	0x00, 0x05, 0x40, 0x00, /* ID 5, DF */
	0x40, 0x11, 0x23, 0x4e, /* TTL 64, UDP, checksum */
	0x0a, 0x00, 0x01, 0x01, /* src 10.0.1.1 */
	0x0a, 0x00, 0x02, 0x02, /* dst 10.0.2.2 */
	0x13, 0x89, 0x13, 0x8a, /* UDP src port 5001, dst port 5002 */
	0x00, 0x28, 0x00, 0x00, /* UDP length 40 = 60 - 20, checksum 0 */
	0x10, 0x07, 0x00, 0x00, /* INT shim v2.1: type 1, NPT 0, length 7 = 3 + 4 */
	0x20, 0x00, 0x02, 0x05, /* MD ver 2 | hop_ml 2 | remaining hop count 5 */
	0xc0, 0x00, 0x00, 0x00, /* bitmap 0x8000 node id | 0x4000 L1 ports; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x0b, /* newest hop: node 11 */
	0x00, 0x03, 0x00, 0x04, /*             ports 3 -> 4 */
	0x00, 0x00, 0x00, 0x0a, /* oldest hop: node 10 */
	0x00, 0x01, 0x00, 0x02, /*             ports 1 -> 2 */
};
/* clang-format on */

static void tr2_inner_only_flags(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 1, 1}, dst[4] = {10, 0, 2, 2};
	const uint8_t fl = HW_RF_DROPPED | HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW | HW_RF_INTERMEDIATE;
	assert_int_equal(sizeof(v4_payload), 72);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v4_payload, sizeof(v4_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	/* two records: the stack's hops (nodes 10 and 11); the group node 12 adds none, Inner Only has no
	 * metadata of the reporting node */
	assert_int_equal(v.out.n_recs, 2);
	assert_int_equal(v.reps[0].flags, fl);
	assert_int_equal(v.reps[0].hw_id, 63);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_report_fields(&v.recs[i], 12, 63, 0, fl, HW_FORMAT_TR20, 2);
		assert_int_equal(v.recs[i].hop_index, i);
		vec_assert_flow4(&v.recs[i], src, dst, 17, 5001, 5002);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim: 0 */
	}
	assert_int_equal(v.recs[0].node_id, 10);
	assert_int_equal(v.recs[0].int_version, HW_INT_V21);
	assert_int_equal(v.recs[0].valid, HW_V_PORTS | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[0].ingress_port, 1);
	assert_int_equal(v.recs[0].egress_port, 2);
	assert_int_equal(v.recs[1].node_id, 11);
	assert_int_equal(v.recs[1].int_version, HW_INT_V21);
	assert_int_equal(v.recs[1].ingress_port, 3);
	assert_int_equal(v.recs[1].egress_port, 4);
}

/* Vector 4 with the inner packet's protocol 17 changed to 132 (SCTP, byte 9 of the inner IPv4 header at
 * payload offset 8 + 4 = 12, so byte 21): SCTP's common header starts with the ports as UDP's does (RFC
 * 9260 3.1), so the flow is 10.0.1.1:5001 -> 10.0.2.2:5002 proto 132.  SCTP carries no INT here, so no
 * stack is read: one record, the reporting node 12, DSCP as on the wire (0x5c >> 2 = 0x17). */
static void tr2_inner_sctp_ports(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t payload[sizeof(v4_payload)], frame[256];
	static const uint8_t src[4] = {10, 0, 1, 1}, dst[4] = {10, 0, 2, 2};
	memcpy(payload, v4_payload, sizeof(payload));
	assert_int_equal(payload[21], 0x11);
	payload[21] = 132;
	size_t n = vec_udp4_frame(frame, sizeof(frame), payload, sizeof(payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 1);
	assert_int_equal(v.recs[0].node_id, 12);
	vec_assert_flow4(&v.recs[0], src, dst, 132, 5001, 5002);
	vec_assert_tclass(&v.recs[0], 0x17, 0);
}

/* InType 1 (TLV), after TR v2.0's example "Individual Report Inner Contents for InType 1" (there with
 * MD Length 2 although its metadata is 3 words; here the lengths agree).  RepMdBits 0x4000 (level 1
 * interface IDs, 1 word: ports 3 -> 4), MD Length 1.  Then a TLV of type 0 (domain specific extension,
 * 1 word of data, passed over) and a TLV of type 2 (IPv4, 7 words: IPv4 20 + UDP 8).  Report Length =
 * main 8 + metadata 4 + TLV 4 + 4 + TLV 4 + 28 = 52 B = 13 words; UDP payload = 8 + 4 + 52 = 64 B.
 * One record, node 7, ports 3 -> 4, flow 10.1.0.1:1000 -> 10.2.0.2:2000 proto 17, DSCP 26 (TOS 0x68),
 * flags F | postcard (no stack). */
/* clang-format off */
static const uint8_t tlv_payload[] = {
	0x20, 0x00, 0x00, 0x05, /* ver 2 | hw_id 0 | seq 5 */
	0x00, 0x00, 0x00, 0x07, /* node id 7 */
	0x11, 0x0d, 0x01, 0x20, /* rep_type 1 | in_type 1 (TLV); length 13; md 1; F */
	0x40, 0x00, 0x00, 0x00, /* RepMdBits 0x4000 (L1 ports); domain specific id 0 */
	0x00, 0x00, 0x00, 0x00, /* DSMdBits 0, DSMdStatus 0 */
	0x00, 0x03, 0x00, 0x04, /* ingress port 3, egress port 4 */
	0x00, 0x01, 0x00, 0x00, /* TLV type 0 | rsvd; length 1 word; template 0 */
	0xde, 0xad, 0xbe, 0xef, /*   domain specific extension data */
	0x20, 0x07, 0x00, 0x00, /* TLV type 2 (IPv4) | rsvd; length 7 words; reserved */
	0x45, 0x68, 0x00, 0x1c, /*   IPv4, TOS 0x68 (DSCP 26), total length 28 */
	0x00, 0x01, 0x40, 0x00, /*   ID 1, DF */
	0x40, 0x11, 0x00, 0x00, /*   TTL 64, UDP, checksum */
	0x0a, 0x01, 0x00, 0x01, /*   src 10.1.0.1 */
	0x0a, 0x02, 0x00, 0x02, /*   dst 10.2.0.2 */
	0x03, 0xe8, 0x07, 0xd0, /*   UDP src port 1000, dst port 2000 */
	0x00, 0x08, 0x00, 0x00, /*   UDP length 8, checksum 0 */
};
/* clang-format on */

static void tr2_in_type_tlv(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 1, 0, 1}, dst[4] = {10, 2, 0, 2};
	assert_int_equal(sizeof(tlv_payload), 64);
	size_t n = vec_udp4_frame(frame, sizeof(frame), tlv_payload, sizeof(tlv_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 1);
	vec_assert_report_fields(&v.recs[0], 7, 0, 5, HW_RF_TRACKED_FLOW | HW_RF_POSTCARD, HW_FORMAT_TR20, 1);
	assert_int_equal(v.recs[0].ingress_port, 3);
	assert_int_equal(v.recs[0].egress_port, 4);
	vec_assert_flow4(&v.recs[0], src, dst, 17, 1000, 2000);
	vec_assert_tclass(&v.recs[0], 26, 0);

	/* A TLV whose length points past the report: report_length error */
	uint8_t bad[sizeof(tlv_payload)];
	memcpy(bad, tlv_payload, sizeof(bad));
	bad[33] = 0x08; /* the IPv4 TLV's length 7 -> 8 words: 4 B past the 52 B of the report */
	n = vec_udp4_frame(frame, sizeof(frame), bad, sizeof(bad), 0, 32766, 0);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_E_REPORT_LENGTH);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 5: every defined RepMdBits bit at once (0x7F81), in_type 0 (no inner packet).
 * md = 4 + 4 + 4 + 8 + 8 + 8 + 4 + 4 + 4 = 48 B = 12 words; report_length = 2 + 12 = 14.
 * UDP payload = 8 + 4 + 56 = 68 B. */
/* clang-format off */
static const uint8_t v5_payload[] = {
	0x20, 0x80, 0x00, 0x64, /* ver 2 | hw_id 2 (2 << 22 = 0x00800000) | seq 100 */
	0x00, 0x00, 0x00, 0x14, /* node id 20 */
	0x10,			/* rep_type 1 | in_type 0 (none) */
	0x0e,			/* report_length 14 */
	0x0c,			/* md_length 12 */
	0x80,			/* D 1 */
	0x7f, 0x81,		/* RepMdBits 0x4000|0x2000|0x1000|0x0800|0x0400|0x0200|0x0100|0x0080|0x0001 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DSMdBits, DSMdStatus */
	0x00, 0x0a, 0x00, 0x0b,		    /* 0x4000 L1 ingress port 10, egress port 11 */
	0x00, 0x00, 0x01, 0x2c,		    /* 0x2000 hop latency 300 */
	0x04, 0x00, 0x00, 0x40,		    /* 0x1000 queue id 4, occupancy 64 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* 0x0800 ingress ts 4096 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x2c, /* 0x0400 egress ts 4396 */
	0x00, 0x00, 0x00, 0x65,		    /* 0x0200 L2 ingress port 101 */
	0x00, 0x00, 0x00, 0x66,		    /*        L2 egress port 102 */
	0x00, 0x00, 0x00, 0x32,		    /* 0x0100 egress tx util 50 */
	0x01, 0x00, 0x08, 0x00,		    /* 0x0080 buffer id 1, occupancy 2048 */
	0x04, 0x0e, 0x00, 0x00,		    /* 0x0001 queue id 4 (same queue), drop reason 14, pad */
};
/* clang-format on */

static void tr2_all_rep_md_bits(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	assert_int_equal(sizeof(v5_payload), 68);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v5_payload, sizeof(v5_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 1);
	assert_int_equal(v.reps[0].drop_reason, 14);
	const struct hw_record *r = &v.recs[0];
	vec_assert_report_fields(r, 20, 2, 100, HW_RF_DROPPED | HW_RF_POSTCARD, HW_FORMAT_TR20, 1);
	assert_int_equal(r->hop_index, 0);
	assert_int_equal(r->node_id, 20);
	assert_int_equal(r->int_version, HW_INT_NONE);
	assert_int_equal(r->valid, HW_V_PORTS | HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS |
	                               HW_V_L2_PORTS | HW_V_TX_UTIL | HW_V_BUFFER | HW_V_DROP);
	assert_int_equal(r->ingress_port, 10);
	assert_int_equal(r->egress_port, 11);
	assert_int_equal(r->hop_latency, 300);
	assert_int_equal(r->queue_id, 4);
	assert_int_equal(r->queue_occupancy, 64);
	assert_int_equal(r->ingress_ts, 4096);
	assert_int_equal(r->egress_ts, 4396);
	assert_int_equal(r->l2_ingress_port, 101);
	assert_int_equal(r->l2_egress_port, 102);
	assert_int_equal(r->egress_tx_util, 50);
	assert_int_equal(r->buffer_id, 1);
	assert_int_equal(r->buffer_occupancy, 2048);
	assert_int_equal(r->drop_reason, 14);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 6: unavailable (all-ones) values, domain-specific metadata skipped by md_length, and a
 * second report after it.
 * Report 1: RepMdBits 0x4000|0x2000|0x0800 = 4 words, DSMdBits 0x8000 = 1 word -> md_length 5,
 *           report_length 2 + 5 = 7 (32 B with the header word).
 * Report 2: RepMdBits 0x2000 -> md_length 1, report_length 3 (16 B).
 * UDP payload = 8 + 32 + 16 = 56 B. */
/* clang-format off */
static const uint8_t v6_payload[] = {
	0x20, 0xc0, 0x00, 0x05, /* ver 2 | hw_id 3 (3 << 22 = 0x00c00000) | seq 5 */
	0x00, 0x00, 0x00, 0x1e, /* node id 30 */
	/* report 1 */
	0x10, 0x07, 0x05, 0x20, /* rep_type 1 | in_type 0; report_length 7; md_length 5; F */
	0x68, 0x00,		/* RepMdBits 0x4000 L1 ports | 0x2000 latency | 0x0800 ingress ts */
	0x00, 0x01,		/* domain specific id 1 */
	0x80, 0x00,		/* DSMdBits 0x8000: one 4-byte DS metadata */
	0x00, 0x00,		/* DSMdStatus */
	0x00, 0x01, 0x00, 0x02, /* 0x4000 ports 1 -> 2 */
	0xff, 0xff, 0xff, 0xff, /* 0x2000 hop latency unavailable (all ones) */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* 0x0800 ingress ts unavailable */
	0xde, 0xad, 0xbe, 0xef, /* DS metadata (opaque, skipped) */
	/* report 2 */
	0x10, 0x03, 0x01, 0x00, /* rep_type 1 | in_type 0; report_length 3; md_length 1; no flags */
	0x20, 0x00,		/* RepMdBits 0x2000 hop latency */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DSMdBits, DSMdStatus */
	0x00, 0x00, 0x00, 0x09, /* hop latency 9 */
};
/* clang-format on */

static void tr2_unavailable_and_ds(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	assert_int_equal(sizeof(v6_payload), 56);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v6_payload, sizeof(v6_payload), 0, 32766, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 2);
	assert_int_equal(v.out.n_recs, 2);
	vec_assert_report_fields(&v.recs[0], 30, 3, 5, HW_RF_TRACKED_FLOW | HW_RF_POSTCARD, HW_FORMAT_TR20, 1);
	assert_int_equal(v.recs[0].valid, HW_V_PORTS);
	assert_int_equal(v.recs[0].ingress_port, 1);
	assert_int_equal(v.recs[0].egress_port, 2);
	assert_int_equal(v.reps[1].first, 1);
	vec_assert_report_fields(&v.recs[1], 30, 3, 5, HW_RF_POSTCARD, HW_FORMAT_TR20, 1);
	assert_int_equal(v.recs[1].hop_index, 0);
	assert_int_equal(v.recs[1].node_id, 30);
	assert_int_equal(v.recs[1].valid, HW_V_HOP_LATENCY);
	assert_int_equal(v.recs[1].hop_latency, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tr2_single_int_stack),   cmocka_unit_test(tr2_parse_report_api),
	    cmocka_unit_test(tr2_coalesced),          cmocka_unit_test(tr2_merge_sink_hop),
	    cmocka_unit_test(tr2_inner_only_flags),   cmocka_unit_test(tr2_inner_sctp_ports),
	    cmocka_unit_test(tr2_in_type_tlv),        cmocka_unit_test(tr2_all_rep_md_bits),
	    cmocka_unit_test(tr2_unavailable_and_ds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
