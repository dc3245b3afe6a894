/* GEANT interop captures (tests/wire/data/interop/, provenance and licence in its README.md) read with libpcap and
 * parsed with the geant profile (hw_parser_config_profile(&cfg, HW_PROFILE_GEANT): DSCP 0x20/0x20).
 * Usage: test_wire_geant <2601_double_header.pcap> <my.pcap>   (meson passes both paths)
 *
 *   geant_double_header   2601_double_header.pcap, 1 frame of 112 B from int-platform-dpdk:
 *                         IPv4 TOS 0x80, UDP 4607 -> 17000, v1.0-style shim of 16 words (shim + MD
 *                         + stack + 4 B tail), MD version 4, bitmap stored little-endian (00 cc =
 *                         node id, L1 ports, ingress ts, egress ts), hop_ml 4 although a hop is 6
 *                         words, 64-bit timestamps; stack newest first node 2 (ports 2->0), node 1
 *                         (1->0).  Expected: 2 records, hop 0 = node 1, hop 1 = node 2.
 *   geant_my              my.pcap, 1 frame of 78 B from In_band_telemetry_sink_fpga: TOS 0x80,
 *                         UDP 0 -> 0, shim length 9 words (no tail), MD version 1, hop_ml 6, rhc
 *                         0xfe, 1 hop; the README says node 1, ports 0/0, but the bytes hold node 0,
 *                         ports 1 -> 0 (see geant_my), timestamps 0.
 *   geant_bitmap_order    the bitmap's two bytes swapped (GEANT's P4 order): taken when only that
 *                         reading describes the stack (my.pcap), not when both do (2601).
 *   geant_needs_profile   the standard configuration does not see INT in them (DSCP 0x20 is not
 *                         0x17/0x3f); the standard v1.0 reading with the GEANT DSCP rejects the
 *                         MD version 4 of 2601_double_header.
 * Capture times are read with nanosecond precision and passed as time_ns.
 *
 * Readings encoded: hops of the geant profile carry int_version HW_INT_V10 (the README calls it a
 * v1.0-style shim, MD version 1 or 4); MD version 4 without the profile is HW_E_INT_VERSION.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "hopwatch/record.h"
#include "hopwatch/wire.h"
#include "vec_util.h"

static const char *path_double_header;
static const char *path_my;

struct capture {
	uint8_t data[2048];
	size_t len;
	uint64_t time_ns;
};

/* Read the one frame of a capture (tests/wire/data/interop: a missing file fails the test). */
static void read_one(const char *path, struct capture *c)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	if (!path)
		fail_msg("no interop capture given on the command line");
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (!p)
		fail_msg("%s: %s", path, errbuf);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *bytes;
	assert_int_equal(pcap_next_ex(p, &h, &bytes), 1);
	assert_int_equal(h->caplen, h->len);
	assert_in_range(h->caplen, 0, sizeof(c->data));
	memcpy(c->data, bytes, h->caplen);
	c->len = h->caplen;
	c->time_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* ns precision */
	assert_int_equal(pcap_next_ex(p, &h, &bytes), PCAP_ERROR_BREAK);               /* exactly one frame */
	pcap_close(p);
}

