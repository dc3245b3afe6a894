/* Alert text for people: values with units, UTC times, the place of an event, and an alert's labels and
 * annotations (summary, description, graph link) as the Alertmanager and webhook bodies carry them. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "alert_text.h"

/* v with 3 significant digits at most, no exponent, no trailing zeros ("1.2", "43", "950"). */
static void fmt_sig(double v, const char *unit, char *buf, size_t size)
{
	double a = fabs(v);
	int decimals = a >= 100 || a == 0 ? 0 : a >= 10 ? 1 : 2;
	char num[64];
	snprintf(num, sizeof(num), "%.*f", decimals, v);
	if (strchr(num, '.')) { /* 1.20 -> 1.2, 2.00 -> 2 */
		size_t n = strlen(num);
		while (num[n - 1] == '0')
			num[--n] = 0;
		if (num[n - 1] == '.')
			num[--n] = 0;
	}
	snprintf(buf, size, "%s %s", num, unit);
}

void hw_fmt_bytes(double v, char *buf, size_t size)
{
	static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
	unsigned u = 0;
	while (fabs(v) >= 999.5 && u < 4) {
		v /= 1000;
		u++;
	}
	fmt_sig(v, unit[u], buf, size);
}

void hw_fmt_duration(double ns, char *buf, size_t size)
{
	double a = fabs(ns);
	if (a < 999.5)
		fmt_sig(ns, "ns", buf, size);
	else if (a < 999.5e3)
		fmt_sig(ns / 1e3, "µs", buf, size);
	else if (a < 999.5e6)
		fmt_sig(ns / 1e6, "ms", buf, size);
	else
		fmt_sig(ns / 1e9, "s", buf, size);
}

void hw_fmt_utc(uint64_t ns, char *buf, size_t size)
{
	time_t s = (time_t)(ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&s, &tm);
	size_t n = strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%03u UTC", (unsigned)(ns % 1000000000ull / 1000000u));
}

void hw_fmt_node_id(uint32_t id, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u.%u", id >> 24, (id >> 16) & 0xff, (id >> 8) & 0xff, id & 0xff);
}

void hw_fmt_number(const char *alertname, const char *name, double v, char *buf, size_t size)
{
	int latency = strcmp(alertname, "HighHopLatency") == 0;
	if (!strcmp(name, "eta_ms"))
		hw_fmt_duration(v * 1e6, buf, size);
	else if (!strcmp(name, "duration_us"))
		hw_fmt_duration(v * 1e3, buf, size);
	else if (!strcmp(name, "ratio"))
		fmt_sig(v * 100, "%", buf, size);
	else if (!strcmp(name, "slope_per_ms")) {
		hw_fmt_bytes(v, buf, size);
		strncat(buf, "/ms", size - strlen(buf) - 1);
	} else if (latency && (!strcmp(name, "peak") || !strcmp(name, "threshold") || strstr(name, "latency")))
		hw_fmt_duration(v, buf, size);
	else if (strstr(name, "occupancy") || !strcmp(name, "predicted") || !strcmp(name, "peak") ||
	         (!strcmp(name, "threshold") && strcmp(alertname, "TelemetryReportLoss") &&
	          strcmp(alertname, "PacketDrops")))
		hw_fmt_bytes(v, buf, size);
	else if (!strcmp(name, "threshold"))
		fmt_sig(v * 100, "%", buf, size); /* TelemetryReportLoss, PacketDrops: a ratio */
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.3g", v);
}

