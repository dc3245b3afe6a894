/* The alert sink thread: a bounded hand-off ring from detection, a bounded table of alerts (firing or
 * resolved but held back or unsent), and HTTP POSTs to Alertmanager API v2 or a webhook in Alertmanager's
 * webhook format, retried every second.  A resolve is held back until the alert was visible long enough. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alert_text.h"
#include "clock.h"
#include "hopwatch/alert_sink.h"
#include "http_client.h"
#include "json_writer.h"

/* An event as handed over, with the outputs' annotation. */
struct noted {
	struct hw_an_event e;
	char svg[256]; /* its graph's file (run --svg-dir), "" when none */
};

/* An incident label an alert may still join: its raises' record time span and its footprint, the hashes of
 * the switches and flows its alerts named (rings: the oldest forgotten first). */
struct open_incident {
	char name[32]; /* "" = slot unused */
	uint64_t first_ns, last_ns;
	uint64_t node[HW_ALERT_FOOTPRINT], flow[HW_ALERT_FOOTPRINT];
	uint32_t n_node, n_flow; /* how many were added: the newest HW_ALERT_FOOTPRINT are kept */
};

struct entry {
	struct hw_an_event e;
	char svg[256];
	uint64_t seq;      /* raise order (an update keeps it): a post lists its alerts by it, see by_seq */
	uint64_t lead;     /* post(): the seq of the first alert of its incident in the post */
	int rank;          /* hw_alert_rank: within its incident a post lists the cause first */
	uint64_t shown_ns; /* monotonic time it was first handed over: the minimum visible time counts from it */
	uint64_t wait_ns;  /* its first post waits this long after shown_ns (HW_ALERT_SETTLE_NS or _REPLAY_WAIT_NS) */
	uint8_t used, dirty;
	uint8_t held;    /* resolved, the resolve held back until the minimum visible time has passed */
	uint8_t fired;   /* posted firing at least once: a resolve never goes out before its firing did */
	uint8_t has_res; /* held: res is its resolve, to go out when let go (e stays what was firing) */
	struct hw_an_event res;
	char incident[32]; /* its incident label, set when it came in */
};

struct hw_alert_sink {
	enum hw_sink_kind kind;
	char url[512];
	char external[512]; /* the external base URL, "" when none */
	uint32_t cap;
	uint64_t resend_ns, min_visible_ns;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv, done_cv;
	int stop, flush;    /* flush: let held resolves go now (drain) */
	int busy;           /* the thread is in a round: its batch not yet merged, its POST not yet counted */
	int finished;       /* hw_alert_sink_finish stopped the thread: pushes are refused */
	struct noted *ring; /* hand-off from detection */
	uint32_t head, n;
	struct entry *table; /* owned by the thread */
	uint32_t *order;     /* scratch for post() */
	uint32_t *incs;      /* scratch for post(): an entry per incident in the post */
	uint64_t next_seq;
	struct open_incident open[HW_ALERT_INCIDENT_OPEN]; /* a ring: the oldest is forgotten first */
	uint32_t open_next;
	struct {
		uint64_t id;              /* a detector's incident (hw_an_event.incident), 0 = slot unused */
		char name[32];            /* the incident label its first alert got */
	} inc_map[HW_ALERT_INCIDENT_MAP]; /* a ring: the oldest is forgotten first */
	uint32_t inc_map_next;
	uint32_t waiting; /* dirty or held entries after the last round (under mu) */
	struct hw_alert_sink_stats st;
	struct hw_http *http;
	struct hw_json body;                                 /* the POST body, its buffer kept between posts */
	struct hw_alert_kv lab, ann, common_lab, common_ann; /* scratch of post() */
};

static void put_kv(struct hw_json *j, const struct hw_alert_kv *l)
{
	hw_json_obj(j);
	for (unsigned i = 0; i < l->n; i++) {
		hw_json_key(j, l->kv[i].k);
		hw_json_str(j, l->kv[i].v);
	}
	hw_json_obj_end(j);
}

