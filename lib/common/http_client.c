/* The HTTP client over libcurl (http_client.h): global initialisation once per process, one easy
 * handle per hw_http (connections kept between its requests), bodies kept or streamed. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errf.h"
#include "http_client.h"

struct hw_http {
	CURL *curl;
	struct curl_slist *headers;
	struct hw_http_opts o;
	char url_shown[1024]; /* the URL with credentials hidden */
	char errbuf[CURL_ERROR_SIZE];
	long status; /* of the request under way, once its first body bytes came */
	int stopped; /* on_body ended the transfer */
	char *body;  /* body_max + 1 bytes when o.body_max */
	size_t body_len;
};

static void global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

char *hw_http_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, 0);
	char *copy = e ? strdup(e) : NULL;
	curl_free(e);
	return copy;
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct hw_http *h = arg;
	size_t n = size * nmemb;
	if (!h->status)
		curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &h->status);
	if (h->o.on_body) {
		if (h->o.on_body(h->o.ctx, h->status, data, n)) {
			h->stopped = 1;
			return 0; /* libcurl ends the transfer */
		}
		return n;
	}
	if (h->body) {
		size_t room = h->o.body_max - h->body_len, k = n < room ? n : room;
		memcpy(h->body + h->body_len, data, k);
		h->body_len += k;
		h->body[h->body_len] = 0;
	}
	return n;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct hw_http *h = arg;
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	if (h->o.abort(h->o.ctx)) {
		h->stopped = 1;
		return 1; /* libcurl ends the transfer */
	}
	return 0;
}

struct hw_http *hw_http_open(const char *url, const struct hw_http_opts *o, char *err, size_t errlen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, global_init);
	struct hw_http *h = calloc(1, sizeof(*h));
	if (!h)
		goto nomem;
	h->o = *o;
	hw_http_redact(url, h->url_shown, sizeof(h->url_shown));
	h->curl = curl_easy_init();
	if (!h->curl || (o->body_max && !(h->body = malloc(o->body_max + 1))))
		goto nomem;
	if (o->content_type) {
		char line[256];
		snprintf(line, sizeof(line), "Content-Type: %s", o->content_type);
		if (!(h->headers = curl_slist_append(NULL, line)))
			goto nomem;
	}
	if (o->bearer_token) {
		char line[8192];
		snprintf(line, sizeof(line), "Authorization: Bearer %s", o->bearer_token);
		struct curl_slist *l = curl_slist_append(h->headers, line);
		explicit_bzero(line, sizeof(line));
		if (!l)
			goto nomem;
		h->headers = l;
	}
	if (h->headers)
		curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, h->headers);
	if (o->ca_file)
		curl_easy_setopt(h->curl, CURLOPT_CAINFO, o->ca_file);
	if (curl_easy_setopt(h->curl, CURLOPT_URL, url) != CURLE_OK)
		goto nomem; /* libcurl copies the URL */
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	if (o->connect_timeout_ms)
		curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	if (o->timeout_ms)
		curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, o->timeout_ms);
	if (o->low_speed_time_s) {
		curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
		curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME, o->low_speed_time_s);
	}
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_data);
	if (o->abort) {
		curl_easy_setopt(h->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h->curl, CURLOPT_XFERINFODATA, h);
		curl_easy_setopt(h->curl, CURLOPT_NOPROGRESS, 0L);
	}
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->errbuf);
	return h;
nomem:
	hw_errf(err, errlen, "HTTP client for %s: out of memory", h ? h->url_shown : url);
	hw_http_close(h);
	return NULL;
}

void hw_http_close(struct hw_http *h)
{
	if (!h)
		return;
	if (h->curl)
		curl_easy_cleanup(h->curl);
	curl_slist_free_all(h->headers);
	free(h->body);
	free(h);
}

const char *hw_http_url(const struct hw_http *h)
{
	return h->url_shown;
}

static int perform(struct hw_http *h, struct hw_http_reply *r)
{
	h->status = 0;
	h->stopped = 0;
	h->body_len = 0;
	if (h->body)
		h->body[0] = 0;
	h->errbuf[0] = 0;
	CURLcode rc = curl_easy_perform(h->curl);
	long status = h->status;
	if (!status)
		curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
	r->status = rc == CURLE_OK ? status : 0;
	r->body = h->body ? h->body : "";
	r->body_len = h->body_len;
	r->err[0] = 0;
	r->what = r->err;
	if (rc == CURLE_OK)
		return 0;
	int n = snprintf(r->err, sizeof(r->err), "%s: ", h->url_shown);
	size_t k = n > 0 && (size_t)n < sizeof(r->err) ? (size_t)n : 0;
	snprintf(r->err + k, sizeof(r->err) - k, "%s",
	         h->stopped   ? "stopped by the receiver"
	         : *h->errbuf ? h->errbuf
	                      : curl_easy_strerror(rc));
	r->what = r->err + k;
	return -1;
}

int hw_http_post(struct hw_http *h, const void *body, size_t len, struct hw_http_reply *r)
{
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	return perform(h, r);
}

int hw_http_get(struct hw_http *h, struct hw_http_reply *r)
{
	curl_easy_setopt(h->curl, CURLOPT_HTTPGET, 1L);
	return perform(h, r);
}
