/* The rendering thread: a FIFO of jobs drawn one at a time with the process's Graphviz context, so that
 * Graphviz (not thread-safe) is only ever called from here while `run` renders. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "an_render.h"
#include "graphviz_ctx.h"

struct an_render {
	void *gvc;
	struct an_render_job *head, *tail;
	unsigned long queued, drawn; /* jobs ever queued, and drawn and done */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int stop;
};

static void *rendering(void *arg)
{
	struct an_render *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->head && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		struct an_render_job *j = r->head;
		if (!j)
			break;
		r->head = j->next;
		if (!r->head)
			r->tail = NULL;
		pthread_mutex_unlock(&r->mu);
		j->draw(j, r->gvc);
		if (j->done)
			j->done(j);
		pthread_mutex_lock(&r->mu);
		r->drawn++;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

struct an_render *an_render_start(char *err, size_t errlen)
{
	struct an_render *r = calloc(1, sizeof(*r));
	void *gvc = hw_analyzer_gvc();
	if (!r || !gvc) {
		free(r);
		snprintf(err, errlen, "--svg-dir: %s", gvc ? "out of memory" : "no Graphviz context");
		return NULL;
	}
	r->gvc = gvc;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (pthread_create(&r->thread, NULL, rendering, r) != 0) {
		pthread_mutex_destroy(&r->mu);
		pthread_cond_destroy(&r->cv);
		free(r);
		snprintf(err, errlen, "--svg-dir: cannot start the rendering thread");
		return NULL;
	}
	return r;
}

void an_render_submit(struct an_render *r, struct an_render_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&r->mu);
	if (r->tail)
		r->tail->next = j;
	else
		r->head = j;
	r->tail = j;
	r->queued++;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

void an_render_flush(struct an_render *r)
{
	pthread_mutex_lock(&r->mu);
	unsigned long target = r->queued;
	while (r->drawn < target)
		pthread_cond_wait(&r->cv, &r->mu);
	pthread_mutex_unlock(&r->mu);
}

void an_render_stop(struct an_render *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->stop = 1; /* the thread drains the queue first */
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}
