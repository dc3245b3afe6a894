/* Sharded detectors (hw_an_shards, `run --threads N`): the per-queue steps of the detectors that offer one
 * (detector.h record_local) run on N - 1 threads of their own, each on its switches' queues, ahead of the core. */
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector.h"

#define AN_MAX_SHARDS 8    /* threads in all (hw_an_shards' n): shard threads one fewer */
#define AN_MAX_LOCAL 8     /* sharded record hooks: done counts them in a byte */
#define AN_MAX_QSTATE 1024 /* a sharded detector's per-queue state, at most (its copy is on the stack) */

struct an_shards {
	struct hw_analyzer *a;
	unsigned n; /* shard threads */
	pthread_t th[AN_MAX_SHARDS];
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint64_t gen; /* batches handed out; each thread runs each once */
	int stop;
	unsigned started;             /* threads running: th[0 .. started) */
	unsigned subs[AN_MAX_SHARDS]; /* each thread's sub-batches of the current batch done */
	const struct hw_record *r;    /* the current batch */
	size_t n_rec;
	struct an_shard_res *res;
	uint64_t now0;  /* record time when it began */
	uint32_t n0;    /* queues when it began: the shards touch no queue made since */
	uint32_t epoch; /* the batch's number, from 1: gone and seen are of the batch when equal */
	size_t nq;      /* queues (limits.max_queues): each shard's arrays below are nq apart */
	uint32_t *gone; /* per shard and queue: the epoch it was handed back to the core in */
	uint32_t *seen; /* per shard and queue: the epoch of last[] */
	uint64_t *last; /* per shard and queue: its newest record's time in the batch */
	uint8_t *known; /* per shard and queue: 1 + its episodes' active bits (0: unknown) */
	uint64_t quiet; /* the least quiet_ns of the sharded hooks */
	const struct an_rec_hook *local[AN_MAX_LOCAL]; /* the sharded hooks, in the order of a->rec */
	unsigned n_local;
};

/* The shard of a node's queues: all of a switch's queues on one shard, so that a shard skips another's records
 * by their node alone. */
static inline unsigned an_shard_of(uint32_t node_id, unsigned n)
{
	return ((node_id * 2654435761u) >> 16) % n;
}

/* The episodes' active flags of queue state qs, one bit per sharded hook. */
static unsigned active_bits(const struct an_shards *sh, const unsigned char *qs)
{
	unsigned bits = 0;
	for (unsigned j = 0; j < sh->n_local && j < AN_MAX_LOCAL; j++) /* n_local <= AN_MAX_LOCAL: said for GCC */
		bits |=
		    (unsigned)((const struct an_hyst *)(qs + sh->local[j]->qoff + sh->local[j]->episode_off))->active
		    << j;
	return bits;
}

/* The step of hook k on a copy of the queue's state; kept (1) when it changed no episode, else dropped (0): the
 * core then runs the hook whole on the state as it was.  Kept, the copy goes back but for the episode's id and
 * active flag, which the core reads meanwhile (an_episode) and which a step that changed nothing left alone. */
static int step(const struct an_rec_hook *k, const struct hw_analyzer *a, const struct an_queue *q, unsigned char *qs,
                const struct hw_record *r)
{
	unsigned char copy[AN_MAX_QSTATE];
	const size_t size = k->d->def->queue_size;
	memcpy(copy, qs, size);
	if (k->local(a, q, copy, r))
		return 0;
	_Static_assert(offsetof(struct an_hyst, active) < offsetof(struct an_hyst, id),
	               "struct an_hyst: active, then id");
	const size_t act = k->episode_off + offsetof(struct an_hyst, active);
	const size_t id = k->episode_off + offsetof(struct an_hyst, id), id_end = id + sizeof(uint64_t);
	memcpy(qs, copy, act);
	memcpy(qs + act + 1, copy + act + 1, id - act - 1);
	memcpy(qs + id_end, copy + id_end, size - id_end);
	return 1;
}

/* Shard s's steps of the records [from, to) of the batch, in record order: the records of its queues that the
 * core will analyse.  Ahead of the core, which finishes each sub-batch after the shards and reads meanwhile only
 * the episodes' active flags and ids, which a shard never writes.  A queue goes to the core for the rest of the
 * batch (gone) at its first record whose step would raise or resolve, and before a record when a tick since
 * the queue's previous record may have ended its episode (the core runs ticks in record order); its step's state
 * goes to the core as it was before that record. */
