/* The compact record encoding (record_compact.c, record files of format version 2): hand-worked bytes of
 * two reports, round trips of edge values (widest values, steps back, reports of 1, 9 and 300 hops) and
 * malformed groups refused with a message; through the file reader, a torn last group. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hopwatch/record_file.h"
#include "record_compact.h"
#include "sink_util.h"

/* Encode recs[0 .. n) as a file body would hold them (groups one after another, from a zero record);
 * returns the bytes, each group within hw_rc_group_bound of its records. */
static size_t encode_all(const struct hw_record *recs, size_t n, uint8_t *out)
{
	struct hw_record prev;
	memset(&prev, 0, sizeof(prev));
	size_t len = 0;
	for (size_t i = 0; i < n;) {
		size_t taken = 0, k = hw_rc_encode_group(&prev, recs + i, n - i, out + len, &taken);
		assert_in_range(taken, 1, HW_RC_GROUP_MAX);
		assert_in_range(k, 1, hw_rc_group_bound(taken));
		len += k;
		i += taken;
	}
	return len;
}

/* Decode a whole body back; fails on an error or a torn group.  Returns the records decoded. */
static size_t decode_all(const uint8_t *in, size_t len, struct hw_record *out, size_t cap)
{
	struct hw_record prev;
	memset(&prev, 0, sizeof(prev));
	static struct hw_record grp[HW_RC_GROUP_MAX];
	char err[256];
	size_t pos = 0, n = 0;
	while (pos < len) {
		size_t k = 0;
		long used = hw_rc_decode_group(&prev, in + pos, len - pos, grp, &k, pos, err, sizeof(err));
		if (used <= 0)
			fail_msg("decode at byte %zu: %s", pos, used < 0 ? err : "torn group");
		assert_in_range(n + k, 1, cap);
		memcpy(out + n, grp, k * sizeof(*out));
		n += k;
		pos += (size_t)used;
	}
	return n;
}

/* Three records: a 2-hop report, then a 1-hop report whose time steps back.  Field bits (record_compact.c,
 * list order): shared time_ns 0, report_node 1, hw_id 2, report_seq 3, report_flags 4, format 5, path_len 6,
 * src_ip 7 ...; the hop's own int_version 0, valid 1, hop_index 2, node_id 3, ingress_port 4, egress_port 5,
 * ... queue_occupancy 10. */
static void hand_bytes(void **state)
{
	(void)state;
	struct hw_record r[3];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		r[i].time_ns = 1000;
		r[i].report_node = 7;
		r[i].report_seq = 300;
		r[i].format = HW_FORMAT_TR20;
		r[i].path_len = 2;
		r[i].valid = HW_V_PORTS | HW_V_QUEUE; /* 5 */
	}
	r[0].node_id = 7, r[0].ingress_port = 1, r[0].egress_port = 2, r[0].queue_occupancy = 200;
	r[1].int_version = HW_INT_V21, r[1].hop_index = 1, r[1].node_id = 9, r[1].ingress_port = 1;
	r[1].egress_port = 5, r[1].queue_occupancy = 100;
	r[2] = r[0];
	r[2].time_ns = 990, r[2].report_seq = 301, r[2].path_len = 1, r[2].queue_occupancy = 0;
	// clang-format off
	static const uint8_t want[] = {
	    /* group 1, against zeros */
	    0x02,             /* 2 records share the report */
	    0x6b,             /* shared mask: time 1 + node 2 + seq 8 + format 32 + path_len 64 = 107 */
	    0xd0, 0x0f,       /* time_ns: difference 1000, zigzag 2000 = 0x7d0: 0x50|0x80, 0x0f */
	    0x07,             /* report_node 7 */
	    0xac, 0x02,       /* report_seq 300 = 0x12c: 0x2c|0x80, 2 */
	    0x03,             /* format tr2.0 */
	    0x02,             /* path_len 2 */
	    0xba, 0x08,       /* hop 0 mask: valid 2 + node 8 + in 16 + out 32 + occupancy 1024 = 1082: 0x3a|0x80, 8 */
	    0x05, 0x07, 0x01, 0x02, /* valid 5, node_id 7, ingress_port 1, egress_port 2 */
	    0xc8, 0x01,       /* queue_occupancy 200 = 0x48|0x80, 1 */
	    0xad, 0x08,       /* hop 1 mask: int_version 1 + hop_index 4 + node 8 + out 32 + occupancy 1024 = 1069 */
	    0x03, 0x01, 0x09, 0x05, 0x64, /* int_version 2.1, hop_index 1, node 9, egress 5, occupancy 100 */
	    /* group 2, against record 1 */
	    0x01,             /* 1 record */
	    0x49,             /* shared mask: time 1 + seq 8 + path_len 64 = 73 */
	    0x13,             /* time_ns: difference -10, zigzag 19 */
	    0xad, 0x02,       /* report_seq 301 */
	    0x01,             /* path_len 1 */
	    0xad, 0x08,       /* mask 1069 again: int_version, hop_index, node, egress, occupancy back */
	    0x00, 0x00, 0x07, 0x02, 0x00,
	};
	// clang-format on
	uint8_t out[512];
	size_t len = encode_all(r, 3, out);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	struct hw_record back[3];
	assert_int_equal(decode_all(want, sizeof(want), back, 3), 3);
	for (int i = 0; i < 3; i++)
		rec_assert_equal(&back[i], &r[i]);
	/* every prefix of the body ends inside a group or after a whole one: never an error */
	struct hw_record prev, grp[HW_RC_GROUP_MAX];
	size_t k;
	char err[256];
	for (size_t cut = 1; cut < 24; cut++) { /* group 1 is 24 bytes */
		memset(&prev, 0, sizeof(prev));
		assert_int_equal(hw_rc_decode_group(&prev, want, cut, grp, &k, 0, err, sizeof(err)), 0);
	}
}

