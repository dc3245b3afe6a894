/* The ClickHouse sink: a queue of record chunks filled by the collector's sink thread and drained
 * by a sender thread that POSTs RowBinary inserts over HTTP to one of a shard's replicas, failing over
 * to the next replica when an insert fails and retrying with backoff when all of them failed. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clickhouse_sink.h"
#include "http_client.h"
#include "log.h"
#include "service.h"
#include "sinks_internal.h"

struct chunk {
	struct chunk *next;
	uint32_t n;
	bool taken;         /* the sender is inserting it: no more records go in */
	uint64_t first_ns;  /* monotonic time of its first record */
	uint16_t first_pos; /* report_pos of its first record */
	struct hw_record recs[];
};

/* One replica: its insert handle and its down and back lines. */
struct replica {
	char shown[512];      /* its URL with the password hidden, for messages */
	struct hw_http *http; /* to its insert URL */
	struct hw_peer_log peer;
};

struct hw_ch_sink {
	struct hw_ch_sink_opts o;
	struct replica rep[HW_CH_URLS_MAX];
	unsigned n_rep;
	unsigned cur;         /* the replica inserts go to now (sender thread) */
	uint64_t failback_ns; /* when cur != 0: monotonic time to try replica 0 again */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_cond_t room; /* signalled when the sender frees a chunk (lossless put waits on it) */
	struct chunk *head, *tail;
	uint64_t queued; /* records in chunks, under mu */
	bool closing;
	uint64_t drain_end;    /* monotonic ns: once closing, delivery stops here (set by close, read atomically) */
	struct hw_record last; /* the last record put, and its report_pos (under mu) */
	uint16_t last_pos;
	struct hw_ch_sink_counts cnt; /* written with atomics */
	uint8_t *body;
};

#define ADD(x, v) __atomic_add_fetch(&(x), (v), __ATOMIC_RELAXED)
#define GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

/* One insert of a chunk into replica s->cur.  The body is the same bytes on every attempt, whichever
 * replica gets it, so that ReplicatedMergeTree's block deduplication stores a batch once even when a
 * replica stored it and died before answering.  true when ClickHouse acknowledged it with 200. */
static bool insert(struct hw_ch_sink *s, const struct chunk *c, char *why, size_t whylen)
{
	struct replica *p = &s->rep[s->cur];
	size_t len = hw_ch_rowbinary(c->recs, c->n, c->first_pos, s->body);
	struct hw_http_reply r;
	int rc = hw_http_post(p->http, s->body, len, &r);
	if (!rc && r.status == 200) {
		hw_peer_ok(&p->peer);
		return true;
	}
	/* the reply's first line: ClickHouse's error */
	snprintf(why, whylen, "insert into %s failed (%s): %.*s", s->o.table, rc ? "no answer" : "HTTP error",
	         (int)(rc ? strlen(r.what) : strcspn(r.body, "\n")), rc ? r.what : r.body);
	hw_peer_failed(&p->peer, 1, why);
	return false;
}

/* The insert under way is given up once closing and past the drain deadline: a ClickHouse that accepts and
 * never answers kept the collector past its stop timeout (issue 22 item 11). */
static int past_drain(void *arg)
{
	const struct hw_ch_sink *s = arg;
	uint64_t end = __atomic_load_n(&s->drain_end, __ATOMIC_ACQUIRE);
	return end && hw_mono_ns() >= end;
}

/* After a failed insert: the next replica, told on stderr while it is not known to be down (when all
 * are down, their down lines say so once each).  Sender thread. */
static void fail_over(struct hw_ch_sink *s, const char *why)
{
	if (s->n_rep < 2)
		return;
	unsigned from = s->cur;
	s->cur = (s->cur + 1) % s->n_rep;
	ADD(s->cnt.failovers, 1);
	s->failback_ns = s->cur ? hw_mono_ns() + (uint64_t)(s->o.failback_s * 1e9) : 0;
	if (!hw_peer_down_name(&s->rep[s->cur].peer))
		fprintf(stderr, "%s%s: clickhouse %.180s: %s; failing over to %.180s\n", hw_service_log_prefix(4),
		        program_invocation_short_name, s->rep[from].shown, why, s->rep[s->cur].shown);
}

