/* Sharded detectors (hw_an_shards, `run --threads N`): the shard-local steps of the detectors that split their
 * record hook (detector.h record_local) run for a batch on N threads at once, each on its own queues. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "detector.h"

#define AN_MAX_SHARDS 8
#define AN_MAX_LOCAL 8 /* sharded record hooks: done counts them in a byte */

struct an_shards {
	struct hw_analyzer *a;
	unsigned n; /* shards: the caller's thread is shard 0, threads 1 .. n - 1 */
	pthread_t th[AN_MAX_SHARDS];
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t gen;  /* batches handed out; a thread runs each once */
	unsigned busy; /* threads still on the current batch */
	int stop;
	unsigned started;          /* threads running: th[1 .. started) */
	const struct hw_record *r; /* the current batch */
	size_t n_rec;
	struct an_shard_res *res;
	uint64_t now0;  /* record time when it began */
	uint32_t epoch; /* the batch's number, from 1: marks below are of the batch when equal */
	size_t nq;      /* queues (limits.max_queues): each shard's marks below are nq apart */
	uint32_t *gone; /* per shard and queue: the epoch it was handed back to the core in */
	uint32_t *seen; /* per shard and queue: the epoch of last[] */
	uint64_t *last; /* per shard and queue: its newest record's time in the batch (seen == epoch) */
	uint64_t quiet; /* the least quiet_ns of the sharded hooks */
	const struct an_rec_hook *local[AN_MAX_LOCAL]; /* the sharded hooks, in the order of a->rec */
	unsigned n_local;
};

/* The shard of a node's queues: all of a switch's queues on one shard, so that a shard skips another's records
 * by their node alone (hashing every record's queue key on every shard cost more than the steps it saved). */
static inline unsigned an_shard_of(uint32_t node_id, unsigned n)
{
	return ((node_id * 2654435761u) >> 16) % n;
}

/* Shard s's steps of the batch: the records of its queues (by their node), in record order.  A queue leaves
 * the shard for the rest of the batch (the core runs its hooks whole) at its first transition, after the step
 * that made it, and before a record when a tick before it may have changed the queue's state (a tick runs on
 * the core's thread, at its place in record order: after the shard would have run on). */
static void shard_steps(struct an_shards *sh, unsigned s)
{
	struct hw_analyzer *a = sh->a;
	const struct hw_record *const rec = sh->r;
	const uint32_t epoch = sh->epoch;
	uint32_t *const gone = sh->gone + s * sh->nq, *const seen = sh->seen + s * sh->nq; /* the shard's own: */
	uint64_t *const last_ns = sh->last + s * sh->nq; /* no cache line written by two shards */
	uint64_t m = sh->now0; /* the most record time can be at record i: every record's time counted, so more */
	for (size_t i = 0; i < sh->n_rec; i++) {
		const struct hw_record *r = &rec[i];
		if (r->time_ns > m)
			m = r->time_ns;
		if (an_shard_of(r->node_id, sh->n) != s)
			continue;
		const uint32_t port = an_record_port(r);
		const uint32_t h = an_queue_hash(r->node_id, port, an_record_queue(r));
		struct an_shard_res *out = &sh->res[i];
		*out = (struct an_shard_res){0, 0, 0};
		/* what the core takes to a queue's hooks: the clock is confirmed, so a record at most
		 * AN_CLOCK_AHEAD_NS after the batch's start is never set aside (an_core.c clock_set_aside) */
		if (!(r->valid & (HW_V_QUEUE | HW_V_HOP_LATENCY | HW_V_DROP | HW_V_PORTS)) ||
		    r->time_ns > sh->now0 + AN_CLOCK_AHEAD_NS)
			continue;
		uint32_t qi =
		    0; /* the queue table as the core's queue_of probes it, read only: nothing adds to it now */
		for (uint32_t j = 0; j <= a->qmask; j++) {
			const uint32_t v = a->qslots[(h + j) & a->qmask];
			if (!v)
				break;
			const struct an_queue *q = &a->queues[v - 1];
			if (q->node_id == r->node_id && q->port == port && q->queue == an_record_queue(r)) {
				qi = v;
				break;
			}
		}
		if (!qi)
			continue; /* a new queue: the core makes it, and runs its hooks this batch */
		out->qi = qi;
		const uint32_t x = qi - 1;
		if (gone[x] == epoch)
			continue;
		const struct an_queue *q = &a->queues[x];
		unsigned char *qs = a->qstate + (size_t)x * a->qstride;
		const uint64_t last = seen[x] == epoch ? last_ns[x] : q->last_ns;
		seen[x] = epoch;
		last_ns[x] = r->time_ns;
		if (m > last && m - last >= sh->quiet) { /* a tick since its last record may end an episode */
			int active = 0;
			for (unsigned j = 0; j < sh->n_local; j++)
				active |= ((const struct an_hyst *)(qs + sh->local[j]->qoff + sh->local[j]->active_off))
				              ->active;
			if (active) {
				gone[x] = epoch;
				continue;
			}
		}
		struct hw_record scaled;
		if (q->t_scale != 1 || q->occ_scale != 1) {
			scaled = *r;
			an_to_ns_bytes(&scaled, q);
			r = &scaled;
		}
		unsigned done = 0;
		while (done < sh->n_local) {
			const struct an_rec_hook *k = sh->local[done++];
			const int st = k->local(a, q, qs + k->qoff, r);
			if (st) { /* the rest is the core's: the flag as it was until then, the queue the core's */
				((struct an_hyst *)(qs + k->qoff + k->active_off))->active = st < 0;
				out->st = (int8_t)st;
				gone[x] = epoch;
				break;
			}
		}
		out->done = (uint8_t)done;
	}
}

