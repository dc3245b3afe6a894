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

/* Decode a whole body back; fails on an error or a torn group.  Returns the records decoded.  Each group is
 * decoded twice, by hw_rc_decode_group (its unchecked fast path while a group's worst case is left, its
 * checked path near the end) and by the checked path alone, which must agree. */
static size_t decode_all(const uint8_t *in, size_t len, struct hw_record *out, size_t cap)
{
	struct hw_record prev, cprev;
	memset(&prev, 0, sizeof(prev));
	memset(&cprev, 0, sizeof(cprev));
	static struct hw_record grp[HW_RC_GROUP_MAX], cgrp[HW_RC_GROUP_MAX];
	char err[256], cerr[256];
	size_t pos = 0, n = 0;
	while (pos < len) {
		size_t k = 0, ck = 0;
		long used = hw_rc_decode_group(&prev, in + pos, len - pos, grp, &k, pos, err, sizeof(err));
		long cused =
		    hw_rc_decode_group_checked(&cprev, in + pos, len - pos, cgrp, &ck, pos, cerr, sizeof(cerr));
		if (used <= 0)
			fail_msg("decode at byte %zu: %s", pos, used < 0 ? err : "torn group");
		assert_int_equal(used, cused);
		assert_int_equal(k, ck);
		for (size_t i = 0; i < k; i++)
			rec_assert_equal(&grp[i], &cgrp[i]);
		rec_assert_equal(&prev, &cprev);
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

/* The per-report fields, from docs/records.md "Record files": a record that differs from the one before
 * only in one of these starts a new group; one that differs only in another field joins the group. */
static const char *const shared_names[] = {"time_ns",      "report_node", "hw_id",  "report_seq", "report_flags",
                                           "format",       "path_len",    "src_ip", "dst_ip",     "src_port",
                                           "dst_port",     "ip_proto",    "dscp",   "ecn",        "roce_opcode",
                                           "roce_dest_qp", "flow_hash"};

/* Every field in turn, changed in its first byte and then in its last (an address's bytes 0 and 15, a
 * timestamp's 0 and 7, in different words of the record): two records that differ only there make two
 * groups of 1 when the field is shared and one group of 2 otherwise, and decode back as they were
 * (a field the encoder failed to see differ would decode as the first record's value). */
static void one_field_differs(void **state)
{
	(void)state;
	struct hw_record r[2];
	static uint8_t body[2048];
	int fields = 0;
#define ONE_FIELD(a, name, type, le, valid, ch, kind, jpos)                                                            \
	for (int last = 0; last < 2; last++) {                                                                         \
		rec_fill(&r[0], 3);                                                                                    \
		r[1] = r[0];                                                                                           \
		size_t at = (le) + (last ? sizeof(r[0].name) - 1 : 0);                                                 \
		((uint8_t *)&r[1])[at] ^= 0x10;                                                                        \
		int shared = 0;                                                                                        \
		for (size_t i = 0; i < sizeof(shared_names) / sizeof(shared_names[0]); i++)                            \
			shared |= !strcmp(shared_names[i], #name);                                                     \
		size_t len = encode_all(r, 2, body);                                                                   \
		if (body[0] != (shared ? 1 : 2))                                                                       \
			fail_msg("%s byte %zu: first group of %u records", #name, at, body[0]);                        \
		struct hw_record back[2];                                                                              \
		assert_int_equal(decode_all(body, len, back, 2), 2);                                                   \
		rec_assert_equal(&back[0], &r[0]);                                                                     \
		rec_assert_equal(&back[1], &r[1]);                                                                     \
	}                                                                                                              \
	fields++;
	HW_RECORD_FIELDS(ONE_FIELD, _)
#undef ONE_FIELD
	assert_int_equal(fields, HW_RECORD_NFIELDS);
}

/* The malformed groups above with 4 KiB of zeros after them, so that hw_rc_decode_group takes its unchecked
 * fast path (more than the group's worst case is buffered): it gives up at the same place and the checked
 * path names the same problem. */
static void malformed_groups_fast(void **state)
{
	(void)state;
	static const struct {
		uint8_t bytes[16];
		size_t len;
		const char *expect;
	} bad[] = {
	    {{0x01, 0x80, 0x80, 0x08}, 4, "report field mask names no field"},
	    {{0x01, 0x00, 0x80, 0x80, 0x08}, 5, "hop field mask names no field"},
	    {{0x01, 0x80, 0x04, 0x80, 0x80, 0x04}, 6, "field src_port: an integer too long or too large"},
	    {{0x01, 0x00, 0x08, 0x80, 0x80, 0x80, 0x80, 0x10}, 8, "field node_id: an integer too long"},
	    {{0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
	     13,
	     "field time_ns: an integer too long"},
	};
	static uint8_t buf[4096];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, bad[i].bytes, bad[i].len);
		assert_true(sizeof(buf) >= hw_rc_group_bound(buf[0]));
		struct hw_record prev, grp[HW_RC_GROUP_MAX];
		memset(&prev, 0, sizeof(prev));
		char err[256] = "";
		size_t k = 0;
		long rc = hw_rc_decode_group(&prev, buf, sizeof(buf), grp, &k, 4242, err, sizeof(err));
		if (rc != -1 || !strstr(err, "group at byte 4242") || !strstr(err, bad[i].expect))
			fail_msg("case %zu: returned %ld, message \"%s\", expected \"%s\"", i, rc, err, bad[i].expect);
	}
}

/* Over-long varints that are still values of their fields (no writer makes them; the checked path has
 * always accepted them): src_port 5 written in 4 bytes, wider than a u16's 3-byte bound, and time_ns 1
 * (zigzag 2) in 10 bytes.  Read alone (the checked path) and with 4 KiB after them (the fast path gives
 * up on the wide varint and the checked path decodes the group), the group is 1 + 2 + 4 + 1 = 8 bytes and
 * 1 + 2 + 10 + 1 = 14 bytes and holds one record with that field set. */
static void overlong_values(void **state)
{
	(void)state;
	static const struct {
		uint8_t bytes[16];
		size_t len;
	} cases[] = {
	    /* count 1; shared mask 512 (src_port, bit 9); 0x85 0x80 0x80 0x00 = 5; hop mask 0 */
	    {{0x01, 0x80, 0x04, 0x85, 0x80, 0x80, 0x00, 0x00}, 8},
	    /* count 1; shared mask 1 (time_ns); 0x82, eight 0x80, 0x00 = zigzag 2 = +1; hop mask 0 */
	    {{0x01, 0x01, 0x82, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00}, 13},
	};
	static uint8_t buf[4096];
	for (size_t c = 0; c < 2; c++)
		for (int padded = 0; padded < 2; padded++) {
			memset(buf, 0, sizeof(buf));
			memcpy(buf, cases[c].bytes, cases[c].len);
			struct hw_record prev, grp[HW_RC_GROUP_MAX], want;
			memset(&prev, 0, sizeof(prev));
			memset(&want, 0, sizeof(want));
			if (c == 0)
				want.src_port = 5;
			else
				want.time_ns = 1;
			char err[256] = "";
			size_t k = 0;
			long rc = hw_rc_decode_group(&prev, buf, padded ? sizeof(buf) : cases[c].len, grp, &k, 0, err,
			                             sizeof(err));
			if (rc != (long)cases[c].len)
				fail_msg("case %zu padded %d: returned %ld (%s)", c, padded, rc, err);
			assert_int_equal(k, 1);
			rec_assert_equal(&grp[0], &want);
			rec_assert_equal(&prev, &want);
		}
}

/* Random bytes, each followed by enough room for the fast path: whatever hw_rc_decode_group returns (a
 * group, an error, "more bytes needed"), the checked path alone returns the same, the same records and
 * the same message.  The first byte is a count of 1 to 8 and the masks are mostly small, so that many
 * inputs get past the masks into the fields. */
static void random_bytes_agree(void **state)
{
	(void)state;
	static uint8_t buf[8192];
	static struct hw_record grp[HW_RC_GROUP_MAX], cgrp[HW_RC_GROUP_MAX];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int groups = 0;
	for (int t = 0; t < 3000; t++) {
		size_t len = 64 + (size_t)(t % 7) * 200; /* some shorter than the worst case: checked alone */
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
			uint8_t b = (uint8_t)(x >> 24);
			/* half the bytes small (1-byte varints, plausible masks), the rest anything */
			buf[i] = x >> 40 & 1 ? b & 0x7f : b;
		}
		buf[0] = (uint8_t)(1 + (x >> 50) % 8);
		struct hw_record prev, cprev;
		memset(&prev, 0, sizeof(prev));
		prev.time_ns = x; /* a reference record that is not zeros */
		prev.node_id = (uint32_t)t;
		cprev = prev;
		char err[256] = "", cerr[256] = "";
		size_t k = 0, ck = 0;
		long rc = hw_rc_decode_group(&prev, buf, len, grp, &k, 7, err, sizeof(err));
		long crc = hw_rc_decode_group_checked(&cprev, buf, len, cgrp, &ck, 7, cerr, sizeof(cerr));
		if (rc != crc)
			fail_msg("input %d: %ld against the checked path's %ld (%s / %s)", t, rc, crc, err, cerr);
		if (rc < 0)
			assert_string_equal(err, cerr);
		if (rc > 0) {
			groups++;
			assert_int_equal(k, ck);
			for (size_t i = 0; i < k; i++)
				rec_assert_equal(&grp[i], &cgrp[i]);
			rec_assert_equal(&prev, &cprev);
		}
	}
	assert_true(groups > 0); /* some inputs decoded to a group, so the records were compared */
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
	    cmocka_unit_test(malformed_groups_fast),
	    cmocka_unit_test(one_field_differs),
	    cmocka_unit_test(overlong_values),
	    cmocka_unit_test(random_bytes_agree),
	    cmocka_unit_test_setup_teardown(file_torn_group, sink_fx_setup, sink_fx_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
