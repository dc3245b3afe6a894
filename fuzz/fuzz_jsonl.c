/* libFuzzer target for the JSON-lines record reader (records_jsonl.c), big-integer rewriting included: a line
 * that reads is written back and read again, and the second writing must equal the first (a fixed point).
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_jsonl fuzz/corpus-jsonl */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/record_json.h"
#include "records_jsonl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), err[256], a[HW_RECORD_JSON_MAX], b[HW_RECORD_JSON_MAX];
	struct hw_record r;
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	err[0] = 0;
	if (hw_record_from_json_line(line, &r, err, sizeof(err)) == 0) {
		size_t n = hw_record_json(&r, a);
		if (n >= sizeof(a) || hw_record_from_json_line(a, &r, err, sizeof(err)))
			__builtin_trap(); /* the reader refuses what the writer wrote */
		if (hw_record_json(&r, b) != n || memcmp(a, b, n))
			__builtin_trap(); /* written, read and written again: not the same */
	} else if (!err[0] || strlen(err) >= sizeof(err)) {
		__builtin_trap(); /* a refusal says why */
	}
	free(line);
	return 0;
}
