/* libFuzzer target for the record-file reader (record_file.c): a file it opens must read back exactly the
 * whole records after its header, and a refusal must say why.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_hwr fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "hopwatch/record_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
	/* opened: the header said where the records start (offset 12, LE32) and the rest is whole records */
	if (size < HW_RECORD_FILE_HEADER)
		__builtin_trap(); /* shorter than the fixed header, yet opened */
	uint32_t hdr =
	    (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 | (uint32_t)data[15] << 24;
	if (size < hdr || (size - hdr) % HW_RECORD_SIZE)
		__builtin_trap();
	static struct hw_record out[64];
	size_t total = 0;
	long n;
	while ((n = hw_record_reader_read(r, out, 64, err, sizeof(err))) > 0) {
		for (long i = 0; i < n; i++) { /* each record re-encodes without fault */
			uint8_t le[HW_RECORD_SIZE];
			hw_record_to_le(&out[i], le);
		}
		total += (size_t)n;
	}
	hw_record_reader_close(r);
	if (n < 0 || total != (size - hdr) / HW_RECORD_SIZE)
		__builtin_trap(); /* the file did not change, so every record must read */
	return 0;
}
