/* The one Prometheus /metrics HTTP server of hopwatch (collector and analyzer): libmicrohttpd in its own
 * thread calls the owner's render function on every GET /metrics. */
#ifndef HOPWATCH_METRICS_HTTP_H
#define HOPWATCH_METRICS_HTTP_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Write the exposition text (format 0.0.4) to f.  Runs on the server's thread: the owner makes what it
 * reads safe to read from there (atomics or its own lock). */
typedef void (*hw_metrics_render_fn)(void *arg, FILE *f);

/* Bounds of the server (docs/collector.md "/metrics"): connections at once, from one client address, and
 * seconds a connection may stay idle (no request, or a reader that stalls) before it is closed. */
#define HW_METRICS_HTTP_MAX_CONN 64
#define HW_METRICS_HTTP_MAX_PER_IP 8
#define HW_METRICS_HTTP_TIMEOUT_S 10
/* GET /metrics arriving while another client is still being sent a text rendered less than this many ms
 * ago (counted from the end of its rendering) gets the same text (one copy in memory, not one per connection);
 * otherwise the text is rendered afresh. */
#define HW_METRICS_HTTP_SHARE_MS 1000

struct hw_metrics_http;

/* Serve GET /metrics on addr ("HOST:PORT", "[V6]:PORT"); other paths get 404, other methods 405.
 * NULL with a message naming the address in err. */
struct hw_metrics_http *hw_metrics_http_start(const char *addr, hw_metrics_render_fn render, void *arg, char *err,
                                              size_t errlen);
/* The same, also serving the .svg and .csv files of dir (plain file names only) at GET /svg/FILE; dir
 * NULL = none. */
struct hw_metrics_http *hw_metrics_http_start_files(const char *addr, hw_metrics_render_fn render, void *arg,
                                                    const char *dir, char *err, size_t errlen);
/* A route of the owner (hw_metrics_http_start_routes): a request's query arguments, and its reply. */
struct hw_metrics_http_request;
/* The value of query argument key ("?key=value"), NULL when absent. */
const char *hw_metrics_http_query(const struct hw_metrics_http_request *q, const char *key);
struct hw_metrics_http_reply {
	char *body; /* malloc'd; the server frees it */
	size_t len;
	const char *type; /* Content-Type, a string constant */
	unsigned status;  /* HTTP status */
};
/* Runs on the server's thread before the built-in paths: 1 when it answers url (reply filled), 0 when
 * not (then /svg/, /metrics or 404). */
typedef int (*hw_metrics_http_route_fn)(void *arg, const char *url, const struct hw_metrics_http_request *q,
                                        struct hw_metrics_http_reply *r);
/* hw_metrics_http_start_files with a route of the owner (arg is passed to both); render NULL = no
 * /metrics. */
struct hw_metrics_http *hw_metrics_http_start_routes(const char *addr, hw_metrics_render_fn render, void *arg,
                                                     const char *dir, hw_metrics_http_route_fn route, char *err,
                                                     size_t errlen);
/* Access to every server this process starts after the call (docs/operations.md "Securing the HTTP servers"):
 * auth_file, lines "USER:HASH" (bcrypt as `htpasswd -B` writes, or SHA-256 crypt "$5$"): every request needs HTTP basic
 * auth of one of them, else 401, counted (hopwatch_http_unauthorized_total on /metrics); cert_file and
 * key_file (PEM, both or neither): HTTPS only.  NULL = off.  Call once, before the first start; 0, or -1
 * with a message naming the file in err. */
int hw_metrics_http_secure(const char *auth_file, const char *cert_file, const char *key_file, char *err,
                           size_t errlen);
/* The same access from an exporter web configuration file (the Prometheus exporter-toolkit convention, YAML or its
 * JSON form: tls_server_config.cert_file/key_file, basic_auth_users {USER: bcrypt hash}), in place of
 * hw_metrics_http_secure's files (refused when that configured anything).  0, or -1 with a message naming the
 * file in err. */
int hw_metrics_http_web_config(const char *path, char *err, size_t errlen);
/* Requests refused with 401 so far, by every server of the process. */
unsigned long hw_metrics_http_unauthorized(void);
/* How many times /metrics was rendered (concurrent scrapes share one rendering). */
unsigned long hw_metrics_http_renders(struct hw_metrics_http *s);
/* Stop serving (waits for a scrape in progress); NULL is allowed. */
void hw_metrics_http_stop(struct hw_metrics_http *s);

#ifdef __cplusplus
}
#endif
#endif