/* The head chunk when it is due (full, old enough, or closing), else NULL.  Under mu. */
static struct chunk *due(struct hw_ch_sink *s, uint64_t now)
{
	struct chunk *c = s->head;
	if (!c || !c->n)
		return NULL;
	if (c->taken || c->n >= s->o.batch_records || s->closing ||
	    now - c->first_ns >= (uint64_t)s->o.batch_ms * 1000000ull)
		return c;
	return NULL;
}

static void wait_until(struct hw_ch_sink *s, uint64_t mono_ns)
{
	/* the condition variable uses CLOCK_MONOTONIC (see open) */
	struct timespec ts = hw_ns_timespec(mono_ns);
	pthread_cond_timedwait(&s->cv, &s->mu, &ts);
}

static void *sender_main(void *arg)
{
	struct hw_ch_sink *s = arg;
	uint64_t backoff_ms = 0, drain_end = 0;
	unsigned failed = 0; /* inserts failed in a row */
	pthread_mutex_lock(&s->mu);
	for (;;) {
		uint64_t now = hw_mono_ns();
		if (s->closing && !drain_end)
			drain_end = s->drain_end;
		if (s->closing && (!s->head || !s->head->n || now >= drain_end))
			break;
		struct chunk *c = due(s, now);
		if (!c) {
			uint64_t until = now + 100000000ull;
			if (s->head && s->head->n) {
				uint64_t d = s->head->first_ns + (uint64_t)s->o.batch_ms * 1000000ull;
				if (d < until)
					until = d;
			}
			wait_until(s, until);
			continue;
		}
		c->taken = true;
		pthread_mutex_unlock(&s->mu);
		/* back to the order given, the first replica again: with a batch not yet tried (one that failed
		 * goes round the replicas first) */
		if (s->cur && !failed && now >= s->failback_ns)
			s->cur = 0;
		char why[400];
		bool ok = insert(s, c, why, sizeof(why));
		if (!ok)
			fail_over(s, why);
		pthread_mutex_lock(&s->mu);
		if (ok) {
			s->head = c->next;
			if (!s->head)
				s->tail = NULL;
			s->queued -= c->n;
			ADD(s->cnt.inserted, c->n);
			ADD(s->cnt.batches, 1);
			__atomic_store_n(&s->cnt.queued, s->queued, __ATOMIC_RELAXED);
			free(c);
			pthread_cond_broadcast(&s->room);
			backoff_ms = 0;
			failed = 0;
			continue;
		}
		ADD(s->cnt.retries, 1);
		if (++failed % s->n_rep)
			continue; /* the next replica at once: not all of them failed this round */
		backoff_ms = backoff_ms ? backoff_ms * 2 : 100;
		if (backoff_ms > 2000)
			backoff_ms = 2000;
		uint64_t until = hw_mono_ns() + backoff_ms * 1000000ull;
		if (s->closing && until > drain_end)
			until = drain_end;
		while (hw_mono_ns() < until) {
			wait_until(s, until);
			if (s->closing && !drain_end)
				break; /* close() arrived: recompute the deadline */
		}
	}
	/* whatever could not be delivered before the deadline is lost: count it */
	uint64_t left = 0;
	while (s->head) {
		struct chunk *c = s->head;
		s->head = c->next;
		left += c->n;
		free(c);
	}
	s->tail = NULL;
	s->queued = 0;
	ADD(s->cnt.dropped, left);
	__atomic_store_n(&s->cnt.queued, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&s->mu);
	if (left)
		fprintf(stderr, "hopwatch-collector: clickhouse %s%s: %llu queued records not delivered at exit\n",
		        s->rep[0].shown, s->n_rep > 1 ? " and its other replicas" : "", (unsigned long long)left);
	return NULL;
}

/* Wait up to 100 ms for the sender to free room.  Under mu; the sender is woken first so that a
 * partly filled chunk does not wait for its batch time. */
static void wait_room(struct hw_ch_sink *s)
{
	pthread_cond_signal(&s->cv);
	struct timespec ts = hw_ns_timespec(hw_mono_ns() + 100000000ull);
	pthread_cond_timedwait(&s->room, &s->mu, &ts);
}

