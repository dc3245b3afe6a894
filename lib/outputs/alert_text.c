/* Alert text for people: values with units, UTC times, the place of an event, and an alert's labels and
 * annotations (summary, description, graph link) as the Alertmanager and webhook bodies carry them. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert_text.h"
#include "hopwatch/wire.h"
#include "clock.h"

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
	hw_utc_fmt(ns, HW_UTC_PEOPLE, 3, buf, size);
}

void hw_fmt_node_id(uint32_t id, char *buf, size_t size)
{
	snprintf(buf, size, "%u.%u.%u.%u", id >> 24, (id >> 16) & 0xff, (id >> 8) & 0xff, id & 0xff);
}

/* How an event's numbers are said to people: the unit their value is in and the words that name them
 * ("%s" where the value goes, else after the words; one: the words for a value of 1, when they differ).  The first row
 * whose alertname (NULL: any) and name match is the one; a name with no row is said as itself (spaces for underscores),
 * a count. */
enum num_unit { N_COUNT, N_BYTES, N_NS, N_US, N_MS, N_SHARE, N_BYTES_PER_MS, N_DROP_REASON, N_HOP_INDEX };
static const struct num_words {
	const char *alertname, *name, *words;
	enum num_unit unit;
	const char *one;
} num_words[] = {
    {"HighHopLatency", "peak", "peak", N_NS, NULL},
    {"HighHopLatency", "threshold", "threshold", N_NS, NULL},
    {"TelemetryReportLoss", "threshold", "threshold", N_SHARE, NULL},
    {"PacketDrops", "threshold", "threshold", N_SHARE, NULL},
    {NULL, "peak", "peak", N_BYTES, NULL},
    {NULL, "threshold", "threshold", N_BYTES, NULL},
    {NULL, "occupancy", "occupancy", N_BYTES, NULL},
    {NULL, "hop_latency", "hop latency", N_NS, NULL},
    {NULL, "predicted", "predicted", N_BYTES, NULL},
    {NULL, "slope_per_ms", "rising", N_BYTES_PER_MS, NULL},
    {NULL, "eta_ms", "reaches the threshold in", N_MS, NULL},
    {NULL, "duration_us", "length", N_US, NULL},
    {NULL, "rise_us", "reached HighQueue in", N_US, NULL},
    {"PacketDrops", "ratio", "dropped", N_SHARE, NULL},
    {"TelemetryReportLoss", "ratio", "lost", N_SHARE, NULL},
    {NULL, "ratio", "share", N_SHARE, NULL},
    {NULL, "lost", "reports lost", N_COUNT, NULL},
    {NULL, "expected", "reports expected", N_COUNT, NULL},
    {NULL, "moved_flows", "%s flows moved", N_COUNT, "%s flow moved"},
    {NULL, "moved_back", "%s moved back", N_COUNT, NULL},
    {NULL, "crossed", "%s left the link", N_COUNT, NULL},
    {"PathChange", "hop", "paths part at hop %s", N_HOP_INDEX, NULL},
    {NULL, "old_hops", "hops before", N_COUNT, NULL},
    {NULL, "new_hops", "hops now", N_COUNT, NULL},
    {NULL, "min_sources", "threshold %s sources", N_COUNT, "threshold %s source"},
    {NULL, "root_occupancy", "root occupancy", N_BYTES, NULL},
    {NULL, "expected_dscp", "expected DSCP", N_COUNT, NULL},
    {NULL, "expected_queue", "expected queue", N_COUNT, NULL},
    {NULL, "dscp", "DSCP", N_COUNT, NULL},
    {NULL, "seen", "records", N_COUNT, NULL},
    {NULL, "drop_reason", "drop reason", N_DROP_REASON, NULL},
    {NULL, "aftermath_bursts", "%s bursts as it drained", N_COUNT, "%s burst as it drained"},
    {NULL, "aftermath_peak", "peaking at", N_BYTES, NULL}, /* after aftermath_bursts: one burst or more */
};