static void add(struct hw_alert_kv *l, const char *k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(struct hw_alert_kv *l, const char *k, const char *fmt, ...)
{
	if (l->n >= HW_ALERT_KV_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	l->kv[l->n].k = k;
	vsnprintf(l->kv[l->n].v, HW_ALERT_VAL_MAX, fmt, ap);
	va_end(ap);
	l->n++;
}

void hw_alert_labels(const struct hw_an_event *e, const char *incident, struct hw_alert_kv *l)
{
	char id[20];
	l->n = 0;
	add(l, "alertname", "%s", e->alertname);
	add(l, "severity", "%s", e->severity ? e->severity : "warning");
	add(l, "job", "hopwatch-analyzer");
	if (e->node_id) {
		hw_fmt_node_id(e->node_id, id, sizeof(id));
		add(l, "node", "%s", id);
	} else if (e->node[0]) {
		add(l, "node", "%s", e->node);
	}
	if (e->node[0])
		add(l, "node_name", "%s", e->node);
	if (e->node_id)
		add(l, "node_id", "%" PRIu32, e->node_id);
	if (e->port != UINT32_MAX) {
		if (e->port_name[0])
			add(l, "port", "%s", e->port_name);
		else
			add(l, "port", "%" PRIu32, e->port);
	}
	if (e->queue >= 0)
		add(l, "queue", "%d", e->queue);
	if (e->hw_id >= 0)
		add(l, "hw_id", "%d", e->hw_id);
	if (e->link[0])
		add(l, "link", "%s", e->link);
	if (incident && incident[0])
		add(l, "incident", "%s", incident);
}

/* "leaf1 (10.255.1.1) port Ethernet3 queue 3", "10.255.1.1 port 3", or "the fabric". */
static void place(const struct hw_an_event *e, char *buf, size_t size)
{
	char id[20];
	size_t o = 0;
	buf[0] = 0;
	hw_fmt_node_id(e->node_id, id, sizeof(id));
	if (e->node[0] && e->node_id)
		o += (size_t)snprintf(buf + o, size - o, "%s (%s)", e->node, id);
	else if (e->node[0] || e->node_id)
		o += (size_t)snprintf(buf + o, size - o, "%s", e->node[0] ? e->node : id);
	else
		o += (size_t)snprintf(buf + o, size - o, "the fabric");
	if (o < size && e->port != UINT32_MAX) {
		if (e->port_name[0])
			o += (size_t)snprintf(buf + o, size - o, " port %s", e->port_name);
		else
			o += (size_t)snprintf(buf + o, size - o, " port %" PRIu32, e->port);
	}
	if (o < size && e->queue >= 0)
		o += (size_t)snprintf(buf + o, size - o, " queue %d", e->queue);
	if (o < size && e->hw_id >= 0)
		snprintf(buf + o, size - o, " (reporter hw_id %d)", e->hw_id);
}

/* "occupancy 1.2 MB, threshold 1 MB" into buf. */
static void values(const struct hw_an_event *e, const char *sep, char *buf, size_t size)
{
	size_t o = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < e->n_numbers && o < size; i++) {
		char v[64];
		hw_fmt_number(e->alertname, e->numbers[i].name, e->numbers[i].value, v, sizeof(v));
		o += (size_t)snprintf(buf + o, size - o, "%s%s %s", i ? sep : "", e->numbers[i].name, v);
	}
}

void hw_alert_graph_url(const char *base, const char *svg, char *buf, size_t size)
{
	buf[0] = 0;
	if (!base || !base[0] || !svg || !svg[0])
		return;
	size_t bl = strlen(base);
	while (bl && base[bl - 1] == '/')
		bl--;
	const char *file = strrchr(svg, '/');
	snprintf(buf, size, "%.*s/svg/%s", (int)bl, base, file ? file + 1 : svg);
}

void hw_alert_annotations(const struct hw_an_event *e, const char *svg, const char *graph_url, struct hw_alert_kv *a)
{
	char where[400], vals[600], since[48], lasted[48] = "";
	place(e, where, sizeof(where));
	values(e, ", ", vals, sizeof(vals));
	hw_fmt_utc(e->start_ns, since, sizeof(since));
	if (e->resolved && e->end_ns >= e->start_ns)
		hw_fmt_duration((double)(e->end_ns - e->start_ns), lasted, sizeof(lasted));
	a->n = 0;
	add(a, "summary", "%s at %s%s%s since %s%s%s", e->alertname, where, vals[0] ? ": " : "", vals, since,
	    lasted[0] ? ", lasted " : "", lasted);
	char d[HW_ALERT_VAL_MAX];
	size_t o = (size_t)snprintf(d, sizeof(d), "%s (%s) at %s.", e->alertname, e->severity ? e->severity : "warning",
	                            where);
	if (o < sizeof(d) && e->link[0])
		o += (size_t)snprintf(d + o, sizeof(d) - o, " Link: %s.", e->link);
	if (o < sizeof(d) && e->detail[0])
		o += (size_t)snprintf(d + o, sizeof(d) - o, " %s.", e->detail);
	if (o < sizeof(d) && vals[0])
		o += (size_t)snprintf(d + o, sizeof(d) - o, " Values: %s.", vals);
	if (o < sizeof(d))
		o += (size_t)snprintf(d + o, sizeof(d) - o, " Started %s", since);
	if (o < sizeof(d))
		o += (size_t)snprintf(d + o, sizeof(d) - o, lasted[0] ? ", lasted %s." : "%s, still going.", lasted);
	if (o < sizeof(d) && e->n_flows)
		snprintf(d + o, sizeof(d) - o, " Flows affected: %u%s.", e->n_flows,
		         e->n_flows == HW_AN_MAX_FLOWS ? " or more" : "");
	add(a, "description", "%s", d);
	for (unsigned i = 0; i < e->n_numbers; i++)
		add(a, e->numbers[i].name, "%.17g", e->numbers[i].value);
	add(a, "event_id", "%" PRIu64, e->id);
	if (graph_url && graph_url[0])
		add(a, "graph_url", "%s", graph_url);
	else if (svg && svg[0])
		add(a, "svg", "%s", svg);
}
