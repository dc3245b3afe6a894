/* hopwatch-gen encoders against bytes worked out by hand from the spec tables (INT v2.1/v1.0,
 * TR v2.0/v1.0/v0.5, fabric-tna) and against a real GEANT packet; one frame per format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gen.h"
#include "hopwatch/wire.h"

/* Flow used by every vector: IPv4 UDP 10.10.0.1:1234 -> 10.20.0.2:5678, DSCP 10, ECN 1. */
static void flow_v4_udp(const struct gen_cfg *cfg, struct gen_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->src_ip[10] = f->src_ip[11] = 0xff;
	f->dst_ip[10] = f->dst_ip[11] = 0xff;
	f->src_ip[12] = 10, f->src_ip[13] = 10, f->src_ip[14] = 0, f->src_ip[15] = 1;
	f->dst_ip[12] = 10, f->dst_ip[13] = 20, f->dst_ip[14] = 0, f->dst_ip[15] = 2;
	f->proto = 17;
	f->sport = 1234;
	f->dport = 5678;
	f->dscp = 10;
	f->ecn = 1;
	gen_flow_finish(cfg, f);
}

static void base_cfg(struct gen_cfg *c)
{
	gen_cfg_default(c);
	c->payload = 4;
	c->orig_payload = 4;
}

static void expect_bytes(const struct gen_pkt *k, const uint8_t *want, size_t n)
{
	if (k->len != n || memcmp(k->buf, want, n)) {
		for (size_t i = 0; i < k->len || i < n; i++) {
			int g = i < k->len ? k->buf[i] : -1, w = i < n ? want[i] : -1;
			if (g != w)
				print_message("byte %zu: got %02x want %02x\n", i, (unsigned)g & 0xff,
				              (unsigned)w & 0xff);
		}
	}
	assert_int_equal(k->len, n);
	assert_memory_equal(k->buf, want, n);
}

