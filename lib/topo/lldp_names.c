/* Names and texts for LLDP values: parse outcomes, subtypes, capability bits, addresses.
 * Shared by the TLV parser, the lldpd JSON importer and the JSON/SVG writers. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "hopwatch/lldp.h"

static const char *const names[] = {
#define HW_LLDP_X_NAME(e, n, m) n,
    HW_LLDP_RESULT_LIST(HW_LLDP_X_NAME)
#undef HW_LLDP_X_NAME
};

static const char *const messages[] = {
#define HW_LLDP_X_MSG(e, n, m) m,
    HW_LLDP_RESULT_LIST(HW_LLDP_X_MSG)
#undef HW_LLDP_X_MSG
};

const char *hw_lldp_result_name(enum hw_lldp_result r)
{
	return (unsigned)r < HW_LLDP_RESULT_COUNT ? names[r] : "invalid";
}

const char *hw_lldp_result_message(enum hw_lldp_result r)
{
	return (unsigned)r < HW_LLDP_RESULT_COUNT ? messages[r] : "invalid result code";
}

const char *hw_lldp_cap_name(uint16_t bit)
{
	switch (bit) {
	case HW_LLDP_CAP_OTHER: return "other";
	case HW_LLDP_CAP_REPEATER: return "repeater";
	case HW_LLDP_CAP_BRIDGE: return "bridge";
	case HW_LLDP_CAP_WLAN: return "wlan";
	case HW_LLDP_CAP_ROUTER: return "router";
	case HW_LLDP_CAP_TELEPHONE: return "telephone";
	case HW_LLDP_CAP_DOCSIS: return "docsis";
	case HW_LLDP_CAP_STATION: return "station";
	case HW_LLDP_CAP_CVLAN: return "cvlan";
	case HW_LLDP_CAP_SVLAN: return "svlan";
	case HW_LLDP_CAP_TPMR: return "tpmr";
	default: return NULL;
	}
}

const char *hw_lldp_chassis_subtype_name(uint8_t subtype)
{
	static const char *const n[] = {"reserved", "chassis", "ifalias", "port", "mac", "ip", "ifname", "local"};
	return subtype < 8 ? n[subtype] : "reserved";
}

const char *hw_lldp_port_subtype_name(uint8_t subtype)
{
	static const char *const n[] = {"reserved", "ifalias", "port", "mac", "ip", "ifname", "circuit", "local"};
	return subtype < 8 ? n[subtype] : "reserved";
}

const char *hw_lldp_addr_text(uint8_t family, const uint8_t *addr, size_t len, char *buf, size_t size)
{
	if (family == 1 && len == 4 && inet_ntop(AF_INET, addr, buf, (socklen_t)size))
		return buf;
	if (family == 2 && len == 16 && inet_ntop(AF_INET6, addr, buf, (socklen_t)size))
		return buf;
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < len && o + 4 <= size; i++)
		o += (size_t)snprintf(buf + o, size - o, i ? ":%02x" : "%02x", addr[i]);
	return buf;
}
