/* Records from ClickHouse for `hopwatch-analyzer run --clickhouse`: one streamed SELECT over the HTTP
 * interface (libcurl) in FORMAT RowBinary, each fixed-width row decoded into a record as it arrives. */
#include <curl/curl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "records_clickhouse.h"

/* The columns read back, in SELECT order: every record field, as schema.sql stores it (each column
 * is its field's width; FixedString(16) for the addresses).  With FORMAT RowBinary a row is these
 * values back to back, little-endian: ROW_BYTES in all. */
#define CH_COLUMNS(X)                                                                                                  \
	X(time_ns)                                                                                                     \
	X(report_node)                                                                                                 \
	X(hw_id)                                                                                                       \
	X(report_seq) X(report_flags) X(format) X(int_version) X(valid) X(hop_index) X(path_len) X(node_id)            \
	    X(ingress_port) X(egress_port) X(l2_ingress_port) X(l2_egress_port) X(hop_latency) X(queue_id)             \
	        X(queue_occupancy) X(ingress_ts) X(egress_ts) X(egress_tx_util) X(buffer_id) X(buffer_occupancy)       \
	            X(drop_reason) X(src_ip) X(dst_ip) X(src_port) X(dst_port) X(ip_proto) X(dscp) X(ecn)              \
	                X(roce_opcode) X(roce_dest_qp) X(flow_hash)
#define FIELD_SIZE(f) sizeof(((struct hw_record *)0)->f)
#define X_COL(f) {#f, offsetof(struct hw_record, f), FIELD_SIZE(f)},
static const struct column {
	const char *name;
	uint16_t off, size;
} columns[] = {CH_COLUMNS(X_COL)};
#undef X_COL
#define X_BYTES(f) +FIELD_SIZE(f)
enum { ROW_BYTES = 0 CH_COLUMNS(X_BYTES) };
#undef X_BYTES
_Static_assert(ROW_BYTES == 133, "a hops row is 133 bytes (schema.sql without report_pos)");

/* One RowBinary row into r: each column's little-endian bytes into its field.  0, or -1 with what
 * is wrong in why (a value no hops row can hold: how a text that is not a row, such as an error
 * ClickHouse appended, shows). */
static int row_decode(const uint8_t *p, struct hw_record *r, char *why, size_t n)
{
	memset(r, 0, sizeof(*r));
	for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++) {
		uint8_t *f = (uint8_t *)r + columns[c].off;
		const unsigned size = columns[c].size;
		if (size > 8) { /* an address: bytes in order */
			memcpy(f, p, size);
		} else {
			uint64_t v = 0;
			for (unsigned i = 0; i < size; i++)
				v |= (uint64_t)p[i] << (8 * i);
			switch (size) {
			case 1: *f = (uint8_t)v; break;
			case 2: memcpy(f, &(uint16_t){(uint16_t)v}, 2); break;
			case 4: memcpy(f, &(uint32_t){(uint32_t)v}, 4); break;
			default: memcpy(f, &v, 8); break;
			}
		}
		p += size;
	}
	if (r->format > HW_FORMAT_INT || r->int_version > HW_INT_V21 || r->report_flags >= 32 ||
	    r->valid >= (HW_V_ROCE << 1) || r->hw_id >= 64 || r->dscp >= 64 || r->ecn >= 4)
		snprintf(why, n, "not a hops row (format %u, int_version %u, report_flags %u, valid %u)", r->format,
		         r->int_version, r->report_flags, r->valid);
	else
		return 0;
	return -1;
}

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
		snprintf(err, errlen, "--%s needs --clickhouse URL", q->table ? "clickhouse-table" : q->have_from ? "from" : "to");
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
	CURL *curl;
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
		snprintf(r->err, r->errlen, "ClickHouse %s: table %s: the query failed after row %lld: %s", r->q->url,
		         r->table, r->total + (long long)r->n, text);
	else
		snprintf(r->err, r->errlen, "ClickHouse %s: table %s: row %lld: %s", r->q->url, r->table,
		         r->total + (long long)r->n + 1, why);
	r->failed = 1;
	return -1;
}