struct shard_arg {
	struct an_shards *sh;
	unsigned s;
};

static void *shard_main(void *arg)
{
	struct an_shards *sh = ((struct shard_arg *)arg)->sh;
	const unsigned s = ((struct shard_arg *)arg)->s;
	free(arg);
	pthread_setname_np(pthread_self(), "an-shard");
	uint64_t gen = 0;
	for (;;) {
		pthread_mutex_lock(&sh->mu);
		while (sh->gen == gen && !sh->stop)
			pthread_cond_wait(&sh->go, &sh->mu);
		if (sh->stop) {
			pthread_mutex_unlock(&sh->mu);
			return NULL;
		}
		gen = sh->gen;
		pthread_mutex_unlock(&sh->mu);
		shard_steps(sh, s);
		pthread_mutex_lock(&sh->mu);
		if (!--sh->busy)
			pthread_cond_signal(&sh->done);
		pthread_mutex_unlock(&sh->mu);
	}
}

void an_shards_run(struct hw_analyzer *a, const struct hw_record *r, size_t n, struct an_shard_res *res)
{
	struct an_shards *sh = a->shards;
	pthread_mutex_lock(&sh->mu);
	sh->r = r;
	sh->n_rec = n;
	sh->res = res;
	sh->now0 = a->now;
	if (++sh->epoch == 0) /* after 2^32 batches: the marks start over */
		sh->epoch = 1;
	sh->busy = sh->n - 1;
	sh->gen++;
	pthread_cond_broadcast(&sh->go);
	pthread_mutex_unlock(&sh->mu);
	shard_steps(sh, 0);
	pthread_mutex_lock(&sh->mu);
	while (sh->busy)
		pthread_cond_wait(&sh->done, &sh->mu);
	pthread_mutex_unlock(&sh->mu);
}

void an_shards_destroy(struct an_shards *sh)
{
	if (!sh)
		return;
	pthread_mutex_lock(&sh->mu);
	sh->stop = 1;
	pthread_cond_broadcast(&sh->go);
	pthread_mutex_unlock(&sh->mu);
	for (unsigned i = 1; i < sh->started; i++)
		pthread_join(sh->th[i], NULL);
	pthread_cond_destroy(&sh->go);
	pthread_cond_destroy(&sh->done);
	pthread_mutex_destroy(&sh->mu);
	free(sh->gone);
	free(sh->seen);
	free(sh->last);
	free(sh);
}

int hw_an_shards(struct hw_analyzer *a, unsigned n, char *err, size_t errlen)
{
	if (n < 1 || n > AN_MAX_SHARDS) {
		snprintf(err, errlen, "analyzer: %u shards: 1 to %u", n, AN_MAX_SHARDS);
		return -1;
	}
	if (a->shards || n == 1)
		return 0;
	uint64_t quiet = UINT64_MAX;
	unsigned n_local = 0;
	for (struct an_rec_hook *k = a->rec, *const end = k + a->n_rec; k < end; k++) {
		const struct an_detector *def = k->d->def;
		if (!def->record_local || !def->record_shared || !def->quiet_ns || !def->has_episode ||
		    n_local == AN_MAX_LOCAL)
			continue;
		n_local++;
		k->local = def->record_local;
		k->shared = def->record_shared;
		if (def->quiet_ns(&a->c) < quiet)
			quiet = def->quiet_ns(&a->c);
	}
	if (quiet == UINT64_MAX)
		return 0; /* no enabled detector is sharded: one thread does the same */
	struct an_shards *sh = calloc(1, sizeof(*sh));
	const size_t nq = a->c.max_queues ? a->c.max_queues : 1;
	if (!sh || !(sh->gone = calloc(n * nq, sizeof(*sh->gone))) || !(sh->seen = calloc(n * nq, sizeof(*sh->seen))) ||
	    !(sh->last = calloc(n * nq, sizeof(*sh->last))) ||
	    !(a->shres = calloc(AN_SHARD_BATCH, sizeof(*a->shres)))) {
		if (sh) {
			free(sh->gone);
			free(sh->seen);
			free(sh->last);
		}
		free(sh);
		snprintf(err, errlen, "analyzer: out of memory for %u shards of %zu queues", n, nq);
		return -1;
	}
	sh->a = a;
	sh->n = n;
	sh->nq = nq;
	sh->quiet = quiet;
	for (const struct an_rec_hook *k = a->rec, *const end = k + a->n_rec; k < end; k++)
		if (k->local)
			sh->local[sh->n_local++] = k;
	sh->started = 1;
	pthread_mutex_init(&sh->mu, NULL);
	pthread_cond_init(&sh->go, NULL);
	pthread_cond_init(&sh->done, NULL);
	a->shards = sh;
	sigset_t all, old; /* signals go to the threads that ask for them, never to these */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 1; i < n; i++) {
		struct shard_arg *arg = malloc(sizeof(*arg));
		if (arg)
			*arg = (struct shard_arg){sh, i};
		if (!arg || pthread_create(&sh->th[i], NULL, shard_main, arg)) {
			free(arg);
			break;
		}
		sh->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (sh->started < n) {
		snprintf(err, errlen, "analyzer: cannot start the thread of shard %u of %u", sh->started, n);
		an_shards_destroy(sh);
		a->shards = NULL;
		for (struct an_rec_hook *k = a->rec, *const end = k + a->n_rec; k < end; k++)
			k->local = NULL;
		return -1;
	}
	return 0;
}
