/* libFuzzer target for the collector's JSON config file (collector_config.c through the option layer,
 * options.c): any file either loads or is refused with a message naming the file.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_collector_config fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collector_config.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	static struct hw_collector_config c;
	hw_collector_config_default(&c);
	char err[512] = "";
	int rc = hw_collector_config_load(&c, path, err, sizeof(err));
	if (rc && (!err[0] || strnlen(err, sizeof(err)) == sizeof(err)))
		__builtin_trap(); /* a refusal says why, in a terminated message */
	if (rc && !strstr(err, path))
		__builtin_trap();     /* ... and names the file */
	hw_collector_config_free(&c); /* the strings the file gave */
	return 0;
}
