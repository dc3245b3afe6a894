/* The process's one Graphviz context, shared by whatever draws: the rendering thread of `run`, or the
 * `topology` subcommand; Graphviz is not thread-safe, so each program draws from one thread only. */
#include <gvc.h>

#include "graphviz_ctx.h"

static GVC_t *gvc;

void *hw_analyzer_gvc(void)
{
	if (!gvc)
		gvc = gvContext();
	return gvc;
}

void hw_analyzer_gvc_free(void)
{
	if (gvc)
		gvFreeContext(gvc);
	gvc = NULL;
}
