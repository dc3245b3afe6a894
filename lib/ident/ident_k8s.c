/* A Kubernetes API pod list as an identity source: a thread lists the pods (GET URL, bearer token file, CA file)
 * every so often and keeps the newest answer, or what went wrong, for hw_ident_reload to take. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_client.h"
#include "ident_k8s.h"

#define BODY_MAX (256u << 20) /* a pod list larger than this is refused */

struct ident_k8s {
	char *url, *token_file, *ca_file;
	double every_s;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, started;
	/* under mu: the newest answer */
	uint64_t gen;
	char *text; /* the body of a 200 answer, NULL when the newest fetch failed */
	char err[600];
};

struct body {
	char *p;
	size_t n, cap;
	int too_big;
};

static int on_body(void *ctx, long status, const char *data, size_t n)
{
	struct body *b = ctx;
	(void)status;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *p = cap <= BODY_MAX ? realloc(b->p, cap) : NULL;
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

/* The token file's first line (a rotated token is read again at every fetch), or NULL with err. */
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

/* One list: the body of a 200 answer (malloc'd), or NULL with err naming the URL and what went wrong. */
static char *fetch(struct ident_k8s *k, char *err, size_t errlen)
{
	char *tok = NULL;
	if (k->token_file && !(tok = read_token(k->token_file, err, errlen)))
		return NULL;
	struct body b = {0};
	struct hw_http_opts o = {.connect_timeout_ms = 5000,
	                         .timeout_ms = 60000,
	                         .bearer_token = tok,
	                         .ca_file = k->ca_file,
	                         .on_body = on_body,
	                         .ctx = &b};
	struct hw_http *h = hw_http_open(k->url, &o, err, errlen);
	if (tok) {
		memset(tok, 0, strlen(tok));
		free(tok);
	}
	if (!h)
		return NULL;
	struct hw_http_reply r;
	int rc = hw_http_get(h, &r);
	if (rc || r.status != 200 || b.too_big || !b.p) {
		if (b.too_big)
			snprintf(err, errlen, "%s: a pod list larger than %u MiB", hw_http_url(h), BODY_MAX >> 20);
		else if (rc)
			snprintf(err, errlen, "%s", r.err);
		else if (r.status != 200)
			snprintf(err, errlen, "%s: HTTP status %ld", hw_http_url(h), r.status);
		else
			snprintf(err, errlen, "%s: empty answer", hw_http_url(h));
		free(b.p);
		b.p = NULL;
	}
	hw_http_close(h);
	return b.p;
}

static void *run(void *arg)
{
	struct ident_k8s *k = arg;
	pthread_mutex_lock(&k->mu);
	while (!k->stop) {
		pthread_mutex_unlock(&k->mu);
		char err[sizeof(k->err)] = "";
		char *text = fetch(k, err, sizeof(err));
		pthread_mutex_lock(&k->mu);
		free(k->text);
		k->text = text;
		snprintf(k->err, sizeof(k->err), "%s", err);
		k->gen++;
		pthread_cond_broadcast(&k->cv);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		double t = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + k->every_s;
		until.tv_sec = (time_t)t;
		until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
		while (!k->stop && pthread_cond_timedwait(&k->cv, &k->mu, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

struct ident_k8s *ident_k8s_start(const char *url, const struct hw_ident_k8s_opts *o, char *err, size_t errlen)
{
	struct ident_k8s *k = calloc(1, sizeof(*k));
	if (!k || !(k->url = strdup(url)) || (o->token_file && !(k->token_file = strdup(o->token_file))) ||
	    (o->ca_file && !(k->ca_file = strdup(o->ca_file)))) {
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

int ident_k8s_take(struct ident_k8s *k, uint64_t *gen, int wait, char **text, char *err, size_t errlen)
{
	pthread_mutex_lock(&k->mu);
	while (wait && k->gen == *gen)
		pthread_cond_wait(&k->cv, &k->mu);
	int rc = 0;
	if (k->gen != *gen) {
		*gen = k->gen;
		if (k->text) {
			*text = k->text;
			k->text = NULL; /* taken */
			rc = 1;
		} else {
			snprintf(err, errlen, "%s", k->err);
			rc = -1;
		}
	}
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
	free(k->text);
	free(k->url);
	free(k->token_file);
	free(k->ca_file);
	free(k);
}
