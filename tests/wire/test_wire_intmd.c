/* Bare INT-MD data packets (format HW_FORMAT_INT, cfg.bare_int on) through hw_parse_frame.
 *
 * Specs (p4lang/p4-applications telemetry/specs/INT.mdk):
 *   v2.1 (HEAD)   shim for TCP/UDP type:4 npt:2 rsvd:2 length:8 (words of MD header + stack, shim
 *                 NOT counted) + 16 bits (npt 0: rsvd:8 dscp:6 r:2; npt 1: original UDP dport;
 *                 npt 2: rsvd:8 ip_proto:8); MD header 12 B ver:4 (2) D E M rsvd:12 hop_ml:5
 *                 rhc:8 bitmap:16 ds_id:16 ds_instruction:16 ds_flags:16; 0x0800/0x0400
 *                 timestamps are 8 B, 0x0200 L2 ports 8 B, others 4 B, 0x0001 checksum complement
 *                 last; VXLAN-GPE next protocol 0x82 + GPE shim type:4 rsvd:4 length:8 (not
 *                 counting the shim) G|rsvd:8 next_protocol:8; Geneve option class 0x0103,
 *                 option type 1 (INT-MD), option length:5 words of option data.
 *   v1.0 (tag)    shim type:8 rsvd:8 length:8 (words INCLUDING the shim) dscp:6 r:2; MD 8 B ver:4 (1)
 *                 rep:2 C E M rsvd:10 hop_ml:5 rhc:8 bitmap:16 rsvd:16; all items 4 B except L2
 *                 ports (8 B).
 *   v0.5 (tag)    shim type:8 rsvd:8 length:8 (words incl. shim and 4 B tail) rsvd:8; MD 8 B
 *                 ver:4 (0) rep:2 C E rsvd:3 ins_cnt:5 max_hop:8 total_hop:8 bitmap:16 rsvd:16;
 *                 tail proto:8 dport:16 dscp:8.
 * The stack is newest hop first; records come out oldest first (hop_index 0 = the INT source).
 * Bare INT: report_node = the newest hop's node id, report_seq 0, hw_id 0, no report flags,
 * hw_report.seq_bits 0.
 *
 * Vectors:
 *   int21_udp_dscp_3hops   literal frame; v2.1 over UDP, DSCP 0x17, bitmap 0xFC00 (8 words/hop),
 *                          one hop's queue word all ones
 *   int21_udp_bitmap_rest  v2.1 bitmap 0x8381: L2 ports, tx util (one all ones), buffer, checksum
 *                          complement
 *   int21_dscp_bit_mask    same packet, detected by a DSCP bit (cfg mask 0x01)
 *   int21_tcp_ds_md        v2.1 over TCP, hop_ml 3 > bitmap words 2 (domain-specific metadata)
 *   int21_udp_port_npt1    v2.1 over UDP announced by cfg.int_ports (NPT 1, original dport 4791):
 *                          RoCEv2 CNP after the stack; not detected without the port
 *   int10_udp_dscp         v1.0 over UDP, bitmap 0xFC00 (32-bit timestamps, 6 words/hop)
 *   int10_tcp_l2_ports     v1.0 over TCP, bitmap 0x8300 (L2 ports 8 B, tx util)
 *   int05_udp_dscp         v0.5 over UDP with tail, ins_cnt 3, total hop count 2
 *   int05_tcp_dscp         v0.5 over TCP with tail, ins_cnt 2 (switch id + queue)
 *   int21_vxlan_gpe        VXLAN-GPE (UDP 4790) next protocol 0x82 -> INT shim -> Ethernet
 *   int21_geneve           Geneve (UDP 6081) option class 0x0103 type 1
 *   int21_ipv6_ext         v2.1 over UDP in IPv6 behind a Hop-by-Hop header, DSCP in the traffic class
 *   not_int                TOS without the INT DSCP, bare_int off, GPE next protocol 0x03, Geneve
 *                          class 0x0104 -> HW_NOT_REPORT
 *
 * Readings encoded: bare-INT report_node = the newest stack entry's node id (records.md: "last
 * hop's node"); dscp/ecn = the IP header as carried (with the INT marking); with NPT 1 dst_port is
 * the original port from the shim, and DSCP the original one from the shim; for VXLAN-GPE and Geneve
 * no flow fields are asserted (outer vs tenant 5-tuple is not fixed); no hop_latency is asserted or
 * computed for 64-bit timestamps.
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

static void check_bare_hops(const struct vec_out *v, unsigned n, uint32_t newest_node, uint8_t int_version)
{
	assert_int_equal(v->out.n_reps, 1);
	assert_int_equal(v->out.n_recs, n);
	assert_int_equal(v->reps[0].node, newest_node);
	assert_int_equal(v->reps[0].seq, 0);
	assert_int_equal(v->reps[0].hw_id, 0);
	assert_int_equal(v->reps[0].format, HW_FORMAT_INT);
	assert_int_equal(v->reps[0].flags, 0);
	assert_int_equal(v->reps[0].seq_bits, 0);
	assert_int_equal(v->reps[0].first, 0);
	assert_int_equal(v->reps[0].n_hops, n);
	for (unsigned i = 0; i < n; i++) {
		vec_assert_report_fields(&v->recs[i], newest_node, 0, 0, 0, HW_FORMAT_INT, (uint8_t)n);
		assert_int_equal(v->recs[i].hop_index, i);
		assert_int_equal(v->recs[i].int_version, int_version);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 1.  Lengths by hand:
 *   per hop = node 4 + ports 4 + latency 4 + queue 4 + ingress ts 8 + egress ts 8 = 32 B = 8 words
 *   shim length = MD 3 + stack 24 = 27 words (0x1b)
 *   UDP payload = shim 4 + MD 12 + stack 96 + data 4 = 116 B; UDP length 124 (0x7c);
 *   IPv4 total length 20 + 124 = 144 (0x90); frame 14 + 144 = 158 B */
