/* The alert sink thread: a bounded hand-off ring from detection, a bounded table of alerts (firing or
 * resolved-but-unsent), and HTTP POSTs to Alertmanager API v2 or a JSON webhook, retried every second. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "hopwatch/alert_sink.h"
#include "http_client.h"
#include "json_writer.h"

/* An event as handed over, with the outputs' annotation. */
struct noted {
	struct hw_an_event e;
	char svg[256]; /* its graph's file (run --svg-dir), "" when none */
};

struct entry {
	struct hw_an_event e;
	char svg[256];
	uint64_t seq; /* hand-over order: a post lists its alerts in it */
	uint8_t used, dirty;
};

struct hw_alert_sink {
	enum hw_sink_kind kind;
	char url[512];
	uint32_t cap;
	uint64_t resend_ns;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv, done_cv;
	int stop;
	struct noted *ring; /* hand-off from detection */
	uint32_t head, n;
	struct entry *table; /* owned by the thread */
	uint32_t *order;     /* scratch for post() */
	uint64_t next_seq;
	uint32_t waiting; /* dirty entries after the last attempt (under mu for stats) */
	struct hw_alert_sink_stats st;
	struct hw_http *http;
	struct hw_json body; /* the POST body, its buffer kept between posts */
};

static void rfc3339(uint64_t ns, char *buf, size_t size)
{
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%09" PRIu64 "Z", (uint64_t)(ns % 1000000000ull));
}

/* A label or annotation: at most its first 255 bytes, escaped. */
static void put_label(struct hw_json *j, const char *k, const char *v)
{
	size_t n = strlen(v);
	hw_json_key(j, k);
	hw_json_strn(j, v, n < 255 ? n : 255);
}

/* One alert in Alertmanager's shape. */
static void am_alert(struct hw_json *j, const struct hw_an_event *e, const char *svg)
{
	char num[64], ts[48];
	hw_json_obj(j);
	hw_json_key(j, "labels");
	hw_json_obj(j);
	put_label(j, "alertname", e->alertname);
	put_label(j, "severity", e->severity);
	put_label(j, "job", "hopwatch-analyzer");
	if (e->node[0])
		put_label(j, "node", e->node);
	if (e->node_id) {
		snprintf(num, sizeof(num), "%" PRIu32, e->node_id);
		put_label(j, "node_id", num);
	}
	if (e->port != UINT32_MAX) {
		snprintf(num, sizeof(num), "%" PRIu32, e->port);
		put_label(j, "port", e->port_name[0] ? e->port_name : num);
	}
	if (e->queue >= 0) {
		snprintf(num, sizeof(num), "%d", e->queue);
		put_label(j, "queue", num);
	}
	if (e->hw_id >= 0) {
		snprintf(num, sizeof(num), "%d", e->hw_id);
		put_label(j, "hw_id", num);
	}
	if (e->link[0])
		put_label(j, "link", e->link);
	hw_json_obj_end(j);
	hw_json_key(j, "annotations");
	hw_json_obj(j);
	char summary[512];
	size_t so = (size_t)snprintf(summary, sizeof(summary), "%s", e->detail[0] ? e->detail : e->alertname);
	for (unsigned i = 0; i < e->n_numbers && so < sizeof(summary); i++)
		so += (size_t)snprintf(summary + so, sizeof(summary) - so, "%s%s=%g", i ? " " : ": ",
		                       e->numbers[i].name, e->numbers[i].value);
	put_label(j, "summary", summary);
	for (unsigned i = 0; i < e->n_numbers; i++) {
		snprintf(num, sizeof(num), "%.17g", e->numbers[i].value);
		put_label(j, e->numbers[i].name, num);
	}
	snprintf(num, sizeof(num), "%" PRIu64, e->id);
	put_label(j, "event_id", num);
	if (svg[0])
		put_label(j, "svg", svg);
	hw_json_obj_end(j);
	rfc3339(e->start_ns, ts, sizeof(ts));
	hw_json_key(j, "startsAt");
	hw_json_str(j, ts);
	if (e->resolved) {
		rfc3339(e->end_ns > e->start_ns ? e->end_ns : e->start_ns + 1, ts, sizeof(ts));
		hw_json_key(j, "endsAt");
		hw_json_str(j, ts);
	}
	hw_json_obj_end(j);
}