/* The widest value of every field, then all zeros (every u64 steps back by 2^64 - 1), then the widest
 * again, then records whose fields all differ: each comes back as it went in. */
static void edge_values(void **state)
{
	(void)state;
	struct hw_record r[8];
	memset(r, 0, sizeof(r));
	memset(&r[0], 0xff, sizeof(r[0]));
	memset(r[0].pad_, 0, sizeof(r[0].pad_)); /* padding reads back zero */
	r[2] = r[0];
	r[3] = r[0];
	r[3].time_ns = 0; /* a step of -(2^64 - 1) again, from the widest */
	for (int i = 4; i < 8; i++)
		rec_fill(&r[i], (uint32_t)(i * 1000));
	static uint8_t body[8 * 512];
	size_t len = encode_all(r, 8, body);
	struct hw_record back[8];
	assert_int_equal(decode_all(body, len, back, 8), 8);
	for (int i = 0; i < 8; i++)
		rec_assert_equal(&back[i], &r[i]);
}

/* A report of 1 hop, one of 9 and one of 300 (more than a group holds: 255 + 45): the groups' counts
 * are those numbers, the records come back in order. */
static void report_sizes(void **state)
{
	(void)state;
	enum { N = 1 + 9 + 300 };
	static struct hw_record r[N], back[N];
	memset(r, 0, sizeof(r));
	for (size_t i = 0; i < N; i++) {
		size_t rep = i < 1 ? 0 : i < 10 ? 1 : 2, first = rep == 0 ? 0 : rep == 1 ? 1 : 10;
		r[i].time_ns = 1700000000000000000ull + rep;
		r[i].report_seq = (uint32_t)rep;
		r[i].path_len = (uint8_t)(rep == 0 ? 1 : rep == 1 ? 9 : 255);
		r[i].hop_index = (uint8_t)(i - first);
		r[i].node_id = (uint32_t)(100 + i);
		r[i].hop_latency = (uint32_t)(i * 37);
	}
	static uint8_t body[N * 64];
	size_t len = encode_all(r, N, body);
	/* the counts: first byte 1; the second group starts after the first's bytes, and so on */
	struct hw_record prev, grp[HW_RC_GROUP_MAX];
	memset(&prev, 0, sizeof(prev));
	char err[256];
	size_t pos = 0, k = 0;
	const size_t counts[] = {1, 9, 255, 45};
	for (int g = 0; g < 4; g++) {
		assert_int_equal(body[pos], counts[g]);
		long used = hw_rc_decode_group(&prev, body + pos, len - pos, grp, &k, pos, err, sizeof(err));
		assert_in_range(used, 1, (long)(len - pos));
		assert_int_equal(k, counts[g]);
		pos += (size_t)used;
	}
	assert_int_equal(pos, len);
	assert_int_equal(decode_all(body, len, back, N), N);
	for (size_t i = 0; i < N; i++)
		rec_assert_equal(&back[i], &r[i]);
}

struct malformed {
	const char *what;
	uint8_t bytes[16];
	size_t len;
	const char *expect;
};