static void geant_double_header(void **state)
{
	(void)state;
	struct capture c;
	struct hw_parser_config cfg;
	struct vec_out v;
	read_one(path_double_header, &c);
	assert_int_equal(c.len, 112);
	assert_int_equal(c.time_ns, 1611664130912684000ull); /* 0x60100b02 s + 912684 us */
	/* the bytes the README describes, at their offsets: TOS, shim, MD word 0, bitmap */
	assert_int_equal(c.data[15], 0x80);                      /* TOS 0x80 = DSCP 0x20 */
	assert_memory_equal(c.data + 42, "\x01\x00\x10\x00", 4); /* shim type 1, length 16 */
	assert_memory_equal(c.data + 46, "\x40\x04\x04\x02", 4); /* MD ver 4, hop_ml 4, rhc 2 */
	assert_memory_equal(c.data + 50, "\x00\xcc", 2);         /* bitmap, little-endian */

	hw_parser_config_default(&cfg);
	hw_parser_config_profile(&cfg, HW_PROFILE_GEANT);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, c.data, c.len, c.time_ns, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 2);
	assert_int_equal(v.reps[0].node, 2); /* bare INT: the newest hop's node */
	assert_int_equal(v.reps[0].format, HW_FORMAT_INT);
	assert_int_equal(v.reps[0].n_hops, 2);

	static const uint8_t src[4] = {150, 254, 169, 196}, dst[4] = {195, 113, 172, 46};
	const uint32_t need = HW_V_PORTS | HW_V_INGRESS_TS | HW_V_EGRESS_TS;
	for (unsigned i = 0; i < 2; i++) {
		const struct hw_record *r = &v.recs[i];
		assert_int_equal(r->time_ns, c.time_ns);
		assert_int_equal(r->report_node, 2);
		assert_int_equal(r->report_seq, 0);
		assert_int_equal(r->format, HW_FORMAT_INT);
		assert_int_equal(r->int_version, HW_INT_V10); /* v1.0-style stack */
		assert_int_equal(r->hop_index, i);
		assert_int_equal(r->path_len, 2);
		assert_int_equal(r->valid & need, need);
		vec_assert_flow4(r, src, dst, 17, 4607, 17000);
		vec_assert_tclass(r, 0, 0); /* shim byte 3 (original DSCP) is 0; the wire TOS 0x80 is the INT mark */
	}
	/* hop 0: the oldest stack entry, node 1 */
	assert_int_equal(v.recs[0].node_id, 1);
	assert_int_equal(v.recs[0].ingress_port, 1);
	assert_int_equal(v.recs[0].egress_port, 0);
	assert_int_equal(v.recs[0].ingress_ts, 0x165dc7fcbc2f5f68ull);
	assert_int_equal(v.recs[0].egress_ts, 0x165dc7fcbc2f5f69ull);
	/* hop 1: the newest, node 2 */
	assert_int_equal(v.recs[1].node_id, 2);
	assert_int_equal(v.recs[1].ingress_port, 2);
	assert_int_equal(v.recs[1].egress_port, 0);
	assert_int_equal(v.recs[1].ingress_ts, 0x165dc7fcd299f970ull);
	assert_int_equal(v.recs[1].egress_ts, 0x165dc7fcd299f971ull);
}

static void geant_my(void **state)
{
	(void)state;
	struct capture c;
	struct hw_parser_config cfg;
	struct vec_out v;
	read_one(path_my, &c);
	assert_int_equal(c.len, 78);
	assert_int_equal(c.time_ns, 1626276815067701000ull);     /* 0x60ef03cf s + 67701 us */
	assert_memory_equal(c.data + 42, "\x01\x00\x09\x00", 4); /* shim type 1, length 9 */
	assert_memory_equal(c.data + 46, "\x10\x00\x06\xfe", 4); /* MD ver 1, hop_ml 6, rhc 0xfe */
	/* The one hop starts at 54, after shim (42-45) and MD header (46-53), exactly as in
	 * 2601_double_header.pcap: node id 00 00 00 00, then L1 ports 00 01 | 00 00.  The interop
	 * README reads this hop as "node 1, ports 0/0"; the bytes say node 0, ingress 1, egress 0,
	 * and the test follows the bytes. */
	assert_memory_equal(c.data + 54, "\x00\x00\x00\x00\x00\x01\x00\x00", 8);

	hw_parser_config_default(&cfg);
	hw_parser_config_profile(&cfg, HW_PROFILE_GEANT);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, c.data, c.len, c.time_ns, &v.out), HW_OK);
	assert_int_equal(v.out.n_reps, 1);
	assert_int_equal(v.out.n_recs, 1);
	const struct hw_record *r = &v.recs[0];
	static const uint8_t zero[4] = {0, 0, 0, 0};
	const uint32_t need = HW_V_PORTS | HW_V_INGRESS_TS | HW_V_EGRESS_TS;
	assert_int_equal(r->time_ns, c.time_ns);
	assert_int_equal(r->report_node, 0);
	assert_int_equal(r->format, HW_FORMAT_INT);
	assert_int_equal(r->int_version, HW_INT_V10);
	assert_int_equal(r->hop_index, 0);
	assert_int_equal(r->path_len, 1);
	assert_int_equal(r->node_id, 0);
	assert_int_equal(r->valid & need, need);
	assert_int_equal(r->ingress_port, 1);
	assert_int_equal(r->egress_port, 0);
	assert_int_equal(r->ingress_ts, 0);
	assert_int_equal(r->egress_ts, 0);
	vec_assert_flow4(r, zero, zero, 17, 0, 0);
	vec_assert_tclass(r, 0, 0); /* shim byte 3 (original DSCP) is 0; the wire TOS 0x80 is the INT mark */
}