static void shard_steps(struct an_shards *sh, unsigned s, size_t from, size_t to, uint64_t *m)
{
	const struct hw_analyzer *a = sh->a;
	const struct hw_record *const rec = sh->r;
	const uint32_t epoch = sh->epoch, n0 = sh->n0;
	uint32_t *const gone = sh->gone + s * sh->nq, *const seen = sh->seen + s * sh->nq;
	uint64_t *const last_ns = sh->last + s * sh->nq;
	uint8_t *const known = sh->known + s * sh->nq;
	for (size_t i = from; i < to; i++) {
		const struct hw_record *r = &rec[i];
		if (r->time_ns > *m) /* the most record time can be at record i (every record counted: more) */
			*m = r->time_ns;
		if (an_shard_of(r->node_id, sh->n) != s)
			continue;
		struct an_shard_res *out = &sh->res[i];
		*out = (struct an_shard_res){0, 0, 0};
		if (!(r->valid & (HW_V_QUEUE | HW_V_HOP_LATENCY | HW_V_DROP | HW_V_PORTS)))
			continue; /* the core takes it to no queue */
		const uint32_t port = an_record_port(r);
		const uint8_t queue = an_record_queue(r);
		uint32_t empty; /* the queue table as the core's queue_of probes it; the core may add to it meanwhile */
		const uint32_t qi =
		    an_queue_find(a, an_queue_hash(r->node_id, port, queue), r->node_id, port, queue, n0, &empty);
		if (!qi)
			continue; /* a new queue: the core makes it and runs its hooks */
		out->qi = qi;
		const uint32_t x = qi - 1;
		if (gone[x] == epoch)
			continue;
		/* a record the core may analyse with its clock at most AN_CLOCK_AHEAD_NS behind (an_core.c
		 * clock_set_aside): the clock is confirmed, so any record up to then after the batch's start */
		if (r->time_ns > sh->now0 + AN_CLOCK_AHEAD_NS) {
			gone[x] = epoch;
			known[x] = 0;
			out->st = 1;
			continue;
		}
		const struct an_queue *q = &a->queues[x];
		unsigned char *qs = a->qstate + (size_t)x * a->qstride;
		/* q's last record before this one: the core's last_ns when this batch has none of q before (every
		 * record of q the core analyses in the batch is one of these, so the core is not writing it now) */
		const uint64_t last = seen[x] == epoch ? last_ns[x] : q->last_ns;
		seen[x] = epoch;
		last_ns[x] = r->time_ns;
		const int silent = *m > last && *m - last >= sh->quiet;
		/* Its episodes: known from the shard's last look unless the core ran q's hooks since (gone).  A tick
		 * changes a sharded episode only when it is active and q silent; so unknown and silent: the core's;
		 * unknown and not silent: no tick before this record touched q, the flags are read as they are. */
		if (silent && (!known[x] || known[x] > 1)) {
			gone[x] = epoch;
			known[x] = 0;
			out->st = 1;
			continue;
		}
		if (!known[x])
			known[x] = (uint8_t)(1 + active_bits(sh, qs));
		struct hw_record scaled;
		if (q->t_scale != 1 || q->occ_scale != 1) {
			scaled = *r;
			an_to_ns_bytes(&scaled, q);
			r = &scaled;
		}
		unsigned done = 0;
		while (done < sh->n_local && step(sh->local[done], a, q, qs + sh->local[done]->qoff, r))
			done++;
		out->done = (uint8_t)done;
		if (done < sh->n_local) { /* a raise or resolve: q is the core's from this record */
			gone[x] = epoch;
			known[x] = 0;
			out->st = 1;
		}
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
		const size_t n = sh->n_rec;
		pthread_mutex_unlock(&sh->mu);
		uint64_t m = sh->now0;
		for (size_t from = 0, sub = 1; from < n; from += AN_SHARD_SUB, sub++) {
			shard_steps(sh, s, from, from + AN_SHARD_SUB < n ? from + AN_SHARD_SUB : n, &m);
			pthread_mutex_lock(&sh->mu);
			sh->subs[s] = (unsigned)sub;
			pthread_cond_signal(&sh->done);
			pthread_mutex_unlock(&sh->mu);
		}
	}
}