/* Keep in c only the pairs that l has with the same value. */
static void intersect(struct hw_alert_kv *c, const struct hw_alert_kv *l)
{
	unsigned k = 0;
	for (unsigned i = 0; i < c->n; i++)
		for (unsigned m = 0; m < l->n; m++)
			if (!strcmp(c->kv[i].k, l->kv[m].k) && !strcmp(c->kv[i].v, l->kv[m].v)) {
				if (k != i)
					c->kv[k] = c->kv[i];
				k++;
				break;
			}
	c->n = k;
}

/* Alertmanager's fingerprint of a label set: here FNV-1a 64 over "key=value;" in label order, 16 hex digits. */
static void fingerprint(const struct hw_alert_kv *l, char *buf, size_t size)
{
	uint64_t h = 1469598103934665603ull;
	for (unsigned i = 0; i < l->n; i++) {
		for (const char *p = l->kv[i].k; *p; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
		h = (h ^ '=') * 1099511628211ull;
		for (const char *p = l->kv[i].v; *p; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
		h = (h ^ ';') * 1099511628211ull;
	}
	snprintf(buf, size, "%016" PRIx64, h);
}

/* Whether an entry goes out resolved: resolved and no longer held back. */
static int gone(const struct entry *en)
{
	return en->e.resolved && !en->held;
}

/* One alert: Alertmanager API v2's shape, and with webhook also status, generatorURL (always) and
 * fingerprint as Alertmanager's webhook has them.  Fills s->lab and s->ann. */
static void put_alert(struct hw_alert_sink *s, const struct entry *en, int webhook)
{
	struct hw_json *j = &s->body;
	const struct hw_an_event *e = &en->e;
	char ts[48], url[1024];
	hw_alert_graph_url(s->external, en->svg, url, sizeof(url));
	hw_alert_labels(e, en->incident, &s->lab);
	hw_alert_annotations(e, en->svg, url, &s->ann);
	if (!url[0])
		snprintf(url, sizeof(url), "%s", s->external);
	hw_json_obj(j);
	if (webhook) {
		hw_json_key(j, "status");
		hw_json_str(j, gone(en) ? "resolved" : "firing");
	}
	hw_json_key(j, "labels");
	put_kv(j, &s->lab);
	hw_json_key(j, "annotations");
	put_kv(j, &s->ann);
	hw_utc_fmt(e->start_ns, HW_UTC_RFC3339, 9, ts, sizeof(ts));
	hw_json_key(j, "startsAt");
	hw_json_str(j, ts);
	if (gone(en)) {
		hw_utc_fmt(e->end_ns > e->start_ns ? e->end_ns : e->start_ns + 1, HW_UTC_RFC3339, 9, ts, sizeof(ts));
		hw_json_key(j, "endsAt");
		hw_json_str(j, ts);
	} else if (webhook) {
		hw_json_key(j, "endsAt");
		hw_json_str(j, "0001-01-01T00:00:00Z"); /* as Alertmanager sends a firing alert */
	}
	if (url[0] || webhook) {
		hw_json_key(j, "generatorURL");
		hw_json_str(j, url);
	}
	if (webhook) {
		fingerprint(&s->lab, ts, sizeof(ts));
		hw_json_key(j, "fingerprint");
		hw_json_str(j, ts);
	}
	hw_json_obj_end(j);
}

/* A post lists incidents in the order of their first alert's raise, and within an incident its cause first
 * (hw_alert_rank: an Incast or LinkDown, then a CongestionTree, then the rest), each rank in raise order.
 * Alertmanager flushes a replayed incident's group at once, with the first alerts of the post only: the
 * cause, raised after its tree (an incast's tree shows before enough of its senders do), must come first. */
static __thread const struct entry *sort_base; /* the table post() sorts (qsort has no context argument) */
static int by_seq(const void *a, const void *b)
{
	const struct entry *x = &sort_base[*(const uint32_t *)a], *y = &sort_base[*(const uint32_t *)b];
	if (x->lead != y->lead)
		return x->lead < y->lead ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Each posted entry's lead: the smallest seq among the posted entries of its incident (s->incs: one entry
 * per incident in the post, holding that seq; O(posted x incidents)). */
static void set_leads(struct hw_alert_sink *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct entry *en = &s->table[s->order[i]];
		size_t m = 0;
		while (m < k && strcmp(s->table[s->incs[m]].incident, en->incident))
			m++;
		if (m == k)
			s->incs[k++] = s->order[i];
		else if (en->seq < s->table[s->incs[m]].lead)
			s->table[s->incs[m]].lead = en->seq;
		en->lead = en->seq;
		en->rank = hw_alert_rank(&en->e);
	}
	for (size_t i = 0; i < n; i++) {
		struct entry *en = &s->table[s->order[i]];
		for (size_t m = 0; m < k; m++)
			if (!strcmp(s->table[s->incs[m]].incident, en->incident)) {
				en->lead = s->table[s->incs[m]].lead;
				break;
			}
	}
}

/* POST every dirty (or, with all, every) entry; 1 on a 2xx answer. */

static int post(struct hw_alert_sink *s, int all)
{
	size_t n = 0;
	int firing = 0;
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->table[i].used && (all || s->table[i].dirty)) {
			s->order[n++] = i;
			firing |= !gone(&s->table[i]);
		}
	if (!n)
		return 1;
	set_leads(s, n);
	sort_base = s->table;
	qsort(s->order, n, sizeof(*s->order), by_seq);
	struct hw_json *j = &s->body;
	int webhook = s->kind == HW_SINK_WEBHOOK;
	hw_json_reset(j);
	if (webhook) { /* Alertmanager's webhook body, version 4: one notification */
		hw_json_obj(j);
		hw_json_key(j, "version");
		hw_json_str(j, "4");
		hw_json_key(j, "receiver");
		hw_json_str(j, "hopwatch");
		hw_json_key(j, "status");
		hw_json_str(j, firing ? "firing" : "resolved");
		hw_json_key(j, "alerts");
	}
	hw_json_arr(j);
	for (size_t k = 0; k < n; k++) {
		put_alert(s, &s->table[s->order[k]], webhook);
		if (!k) {
			s->common_lab = s->lab;
			s->common_ann = s->ann;
		} else {
			intersect(&s->common_lab, &s->lab);
			intersect(&s->common_ann, &s->ann);
		}
	}
	hw_json_arr_end(j);
	if (webhook) {
		/* grouped by alertname when the alerts share it, as a route with group_by: [alertname] would */
		struct hw_alert_kv g = {0};
		for (unsigned i = 0; i < s->common_lab.n && !g.n; i++)
			if (!strcmp(s->common_lab.kv[i].k, "alertname"))
				g.kv[g.n++] = s->common_lab.kv[i];
		hw_json_key(j, "groupLabels");
		put_kv(j, &g);
		hw_json_key(j, "commonLabels");
		put_kv(j, &s->common_lab);
		hw_json_key(j, "commonAnnotations");
		put_kv(j, &s->common_ann);
		hw_json_key(j, "externalURL");
		hw_json_str(j, s->external);
		hw_json_key(j, "groupKey");
		if (g.n)
			hw_json_strf(j, "{}:{alertname=\"%s\"}", g.kv[0].v);
		else
			hw_json_str(j, "{}:{}");
		hw_json_key(j, "truncatedAlerts");
		hw_json_numf(j, "0");
		hw_json_obj_end(j);
	}
	if (j->failed)
		return 0; /* out of memory: counted as nothing, tried again */
	struct hw_http_reply r;
	int ok = !hw_http_post(s->http, j->buf, j->len, &r) && r.status >= 200 && r.status < 300;
	pthread_mutex_lock(&s->mu);
	if (ok) {
		s->st.posts_ok++;
		s->st.sent_alerts += n;
	} else {
		s->st.posts_failed++;
	}
	pthread_mutex_unlock(&s->mu);
	if (!ok)
		return 0;
	for (size_t k = 0; k < n; k++) {
		struct entry *en = &s->table[s->order[k]];
		en->dirty = 0;
		if (gone(en))
			en->used = 0; /* delivered resolved: forget it */
		else
			en->fired = 1;
	}
	return 1;
}

