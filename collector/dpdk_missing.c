/* Built when DPDK was not found at configure time: the DPDK front end says so and points at the
 * libpcap front end, which needs nothing but libpcap. */
#include <stdio.h>

#include "front.h"

int hw_dpdk_front_run(struct hw_collector *c, int eal_argc, char **argv, char *err, size_t errlen)
{
	(void)c;
	(void)eal_argc;
	(void)argv;
	snprintf(err, errlen, "this build has no DPDK support (dpdk-dev was not found); use --pcap FILE|IFACE");
	return 2;
}
