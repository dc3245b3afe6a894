/* Hand-built reports of p4/hopwatch_v1model.p4 as it is now (p4/README.md, "What the collector receives"),
 * every byte from the spec tables, decoded exactly by the collector's parser: a transit's queue report with
 * the TR v2.0 I flag, and a drop report whose egress port is 0xFFFF (no egress port chosen). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/record.h"
#include "hopwatch/record_json.h"
#include "hopwatch/wire.h"
#include "facts.h"

/* IPv4 header checksum (RFC 791) of the 20-byte header at ip, written into bytes 10-11. */
static void set_ip_csum(uint8_t *ip)
{
	uint32_t s = 0;
	ip[10] = ip[11] = 0;
	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	ip[10] = (uint8_t)(~s >> 8);
	ip[11] = (uint8_t)~s;
}

static struct hw_record recs[8];
static struct hw_report reps[2];

/* Parse frame f (outer IPv4 at 14, inner IPv4 at inner) after filling both IPv4 checksums. */
static struct hw_parse_out parse(uint8_t *f, size_t len, size_t inner)
{
	set_ip_csum(f + 14);
	set_ip_csum(f + inner);
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg); /* report port 32766, INT DSCP 0x17/0x3f: as p4/README.md says */
	struct hw_parse_out out = {.recs = recs, .rec_cap = 8, .reps = reps, .rep_cap = 2};
	assert_int_equal(hw_parse_frame(&cfg, f, len, 5000, &out), HW_OK);
	return out;
}

/* clang-format off */
/* Ethernet: to the collector 00:00:00:00:00:64 from s2's port 3 (00:00:0a:00:02:03), IPv4 */
#define S2_TO_COLLECTOR 0x00, 0x00, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x0a, 0x00, 0x02, 0x03, 0x08, 0x00
/* The stack entry s1 pushed (bitmap 0xFC00, 8 words): node 1 | ports 1 -> 2 | latency 50 us | queue 0 holding
 * 3 packets | ingress 500 us | egress 550 us */
#define S1_HOP \
	0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x32, 0x00, 0x00, 0x00, 0x03, \
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xf4, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x26
/* clang-format on */

/* The source hop s1 pushed (S1_HOP), as a record. */
static void check_s1_hop(const struct hw_record *r, unsigned path_len)
{
	assert_int_equal(r->hop_index, 0);
	assert_int_equal(r->path_len, path_len);
	assert_int_equal(r->node_id, 1);
	assert_int_equal(r->int_version, HW_INT_V21);
	assert_int_equal(r->ingress_port, 1);
	assert_int_equal(r->egress_port, 2);
	assert_int_equal(r->hop_latency, 50);
	assert_int_equal(r->queue_id, 0);
	assert_int_equal(r->queue_occupancy, 3);
	assert_int_equal(r->ingress_ts, 500);
	assert_int_equal(r->egress_ts, 550);
	/* inner flow: 10.0.1.1:49152 -> 10.0.2.2:5001 UDP; DSCP 10 saved in the shim (NPT 0), ECT(0) */
	static const uint8_t h1[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 1, 1};
	static const uint8_t h2[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 2};
	assert_memory_equal(r->src_ip, h1, 16);
	assert_memory_equal(r->dst_ip, h2, 16);
	assert_int_equal(r->ip_proto, 17);
	assert_int_equal(r->src_port, 49152);
	assert_int_equal(r->dst_port, 5001);
	assert_int_equal(r->dscp, 10);
	assert_int_equal(r->ecn, 2);
	assert_int_equal(r->flow_hash, hw_flow_hash(h1, h2, 17, 49152, 5001));
}

/* s2 (transit) reports a packet of h1 -> h2 from its congested egress queue.  The program pushed s2's own
 * hop before the clone, so the inner packet's stack holds s2 and s1 (newest first), and the report's
 * metadata repeats s2's hop.  s2 is not the flow's sink: Q F I. */