void hw_ch_sink_put(struct hw_ch_sink *s, const struct hw_record *recs, uint32_t n)
{
	uint32_t done = 0;
	bool wake = false;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		if (s->queued >= s->o.queue_records && s->o.lossless_stop && !*s->o.lossless_stop) {
			wait_room(s);
			continue;
		}
		if (done >= n || s->queued >= s->o.queue_records)
			break;
		struct chunk *t = s->tail;
		if (!t || t->taken || t->n >= s->o.batch_records) {
			t = malloc(sizeof(*t) + (size_t)s->o.batch_records * sizeof(struct hw_record));
			if (!t)
				break;
			t->next = NULL;
			t->n = 0;
			t->taken = false;
			t->first_ns = hw_mono_ns();
			if (s->tail)
				s->tail->next = t;
			else
				s->head = t;
			s->tail = t;
		}
		uint64_t room = s->o.queue_records - s->queued;
		uint32_t k = s->o.batch_records - t->n;
		if (k > n - done)
			k = n - done;
		if (k > room)
			k = (uint32_t)room;
		if (!t->n)
			t->first_pos = hw_ch_report_pos(&s->last, s->last_pos, &recs[done]);
		for (uint32_t i = 0; i < k; i++) { /* report_pos of the chunk's next record */
			s->last_pos = hw_ch_report_pos(&s->last, s->last_pos, &recs[done + i]);
			s->last = recs[done + i];
		}
		memcpy(&t->recs[t->n], &recs[done], (size_t)k * sizeof(struct hw_record));
		t->n += k;
		s->queued += k;
		done += k;
		if (t->n >= s->o.batch_records)
			wake = true;
	}
	__atomic_store_n(&s->cnt.queued, s->queued, __ATOMIC_RELAXED);
	if (wake)
		pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (done < n)
		ADD(s->cnt.dropped, n - done);
}

const char *hw_ch_sink_down(const struct hw_ch_sink *s)
{
	for (unsigned i = 0; i < s->n_rep; i++)
		if (hw_peer_down_name(&s->rep[i].peer))
			return hw_peer_down_name(&s->rep[i].peer);
	return NULL;
}

void hw_ch_sink_counts(const struct hw_ch_sink *s, struct hw_ch_sink_counts *out)
{
	out->inserted = GET(s->cnt.inserted);
	out->dropped = GET(s->cnt.dropped);
	out->retries = GET(s->cnt.retries);
	out->queued = GET(s->cnt.queued);
	out->batches = GET(s->cnt.batches);
	out->failovers = GET(s->cnt.failovers);
}

static char *make_insert_url(const char *url, const char *table)
{
	char q[1024];
	snprintf(q, sizeof(q), "INSERT INTO %s (%s) FORMAT RowBinary", table, hw_ch_columns);
	char *esc = hw_http_escape(q);
	if (!esc)
		return NULL;
	size_t n = strlen(url) + strlen(esc) + 64;
	char *u = malloc(n);
	if (u)
		snprintf(u, n, "%s%s%swait_end_of_query=1&query=%s", url, strchr(url, '?') ? "" : "?",
		         strchr(url, '?') && url[strlen(url) - 1] != '?' && url[strlen(url) - 1] != '&' ? "&" : "",
		         esc);
	free(esc);
	return u;
}

static bool url_start(const char *u)
{
	return !strncmp(u, "http://", 7) || !strncmp(u, "https://", 8);
}

/* Split one option value into replica URLs: a comma starts the next URL only when an http:// or
 * https:// follows it (a comma inside a URL's query stays).  0, or -1 with a message in err. */
static int split_urls(const char *v, char out[][2048], unsigned *n, char *err, size_t errlen)
{
	while (v) {
		const char *e = v;
		while ((e = strchr(e, ',')) && !url_start(e + 1))
			e++;
		size_t len = e ? (size_t)(e - v) : strlen(v);
		if (*n >= HW_CH_URLS_MAX) {
			hw_errf(err, errlen, "clickhouse: more than %d replica URLs", HW_CH_URLS_MAX);
			return -1;
		}
		if (len >= 2048) {
			hw_errf(err, errlen, "clickhouse URL of %zu bytes: too long", len);
			return -1;
		}
		memcpy(out[*n], v, len);
		out[*n][len] = 0;
		if (!url_start(out[*n])) {
			char shown[512];
			hw_errf(err, errlen, "clickhouse URL '%s': expected http://HOST:PORT/[?database=DB]",
			        hw_http_redact(out[*n], shown, sizeof(shown)));
			return -1;
		}
		++*n;
		v = e ? e + 1 : NULL;
	}
	return 0;
}