void an_shards_begin(struct hw_analyzer *a, const struct hw_record *r, size_t n, struct an_shard_res *res)
{
	struct an_shards *sh = a->shards;
	pthread_mutex_lock(&sh->mu);
	sh->r = r;
	sh->n_rec = n;
	sh->res = res;
	sh->now0 = a->now;
	sh->n0 = a->n_queues;
	if (++sh->epoch == 0) /* after 2^32 batches: the marks start over */
		sh->epoch = 1;
	for (unsigned s = 0; s < sh->n; s++)
		sh->subs[s] = 0;
	sh->gen++;
	pthread_cond_broadcast(&sh->go);
	pthread_mutex_unlock(&sh->mu);
}

void an_shards_wait(struct hw_analyzer *a, unsigned sub)
{
	struct an_shards *sh = a->shards;
	pthread_mutex_lock(&sh->mu);
	for (unsigned s = 0; s < sh->n; s++)
		while (sh->subs[s] < sub)
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
	for (unsigned i = 0; i < sh->started; i++)
		pthread_join(sh->th[i], NULL);
	pthread_cond_destroy(&sh->go);
	pthread_cond_destroy(&sh->done);
	pthread_mutex_destroy(&sh->mu);
	free(sh->gone);
	free(sh->seen);
	free(sh->last);
	free(sh->known);
	free(sh);
}

/* Back to one thread: no hook is sharded. */
static void unshard(struct hw_analyzer *a)
{
	for (struct an_rec_hook *k = a->rec, *const end = k + a->n_rec; k < end; k++)
		k->local = NULL;
}

int hw_an_shards(struct hw_analyzer *a, unsigned n, char *err, size_t errlen)
{
	if (n < 1 || n > AN_MAX_SHARDS) {
		snprintf(err, errlen, "analyzer: %u threads: 1 to %u", n, AN_MAX_SHARDS);
		return -1;
	}
	if (a->shards || n == 1)
		return 0;
	uint64_t quiet = UINT64_MAX;
	unsigned n_local = 0;
	for (struct an_rec_hook *k = a->rec, *const end = k + a->n_rec; k < end; k++) {
		const struct an_detector *def = k->d->def;
		if (!def->record_local || !def->quiet_ns || !def->has_episode || def->queue_size > AN_MAX_QSTATE ||
		    n_local == AN_MAX_LOCAL)
			continue;
		n_local++;
		k->local = def->record_local;
		if (def->quiet_ns(&a->c) < quiet)
			quiet = def->quiet_ns(&a->c);
	}
	if (quiet == UINT64_MAX)
		return 0; /* no enabled detector is sharded: one thread does the same */
	const unsigned shards = n - 1;
	const size_t nq = a->c.max_queues ? a->c.max_queues : 1;
	struct an_shards *sh = calloc(1, sizeof(*sh));
	if (!sh) {
		unshard(a);
		snprintf(err, errlen, "analyzer: out of memory for %u shards", shards);
		return -1;
	}
	pthread_mutex_init(&sh->mu, NULL);
	pthread_cond_init(&sh->go, NULL);
	pthread_cond_init(&sh->done, NULL);
	sh->a = a;
	sh->n = shards;
	sh->nq = nq;
	sh->quiet = quiet;
	for (const struct an_rec_hook *k = a->rec, *const end = k + a->n_rec; k < end; k++)
		if (k->local)
			sh->local[sh->n_local++] = k;
	if (!(sh->gone = calloc(shards * nq, sizeof(*sh->gone))) ||
	    !(sh->seen = calloc(shards * nq, sizeof(*sh->seen))) ||
	    !(sh->last = calloc(shards * nq, sizeof(*sh->last))) ||
	    !(sh->known = calloc(shards * nq, sizeof(*sh->known))) ||
	    !(a->shres = calloc(AN_SHARD_BATCH, sizeof(*a->shres)))) {
		an_shards_destroy(sh);
		unshard(a);
		snprintf(err, errlen, "analyzer: out of memory for %u shards of %zu queues", shards, nq);
		return -1;
	}
	sigset_t all, old; /* signals go to the threads that ask for them, never to these */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 0; i < shards; i++) {
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
	if (sh->started < shards) {
		snprintf(err, errlen, "analyzer: cannot start shard thread %u of %u", sh->started + 1, shards);
		an_shards_destroy(sh);
		unshard(a);
		return -1;
	}
	a->shards = sh;
	return 0;
}