/* TR v2.0, one INT report, INT v2.1 stack of 1 hop (node id, queue) over UDP, DSCP detection. */
static void test_tr20(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_TR20;
	c.int_ver = GEN_INT_V21;
	c.hops = 1;
	c.instructions = GEN_I_NODE | GEN_I_QUEUE; /* 0x9000 */
	c.rep_md = GEN_R_PORTS | GEN_R_LATENCY;    /* 0x6000 */
	c.src_port = 4000;
	flow_v4_udp(&c, &f);
	memset(&k, 0, sizeof(k));
	k.node_idx = 4; /* node id 5, sender 10.1.0.5 */
	k.hw_id = 3;
	k.seq = 0x12345;
	k.n_reps = 1;
	struct gen_report *r = &k.reps[0];
	r->flow = &f;
	r->n_stack = 1;
	r->flags = HW_RF_TRACKED_FLOW;
	r->hops[0].node_id = 2;
	r->hops[0].qid = 3;
	r->hops[0].qocc = 0x000102;
	r->hops[1].node_id = 5;
	r->hops[1].in_port = 7;
	r->hops[1].out_port = 9;
	r->hops[1].latency = 0x1234;
	gen_build_frame(&c, &k);
	static const uint8_t want[] = {
	    /* Ethernet: collector MAC, sender MAC 02:00:0a + node index + 1, IPv4 */
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x64,
	    0x02,
	    0x00,
	    0x0a,
	    0x00,
	    0x00,
	    0x05,
	    0x08,
	    0x00,
	    /* IPv4: total 112, id = seq low 16 bits, DF, TTL 64, UDP, checksum 0x02cf, 10.1.0.5 -> 10.0.0.100 */
	    0x45,
	    0x00,
	    0x00,
	    0x70,
	    0x23,
	    0x45,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x02,
	    0xcf,
	    0x0a,
	    0x01,
	    0x00,
	    0x05,
	    0x0a,
	    0x00,
	    0x00,
	    0x64,
	    /* UDP 4000 -> 32766, length 92, checksum 0 */
	    0x0f,
	    0xa0,
	    0x7f,
	    0xfe,
	    0x00,
	    0x5c,
	    0x00,
	    0x00,
	    /* group header: ver 2 | hw_id 3 | seq 0x12345 = 0x20c12345; node id 5 */
	    0x20,
	    0xc1,
	    0x23,
	    0x45,
	    0x00,
	    0x00,
	    0x00,
	    0x05,
	    /* individual report: rep_type 1, in_type 4 (IPv4) | report_length 18 | md_length 2 | F */
	    0x14,
	    0x12,
	    0x02,
	    0x20,
	    /* RepMdBits 0x6000 (L1 ports, hop latency), ds_id 0, ds_md_bits 0, ds_md_status 0 */
	    0x60,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    /* metadata: ports 7 -> 9, hop latency 0x1234 */
	    0x00,
	    0x07,
	    0x00,
	    0x09,
	    0x00,
	    0x00,
	    0x12,
	    0x34,
	    /* inner IPv4: DSCP 0x17 (INT) ECN 1 = 0x5d, total 56, DF, TTL 64, UDP, checksum 0x2638 */
	    0x45,
	    0x5d,
	    0x00,
	    0x38,
	    0x00,
	    0x00,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x38,
	    0x0a,
	    0x0a,
	    0x00,
	    0x01,
	    0x0a,
	    0x14,
	    0x00,
	    0x02,
	    /* inner UDP 1234 -> 5678, length 36 */
	    0x04,
	    0xd2,
	    0x16,
	    0x2e,
	    0x00,
	    0x24,
	    0x00,
	    0x00,
	    /* INT v2.1 shim: type 1 NPT 0 | length 5 (MD + stack words) | rsvd | original DSCP 10 << 2 */
	    0x10,
	    0x05,
	    0x00,
	    0x28,
	    /* MD header: ver 2 | hop_ml 2 | remaining hop count 15; bitmap 0x9000; ds_id, ds_instr, ds_flags 0 */
	    0x20,
	    0x00,
	    0x02,
	    0x0f,
	    0x90,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    /* hop: node id 2, queue id 3 + occupancy 0x000102 */
	    0x00,
	    0x00,
	    0x00,
	    0x02,
	    0x03,
	    0x00,
	    0x01,
	    0x02,
	    /* payload "ABCD" */
	    0x41,
	    0x42,
	    0x43,
	    0x44,
	};
	expect_bytes(&k, want, sizeof(want));
}

