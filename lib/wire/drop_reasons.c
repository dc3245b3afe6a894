/* Names of the drop reason codes switches put in drop reports: the codes Intel's switch.p4 (SONiC DTel)
 * and ONF's fabric-tna define, which agree where both define one.  The specs leave the codes open. */
#include <stddef.h>

#include "hopwatch/wire.h"

/* code, then what a person reads: switch.p4's SWITCH_DROP_REASON_* (0-105) and fabric-tna's
 * IntDropReason_t (26, 29, 55, 71, 80, 89 as switch.p4; 128-131 its own), in words; switch.p4's checks of
 * an outer header (10-12, 25-31) and of the packet's own (14-16, 40-45) read alike */
static const struct {
	unsigned char code;
	const char *name;
} reasons[] = {
    {0, "unknown"},
    {10, "source MAC zero"},
    {11, "source MAC multicast"},
    {12, "destination MAC zero"},
    {14, "source MAC zero"},
    {15, "source MAC multicast"},
    {16, "destination MAC zero"},
    {25, "IP version invalid"},
    {26, "IP TTL zero"},
    {29, "no route (IP lookup miss)"},
    {30, "IP header length invalid"},
    {31, "IP checksum invalid"},
    {40, "IP version invalid"},
    {41, "IP TTL zero"},
    {44, "IP header length invalid"},
    {45, "IP checksum invalid"},
    {55, "port VLAN mapping miss"},
    {56, "STP state learning"},
    {57, "STP state blocking"},
    {58, "same interface (hairpin)"},
    {60, "egress link down"},
    {70, "MTU check failed: frame larger than the port's MTU"},
    {71, "traffic manager: queue or buffer full"},
    {72, "storm control"},
    {73, "WRED (random early drop)"},
    {75, "ingress port meter"},
    {76, "ingress ACL meter"},
    {77, "egress port meter"},
    {78, "egress ACL meter"},
    {80, "ACL deny"},
    {81, "router ACL deny"},
    {82, "uRPF check failed"},
    {89, "L2 miss (unknown unicast)"},
    {90, "L2 miss (multicast)"},
    {91, "L2 miss (broadcast)"},
    {92, "egress ACL deny"},
    {93, "next hop"},
    {101, "ingress PFC watchdog"},
    {102, "egress PFC watchdog"},
    {128, "next ID miss"},
    {129, "MPLS label miss"},
    {130, "egress next hop miss"},
    {131, "MPLS TTL zero"},
};

const char *hw_drop_reason_name(unsigned code)
{
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (reasons[i].code == code)
			return reasons[i].name;
	return NULL;
}
