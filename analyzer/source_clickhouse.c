/* Record source: a time range of the hops table from ClickHouse (--clickhouse URL --from --to).  The
 * query streams on a thread of its own (hw_ch_replay_run calls back per batch); each batch is handed
 * over one at a time, so at most two batches are in memory whatever the range holds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/stream.h"
#include "record_source.h"

struct source_ch {
	struct record_source base;
	const struct hw_ch_replay *q;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t n;     /* records in out, waiting to be taken (0: the slot is free) */
	int taken;    /* out was handed to next() and is in use until its following call */
	int done;     /* the query ended */
	int cancel;   /* close(): stop the query at the next batch */
	long long rc; /* hw_ch_replay_run's result */
	char err[1024];
	struct hw_record in[HW_STREAM_MAX_BATCH];  /* the query's */
	struct hw_record out[HW_STREAM_MAX_BATCH]; /* the batch handed over */
};

/* On the query's thread: wait for the slot, copy the batch there; nonzero stops the query. */
static int ch_batch(void *ctx, const struct hw_record *r, size_t n)
{
	struct source_ch *c = ctx;
	pthread_mutex_lock(&c->mu);
	while ((c->n || c->taken) && !c->cancel)
		pthread_cond_wait(&c->cv, &c->mu);
	int stop = c->cancel;
	if (!stop) {
		memcpy(c->out, r, n * sizeof(*r));
		c->n = n;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	return stop;
}

static void *query(void *arg)
{
	struct source_ch *c = arg;
	char err[sizeof(c->err)];
	long long rc = hw_ch_replay_run(c->q, c->in, HW_STREAM_MAX_BATCH, ch_batch, c, err, sizeof(err));
	pthread_mutex_lock(&c->mu);
	c->rc = rc;
	memcpy(c->err, err, sizeof(err));
	c->done = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static long ch_next(struct record_source *s, const struct hw_record **r, char *err, size_t errlen)
{
	struct source_ch *c = (struct source_ch *)s;
	pthread_mutex_lock(&c->mu);
	if (c->taken) { /* the caller is done with the previous batch: the slot is free */
		c->taken = 0;
		c->n = 0;
		pthread_cond_broadcast(&c->cv);
	}
	while (!c->n && !c->done)
		pthread_cond_wait(&c->cv, &c->mu);
	long n = (long)c->n;
	if (n) {
		c->taken = 1;
		*r = c->out;
	} else if (c->rc < 0) {
		snprintf(err, errlen, "%s", c->err);
		n = HW_SRC_ERROR;
	} else {
		n = HW_SRC_END;
	}
	pthread_mutex_unlock(&c->mu);
	return n;
}

static void ch_close(struct record_source *s)
{
	struct source_ch *c = (struct source_ch *)s;
	pthread_mutex_lock(&c->mu);
	c->cancel = 1;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
}

static const struct record_source_ops ch_ops = {.next = ch_next, .close = ch_close};

struct record_source *hw_source_clickhouse(const struct hw_ch_replay *q, char *err, size_t errlen)
{
	struct source_ch *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "--clickhouse %s: out of memory", q->url);
		return NULL;
	}
	c->base.ops = &ch_ops;
	c->base.name = "--clickhouse";
	c->q = q;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	if (pthread_create(&c->thread, NULL, query, c) != 0) {
		pthread_mutex_destroy(&c->mu);
		pthread_cond_destroy(&c->cv);
		free(c);
		snprintf(err, errlen, "--clickhouse %s: cannot start the query thread", q->url);
		return NULL;
	}
	return &c->base;
}
