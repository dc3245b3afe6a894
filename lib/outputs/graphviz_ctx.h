/* The process's one Graphviz context (created on first use) and the lock around every use of it:
 * Graphviz is not thread-safe, and event graphs, heat map and latency matrix may draw from two threads. */
#ifndef HOPWATCH_GRAPHVIZ_CTX_H
#define HOPWATCH_GRAPHVIZ_CTX_H

/* The process's one GVC_t, created on first use.  NULL if Graphviz cannot start. */
void *hw_analyzer_gvc(void);
/* Every layout/render with that context, from any thread, is done between these. */
void hw_analyzer_gvc_lock(void);
void hw_analyzer_gvc_unlock(void);
/* Free the context (at exit). */
void hw_analyzer_gvc_free(void);

#endif