/* clang-format off */
static const uint8_t v1_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x5c, 0x00, 0x90,		    /* IHL 5; TOS 0x5c = DSCP 0x17 (default cfg.int_dscp) | ECN 0; length 144 */
	0x00, 0x0c, 0x40, 0x00,		    /* ID 12, DF */
	0x40, 0x11, 0x22, 0xf0,		    /* TTL 64, UDP, checksum */
	0x0a, 0x01, 0x01, 0x01,		    /* src 10.1.1.1 */
	0x0a, 0x02, 0x02, 0x02,		    /* dst 10.2.2.2 */
	0x1f, 0x40, 0x1f, 0x41,		    /* UDP src port 8000, dst port 8001 */
	0x00, 0x7c, 0x00, 0x00,		    /* UDP length 124, checksum 0 */
	0x10,				    /* INT shim: type 1 (INT-MD) << 4 | NPT 0 | rsvd */
	0x1b,				    /* length 27 words (MD 3 + stack 24) */
	0x00, 0x00,			    /* rsvd | original DSCP 0 | R R */
	0x20, 0x00,			    /* MD: ver 2, D E M 0 | rsvd */
	0x08,				    /* rsvd | hop_ml 8 */
	0x05,				    /* remaining hop count 5 */
	0xfc, 0x00,			    /* bitmap 0x8000 node | 0x4000 L1 ports | 0x2000 latency | 0x1000 queue |
					     * 0x0800 ingress ts | 0x0400 egress ts */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DS instruction, DS flags */
	/* newest hop (the last transit before this capture point) */
	0x00, 0x00, 0x00, 0x03,				/* node id 3 */
	0x00, 0x03, 0x00, 0x04,				/* ports 3 -> 4 */
	0x00, 0x00, 0x00, 0xc8,				/* hop latency 200 */
	0x00, 0x00, 0x00, 0x05,				/* queue id 0, occupancy 5 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00, /* ingress ts 0x3000 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0xc8, /* egress ts 0x30c8 */
	/* middle hop */
	0x00, 0x00, 0x00, 0x02,				/* node id 2 */
	0x00, 0x02, 0x00, 0x03,				/* ports 2 -> 3 */
	0x00, 0x00, 0x00, 0x96,				/* hop latency 150 */
	0xff, 0xff, 0xff, 0xff,				/* queue: unavailable (all ones) */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00, /* ingress ts 0x2000 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x96, /* egress ts 0x2096 */
	/* oldest hop (the INT source) */
	0x00, 0x00, 0x00, 0x01,				/* node id 1 */
	0x00, 0x01, 0x00, 0x02,				/* ports 1 -> 2 */
	0x00, 0x00, 0x00, 0x64,				/* hop latency 100 */
	0x00, 0x00, 0x00, 0x07,				/* queue id 0, occupancy 7 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* ingress ts 0x1000 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x64, /* egress ts 0x1064 */
	0x70, 0x69, 0x6e, 0x67,				/* UDP data "ping" */
};
/* clang-format on */

static void int21_udp_dscp_3hops(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	static const uint8_t src[4] = {10, 1, 1, 1}, dst[4] = {10, 2, 2, 2};
	const uint32_t all =
	    HW_V_PORTS | HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS | HW_V_FLOW | HW_V_TCLASS;
	hw_parser_config_default(&cfg);
	vec_check_frame(v1_frame, sizeof(v1_frame));
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, v1_frame, sizeof(v1_frame), VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 3, 3, HW_INT_V21);
	for (unsigned i = 0; i < 3; i++) {
		vec_assert_flow4(&v.recs[i], src, dst, 17, 8000, 8001);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
		assert_int_equal(v.recs[i].node_id, i + 1);
		assert_int_equal(v.recs[i].ingress_port, i + 1);
		assert_int_equal(v.recs[i].egress_port, i + 2);
		assert_int_equal(v.recs[i].ingress_ts, 0x1000u * (i + 1));
	}
	assert_int_equal(v.recs[0].valid, all);
	assert_int_equal(v.recs[0].hop_latency, 100);
	assert_int_equal(v.recs[0].queue_id, 0);
	assert_int_equal(v.recs[0].queue_occupancy, 7);
	assert_int_equal(v.recs[0].egress_ts, 0x1064);
	assert_int_equal(v.recs[1].valid, all & ~(uint32_t)HW_V_QUEUE);
	assert_int_equal(v.recs[1].hop_latency, 150);
	assert_int_equal(v.recs[1].egress_ts, 0x2096);
	assert_int_equal(v.recs[2].valid, all);
	assert_int_equal(v.recs[2].hop_latency, 200);
	assert_int_equal(v.recs[2].queue_occupancy, 5);
	assert_int_equal(v.recs[2].egress_ts, 0x30c8);
}

/* Vector 1 with its middle hop changed, to pin the all-ones rule per field width: a 64-bit timestamp
 * is absent only when all 8 bytes are ones; one all-ones 32-bit half leaves it present. */
static void int21_ts64_half_ones(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t f[sizeof(v1_frame)];
	static const uint8_t middle[8] = {0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x03}; /* node 2, ports 2 -> 3 */
	/* clang-format off */
	static const uint8_t patch[24] = {
	    0x00, 0x00, 0x00, 0x96,				/* hop latency 150 */
	    0x02, 0x00, 0x00, 0x09,				/* queue id 2, occupancy 9 */
	    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x20, 0x00, /* ingress ts 0xffffffff00002000: present */
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* egress ts all ones: absent */
	};
	/* clang-format on */
	memcpy(f, v1_frame, sizeof(f));
	size_t at = 0;
	while (at + sizeof(middle) <= sizeof(f) && memcmp(f + at, middle, sizeof(middle)))
		at++;
	assert_in_range(at + sizeof(middle) + sizeof(patch), 0, sizeof(f));
	memcpy(f + at + sizeof(middle), patch, sizeof(patch));

	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, f, sizeof(f), VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 3, 3, HW_INT_V21);
	const uint32_t all =
	    HW_V_PORTS | HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS | HW_V_FLOW | HW_V_TCLASS;
	assert_int_equal(v.recs[1].valid, all & ~(uint32_t)HW_V_EGRESS_TS);
	assert_int_equal(v.recs[1].node_id, 2);
	assert_int_equal(v.recs[1].queue_id, 2);
	assert_int_equal(v.recs[1].queue_occupancy, 9);
	assert_int_equal(v.recs[1].ingress_ts, 0xffffffff00002000ull);
	assert_int_equal(v.recs[1].egress_ts, 0);
	/* the hops around it keep every field */
	assert_int_equal(v.recs[0].valid, all);
	assert_int_equal(v.recs[2].valid, all);
	assert_int_equal(v.recs[2].egress_ts, 0x30c8);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 2 (UDP payload; Ethernet/IPv4/UDP by vec_udp4_frame, 10.0.0.1 -> 10.0.0.100).
 * per hop = node 4 + L2 ports 8 + tx util 4 + buffer 4 + checksum complement 4 = 24 B = 6 words;
 * shim length = 3 + 12 = 15; payload = 4 + 12 + 48 = 64 B. */
