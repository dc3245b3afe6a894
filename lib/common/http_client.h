/* The one HTTP client (libcurl underneath): a handle per user and URL, POST or GET with timeouts,
 * the reply's status and body, and error text that names the URL without its credentials. */
#ifndef HOPWATCH_HTTP_CLIENT_H
#define HOPWATCH_HTTP_CLIENT_H

#include <stddef.h>

#include "redact.h" /* hw_http_redact: a URL with credentials hidden, for messages */

/* Streams a reply body: n bytes at data, with the reply's HTTP status.  Return 0 to go on, anything
 * else to end the transfer (the request then fails with "stopped by the receiver"). */
typedef int (*hw_http_body_fn)(void *ctx, long status, const char *data, size_t n);
/* Polled while a request is under way (at least once a second, also while no byte comes): nonzero ends it. */
typedef int (*hw_http_abort_fn)(void *ctx);

struct hw_http_opts {
	long connect_timeout_ms;  /* 0: libcurl's default */
	long timeout_ms;          /* the whole request; 0: no limit */
	long low_speed_time_s;    /* give up after this long under 1 byte/s; 0: never */
	const char *content_type; /* of POST bodies; NULL: libcurl's default */
	const char *bearer_token; /* sent as "Authorization: Bearer TOKEN"; NULL: none */
	const char *ca_file;      /* the CA certificates https peers are checked against; NULL: the system's */
	hw_http_body_fn on_body;  /* the reply body goes here when set ... */
	hw_http_abort_fn abort;   /* NULL: none (a long-lived GET, such as a watch, needs one to be ended) */
	void *ctx;                /* of on_body and abort */
	size_t body_max;          /* ... else its first body_max bytes are kept in the reply (0: none) */
};

struct hw_http_reply {
	long status;      /* the HTTP status, 0 when no answer came */
	const char *body; /* the kept body, NUL-terminated ("" when none); valid until the next request */
	size_t body_len;
	char err[512];    /* when the request failed: "URL: what went wrong", credentials hidden */
	const char *what; /* the "what went wrong" part of err, for messages that name the URL already */
};

struct hw_http;

/* A handle for requests to url (copied).  NULL, with err, when out of memory. */
struct hw_http *hw_http_open(const char *url, const struct hw_http_opts *o, char *err, size_t errlen);
void hw_http_close(struct hw_http *h);

/* POST len bytes of body (or GET).  0 when an HTTP answer came, whatever its status; -1 when none did
 * (connection refused, timeout, stopped by on_body...), with r->err set.  Retrying is the caller's. */
int hw_http_post(struct hw_http *h, const void *body, size_t len, struct hw_http_reply *r);
int hw_http_get(struct hw_http *h, struct hw_http_reply *r);

/* The handle's URL with the password of user:password@ and of a password= parameter replaced by ***,
 * for messages. */
const char *hw_http_url(const struct hw_http *h);

/* s percent-encoded for a URL query (malloc'd, free() it), or NULL when out of memory. */
char *hw_http_escape(const char *s);

#endif
