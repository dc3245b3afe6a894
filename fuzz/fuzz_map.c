/* libFuzzer target for the INT-id map file reader (topo_map.c, docs/topology.md): a map that loads is applied
 * to a topology and used to place the node ids and ports it names; a refusal must say why.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_map fuzz/seeds */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "hopwatch/topo.h"
#include "hopwatch/topo_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	if (!path)
		return 0;
	struct hw_topo_map m;
	memset(&m, 0, sizeof(m));
	struct hw_topo_error err = {0};
	if (hw_topo_map_load(&m, path, &err) != HW_TOPO_OK) {
		if (!FUZZ_REFUSAL_SAYS_WHY(err))
			__builtin_trap();
		hw_topo_map_free(&m);
		return 0;
	}
	if (strnlen(m.port_format, sizeof(m.port_format)) == sizeof(m.port_format))
		__builtin_trap();
	struct hw_topo t;
	hw_topo_init(&t);
	hw_topo_map_apply(&t, &m);
	for (uint32_t i = 0; i < m.n_nodes && i < 64; i++) {
		uint32_t id = m.nodes[i].node_id, node, port;
		for (uint32_t p = 0; p < 4; p++)
			hw_topo_place(&t, &m, id, p, &node, &port);
		hw_topo_map_units_of(&t, &m, id);
	}
	hw_topo_free(&t);
	hw_topo_map_free(&m);
	return 0;
}
