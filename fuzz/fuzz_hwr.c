/* libFuzzer target for the record-file reader (record_file.c, record_compact.c): a fixed-size file it opens
 * must read back exactly the whole records after its header; a compact file reads to its end or to an error
 * that says why, and what it read encodes and decodes back to the same records; a refusal must say why.
 * The bytes after the header, as compact groups, decode the same through the fast and the checked path.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_hwr fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "hopwatch/record_file.h"
#include "record_compact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The records decoded from a compact file, encoded and decoded again, come back byte for byte. */
static void compact_round_trip(const struct hw_record *recs, size_t n)
{
	static uint8_t body[1 << 16]; /* 64 records: far more than hw_rc_group_bound(64) */
	static struct hw_record grp[HW_RC_GROUP_MAX];
	struct hw_record prev, dprev;
	memset(&prev, 0, sizeof(prev));
	memset(&dprev, 0, sizeof(dprev));
	size_t len = 0, back = 0;
	for (size_t i = 0; i < n;) {
		size_t taken = 0;
		len += hw_rc_encode_group(&prev, recs + i, n - i, body + len, &taken);
		i += taken;
	}
	char err[256];
	for (size_t pos = 0; pos < len;) {
		size_t k = 0;
		long used = hw_rc_decode_group(&dprev, body + pos, len - pos, grp, &k, pos, err, sizeof(err));
		if (used <= 0 || back + k > n || memcmp(grp, recs + back, k * sizeof(*grp)))
			__builtin_trap();
		back += k;
		pos += (size_t)used;
	}
	if (back != n)
		__builtin_trap();
}

/* The input's bytes after a header as compact groups: hw_rc_decode_group (unchecked while a group's worst
 * case is buffered) and the checked path alone return the same, the same records and the same message. */
static void fast_and_checked_agree(const uint8_t *body, size_t len)
{
	static struct hw_record grp[HW_RC_GROUP_MAX], cgrp[HW_RC_GROUP_MAX];
	struct hw_record prev, cprev;
	memset(&prev, 0, sizeof(prev));
	memset(&cprev, 0, sizeof(cprev));
	char err[256] = "", cerr[256] = "";
	for (size_t pos = 0; pos < len;) {
		size_t k = 0, ck = 0;
		long used = hw_rc_decode_group(&prev, body + pos, len - pos, grp, &k, pos, err, sizeof(err));
		long cused =
		    hw_rc_decode_group_checked(&cprev, body + pos, len - pos, cgrp, &ck, pos, cerr, sizeof(cerr));
		if (used != cused || (used < 0 && strcmp(err, cerr)))
			__builtin_trap();
		if (used <= 0)
			return;
		if (k != ck || memcmp(grp, cgrp, k * sizeof(*grp)) || memcmp(&prev, &cprev, sizeof(prev)))
			__builtin_trap();
		pos += (size_t)used;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > HW_RECORD_FILE_HEADER)
		fast_and_checked_agree(data + HW_RECORD_FILE_HEADER, size - HW_RECORD_FILE_HEADER);
	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	char err[512] = "";
	struct hw_record_reader *r = hw_record_reader_open(path, err, sizeof(err));
	if (!r) {
		if (!err[0])
			__builtin_trap(); /* a refusal says why */
		return 0;
	}
	/* opened: the header said where the records start (offset 12, LE32) and its version (offset 8) */
	if (size < HW_RECORD_FILE_HEADER)
		__builtin_trap(); /* shorter than the fixed header, yet opened */
	uint32_t hdr =
	    (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
	unsigned version = (unsigned)data[8] | (unsigned)data[9] << 8;
	if (version == HW_RECORD_FILE_VERSION_FIXED && (size < hdr || (size - hdr) % HW_RECORD_SIZE))
		__builtin_trap();
	static struct hw_record out[64];
	size_t total = 0;
	long n;
	while ((n = hw_record_reader_read(r, out, 64, err, sizeof(err))) > 0) {
		if (version == HW_RECORD_FILE_VERSION_FIXED) {
			for (long i = 0; i < n; i++) { /* each record re-encodes without fault */
				uint8_t le[HW_RECORD_SIZE];
				hw_record_to_le(&out[i], le);
			}
		} else {
			compact_round_trip(out, (size_t)n);
		}
		total += (size_t)n;
	}
	hw_record_reader_close(r);
	if (version == HW_RECORD_FILE_VERSION_FIXED && (n < 0 || total != (size - hdr) / HW_RECORD_SIZE))
		__builtin_trap(); /* the file did not change, so every record must read */
	if (n < 0 && !err[0])
		__builtin_trap(); /* a compact file's error says why */
	return 0;
}