/* POST every dirty (or, with all, every) entry; 1 on a 2xx answer. */
static __thread const struct entry *sort_base; /* the table post() sorts (qsort has no context argument) */
static int by_seq(const void *a, const void *b)
{
	uint64_t x = sort_base[*(const uint32_t *)a].seq, y = sort_base[*(const uint32_t *)b].seq;
	return x < y ? -1 : x > y;
}

static int post(struct hw_alert_sink *s, int all)
{
	size_t n = 0;
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->table[i].used && (all || s->table[i].dirty))
			s->order[n++] = i;
	if (!n)
		return 1;
	sort_base = s->table;
	qsort(s->order, n, sizeof(*s->order), by_seq);
	struct hw_json *j = &s->body;
	hw_json_reset(j);
	if (s->kind == HW_SINK_WEBHOOK) {
		hw_json_obj(j);
		hw_json_key(j, "events");
	}
	hw_json_arr(j);
	for (size_t k = 0; k < n; k++) {
		const struct entry *en = &s->table[s->order[k]];
		if (s->kind == HW_SINK_ALERTMANAGER) {
			am_alert(j, &en->e, en->svg);
		} else {
			char ev[4000]; /* an event's JSON line, as the events file has it */
			hw_json_raw(j, ev, (size_t)hw_an_event_json(&en->e, en->svg, ev, sizeof(ev)));
		}
	}
	hw_json_arr_end(j);
	if (s->kind == HW_SINK_WEBHOOK)
		hw_json_obj_end(j);
	if (j->failed)
		return 0; /* out of memory: counted as nothing, tried again */
	struct hw_http_reply r;
	int ok = !hw_http_post(s->http, j->buf, j->len, &r) && r.status >= 200 && r.status < 300;
	pthread_mutex_lock(&s->mu);
	if (ok) {
		s->st.posts_ok++;
		s->st.sent_alerts += n;
	} else {
		s->st.posts_failed++;
	}
	pthread_mutex_unlock(&s->mu);
	if (!ok)
		return 0;
	for (uint32_t i = 0; i < s->cap; i++) {
		struct entry *en = &s->table[i];
		if (!en->used)
			continue;
		en->dirty = 0;
		if (en->e.resolved || s->kind == HW_SINK_WEBHOOK)
			en->used = 0; /* delivered with endsAt (a webhook event: delivered): forget it */
	}
	return 1;
}

/* Merge one handed-over event into the table (thread side).  Alertmanager holds alert states, so a
 * resolve replaces its raise if both wait; a webhook gets every event. */
static int merge(struct hw_alert_sink *s, const struct noted *x)
{
	const struct hw_an_event *e = &x->e;
	struct entry *free_slot = NULL;
	for (uint32_t i = 0; i < s->cap; i++) {
		struct entry *en = &s->table[i];
		if (s->kind == HW_SINK_ALERTMANAGER && en->used && en->e.id == e->id &&
		    strcmp(en->e.alertname, e->alertname) == 0) {
			en->e = *e;
			memcpy(en->svg, x->svg, sizeof(en->svg));
			en->dirty = 1;
			en->seq = s->next_seq++;
			return 1;
		}
		if (!en->used && !free_slot)
			free_slot = en;
	}
	if (!free_slot)
		return 0;
	free_slot->e = *e;
	memcpy(free_slot->svg, x->svg, sizeof(free_slot->svg));
	free_slot->used = free_slot->dirty = 1;
	free_slot->seq = s->next_seq++;
	return 1;
}

static void *run(void *arg)
{
	struct hw_alert_sink *s = arg;
	struct noted *batch = malloc(sizeof(*batch) * s->cap);
	uint64_t last_all = hw_mono_ns(), retry_at = 0;
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		if (!s->n) {
			struct timespec ts = hw_real_deadline(200);
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		}
		uint32_t n = 0;
		while (s->n && batch) {
			batch[n++] = s->ring[s->head];
			s->head = (s->head + 1) % s->cap;
			s->n--;
		}
		pthread_mutex_unlock(&s->mu);
		uint64_t dropped = 0;
		for (uint32_t i = 0; i < n; i++)
			dropped += !merge(s, &batch[i]);
		uint64_t now = hw_mono_ns();
		int all = s->kind == HW_SINK_ALERTMANAGER && now - last_all >= s->resend_ns;
		uint32_t dirty = 0, active = 0;
		for (uint32_t i = 0; i < s->cap; i++) {
			dirty += s->table[i].used && s->table[i].dirty;
			active += s->table[i].used && !s->table[i].e.resolved;
		}
		if ((dirty && now >= retry_at) || (all && active)) {
			if (post(s, all))
				retry_at = 0;
			else
				retry_at = now + 1000000000ull;
			if (all)
				last_all = now;
		}
		dirty = active = 0;
		for (uint32_t i = 0; i < s->cap; i++) {
			dirty += s->table[i].used && s->table[i].dirty;
			active += s->table[i].used && !s->table[i].e.resolved;
		}
		pthread_mutex_lock(&s->mu);
		s->st.dropped += dropped;
		s->waiting = dirty;
		s->st.waiting = dirty;
		s->st.active = active;
		pthread_cond_broadcast(&s->done_cv);
	}
	pthread_mutex_unlock(&s->mu);
	free(batch);
	return NULL;
}