/* GEANT's bitmap byte order (docs/records.md): little-endian first, most significant byte first only
 * when the little-endian reading cannot describe the stack.
 * my.pcap with its bitmap bytes swapped (cc 00, as GEANT's P4 reads it): little-endian that is 0x00cc,
 * four reserved bits (8, 9, 12, 13 in MSB-first numbering) of 4 bytes each, a 16-byte hop; the region
 * after the MD header is one 24-byte hop (node 4 + ports 4 + two 8-byte timestamps), and 24 = 16 + 8
 * leaves 8, neither nothing nor a 4-byte tail: it cannot be.  Read most significant byte first it is
 * 0xcc00, the 24-byte hop: the same record as geant_my (node 0, ports 1 -> 0).
 * 2601_double_header.pcap swapped is ambiguous: 0x00cc's 16-byte hops over its 52-byte region (2 x 24
 * + a 4-byte tail) give 3 hops and a 4-byte tail, which fits, so the documented little-endian reading
 * stays: 3 records. */
static void geant_bitmap_order(void **state)
{
	(void)state;
	struct capture c;
	struct hw_parser_config cfg;
	struct vec_out v;
	hw_parser_config_default(&cfg);
	hw_parser_config_profile(&cfg, HW_PROFILE_GEANT);

	read_one(path_my, &c);
	assert_memory_equal(c.data + 50, "\x00\xcc", 2);
	c.data[50] = 0xcc;
	c.data[51] = 0x00;
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, c.data, c.len, c.time_ns, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 1);
	assert_int_equal(v.recs[0].node_id, 0);
	assert_int_equal(v.recs[0].ingress_port, 1);
	assert_int_equal(v.recs[0].egress_port, 0);

	read_one(path_double_header, &c);
	c.data[50] = 0xcc;
	c.data[51] = 0x00;
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, c.data, c.len, c.time_ns, &v.out), HW_OK);
	assert_int_equal(v.out.n_recs, 3);
}

static void geant_needs_profile(void **state)
{
	(void)state;
	struct capture c;
	struct hw_parser_config cfg;
	struct vec_out v;
	read_one(path_double_header, &c);

	/* standard defaults: DSCP 0x20 & 0x3f != 0x17, UDP 17000 is no report port -> not INT */
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, c.data, c.len, c.time_ns, &v.out), HW_NOT_REPORT);
	assert_int_equal(v.out.n_recs, 0);

	/* standard profile told about the GEANT DSCP: a v1.0 shim with MD version 4 is unknown */
	cfg.int_dscp = 0x20;
	cfg.int_dscp_mask = 0x20;
	vec_out_init(&v);
	vec_assert_rejected(hw_parse_frame(&cfg, c.data, c.len, c.time_ns, &v.out), HW_E_INT_VERSION, &v, c.len);

	read_one(path_my, &c);
	hw_parser_config_default(&cfg);
	vec_out_init(&v);
	assert_int_equal(hw_parse_frame(&cfg, c.data, c.len, c.time_ns, &v.out), HW_NOT_REPORT);
}

int main(int argc, char **argv)
{
	path_double_header = argc > 1 ? argv[1] : NULL;
	path_my = argc > 2 ? argv[2] : NULL;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(geant_double_header),
	    cmocka_unit_test(geant_my),
	    cmocka_unit_test(geant_bitmap_order),
	    cmocka_unit_test(geant_needs_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