/* An alert's footprint: the switches at its place and at its link's far end (their topology names, or the
 * node id when unplaced; FNV-1a hashes), and its flows.  Returns the number of switches (0 to 2); *own: 1 when
 * node[0] is its place's. */
static unsigned footprint(const struct hw_an_event *e, uint64_t node[2], int *own)
{
	unsigned n = 0;
	char id[16];
	*own = 0;
	const char *names[2] = {e->node, NULL};
	size_t lens[2] = {strlen(e->node), 0};
	if (!e->node[0] && e->node_id) {
		snprintf(id, sizeof(id), "#%" PRIu32, e->node_id);
		names[0] = id, lens[0] = strlen(id);
	}
	const char *far = strstr(e->link, "--");
	if (far) {
		far += 2;
		names[1] = far;
		lens[1] = strcspn(far, ":");
	}
	for (unsigned k = 0; k < 2; k++) {
		if (!names[k] || !lens[k])
			continue;
		uint64_t h = 14695981039346656037ull;
		for (size_t i = 0; i < lens[k]; i++)
			h = (h ^ (unsigned char)names[k][i]) * 1099511628211ull;
		if (k == 0)
			*own = 1;
		node[n++] = h;
	}
	return n;
}

static int has(const uint64_t *set, uint32_t n, uint64_t v)
{
	for (uint32_t i = 0; i < n && i < HW_ALERT_FOOTPRINT; i++)
		if (set[i] == v)
			return 1;
	return 0;
}

