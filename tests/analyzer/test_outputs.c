/* Unit tests of the analyzer's outputs table and rendering thread: annotations reach every output,
 * outputs see events in table order, the --svg-every schedule on record time, jobs drawn in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "an_outputs.h"
#include "graphviz_ctx.h"

/* ---- a fake output that notes what it saw ---- */

struct fake {
	struct an_output base;
	char tag;        /* its letter in the log */
	const char *svg; /* what annotate writes, NULL: no annotate */
	char seen[256];  /* the svg annotation as on_event saw it */
	int ticks, due;  /* AN_TICK_BATCH ticks, and those with svg_due */
	int closed;
};

static char log_[32]; /* the tags of on_event calls, in order */

static void fake_annotate(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e, char *svg)
{
	(void)a;
	(void)e;
	snprintf(svg, AN_GRAPHS_SVG_MAX, "%s", ((struct fake *)o)->svg);
}

static void fake_on_event(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
                          const char *svg)
{
	struct fake *f = (struct fake *)o;
	(void)a;
	(void)e;
	size_t n = strlen(log_);
	log_[n] = f->tag;
	log_[n + 1] = 0;
	snprintf(f->seen, sizeof(f->seen), "%s", svg);
}

static void fake_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct fake *f = (struct fake *)o;
	(void)a;
	if (t->kind == AN_TICK_BATCH) {
		f->ticks++;
		f->due += t->svg_due;
	}
}

static void fake_close(struct an_output *o)
{
	((struct fake *)o)->closed = 1;
}

static const struct an_output_ops plain_ops = {.on_event = fake_on_event, .tick = fake_tick, .close = fake_close};
static const struct an_output_ops naming_ops = {
    .annotate = fake_annotate, .on_event = fake_on_event, .tick = fake_tick, .close = fake_close};

/* The annotation of an output added last is seen by one added before it; on_event in table order. */
static void test_annotate_then_events_in_order(void **state)
{
	(void)state;
	struct fake b = {.base.ops = &plain_ops, .tag = 'B'};
	struct fake g = {.base.ops = &naming_ops, .tag = 'G', .svg = "dir/event-1-7-HighQueue.svg"};
	struct an_outputs t = {0};
	an_outputs_add(&t, &b.base);
	an_outputs_add(&t, &g.base);
	struct hw_an_event ev;
	memset(&ev, 0, sizeof(ev));
	log_[0] = 0;
	an_outputs_emit(&t, &ev);
	/* B was added first, G second: "BG"; both see G's name because every annotate runs first */
	assert_string_equal(log_, "BG");
	assert_string_equal(b.seen, "dir/event-1-7-HighQueue.svg");
	assert_string_equal(g.seen, "dir/event-1-7-HighQueue.svg");
	an_outputs_close(&t);
	assert_int_equal(b.closed, 1);
	assert_int_equal(g.closed, 1);
	assert_int_equal(t.n, 0);
}

static void ingest_at(struct hw_analyzer *a, uint64_t time_ns)
{
	struct hw_record r;
	memset(&r, 0, sizeof(r));
	r.time_ns = time_ns;
	r.format = HW_FORMAT_TR20;
	r.path_len = 1;
	r.node_id = 1;
	hw_an_ingest(a, &r, 1);
}

/* --svg-every on record time: a grid from the first record, due once per crossing, gaps not made up. */
static void test_svg_schedule(void **state)
{
	(void)state;
	struct hw_an_config c;
	hw_an_config_default(&c);
	char err[256];
	struct an_outputs t = {.every_ns = 1000};
	struct hw_analyzer *a = hw_an_create(&c, NULL, NULL, an_outputs_emit, &t, err, sizeof(err));
	assert_non_null(a);
	an_outputs_bind(&t, a);
	struct fake f = {.base.ops = &plain_ops, .tag = 'F'};
	an_outputs_add(&t, &f.base);
	/* record time 5000: the grid starts, next at 6000: not due */
	ingest_at(a, 5000);
	an_outputs_tick(&t, AN_TICK_BATCH);
	assert_int_equal(f.due, 0);
	/* 5999 < 6000: not due */
	ingest_at(a, 5999);
	an_outputs_tick(&t, AN_TICK_BATCH);
	assert_int_equal(f.due, 0);
	/* 6000 reaches the grid point: due (1), next 7000 */
	ingest_at(a, 6000);
	an_outputs_tick(&t, AN_TICK_BATCH);
	assert_int_equal(f.due, 1);
	/* 9500 skips 7000 and 8000 and 9000: due once (2), next 10000 */
	ingest_at(a, 9500);
	an_outputs_tick(&t, AN_TICK_BATCH);
	assert_int_equal(f.due, 2);
	/* 9999 < 10000: not due */
	ingest_at(a, 9999);
	an_outputs_tick(&t, AN_TICK_BATCH);
	assert_int_equal(f.due, 2);
	/* the end tick is no batch tick */
	an_outputs_tick(&t, AN_TICK_END);
	assert_int_equal(f.ticks, 5);
	an_outputs_close(&t);
	hw_an_destroy(a);
}

/* ---- the rendering thread ---- */

struct job {
	struct an_render_job job;
	int id;
};

static int drawn[16], n_drawn, n_done; /* written by the rendering thread, read after flush/stop */

static void job_draw(struct an_render_job *j, void *gvc)
{
	assert_non_null(gvc);
	drawn[n_drawn++] = ((struct job *)j)->id;
}

static void job_done(struct an_render_job *j)
{
	(void)j;
	n_done++;
}

static void test_render_in_order(void **state)
{
	(void)state;
	char err[256];
	struct an_render *r = an_render_start(err, sizeof(err));
	assert_non_null(r);
	struct job jobs[8];
	n_drawn = n_done = 0;
	for (int i = 0; i < 5; i++) {
		jobs[i] = (struct job){.job = {.draw = job_draw, .done = job_done}, .id = i};
		an_render_submit(r, &jobs[i].job);
	}
	an_render_flush(r);
	/* five jobs, drawn in the order submitted, each done once */
	assert_int_equal(n_drawn, 5);
	assert_int_equal(n_done, 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(drawn[i], i);
	for (int i = 5; i < 8; i++) {
		jobs[i] = (struct job){.job = {.draw = job_draw}, .id = i}; /* no done */
		an_render_submit(r, &jobs[i].job);
	}
	an_render_stop(r); /* draws what is queued first */
	assert_int_equal(n_drawn, 8);
	assert_int_equal(n_done, 5);
	assert_int_equal(drawn[7], 7);
	hw_analyzer_gvc_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_annotate_then_events_in_order),
	    cmocka_unit_test(test_svg_schedule),
	    cmocka_unit_test(test_render_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
