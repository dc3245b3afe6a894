/* Records from ClickHouse for `hopwatch-analyzer run --clickhouse`: one streamed SELECT over the HTTP
 * interface (libcurl), each JSONEachRow line parsed by the JSON-lines record parser as it arrives. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "records_clickhouse.h"
#include "records_jsonl.h"

/* Every column of the schema under its JSON-lines key; valid and report_flags come as integers
 * (records_jsonl.c takes them as they are), addresses and the flow hash as the text JSON lines use. */
static const char select_list[] =
    "time_ns,report_node,hw_id,report_seq,report_flags,format,int_version,valid,hop_index,path_len,node_id,"
    "ingress_port,egress_port,l2_ingress_port,l2_egress_port,hop_latency,queue_id,queue_occupancy,ingress_ts,"
    "egress_ts,egress_tx_util,buffer_id,buffer_occupancy,drop_reason,IPv6NumToString(src_ip) AS src_ip,"
    "IPv6NumToString(dst_ip) AS dst_ip,src_port,dst_port,ip_proto,dscp,ecn,roce_opcode,roce_dest_qp,"
    "lower(hex(flow_hash)) AS flow_hash";

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
		snprintf(err, errlen, "--%s needs --clickhouse URL", q->table ? "table" : q->have_from ? "from" : "to");
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
	char *line;
	size_t len, cap;
	struct hw_record *buf;
	size_t n, n_cap;
	hw_ch_batch_fn fn;
	void *ctx;
	long long total;
	unsigned long row;
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

/* One complete line of the result (NUL-terminated in r->line).  0 to go on. */
static int one_line(struct reader *r)
{
	if (!r->len)
		return 0;
	r->row++;
	char why[256];
	if (strstr(r->line, "DB::Exception") || !strncmp(r->line, "Code: ", 6)) {
		snprintf(r->err, r->errlen, "ClickHouse %s: table %s: the query failed after row %lu: %.300s",
		         r->q->url, r->table, r->row - 1, r->line);
		r->failed = 1;
		return -1;
	}
	if (hw_record_from_json_line(r->line, &r->buf[r->n], why, sizeof(why))) {
		snprintf(r->err, r->errlen, "ClickHouse %s: table %s: row %lu: %s", r->q->url, r->table, r->row, why);
		r->failed = 1;
		return -1;
	}
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
	for (size_t i = 0; i < n;) {
		char *nl = memchr(data + i, '\n', n - i);
		size_t k = nl ? (size_t)(nl - (data + i)) : n - i;
		if (r->len + k + 1 > r->cap) {
			size_t cap = (r->len + k + 1) * 2;
			char *p = realloc(r->line, cap);
			if (!p) {
				snprintf(r->err, r->errlen, "out of memory for a row of %zu bytes", r->len + k);
				r->failed = 1;
				return 0;
			}
			r->line = p;
			r->cap = cap;
		}
		memcpy(r->line + r->len, data + i, k);
		r->len += k;
		r->line[r->len] = 0;
		i += k;
		if (!nl)
			break;
		i++;
		int rc = one_line(r);
		r->len = 0;
		if (rc)
			return 0; /* failed or stopped: curl ends the transfer */
	}
	return n;
}

static char *query_url(const struct hw_ch_replay *q)
{
	const char *u = q->url, *qm = strchr(u, '?');
	size_t ul = strlen(u);
	const char *sep = !qm ? "?" : (u[ul - 1] == '?' || u[ul - 1] == '&') ? "" : "&";
	size_t n = ul + 64;
	char *out = malloc(n);
	if (out)
		snprintf(out, n, "%s%soutput_format_json_quote_64bit_integers=0", u, sep);
	return out;
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
	char sql[2048], ebuf[CURL_ERROR_SIZE] = "";
	snprintf(sql, sizeof(sql),
	         "SELECT %s FROM %s WHERE time_ns >= %llu AND time_ns < %llu "
	         "ORDER BY time_ns, report_node, hw_id, report_seq, report_pos FORMAT JSONEachRow",
	         select_list, r.table, (unsigned long long)q->from_ns, (unsigned long long)q->to_ns);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	r.curl = curl_easy_init();
	char *url = r.curl ? query_url(q) : NULL;
	if (!url) {
		snprintf(err, errlen, "out of memory");
		curl_easy_cleanup(r.curl);
		return -1;
	}
	curl_easy_setopt(r.curl, CURLOPT_URL, url);
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
		if (r.len && !r.stopped) /* a last row without its newline */
			one_line(&r);
		if (!r.failed) {
			deliver(&r);
			out = r.total;
		}
	}
	free(r.line);
	free(url);
	curl_easy_cleanup(r.curl);
	return out;
}
