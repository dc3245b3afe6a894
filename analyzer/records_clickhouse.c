/* Records from ClickHouse for `hopwatch-analyzer run --clickhouse`: one streamed SELECT over the HTTP
 * interface (lib/common/http_client) in FORMAT RowBinary, each fixed-width row decoded into a record as it arrives
 * (by hw_ch_row_decode of lib/records). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_client.h"
#include "hopwatch/record_rowbinary.h"
#include "records_clickhouse.h"

/* A row of the SELECT below: the record fields in RowBinary (hw_ch_row_decode, lib/records). */
#define ROW_BYTES HW_CH_FIELD_ROW

static int parse_digits(const char **p, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (**p - '0');
	}
	*out = v;
	return 0;
}

int hw_parse_record_time(const char *s, uint64_t *ns, char *err, size_t errlen)
{
	if (*s && strspn(s, "0123456789") == strlen(s)) {
		char *end;
		unsigned long long v = strtoull(s, &end, 10);
		if (strlen(s) > 20 || (v == ~0ull && strcmp(s, "18446744073709551615"))) {
			snprintf(err, errlen, "'%s': out of range for ns since the epoch", s);
			return -1;
		}
		*ns = v;
		return 0;
	}
	const char *p = s;
	int Y, M, D, h, m, sec, oh = 0, om = 0;
	const char *bad = "expected ns since the epoch or RFC 3339 (2026-01-01T00:00:00.5Z)";
	if (parse_digits(&p, 4, &Y) || *p++ != '-' || parse_digits(&p, 2, &M) || *p++ != '-' ||
	    parse_digits(&p, 2, &D) || (*p != 'T' && *p != 't' && *p != ' ') || (p++, parse_digits(&p, 2, &h)) ||
	    *p++ != ':' || parse_digits(&p, 2, &m) || *p++ != ':' || parse_digits(&p, 2, &sec))
		goto fail;
	uint64_t frac = 0;
	int digits = 0;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 9)
				frac = frac * 10 + (uint64_t)(*p - '0');
			else if (*p != '0') {
				bad = "more than 9 fraction digits (ns is the finest)";
				goto fail;
			}
		if (!digits)
			goto fail;
		for (int i = digits; i < 9; i++)
			frac *= 10;
	}
	int sign = 0;
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (parse_digits(&p, 2, &oh) || *p++ != ':' || parse_digits(&p, 2, &om) || oh > 23 || om > 59)
			goto fail;
	} else {
		bad = "RFC 3339 needs a zone: Z or +hh:mm";
		goto fail;
	}
	if (*p || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60) {
		bad = *p ? "unexpected text after the time" : "a field is out of range";
		goto fail;
	}
	struct tm tm = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec};
	time_t t = timegm(&tm);
	t -= sign * (oh * 3600 + om * 60);
	if (t < 0 || tm.tm_mday != D) {
		bad = t < 0 ? "before 1970" : "no such day";
		goto fail;
	}
	*ns = (uint64_t)t * 1000000000ull + frac;
	return 0;
fail:
	snprintf(err, errlen, "'%s': %s", s, bad);
	return -1;
}

int hw_ch_replay_option(struct hw_ch_replay *q, const char *name, const char *value, char *err, size_t errlen)
{
	if (!strcmp(name, "clickhouse")) {
		if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8)) {
			snprintf(err, errlen, "--clickhouse %s: expected http://HOST:PORT/[?database=DB]", value);
			return -1;
		}
		q->url = value;
	} else if (!strcmp(name, "table")) {
		if (!*value || strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") !=
		                   strlen(value)) {
			snprintf(err, errlen, "--table '%s': expected [database.]table of letters, digits and _",
			         value);
			return -1;
		}
		q->table = value;
	} else {
		int from = !strcmp(name, "from");
		char why[256];
		if (hw_parse_record_time(value, from ? &q->from_ns : &q->to_ns, why, sizeof(why))) {
			snprintf(err, errlen, "--%s %s", name, why);
			return -1;
		}
		*(from ? &q->have_from : &q->have_to) = 1;
	}
	return 0;
}

int hw_ch_replay_check(const struct hw_ch_replay *q, char *err, size_t errlen)
{
	if (!q->url && (q->table || q->have_from || q->have_to))
		snprintf(err, errlen, "--%s needs --clickhouse URL",
		         q->table       ? "clickhouse-table"
		         : q->have_from ? "from"
		                        : "to");
	else if (q->url && (!q->have_from || !q->have_to))
		snprintf(err, errlen, "--clickhouse needs the time range: --from TIME --to TIME");
	else if (q->url && q->from_ns >= q->to_ns)
		snprintf(err, errlen, "--from %llu is not before --to %llu (ns since the epoch)",
		         (unsigned long long)q->from_ns, (unsigned long long)q->to_ns);
	else
		return 0;
	return -1;
}

struct reader {
	const struct hw_ch_replay *q;
	const char *table;
	const char *url; /* q->url with its password hidden, for messages */
	long code;
	uint8_t part[ROW_BYTES]; /* a row split between two pieces of the answer */
	size_t len;
	struct hw_record *buf;
	size_t n, n_cap;
	hw_ch_batch_fn fn;
	void *ctx;
	long long total; /* rows delivered; total + n decoded */
	int stopped, failed;
	char *err;
	size_t errlen;
	char body[1024]; /* an error answer's text */
	size_t body_len;
};

