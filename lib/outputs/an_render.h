/* The analyzer's one rendering thread: the only user of Graphviz during `run`.  Outputs hand it jobs
 * that hold a snapshot of what is to be drawn (event graphs, heat map, latency matrix), drawn in order. */
#ifndef HOPWATCH_AN_RENDER_H
#define HOPWATCH_AN_RENDER_H

#include <stddef.h>

/* One drawing: draw runs on the rendering thread with the process's Graphviz context; done (optional)
 * runs right after it there, and is where the job is released.  The job must not change until done. */
struct an_render_job {
	void (*draw)(struct an_render_job *j, void *gvc);
	void (*done)(struct an_render_job *j);
	struct an_render_job *next; /* the queue's */
};

struct an_render;

/* Start the thread (Graphviz context: hw_analyzer_gvc()).  NULL with a message in err. */
struct an_render *an_render_start(char *err, size_t errlen);
/* Queue a job (never blocks: the submitter bounds what it has in flight). */
void an_render_submit(struct an_render *r, struct an_render_job *j);
/* Wait until every job queued so far is drawn and done. */
void an_render_flush(struct an_render *r);
/* Draw what is queued, then stop the thread and free.  NULL is a no-op. */
void an_render_stop(struct an_render *r);

#endif