/* One complete row at p.  0 to go on. */
static int one_row(struct reader *r, const uint8_t *p, size_t avail)
{
	char why[256];
	if (row_decode(p, &r->buf[r->n], why, sizeof(why)))
		return not_a_row(r, p, avail, why);
	if (++r->n == r->n_cap)
		return deliver(r);
	return 0;
}

static size_t on_data(char *data, size_t size, size_t nmemb, void *arg)
{
	struct reader *r = arg;
	size_t n = size * nmemb;
	if (!r->code)
		curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &r->code);
	if (r->code != 200) {
		size_t room = sizeof(r->body) - 1 - r->body_len, k = n < room ? n : room;
		memcpy(r->body + r->body_len, data, k);
		r->body_len += k;
		r->body[r->body_len] = 0;
		return n;
	}
	const uint8_t *d = (const uint8_t *)data;
	size_t i = 0;
	if (r->len) { /* complete the row the last piece began */
		size_t k = ROW_BYTES - r->len < n ? ROW_BYTES - r->len : n;
		memcpy(r->part + r->len, d, k);
		r->len += k;
		i = k;
		if (r->len < ROW_BYTES)
			return n;
		r->len = 0;
		if (one_row(r, r->part, ROW_BYTES))
			return 0; /* failed or stopped: curl ends the transfer */
	}
	for (; n - i >= ROW_BYTES; i += ROW_BYTES)
		if (one_row(r, d + i, n - i))
			return 0;
	memcpy(r->part, d + i, n - i);
	r->len = n - i;
	return n;
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
	char select_list[1024], sql[2048], ebuf[CURL_ERROR_SIZE] = "";
	size_t o = 0;
	for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++)
		o += (size_t)snprintf(select_list + o, sizeof(select_list) - o, "%s%s", c ? "," : "", columns[c].name);
	snprintf(sql, sizeof(sql),
	         "SELECT %s FROM %s WHERE time_ns >= %llu AND time_ns < %llu "
	         "ORDER BY time_ns, report_node, hw_id, report_seq, report_pos FORMAT RowBinary",
	         select_list, r.table, (unsigned long long)q->from_ns, (unsigned long long)q->to_ns);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	r.curl = curl_easy_init();
	if (!r.curl) {
		snprintf(err, errlen, "out of memory");
		curl_easy_cleanup(r.curl);
		return -1;
	}
	curl_easy_setopt(r.curl, CURLOPT_URL, q->url);
	curl_easy_setopt(r.curl, CURLOPT_POSTFIELDS, sql);
	curl_easy_setopt(r.curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r.curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	/* a query that sends nothing for 5 minutes (sorting a huge range) is given up */
	curl_easy_setopt(r.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(r.curl, CURLOPT_LOW_SPEED_TIME, 300L);
	curl_easy_setopt(r.curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(r.curl, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(r.curl, CURLOPT_ERRORBUFFER, ebuf);
	CURLcode rc = curl_easy_perform(r.curl);
	if (!r.code)
		curl_easy_getinfo(r.curl, CURLINFO_RESPONSE_CODE, &r.code);
	long long out = -1;
	if (r.failed) {
		/* err is set */
	} else if (rc != CURLE_OK && !r.stopped) {
		snprintf(err, errlen, "ClickHouse %s: %s", q->url, *ebuf ? ebuf : curl_easy_strerror(rc));
	} else if (r.code != 200 && !r.stopped) {
		char *nl = strchr(r.body, '\n');
		if (nl)
			*nl = 0;
		snprintf(err, errlen, "ClickHouse %s: table %s: HTTP %ld: %s", q->url, r.table, r.code, r.body);
	} else {
		if (r.len && !r.stopped) /* bytes after the last whole row */
			not_a_row(&r, r.part, r.len, "a row cut short at the end of the answer");
		if (!r.failed) {
			deliver(&r);
			out = r.total;
		}
	}
	curl_easy_cleanup(r.curl);
	return out;
}
