/* hopwatch-gen truth records: which records a packet yields and the conventions the docs leave
 * open (bare INT report node, postcard flag, derived latency across the 32-bit wrap, unavailable). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gen.h"
#include "hopwatch/record_json.h"
#include "hopwatch/wire.h"

static struct gen_pkt k;
static struct hw_record recs[64];

static void flow_v4_udp(const struct gen_cfg *cfg, struct gen_flow *f)
{
	memset(f, 0, sizeof(*f));
	f->src_ip[10] = f->src_ip[11] = 0xff;
	f->dst_ip[10] = f->dst_ip[11] = 0xff;
	f->src_ip[12] = 10, f->src_ip[13] = 10, f->src_ip[15] = 1;
	f->dst_ip[12] = 10, f->dst_ip[13] = 20, f->dst_ip[15] = 2;
	f->proto = 17;
	f->sport = 1234;
	f->dport = 5678;
	f->dscp = 10;
	f->ecn = 1;
	gen_flow_finish(cfg, f);
}

static void one_report(struct gen_flow *f, unsigned n_stack, uint8_t flags)
{
	memset(&k, 0, sizeof(k));
	k.node_idx = 4;
	k.hw_id = 3;
	k.seq = 77;
	k.n_reps = 1;
	k.reps[0].flow = f;
	k.reps[0].n_stack = (uint8_t)n_stack;
	k.reps[0].flags = flags;
	for (unsigned i = 0; i <= n_stack; i++) {
		struct gen_hop *h = &k.reps[0].hops[i];
		h->node_id = 10 + i;
		h->in_port = (uint16_t)(1 + i);
		h->out_port = (uint16_t)(2 + i);
		h->latency = 100 + i;
		h->qid = 1;
		h->qocc = 500;
		h->ig_ts = 0xfffffff0ull + i;
		h->eg_ts = h->ig_ts + 100 + i;
	}
}

static const char *json(unsigned i)
{
	static char line[HW_RECORD_JSON_MAX];
	hw_record_json(&recs[i], line);
	return line;
}

#define HAS(line, frag) assert_non_null(strstr((line), (frag)))
#define HASNT(line, frag) assert_null(strstr((line), (frag)))

/* TR v2.0 + v2.1 stack: stack hops oldest first, then the reporting node's own hop. */
static void test_tr20(void **state)
{
	(void)state;
	struct gen_cfg c;
	struct gen_flow f;
	gen_cfg_default(&c);
	c.hops = 2;
	c.instructions = GEN_I_NODE | GEN_I_QUEUE;
	c.rep_md = GEN_R_PORTS | GEN_R_LATENCY;
	flow_v4_udp(&c, &f);
	one_report(&f, 2, HW_RF_TRACKED_FLOW);
	unsigned n = gen_truth_records(&c, &k, 42, recs, 64);
	assert_int_equal(n, 3);
	const char *l = json(0);
	static const char head[] = /* every field up to the flow hash, in the writer's order */
	    "{\"time_ns\":42,\"report_node\":5,\"hw_id\":3,\"report_seq\":77,\"report_flags\":"
	    "[\"tracked_flow\"],\"format\":\"tr2.0\",\"int_version\":\"2.1\",\"hop_index\":0,"
	    "\"path_len\":3,\"node_id\":10,\"queue_id\":1,\"queue_occupancy\":500,\"src_ip\":"
	    "\"10.10.0.1\",\"dst_ip\":\"10.20.0.2\",\"ip_proto\":17,\"src_port\":1234,\"dst_port\":"
	    "5678,\"flow_hash\":\"";
	assert_memory_equal(l, head, sizeof(head) - 1); /* l is a NUL-ended line: a shorter one differs */
	HAS(l, "\"dscp\":10,\"ecn\":1}"); /* the original DSCP (10) saved in the shim, not the 0x17 INT mark */
	assert_int_equal(recs[0].flow_hash, hw_flow_hash(f.src_ip, f.dst_ip, 17, 1234, 5678));
	l = json(1);
	HAS(l, "\"hop_index\":1,\"path_len\":3,\"node_id\":11,");
	l = json(2);
	HASNT(l, "int_version"); /* the report's own metadata */
	HAS(l, "\"hop_index\":2,\"path_len\":3,\"node_id\":5,\"ingress_port\":3,\"egress_port\":4,"
	       "\"hop_latency\":102,\"src_ip\"");
}