/* clang-format off */
static const uint8_t v2_payload[] = {
	0x10, 0x0f, 0x00, 0x00, /* shim: type 1 | NPT 0; length 15; rsvd; DSCP 0 */
	0x20, 0x00, 0x06, 0x06, /* MD: ver 2 | hop_ml 6 | remaining hop count 6 */
	0x83, 0x81,		/* bitmap 0x8000 node | 0x0200 L2 ports | 0x0100 tx util | 0x0080 buffer |
				 * 0x0001 checksum complement */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* ds id, DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x05, /* newest hop: node 5 */
	0x00, 0x00, 0x01, 0x00, /*   L2 ingress port 256 */
	0x00, 0x00, 0x01, 0x01, /*   L2 egress port 257 */
	0xff, 0xff, 0xff, 0xff, /*   tx util unavailable */
	0x02, 0x00, 0x00, 0x80, /*   buffer id 2, occupancy 128 */
	0x12, 0x34, 0x56, 0x78, /*   checksum complement (not a record field) */
	0x00, 0x00, 0x00, 0x04, /* oldest hop: node 4 */
	0x00, 0x00, 0x00, 0x10, /*   L2 ingress port 16 */
	0x00, 0x00, 0x00, 0x11, /*   L2 egress port 17 */
	0x00, 0x00, 0x00, 0x0a, /*   tx util 10 */
	0x02, 0x00, 0x00, 0x40, /*   buffer id 2, occupancy 64 */
	0xab, 0xcd, 0xef, 0x01, /*   checksum complement */
};
/* clang-format on */

static void check_v2(const struct vec_out *v, uint8_t dscp, uint8_t ecn)
{
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	check_bare_hops(v, 2, 5, HW_INT_V21);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_flow4(&v->recs[i], src, dst, 17, 6000, 6001);
		vec_assert_tclass(&v->recs[i], dscp, ecn);
		assert_int_equal(v->recs[i].buffer_id, 2);
	}
	assert_int_equal(v->recs[0].node_id, 4);
	assert_int_equal(v->recs[0].valid, HW_V_L2_PORTS | HW_V_TX_UTIL | HW_V_BUFFER | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v->recs[0].l2_ingress_port, 16);
	assert_int_equal(v->recs[0].l2_egress_port, 17);
	assert_int_equal(v->recs[0].egress_tx_util, 10);
	assert_int_equal(v->recs[0].buffer_occupancy, 64);
	assert_int_equal(v->recs[1].node_id, 5);
	assert_int_equal(v->recs[1].valid, HW_V_L2_PORTS | HW_V_BUFFER | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v->recs[1].l2_ingress_port, 256);
	assert_int_equal(v->recs[1].l2_egress_port, 257);
	assert_int_equal(v->recs[1].buffer_occupancy, 128);
}

static void int21_udp_bitmap_rest(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	assert_int_equal(sizeof(v2_payload), 64);
	/* TOS 0x5d = DSCP 0x17 | ECN 1 */
	size_t n = vec_udp4_frame(frame, sizeof(frame), v2_payload, sizeof(v2_payload), 6000, 6001, 0x5d);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_v2(&v, 0, 1); /* original DSCP saved in the shim: 0; ECN as carried */
}

static void int21_dscp_bit_mask(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	/* TOS 0xbc = DSCP 0x2f (bit 0x01 set) | ECN 0; cfg: INT when (dscp & 0x01) == 0x01 */
	size_t n = vec_udp4_frame(frame, sizeof(frame), v2_payload, sizeof(v2_payload), 6000, 6001, 0xbc);
	hw_parser_config_default(&cfg);
	cfg.int_dscp = 0x01;
	cfg.int_dscp_mask = 0x01;
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_v2(&v, 0, 0); /* original DSCP from the shim (0), not the marked 0x2f */
	/* DSCP 0x2e (bit 0x01 clear): not INT */
	n = vec_udp4_frame(frame, sizeof(frame), v2_payload, sizeof(v2_payload), 6000, 6001, 0xb8);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_NOT_REPORT);
	assert_int_equal(v.out.n_recs, 0);
	assert_int_equal(v.out.n_reps, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 3: v2.1 over TCP (IPv4 protocol 6 by vec_ip4_frame, TOS 0x5c).  hop_ml 3 = node 1 +
 * latency 1 + 1 word of domain-specific metadata (DS id 1, DS instruction 0x8000); 2 hops.
 * shim length = 3 + 6 = 9; L4 bytes = TCP 20 + 4 + 12 + 24 = 60. */
/* clang-format off */
static const uint8_t v3_l4[] = {
	0x01, 0xbb, 0xc3, 0x51, /* TCP src port 443, dst port 50001 */
	0x00, 0x00, 0x10, 0x00, /* seq */
	0x00, 0x00, 0x20, 0x00, /* ack */
	0x50, 0x18, 0x02, 0x00, /* data offset 5 (20 B, no options: INT follows), PSH ACK, window */
	0x00, 0x00, 0x00, 0x00, /* checksum, urgent */
	0x10, 0x09, 0x00, 0x00, /* INT shim: type 1 | NPT 0; length 9; rsvd; DSCP 0 */
	0x20, 0x00, 0x03, 0x06, /* MD: ver 2 | hop_ml 3 | remaining hop count 6 */
	0xa0, 0x00,		/* bitmap 0x8000 node | 0x2000 latency (2 words) */
	0x00, 0x01,		/* domain specific id 1 */
	0x80, 0x00,		/* DS instruction 0x8000 (1 word of DS metadata per hop) */
	0x00, 0x00,		/* DS flags */
	0x00, 0x00, 0x00, 0x08, /* newest hop: node 8 */
	0x00, 0x00, 0x00, 0x2a, /*   latency 42 */
	0xaa, 0xaa, 0xaa, 0xaa, /*   DS metadata (opaque) */
	0x00, 0x00, 0x00, 0x07, /* oldest hop: node 7 */
	0x00, 0x00, 0x00, 0x15, /*   latency 21 */
	0xbb, 0xbb, 0xbb, 0xbb, /*   DS metadata */
};
/* clang-format on */

static void int21_tcp_ds_md(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	assert_int_equal(sizeof(v3_l4), 60);
	size_t n = vec_ip4_frame(frame, sizeof(frame), 6, v3_l4, sizeof(v3_l4), 0x5c);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 2, 8, HW_INT_V21);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_flow4(&v.recs[i], src, dst, 6, 443, 50001);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
		assert_int_equal(v.recs[i].valid, HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS);
	}
	assert_int_equal(v.recs[0].node_id, 7);
	assert_int_equal(v.recs[0].hop_latency, 21);
	assert_int_equal(v.recs[1].node_id, 8);
	assert_int_equal(v.recs[1].hop_latency, 42);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 4: v2.1 over UDP announced by destination port 4444 (cfg.int_ports), NPT 1: the shim
 * carries the original destination port 4791 (RoCEv2); the original UDP payload (BTH) follows the
 * stack.  shim length = 3 + 2 = 5; payload = 4 + 12 + 8 + BTH 12 + 16 = 52 B. */
