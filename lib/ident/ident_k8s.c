/* A Kubernetes API pod list as an identity source: a thread lists the pods (GET URL, bearer token file, CA file),
 * then follows the list's watch (ADDED/MODIFIED/DELETED/BOOKMARK lines, 410 Gone: list again) and keeps the newest
 * pod list, or what went wrong, for hw_ident_reload to take. */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_client.h"
#include "ident_k8s.h"

#define BODY_MAX (256u << 20)  /* a pod list larger than this is refused */
#define LINE_MAX_B (16u << 20) /* a watch event longer than this is refused (the watch ends, the pods are listed) */
#define WATCH_S 290            /* the server ends a watch after this long (timeoutSeconds); it is then resumed */
#define WATCH_SLACK_S 60       /* ... and the client gives up on a watch silent for that long and this much more */

struct ident_k8s {
	char *url, *token_file, *ca_file;
	double every_s;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, started;
	/* under mu: the newest outcome */
	uint64_t gen, taken;           /* outcomes published, and the newest one taken */
	char *text;                    /* the newest pod list ({"items": [...]}), NULL once taken */
	int failing;                   /* the newest outcome is a failure */
	uint64_t fails;                /* failures not taken yet */
	char err[600], first_err[600]; /* the newest failure, and the first one not taken yet */
	uint64_t lists, events;        /* lists answered, watch events applied */
	/* the thread's own */
	json_t *pods; /* "namespace/name" -> the pod's object */
	char rv[256]; /* the resourceVersion the watch resumes from */
};

/* ---- under mu: what the thread hands over ---- */

static void publish(struct ident_k8s *k)
{
	json_t *items = json_array(), *pod;
	const char *key;
	json_object_foreach(k->pods, key, pod) json_array_append(items, pod);
	json_t *root = json_pack("{s:s,s:o}", "kind", "PodList", "items", items);
	char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
	json_decref(root);
	pthread_mutex_lock(&k->mu);
	if (text) {
		free(k->text);
		k->text = text;
		k->failing = 0;
	} else {
		k->failing = 1;
		k->fails++;
		snprintf(k->err, sizeof(k->err), "%s: out of memory", k->url);
	}
	k->gen++;
	pthread_cond_broadcast(&k->cv);
	pthread_mutex_unlock(&k->mu);
}

static void fail(struct ident_k8s *k, const char *err)
{
	pthread_mutex_lock(&k->mu);
	k->failing = 1;
	if (!k->fails++)
		snprintf(k->first_err, sizeof(k->first_err), "%s", err);
	snprintf(k->err, sizeof(k->err), "%s", err);
	k->gen++;
	pthread_cond_broadcast(&k->cv);
	pthread_mutex_unlock(&k->mu);
}

static int stopped(struct ident_k8s *k)
{
	pthread_mutex_lock(&k->mu);
	int s = k->stop;
	pthread_mutex_unlock(&k->mu);
	return s;
}

/* The abort hook of a request (hw_http_abort_fn): ctx is a struct body or struct watch, each starting with k. */
static int stopping(void *ctx)
{
	return stopped(*(struct ident_k8s **)ctx);
}

/* Wait s seconds or until stopped. */
static void pause_s(struct ident_k8s *k, double s)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	double t = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + s;
	until.tv_sec = (time_t)t;
	until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
	pthread_mutex_lock(&k->mu);
	while (!k->stop && pthread_cond_timedwait(&k->cv, &k->mu, &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&k->mu);
}

/* ---- requests ---- */

/* The token file's first line (a rotated token is read again at every request), or NULL with err. */
static char *read_token(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *tok = calloc(1, 4096);
	if (tok && !fgets(tok, 4096, f))
		tok[0] = 0;
	fclose(f);
	if (!tok) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	tok[strcspn(tok, "\r\n")] = 0;
	if (!tok[0]) {
		snprintf(err, errlen, "%s: empty", path);
		free(tok);
		return NULL;
	}
	return tok;
}

