/* The parser on the hand-built frames of sample_frames.h: every record field checked against
 * the values written into the bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/wire.h"
#include "sample_frames.h"

static struct hw_record recs[64];
static struct hw_report reps[8];

static enum hw_result parse(const struct hw_parser_config *cfg, const uint8_t *f, size_t n, struct hw_parse_out *o)
{
	memset(recs, 0xaa, sizeof(recs));
	*o = (struct hw_parse_out){.recs = recs, .rec_cap = 64, .reps = reps, .rep_cap = 8};
	return hw_parse_frame(cfg, f, n, 42, o);
}

static void v4(uint8_t out[16], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(out, 0, 16);
	out[10] = out[11] = 0xff;
	out[12] = a;
	out[13] = b;
	out[14] = c;
	out[15] = d;
}

static void tr2_sink_report(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	struct hw_parse_out o;
	assert_int_equal(parse(&cfg, tr2_sink_frame, sizeof(tr2_sink_frame), &o), HW_OK);
	assert_int_equal(o.n_reps, 1);
	assert_int_equal(o.n_recs, 3);
	assert_int_equal(reps[0].node, 0x0a000003);
	assert_int_equal(reps[0].seq, 5);
	assert_int_equal(reps[0].hw_id, 1);
	assert_int_equal(reps[0].seq_bits, 22);

	uint8_t src[16], dst[16];
	v4(src, 10, 0, 1, 1);
	v4(dst, 10, 0, 2, 2);
	const uint32_t nodes[3] = {0x0a000001, 0x0a000002, 0x0a000003};
	const uint32_t occ[3] = {0x10, 0x50, 0x100};
	const uint8_t qid[3] = {1, 1, 2};
	for (int i = 0; i < 3; i++) {
		const struct hw_record *r = &recs[i];
		assert_int_equal(r->time_ns, 42);
		assert_int_equal(r->report_node, 0x0a000003);
		assert_int_equal(r->report_seq, 5);
		assert_int_equal(r->hw_id, 1);
		assert_int_equal(r->format, HW_FORMAT_TR20);
		assert_int_equal(r->report_flags, HW_RF_TRACKED_FLOW);
		assert_int_equal(r->hop_index, i);
		assert_int_equal(r->path_len, 3);
		assert_int_equal(r->node_id, nodes[i]);
		assert_int_equal(r->queue_id, qid[i]);
		assert_int_equal(r->queue_occupancy, occ[i]);
		assert_memory_equal(r->src_ip, src, 16);
		assert_memory_equal(r->dst_ip, dst, 16);
		assert_int_equal(r->ip_proto, 17);
		assert_int_equal(r->src_port, 4096);
		assert_int_equal(r->dst_port, 4791);
		assert_int_equal(r->dscp, 26); /* restored from the shim, not the INT mark 0x17 */
		assert_int_equal(r->ecn, 0);
		assert_int_equal(r->roce_opcode, 0x04);
		assert_int_equal(r->roce_dest_qp, 0x123);
		assert_int_equal(r->flow_hash, hw_flow_hash(src, dst, 17, 4096, 4791));
		assert_true(r->valid & HW_V_QUEUE);
		assert_true(r->valid & HW_V_FLOW);
		assert_true(r->valid & HW_V_ROCE);
		assert_false(r->valid & HW_V_HOP_LATENCY);
	}
	assert_int_equal(recs[0].int_version, HW_INT_V21);
	assert_int_equal(recs[1].int_version, HW_INT_V21);
	assert_int_equal(recs[2].int_version, HW_INT_NONE);
	assert_false(recs[1].valid & HW_V_PORTS);
	assert_true(recs[2].valid & HW_V_PORTS);
	assert_int_equal(recs[2].ingress_port, 3);
	assert_int_equal(recs[2].egress_port, 4);
}

static void tr05_local_report(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	struct hw_parse_out o;
	assert_int_equal(parse(&cfg, tr05_local_frame, sizeof(tr05_local_frame), &o), HW_OK);
	assert_int_equal(o.n_recs, 1);
	const struct hw_record *r = &recs[0];
	assert_int_equal(r->format, HW_FORMAT_TR05);
	assert_int_equal(r->report_node, 7);
	assert_int_equal(r->node_id, 7);
	assert_int_equal(r->report_seq, 0xfffffffe);
	assert_int_equal(r->report_flags, HW_RF_TRACKED_FLOW | HW_RF_POSTCARD);
	assert_int_equal(r->ingress_port, 1);
	assert_int_equal(r->egress_port, 2);
	assert_int_equal(r->queue_occupancy, 0x20);
	assert_int_equal(r->ingress_ts, 0xfffffff0u);
	assert_int_equal(r->egress_ts, 0x10);
	assert_true(r->valid & HW_V_HOP_LATENCY);
	assert_int_equal(r->hop_latency, 0x20); /* wrapped 32-bit timestamps */
	assert_int_equal(r->ip_proto, 6);
	assert_int_equal(r->src_port, 80);
	assert_int_equal(r->dst_port, 81);
	assert_int_equal(r->dscp, 26);
	assert_false(r->valid & HW_V_ROCE);
}

static void wrong_port_is_not_a_report(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	cfg.report_ports[0] = 9999;
	struct hw_parse_out o;
	assert_int_equal(parse(&cfg, tr2_sink_frame, sizeof(tr2_sink_frame), &o), HW_NOT_REPORT);
	assert_int_equal(o.n_recs, 0);
}

static void output_too_small(void **state)
{
	(void)state;
	struct hw_parser_config cfg;
	hw_parser_config_default(&cfg);
	struct hw_parse_out o = {.recs = recs, .rec_cap = 2, .reps = reps, .rep_cap = 8};
	assert_int_equal(hw_parse_frame(&cfg, tr2_sink_frame, sizeof(tr2_sink_frame), 0, &o), HW_E_TOO_MANY);
	assert_int_equal(o.n_recs, 0);
	assert_int_equal(o.n_reps, 0);
}

static void result_names_are_unique(void **state)
{
	(void)state;
	for (int i = 0; i < HW_RESULT_COUNT; i++) {
		assert_non_null(hw_result_name((enum hw_result)i));
		assert_in_range(strlen(hw_result_message((enum hw_result)i)), 6, SIZE_MAX);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(hw_result_name((enum hw_result)i), hw_result_name((enum hw_result)j));
	}
	assert_string_equal(hw_result_name(HW_E_INT_BITMAP), "int_bitmap");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tr2_sink_report),
	    cmocka_unit_test(tr05_local_report),
	    cmocka_unit_test(wrong_port_is_not_a_report),
	    cmocka_unit_test(output_too_small),
	    cmocka_unit_test(result_names_are_unique),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
