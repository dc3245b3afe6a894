/* Record source on a thread of its own (`run --threads 2`): wraps another source (record_source.h) whose next()
 * never blocks for long; a reader thread calls it ahead and hands the batches over through a ring of buffers. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/stream.h"
#include "record_source.h"

/* Batches read ahead: the reader fills up to this many while the analyzer works on the oldest. */
#define ST_SLOTS 4

struct st_slot {
	long n; /* records, 0 (a live source's quiet turn), HW_SRC_END or HW_SRC_ERROR */
	struct hw_record *buf;
	size_t cap;
	char err[1024];
};

struct source_thread {
	struct record_source base;
	struct record_source *in;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;               /* signalled on every hand-over either way */
	struct st_slot slot[ST_SLOTS];   /* a ring: the consumer's slots from head, full ones count */
	unsigned head, full, held, stop; /* held: the consumer still reads slot head (its last next()) */
	int ended;                       /* the reader has returned (after the end or a replay's error) */
	int started;
};

/* Copy the inner batch into slot s: the inner source's buffer is only valid until its next call (a source
 * with next_into reads into the slot instead). */
static int fill(struct st_slot *s, long n, const struct hw_record *r)
{
	s->n = n;
	if (n <= 0)
		return 0;
	if ((size_t)n > s->cap) {
		struct hw_record *b = realloc(s->buf, (size_t)n * sizeof(*b));
		if (!b) {
			s->n = HW_SRC_ERROR;
			snprintf(s->err, sizeof(s->err), "reader thread: out of memory for a batch of %ld records", n);
			return -1;
		}
		s->buf = b;
		s->cap = (size_t)n;
	}
	memcpy(s->buf, r, (size_t)n * sizeof(*r));
	return 0;
}

static void *reader(void *arg)
{
	struct source_thread *t = arg;
	pthread_setname_np(pthread_self(), "an-reader"); /* its CPU apart in top -H and the harness */
	for (;;) {
		pthread_mutex_lock(&t->mu);
		while (t->full == ST_SLOTS && !t->stop) /* every slot waits for the consumer */
			pthread_cond_wait(&t->cv, &t->mu);
		const int stop = t->stop;
		struct st_slot *s = &t->slot[(t->head + t->full) % ST_SLOTS];
		pthread_mutex_unlock(&t->mu);
		if (stop)
			return NULL;
		/* s is the reader's alone until it is counted full (the consumer only reads full slots) */
		const struct hw_record *r = NULL;
		long n;
		int failed = 0;
		if (t->in->ops->next_into) { /* straight into the slot: no copy */
			s->n = n = t->in->ops->next_into(t->in, s->buf, s->cap, s->err, sizeof(s->err));
		} else {
			n = t->in->ops->next(t->in, &r, s->err, sizeof(s->err));
			failed = fill(s, n, r);
		}
		const int end = failed || n == HW_SRC_END || (n == HW_SRC_ERROR && !t->in->live);
		pthread_mutex_lock(&t->mu);
		t->full++;
		t->ended = end; /* a replay's error ends the run (drive()); a live source goes on after one */
		pthread_cond_broadcast(&t->cv);
		pthread_mutex_unlock(&t->mu);
		if (end)
			return NULL;
	}
}

static long thread_next(struct record_source *src, const struct hw_record **r, char *err, size_t errlen)
{
	struct source_thread *t = (struct source_thread *)src;
	pthread_mutex_lock(&t->mu);
	if (t->held) { /* the batch handed over last time is done with */
		t->held = 0;
		t->head = (t->head + 1) % ST_SLOTS;
		t->full--;
		pthread_cond_broadcast(&t->cv);
	}
	while (!t->full && !t->ended)
		pthread_cond_wait(&t->cv, &t->mu);
	if (!t->full) { /* every batch was taken after the reader ended on an error */
		pthread_mutex_unlock(&t->mu);
		return HW_SRC_END;
	}
	struct st_slot *s = &t->slot[t->head];
	pthread_mutex_unlock(&t->mu);
	if (s->n == HW_SRC_END)
		return HW_SRC_END; /* stays full: the reader has ended, and every later call returns it again */
	t->held = 1;
	if (s->n == HW_SRC_ERROR)
		snprintf(err, errlen, "%s", s->err);
	*r = s->buf;
	return s->n;
}

static void thread_close(struct record_source *src)
{
	struct source_thread *t = (struct source_thread *)src;
	if (t->started) {
		pthread_mutex_lock(&t->mu);
		t->stop = 1;
		pthread_cond_broadcast(&t->cv);
		pthread_mutex_unlock(&t->mu);
		pthread_join(t->th, NULL); /* at most one inner next() to wait for (a live one's turn: ~100 ms) */
	}
	t->in->ops->close(t->in);
	for (unsigned i = 0; i < ST_SLOTS; i++)
		free(t->slot[i].buf);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

static const struct record_source_ops thread_ops = {.next = thread_next, .close = thread_close};

struct record_source *hw_source_thread(struct record_source *in, char *err, size_t errlen)
{
	struct source_thread *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "%s: out of memory for the reader thread", in->name);
		in->ops->close(in);
		return NULL;
	}
	t->base = *in;
	t->base.ops = &thread_ops;
	t->in = in;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	for (unsigned i = 0; i < ST_SLOTS; i++)
		if (!(t->slot[i].buf = malloc(HW_STREAM_MAX_BATCH * sizeof(struct hw_record)))) {
			snprintf(err, errlen, "%s: out of memory for the reader thread", in->name);
			thread_close(&t->base);
			return NULL;
		} else {
			t->slot[i].cap = HW_STREAM_MAX_BATCH;
		}
	sigset_t all, old; /* signals go to the threads that ask for them (run_cli.c), never to this one */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	const int failed = pthread_create(&t->th, NULL, reader, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (failed) {
		snprintf(err, errlen, "%s: cannot start the reader thread", in->name);
		thread_close(&t->base);
		return NULL;
	}
	t->started = 1;
	return &t->base;
}