/* Alert e (switch hashes node[0 .. nn)) raised in incident o: its span and footprint take it in. */
static void take_in(struct open_incident *o, const struct hw_an_event *e, const uint64_t *node, unsigned nn)
{
	if (e->start_ns > o->last_ns)
		o->last_ns = e->start_ns;
	if (e->start_ns < o->first_ns)
		o->first_ns = e->start_ns;
	for (unsigned i = 0; i < nn; i++)
		if (!has(o->node, o->n_node, node[i]))
			o->node[o->n_node++ % HW_ALERT_FOOTPRINT] = node[i];
	for (unsigned i = 0; i < e->n_flows && i < HW_AN_MAX_FLOWS; i++)
		if (!has(o->flow, o->n_flow, e->flows[i]))
			o->flow[o->n_flow++ % HW_ALERT_FOOTPRINT] = e->flows[i];
}

static struct open_incident *open_named(struct hw_alert_sink *s, const char *name)
{
	for (uint32_t i = 0; i < HW_ALERT_INCIDENT_OPEN; i++)
		if (s->open[i].name[0] && !strcmp(s->open[i].name, name))
			return &s->open[i];
	return NULL;
}

/* A new open incident named name (forgetting the oldest), its span and footprint empty. */
static struct open_incident *open_new(struct hw_alert_sink *s, const char *name, uint64_t t)
{
	struct open_incident *o = &s->open[s->open_next++ % HW_ALERT_INCIDENT_OPEN];
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name);
	o->first_ns = o->last_ns = t;
	return o;
}

/* The incident label of a new alert e into name (HW_ALERT_INCIDENT_GAP_NS in hopwatch/alert_sink.h).  An alert
 * of a detector incident (hw_an_event.incident) already labelled joins that label, however long ago it was
 * given: a long incident re-raised after a quiet is still one Alertmanager group.  Otherwise (a new detector
 * incident, or none: PacketDrops, TelemetryReportLoss, topology events) it joins an open incident raised
 * within HW_ALERT_INCIDENT_GAP_NS (record time) of it that shares a switch or a flow with it: one whose
 * footprint holds its own switch before one it touches by its link's far end or a flow, then the one most
 * recently raised; or, when it names neither, the one most recently raised within that time; else it starts
 * a new one named by its start's UTC time to the millisecond (2026-01-01T00:00:00.000Z, then -2, -3 ... while
 * an open incident has the name).  Background congestion elsewhere in the same second is an incident of its
 * own, not a line in another's notification.  A new detector incident is remembered under the label it got. */