struct hw_alert_sink *hw_alert_sink_start(enum hw_sink_kind kind, const char *url, uint32_t capacity,
                                          uint64_t resend_ns, char *err, size_t errlen)
{
	struct hw_alert_sink *s = calloc(1, sizeof(*s));
	if (!s || !capacity) {
		free(s);
		snprintf(err, errlen, "%s: out of memory", url);
		return NULL;
	}
	s->kind = kind;
	hw_json_init_heap(&s->body);
	size_t ul = strlen(url);
	while (ul && url[ul - 1] == '/')
		ul--;
	if (kind == HW_SINK_ALERTMANAGER)
		snprintf(s->url, sizeof(s->url), "%.*s/api/v2/alerts", (int)ul, url);
	else
		snprintf(s->url, sizeof(s->url), "%s", url);
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		snprintf(err, errlen, "%s: not an http:// or https:// URL", url);
		free(s);
		return NULL;
	}
	s->cap = capacity;
	s->resend_ns = resend_ns ? resend_ns : 60000000000ull;
	s->ring = calloc(capacity, sizeof(*s->ring));
	s->table = calloc(capacity, sizeof(*s->table));
	s->order = calloc(capacity, sizeof(*s->order));
	const struct hw_http_opts ho = {
	    .connect_timeout_ms = 1000, .timeout_ms = 2000, .content_type = "application/json"}; /* reply dropped */
	s->http = hw_http_open(s->url, &ho, NULL, 0);
	if (!s->ring || !s->table || !s->order || !s->http) {
		snprintf(err, errlen, "%s: cannot start the HTTP client", url);
		goto fail;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_cond_init(&s->done_cv, NULL);
	if (pthread_create(&s->thread, NULL, run, s)) {
		snprintf(err, errlen, "%s: cannot start the sender thread", url);
		goto fail;
	}
	return s;
fail:
	hw_http_close(s->http);
	free(s->ring);
	free(s->table);
	free(s->order);
	free(s);
	return NULL;
}

int hw_alert_sink_push(struct hw_alert_sink *s, const struct hw_an_event *e, const char *svg)
{
	int ok = 0;
	pthread_mutex_lock(&s->mu);
	s->st.pushed++;
	if (s->n < s->cap) {
		struct noted *x = &s->ring[(s->head + s->n) % s->cap];
		x->e = *e;
		snprintf(x->svg, sizeof(x->svg), "%s", svg ? svg : "");
		s->n++;
		s->waiting++;
		ok = 1;
		pthread_cond_signal(&s->cv);
	} else {
		s->st.dropped++;
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

int hw_alert_sink_drain(struct hw_alert_sink *s, int timeout_ms)
{
	uint64_t end = hw_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
	pthread_mutex_lock(&s->mu);
	while ((s->n || s->waiting) && hw_mono_ns() < end) {
		struct timespec ts = hw_real_deadline(100);
		pthread_cond_timedwait(&s->done_cv, &s->mu, &ts);
	}
	int done = !s->n && !s->waiting;
	pthread_mutex_unlock(&s->mu);
	return done;
}

void hw_alert_sink_stats(struct hw_alert_sink *s, struct hw_alert_sink_stats *st)
{
	pthread_mutex_lock(&s->mu);
	*st = s->st;
	pthread_mutex_unlock(&s->mu);
}

void hw_alert_sink_stop(struct hw_alert_sink *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	hw_http_close(s->http);
	free(s->ring);
	free(s->table);
	free(s->order);
	hw_json_free(&s->body);
	free(s);
}
