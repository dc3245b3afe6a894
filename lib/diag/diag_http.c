/* diagnose checks of the HTTP peers (lib/common/http_client): ClickHouse (ping, and the table has every record
 * column), Alertmanager (/-/healthy), and a collector's /metrics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/record_rowbinary.h"
#include "hopwatch/diag.h"
#include "http_client.h"

struct body {
	char buf[65536];
	size_t len;
};

/* GET url (or POST post when not NULL).  The HTTP status, or 0 with the transport error in err. */
static long http(const char *url, const char *post, struct body *b, char *err, size_t errlen)
{
	const struct hw_http_opts o = {.connect_timeout_ms = 2000, .timeout_ms = 5000, .body_max = sizeof(b->buf) - 1};
	b->len = 0;
	b->buf[0] = 0;
	struct hw_http *h = hw_http_open(url, &o, err, errlen);
	if (!h)
		return 0;
	struct hw_http_reply r;
	int rc = post ? hw_http_post(h, post, strlen(post), &r) : hw_http_get(h, &r);
	if (rc)
		snprintf(err, errlen, "%s", r.what);
	memcpy(b->buf, r.body, r.body_len + 1);
	b->len = r.body_len;
	hw_http_close(h);
	return rc ? 0 : r.status;
}

/* url with its path replaced by path (query kept when keep_query). */
static void with_path(char *out, size_t len, const char *url, const char *path, bool keep_query)
{
	const char *host = strstr(url, "://");
	host = host ? host + 3 : url;
	size_t base = strcspn(host, "/?") + (size_t)(host - url);
	const char *q = strchr(url, '?');
	snprintf(out, len, "%.*s%s%s", (int)base, url, path, keep_query && q ? q : "");
}

void hw_diag_clickhouse(struct hw_diag_list *run, const char *url, const char *table)
{
	static struct body b;
	char err[256], u[1024];
	with_path(u, sizeof(u), url, "/ping", false);
	long code = http(u, NULL, &b, err, sizeof(err));
	if (code != 200) {
		char fix[1200];
		snprintf(fix, sizeof(fix),
		         "start ClickHouse or correct the URL; it must answer 'Ok.' on %s (listen_host, http_port)", u);
		if (code)
			hw_diag_print(run, HW_DIAG_FAIL, "clickhouse", fix, "%s answered HTTP %ld", u, code);
		else
			hw_diag_print(run, HW_DIAG_FAIL, "clickhouse", fix, "%s: %s", u, err);
		return;
	}
	/* the table must have every column the sink inserts */
	const char *dot = strchr(table, '.');
	char sql[512];
	if (dot)
		snprintf(sql, sizeof(sql),
		         "SELECT name FROM system.columns WHERE database = '%.*s' AND table = '%s' FORMAT TSV",
		         (int)(dot - table), table, dot + 1);
	else
		snprintf(
		    sql, sizeof(sql),
		    "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '%s' FORMAT TSV",
		    table);
	with_path(u, sizeof(u), url, "/", true);
	code = http(u, sql, &b, err, sizeof(err));
	if (code != 200) {
		hw_diag_print(run, HW_DIAG_FAIL, "clickhouse", "check the user and database in the URL",
		              "%s: query failed (HTTP %ld): %.200s", url, code, code ? b.buf : err);
		return;
	}
	char missing[512] = "";
	size_t o = 0;
	unsigned n_missing = 0;
	const char *p = hw_ch_columns;
	while (*p) {
		size_t n = strcspn(p, ",");
		char col[64];
		snprintf(col, sizeof(col), "%.*s", (int)n, p);
		bool found = false;
		for (const char *l = b.buf; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0))
			if (!strncmp(l, col, n) && (l[n] == '\n' || l[n] == 0))
				found = true;
		if (!found && o < sizeof(missing)) {
			o += (size_t)snprintf(missing + o, sizeof(missing) - o, "%s%s", n_missing ? "," : "", col);
			n_missing++;
		}
		p += n + (p[n] == ',');
	}
	if (!b.len)
		hw_diag_print(run, HW_DIAG_FAIL, "clickhouse",
		              "create it: clickhouse-client --multiquery < deploy/clickhouse/schema.sql",
		              "%s is up but has no table %s", url, table);
	else if (n_missing)
		hw_diag_print(run, HW_DIAG_FAIL, "clickhouse", "recreate the table from deploy/clickhouse/schema.sql",
		              "table %s lacks %u record columns: %s", table, n_missing, missing);
	else
		hw_diag_print(run, HW_DIAG_PASS, "clickhouse", NULL, "%s answers; table %s has every record column",
		              url, table);
}

void hw_diag_alertmanager(struct hw_diag_list *run, const char *url)
{
	static struct body b;
	char err[256], u[1024];
	with_path(u, sizeof(u), url, "/-/ready", false);
	long code = http(u, NULL, &b, err, sizeof(err));
	const char *fix = "start Alertmanager or correct the URL (its --web.listen-address, default :9093)";
	if (code == 200)
		hw_diag_print(run, HW_DIAG_PASS, "alertmanager", NULL, "%s is ready", u);
	else if (code)
		hw_diag_print(run, HW_DIAG_FAIL, "alertmanager", fix, "%s answered HTTP %ld", u, code);
	else
		hw_diag_print(run, HW_DIAG_FAIL, "alertmanager", fix, "%s: %s", u, err);
}

void hw_diag_metrics(struct hw_diag_list *run, const char *url, const char *metric, const char *whose)
{
	static struct body b;
	char err[256], fix[300], wrong[300];
	long code = http(url, NULL, &b, err, sizeof(err));
	snprintf(fix, sizeof(fix), "start the %s with --metrics HOST:PORT%s and scrape http://HOST:PORT/metrics", whose,
	         strcmp(whose, "collector") ? "" : " (or sinks.metrics)");
	snprintf(wrong, sizeof(wrong), "point --metrics at a hopwatch %s's /metrics", whose);
	if (code == 200 && strstr(b.buf, metric))
		hw_diag_print(run, HW_DIAG_PASS, "metrics", NULL, "%s serves the %s's metrics", url, whose);
	else if (code == 200)
		hw_diag_print(run, HW_DIAG_FAIL, "metrics", wrong, "%s answers, but not with %s", url, metric);
	else if (code)
		hw_diag_print(run, HW_DIAG_FAIL, "metrics", fix, "%s answered HTTP %ld", url, code);
	else
		hw_diag_print(run, HW_DIAG_FAIL, "metrics", fix, "%s: %s", url, err);
}