static const struct num_words *num_words_of(const char *alertname, const char *name)
{
	for (size_t i = 0; i < sizeof(num_words) / sizeof(num_words[0]); i++)
		if ((!num_words[i].alertname || !strcmp(num_words[i].alertname, alertname)) &&
		    !strcmp(num_words[i].name, name))
			return &num_words[i];
	return NULL;
}

/* v in the unit of row w (NULL: a count). */
static void fmt_value(const struct num_words *w, double v, char *buf, size_t size)
{
	switch (w ? w->unit : N_COUNT) {
	case N_BYTES: hw_fmt_bytes(v, buf, size); return;
	case N_NS: hw_fmt_duration(v, buf, size); return;
	case N_US: hw_fmt_duration(v * 1e3, buf, size); return;
	case N_MS: hw_fmt_duration(v * 1e6, buf, size); return;
	case N_SHARE: fmt_sig(v * 100, "%", buf, size); return;
	case N_BYTES_PER_MS:
		hw_fmt_bytes(v, buf, size);
		strncat(buf, "/ms", size - strlen(buf) - 1);
		return;
	case N_DROP_REASON:
		if (v >= 0 && v < 256 && v == floor(v) && hw_drop_reason_name((unsigned)v)) {
			snprintf(buf, size, "%.0f (%s)", v, hw_drop_reason_name((unsigned)v)); /* the code, in words */
			return;
		}
		break;
	case N_HOP_INDEX: v += 1; break; /* an index from 0 (the first switch), said from 1 as people count hops */
	case N_COUNT: break;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.3g", v);
}

void hw_fmt_number(const char *alertname, const char *name, double v, char *buf, size_t size)
{
	fmt_value(num_words_of(alertname, name), v, buf, size);
}

void hw_fmt_named(const char *alertname, const char *name, double v, char *buf, size_t size)
{
	const struct num_words *w = num_words_of(alertname, name);
	char val[128]; /* the longest: a drop reason, its code and its name (drop_reasons.c: 50 bytes at most) */
	fmt_value(w, v, val, sizeof(val));
	char own[64];
	if (!w) { /* no words: its name, spaces for underscores */
		snprintf(own, sizeof(own), "%s", name);
		for (char *c = own; *c; c++)
			*c = *c == '_' ? ' ' : *c;
	}
	const char *words = !w ? own : w->one && v == 1 ? w->one : w->words, *at = strstr(words, "%s");
	if (at)
		snprintf(buf, size, "%.*s%s%s", (int)(at - words), words, val, at + 2);
	else
		snprintf(buf, size, "%s %s", words, val);
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
	char id[20] = "";
	l->n = 0;
	add(l, "alertname", "%s", e->alertname);
	add(l, "severity", "%s", e->severity ? e->severity : "warning");
	add(l, "job", "hopwatch-analyzer");
	if (e->node_id) {
		hw_fmt_node_id(e->node_id, id, sizeof(id)); /* the instance below names an unplaced node by it too */
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
	/* The cause of an incident (where an incast's senders meet, a link that went down) also carries instance:
	 * Alertmanager lists a notification's alerts by job, then instance (one that has it before one that does
	 * not), then the label set (alert.AlertSlice.Less), so the cause comes before its trees and drops. */
	if (hw_alert_rank(e) == 0) {
		if (e->link[0] && e->port == UINT32_MAX)
			add(l, "instance", "%s", e->link);
		else if (e->port != UINT32_MAX && e->port_name[0])
			add(l, "instance", "%s:%s", e->node[0] ? e->node : id, e->port_name);
		else if (e->port != UINT32_MAX)
			add(l, "instance", "%s:%" PRIu32, e->node[0] ? e->node : id, e->port);
		else
			add(l, "instance", "%s", e->node[0] ? e->node : id);
	}
}

int hw_alert_rank(const struct hw_an_event *e)
{
	if (!strcmp(e->alertname, "Incast") || !strcmp(e->alertname, "LinkDown"))
		return 0;
	return !strcmp(e->alertname, "CongestionTree") ? 1 : 2;
}

void hw_alert_place(const struct hw_an_event *e, char *buf, size_t size)
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

/* "occupancy 1.2 MB, threshold 1 MB" into buf; with per_line, a new line after every per_line numbers; the number
 * named skip (NULL: none) left out. */
static void values(const struct hw_an_event *e, const char *sep, unsigned per_line, const char *skip, char *buf,
                   size_t size)
{
	size_t o = 0;
	buf[0] = 0;
	for (unsigned i = 0, k = 0; i < e->n_numbers && o < size; i++) {
		if (skip && !strcmp(e->numbers[i].name, skip))
			continue;
		char v[200]; /* the words (30 bytes at most) and hw_fmt_named's value (128) */
		hw_fmt_named(e->alertname, e->numbers[i].name, e->numbers[i].value, v, sizeof(v));
		o += (size_t)snprintf(buf + o, size - o, "%s%s",
		                      !k                              ? ""
		                      : per_line && k % per_line == 0 ? "\n"
		                                                      : sep,
		                      v);
		k++;
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

/* One queue of a CongestionTree detail, "NODE:PORT/Q" (the topology's names, or node id and port number when
 * unplaced), split for people: node "spine2" ("10.0.0.5" unplaced, dotted as the node label has it), port
 * "Ethernet3" ("port 3" unplaced), queue "3"; 0 when the token is not of that shape (a detail cut short). */
struct victim {
	char node[96], port[64], queue[16];
};
static int victim_parse(const char *tok, size_t len, struct victim *v)
{
	const char *slash = NULL, *colon = NULL;
	for (const char *p = tok + len; p > tok && !slash; p--)
		if (p[-1] == '/')
			slash = p - 1;
	for (const char *p = slash; p && p > tok && !colon; p--)
		if (p[-1] == ':')
			colon = p - 1;
	if (!slash || !colon || colon == tok || slash == colon + 1 || slash + 1 == tok + len)
		return 0;
	char *end;
	snprintf(v->node, sizeof(v->node), "%.*s", (int)(colon - tok), tok);
	unsigned long id = strtoul(v->node, &end, 10);
	if (!*end && id <= UINT32_MAX) /* unplaced: the node id, shown dotted as the node label has it */
		hw_fmt_node_id((uint32_t)id, v->node, sizeof(v->node));
	size_t pl = (size_t)(slash - colon - 1);
	int number = strspn(colon + 1, "0123456789") >= pl; /* unplaced: "port 3" */
	snprintf(v->port, sizeof(v->port), "%s%.*s", number ? "port " : "", (int)pl, colon + 1);
	snprintf(v->queue, sizeof(v->queue), "%.*s", (int)(tok + len - slash - 1), slash + 1);
	return 1;
}

/* Victims in the order a person scans them: by switch, then port, names compared as versions (spine2 before
 * spine10). */
static int victim_cmp(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;
	int c = strverscmp(x->node, y->node);
	return c ? c : strverscmp(x->port, y->port);
}

#define VICTIMS_NAMED 16 /* a detail names at most 8 (the detector's bound); more would be cut short anyway */

/* The victims a CongestionTree's detail names ("root R, victims V1 V2 ...") for a chat line: how many, their
 * queue once when they share it, then each switch once with its ports ("victims (8, queue 3): leaf6 (Ethernet9,
 * Ethernet10), spine1 Ethernet1, ..."), with "and N more" when the detail (bounded) or the detector (at most 8)
 * named fewer than it counted.  "" when the detail names none. */
static void victims_text(const struct hw_an_event *e, char *buf, size_t size)
{
	unsigned counted = 0, named = 0;
	for (unsigned i = 0; i < e->n_numbers; i++)
		if (!strcmp(e->numbers[i].name, "victims") && e->numbers[i].value > 0)
			counted = (unsigned)e->numbers[i].value;
	struct victim v[VICTIMS_NAMED];
	const char *p = strstr(e->detail, ", victims");
	int cut = strlen(e->detail) == sizeof(e->detail) - 1; /* its last token may be cut short */
	for (p = p ? p + strlen(", victims") : ""; *p && named < VICTIMS_NAMED;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (!n || (cut && !p[n]) || !victim_parse(p, n, &v[named]))
			break;
		named++;
		p += n;
	}
	buf[0] = 0;
	if (!named)
		return;
	qsort(v, named, sizeof(v[0]), victim_cmp);
	int one_queue = 1;
	for (unsigned i = 1; i < named; i++)
		one_queue &= !strcmp(v[i].queue, v[0].queue);
	counted = counted > named ? counted : named;
	size_t o = (size_t)snprintf(buf, size, "(%u%s%s): ", counted, one_queue ? ", queue " : "",
	                            one_queue ? v[0].queue : "");
	for (unsigned i = 0; i < named && o < size;) {
		unsigned j = i + 1; /* v[i..j): one switch's ports */
		while (j < named && !strcmp(v[j].node, v[i].node))
			j++;
		o += (size_t)snprintf(buf + o, size - o, "%s%s %s", i ? ", " : "", v[i].node, j - i > 1 ? "(" : "");
		for (unsigned k = i; k < j && o < size; k++)
			o += (size_t)snprintf(buf + o, size - o, "%s%s%s%s", k > i ? ", " : "", v[k].port,
			                      one_queue ? "" : " queue ", one_queue ? "" : v[k].queue);
		if (j - i > 1 && o < size)
			o += (size_t)snprintf(buf + o, size - o, ")");
		i = j;
	}
	if (counted > named && o < size)
		snprintf(buf + o, size - o, ", and %u more", counted - named);
}

/* The alert e follows (analyzer.h follows_id) as words, "the Incast at leaf1 Ethernet1 queue 3"; "" when none. */
static void follows_text(const struct hw_an_event *e, char *buf, size_t size)
{
	struct victim v;
	buf[0] = 0;
	if (e->follows_id && victim_parse(e->follows, strlen(e->follows), &v))
		if (snprintf(buf, size, "the %s at %s %s queue %s", hw_an_kind_name(e->follows_kind), v.node, v.port,
		             v.queue) < 0) /* bounded: long names are cut */
			buf[0] = 0;
}

/* The node at the far end of a "nodeA:portA--nodeB:portB" link (the host behind a congested host port) into
 * buf, "" when the link is not of that shape. */
static void peer_of(const char *link, char *buf, size_t size)
{
	const char *p = strstr(link, "--");
	buf[0] = 0;
	if (p)
		snprintf(buf, size, "%.*s", (int)strcspn(p + 2, ":"), p + 2);
}

/* A CongestionTree or an Incast leads with its culprit (a tree's root queue, an incast's queue where its
 * senders' traffic meets) and how full it is (an incast: toward which host, from how many sources), then its
 * victims, the queues upstream paused by PFC: the summary into sum, the description's first sentences into
 * desc.  after: the alert it follows in words (follows_text), "" when none. */
static void culprit_text(const struct hw_an_event *e, const char *where, const char *peer, const char *after, char *sum,
                         size_t ssize, char *desc, size_t dsize)
{
	int incast = !strcmp(e->alertname, "Incast");
	char occ[32] = "", src[32] = "", vict[600], head[160] = "", why[200];
	for (unsigned i = 0; i < e->n_numbers; i++) {
		if (!strcmp(e->numbers[i].name, incast ? "occupancy" : "root_occupancy"))
			hw_fmt_bytes(e->numbers[i].value, occ, sizeof(occ));
		if (incast && !strcmp(e->numbers[i].name, "sources"))
			snprintf(src, sizeof(src), "%.0f", e->numbers[i].value);
	}
	victims_text(e, vict, sizeof(vict));
	char after_sum[220] = "", after_desc[400] = "";
	if (after[0]) {
		if (snprintf(after_sum, sizeof(after_sum), ", after %s", after) < 0 ||
		    snprintf(
		        after_desc, sizeof(after_desc),
		        " It follows %s: traffic its PFC pauses held upstream arrives here together as they let go.",
		        after) < 0)
			after_sum[0] = after_desc[0] = 0; /* bounded; the return values used so GCC does not warn */
	}
	if (incast) {
		snprintf(head, sizeof(head), "%s%s%s%s", peer[0] ? " toward " : "", peer, src[0] ? ", sources " : "",
		         src);
		snprintf(why, sizeof(why), "where the traffic of %s sources%s%s meets, more than the port can send",
		         src[0] ? src : "several", peer[0] ? " to " : "", peer);
	} else {
		snprintf(why, sizeof(why), "the root queue whose backlog pauses the queues upstream of it (PFC)");
	}
	/* bounded: a long list of victims is cut short (the return values are used so GCC does not warn) */
	if (snprintf(sum, ssize, "%s: culprit %s%s%s%s%s%s; victims%s%s", e->alertname, where, head, occ[0] ? " (" : "",
	             occ, occ[0] ? " queued)" : "", after_sum, vict[0] ? " " : ": ", vict[0] ? vict : "none named") < 0)
		sum[0] = 0;
	if (snprintf(desc, dsize, "%s (%s). Culprit: %s, %s%s%s.%s Victims paused upstream%s%s.", e->alertname,
	             e->severity ? e->severity : "warning", where, why, occ[0] ? ", holding " : "", occ, after_desc,
	             vict[0] ? " " : ": ", vict[0] ? vict : "none named") < 0)
		desc[0] = 0;
}

/* The event's drop reason code (a PacketDrops), -1 when it has none. */
static int drop_reason_of(const struct hw_an_event *e)
{
	for (unsigned i = 0; i < e->n_numbers; i++)
		if (!strcmp(e->numbers[i].name, "drop_reason") && e->numbers[i].value >= 0 && e->numbers[i].value < 256)
			return (int)e->numbers[i].value;
	return -1;
}

/* A PacketDrops' detail is its drop reason, which its values name when the code has a name. */
static int detail_in_values(const struct hw_an_event *e)
{
	return !strcmp(e->alertname, "PacketDrops") && drop_reason_of(e) >= 0 &&
	       hw_drop_reason_name((unsigned)drop_reason_of(e));
}

/* What a PacketDrops asks of a person: it depends on why the switch dropped (the drop reason's code, as
 * hw_drop_reason_name reads it: switch.p4 / SONiC DTel and fabric-tna). */
static void drops_action(const struct hw_an_event *e, const char *who, char *buf, size_t size)
{
	const int code = drop_reason_of(e);
	const char *what;
	switch (code) {
	case 71: /* traffic manager: the queue or the buffer was full */
		snprintf(
		    buf, size,
		    "What to do: the queue overflowed. If this traffic should be lossless (RoCE), check that its DSCP "
		    "maps to a PFC-enabled queue and the buffer headroom; if lossy, find what congests the queue "
		    "toward %s (its HighQueue or Incast, the flows).",
		    who);
		return;
	case 73:
		what = "WRED dropped instead of marking: check the queue's WRED/ECN profile and that the senders' "
		       "traffic is ECN-capable, so that it is marked, not dropped.";
		break;
	case 70:
		what = "frames larger than the MTU: make the MTU the same along the path (both ends of each link and "
		       "the hosts' RoCE MTU).";
		break;
	case 80:
	case 81:
	case 92: what = "an ACL on this switch denies the traffic: check its ACLs against the flows."; break;
	case 101:
	case 102:
		what = "the PFC watchdog dropped a queue that stayed paused: find the device sending the pauses "
		       "downstream (a PFC storm) before re-enabling.";
		break;
	case 26:
	case 41:
	case 131: what = "the TTL ran out: look for a forwarding loop on the flows' path."; break;
	case 29:
	case 89:
	case 128:
	case 130: what = "no route or next hop for the destination: check this switch's routes and neighbours."; break;
	default: what = "check the switch's drop counters for this reason.";
	}
	snprintf(buf, size, "What to do: %s", what);
}

/* An alert that leads with its culprit and names its victims (culprit_text): a CongestionTree of the tree detector,
 * or an Incast (a tree folded into it keeps the Incast's alertname). */
static int names_culprit(const struct hw_an_event *e)
{
	return (e->kind == HW_AN_CONGESTION_TREE && !strcmp(e->alertname, "CongestionTree")) ||
	       !strcmp(e->alertname, "Incast");
}

/* What a person does about it, one sentence ("" when the alert's own text says enough).  A root that follows
 * another's alert (after: follows_text's words; its traffic held by that root's pauses, arriving together as they
 * let go) asks for that one first. */
static void action_text(const struct hw_an_event *e, const char *peer, const char *after, char *buf, size_t size)
{
	const char *who = peer[0] ? peer : "the receiver";
	buf[0] = 0;
	if (after[0] && names_culprit(e)) { /* only a culprit follows another (follows_text) */
		/* bounded (the return value is used so GCC does not warn that long names may be cut) */
		if (snprintf(
		        buf, size,
		        "What to do: act on %s first; this queue drains once the traffic it held has arrived. If it "
		        "does not, check what is behind it (%s: a NIC sending PFC pauses, a slow receiver, an "
		        "incast) and the PFC watchdog. The victims recover when it drains.",
		        after, peer[0] ? peer : "its downstream port") < 0)
			buf[0] = 0;
	} else if (!strcmp(e->alertname, "Incast"))
		snprintf(
		    buf, size,
		    "What to do: find the senders (the flows, the graph) and stagger or rate-limit their traffic to "
		    "%s; check ECN/DCQCN marking on this queue. The victims recover when it drains.",
		    who);
	else if (!strcmp(e->alertname, "CongestionTree"))
		snprintf(
		    buf, size,
		    "What to do: the root queue does not drain: check what is behind it (%s: a NIC sending PFC pauses, "
		    "a slow receiver, an incast) and the PFC watchdog. The victims recover when it drains.",
		    peer[0] ? peer : "its downstream port");
	else if (!strcmp(e->alertname, "LinkDown"))
		snprintf(
		    buf, size,
		    "What to do: check both ends of the link (optics, cable, port state); its flows moved to the other "
		    "paths (PathChange).");
	else if (!strcmp(e->alertname, "PacketDrops"))
		drops_action(e, who, buf, size);
	else if (!strcmp(e->alertname, "Microburst")) /* the bursts' digest (deploy/alertmanager) sends these */
		snprintf(
		    buf, size,
		    "What to do: one burst needs nothing. If they repeat on this queue, find the flows that arrive "
		    "together (the flows, the graph) toward %s and stagger or pace them; check ECN marking on this "
		    "queue, so that senders slow down before PFC pauses or drops.",
		    who);
}

void hw_alert_annotations(const struct hw_an_event *e, const char *svg, const char *graph_url, struct hw_alert_kv *a)
{
	char where[400], vals[600], since[48], lasted[48] = "", lead[HW_ALERT_VAL_MAX] = "", d[HW_ALERT_VAL_MAX];
	char peer[HW_TOPO_NAME_MAX], act[400], after[200];
	const int culprit = names_culprit(e);
	hw_alert_place(e, where, sizeof(where));
	peer_of(e->link, peer, sizeof(peer));
	follows_text(e, after, sizeof(after));
	action_text(e, peer, after, act, sizeof(act));
	values(e, ", ", 0, "duration_us", vals, sizeof(vals)); /* an episode's length: "lasted" says it below */
	hw_fmt_utc(e->start_ns, since, sizeof(since));
	if (e->resolved && e->end_ns >= e->start_ns)
		hw_fmt_duration((double)(e->end_ns - e->start_ns), lasted, sizeof(lasted));
	for (unsigned i = 0; i < e->n_numbers && !lasted[0]; i++) /* a Microburst is raised when it has ended */
		if (!strcmp(e->numbers[i].name, "duration_us"))
			hw_fmt_duration(e->numbers[i].value * 1e3, lasted, sizeof(lasted));
	a->n = 0;
	size_t o;
	if (culprit) {
		culprit_text(e, where, peer, after, lead, sizeof(lead), d, sizeof(d));
		add(a, "summary", "%s; since %s%s%s", lead, since, lasted[0] ? ", lasted " : "", lasted);
		o = strlen(d);
	} else {
		/* a link event has no port: the link says where; values end with "; " before the time, so that the
		 * last value is not read as holding since then ("threshold 300 kB; since ...") */
		add(a, "summary", "%s at %s%s%s%s%s%ssince %s%s%s", e->alertname, where,
		    e->link[0] && e->port == UINT32_MAX ? ", link " : "",
		    e->link[0] && e->port == UINT32_MAX ? e->link : "", vals[0] ? ": " : "", vals, vals[0] ? "; " : " ",
		    since, lasted[0] ? ", lasted " : "", lasted);
		o = (size_t)snprintf(d, sizeof(d), "%s (%s) at %s.", e->alertname,
		                     e->severity ? e->severity : "warning", where);
	}
	if (o < sizeof(d) && e->link[0])
		o += (size_t)snprintf(d + o, sizeof(d) - o, " Link: %s.", e->link);
	/* a tree's and an Incast's detail are the culprit and victims, said above */
	if (o < sizeof(d) && e->detail[0] && !culprit && !detail_in_values(e))
		o += (size_t)snprintf(d + o, sizeof(d) - o, " %s.", e->detail);
	if (o < sizeof(d) && vals[0])
		o += (size_t)snprintf(d + o, sizeof(d) - o, " Values: %s.", vals);
	if (o < sizeof(d))
		o += (size_t)snprintf(d + o, sizeof(d) - o, " Started %s", since);
	if (o < sizeof(d))
		o += (size_t)snprintf(d + o, sizeof(d) - o, lasted[0] ? ", lasted %s." : "%s, still going.", lasted);
	if (o < sizeof(d) && e->n_flows)
		o += (size_t)snprintf(d + o, sizeof(d) - o, " Flows affected: %u%s.", e->n_flows,
		                      e->n_flows == HW_AN_MAX_FLOWS ? " or more" : "");
	if (o < sizeof(d) && act[0])
		snprintf(d + o, sizeof(d) - o, " %s", act);
	add(a, "description", "%s", d);
	for (unsigned i = 0; i < e->n_numbers; i++)
		add(a, e->numbers[i].name, "%.17g", e->numbers[i].value);
	add(a, "event_id", "%" PRIu64, e->id);
	if (e->attributed && e->sender_jobs[0]) /* whose traffic (an_attr.c); annotations: they may change on resolve */
		add(a, "sender_jobs", "%s", e->sender_jobs);
	if (e->attributed && e->receiver_jobs[0])
		add(a, "receiver_jobs", "%s", e->receiver_jobs);
	if (graph_url && graph_url[0])
		add(a, "graph_url", "%s", graph_url);
	else if (svg && svg[0])
		add(a, "svg", "%s", svg);
}

/* An update u of the firing alert f (another detector's finding, or the episode grew) keeps what f said
 * that u does not (alert_text.h): its numbers u lacks (an Incast's sources beside a folded tree's victims), as many as
 * there is room for, its detail and what it follows.  Those f said come first, in f's order (u's value where u has
 * one), then those only u has (a tree's aftermath after the Incast's own): the alert's text keeps saying first what it
 * said first.
 */
void hw_alert_keep_said(struct hw_an_event *u, const struct hw_an_event *f)
{
	struct hw_an_number out[HW_AN_MAX_NUMBERS];
	uint8_t placed[HW_AN_MAX_NUMBERS] = {0};
	unsigned n = 0, room = HW_AN_MAX_NUMBERS - u->n_numbers; /* for f's numbers that u lacks */
	for (unsigned i = 0; i < f->n_numbers; i++) {
		unsigned k = 0;
		while (k < u->n_numbers && strcmp(u->numbers[k].name, f->numbers[i].name))
			k++;
		if (k < u->n_numbers && !placed[k]) {
			out[n++] = u->numbers[k];
			placed[k] = 1;
		} else if (k == u->n_numbers && room) {
			out[n++] = f->numbers[i];
			room--;
		}
	}
	for (unsigned k = 0; k < u->n_numbers; k++)
		if (!placed[k])
			out[n++] = u->numbers[k];
	memcpy(u->numbers, out, n * sizeof(out[0]));
	u->n_numbers = n;
	if (!u->detail[0])
		memcpy(u->detail, f->detail, sizeof(u->detail));
	if (!u->follows_id) { /* what it follows, said at its raise */
		u->follows_id = f->follows_id;
		u->follows_kind = f->follows_kind;
		memcpy(u->follows, f->follows, sizeof(u->follows));
	}
}

/* The length of a list's next item at p: up to its ", " outside parentheses, or its end. */
static size_t item_len(const char *p)
{
	int depth = 0;
	const char *q = p;
	for (; *q && !(q[0] == ',' && q[1] == ' ' && !depth); q++)
		depth += (*q == '(') - (*q == ')');
	return (size_t)(q - p);
}

/* "\n" lead list into buf, a new line at a ", " outside parentheses before an item that would take the line past
 * GRAPH_LINE characters: a graph's legend has no wrapping of its own, and one long line widens the whole drawing. */
#define GRAPH_LINE 60
static void wrap_list(const char *list, const char *lead, char *buf, size_t size)
{
	size_t o = (size_t)snprintf(buf, size, "\n%s", lead), line = strlen(lead);
	for (const char *p = list; *p && o < size;) {
		const size_t n = item_len(p);
		const int wrap = p > list && line + 2 + n > GRAPH_LINE;
		o += (size_t)snprintf(buf + o, size - o, "%s%.*s", p == list ? "" : wrap ? ",\n" : ", ", (int)n, p);
		line = (wrap ? 0 : line + (p > list ? 2 : 0)) + n;
		p += n;
		if (*p) /* the ", " between items */
			p += 2;
	}
}

void hw_alert_graph_facts(const struct hw_an_event *e, char *buf, size_t size)
{
	char since[48], lasted[48] = "", vals[600];
	hw_fmt_utc(e->start_ns, since, sizeof(since));
	if (e->resolved && e->end_ns >= e->start_ns)
		hw_fmt_duration((double)(e->end_ns - e->start_ns), lasted, sizeof(lasted));
	values(e, ", ", 3, NULL, vals, sizeof(vals));
	char after[200];
	follows_text(e, after, sizeof(after)); /* the alert's "after ...", with the id its own graph's title gives */
	size_t o = (size_t)snprintf(buf, size, "since %s%s%s", since, lasted[0] ? ", lasted " : "", lasted);
	if (o < size && after[0])
		o += (size_t)snprintf(buf + o, size - o, "\nafter %s (event %" PRIu64 ")", after, e->follows_id);
	if (o < size && vals[0])
		o += (size_t)snprintf(buf + o, size - o, "\n%s", vals);
	char vict[600] = "";
	if (names_culprit(e)) /* its victims as the alert names them, not the raw detail */
		victims_text(e, vict, sizeof(vict));
	if (o < size && vict[0])
		wrap_list(vict, "victims ", buf + o, size - o);
	else if (o < size && e->detail[0] && !detail_in_values(e))
		snprintf(buf + o, size - o, "\n%s", e->detail);
}