/* clang-format off */
static const uint8_t v4_payload[] = {
	0x14,			/* shim: type 1 << 4 | NPT 1 << 2 | rsvd */
	0x05,			/* length 5 = MD 3 + stack 2 */
	0x12, 0xb7,		/* NPT 1: original UDP destination port 4791 */
	0x20, 0x00, 0x01, 0x07, /* MD: ver 2 | hop_ml 1 | remaining hop count 7 */
	0x80, 0x00, 0x00, 0x00, /* bitmap 0x8000 node id; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x21, /* newest hop: node 33 */
	0x00, 0x00, 0x00, 0x20, /* oldest hop: node 32 */
	0x81, 0x00, 0xff, 0xff, /* BTH: opcode 0x81 (CNP) | flags 0 | P_Key 0xffff */
	0x00, 0x00, 0x12, 0x34, /*      reserved | dest QP 0x001234 */
	0x00, 0x00, 0x00, 0x01, /*      A 0 | PSN 1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* CNP reserved 16 B */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* clang-format on */

/* A payload over IPv4/UDP 49153 -> 4444 (TOS tos) parsed with cfg.int_ports = {4444}: INT over UDP
 * announced by its destination port (the NPT 1 and NPT 2 vectors below). */
static enum hw_result parse_int_port(const uint8_t *payload, size_t len, uint8_t tos, struct vec_out *v)
{
	struct hw_parser_config cfg;
	uint8_t frame[256];
	size_t n = vec_udp4_frame(frame, sizeof(frame), payload, len, 49153, 4444, tos);
	hw_parser_config_default(&cfg);
	cfg.int_ports[0] = 4444;
	cfg.n_int_ports = 1;
	vec_out_init(v);
	return hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v->out);
}

