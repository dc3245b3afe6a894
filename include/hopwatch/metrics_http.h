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

struct hw_metrics_http;

/* Serve GET /metrics on addr ("HOST:PORT", "[V6]:PORT"); other paths get 404, other methods 405.
 * NULL with a message naming the address in err. */
struct hw_metrics_http *hw_metrics_http_start(const char *addr, hw_metrics_render_fn render, void *arg, char *err,
                                              size_t errlen);
/* The same, also serving the .svg and .csv files of dir (plain file names only) at GET /svg/FILE; dir
 * NULL = none. */
struct hw_metrics_http *hw_metrics_http_start_files(const char *addr, hw_metrics_render_fn render, void *arg,
                                                    const char *dir, char *err, size_t errlen);
/* Stop serving (waits for a scrape in progress); NULL is allowed. */
void hw_metrics_http_stop(struct hw_metrics_http *s);

#ifdef __cplusplus
}
#endif
#endif