/* TR v2.0, two coalesced postcard reports, the last with report_length 0xFF, I flag, 22-bit seq. */
static void test_tr20_coalesced(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_TR20;
	c.int_ver = GEN_INT_NONE;
	c.hops = 0;
	c.rep_md = GEN_R_QUEUE;
	c.last_len_ff = 1;
	c.src_port = 4000;
	flow_v4_udp(&c, &f);
	memset(&k, 0, sizeof(k));
	k.node_idx = 4;
	k.seq = 0x3fffff;
	k.n_reps = 2;
	for (int i = 0; i < 2; i++) {
		k.reps[i].flow = &f;
		k.reps[i].hops[0].qid = (uint8_t)(3 + i);
	}
	k.reps[0].flags = HW_RF_TRACKED_FLOW;
	k.reps[0].hops[0].qocc = 0x000102;
	k.reps[1].flags = HW_RF_TRACKED_FLOW | HW_RF_INTERMEDIATE;
	k.reps[1].hops[0].qocc = 5;
	gen_build_frame(&c, &k);
	static const uint8_t want[] = {
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x64,
	    0x02,
	    0x00,
	    0x0a,
	    0x00,
	    0x00,
	    0x05,
	    0x08,
	    0x00,
	    /* IPv4 total 132, id 0xffff, checksum 0x2600 */
	    0x45,
	    0x00,
	    0x00,
	    0x84,
	    0xff,
	    0xff,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x00,
	    0x0a,
	    0x01,
	    0x00,
	    0x05,
	    0x0a,
	    0x00,
	    0x00,
	    0x64,
	    /* UDP 4000 -> 32766, length 112 */
	    0x0f,
	    0xa0,
	    0x7f,
	    0xfe,
	    0x00,
	    0x70,
	    0x00,
	    0x00,
	    /* group: ver 2 | hw_id 0 | seq 0x3fffff; node 5 */
	    0x20,
	    0x3f,
	    0xff,
	    0xff,
	    0x00,
	    0x00,
	    0x00,
	    0x05,
	    /* report 1: INT, IPv4 | length 11 | md_length 1 | F; RepMdBits 0x1000 (queue) */
	    0x14,
	    0x0b,
	    0x01,
	    0x20,
	    0x10,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    /* queue id 3, occupancy 0x000102 */
	    0x03,
	    0x00,
	    0x01,
	    0x02,
	    /* inner IPv4 without INT: TOS 0x29, total 32, checksum 0x2684; UDP length 12; "ABCD" */
	    0x45,
	    0x29,
	    0x00,
	    0x20,
	    0x00,
	    0x00,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x84,
	    0x0a,
	    0x0a,
	    0x00,
	    0x01,
	    0x0a,
	    0x14,
	    0x00,
	    0x02,
	    0x04,
	    0xd2,
	    0x16,
	    0x2e,
	    0x00,
	    0x0c,
	    0x00,
	    0x00,
	    0x41,
	    0x42,
	    0x43,
	    0x44,
	    /* report 2: length 0xFF (to the end of the payload) | md_length 1 | F I */
	    0x14,
	    0xff,
	    0x01,
	    0x30,
	    0x10,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x04,
	    0x00,
	    0x00,
	    0x05,
	    0x45,
	    0x29,
	    0x00,
	    0x20,
	    0x00,
	    0x00,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x84,
	    0x0a,
	    0x0a,
	    0x00,
	    0x01,
	    0x0a,
	    0x14,
	    0x00,
	    0x02,
	    0x04,
	    0xd2,
	    0x16,
	    0x2e,
	    0x00,
	    0x0c,
	    0x00,
	    0x00,
	    0x41,
	    0x42,
	    0x43,
	    0x44,
	};
	expect_bytes(&k, want, sizeof(want));
}