/* A handle for GET url with the token and CA file, the body streamed to on_body(ctx); NULL with err. */
static struct hw_http *open_get(struct ident_k8s *k, const char *url, long timeout_ms, hw_http_body_fn on_body,
                                void *ctx, char *err, size_t errlen)
{
	char *tok = NULL;
	if (k->token_file && !(tok = read_token(k->token_file, err, errlen)))
		return NULL;
	struct hw_http_opts o = {.connect_timeout_ms = 5000,
	                         .timeout_ms = timeout_ms,
	                         .bearer_token = tok,
	                         .ca_file = k->ca_file,
	                         .on_body = on_body,
	                         .abort = stopping,
	                         .ctx = ctx};
	struct hw_http *h = hw_http_open(url, &o, err, errlen);
	if (tok) {
		memset(tok, 0, strlen(tok));
		free(tok);
	}
	return h;
}

struct body {
	struct ident_k8s *k; /* first, as in struct watch: the request's ctx (stopping()) */
	char *p;
	size_t n, cap, max;
	int too_big;
};

static int append(struct body *b, const char *data, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = cap <= b->max ? realloc(b->p, cap) : NULL;
		if (!p) {
			b->too_big = 1;
			return 1;
		}
		b->p = p, b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = 0;
	return 0;
}

static int on_list(void *ctx, long status, const char *data, size_t n)
{
	(void)status;
	return append(ctx, data, n);
}

/* List the pods into k->pods and k->rv: 0, or -1 with err naming the URL and what went wrong. */
static int list(struct ident_k8s *k, char *err, size_t errlen)
{
	struct body b = {.k = k, .max = BODY_MAX};
	struct hw_http *h = open_get(k, k->url, 60000, on_list, &b, err, errlen);
	if (!h)
		return -1;
	struct hw_http_reply r;
	int rc = hw_http_get(h, &r);
	json_t *root = NULL, *items = NULL;
	if (rc || r.status != 200 || b.too_big || !b.p) {
		if (b.too_big)
			snprintf(err, errlen, "%s: a pod list larger than %u MiB", hw_http_url(h), BODY_MAX >> 20);
		else if (rc)
			snprintf(err, errlen, "%s", r.err);
		else if (r.status != 200)
			snprintf(err, errlen, "%s: HTTP status %ld", hw_http_url(h), r.status);
		else
			snprintf(err, errlen, "%s: empty answer", hw_http_url(h));
		rc = -1;
	} else {
		json_error_t je;
		if (!(root = json_loads(b.p, 0, &je))) {
			snprintf(err, errlen, "%s:%d: %s", hw_http_url(h), je.line, je.text);
			rc = -1;
		} else if (!json_is_array(items = json_object_get(root, "items"))) {
			snprintf(err, errlen, "%s: not a list of pods (no \"items\" array)", hw_http_url(h));
			rc = -1;
		}
	}
	if (!rc) {
		json_t *pods = json_object(), *pod;
		size_t i;
		json_array_foreach(items, i, pod)
		{
			json_t *meta = json_object_get(pod, "metadata");
			const char *ns = json_string_value(json_object_get(meta, "namespace")),
			           *name = json_string_value(json_object_get(meta, "name"));
			char key[600];
			snprintf(key, sizeof(key), "%s/%s/%zu", ns ? ns : "", name ? name : "", name ? (size_t)0 : i);
			json_object_set(pods, key, pod);
		}
		json_decref(k->pods);
		k->pods = pods;
		const char *rv =
		    json_string_value(json_object_get(json_object_get(root, "metadata"), "resourceVersion"));
		snprintf(k->rv, sizeof(k->rv), "%s", rv ? rv : "");
	}
	json_decref(root);
	free(b.p);
	hw_http_close(h);
	return rc;
}

/* A watch under way. */
struct watch {
	struct ident_k8s *k; /* first, as in struct body */
	const char *url;     /* for messages, credentials hidden */
	struct body line;    /* the event line being received */
	char err[600];       /* what ended it, when it failed */
	int relist;          /* a 410 Gone: the resourceVersion is too old */
	unsigned long lines;
};

