/* Stand-in for lldpctl_source.c in builds without liblldpctl: the --lldpd source reports that it is
 * not available instead of failing to link. */
#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"

enum hw_topo_result hw_topo_load_lldpctl(struct hw_topo *t, const char *socket, double now, struct hw_topo_error *err)
{
	(void)t;
	(void)now;
	return hw_topo_fail(err, HW_TOPO_E_UNSUPPORTED, "%s: this hopwatch-analyzer was built without liblldpctl",
	                    socket ? socket : "lldpd");
}