static void test_transit_queue_report(void **state)
{
	(void)state;
	/* clang-format off */
	uint8_t f[] = {
		S2_TO_COLLECTOR,
		/* IPv4 (offset 14): total length 188 = 20 + 8 + 160, ID 0, DF, TTL 64, UDP, 10.0.0.2 -> 10.0.0.100 */
		0x45, 0x00, 0x00, 0xbc, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
		0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x00, 0x64,
		/* UDP: 50002 -> 32766, length 168 = 8 + 160, checksum 0 */
		0xc3, 0x52, 0x7f, 0xfe, 0x00, 0xa8, 0x00, 0x00,
		/* TR v2.0 group: ver 2, hw_id 0, seq 7 | node id 2 */
		0x20, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x02,
		/* individual report: RepType 1 (INT) InType 4 (IPv4) | report length 37 = 2 + 7 + 28 inner words |
		 * MD length 7 | D 0 Q 1 F 1 I 1, Rsvd 0: 0b0111_0000 */
		0x14, 0x25, 0x07, 0x70,
		/* INT main: RepMdBits 0x7C00 (bits 1-5: L1 ports, latency, queue, ingress ts, egress ts), DS id 0 |
		 * DSMdBits 0, DSMdstatus 0 */
		0x7c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		/* metadata, s2's hop: ports 1 -> 2 | latency 100 us | queue 0, occupancy 42 | ingress 1000 us |
		 * egress 1100 us */
		0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x2a,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x4c,
		/* inner IPv4 (offset 90 = 14 + 20 + 8 + 8 + 4 + 8 + 28): DSCP 0x17 (INT) ECN 2 = 0x5e, total length
		 * 112 = 20 + 8 + 4 + 12 + 64 + 4, ID 1, DF, TTL 62 (h1 sent 64; s1 and s2 forwarded), UDP,
		 * 10.0.1.1 -> 10.0.2.2 */
		0x45, 0x5e, 0x00, 0x70, 0x00, 0x01, 0x40, 0x00, 0x3e, 0x11, 0x00, 0x00,
		0x0a, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x02, 0x02,
		/* inner UDP: 49152 -> 5001, length 92, checksum 0 (the source zeroes it) */
		0xc0, 0x00, 0x13, 0x89, 0x00, 0x5c, 0x00, 0x00,
		/* INT v2.1 shim: type 1 (MD), NPT 0 | length 19 = 3 (MD header) + 2 hops x 8 | original DSCP 10 << 2 */
		0x10, 0x13, 0x00, 0x28,
		/* MD header: ver 2, D E M 0, Hop ML 8 | remaining hop count 6 (8 - 2) | bitmap 0xFC00 | DS 0 */
		0x20, 0x00, 0x08, 0x06, 0xfc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		/* stack, newest first: s2 (node 2, the same hop as the metadata) */
		0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x2a,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x4c,
		S1_HOP,
		/* payload */
		'a', 'b', 'c', 'd',
	};
	/* clang-format on */
	assert_int_equal(sizeof(f), 14 + 188);
	struct hw_parse_out out = parse(f, sizeof(f), 90);
	const unsigned qfi = HW_RF_CONGESTED_QUEUE | HW_RF_TRACKED_FLOW | HW_RF_INTERMEDIATE;
	assert_int_equal(out.n_reps, 1);
	assert_int_equal(reps[0].format, HW_FORMAT_TR20);
	assert_int_equal(reps[0].node, 2);
	assert_int_equal(reps[0].seq, 7);
	assert_int_equal(reps[0].seq_bits, 22);
	assert_int_equal(reps[0].flags, qfi);
	/* two hops, not three: s2's metadata fills the newest stack hop, which names s2 (docs/records.md) */
	assert_int_equal(out.n_recs, 2);
	assert_int_equal(reps[0].n_hops, 2);
	check_s1_hop(&recs[0], 2);
	const struct hw_record *r = &recs[1];
	assert_int_equal(r->hop_index, 1);
	assert_int_equal(r->path_len, 2);
	assert_int_equal(r->node_id, 2);
	assert_int_equal(r->ingress_port, 1);
	assert_int_equal(r->egress_port, 2);
	assert_int_equal(r->hop_latency, 100);
	assert_int_equal(r->queue_occupancy, 42);
	assert_int_equal(r->ingress_ts, 1000);
	assert_int_equal(r->egress_ts, 1100);
	for (unsigned h = 0; h < 2; h++) {
		assert_int_equal(recs[h].time_ns, 5000);
		assert_int_equal(recs[h].report_node, 2);
		assert_int_equal(recs[h].report_seq, 7);
		assert_int_equal(recs[h].hw_id, 0);
		assert_int_equal(recs[h].format, HW_FORMAT_TR20);
		assert_int_equal(recs[h].report_flags, qfi);
		const unsigned v = HW_V_PORTS | HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_INGRESS_TS | HW_V_EGRESS_TS |
		                   HW_V_FLOW | HW_V_TCLASS;
		assert_int_equal(recs[h].valid & v, v);
		assert_int_equal(recs[h].valid & HW_V_DROP, 0);
	}
	/* the JSON record names the flag */
	char line[HW_RECORD_JSON_MAX];
	hw_record_json(&recs[1], line);
	assert_non_null(strstr(line, "\"congested_queue\",\"tracked_flow\",\"intermediate\"]"));
	/* the path so far (s1, s2): compared with the same prefix of the flow's path, whether or not the
	 * flow's whole path (3 hops, from s3's reports) is known yet */
	assert_int_equal(hw_path_report_use(qfi, 2, true, 3), HW_PATH_PREFIX);
	assert_int_equal(hw_path_report_use(qfi, 2, true, 0), HW_PATH_PREFIX);
}

