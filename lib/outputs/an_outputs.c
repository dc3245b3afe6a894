/* The table of outputs that `hopwatch-analyzer run` drives (events, ticks, summary, close), and the two
 * simplest outputs: events as JSON lines, and the alert sinks (Alertmanager, webhook). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "an_outputs.h"
#include "an_attr.h"
#include "clock.h"
#include "redact.h"

struct an_render *an_outputs_renderer(struct an_outputs *t, char *err, size_t errlen)
{
	if (!t->render)
		t->render = an_render_start(err, errlen);
	return t->render;
}

void an_outputs_add(struct an_outputs *t, struct an_output *o)
{
	if (o && t->n < AN_OUTPUTS_MAX)
		t->v[t->n++] = o;
}

void an_outputs_bind(struct an_outputs *t, const struct hw_analyzer *a)
{
	t->a = a;
}

void an_outputs_emit(void *ctx, const struct hw_an_event *ev)
{
	struct an_outputs *t = ctx;
	char svg[AN_GRAPHS_SVG_MAX] = ""; /* the annotation goes out with the event */
	struct hw_an_event named;
	if (t->attr) { /* its jobs, on a copy: the analyzer's event is const */
		named = *ev;
		an_attr_event(t->attr, &named);
		ev = &named;
	}
	for (unsigned i = 0; i < t->n; i++)
		if (t->v[i]->ops->annotate)
			t->v[i]->ops->annotate(t->v[i], t->a, ev, svg);
	for (unsigned i = 0; i < t->n; i++)
		if (t->v[i]->ops->on_event)
			t->v[i]->ops->on_event(t->v[i], t->a, ev, svg);
}

/* Whether the periodic SVGs (heat map, latency matrix) are due: every --svg-every seconds of record
 * time, on a fixed grid that starts at the first record; periods the input skipped are not made up.  The
 * next grid point is computed, not stepped to (a record time near 2^64 would take forever), and
 * saturates at UINT64_MAX, where the grid ends: no periodic SVG is due after that, only the final ones, unless
 * the clock goes back (a first record far ahead, docs/analyzer.md "Record time"): the grid starts again. */
static int svg_due(struct an_outputs *t, uint64_t now)
{
	if (!t->every_ns || !now)
		return 0;
	if (!t->next_ns) {
		t->next_ns = now > UINT64_MAX - t->every_ns ? UINT64_MAX : now + t->every_ns;
		return 0;
	}
	if (now < t->next_ns && t->next_ns - now > t->every_ns) /* the clock went back (hw_an_stats clock_jumps) */
		t->next_ns = now + t->every_ns;
	if (now < t->next_ns || t->next_ns == UINT64_MAX)
		return 0;
	/* the first grid point after now: next + k * every with k = (now - next) / every + 1 */
	const uint64_t k = (now - t->next_ns) / t->every_ns + 1;
	const uint64_t room = UINT64_MAX - t->next_ns;
	t->next_ns = k > room / t->every_ns ? UINT64_MAX : t->next_ns + k * t->every_ns;
	return 1;
}

int an_tick_refresh(const struct an_tick *t, double *next, double period)
{
	if (t->kind == AN_TICK_EXIT)
		return 0;
	double now = hw_mono_s();
	if (t->kind == AN_TICK_BATCH && now < *next)
		return 0;
	*next = now + period;
	return 1;
}

void an_outputs_records(struct an_outputs *t, const struct hw_record *r, size_t n)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->v[i]->ops->records)
			t->v[i]->ops->records(t->v[i], t->a, r, n);
}

void an_outputs_tick(struct an_outputs *t, enum an_tick_kind kind)
{
	struct an_tick k = {kind, kind == AN_TICK_BATCH && svg_due(t, hw_an_now(t->a))};
	for (unsigned i = 0; i < t->n; i++)
		if (t->v[i]->ops->tick)
			t->v[i]->ops->tick(t->v[i], t->a, &k);
}

void an_outputs_summary(struct an_outputs *t, FILE *f, int late)
{
	for (unsigned i = 0; i < t->n; i++)
		if (t->v[i]->ops->summary && t->v[i]->ops->summary_late == late)
			t->v[i]->ops->summary(t->v[i], f);
}

uint64_t an_outputs_lost(struct an_outputs *t)
{
	uint64_t lost = 0;
	for (unsigned i = 0; i < t->n; i++)
		if (t->v[i]->ops->lost)
			lost += t->v[i]->ops->lost(t->v[i]);
	return lost;
}

void an_outputs_close(struct an_outputs *t)
{
	while (t->n) {
		struct an_output *o = t->v[--t->n];
		o->ops->close(o);
	}
	an_render_stop(t->render);
	t->render = NULL;
}

/* ---- events as JSON lines ---- */

/* The file is appended to (a restarted analyzer keeps what the last run wrote) and flushed after each batch
 * of input that raised events, so a reader (or a crash) sees every event of the batches done.  A write that
 * fails (a full disk, /dev/full) is said once on stderr with the file and the reason, and the run exits 1:
 * the file can end inside a line then, and a reader must not take it for the whole run. */
struct out_events {
	struct an_output base;
	FILE *f;
	const char *path;
	int dirty;           /* written since the last flush */
	int err;             /* errno of the first failed write or flush, 0 while none failed */
	uint64_t after_fail; /* events handed to the file since that failure */
};

