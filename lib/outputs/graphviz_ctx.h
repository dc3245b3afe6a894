/* The process's one Graphviz context (created on first use).  Graphviz is not thread-safe: during `run`
 * only the rendering thread (an_render.h) uses it; `topology` draws on its one thread. */
#ifndef HOPWATCH_GRAPHVIZ_CTX_H
#define HOPWATCH_GRAPHVIZ_CTX_H

/* The process's one GVC_t, created on first use.  NULL if Graphviz cannot start. */
void *hw_analyzer_gvc(void);
/* Free the context (at exit). */
void hw_analyzer_gvc_free(void);

#endif