/* One watch event line: applied to k->pods (*changed set); 0, 1 (410 Gone: list again) or -1 with w->err. */
static int event(struct watch *w, const char *text, int *changed)
{
	struct ident_k8s *k = w->k;
	json_error_t je;
	json_t *ev = json_loads(text, 0, &je);
	const char *type = json_string_value(json_object_get(ev, "type"));
	json_t *obj = json_object_get(ev, "object"), *meta = json_object_get(obj, "metadata");
	const char *rv = json_string_value(json_object_get(meta, "resourceVersion"));
	int rc = 0;
	w->lines++;
	if (!ev) {
		snprintf(w->err, sizeof(w->err), "%s: watch event %lu: %s", w->url, w->lines, je.text);
		rc = -1;
	} else if (!type || !json_is_object(obj)) {
		snprintf(w->err, sizeof(w->err), "%s: watch event %lu: no \"type\" or \"object\"", w->url, w->lines);
		rc = -1;
	} else if (!strcmp(type, "ERROR")) {
		json_int_t code = json_integer_value(json_object_get(obj, "code"));
		const char *msg = json_string_value(json_object_get(obj, "message"));
		if (code == 410) {
			w->relist = 1;
			rc = 1;
		} else {
			snprintf(w->err, sizeof(w->err), "%s: watch error %lld: %.200s", w->url, (long long)code,
			         msg ? msg : "");
			rc = -1;
		}
	} else if (!strcmp(type, "BOOKMARK")) {
		if (rv)
			snprintf(k->rv, sizeof(k->rv), "%s", rv);
	} else if (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED") || !strcmp(type, "DELETED")) {
		const char *ns = json_string_value(json_object_get(meta, "namespace")),
		           *name = json_string_value(json_object_get(meta, "name"));
		if (!name || (type[0] != 'D' && !json_is_object(json_object_get(obj, "status")))) {
			snprintf(w->err, sizeof(w->err), "%s: watch event %lu: %s of no pod (no name or status)",
			         w->url, w->lines, type);
			rc = -1;
		} else {
			char key[600];
			snprintf(key, sizeof(key), "%s/%s/0", ns ? ns : "", name);
			if (type[0] == 'D')
				json_object_del(k->pods, key);
			else
				json_object_set(k->pods, key, obj);
			if (rv)
				snprintf(k->rv, sizeof(k->rv), "%s", rv);
			*changed = 1;
			pthread_mutex_lock(&k->mu);
			k->events++;
			pthread_mutex_unlock(&k->mu);
		}
	} else {
		snprintf(w->err, sizeof(w->err), "%s: watch event %lu: unknown type \"%.32s\"", w->url, w->lines, type);
		rc = -1;
	}
	json_decref(ev);
	return rc;
}

static int on_watch(void *ctx, long status, const char *data, size_t n)
{
	struct watch *w = ctx;
	if (status != 200)
		return 0; /* the status says it */
	int changed = 0, rc = 0;
	while (n && !rc) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		if (append(&w->line, data, k)) {
			snprintf(w->err, sizeof(w->err), "%s: a watch event longer than %u MiB", w->url,
			         LINE_MAX_B >> 20);
			rc = -1;
			break;
		}
		data += k, n -= k;
		if (!nl)
			break;
		data++, n--;
		if (w->line.n && strspn(w->line.p, " \t\r") < w->line.n)
			rc = event(w, w->line.p, &changed);
		w->line.n = 0;
	}
	if (changed)
		publish(w->k); /* what came in one piece shows at once */
	return rc != 0;
}

/* Follow the watch from k->rv: 0 when the server ended it (resume), 1 when the pods must be listed again (410
 * Gone), -1 with err. */
static int watch(struct ident_k8s *k, char *err, size_t errlen)
{
	size_t len = strlen(k->url) + strlen(k->rv) * 3 + 128;
	char *url = malloc(len), *rv = hw_http_escape(k->rv);
	if (!url || !rv) {
		free(url);
		free(rv);
		snprintf(err, errlen, "%s: out of memory", k->url);
		return -1;
	}
	snprintf(url, len, "%s%swatch=1&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=%d", k->url,
	         strchr(k->url, '?') ? "&" : "?", rv, WATCH_S);
	free(rv);
	struct watch w = {.k = k, .line = {.k = k, .max = LINE_MAX_B}};
	struct hw_http *h = open_get(k, url, (WATCH_S + WATCH_SLACK_S) * 1000L, on_watch, &w, err, errlen);
	free(url);
	if (!h)
		return -1;
	w.url = hw_http_url(h);
	struct hw_http_reply r;
	int rc = hw_http_get(h, &r);
	if (w.relist) {
		rc = 1;
	} else if (w.err[0]) {
		snprintf(err, errlen, "%s", w.err);
		rc = -1;
	} else if (rc) {
		snprintf(err, errlen, "%s", r.err);
	} else if (r.status == 410) {
		rc = 1;
	} else if (r.status != 200) {
		snprintf(err, errlen, "%s: watch: HTTP status %ld", w.url, r.status);
		rc = -1;
	} else if (w.line.n && strspn(w.line.p, " \t\r") < w.line.n) {
		int changed = 0;
		rc = event(&w, w.line.p, &changed); /* a last line without its newline */
		if (changed)
			publish(k);
		if (rc < 0)
			snprintf(err, errlen, "%s", w.err);
		rc = rc > 0 ? 1 : rc;
	}
	if (!rc && !w.lines)
		rc = 2; /* ended with nothing: do not resume at once */
	free(w.line.p);
	hw_http_close(h);
	return rc;
}

