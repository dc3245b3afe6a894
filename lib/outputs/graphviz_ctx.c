/* The process's one Graphviz context and the lock every layout and render takes: Graphviz is not
 * thread-safe, and the analyzer draws from its ingest thread and its graph thread. */
#include <gvc.h>
#include <pthread.h>

#include "graphviz_ctx.h"

static GVC_t *gvc;
static pthread_mutex_t gvc_mu = PTHREAD_MUTEX_INITIALIZER;

void *hw_analyzer_gvc(void)
{
	if (!gvc)
		gvc = gvContext();
	return gvc;
}

void hw_analyzer_gvc_lock(void)
{
	pthread_mutex_lock(&gvc_mu);
}

void hw_analyzer_gvc_unlock(void)
{
	pthread_mutex_unlock(&gvc_mu);
}

void hw_analyzer_gvc_free(void)
{
	if (gvc)
		gvFreeContext(gvc);
	gvc = NULL;
}