static void int21_udp_port_npt1(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	assert_int_equal(sizeof(v4_payload), 52);
	/* TOS 0x02 = DSCP 0 (no DSCP marking) | ECN 2 (ECT(0)) */
	size_t n = vec_udp4_frame(frame, sizeof(frame), v4_payload, sizeof(v4_payload), 49153, 4444, 0x02);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_NOT_REPORT); /* port unknown */
	assert_int_equal(v.out.n_recs, 0);
	assert_int_equal(parse_int_port(v4_payload, sizeof(v4_payload), 0x02, &v), HW_OK);
	check_bare_hops(&v, 2, 33, HW_INT_V21);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(v.recs[i].node_id, 32 + i);
		/* dst_port is the original port from the shim, not 4444 */
		vec_assert_flow4(&v.recs[i], src, dst, 17, 49153, 4791);
		vec_assert_tclass(&v.recs[i], 0, 2);
		assert_int_equal(v.recs[i].valid, HW_V_FLOW | HW_V_TCLASS | HW_V_ROCE);
		assert_int_equal(v.recs[i].roce_opcode, 0x81);
		assert_int_equal(v.recs[i].roce_dest_qp, 0x1234);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 4b: v2.1 NPT 2 (INT v2.1 "new UDP header and INT-MD inserted before TCP"; TR v2.0 "Example
 * with Embedded INT-MD in a TCP Packet"): a UDP header to port 4444 (cfg.int_ports) was added in front
 * of the INT shim, the shim's last byte keeps the original IP protocol (6, TCP), and the original TCP
 * header follows the stack.  The flow is the TCP one: proto 6 with the TCP ports 443 -> 51000, not the
 * added UDP header's ports.  payload = shim 4 + MD 12 + stack 8 + TCP 20 = 44 B. */
static const uint8_t v4b_payload[] = {
    0x18,                   /* shim: type 1 << 4 | NPT 2 << 2 | rsvd */
    0x05,                   /* length 5 = MD 3 + stack 2 */
    0x00, 0x06,             /* NPT 2: reserved | original IP protocol 6 (TCP) */
    0x20, 0x00, 0x01, 0x07, /* MD: ver 2 | hop_ml 1 | remaining hop count 7 */
    0x80, 0x00, 0x00, 0x00, /* bitmap 0x8000 node id; ds id 0 */
    0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
    0x00, 0x00, 0x00, 0x21, /* newest hop: node 33 */
    0x00, 0x00, 0x00, 0x20, /* oldest hop: node 32 */
    0x01, 0xbb, 0xc7, 0x38, /* TCP: src port 443 | dst port 51000 */
    0x00, 0x00, 0x00, 0x01, /*      seq 1 */
    0x00, 0x00, 0x00, 0x00, /*      ack 0 */
    0x50, 0x02, 0xff, 0xff, /*      data offset 5 | SYN | window */
    0x00, 0x00, 0x00, 0x00, /*      checksum | urgent pointer */
};

static void int21_npt2_tcp(void **state)
{
	(void)state;
	struct vec_out v;
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	assert_int_equal(sizeof(v4b_payload), 44);
	assert_int_equal(parse_int_port(v4b_payload, sizeof(v4b_payload), 0x02, &v), HW_OK);
	check_bare_hops(&v, 2, 33, HW_INT_V21);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_flow4(&v.recs[i], src, dst, 6, 443, 51000);
		assert_int_equal(v.recs[i].valid, HW_V_FLOW | HW_V_TCLASS);
	}
	/* The same packet cut right after the stack: the original TCP ports are not there; the ports are
	 * unknown (0), never the added UDP header's. */
	assert_int_equal(parse_int_port(v4b_payload, sizeof(v4b_payload) - 20, 0x02, &v), HW_OK);
	vec_assert_flow4(&v.recs[0], src, dst, 6, 0, 0);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 4d: v2.1 NPT 2 in front of a RoCEv2 packet: the shim's last byte keeps protocol 17 (UDP), the
 * original UDP header (49200 -> 4791) follows the stack, and the BTH follows that header.  The flow is
 * the original UDP one, and opcode / dest QP come from the BTH, 8 bytes after the INT block (the
 * original UDP header), not from the original UDP header itself.  payload = shim 4 + MD 12 + stack 8 +
 * UDP 8 + BTH 12 = 44 B. */
/* clang-format off */
static const uint8_t v4d_payload[] = {
	0x18, 0x05, 0x00, 0x11, /* shim: type 1 | NPT 2; length 5 = MD 3 + stack 2; original protocol 17 */
	0x20, 0x00, 0x01, 0x07, /* MD: ver 2 | hop_ml 1 | remaining hop count 7 */
	0x80, 0x00, 0x00, 0x00, /* bitmap 0x8000 node id; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x21, /* newest hop: node 33 */
	0x00, 0x00, 0x00, 0x20, /* oldest hop: node 32 */
	0xc0, 0x30, 0x12, 0xb7, /* original UDP: src port 49200 | dst port 4791 (RoCEv2) */
	0x00, 0x14, 0x00, 0x00, /*               length 20 | checksum 0 */
	0x0a, 0x40, 0xff, 0xff, /* BTH: opcode 0x0a (RC RDMA WRITE ONLY) | SE M Pad TVer 0x40 | P_Key */
	0x00, 0xab, 0xcd, 0xef, /*      reserved | dest QP 0xabcdef */
	0x80, 0x00, 0x00, 0x07, /*      A 1 | PSN 7 */
};
/* clang-format on */

static void int21_npt2_roce(void **state)
{
	(void)state;
	struct vec_out v;
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	assert_int_equal(sizeof(v4d_payload), 44);
	assert_int_equal(parse_int_port(v4d_payload, sizeof(v4d_payload), 0x02, &v), HW_OK);
	check_bare_hops(&v, 2, 33, HW_INT_V21);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_flow4(&v.recs[i], src, dst, 17, 49200, 4791);
		assert_int_equal(v.recs[i].valid, HW_V_FLOW | HW_V_TCLASS | HW_V_ROCE);
		assert_int_equal(v.recs[i].roce_opcode, 0x0a);
		assert_int_equal(v.recs[i].roce_dest_qp, 0xabcdef);
	}
	/* cut inside the BTH: the flow stays, no RoCE fields (the BTH is not all there) */
	assert_int_equal(parse_int_port(v4d_payload, sizeof(v4d_payload) - 4, 0x02, &v), HW_OK);
	vec_assert_flow4(&v.recs[0], src, dst, 17, 49200, 4791);
	assert_int_equal(v.recs[0].valid, HW_V_FLOW | HW_V_TCLASS);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 4c: v2.1 over UDP port 4444 with NPT 1 restoring the original port 4789 (VXLAN, RFC 7348).
 * After the stack: VXLAN 8 B (flags 0x08 = I, VNI 100), the tenant frame: Ethernet 14, IPv4 20
 * (192.168.1.1 -> 192.168.2.2, TCP, TOS 0), TCP 20 (80 -> 40000).  The flow is the tenant's, as for
 * VXLAN-GPE and Geneve (docs/records.md), and as Wireshark's VXLAN dissector shows it.  payload =
 * shim 4 + MD 12 + stack 8 + 8 + 14 + 20 + 20 = 86 B. */
/* clang-format off */
static const uint8_t v4c_payload[] = {
	0x14, 0x05, 0x12, 0xb5, /* shim: type 1 | NPT 1; length 5; original UDP dst port 4789 */
	0x20, 0x00, 0x01, 0x07, /* MD: ver 2 | hop_ml 1 | remaining hop count 7 */
	0x80, 0x00, 0x00, 0x00, /* bitmap 0x8000 node id; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x21, /* newest hop: node 33 */
	0x00, 0x00, 0x00, 0x20, /* oldest hop: node 32 */
	0x08, 0x00, 0x00, 0x00, /* VXLAN: flags I | reserved */
	0x00, 0x00, 0x64, 0x00, /*        VNI 100 | reserved */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0b, /* tenant Ethernet dst */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, /*                 src */
	0x08, 0x00,             /*                 IPv4 */
	0x45, 0x00, 0x00, 0x28, /* tenant IPv4, TOS 0, total length 40 */
	0x00, 0x01, 0x40, 0x00, /*   ID 1, DF */
	0x40, 0x06, 0x00, 0x00, /*   TTL 64, TCP, checksum */
	0xc0, 0xa8, 0x01, 0x01, /*   src 192.168.1.1 */
	0xc0, 0xa8, 0x02, 0x02, /*   dst 192.168.2.2 */
	0x00, 0x50, 0x9c, 0x40, /* tenant TCP: src port 80, dst port 40000 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* seq 1, ack 0 */
	0x50, 0x10, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, /* data offset 5 | ACK | window; checksum, urgent */
};
/* clang-format on */

static void int21_npt1_vxlan(void **state)
{
	(void)state;
	struct vec_out v;
	static const uint8_t src[4] = {192, 168, 1, 1}, dst[4] = {192, 168, 2, 2};
	assert_int_equal(sizeof(v4c_payload), 86);
	assert_int_equal(parse_int_port(v4c_payload, sizeof(v4c_payload), 0, &v), HW_OK);
	check_bare_hops(&v, 2, 33, HW_INT_V21);
	for (unsigned i = 0; i < 2; i++)
		vec_assert_flow4(&v.recs[i], src, dst, 6, 80, 40000);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 5: v1.0 over UDP, DSCP 0x17.  per hop = switch 4 + ports 4 + latency 4 + queue 4 +
 * ingress ts 4 + egress ts 4 = 24 B = 6 words; shim length = 1 + 2 + 12 = 15 (incl. shim);
 * payload = 4 + 8 + 48 = 60 B. */
/* clang-format off */
static const uint8_t v5_payload[] = {
	0x01,			/* shim: type 1 (hop-by-hop) */
	0x00,			/* rsvd */
	0x0f,			/* length 15 words, shim included */
	0x00,			/* original DSCP 0 | R R */
	0x10, 0x00, 0x06, 0x06, /* MD: ver 1, rep 0, C E M 0 | rsvd | hop_ml 6 | remaining hop count 6 */
	0xfc, 0x00, 0x00, 0x00, /* bitmap 0x8000..0x0400 (6 items, 4 B each in v1.0); rsvd */
	0x00, 0x00, 0x00, 0x0b, /* newest hop: switch id 11 */
	0x00, 0x01, 0x00, 0x02, /*   ports 1 -> 2 */
	0x00, 0x00, 0x00, 0x32, /*   hop latency 50 */
	0x03, 0x00, 0x00, 0x09, /*   queue id 3, occupancy 9 */
	0x00, 0x01, 0x00, 0x00, /*   ingress ts 0x10000 */
	0x00, 0x01, 0x00, 0x32, /*   egress ts 0x10032 */
	0x00, 0x00, 0x00, 0x0a, /* oldest hop: switch id 10 */
	0x00, 0x03, 0x00, 0x01, /*   ports 3 -> 1 */
	0x00, 0x00, 0x00, 0x1e, /*   hop latency 30 */
	0x03, 0x00, 0x00, 0x04, /*   queue id 3, occupancy 4 */
	0x00, 0x00, 0xf0, 0x00, /*   ingress ts 0xf000 */
	0x00, 0x00, 0xf0, 0x1e, /*   egress ts 0xf01e */
};
/* clang-format on */

static void int10_udp_dscp(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	const uint32_t all =
	    HW_V_PORTS | HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS | HW_V_FLOW | HW_V_TCLASS;
	assert_int_equal(sizeof(v5_payload), 60);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v5_payload, sizeof(v5_payload), 7100, 7101, 0x5c);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 2, 11, HW_INT_V10);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_flow4(&v.recs[i], src, dst, 17, 7100, 7101);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
		assert_int_equal(v.recs[i].valid, all);
		assert_int_equal(v.recs[i].queue_id, 3);
	}
	assert_int_equal(v.recs[0].node_id, 10);
	assert_int_equal(v.recs[0].ingress_port, 3);
	assert_int_equal(v.recs[0].egress_port, 1);
	assert_int_equal(v.recs[0].hop_latency, 30);
	assert_int_equal(v.recs[0].queue_occupancy, 4);
	assert_int_equal(v.recs[0].ingress_ts, 0xf000);
	assert_int_equal(v.recs[0].egress_ts, 0xf01e);
	assert_int_equal(v.recs[1].node_id, 11);
	assert_int_equal(v.recs[1].ingress_port, 1);
	assert_int_equal(v.recs[1].egress_port, 2);
	assert_int_equal(v.recs[1].hop_latency, 50);
	assert_int_equal(v.recs[1].queue_occupancy, 9);
	assert_int_equal(v.recs[1].ingress_ts, 0x10000);
	assert_int_equal(v.recs[1].egress_ts, 0x10032);
}