/* TR v1.0 with rep_md ports + egress ts, inner IPv4 with an INT v1.0 stack of 1 hop. */
static void test_tr10(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_TR10;
	c.int_ver = GEN_INT_V10;
	c.hops = 1;
	c.instructions = GEN_I_NODE | GEN_I_QUEUE;
	c.rep_md = GEN_R1_PORTS | GEN_R1_EG_TS; /* 0x24 */
	c.src_port = 4000;
	flow_v4_udp(&c, &f);
	memset(&k, 0, sizeof(k));
	k.node_idx = 4;
	k.hw_id = 1;
	k.seq = 7;
	k.n_reps = 1;
	struct gen_report *r = &k.reps[0];
	r->flow = &f;
	r->n_stack = 1;
	r->flags = HW_RF_TRACKED_FLOW;
	r->hops[0].node_id = 2;
	r->hops[0].qid = 3;
	r->hops[0].qocc = 0x000102;
	r->hops[1].node_id = 5;
	r->hops[1].in_port = 7;
	r->hops[1].out_port = 9;
	r->hops[1].ig_ts = 0x100000010ull;
	r->hops[1].eg_ts = 0x100000110ull;
	gen_build_frame(&c, &k);
	static const uint8_t want[] = {
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x64,
	    0x02,
	    0x00,
	    0x0a,
	    0x00,
	    0x00,
	    0x05,
	    0x08,
	    0x00,
	    /* IPv4 total 104, id 7, checksum 0x2615 */
	    0x45,
	    0x00,
	    0x00,
	    0x68,
	    0x00,
	    0x07,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x15,
	    0x0a,
	    0x01,
	    0x00,
	    0x05,
	    0x0a,
	    0x00,
	    0x00,
	    0x64,
	    /* UDP 4000 -> 32766, length 84 */
	    0x0f,
	    0xa0,
	    0x7f,
	    0xfe,
	    0x00,
	    0x54,
	    0x00,
	    0x00,
	    /* ver 1 | len 6 | nproto 1 (IPv4) | rep_md_bits 100100 | rsvd | D 0 | Q 0 F 1 | hw_id 1 */
	    0x16,
	    0x32,
	    0x00,
	    0x41,
	    /* switch id 5, sequence 7, ingress timestamp (32 bits) 0x00000010 */
	    0x00,
	    0x00,
	    0x00,
	    0x05,
	    0x00,
	    0x00,
	    0x00,
	    0x07,
	    0x00,
	    0x00,
	    0x00,
	    0x10,
	    /* b0 ports 7 -> 9, b3 egress timestamp 0x00000110 */
	    0x00,
	    0x07,
	    0x00,
	    0x09,
	    0x00,
	    0x00,
	    0x01,
	    0x10,
	    /* inner IPv4 TOS 0x5d, total 52, checksum 0x263c */
	    0x45,
	    0x5d,
	    0x00,
	    0x34,
	    0x00,
	    0x00,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x3c,
	    0x0a,
	    0x0a,
	    0x00,
	    0x01,
	    0x0a,
	    0x14,
	    0x00,
	    0x02,
	    /* UDP length 32 */
	    0x04,
	    0xd2,
	    0x16,
	    0x2e,
	    0x00,
	    0x20,
	    0x00,
	    0x00,
	    /* INT v1.0 shim: type 1 | rsvd | length 5 words including the shim | DSCP 10 << 2 */
	    0x01,
	    0x00,
	    0x05,
	    0x28,
	    /* MD: ver 1 | hop_ml 2 | remaining hop count 15 | bitmap 0x9000 | rsvd */
	    0x10,
	    0x00,
	    0x02,
	    0x0f,
	    0x90,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x02,
	    0x03,
	    0x00,
	    0x01,
	    0x02,
	    0x41,
	    0x42,
	    0x43,
	    0x44,
	};
	expect_bytes(&k, want, sizeof(want));
}

