/* The little-endian record image: hw_record_to_le against bytes written out by hand from the field
 * order and offsets of record.h (the le column of HW_RECORD_FIELDS), and to_le/from_le as exact inverses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hopwatch/record_file.h"
#include "sink_util.h"

static const uint8_t expected[HW_RECORD_SIZE] = {
    /*   0 time_ns 0x0102030405060708 */ 0x08,
    0x07,
    0x06,
    0x05,
    0x04,
    0x03,
    0x02,
    0x01,
    /*   8 ingress_ts 0x1112131415161718 */ 0x18,
    0x17,
    0x16,
    0x15,
    0x14,
    0x13,
    0x12,
    0x11,
    /*  16 egress_ts 0x2122232425262728 */ 0x28,
    0x27,
    0x26,
    0x25,
    0x24,
    0x23,
    0x22,
    0x21,
    /*  24 flow_hash 0xf1f2f3f4f5f6f7f8 */ 0xf8,
    0xf7,
    0xf6,
    0xf5,
    0xf4,
    0xf3,
    0xf2,
    0xf1,
    /*  32 valid 0x00000fff */ 0xff,
    0x0f,
    0x00,
    0x00,
    /*  36 report_node 0x31323334 */ 0x34,
    0x33,
    0x32,
    0x31,
    /*  40 report_seq 0x003fffff */ 0xff,
    0xff,
    0x3f,
    0x00,
    /*  44 node_id 0x41424344 */ 0x44,
    0x43,
    0x42,
    0x41,
    /*  48 ingress_port 0x51525354 */ 0x54,
    0x53,
    0x52,
    0x51,
    /*  52 egress_port 0x61626364 */ 0x64,
    0x63,
    0x62,
    0x61,
    /*  56 l2_ingress_port 0x71727374 */ 0x74,
    0x73,
    0x72,
    0x71,
    /*  60 l2_egress_port 0x81828384 */ 0x84,
    0x83,
    0x82,
    0x81,
    /*  64 hop_latency 0x91929394 */ 0x94,
    0x93,
    0x92,
    0x91,
    /*  68 queue_occupancy 0x00a1a2a3 */ 0xa3,
    0xa2,
    0xa1,
    0x00,
    /*  72 egress_tx_util 0xb1b2b3b4 */ 0xb4,
    0xb3,
    0xb2,
    0xb1,
    /*  76 buffer_occupancy 0xc1c2c3c4 */ 0xc4,
    0xc3,
    0xc2,
    0xc1,
    /*  80 roce_dest_qp 0x00d1d2d3 */ 0xd3,
    0xd2,
    0xd1,
    0x00,
    /*  84 src_port 0xe1e2 */ 0xe2,
    0xe1,
    /*  86 dst_port 4433 = 0x1151 */ 0x51,
    0x11,
    /*  88 src_ip ::ffff:10.0.0.1 */ 0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0xff,
    0xff,
    10,
    0,
    0,
    1,
    /* 104 dst_ip 2001:db8::1 */ 0x20,
    0x01,
    0x0d,
    0xb8,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    1,
    /* 120 hw_id */ 0x3f,
    /* 121 report_flags */ 0x1f,
    /* 122 format tr2.0 */ 3,
    /* 123 int_version 2.1 */ 3,
    /* 124 hop_index */ 2,
    /* 125 path_len */ 5,
    /* 126 queue_id */ 7,
    /* 127 buffer_id */ 9,
    /* 128 drop_reason */ 0x2a,
    /* 129 ip_proto UDP */ 17,
    /* 130 dscp EF */ 46,
    /* 131 ecn CE */ 3,
    /* 132 roce_opcode CNP */ 0x81,
    /* 133 pad, written as zero */ 0,
    0,
    0,
};

static struct hw_record hand_record(void)
{
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.time_ns = 0x0102030405060708u;
	r.ingress_ts = 0x1112131415161718u;
	r.egress_ts = 0x2122232425262728u;
	r.flow_hash = 0xf1f2f3f4f5f6f7f8u;
	r.valid = 0x00000fff;
	r.report_node = 0x31323334;
	r.report_seq = 0x003fffff;
	r.node_id = 0x41424344;
	r.ingress_port = 0x51525354;
	r.egress_port = 0x61626364;
	r.l2_ingress_port = 0x71727374;
	r.l2_egress_port = 0x81828384;
	r.hop_latency = 0x91929394;
	r.queue_occupancy = 0x00a1a2a3;
	r.egress_tx_util = 0xb1b2b3b4;
	r.buffer_occupancy = 0xc1c2c3c4;
	r.roce_dest_qp = 0x00d1d2d3;
	r.src_port = 0xe1e2;
	r.dst_port = 4433;
	static const uint8_t src[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
	static const uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
	memcpy(r.src_ip, src, 16);
	memcpy(r.dst_ip, dst, 16);
	r.hw_id = 0x3f;
	r.report_flags = 0x1f;
	r.format = 3;
	r.int_version = 3;
	r.hop_index = 2;
	r.path_len = 5;
	r.queue_id = 7;
	r.buffer_id = 9;
	r.drop_reason = 0x2a;
	r.ip_proto = 17;
	r.dscp = 46;
	r.ecn = 3;
	r.roce_opcode = 0x81;
	return r;
}

static void to_le_matches_hand_bytes(void **state)
{
	(void)state;
	struct hw_record r = hand_record();
	r.pad_[0] = r.pad_[1] = r.pad_[2] = 0xee; /* must not leak into the image */
	uint8_t img[HW_RECORD_SIZE];
	memset(img, 0x55, sizeof(img));
	hw_record_to_le(&r, img);
	for (size_t i = 0; i < HW_RECORD_SIZE; i++)
		if (img[i] != expected[i])
			fail_msg("byte %zu: 0x%02x, expected 0x%02x", i, img[i], expected[i]);
}

static void from_le_of_hand_bytes(void **state)
{
	(void)state;
	struct hw_record want = hand_record(), got;
	memset(&got, 0x55, sizeof(got));
	hw_record_from_le(expected, &got);
	rec_assert_equal(&got, &want);
}

static void round_trip_distinct_fields(void **state)
{
	(void)state;
	for (uint32_t seed = 0; seed < 300; seed++) {
		struct hw_record r, back;
		uint8_t img[HW_RECORD_SIZE];
		rec_fill(&r, seed);
		hw_record_to_le(&r, img);
		hw_record_from_le(img, &back);
		rec_assert_equal(&back, &r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(to_le_matches_hand_bytes),
	    cmocka_unit_test(from_le_of_hand_bytes),
	    cmocka_unit_test(round_trip_distinct_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
