/* Built when DPDK was not found at configure time: diagnose says so for the DPDK checks and points
 * at --pcap, which needs nothing but libpcap. */
#include "diagnose.h"

bool hw_diag_dpdk(struct hw_diag_run *run, int eal_argc, char **eal_argv)
{
	(void)eal_argc;
	(void)eal_argv;
	hw_diag_line(run, HW_DIAG_FAIL, "dpdk_eal", "install dpdk-dev and rebuild, or diagnose with --pcap FILE|IFACE",
	             "this build has no DPDK support");
	return false;
}