/* TR v0.5 (fabric-tna) local report, postcard, 32-bit timestamps across the wrap. */
static void test_tr05(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_TR05;
	c.int_ver = GEN_INT_NONE;
	c.hops = 0;
	c.in_type = GEN_IN_ETH;
	flow_v4_udp(&c, &f);
	memset(&k, 0, sizeof(k));
	k.node_idx = 4;
	k.hw_id = 2;
	k.seq = 9;
	k.n_reps = 1;
	struct gen_report *r = &k.reps[0];
	r->flow = &f;
	r->n_stack = 0;
	r->flags = HW_RF_TRACKED_FLOW;
	r->hops[0].node_id = 5;
	r->hops[0].in_port = 7;
	r->hops[0].out_port = 9;
	r->hops[0].qid = 3;
	r->hops[0].qocc = 0x000102;
	r->hops[0].ig_ts = 0xfffffff0ull;
	r->hops[0].eg_ts = 0x100000010ull;
	gen_build_frame(&c, &k);
	static const uint8_t want[] = {
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x64,
	    0x02,
	    0x00,
	    0x0a,
	    0x00,
	    0x00,
	    0x05,
	    0x08,
	    0x00,
	    /* IPv4 total 102, id 9, checksum 0x2615 */
	    0x45,
	    0x00,
	    0x00,
	    0x66,
	    0x00,
	    0x09,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x15,
	    0x0a,
	    0x01,
	    0x00,
	    0x05,
	    0x0a,
	    0x00,
	    0x00,
	    0x64,
	    /* UDP source port 0 (fabric-tna) -> 32766, length 82 */
	    0x00,
	    0x00,
	    0x7f,
	    0xfe,
	    0x00,
	    0x52,
	    0x00,
	    0x00,
	    /* fixed: ver 0 nproto 2 | D 0 Q 0 F 1 | rsvd | hw_id 2; seq 9; ingress ts 0xfffffff0 */
	    0x02,
	    0x20,
	    0x00,
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x09,
	    0xff,
	    0xff,
	    0xff,
	    0xf0,
	    /* local: switch id 5 | ig port 7 | eg port 9 | queue 3 occupancy 0x000102 | egress ts 0x10 */
	    0x00,
	    0x00,
	    0x00,
	    0x05,
	    0x00,
	    0x07,
	    0x00,
	    0x09,
	    0x03,
	    0x00,
	    0x01,
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x10,
	    /* inner Ethernet */
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x02,
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x01,
	    0x08,
	    0x00,
	    /* inner IPv4: TOS = DSCP 10 ECN 1 = 0x29 (no INT), total 32, checksum 0x2684 */
	    0x45,
	    0x29,
	    0x00,
	    0x20,
	    0x00,
	    0x00,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x84,
	    0x0a,
	    0x0a,
	    0x00,
	    0x01,
	    0x0a,
	    0x14,
	    0x00,
	    0x02,
	    0x04,
	    0xd2,
	    0x16,
	    0x2e,
	    0x00,
	    0x0c,
	    0x00,
	    0x00,
	    0x41,
	    0x42,
	    0x43,
	    0x44,
	};
	expect_bytes(&k, want, sizeof(want));
}

/* Bare INT v2.1 over UDP announced by port (NPT=1 keeps the original port), 2 hops, 8-byte ts. */
static void test_int21_port(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_INT;
	c.int_ver = GEN_INT_V21;
	c.detect = GEN_DETECT_PORT;
	c.int_port = 5000;
	c.hops = 2;
	c.instructions = GEN_I_NODE | GEN_I_IG_TS; /* 0x8800 */
	flow_v4_udp(&c, &f);
	memset(&k, 0, sizeof(k));
	k.n_reps = 1;
	struct gen_report *r = &k.reps[0];
	r->flow = &f;
	r->n_stack = 2;
	r->hops[0].node_id = 1;
	r->hops[0].ig_ts = 0x100000002ull;
	r->hops[1].node_id = 2;
	r->hops[1].ig_ts = 0x100000005ull;
	gen_build_frame(&c, &k);
	static const uint8_t want[] = {
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x02,
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x01,
	    0x08,
	    0x00,
	    /* IPv4 TOS 0x29 (flow DSCP kept), total 72, checksum 0x265c */
	    0x45,
	    0x29,
	    0x00,
	    0x48,
	    0x00,
	    0x00,
	    0x40,
	    0x00,
	    0x40,
	    0x11,
	    0x26,
	    0x5c,
	    0x0a,
	    0x0a,
	    0x00,
	    0x01,
	    0x0a,
	    0x14,
	    0x00,
	    0x02,
	    /* UDP 1234 -> 5000 (INT port), length 52 */
	    0x04,
	    0xd2,
	    0x13,
	    0x88,
	    0x00,
	    0x34,
	    0x00,
	    0x00,
	    /* shim: type 1 NPT 1 = 0x14 | length 9 | original dport 5678 */
	    0x14,
	    0x09,
	    0x16,
	    0x2e,
	    /* MD: ver 2 | hop_ml 3 | remaining 14 | bitmap 0x8800 | ds fields 0 */
	    0x20,
	    0x00,
	    0x03,
	    0x0e,
	    0x88,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    /* newest hop first: node 2, ingress ts 0x100000005; node 1, 0x100000002 */
	    0x00,
	    0x00,
	    0x00,
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x00,
	    0x00,
	    0x00,
	    0x05,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x00,
	    0x00,
	    0x00,
	    0x02,
	    0x41,
	    0x42,
	    0x43,
	    0x44,
	};
	expect_bytes(&k, want, sizeof(want));
}