static void incident_of(struct hw_alert_sink *s, const struct hw_an_event *e, char *name, size_t size)
{
	uint64_t node[2];
	int own;
	const unsigned nn = footprint(e, node, &own);
	if (e->incident)
		for (uint32_t i = 0; i < HW_ALERT_INCIDENT_MAP; i++)
			if (s->inc_map[i].id == e->incident) {
				snprintf(name, size, "%s", s->inc_map[i].name);
				struct open_incident *o = open_named(s, name);
				take_in(o ? o : open_new(s, name, e->start_ns), e, node, nn);
				return;
			}
	struct open_incident *join = NULL;
	int join_how = 0;
	for (uint32_t i = 0; i < HW_ALERT_INCIDENT_OPEN; i++) {
		struct open_incident *o = &s->open[i];
		if (!o->name[0] || e->start_ns > o->last_ns + HW_ALERT_INCIDENT_GAP_NS ||
		    e->start_ns + HW_ALERT_INCIDENT_GAP_NS < o->first_ns)
			continue;
		/* how it touches o: 2 by its own switch, 1 by its link's far end or a flow (or it names neither) */
		int how = own && has(o->node, o->n_node, node[0]) ? 2 : !nn && !e->n_flows;
		for (unsigned k = own; k < nn && !how; k++)
			how = has(o->node, o->n_node, node[k]);
		for (unsigned k = 0; k < e->n_flows && k < HW_AN_MAX_FLOWS && !how; k++)
			how = has(o->flow, o->n_flow, e->flows[k]);
		if (how > join_how || (how && how == join_how && o->last_ns > join->last_ns))
			join = o, join_how = how;
	}
	if (!join) {
		char base[32], label[32];
		/* to the millisecond: 2026-01-01T00:00:00.000Z (24 characters) */
		hw_utc_fmt(e->start_ns, HW_UTC_RFC3339, 3, base, sizeof(base));
		snprintf(label, sizeof(label), "%s", base);
		for (unsigned k = 2; open_named(s, label) && k <= HW_ALERT_INCIDENT_OPEN; k++) /* a free one is found */
			snprintf(label, sizeof(label), "%.24s-%u", base, k % 100);
		join = open_new(s, label, e->start_ns);
	}
	take_in(join, e, node, nn);
	snprintf(name, size, "%s", join->name);
	if (e->incident) {
		uint32_t k = s->inc_map_next++ % HW_ALERT_INCIDENT_MAP;
		s->inc_map[k].id = e->incident;
		snprintf(s->inc_map[k].name, sizeof(s->inc_map[k].name), "%s", join->name);
	}
}

/* Numbers that only grow over an episode (distinct sources of an incast, victims of a congestion tree, a
 * peak, drops): a resolve held back carries their final values, which the alert still firing takes. */