static int deliver(struct reader *r)
{
	if (r->n && !r->stopped && r->fn(r->ctx, r->buf, r->n))
		r->stopped = 1;
	r->total += (long long)r->n;
	r->n = 0;
	return r->stopped;
}

/* Bytes at p (n of them, a row or what is left at the end) that are not a row: an error ClickHouse
 * appended to the result once rows had gone out (HTTP 200 by then), or a broken answer. */
static int not_a_row(struct reader *r, const uint8_t *p, size_t n, const char *why)
{
	char text[301];
	size_t k = n < sizeof(text) - 1 ? n : sizeof(text) - 1;
	memcpy(text, p, k);
	text[k] = 0;
	if (!strncmp(text, "Code: ", 6) || strstr(text, "DB::Exception"))
		snprintf(r->err, r->errlen, "ClickHouse %s: table %s: the query failed after row %lld: %s", r->url,
		         r->table, r->total + (long long)r->n, text);
	else
		snprintf(r->err, r->errlen, "ClickHouse %s: table %s: row %lld: %s", r->url, r->table,
		         r->total + (long long)r->n + 1, why);
	r->failed = 1;
	return -1;
}

/* One complete row at p.  0 to go on. */
static int one_row(struct reader *r, const uint8_t *p, size_t avail)
{
	char why[256];
	if (hw_ch_row_decode(p, &r->buf[r->n], why, sizeof(why)))
		return not_a_row(r, p, avail, why);
	if (++r->n == r->n_cap)
		return deliver(r);
	return 0;
}

/* A piece of the answer.  0 to go on. */
static int on_data(void *arg, long status, const char *data, size_t n)
{
	struct reader *r = arg;
	r->code = status;
	if (r->code != 200) {
		size_t room = sizeof(r->body) - 1 - r->body_len, k = n < room ? n : room;
		memcpy(r->body + r->body_len, data, k);
		r->body_len += k;
		r->body[r->body_len] = 0;
		return 0;
	}
	const uint8_t *d = (const uint8_t *)data;
	size_t i = 0;
	if (r->len) { /* complete the row the last piece began */
		size_t k = ROW_BYTES - r->len < n ? ROW_BYTES - r->len : n;
		memcpy(r->part + r->len, d, k);
		r->len += k;
		i = k;
		if (r->len < ROW_BYTES)
			return 0;
		r->len = 0;
		if (one_row(r, r->part, ROW_BYTES))
			return 1; /* failed or stopped: the transfer ends */
	}
	for (; n - i >= ROW_BYTES; i += ROW_BYTES)
		if (one_row(r, d + i, n - i))
			return 1;
	memcpy(r->part, d + i, n - i);
	r->len = n - i;
	return 0;
}

/* The answer ended: http_err when the request failed (NULL when an answer came), status its HTTP status.  The
 * records delivered, or -1 with r->err set. */
static long long reply_end(struct reader *r, const char *http_err, long status)
{
	if (!r->code)
		r->code = status;
	if (r->failed)
		return -1; /* err is set */
	if (http_err && !r->stopped) {
		snprintf(r->err, r->errlen, "ClickHouse %s", http_err);
		return -1;
	}
	if (r->code != 200 && !r->stopped) {
		char *nl = strchr(r->body, '\n');
		if (nl)
			*nl = 0;
		snprintf(r->err, r->errlen, "ClickHouse %s: table %s: HTTP %ld: %s", r->url, r->table, r->code,
		         r->body);
		return -1;
	}
	if (r->len && !r->stopped) /* bytes after the last whole row */
		not_a_row(r, r->part, r->len, "a row cut short at the end of the answer");
	if (r->failed)
		return -1;
	deliver(r);
	return r->total;
}

long long hw_ch_replay_run(const struct hw_ch_replay *q, struct hw_record *buf, size_t cap, hw_ch_batch_fn fn,
                           void *ctx, char *err, size_t errlen)
{
	struct reader r = {.q = q,
	                   .table = q->table ? q->table : "hops",
	                   .buf = buf,
	                   .n_cap = cap,
	                   .fn = fn,
	                   .ctx = ctx,
	                   .err = err,
	                   .errlen = errlen};
	char sql[2048];
	snprintf(sql, sizeof(sql),
	         "SELECT %s FROM %s WHERE time_ns >= %llu AND time_ns < %llu "
	         "ORDER BY time_ns, report_node, hw_id, report_seq, report_pos FORMAT RowBinary",
	         hw_ch_field_columns, r.table, (unsigned long long)q->from_ns, (unsigned long long)q->to_ns);
	/* a query that sends nothing for 5 minutes (sorting a huge range) is given up */
	const struct hw_http_opts ho = {
	    .connect_timeout_ms = 5000, .low_speed_time_s = 300, .on_body = on_data, .ctx = &r};
	struct hw_http *h = hw_http_open(q->url, &ho, err, errlen);
	if (!h)
		return -1;
	r.url = hw_http_url(h);
	struct hw_http_reply rep;
	int rc = hw_http_post(h, sql, strlen(sql), &rep);
	long long out = reply_end(&r, rc ? rep.err : NULL, rep.status);
	hw_http_close(h);
	return out;
}