/* Bare INT v0.5 over TCP in IPv6, DSCP detection: shim, MD header (ins_cnt), stack, tail. */
static void test_int05_tcp_ipv6(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_INT;
	c.int_ver = GEN_INT_V05;
	c.l4 = GEN_L4_TCP;
	c.hops = 1;
	c.instructions = GEN_I_NODE | GEN_I_EG_TS; /* 0x8400 */
	memset(&f, 0, sizeof(f));
	f.ipv6 = 1;
	f.src_ip[0] = 0x20, f.src_ip[1] = 0x01, f.src_ip[2] = 0x0d, f.src_ip[3] = 0xb8, f.src_ip[15] = 1;
	f.dst_ip[0] = 0x20, f.dst_ip[1] = 0x01, f.dst_ip[2] = 0x0d, f.dst_ip[3] = 0xb8, f.dst_ip[15] = 2;
	f.proto = 6;
	f.sport = 1234;
	f.dport = 80;
	f.dscp = 10;
	gen_flow_finish(&c, &f);
	memset(&k, 0, sizeof(k));
	k.n_reps = 1;
	struct gen_report *r = &k.reps[0];
	r->flow = &f;
	r->n_stack = 1;
	r->psn = 0x01020304; /* TCP sequence number */
	r->hops[0].node_id = 9;
	r->hops[0].eg_ts = 0x123456789ull; /* 4 bytes on the wire in v0.5 */
	gen_build_frame(&c, &k);
	static const uint8_t want[] = {
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x02,
	    0x02,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x01,
	    0x86,
	    0xdd,
	    /* IPv6: version 6, traffic class 0x5c (DSCP 0x17, ECN 0), flow label 0, payload 48, TCP, hop limit 64 */
	    0x65,
	    0xc0,
	    0x00,
	    0x00,
	    0x00,
	    0x30,
	    0x06,
	    0x40,
	    0x20,
	    0x01,
	    0x0d,
	    0xb8,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x01,
	    0x20,
	    0x01,
	    0x0d,
	    0xb8,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x02,
	    /* TCP 1234 -> 80, seq 0x01020304, ack 0, data offset 5, PSH ACK, window 0xffff */
	    0x04,
	    0xd2,
	    0x00,
	    0x50,
	    0x01,
	    0x02,
	    0x03,
	    0x04,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    0x50,
	    0x18,
	    0xff,
	    0xff,
	    0x00,
	    0x00,
	    0x00,
	    0x00,
	    /* v0.5 shim: type 1 | rsvd | length 6 words (shim + MD + stack + tail) | rsvd */
	    0x01,
	    0x00,
	    0x06,
	    0x00,
	    /* MD: ver 0 rep 0 C 0 E 0 | rsvd 3 + ins_cnt 2 | max hop count 16 | total hop count 1 |
	     * bitmap 0x8400 | rsvd */
	    0x00,
	    0x02,
	    0x10,
	    0x01,
	    0x84,
	    0x00,
	    0x00,
	    0x00,
	    /* hop: switch id 9, egress timestamp (low 32 bits) */
	    0x00,
	    0x00,
	    0x00,
	    0x09,
	    0x23,
	    0x45,
	    0x67,
	    0x89,
	    /* tail: proto 6 | original dport 80 | original DSCP 10 */
	    0x06,
	    0x00,
	    0x50,
	    0x0a,
	    0x41,
	    0x42,
	    0x43,
	    0x44,
	};
	expect_bytes(&k, want, sizeof(want));
}

/* GEANT profile: the INT part must equal the real packet 2601_double_header.pcap (GEANT
 * int-platform), UDP payload bytes 0..67 (shim, MD header except version/remaining count, stack,
 * tail). */