static int grows(const char *name)
{
	static const char *const names[] = {"sources", "victims", "peak", "drops"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/* The firing alert f takes the larger values of r's growing numbers (and r's flows when it names more);
 * 1 when anything changed. */
static int take_growth(struct hw_an_event *f, const struct hw_an_event *r)
{
	int changed = 0;
	for (unsigned i = 0; i < f->n_numbers; i++)
		for (unsigned k = 0; k < r->n_numbers && grows(f->numbers[i].name); k++)
			if (!strcmp(f->numbers[i].name, r->numbers[k].name) &&
			    r->numbers[k].value > f->numbers[i].value) {
				f->numbers[i].value = r->numbers[k].value;
				changed = 1;
			}
	if (r->n_flows > f->n_flows) {
		f->n_flows = r->n_flows;
		memcpy(f->flows, r->flows, sizeof(f->flows));
		changed = 1;
	}
	return changed;
}

/* Merge one handed-over event into the table (thread side): an event updates the alert of its episode
 * (id and alertname).  A resolve that comes before the alert was posted firing, or before the minimum
 * visible time, is held back; a webhook is told of an alert when it fires and when it resolves,
 * Alertmanager also of its updates. */
static int merge(struct hw_alert_sink *s, const struct noted *x, uint64_t now)
{
	const struct hw_an_event *e = &x->e;
	struct entry *en = NULL, *free_slot = NULL;
	for (uint32_t i = 0; i < s->cap && !en; i++) {
		struct entry *t = &s->table[i];
		if (t->used && t->e.id == e->id && strcmp(t->e.alertname, e->alertname) == 0)
			en = t;
		else if (!t->used && !free_slot)
			free_slot = t;
	}
	int fresh = !en;
	const int prev_resolved = en && en->e.resolved; /* this event raises it again */
	if (!en) {
		if (!(en = free_slot))
			return 0;
		memset(en, 0, sizeof(*en));
		en->used = en->dirty = 1;
		en->shown_ns = now;
		en->wait_ns =
		    e->start_ns + HW_ALERT_REPLAY_WAIT_NS < hw_real_ns() ? HW_ALERT_REPLAY_WAIT_NS : HW_ALERT_SETTLE_NS;
		incident_of(s, e, en->incident, sizeof(en->incident));
	} else {
		if (s->kind == HW_SINK_ALERTMANAGER && !e->resolved)
			en->dirty = 1;
		struct open_incident *o = e->resolved ? NULL : open_named(s, en->incident);
		if (o) { /* an update names more flows (an incast's sources, a tree's victims): its incident's too */
			uint64_t node[2];
			int own;
			take_in(o, e, node, footprint(e, node, &own));
		}
	}
	/* A resolve is held until its firing went out (even when draining: a receiver sees every alert fire) and
	 * the alert was visible long enough; meanwhile the alert goes on being posted as it fired. */
	int hold = e->resolved && (!en->fired || (now - en->shown_ns < s->min_visible_ns && !s->flush));
	char svg[sizeof(en->svg)];
	memcpy(svg, en->svg, sizeof(svg));
	if (hold && !fresh) {
		en->res = *e;
		en->has_res = 1;
		/* the episode grew while it lasted (an incast raised at 4 sources that reached 16): the alert still
		 * shown firing says so, same labels, new annotations; Alertmanager is told now, a webhook (told only
		 * when an alert fires and resolves) with the resolve */
		if (take_growth(&en->e, e) && s->kind == HW_SINK_ALERTMANAGER)
			en->dirty = 1;
	} else {
		struct hw_an_event prev = en->e;
		en->e = *e;
		if (!fresh && e->update && !prev.resolved)
			hw_alert_keep_said(&en->e, &prev); /* the same alert, new annotations */
		en->has_res = 0;
	}
	memcpy(en->svg, x->svg[0] ? x->svg : svg, sizeof(en->svg));
	/* A resolve before the firing went out keeps the firing's place, and so does an update of a firing alert
	 * (an incast's sources doubling): a post lists an incident's alerts in the order they were raised, its
	 * first alert (the culprit's) first.  Alertmanager flushes a new group at once for an alert that started
	 * more than group_wait ago (a replay) while it is still taking in the rest of the post, so only the first
	 * alerts of a post are sure to be in that first notification. */
	if ((!e->resolved || en->fired) && (fresh || !e->update || prev_resolved))
		en->seq = s->next_seq++;
	en->held = (uint8_t)hold; /* a re-raise lets a held resolve go: it fires again */
	en->dirty |= e->resolved && !hold;
	return 1;
}

/* Count dirty and held entries (waiting) and active ones (firing, or resolved but held). */
static void count(const struct hw_alert_sink *s, uint32_t *waiting, uint32_t *active)
{
	*waiting = *active = 0;
	for (uint32_t i = 0; i < s->cap; i++) {
		const struct entry *en = &s->table[i];
		*waiting += en->used && (en->dirty || en->held);
		*active += en->used && !gone(en);
	}
}

static void *run(void *arg)
{
	struct hw_alert_sink *s = arg;
	struct noted *batch = malloc(sizeof(*batch) * s->cap);
	uint64_t last_all = hw_mono_ns(), retry_at = 0, settled_at = 0; /* settled_at: a new alert's first post */
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		if (!s->n) {
			uint64_t t = hw_mono_ns();
			long ms = settled_at > t ? (long)((settled_at - t) / 1000000u) + 1 : 200;
			struct timespec ts = hw_real_deadline(ms < 200 ? ms : 200);
			pthread_cond_timedwait(&s->cv, &s->mu, &ts);
		}
		s->busy = 1; /* until this round's outcome is counted: drain waits for it */
		uint32_t n = 0;
		while (s->n && batch) {
			batch[n++] = s->ring[s->head];
			s->head = (s->head + 1) % s->cap;
			s->n--;
		}
		int flush = s->flush;
		pthread_mutex_unlock(&s->mu);
		uint64_t dropped = 0, now = hw_mono_ns();
		for (uint32_t i = 0; i < n; i++)
			dropped += !merge(s, &batch[i], now);
		uint32_t dirty = 0, active = 0;
		int settling = 0;
		settled_at = 0;
		for (uint32_t i = 0; i < s->cap; i++) { /* resolves whose alert was visible long enough go out */
			struct entry *en = &s->table[i];
			if (en->used && en->held && en->fired && (flush || now - en->shown_ns >= s->min_visible_ns)) {
				en->held = 0;
				if (en->has_res)
					en->e = en->res;
				en->has_res = 0;
				en->dirty = 1;
			}
			dirty += en->used && en->dirty;
			active += en->used && !gone(en);
			/* a new alert's first post waits (wait_ns) for the updates that follow its raise (an incast's
			 * sources doubling within milliseconds) and, in a replay, for the rest of its incident:
			 * Alertmanager notifies at once for an alert that starts more than group_wait before it
			 * arrives, with what the first post said.  The post goes when the oldest wait is over. */
			if (en->used && en->dirty && !en->fired && !gone(en) &&
			    (!settled_at || en->shown_ns + en->wait_ns < settled_at))
				settled_at = en->shown_ns + en->wait_ns;
		}
		settling = settled_at > now;
		if (!settling)
			settled_at = 0;
		int all = s->kind == HW_SINK_ALERTMANAGER && now - last_all >= s->resend_ns;
		if ((dirty && now >= retry_at && (!settling || flush)) || (all && active)) {
			if (post(s, all))
				retry_at = 0;
			else
				retry_at = now + 1000000000ull;
			if (all)
				last_all = now;
		}
		count(s, &dirty, &active);
		pthread_mutex_lock(&s->mu);
		s->st.dropped += dropped;
		s->waiting = dirty;
		s->st.active = active;
		s->busy = 0;
		pthread_cond_broadcast(&s->done_cv);
	}
	pthread_mutex_unlock(&s->mu);
	free(batch);
	return NULL;
}

struct hw_alert_sink *hw_alert_sink_start(enum hw_sink_kind kind, const char *url, const struct hw_alert_sink_opts *o,
                                          char *err, size_t errlen)
{
	char shown[1024]; /* url without its password, for the messages (issue 22 item 12) */
	hw_http_redact(url, shown, sizeof(shown));
	struct hw_alert_sink *s = calloc(1, sizeof(*s));
	if (!s || !o->capacity) {
		free(s);
		snprintf(err, errlen, "%s: out of memory", shown);
		return NULL;
	}
	s->kind = kind;
	hw_json_init_heap(&s->body);
	size_t ul = strlen(url);
	while (ul && url[ul - 1] == '/')
		ul--;
	if (kind == HW_SINK_ALERTMANAGER)
		snprintf(s->url, sizeof(s->url), "%.*s/api/v2/alerts", (int)ul, url);
	else
		snprintf(s->url, sizeof(s->url), "%s", url);
	snprintf(s->external, sizeof(s->external), "%s", o->external_url ? o->external_url : "");
	s->min_visible_ns = o->min_visible_ns;
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		snprintf(err, errlen, "%s: not an http:// or https:// URL", shown);
		free(s);
		return NULL;
	}
	s->cap = o->capacity;
	s->resend_ns = o->resend_ns ? o->resend_ns : 60000000000ull;
	s->ring = calloc(s->cap, sizeof(*s->ring));
	s->table = calloc(s->cap, sizeof(*s->table));
	s->order = calloc(s->cap, sizeof(*s->order));
	s->incs = calloc(s->cap, sizeof(*s->incs));
	const struct hw_http_opts ho = {
	    .connect_timeout_ms = 1000, .timeout_ms = 2000, .content_type = "application/json"}; /* reply dropped */
	s->http = hw_http_open(s->url, &ho, NULL, 0);
	if (!s->ring || !s->table || !s->order || !s->incs || !s->http) {
		snprintf(err, errlen, "%s: cannot start the HTTP client", shown);
		goto fail;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_cond_init(&s->done_cv, NULL);
	if (pthread_create(&s->thread, NULL, run, s)) {
		snprintf(err, errlen, "%s: cannot start the sender thread", shown);
		goto fail;
	}
	return s;
fail:
	hw_http_close(s->http);
	free(s->ring);
	free(s->table);
	free(s->order);
	free(s->incs);
	free(s);
	return NULL;
}

int hw_alert_sink_push(struct hw_alert_sink *s, const struct hw_an_event *e, const char *svg)
{
	int ok = 0;
	pthread_mutex_lock(&s->mu);
	s->st.pushed++;
	if (s->n < s->cap && !s->finished) {
		struct noted *x = &s->ring[(s->head + s->n) % s->cap];
		x->e = *e;
		snprintf(x->svg, sizeof(x->svg), "%s", svg ? svg : "");
		s->n++;
		ok = 1;
		pthread_cond_signal(&s->cv);
	} else {
		s->st.dropped++;
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

int hw_alert_sink_drain(struct hw_alert_sink *s, int timeout_ms)
{
	uint64_t end = hw_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
	pthread_mutex_lock(&s->mu);
	s->flush = 1;
	pthread_cond_signal(&s->cv);
	/* a round in progress holds a batch taken from the ring and a POST whose outcome is not counted yet */
	while ((s->n || s->busy || s->waiting) && !s->finished && hw_mono_ns() < end) {
		struct timespec ts = hw_real_deadline(100);
		pthread_cond_timedwait(&s->done_cv, &s->mu, &ts);
	}
	int done = !s->n && !s->busy && !s->waiting;
	pthread_mutex_unlock(&s->mu);
	return done;
}

/* Stop the thread once (it ends its round: a POST in flight ends within the HTTP timeout). */
static void join(struct hw_alert_sink *s)
{
	pthread_mutex_lock(&s->mu);
	int first = !s->finished;
	s->stop = s->finished = 1;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (first)
		pthread_join(s->thread, NULL);
}

uint64_t hw_alert_sink_finish(struct hw_alert_sink *s, int timeout_ms)
{
	hw_alert_sink_drain(s, timeout_ms);
	join(s);
	/* the thread is gone: what is still in the ring or waiting in the table is lost */
	uint64_t lost = s->n;
	for (uint32_t i = 0; i < s->cap; i++)
		lost += s->table[i].used && (s->table[i].dirty || s->table[i].held);
	pthread_mutex_lock(&s->mu);
	s->st.undelivered = lost;
	s->waiting = (uint32_t)(lost - s->n); /* waiting stays what is left: now lost */
	pthread_mutex_unlock(&s->mu);
	return lost;
}

void hw_alert_sink_stats(struct hw_alert_sink *s, struct hw_alert_sink_stats *st)
{
	pthread_mutex_lock(&s->mu);
	*st = s->st;
	st->waiting = s->waiting + s->n;
	pthread_mutex_unlock(&s->mu);
}

void hw_alert_sink_stop(struct hw_alert_sink *s)
{
	if (!s)
		return;
	join(s);
	hw_http_close(s->http);
	free(s->ring);
	free(s->table);
	free(s->order);
	free(s->incs);
	hw_json_free(&s->body);
	free(s);
}
