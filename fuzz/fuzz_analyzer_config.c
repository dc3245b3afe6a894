/* libFuzzer target for the analyzer's JSON thresholds file (an_config.c and the detectors' keys): any file
 * either loads or is refused with a message naming the file.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_analyzer_config fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "hopwatch/analyzer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	static struct hw_an_config c;
	hw_an_config_default(&c);
	char err[512] = "";
	int rc = hw_an_config_load(&c, path, err, sizeof(err));
	if (rc && (!err[0] || strnlen(err, sizeof(err)) == sizeof(err) || !strstr(err, path)))
		__builtin_trap(); /* a refusal says why and names the file */
	return 0;
}