static void events_failed(struct out_events *x, int e)
{
	if (x->err)
		return;
	x->err = e ? e : EIO;
	fprintf(stderr, "hopwatch-analyzer run: --events %s: %s: events from here on are lost\n", x->path,
	        strerror(x->err));
}

static void events_on_event(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
                            const char *svg)
{
	struct out_events *x = (struct out_events *)o;
	char buf[4096];
	(void)a;
	hw_an_event_json(e, svg, buf, sizeof(buf));
	if (fprintf(x->f, "%s\n", buf) < 0)
		events_failed(x, errno);
	x->after_fail += x->err != 0;
	x->dirty = 1;
}

static void events_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct out_events *x = (struct out_events *)o;
	(void)a;
	if ((x->dirty || t->kind == AN_TICK_EXIT) && fflush(x->f))
		events_failed(x, errno);
	if (t->kind == AN_TICK_EXIT && ferror(x->f))
		events_failed(x, 0);
	x->dirty = 0;
}

static uint64_t events_lost(struct an_output *o)
{
	struct out_events *x = (struct out_events *)o;
	return x->err ? x->after_fail + 1 : 0; /* at least the event whose write failed */
}

static void events_close(struct an_output *o)
{
	struct out_events *x = (struct out_events *)o;
	if (x->f != stdout)
		fclose(x->f);
	free(x);
}

static const struct an_output_ops events_ops = {
    .on_event = events_on_event, .tick = events_tick, .lost = events_lost, .close = events_close};

struct an_output *an_out_events(const char *path, char *err, size_t errlen)
{
	struct out_events *x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "--events %s: out of memory", path);
		return NULL;
	}
	x->base.ops = &events_ops;
	x->path = path;
	x->f = strcmp(path, "-") ? fopen(path, "a") : stdout;
	if (!x->f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(x);
		return NULL;
	}
	return &x->base;
}

/* ---- Alertmanager and webhook ---- */

struct out_alerts {
	struct an_output base;
	struct hw_alert_sink *sink;
	const char *name; /* "alertmanager" or "webhook" */
	char shown[160];  /* its URL, credentials hidden (hw_http_redact), for messages */
	int quiet;
	int started; /* the first tick came: events before it are the start's baseline */
};

static void alerts_on_event(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
                            const char *svg)
{
	struct out_alerts *x = (struct out_alerts *)o;
	(void)a;
	if (!x->started && strcmp(e->alertname, "LinkUp") == 0)
		return; /* links up when the analyzer starts are its baseline, not news (the events file has them) */
	hw_alert_sink_push(x->sink, e, svg);
}

static void alerts_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct out_alerts *x = (struct out_alerts *)o;
	(void)a;
	x->started = 1;
	uint64_t lost;
	if (t->kind == AN_TICK_EXIT && (lost = hw_alert_sink_finish(x->sink, 2000)) && !x->quiet)
		fprintf(stderr, "hopwatch-analyzer run: %s %s: %llu alerts could not be delivered before exit\n",
		        x->name, x->shown, (unsigned long long)lost);
}

static uint64_t alerts_lost(struct an_output *o)
{
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(((struct out_alerts *)o)->sink, &st);
	return st.dropped + st.undelivered;
}

static void alerts_summary(struct an_output *o, FILE *f)
{
	struct out_alerts *x = (struct out_alerts *)o;
	struct hw_alert_sink_stats st;
	hw_alert_sink_stats(x->sink, &st);
	fprintf(f,
	        ",\"%s\":{\"pushed\":%llu,\"dropped\":%llu,\"sent_alerts\":%llu,\"posts_ok\":%llu,"
	        "\"posts_failed\":%llu,\"waiting\":%u,\"undelivered\":%llu}",
	        x->name, (unsigned long long)st.pushed, (unsigned long long)st.dropped,
	        (unsigned long long)st.sent_alerts, (unsigned long long)st.posts_ok,
	        (unsigned long long)st.posts_failed, st.waiting, (unsigned long long)st.undelivered);
}

static void alerts_close(struct an_output *o)
{
	struct out_alerts *x = (struct out_alerts *)o;
	hw_alert_sink_stop(x->sink);
	free(x);
}

static const struct an_output_ops alerts_ops = {.on_event = alerts_on_event,
                                                .tick = alerts_tick,
                                                .summary = alerts_summary,
                                                .lost = alerts_lost,
                                                .close = alerts_close};

struct an_output *an_out_alerts(enum hw_sink_kind kind, const char *url, const struct hw_alert_sink_opts *so, int quiet,
                                char *err, size_t errlen)
{
	const char *name = kind == HW_SINK_ALERTMANAGER ? "alertmanager" : "webhook";
	struct out_alerts *x = calloc(1, sizeof(*x));
	char why[400];
	if (!x || !(x->sink = hw_alert_sink_start(kind, url, so, why, sizeof(why)))) {
		snprintf(err, errlen, "--%s %s", name, x ? why : "out of memory");
		free(x);
		return NULL;
	}
	x->base.ops = &alerts_ops;
	x->name = name;
	hw_http_redact(url, x->shown, sizeof(x->shown));
	x->quiet = quiet;
	return &x->base;
}

struct hw_alert_sink *an_out_alert_sink(struct an_output *o)
{
	return o ? ((struct out_alerts *)o)->sink : NULL;
}