/* s2 drops a packet of h1 -> h2 in ingress (TTL expired, reason 26) before an egress port is chosen: the
 * report's L1 egress port is 0xFFFF.  The inner packet is as received: s1's hop on the stack.  D F, I 0. */
static void test_drop_report_no_egress(void **state)
{
	(void)state;
	/* clang-format off */
	uint8_t f[] = {
		S2_TO_COLLECTOR,
		/* IPv4: total length 144 = 20 + 8 + 116 */
		0x45, 0x00, 0x00, 0x90, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
		0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x00, 0x64,
		/* UDP: 50002 -> 32766, length 124 = 8 + 116 */
		0xc3, 0x52, 0x7f, 0xfe, 0x00, 0x7c, 0x00, 0x00,
		/* group: ver 2, hw_id 0, seq 8 | node 2 */
		0x20, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x02,
		/* individual report: INT, IPv4 | report length 26 = 2 + 4 + 20 inner words | MD length 4 |
		 * D 1 Q 0 F 1 I 0: 0b1010_0000 */
		0x14, 0x1a, 0x04, 0xa0,
		/* RepMdBits 0x4801: bit 1 (L1 ports), bit 4 (ingress ts), bit 15 (queue id + drop reason) */
		0x48, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		/* metadata: ingress port 1, egress port 0xFFFF (none) | ingress 2000 us | queue 0, reason 26, pad */
		0x00, 0x01, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0xd0, 0x00, 0x1a, 0x00, 0x00,
		/* inner IPv4 (offset 78 = 14 + 20 + 8 + 8 + 4 + 8 + 16): 0x5e, total length 80 = 20 + 8 + 4 + 12 +
		 * 32 + 4, ID 2, DF, TTL 1 as received (h1 sent 2, s1 forwarded it), UDP, 10.0.1.1 -> 10.0.2.2 */
		0x45, 0x5e, 0x00, 0x50, 0x00, 0x02, 0x40, 0x00, 0x01, 0x11, 0x00, 0x00,
		0x0a, 0x00, 0x01, 0x01, 0x0a, 0x00, 0x02, 0x02,
		/* inner UDP: 49152 -> 5001, length 60 */
		0xc0, 0x00, 0x13, 0x89, 0x00, 0x3c, 0x00, 0x00,
		/* shim: type 1, NPT 0 | length 11 = 3 + 1 hop x 8 | DSCP 10 << 2 */
		0x10, 0x0b, 0x00, 0x28,
		/* MD header: ver 2, Hop ML 8 | remaining 7 | bitmap 0xFC00 */
		0x20, 0x00, 0x08, 0x07, 0xfc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		S1_HOP,
		'a', 'b', 'c', 'd',
	};
	/* clang-format on */
	assert_int_equal(sizeof(f), 14 + 144);
	struct hw_parse_out out = parse(f, sizeof(f), 78);
	const unsigned df = HW_RF_DROPPED | HW_RF_TRACKED_FLOW;
	assert_int_equal(out.n_reps, 1);
	assert_int_equal(reps[0].flags, df);
	assert_int_equal(reps[0].drop_reason, 26);
	assert_int_equal(out.n_recs, 2);
	check_s1_hop(&recs[0], 2);
	const struct hw_record *r = &recs[1];
	assert_int_equal(r->hop_index, 1);
	assert_int_equal(r->node_id, 2);
	assert_int_equal(r->report_flags, df);
	/* the ports word 0x0001ffff is not all ones, so it is a value: ingress 1, and egress none */
	assert_int_equal(r->valid & HW_V_PORTS, HW_V_PORTS);
	assert_int_equal(r->ingress_port, 1);
	assert_int_equal(r->egress_port, HW_PORT_NONE);
	assert_int_equal(r->egress_port, 4294967295u);
	assert_int_equal(r->valid & (HW_V_INGRESS_TS | HW_V_DROP), HW_V_INGRESS_TS | HW_V_DROP);
	assert_int_equal(r->ingress_ts, 2000);
	assert_int_equal(r->drop_reason, 26);
	assert_int_equal(r->queue_id, 0);
	/* RepMdBits has neither latency, queue occupancy nor egress timestamp */
	assert_int_equal(r->valid & (HW_V_HOP_LATENCY | HW_V_QUEUE | HW_V_EGRESS_TS), 0);
	/* the record's JSON says 4294967295 (docs/records.md), never 65535 */
	char line[HW_RECORD_JSON_MAX];
	hw_record_json(r, line);
	assert_non_null(strstr(line, "\"ingress_port\":1,\"egress_port\":4294967295"));
	assert_null(strstr(line, "65535"));
	/* a drop's path stops at s2: the path so far */
	assert_int_equal(hw_path_report_use(df, 2, true, 3), HW_PATH_PREFIX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_transit_queue_report),
	    cmocka_unit_test(test_drop_report_no_egress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
