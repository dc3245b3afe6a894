/* Whose traffic (run --pods / --ident-map): the flows seen (flow hash -> sender, receiver, RoCE QP), each event's
 * sender and receiver jobs through the identity map (lib/ident), its reload (as records come and on the outputs'
 * ticks, so also while no record comes), its summary. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "an_attr.h"
#include "clock.h"

#define FLOW_SLOTS (1u << 16) /* flows remembered: open addressing, FLOW_PROBE slots tried from the hash's */
#define FLOW_PROBE 16u        /* ... and when all of them are taken, a new flow takes the first one's place */
#define RELOAD_S 0.25         /* the sources are checked this often (monotonic clock): a watched change shows at once */

struct flow {
	uint64_t hash;
	uint8_t src[16], dst[16];
	uint32_t qp; /* RoCE destination QP, UINT32_MAX = none */
	uint8_t used;
};

struct an_attr {
	struct an_output out;
	struct hw_ident *id;
	struct flow *flows;
	double next_reload;
	uint64_t flows_seen, senders_unknown, receivers_unknown, events;
	const char *prog;                               /* for log lines */
	const struct hw_analyzer *a;                    /* an_attr_bind: the per-job latency matrices */
	char jobs[HW_AN_LAT_GROUPS][HW_IDENT_NAME_MAX]; /* the latency groups: jobs in order of first report */
	unsigned n_jobs;
	uint64_t jobs_full; /* reports of jobs beyond HW_AN_LAT_GROUPS, in no job's matrix */
};

/* The slot of flow hash (f->used && f->hash == hash) when it is known, else NULL. */
static struct flow *find(const struct an_attr *t, uint64_t hash)
{
	uint32_t at = (uint32_t)(hash ^ (hash >> 29));
	for (uint32_t k = 0; k < FLOW_PROBE; k++) {
		struct flow *f = &t->flows[(at + k) & (FLOW_SLOTS - 1)];
		if (!f->used)
			return NULL;
		if (f->hash == hash)
			return f;
	}
	return NULL;
}

/* A slot for a flow not known: the first free one of its probe, else the probe's first. */
static struct flow *place(struct an_attr *t, uint64_t hash)
{
	uint32_t at = (uint32_t)(hash ^ (hash >> 29));
	for (uint32_t k = 0; k < FLOW_PROBE; k++) {
		struct flow *f = &t->flows[(at + k) & (FLOW_SLOTS - 1)];
		if (!f->used)
			return f;
	}
	return &t->flows[at & (FLOW_SLOTS - 1)];
}

static void reload(struct an_attr *t)
{
	double now = hw_mono_s();
	if (now < t->next_reload)
		return;
	t->next_reload = now + RELOAD_S;
	char err[1024];
	if (hw_ident_reload(t->id, err, sizeof(err)) > 0) {
		struct hw_ident_stats st;
		hw_ident_stats(t->id, &st);
		fprintf(stderr, "%s: %s; keeping the last good identity mapping (%" PRIu32 " entries)\n", t->prog, err,
		        st.entries);
	}
}

void an_attr_learn(struct an_output *o, const struct hw_record *r, size_t n)
{
	struct an_attr *t = (struct an_attr *)o;
	if (!t)
		return;
	reload(t);
	for (size_t i = 0; i < n; i++) {
		if (!(r[i].valid & HW_V_FLOW))
			continue;
		if (find(t, r[i].flow_hash))
			continue;
		struct flow *f = place(t, r[i].flow_hash);
		f->used = 1;
		f->hash = r[i].flow_hash;
		memcpy(f->src, r[i].src_ip, 16);
		memcpy(f->dst, r[i].dst_ip, 16);
		f->qp = (r[i].valid & HW_V_ROCE) ? r[i].roce_dest_qp : UINT32_MAX;
		t->flows_seen++;
		const struct hw_ident_entry *s = hw_ident_lookup(t->id, f->src, UINT32_MAX),
		                            *d = hw_ident_lookup(t->id, f->dst, f->qp);
		t->senders_unknown += !s || !s->job[0];
		t->receivers_unknown += !d || !d->job[0];
	}
}

/* Add job to the sorted comma-separated set list (size bytes); a job that does not fit is left out. */
static void add_job(char *list, size_t size, const char *job)
{
	size_t len = strlen(list), jl = strlen(job);
	char *p = list;
	while (*p) {
		char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		int cmp = strncmp(p, job, n < jl ? n : jl);
		if (!cmp && n == jl)
			return; /* there */
		if (cmp > 0 || (!cmp && n > jl))
			break; /* job goes before p */
		p += n + (c != NULL);
	}
	size_t need = jl + (len ? 1 : 0);
	if (len + need + 1 > size)
		return;
	size_t at = (size_t)(p - list);
	if (at == len && len) { /* last: ",job" */
		list[len] = ',';
		memcpy(list + len + 1, job, jl + 1);
		return;
	}
	memmove(list + at + need, list + at, len - at + 1);
	memcpy(list + at, job, jl);
	if (len)
		list[at + jl] = ',';
}