/* Vector 6: v1.0 over TCP.  per hop = switch 4 + L2 ports 8 + tx util 4 = 16 B = 4 words; 1 hop;
 * shim length = 1 + 2 + 4 = 7; L4 bytes = TCP 20 + 4 + 8 + 16 = 48. */
/* clang-format off */
static const uint8_t v6_l4[] = {
	0x00, 0x50, 0xea, 0x60, /* TCP src port 80, dst port 60000 */
	0x00, 0x00, 0x00, 0x01, /* seq */
	0x00, 0x00, 0x00, 0x01, /* ack */
	0x50, 0x10, 0x01, 0x00, /* data offset 5, ACK, window */
	0x00, 0x00, 0x00, 0x00, /* checksum, urgent */
	0x01, 0x00, 0x07, 0x00, /* v1.0 shim: type 1 | rsvd | length 7 (incl. shim) | DSCP 0 */
	0x10, 0x00, 0x04, 0x07, /* MD: ver 1 | hop_ml 4 | remaining hop count 7 */
	0x83, 0x00, 0x00, 0x00, /* bitmap 0x8000 switch id | 0x0200 L2 ports (8 B) | 0x0100 tx util */
	0x00, 0x00, 0x00, 0x0c, /* hop: switch id 12 */
	0x00, 0x00, 0x00, 0xc8, /*   L2 ingress port 200 */
	0x00, 0x00, 0x00, 0xc9, /*   L2 egress port 201 */
	0x00, 0x00, 0x01, 0xf4, /*   tx util 500 */
};
/* clang-format on */

static void int10_tcp_l2_ports(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	assert_int_equal(sizeof(v6_l4), 48);
	size_t n = vec_ip4_frame(frame, sizeof(frame), 6, v6_l4, sizeof(v6_l4), 0x5f); /* DSCP 0x17 | ECN 3 */
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 1, 12, HW_INT_V10);
	const struct hw_record *r = &v.recs[0];
	vec_assert_flow4(r, src, dst, 6, 80, 60000);
	vec_assert_tclass(r, 0, 3); /* original DSCP from the v1.0 shim (0); ECN as carried */
	assert_int_equal(r->node_id, 12);
	assert_int_equal(r->valid, HW_V_L2_PORTS | HW_V_TX_UTIL | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(r->l2_ingress_port, 200);
	assert_int_equal(r->l2_egress_port, 201);
	assert_int_equal(r->egress_tx_util, 500);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 7: v0.5 over UDP.  ins_cnt 3 (switch, ports, latency), total hop count 2: stack 6 words;
 * shim length = shim 1 + MD 2 + stack 6 + tail 1 = 10; payload = 4 + 8 + 24 + 4 = 40 B. */
/* clang-format off */
static const uint8_t v7_payload[] = {
	0x01, 0x00, 0x0a, 0x00, /* v0.5 shim: type 1 (hop-by-hop) | rsvd | length 10 | rsvd */
	0x00,			/* MD: ver 0 | rep 0 | C 0 | E 0 */
	0x03,			/* rsvd:3 | ins_cnt 3 */
	0x08,			/* max hop count 8 */
	0x02,			/* total hop count 2 */
	0xe0, 0x00, 0x00, 0x00, /* bitmap 0x8000 switch | 0x4000 ports | 0x2000 latency; rsvd */
	0x00, 0x00, 0x00, 0x15, /* newest hop: switch 21 */
	0x00, 0x02, 0x00, 0x03, /*   ports 2 -> 3 */
	0x00, 0x00, 0x00, 0x0c, /*   latency 12 */
	0x00, 0x00, 0x00, 0x14, /* oldest hop: switch 20 */
	0x00, 0x01, 0x00, 0x02, /*   ports 1 -> 2 */
	0x00, 0x00, 0x00, 0x0b, /*   latency 11 */
	0x11, 0x1b, 0x59, 0x00, /* tail: proto 17 | dst port 7001 | original DSCP 0 */
};
/* clang-format on */

static void int05_udp_dscp(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	assert_int_equal(sizeof(v7_payload), 40);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v7_payload, sizeof(v7_payload), 7000, 7001, 0x5c);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 2, 21, HW_INT_V05);
	for (unsigned i = 0; i < 2; i++) {
		vec_assert_flow4(&v.recs[i], src, dst, 17, 7000, 7001);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
		assert_int_equal(v.recs[i].valid, HW_V_PORTS | HW_V_HOP_LATENCY | HW_V_FLOW | HW_V_TCLASS);
		assert_int_equal(v.recs[i].node_id, 20 + i);
		assert_int_equal(v.recs[i].ingress_port, 1 + i);
		assert_int_equal(v.recs[i].egress_port, 2 + i);
		assert_int_equal(v.recs[i].hop_latency, 11 + i);
	}
}

/* Vector 8: v0.5 over TCP.  ins_cnt 2 (switch, queue), 1 hop; shim length = 1 + 2 + 2 + 1 = 6;
 * L4 bytes = TCP 20 + 4 + 8 + 8 + 4 = 44. */
/* clang-format off */
static const uint8_t v8_l4[] = {
	0x13, 0x88, 0x00, 0x16, /* TCP src port 5000, dst port 22 */
	0x00, 0x00, 0x00, 0x00, /* seq */
	0x00, 0x00, 0x00, 0x00, /* ack */
	0x50, 0x02, 0x72, 0x10, /* data offset 5, SYN, window */
	0x00, 0x00, 0x00, 0x00, /* checksum, urgent */
	0x01, 0x00, 0x06, 0x00, /* v0.5 shim: type 1 | rsvd | length 6 | rsvd */
	0x00, 0x02, 0x08, 0x01, /* MD: ver 0 ... | ins_cnt 2 | max hop count 8 | total hop count 1 */
	0x90, 0x00, 0x00, 0x00, /* bitmap 0x8000 switch | 0x1000 queue; rsvd */
	0x00, 0x00, 0x00, 0x1e, /* hop: switch 30 */
	0x05, 0x00, 0x03, 0xe8, /*   queue id 5, occupancy 1000 */
	0x06, 0x00, 0x16, 0x00, /* tail: proto 6 | dst port 22 | original DSCP 0 */
};
/* clang-format on */