/* Groups no writer makes are refused naming the byte offset and the problem. */
static void malformed_groups(void **state)
{
	(void)state;
	// clang-format off
	const struct malformed bad[] = {
	    {"count 0", {0x00, 0x00, 0x00}, 3, "a count of 0 records"},
	    /* shared mask bit 17: there are 17 shared fields, bits 0-16 */
	    {"shared mask", {0x01, 0x80, 0x80, 0x08}, 4, "report field mask names no field"},
	    {"hop mask", {0x01, 0x00, 0x80, 0x80, 0x08}, 5, "hop field mask names no field"},
	    /* src_port (shared bit 9, mask 512 = 0x80 0x04) of 65536 = 0x80 0x80 0x04 */
	    {"u16 too large", {0x01, 0x80, 0x04, 0x80, 0x80, 0x04}, 6, "field src_port: an integer too long or too large"},
	    /* node_id (hop bit 3) of 2^32 = 0x80 0x80 0x80 0x80 0x10 */
	    {"u32 too large", {0x01, 0x00, 0x08, 0x80, 0x80, 0x80, 0x80, 0x10}, 8, "field node_id: an integer too long"},
	    /* time_ns (shared bit 0) as an 11-byte varint */
	    {"varint too long", {0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 13,
	     "field time_ns: an integer too long"},
	};
	// clang-format on
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hw_record prev, grp[HW_RC_GROUP_MAX];
		memset(&prev, 0, sizeof(prev));
		char err[256] = "";
		size_t k = 0;
		long rc = hw_rc_decode_group(&prev, bad[i].bytes, bad[i].len, grp, &k, 4242, err, sizeof(err));
		if (rc != -1 || !strstr(err, "group at byte 4242") || !strstr(err, bad[i].expect))
			fail_msg("%s: returned %ld, message \"%s\", expected \"%s\"", bad[i].what, rc, err,
			         bad[i].expect);
	}
}

/* A compact file from the writer: version 2 in its header; cut inside its last group, the reader hands out
 * the whole groups before the cut and then says the last group is torn, naming the file. */
static void file_torn_group(void **state)
{
	struct sink_fx *f = *state;
	struct hw_record_writer_opts o = {.dir = f->dir, .prefix = "c"};
	struct hw_record_writer *w = hw_record_writer_open(&o, f->err, sizeof(f->err));
	assert_non_null(w);
	struct hw_record r[5];
	for (int i = 0; i < 5; i++)
		rec_fill(&r[i], (uint32_t)i); /* every field differs: five groups of one record */
	assert_int_equal(hw_record_writer_write(w, r, 5, 0, f->err, sizeof(f->err)), 0);
	assert_int_equal(hw_record_writer_close(w, f->err, sizeof(f->err)), 0);
	char *names[2], path[600];
	assert_int_equal(dir_names(f->dir, 0, names, 2), 1);
	snprintf(path, sizeof(path), "%s/%s", f->dir, names[0]);
	names_free(names, 1);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	static uint8_t file[4096];
	size_t size = fread(file, 1, sizeof(file), fp);
	fclose(fp);
	assert_int_equal(file[8] | file[9] << 8, 2); /* format version 2: compact */
	assert_int_equal(file[10] | file[11] << 8, HW_RECORD_SIZE);
	assert_in_range(size, HW_RECORD_FILE_HEADER + 5 * 20, HW_RECORD_FILE_HEADER + 5 * 200);

	assert_int_equal(truncate(path, (off_t)size - 1), 0);
	struct hw_record_reader *rd = hw_record_reader_open(path, f->err, sizeof(f->err));
	if (!rd)
		fail_msg("%s", f->err);
	struct hw_record got[8];
	long n, total = 0;
	while ((n = hw_record_reader_read(rd, got + total, 1, f->err, sizeof(f->err))) > 0)
		total += n;
	assert_int_equal(n, -1);
	assert_int_equal(total, 4);
	for (int i = 0; i < 4; i++)
		rec_assert_equal(&got[i], &r[i]);
	if (strncmp(f->err, path, strlen(path)) || !strstr(f->err, "torn last group") ||
	    !strstr(f->err, "after record 4"))
		fail_msg("message \"%s\"", f->err);
	hw_record_reader_close(rd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(hand_bytes),
	    cmocka_unit_test(edge_values),
	    cmocka_unit_test(report_sizes),
	    cmocka_unit_test(malformed_groups),
	    cmocka_unit_test_setup_teardown(file_torn_group, sink_fx_setup, sink_fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