void an_attr_event(struct an_output *o, struct hw_an_event *e)
{
	struct an_attr *t = (struct an_attr *)o;
	if (!t)
		return;
	t->events++;
	e->attributed = 1;
	e->unattributed_flows = 0;
	e->sender_jobs[0] = e->receiver_jobs[0] = 0;
	for (unsigned i = 0; i < e->n_flows; i++) {
		const struct flow *f = find(t, e->flows[i]);
		const struct hw_ident_entry *s = NULL, *d = NULL;
		if (f) {
			s = hw_ident_lookup(t->id, f->src, UINT32_MAX);
			d = hw_ident_lookup(t->id, f->dst, f->qp);
		}
		if (s && s->job[0])
			add_job(e->sender_jobs, sizeof(e->sender_jobs), s->job);
		if (d && d->job[0])
			add_job(e->receiver_jobs, sizeof(e->receiver_jobs), d->job);
		e->unattributed_flows += !s || !s->job[0] || !d || !d->job[0];
	}
}

void an_attr_stats(const struct an_output *o, struct an_attr_stats *s)
{
	const struct an_attr *t = (const struct an_attr *)o;
	hw_ident_stats(t->id, &s->id);
	s->flows = t->flows_seen;
	s->senders_unknown = t->senders_unknown;
	s->receivers_unknown = t->receivers_unknown;
}

/* A report's latency group: its sender's job (hw_an_group_fn). */
static int job_group(void *ctx, uint64_t hash)
{
	struct an_attr *t = ctx;
	const struct flow *f = find(t, hash);
	const struct hw_ident_entry *s = f ? hw_ident_lookup(t->id, f->src, UINT32_MAX) : NULL;
	if (!s || !s->job[0])
		return -1;
	for (unsigned g = 0; g < t->n_jobs; g++)
		if (!strcmp(t->jobs[g], s->job))
			return (int)g;
	if (t->n_jobs == HW_AN_LAT_GROUPS) {
		t->jobs_full++;
		return -1;
	}
	memcpy(t->jobs[t->n_jobs], s->job, sizeof(t->jobs[0]));
	return (int)t->n_jobs++;
}

void an_attr_bind(struct an_output *o, struct hw_analyzer *a)
{
	struct an_attr *t = (struct an_attr *)o;
	if (!t)
		return;
	t->a = a;
	hw_an_latency_groups(a, job_group, t);
}

unsigned an_attr_jobs(const struct an_output *o, const char **names, unsigned max)
{
	const struct an_attr *t = (const struct an_attr *)o;
	unsigned n = 0;
	for (; t && n < t->n_jobs && n < max; n++)
		names[n] = t->jobs[n];
	return n;
}

static void summary(struct an_output *o, FILE *f)
{
	struct an_attr *t = (struct an_attr *)o;
	struct hw_ident_stats st;
	hw_ident_stats(t->id, &st);
	fprintf(f,
	        ",\"identity\":{\"sources\":%" PRIu32 ",\"entries\":%" PRIu32 ",\"stale_sources\":%" PRIu32
	        ",\"loads\":%" PRIu64 ",\"load_errors\":%" PRIu64 ",\"flows\":%" PRIu64
	        ",\"flows_sender_unknown\":%" PRIu64 ",\"flows_receiver_unknown\":%" PRIu64
	        ",\"events_attributed\":%" PRIu64 ",\"k8s_lists\":%" PRIu64 ",\"k8s_watch_events\":%" PRIu64 "}",
	        st.sources, st.entries, st.stale, st.loads, st.load_errors, t->flows_seen, t->senders_unknown,
	        t->receivers_unknown, t->events, st.k8s_lists, st.k8s_events);
	if (!t->a)
		return;
	fprintf(f, ",\"job_latency\":{\"jobs_full_reports\":%" PRIu64 ",\"jobs\":{", t->jobs_full);
	for (unsigned g = 0; g < t->n_jobs; g++) {
		const struct hw_an_latmatrix *m = hw_an_latency_group(t->a, g);
		char *js = m ? hw_an_lat_json(m, 16) : NULL;
		fprintf(f, "%s\"%s\":%s", g ? "," : "", t->jobs[g], js ? js : "null"); /* job names need no escaping */
		free(js);
	}
	fprintf(f, "}}");
}

static void close_attr(struct an_output *o)
{
	struct an_attr *t = (struct an_attr *)o;
	hw_ident_destroy(t->id);
	free(t->flows);
	free(t);
}

/* The outputs tick after every turn of the input loop, also a live source's quiet ones, and while --hold keeps the
 * run up: the sources are checked then too, so /metrics and the log follow them while no record comes. */
static void tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	(void)a;
	if (t->kind != AN_TICK_EXIT)
		reload((struct an_attr *)o);
}

static const struct an_output_ops ops = {.tick = tick, .summary = summary, .close = close_attr};

struct an_output *an_out_attr(struct hw_ident *id, const char *prog, char *err, size_t errlen)
{
	struct an_attr *t = calloc(1, sizeof(*t));
	if (!t || !(t->flows = calloc(FLOW_SLOTS, sizeof(*t->flows)))) {
		free(t);
		hw_ident_destroy(id);
		snprintf(err, errlen, "identity map: out of memory");
		return NULL;
	}
	t->out.ops = &ops;
	t->id = id;
	t->prog = prog;
	t->next_reload = hw_mono_s() + RELOAD_S;
	return &t->out;
}