static void test_geant_interop(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_INT;
	c.profile = HW_PROFILE_GEANT;
	c.int_ver = GEN_INT_V10;
	c.int_dscp = 0x20;
	c.hops = 2;
	c.instructions = GEN_I_NODE | GEN_I_PORTS | GEN_I_IG_TS | GEN_I_EG_TS;
	c.payload = 6;
	flow_v4_udp(&c, &f);
	f.sport = f.vis_sport = 4607;
	f.dport = f.vis_dport = 17000;
	f.dscp = 0;
	f.ecn = 0;
	memset(&k, 0, sizeof(k));
	k.n_reps = 1;
	struct gen_report *r = &k.reps[0];
	r->flow = &f;
	r->n_stack = 2;
	r->hops[0] = (struct gen_hop){
	    .node_id = 1, .in_port = 1, .out_port = 0, .ig_ts = 0x165dc7fcbc2f5f68ull, .eg_ts = 0x165dc7fcbc2f5f69ull};
	r->hops[1] = (struct gen_hop){
	    .node_id = 2, .in_port = 2, .out_port = 0, .ig_ts = 0x165dc7fcd299f970ull, .eg_ts = 0x165dc7fcd299f971ull};
	gen_build_frame(&c, &k);
	/* from the capture (frame offset 42): shim, MD, two hops, tail */
	static const uint8_t real[] = {
	    0x01, 0x00, 0x10, 0x00, 0x40, 0x04, 0x04, 0x02, 0x00, 0xcc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	    0x00, 0x02, 0x00, 0x00, 0x16, 0x5d, 0xc7, 0xfc, 0xd2, 0x99, 0xf9, 0x70, 0x16, 0x5d, 0xc7, 0xfc,
	    0xd2, 0x99, 0xf9, 0x71, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x16, 0x5d, 0xc7, 0xfc,
	    0xbc, 0x2f, 0x5f, 0x68, 0x16, 0x5d, 0xc7, 0xfc, 0xbc, 0x2f, 0x5f, 0x69, 0x11, 0x42, 0x68, 0x00,
	};
	assert_in_range(k.len, 42 + sizeof(real) + 6, SIZE_MAX);
	assert_int_equal(k.buf[15], 0x80); /* TOS 0x80 */
	const uint8_t *got = k.buf + 42;
	/* MD bytes 4-5: the capture has 0x40 0x04 (version 4, and 4 where v0.5 keeps ins_cnt), remaining
	 * hop count 2; we write version 1, 0 and remaining 14.  hop_ml (byte 6) is 4 in both although a
	 * hop is 6 words: GEANT's hop_ml counts instructions. */
	assert_int_equal(got[4], 0x10);
	assert_int_equal(got[5], 0x00);
	assert_int_equal(got[7], 0x0e);
	assert_memory_equal(got, real, 4);
	assert_int_equal(got[6], real[6]);
	assert_memory_equal(got + 8, real + 8, sizeof(real) - 8);
}

/* GEANT without tail and with the true hop size: the INT part of the real packet my.pcap (GEANT
 * In_band_telemetry_sink_fpga), UDP payload bytes 0..35: 1 hop, node 1, ports 0/0, timestamps 0. */