static void int05_tcp_dscp(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	static const uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 100};
	assert_int_equal(sizeof(v8_l4), 44);
	size_t n = vec_ip4_frame(frame, sizeof(frame), 6, v8_l4, sizeof(v8_l4), 0x5c);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 1, 30, HW_INT_V05);
	vec_assert_flow4(&v.recs[0], src, dst, 6, 5000, 22);
	vec_assert_tclass(&v.recs[0], 0, 0); /* original DSCP saved in the shim: 0 */
	assert_int_equal(v.recs[0].node_id, 30);
	assert_int_equal(v.recs[0].valid, HW_V_QUEUE | HW_V_FLOW | HW_V_TCLASS);
	assert_int_equal(v.recs[0].queue_id, 5);
	assert_int_equal(v.recs[0].queue_occupancy, 1000);
}

/* ------------------------------------------------------------------------------------------ */
/* Vector 9: VXLAN-GPE (outer UDP dst 4790, no INT DSCP on the outer header).
 * GPE 8 + INT shim 4 + MD 12 + stack 16 + inner Ethernet 14 + IPv4 20 + UDP 8 = 82 B. */
/* clang-format off */
static uint8_t v9_payload[] = {
	0x0c,			/* GPE flags: R R Ver 0 | I 1 | P 1 | B 0 | O 0 */
	0x00, 0x00,		/* reserved */
	0x82,			/* next protocol 0x82: INT header (v2.x) */
	0x00, 0x00, 0x64, 0x00, /* VNI 100 | reserved */
	0x10,			/* GPE INT shim: type 1 (INT-MD) | rsvd */
	0x07,			/* length 7 = MD 3 + stack 4 (shim not counted) */
	0x00,			/* G 0 | reserved */
	0x03,			/* next protocol 0x03: Ethernet */
	0x20, 0x00, 0x02, 0x06, /* MD: ver 2 | hop_ml 2 | remaining hop count 6 */
	0xc0, 0x00, 0x00, 0x00, /* bitmap 0x8000 node | 0x4000 L1 ports; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x2a, /* newest hop: node 42 */
	0x00, 0x05, 0x00, 0x06, /*   ports 5 -> 6 */
	0x00, 0x00, 0x00, 0x29, /* oldest hop: node 41 */
	0x00, 0x07, 0x00, 0x08, /*   ports 7 -> 8 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0b, /* inner Ethernet dst */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, /* src */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x00, 0x00, 0x1c,		    /* IHL 5, TOS 0, total length 28 */
	0x00, 0x00, 0x40, 0x00,		    /* ID 0, DF */
	0x40, 0x11, 0x23, 0xbb,		    /* TTL 64, UDP, checksum */
	0x0a, 0x0a, 0x01, 0x01,		    /* src 10.10.1.1 */
	0x0a, 0x0a, 0x02, 0x02,		    /* dst 10.10.2.2 */
	0x30, 0x39, 0x00, 0x35,		    /* UDP src port 12345, dst port 53 */
	0x00, 0x08, 0x00, 0x00,		    /* UDP length 8, checksum 0 */
};
/* clang-format on */

static void int21_vxlan_gpe(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	assert_int_equal(sizeof(v9_payload), 82);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v9_payload, sizeof(v9_payload), 40000, 4790, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 2, 42, HW_INT_V21);
	/* flow fields are not asserted: which 5-tuple (outer or tenant) is "the flow" of a tunnel is
	 * not fixed by the convention */
	assert_int_equal(v.recs[0].node_id, 41);
	assert_true(v.recs[0].valid & HW_V_PORTS);
	assert_int_equal(v.recs[0].ingress_port, 7);
	assert_int_equal(v.recs[0].egress_port, 8);
	assert_int_equal(v.recs[1].node_id, 42);
	assert_true(v.recs[1].valid & HW_V_PORTS);
	assert_int_equal(v.recs[1].ingress_port, 5);
	assert_int_equal(v.recs[1].egress_port, 6);
}

/* Vector 10: Geneve (outer UDP dst 6081).  Geneve 8 + option header 4 + MD 12 + stack 16 + inner
 * Ethernet 14 + IPv4 20 + UDP 8 = 82 B; Geneve opt len = (4 + 12 + 16) / 4 = 8 words; option
 * length = (12 + 16) / 4 = 7 words (option header not counted). */
/* clang-format off */
static uint8_t v10_payload[] = {
	0x08,			/* Geneve: ver 0 | opt len 8 words */
	0x00,			/* O 0 C 0 | rsvd */
	0x65, 0x58,		/* protocol type 0x6558: Ethernet (transparent bridging) */
	0x00, 0x00, 0xc8, 0x00, /* VNI 200 | reserved */
	0x01, 0x03,		/* option class 0x0103 (INT) */
	0x01,			/* option type 1 (INT-MD) */
	0x07,			/* R R R | length 7 words */
	0x20, 0x00, 0x02, 0x06, /* MD: ver 2 | hop_ml 2 | remaining hop count 6 */
	0xa0, 0x00, 0x00, 0x00, /* bitmap 0x8000 node | 0x2000 latency; ds id 0 */
	0x00, 0x00, 0x00, 0x00, /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x34, /* newest hop: node 52 */
	0x00, 0x00, 0x00, 0x0f, /*   latency 15 */
	0x00, 0x00, 0x00, 0x33, /* oldest hop: node 51 */
	0x00, 0x00, 0x00, 0x0e, /*   latency 14 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0b, /* inner Ethernet dst */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x0a, /* src */
	0x08, 0x00,			    /* IPv4 */
	0x45, 0x00, 0x00, 0x1c,		    /* IHL 5, TOS 0, total length 28 */
	0x00, 0x00, 0x40, 0x00,		    /* ID 0, DF */
	0x40, 0x11, 0x23, 0xbb,		    /* TTL 64, UDP, checksum */
	0x0a, 0x0a, 0x01, 0x01,		    /* src 10.10.1.1 */
	0x0a, 0x0a, 0x02, 0x02,		    /* dst 10.10.2.2 */
	0x30, 0x39, 0x00, 0x35,		    /* UDP src port 12345, dst port 53 */
	0x00, 0x08, 0x00, 0x00,		    /* UDP length 8, checksum 0 */
};
/* clang-format on */

static void int21_geneve(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256];
	assert_int_equal(sizeof(v10_payload), 82);
	size_t n = vec_udp4_frame(frame, sizeof(frame), v10_payload, sizeof(v10_payload), 40001, 6081, 0);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 2, 52, HW_INT_V21);
	assert_int_equal(v.recs[0].node_id, 51);
	assert_true(v.recs[0].valid & HW_V_HOP_LATENCY);
	assert_int_equal(v.recs[0].hop_latency, 14);
	assert_int_equal(v.recs[1].node_id, 52);
	assert_true(v.recs[1].valid & HW_V_HOP_LATENCY);
	assert_int_equal(v.recs[1].hop_latency, 15);
}

