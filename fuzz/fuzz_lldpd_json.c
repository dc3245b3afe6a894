/* libFuzzer target for the lldpcli JSON reader (lldpd_json.c: `lldpcli -f json0|json show neighbors
 * details`, optionally after `show chassis`): a dump that loads goes through the topology's checks, tiers
 * and default placement; a refusal must say why.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_lldpd_json fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "hopwatch/topo.h"
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	struct hw_topo t;
	hw_topo_init(&t);
	struct hw_topo_error err = {0};
	if (hw_topo_load_lldpd_json(&t, path, "leaf1", 100.0, &err) != HW_TOPO_OK) {
		if (!FUZZ_REFUSAL_SAYS_WHY(err))
			__builtin_trap();
	} else {
		hw_topo_check(&t);
		hw_topo_assign_tiers(&t);
		hw_topo_map_apply(&t, NULL);
		hw_topo_expire(&t, 1e9); /* everything ages out */
	}
	hw_topo_free(&t);
	return 0;
}