static void test_geant_fpga_interop(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_INT;
	c.profile = HW_PROFILE_GEANT;
	c.int_ver = GEN_INT_V10;
	c.int_dscp = 0x20;
	c.geant_no_tail = 1;
	c.geant_hop_ml_words = 1;
	c.hops = 1;
	c.instructions = GEN_I_NODE | GEN_I_PORTS | GEN_I_IG_TS | GEN_I_EG_TS;
	c.payload = 0;
	flow_v4_udp(&c, &f);
	f.ecn = 0;
	memset(&k, 0, sizeof(k));
	k.n_reps = 1;
	k.reps[0].flow = &f;
	k.reps[0].n_stack = 1;
	k.reps[0].hops[0].node_id = 1;
	gen_build_frame(&c, &k);
	static const uint8_t real[] = {
	    0x01, 0x00, 0x09, 0x00, 0x10, 0x00, 0x06, 0xfe, 0x00, 0xcc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	assert_int_equal(k.len, 42 + sizeof(real));
	assert_int_equal(k.buf[15], 0x80);
	/* byte 7: remaining hop count, 0xfe in the capture, 16 - 1 here */
	assert_memory_equal(k.buf + 42, real, 7);
	assert_int_equal(k.buf[42 + 7], 0x0f);
	assert_memory_equal(k.buf + 42 + 8, real + 8, sizeof(real) - 8);
}

/* VXLAN-GPE (v2.1, next protocol 0x82) and Geneve (class 0x0103) headers around the stack. */
static void test_tunnels(void **state)
{
	(void)state;
	static struct gen_pkt k;
	struct gen_cfg c;
	struct gen_flow f;
	base_cfg(&c);
	c.format = GEN_FMT_INT;
	c.int_ver = GEN_INT_V21;
	c.encap = GEN_ENCAP_VXLAN_GPE;
	c.hops = 1;
	c.instructions = GEN_I_NODE;
	flow_v4_udp(&c, &f);
	memset(&k, 0, sizeof(k));
	k.n_reps = 1;
	k.reps[0].flow = &f;
	k.reps[0].n_stack = 1;
	k.reps[0].hops[0].node_id = 7;
	gen_build_frame(&c, &k);
	const uint8_t *u = k.buf + 34;
	assert_int_equal(u[2] << 8 | u[3], 4790);
	/* GPE: flags I|P = 0x0c, next protocol 0x82 (INT); then v2.1 GPE shim type 1 | length 4 |
	 * G 0 | next protocol 0x03 (Ethernet); MD header ver 2, hop_ml 1; hop: node 7 */
	static const uint8_t gpe[] = {0x0c, 0x00, 0x00, 0x82};
	assert_memory_equal(u + 8, gpe, 4);
	static const uint8_t shim_md[] = {0x10, 0x04, 0x00, 0x03, 0x20, 0x00, 0x01, 0x0f, 0x80, 0x00,
	                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07};
	assert_memory_equal(u + 16, shim_md, sizeof(shim_md));
	assert_int_equal(u[36] << 8 | u[37], 0x0200); /* tenant Ethernet begins: 02:00:... */

	c.encap = GEN_ENCAP_GENEVE;
	flow_v4_udp(&c, &f);
	memset(&k, 0, sizeof(k));
	k.n_reps = 1;
	k.reps[0].flow = &f;
	k.reps[0].n_stack = 1;
	k.reps[0].hops[0].node_id = 7;
	gen_build_frame(&c, &k);
	assert_int_equal(u[2] << 8 | u[3], 6081);
	/* Geneve: ver 0 opt_len 5 words | O C 0 | protocol 0x6558; option class 0x0103 | type 1 |
	 * length 4 words (MD header 3 + hop 1) */
	assert_int_equal(u[8], 0x05);
	assert_int_equal(u[10] << 8 | u[11], 0x6558);
	static const uint8_t opt[] = {0x01, 0x03, 0x01, 0x04, 0x20, 0x00, 0x01, 0x0f};
	assert_memory_equal(u + 16, opt, sizeof(opt));
	assert_int_equal(u[32] << 24 | u[33] << 16 | u[34] << 8 | u[35], 7); /* option header 4 + MD 12 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tr20),          cmocka_unit_test(test_tr20_coalesced),
	    cmocka_unit_test(test_tr10),          cmocka_unit_test(test_tr05),
	    cmocka_unit_test(test_int21_port),    cmocka_unit_test(test_int05_tcp_ipv6),
	    cmocka_unit_test(test_geant_interop), cmocka_unit_test(test_geant_fpga_interop),
	    cmocka_unit_test(test_tunnels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