/* Vector 10 with another option type of the INT class.  INT v2.1 (INT over Geneve) numbers the option
 * types as the shim types: 1 INT-MD (metadata header + stack, parsed above), 2 INT-Destination, 3 INT-MX.
 * An INT-MX option carries an instruction header, not a hop stack, so the packet holds no hop to decode:
 * not a report (not an int_bitmap error).  The high bit of the type byte is Geneve's critical flag
 * (RFC 8926 3.5): 0x81 is still INT-MD. */
static void int21_geneve_option_types(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	uint8_t frame[256], payload[sizeof(v10_payload)];
	hw_parser_config_default(&cfg);

	memcpy(payload, v10_payload, sizeof(payload));
	payload[10] = 0x03; /* option type 3: INT-MX */
	size_t n = vec_udp4_frame(frame, sizeof(frame), payload, sizeof(payload), 40001, 6081, 0);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_NOT_REPORT);
	assert_int_equal(v.out.n_recs, 0);

	payload[10] = 0x81; /* critical | INT-MD */
	n = vec_udp4_frame(frame, sizeof(frame), payload, sizeof(payload), 40001, 6081, 0);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, frame, n, VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 2, 52, HW_INT_V21);
}

/* Vector 11: v2.1 over UDP in IPv6 with a Hop-by-Hop extension header; INT marked by the DSCP in
 * the traffic class.  Lengths by hand: UDP = 8 + shim 4 + MD 12 + stack 8 = 32 (0x20); IPv6 payload
 * length = HBH 8 + 32 = 40 (0x28); frame = 14 + 40 + 40 = 94 B. */
/* clang-format off */
static const uint8_t v11_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, /* dst MAC */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, /* src MAC */
	0x86, 0xdd,			    /* IPv6 */
	0x65, 0xc0, 0x00, 0x00,		    /* version 6 | traffic class 0x5c = DSCP 0x17 << 2 | ECN 0 | flow 0 */
	0x00, 0x28,			    /* payload length 40 */
	0x00,				    /* next header 0: Hop-by-Hop Options */
	0x40,				    /* hop limit 64 */
	0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* src fd00::1 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* dst fd00::2 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x11, 0x00,			    /* HBH: next header 17 (UDP), hdr ext len 0 (8 B) */
	0x01, 0x04, 0x00, 0x00, 0x00, 0x00, /*      PadN */
	0x1f, 0x40, 0x1f, 0x41,		    /* UDP src port 8000, dst port 8001 */
	0x00, 0x20, 0x00, 0x00,		    /* UDP length 32, checksum 0 */
	0x10, 0x05, 0x00, 0x00,		    /* INT shim: type 1 | NPT 0; length 5 = 3 + 2 */
	0x20, 0x00, 0x01, 0x06,		    /* MD: ver 2 | hop_ml 1 | remaining hop count 6 */
	0x80, 0x00, 0x00, 0x00,		    /* bitmap 0x8000 node id; ds id 0 */
	0x00, 0x00, 0x00, 0x00,		    /* DS instruction, DS flags */
	0x00, 0x00, 0x00, 0x02,		    /* newest hop: node 2 */
	0x00, 0x00, 0x00, 0x01,		    /* oldest hop: node 1 */
};
/* clang-format on */

static void int21_ipv6_ext(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	struct vec_out v;
	static const uint8_t src[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	static const uint8_t dst[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
	vec_check_frame(v11_frame, sizeof(v11_frame));
	assert_int_equal(sizeof(v11_frame), 94);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, v11_frame, sizeof(v11_frame), VEC_TIME_NS, &v.out), HW_OK);
	check_bare_hops(&v, 2, 2, HW_INT_V21);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(v.recs[i].node_id, i + 1);
		assert_int_equal(v.recs[i].valid, HW_V_FLOW | HW_V_TCLASS);
		vec_assert_flow(&v.recs[i], src, dst, 17, 8000, 8001);
		vec_assert_tclass(&v.recs[i], 0, 0); /* original DSCP saved in the shim/tail: 0 */
	}
}

/* ------------------------------------------------------------------------------------------ */
static void expect_not_report(const struct hw_parser_config *cfg, const uint8_t *frame, size_t n)
{
	struct vec_out v;
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(cfg, frame, n, VEC_TIME_NS, &v.out), HW_NOT_REPORT);
	assert_int_equal(v.out.n_recs, 0);
	assert_int_equal(v.out.n_reps, 0);
}

static void not_int(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	uint8_t frame[256];
	size_t n;
	hw_parser_config_default(&cfg);

	/* vector 1 with TOS 0: no INT DSCP, port 8001 not an INT port */
	memcpy(frame, v1_frame, sizeof(v1_frame));
	frame[15] = 0x00;
	frame[24] = 0x23, frame[25] = 0x4c; /* IPv4 checksum for TOS 0 (0x22f0 + 0x5c) */
	vec_check_frame(frame, sizeof(v1_frame));
	expect_not_report(&cfg, frame, sizeof(v1_frame));

	/* vector 1 unchanged but bare INT search off */
	cfg.bare_int = 0;
	expect_not_report(&cfg, v1_frame, sizeof(v1_frame));
	cfg.bare_int = 1;

	/* VXLAN-GPE whose next protocol is Ethernet (0x03), not INT: the INT bytes are then the
	 * "Ethernet" payload; nothing to find */
	v9_payload[3] = 0x03;
	n = vec_udp4_frame(frame, sizeof(frame), v9_payload, sizeof(v9_payload), 40000, 4790, 0);
	v9_payload[3] = 0x82;
	expect_not_report(&cfg, frame, n);

	/* Geneve option class 0x0104: not the INT class */
	v10_payload[9] = 0x04;
	n = vec_udp4_frame(frame, sizeof(frame), v10_payload, sizeof(v10_payload), 40001, 6081, 0);
	v10_payload[9] = 0x03;
	expect_not_report(&cfg, frame, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(int21_udp_dscp_3hops),  cmocka_unit_test(int21_ts64_half_ones),
	    cmocka_unit_test(int21_udp_bitmap_rest), cmocka_unit_test(int21_dscp_bit_mask),
	    cmocka_unit_test(int21_tcp_ds_md),       cmocka_unit_test(int21_udp_port_npt1),
	    cmocka_unit_test(int21_npt2_tcp),        cmocka_unit_test(int21_npt2_roce),
	    cmocka_unit_test(int21_npt1_vxlan),      cmocka_unit_test(int10_udp_dscp),
	    cmocka_unit_test(int10_tcp_l2_ports),    cmocka_unit_test(int05_udp_dscp),
	    cmocka_unit_test(int05_tcp_dscp),        cmocka_unit_test(int21_vxlan_gpe),
	    cmocka_unit_test(int21_geneve),          cmocka_unit_test(int21_geneve_option_types),
	    cmocka_unit_test(int21_ipv6_ext),        cmocka_unit_test(not_int),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
