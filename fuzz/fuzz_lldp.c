/* libFuzzer target for the LLDP TLV parser: the input is tried as an Ethernet frame and as a bare LLDPDU.
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true; run: build-fuzz/fuzz/fuzz_lldp fuzz/corpus-lldp */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hopwatch/lldp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hw_lldp_info info;
	enum hw_lldp_result r = hw_lldp_parse_frame(data, size, &info);
	if (r == HW_LLDP_OK) {
		/* what the parser hands on must be well-formed: terminated strings, counts within their arrays */
		if (strlen(info.chassis.text) >= sizeof(info.chassis.text) || info.n_mgmt > HW_LLDP_MGMT_MAX ||
		    strlen(info.sys_name) >= sizeof(info.sys_name))
			__builtin_trap();
	}
	if ((unsigned)r >= HW_LLDP_RESULT_COUNT || !hw_lldp_result_name(r))
		__builtin_trap();
	hw_lldp_parse_pdu(data, size, &info);
	return 0;
}