static void *run(void *arg)
{
	struct ident_k8s *k = arg;
	char err[600];
	while (!stopped(k)) {
		err[0] = 0;
		if (list(k, err, sizeof(err))) {
			fail(k, err);
			pause_s(k, k->every_s);
			continue;
		}
		pthread_mutex_lock(&k->mu);
		k->lists++;
		pthread_mutex_unlock(&k->mu);
		publish(k);
		if (!k->rv[0]) { /* a list without a resourceVersion cannot be watched: list again */
			pause_s(k, k->every_s);
			continue;
		}
		int rc = 0, fresh = 1; /* fresh: no event since the list */
		while (!stopped(k)) {
			rc = watch(k, err, sizeof(err));
			if (rc == 2) /* ended with nothing: resumed, after a pause */
				pause_s(k, k->every_s);
			else if (rc == 0)
				fresh = 0;
			else
				break;
		}
		if (stopped(k))
			break;
		if (rc == 1 && fresh) /* 410 Gone right after a list: list again, but not at once */
			pause_s(k, k->every_s);
		if (rc < 0) {
			fail(k, err);
			pause_s(k, k->every_s);
		}
	}
	return NULL;
}

struct ident_k8s *ident_k8s_start(const char *url, const struct hw_ident_k8s_opts *o, char *err, size_t errlen)
{
	struct ident_k8s *k = calloc(1, sizeof(*k));
	if (!k || !(k->url = strdup(url)) || (o->token_file && !(k->token_file = strdup(o->token_file))) ||
	    (o->ca_file && !(k->ca_file = strdup(o->ca_file))) || !(k->pods = json_object())) {
		snprintf(err, errlen, "%s: out of memory", url);
		ident_k8s_stop(k);
		return NULL;
	}
	k->every_s = o->every_s > 0 ? o->every_s : 10;
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	if (pthread_create(&k->th, NULL, run, k)) {
		snprintf(err, errlen, "%s: cannot start its thread", url);
		ident_k8s_stop(k);
		return NULL;
	}
	k->started = 1;
	return k;
}

int ident_k8s_take(struct ident_k8s *k, struct ident_k8s_news *n, int wait)
{
	memset(n, 0, sizeof(*n));
	pthread_mutex_lock(&k->mu);
	while (wait && k->gen == k->taken)
		pthread_cond_wait(&k->cv, &k->mu);
	int rc = k->gen != k->taken;
	k->taken = k->gen;
	n->text = k->text;
	k->text = NULL;
	n->fails = k->fails;
	k->fails = 0;
	n->failing = k->failing;
	snprintf(n->err, sizeof(n->err), "%s", k->err);
	snprintf(n->first_err, sizeof(n->first_err), "%s", k->first_err);
	n->lists = k->lists;
	n->events = k->events;
	pthread_mutex_unlock(&k->mu);
	return rc;
}

void ident_k8s_stop(struct ident_k8s *k)
{
	if (!k)
		return;
	if (k->started) {
		pthread_mutex_lock(&k->mu);
		k->stop = 1;
		pthread_cond_broadcast(&k->cv);
		pthread_mutex_unlock(&k->mu);
		pthread_join(k->th, NULL);
		pthread_mutex_destroy(&k->mu);
		pthread_cond_destroy(&k->cv);
	}
	json_decref(k->pods);
	free(k->text);
	free(k->url);
	free(k->token_file);
	free(k->ca_file);
	free(k);
}