/* No stack: one record, flagged postcard; TR v0.5 latency = egress - ingress mod 2^32. */
static void test_tr05_postcard_wrap(void **state)
{
	(void)state;
	struct gen_cfg c;
	struct gen_flow f;
	gen_cfg_default(&c);
	c.format = GEN_FMT_TR05;
	c.int_ver = GEN_INT_NONE;
	c.hops = 0;
	flow_v4_udp(&c, &f);
	one_report(&f, 0, HW_RF_TRACKED_FLOW);
	k.reps[0].hops[0].ig_ts = 0x1fffffff0ull; /* 32-bit wire value 0xfffffff0 */
	k.reps[0].hops[0].eg_ts = 0x200000010ull; /* 32-bit wire value 0x00000010 */
	assert_int_equal(gen_truth_records(&c, &k, 1, recs, 64), 1);
	const char *l = json(0);
	HAS(l, "\"report_flags\":[\"tracked_flow\",\"postcard\"],\"format\":\"tr0.5\",\"hop_index\":0,\"path_len\":1,"
	       "\"node_id\":5,\"ingress_port\":1,\"egress_port\":2,\"hop_latency\":32,\"queue_id\":1,"
	       "\"queue_occupancy\":500,\"ingress_ts\":4294967280,\"egress_ts\":16,");
	HAS(l, "\"dscp\":10,\"ecn\":1}"); /* no INT: the flow's own DSCP */

	/* drop report: drop header has queue id and reason, no occupancy or egress timestamp */
	one_report(&f, 0, HW_RF_DROPPED | HW_RF_TRACKED_FLOW);
	k.reps[0].drop_reason = 71;
	assert_int_equal(gen_truth_records(&c, &k, 1, recs, 64), 1);
	l = json(0);
	HAS(l, "\"report_flags\":[\"dropped\",\"tracked_flow\",\"postcard\"]");
	HAS(l, "\"egress_port\":2,\"queue_id\":1,\"ingress_ts\":4294967280,\"drop_reason\":71,");
	HASNT(l, "egress_ts");
	HASNT(l, "hop_latency");
}

/* Bare INT: report_node = node id of the newest hop, seq 0, no flags; v1.0 latency derived from
 * 32-bit timestamps; all-ones values are left out. */
static void test_bare_int(void **state)
{
	(void)state;
	struct gen_cfg c;
	struct gen_flow f;
	gen_cfg_default(&c);
	c.format = GEN_FMT_INT;
	c.int_ver = GEN_INT_V10;
	c.hops = 3;
	c.instructions = GEN_I_NODE | GEN_I_PORTS | GEN_I_IG_TS | GEN_I_EG_TS;
	flow_v4_udp(&c, &f);
	one_report(&f, 3, 0);
	k.reps[0].hops[1].unavail = GEN_I_PORTS | GEN_I_EG_TS;
	assert_int_equal(gen_truth_records(&c, &k, 9, recs, 64), 3);
	const char *l = json(0);
	HAS(l, "{\"time_ns\":9,\"report_node\":12,\"hw_id\":0,\"report_seq\":0,\"report_flags\":[],\"format\":\"int\","
	       "\"int_version\":\"1.0\",\"hop_index\":0,\"path_len\":3,\"node_id\":10,\"ingress_port\":1,"
	       "\"egress_port\":2,\"hop_latency\":100,\"ingress_ts\":4294967280,\"egress_ts\":84,");
	l = json(1);
	HAS(l, "\"node_id\":11,\"ingress_ts\":4294967281,\"src_ip\""); /* ports, egress ts, latency left out */
	l = json(2);
	HAS(l, "\"report_node\":12,");

	/* the same stack as v2.1: 8-byte timestamps, no derived latency */
	c.int_ver = GEN_INT_V21;
	assert_int_equal(gen_truth_records(&c, &k, 9, recs, 64), 3);
	l = json(0);
	HAS(l, "\"egress_port\":2,\"ingress_ts\":4294967280,\"egress_ts\":4294967380,");
}

/* RoCEv2 flows carry opcode and destination QP; the flow hash is over the original port. */
static void test_roce_port(void **state)
{
	(void)state;
	struct gen_cfg c;
	struct gen_flow f;
	gen_cfg_default(&c);
	c.detect = GEN_DETECT_PORT;
	c.roce = 1;
	c.hops = 1;
	flow_v4_udp(&c, &f);
	f.dport = f.vis_dport = 4791;
	f.roce = 1;
	f.qp = 0xabcdef;
	f.hash = hw_flow_hash(f.src_ip, f.dst_ip, 17, 1234, 4791);
	one_report(&f, 1, HW_RF_TRACKED_FLOW);
	k.reps[0].roce_opcode = 0x81;
	assert_int_equal(gen_truth_records(&c, &k, 9, recs, 64), 2);
	const char *l = json(1);
	HAS(l, "\"dst_port\":4791,");
	HAS(l, "\"dscp\":10,\"ecn\":1,\"roce_opcode\":129,\"roce_dest_qp\":11259375}");
}

/* --sink-md stack: the sink's stack entry is the last record, the drop fields are merged into it. */
static void test_sink_md_stack(void **state)
{
	(void)state;
	struct gen_cfg c;
	struct gen_flow f;
	gen_cfg_default(&c);
	c.hops = 1;
	c.sink_md_stack = 1;
	c.instructions = GEN_I_NODE | GEN_I_QUEUE;
	flow_v4_udp(&c, &f);
	one_report(&f, 2, HW_RF_TRACKED_FLOW | HW_RF_DROPPED);
	k.reps[0].hops[1].node_id = 5; /* the sender */
	k.reps[0].hops[2] = k.reps[0].hops[1];
	k.reps[0].drop_reason = 6;
	assert_int_equal(gen_truth_records(&c, &k, 9, recs, 64), 2);
	const char *l = json(1);
	HAS(l, "\"int_version\":\"2.1\",\"hop_index\":1,\"path_len\":2,\"node_id\":5,\"queue_id\":1,"
	       "\"queue_occupancy\":500,\"drop_reason\":6,");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tr20),          cmocka_unit_test(test_tr05_postcard_wrap),
	    cmocka_unit_test(test_bare_int),      cmocka_unit_test(test_roce_port),
	    cmocka_unit_test(test_sink_md_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