static bool table_name_ok(const char *t)
{
	if (!*t)
		return false;
	for (const char *p = t; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '.'))
			return false;
	return true;
}

struct hw_ch_sink *hw_ch_sink_open(const struct hw_ch_sink_opts *o, char *err, size_t errlen)
{
	char urls[HW_CH_URLS_MAX][2048];
	unsigned n = 0;
	if (o->url && split_urls(o->url, urls, &n, err, errlen))
		return NULL;
	for (unsigned i = 0; i < o->n_urls; i++)
		if (split_urls(o->urls[i], urls, &n, err, errlen))
			return NULL;
	if (!n) {
		hw_errf(err, errlen, "clickhouse: no URL given");
		return NULL;
	}
	if (!table_name_ok(o->table)) {
		hw_errf(err, errlen, "clickhouse table '%s': expected [database.]table of letters, digits, _",
		        o->table);
		return NULL;
	}
	if (!o->batch_records || !o->queue_records || o->queue_records < o->batch_records) {
		hw_errf(err, errlen, "clickhouse: the queue (%u records) must hold at least one batch (%u records)",
		        o->queue_records, o->batch_records);
		return NULL;
	}
	struct hw_ch_sink *s = calloc(1, sizeof(*s));
	if (!s) {
		hw_errf(err, errlen, "out of memory");
		return NULL;
	}
	s->o = *o;
	if (!(s->o.failback_s > 0))
		s->o.failback_s = 30;
	const struct hw_http_opts ho = {.connect_timeout_ms = 2000,
	                                .timeout_ms = 30000,
	                                .content_type = "application/octet-stream",
	                                .body_max = 511,
	                                .abort = past_drain,
	                                .ctx = s};
	bool nomem = false;
	for (s->n_rep = 0; s->n_rep < n; s->n_rep++) {
		struct replica *p = &s->rep[s->n_rep];
		hw_http_redact(urls[s->n_rep], p->shown, sizeof(p->shown));
		char peer[sizeof(p->peer.peer)];
		snprintf(peer, sizeof(peer), "clickhouse %.180s", p->shown);
		hw_peer_log_init(&p->peer, peer, "insert");
		char *insert_url = make_insert_url(urls[s->n_rep], o->table);
		p->http = insert_url ? hw_http_open(insert_url, &ho, NULL, 0) : NULL;
		free(insert_url);
		nomem |= !p->http;
	}
	s->body = malloc((size_t)o->batch_records * HW_CH_ROW_MAX);
	if (nomem || !s->body) {
		hw_errf(err, errlen, "clickhouse: out of memory");
		goto fail;
	}
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_cond_init(&s->room, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->mu, NULL);
	if (pthread_create(&s->thread, NULL, sender_main, s)) {
		hw_errf(err, errlen, "clickhouse: cannot start the sender thread");
		pthread_cond_destroy(&s->cv);
		pthread_cond_destroy(&s->room);
		pthread_mutex_destroy(&s->mu);
		goto fail;
	}
	return s;
fail:
	for (unsigned i = 0; i < s->n_rep; i++)
		hw_http_close(s->rep[i].http);
	free(s->body);
	free(s);
	return NULL;
}

void hw_ch_sink_close(struct hw_ch_sink *s, struct hw_ch_sink_counts *out)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->closing = true;
	__atomic_store_n(&s->drain_end, hw_mono_ns() + (uint64_t)(s->o.drain_s * 1e9) + 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	if (out)
		hw_ch_sink_counts(s, out);
	for (unsigned i = 0; i < s->n_rep; i++)
		hw_http_close(s->rep[i].http);
	pthread_cond_destroy(&s->cv);
	pthread_cond_destroy(&s->room);
	pthread_mutex_destroy(&s->mu);
	free(s->body);
	free(s);
}
