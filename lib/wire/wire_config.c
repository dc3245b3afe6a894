/* Parser configuration defaults and the named vendor profiles.
 * Detection settings live here so every front end starts from the same defaults. */
#include <string.h>

#include "hopwatch/wire.h"

void hw_parser_config_default(struct hw_parser_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->report_ports[0] = 32766; /* fabric-tna / Deep Insight default */
	cfg->n_report_ports = 1;
	cfg->int_dscp = 0x17; /* INT spec example value */
	cfg->int_dscp_mask = 0x3f;
	cfg->vxlan_gpe_port = 4790;
	cfg->geneve_port = 6081;
	cfg->geneve_int_class = 0x0103;
	cfg->roce_port = 4791;
	cfg->profile = HW_PROFILE_STANDARD;
	cfg->max_hops = 64;
	cfg->bare_int = 1;
}

void hw_parser_config_profile(struct hw_parser_config *cfg, enum hw_profile p)
{
	cfg->profile = (uint8_t)p;
	if (p == HW_PROFILE_GEANT) {
		/* GEANT int-platform marks INT packets with IPv4 TOS 0x80, i.e. DSCP bit 0x20. */
		cfg->int_dscp = 0x20;
		cfg->int_dscp_mask = 0x20;
	}
}

const char *hw_profile_name(enum hw_profile p)
{
	switch (p) {
	case HW_PROFILE_STANDARD: return "standard";
	case HW_PROFILE_GEANT: return "geant";
	}
	return "unknown";
}

int hw_profile_from_name(const char *name)
{
	if (!strcmp(name, "standard"))
		return HW_PROFILE_STANDARD;
	if (!strcmp(name, "geant"))
		return HW_PROFILE_GEANT;
	return -1;
}
