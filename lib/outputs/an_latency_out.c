/* The latency matrix out: a snapshot of it (copied on the ingest thread), CSV (one row per cell), an SVG
 * heat map drawn by Graphviz (one HTML-like table), JSON for the end-of-run summary, the time-named +
 * stable files written atomically (temp + rename), and the output that renders them on the rendering thread. */
#include <errno.h>
#include <gvc.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alert_text.h"
#include "an_outputs.h"
#include "file_publish.h"
#include "hopwatch/analyzer.h"

/* What the files show, copied from the analyzer's matrix: leaves by index, cells by (src, dst) index. */
struct lat_snap {
	struct hw_an_lat_stats st;
	uint32_t n, order[HW_AN_LAT_LEAVES];
	char name[HW_AN_LAT_LEAVES][HW_TOPO_NAME_MAX];
	struct hw_an_lat_cell cell[HW_AN_LAT_LEAVES][HW_AN_LAT_LEAVES];
	uint8_t have[HW_AN_LAT_LEAVES][HW_AN_LAT_LEAVES];
};

/* Copy m into s. */
static void snap_fill(struct lat_snap *s, const struct hw_an_latmatrix *m)
{
	hw_an_lat_stats(m, &s->st);
	s->n = hw_an_lat_order(m, s->order);
	for (uint32_t i = 0; i < s->n; i++) {
		snprintf(s->name[i], sizeof(s->name[i]), "%s", hw_an_lat_leaf_name(m, i));
		for (uint32_t j = 0; j < s->n; j++)
			s->have[i][j] = (uint8_t)hw_an_lat_cell(m, i, j, &s->cell[i][j]);
	}
}

/* A copy of m (malloc'd; NULL when out of memory). */
static struct lat_snap *snap_take(const struct hw_an_latmatrix *m)
{
	struct lat_snap *s = malloc(sizeof(*s));
	if (s)
		snap_fill(s, m);
	return s;
}

/* Cell (i, j) of the snapshot: 0 when empty. */
static int snap_cell(const struct lat_snap *s, uint32_t i, uint32_t j, struct hw_an_lat_cell *c)
{
	*c = s->cell[i][j];
	return s->have[i][j];
}

/* A field quoted as RFC 4180 asks when it holds a comma, quote or line break. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int snap_write_csv(const struct lat_snap *m, FILE *f)
{
	const uint32_t *order = m->order, n = m->n;
	fprintf(f, "source,destination,reports,avg_ns,p999_ns,min_ns,max_ns\n");
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			struct hw_an_lat_cell c;
			if (!snap_cell(m, order[i], order[j], &c))
				continue;
			csv_field(f, m->name[order[i]]);
			fputc(',', f);
			csv_field(f, m->name[order[j]]);
			fprintf(f, ",%llu,%.1f,%llu,%llu,%llu\n", (unsigned long long)c.count, c.avg,
			        (unsigned long long)c.p999, (unsigned long long)c.min, (unsigned long long)c.max);
		}
	return ferror(f) ? -1 : 0;
}

/* ---- the SVG heat map ---- */

/* The colour scale is absolute, so two matrices (two runs, two moments) compare at a glance: p99.9 on a
 * log scale from LAT_COLOUR_LO_NS (pale) to LAT_COLOUR_HI_NS (dark red), clamped at both ends. */
#define LAT_COLOUR_LO_NS 1e3 /* 1 µs */
#define LAT_COLOUR_HI_NS 1e6 /* 1 ms */

/* Where ns falls on the colour scale, in [0, 1]. */
static double colour_at(double ns)
{
	if (ns <= LAT_COLOUR_LO_NS)
		return 0;
	double r = log10(ns / LAT_COLOUR_LO_NS) / log10(LAT_COLOUR_HI_NS / LAT_COLOUR_LO_NS);
	return r > 1 ? 1 : r;
}

/* Heat colour for r in [0, 1]: pale yellow, orange, dark red (ColorBrewer YlOrRd ends and middle). */
static void heat(char *buf, size_t size, double r)
{
	static const int stops[3][3] = {{0xff, 0xff, 0xcc}, {0xfd, 0x8d, 0x3c}, {0xbd, 0x00, 0x26}};
	r = r < 0 ? 0 : r > 1 ? 1 : r;
	int k = r < 0.5 ? 0 : 1;
	double t = r < 0.5 ? r * 2 : (r - 0.5) * 2;
	int rgb[3];
	for (int i = 0; i < 3; i++)
		rgb[i] = (int)(stops[k][i] + (stops[k + 1][i] - stops[k][i]) * t + 0.5);
	snprintf(buf, size, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* The grid: every cell, header and legend swatch is a box node at a fixed position (engine nop2), so
 * that each carries its own SVG id and tooltip. */
struct grid {
	Agraph_t *g;
	Agsym_t *pos, *id, *label, *tip, *fill, *font, *width, *height, *shape, *color;
	double cw, ch; /* cell size, points */
	unsigned n;
};

static Agnode_t *grid_box(struct grid *G, const char *name, double col, double row, const char *id, const char *label,
                          const char *tip, const char *fill)
{
	char pos[64], text[1024], w[32], h[32];
	Agnode_t *v = agnode(G->g, (char *)name, 1);
	snprintf(pos, sizeof(pos), "%.1f,%.1f!", (col + 0.5) * G->cw, -(row + 0.5) * G->ch);
	snprintf(w, sizeof(w), "%.3f", G->cw / 72.0);
	snprintf(h, sizeof(h), "%.3f", G->ch / 72.0);
	agxset(v, G->pos, pos);
	agxset(v, G->width, w);
	agxset(v, G->height, h);
	if (id)
		agxset(v, G->id, (char *)id);
	agxset(v, G->label, hw_gv_text(label, text, sizeof(text)));
	if (tip)
		agxset(v, G->tip, hw_gv_text(tip, text, sizeof(text)));
	agxset(v, G->fill, (char *)fill);
	return v;
}

static void ids(char *buf, size_t size, const char *prefix, const char *a, const char *b)
{
	snprintf(buf, size, "%s", prefix);
	hw_svg_id_append(buf, size, a);
	if (b) {
		hw_svg_id_append(buf, size, "-");
		hw_svg_id_append(buf, size, b);
	}
}

static void build_grid(struct grid *G, const struct lat_snap *m, uint64_t time_ns)
{
	const uint32_t *order = m->order, n = m->n;
	const struct hw_an_lat_stats st = m->st;
	size_t longest = 8;
	for (uint32_t i = 0; i < n; i++) {
		size_t l = strlen(m->name[i]);
		longest = l > longest ? l : longest;
	}
	G->n = n;
	G->cw = 12.0 + 6.0 * (double)(longest > 40 ? 40 : longest);
	G->ch = 30.0;
	char name[64], id[3 * HW_TOPO_NAME_MAX + 16], label[512], tip[1024], a[32], b[32], colour[16], at[48];
	hw_fmt_duration(LAT_COLOUR_LO_NS, a, sizeof(a));
	hw_fmt_duration(LAT_COLOUR_HI_NS, b, sizeof(b));
	hw_fmt_utc(time_ns, at, sizeof(at));
	snprintf(label, sizeof(label),
	         "End-to-end latency (sum of hop latencies): p99.9 over avg\n"
	         "rows: source leaf (requester), columns: destination leaf (responder)\n"
	         "%llu reports up to %s; colour: p99.9 on a log scale, %s to %s",
	         (unsigned long long)st.reports, at, a, b);
	Agnode_t *title = grid_box(G, "title", (n + 1) / 2.0 - 0.5, -1.6, "title", label, NULL, "white");
	agxset(title, G->shape, "plaintext");
	char w[32];
	snprintf(w, sizeof(w), "%.3f", (n + 1) * G->cw / 72.0);
	agxset(title, G->width, w);
	grid_box(G, "corner", 0, 0, "corner", "source \\ dest", NULL, "#eeeeee");
	for (uint32_t j = 0; j < n; j++) {
		const char *dst = m->name[order[j]];
		snprintf(name, sizeof(name), "c%u", j);
		ids(id, sizeof(id), "col-", dst, NULL);
		grid_box(G, name, j + 1, 0, id, dst, NULL, "#eeeeee");
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *src = m->name[order[i]];
		snprintf(name, sizeof(name), "r%u", i);
		ids(id, sizeof(id), "row-", src, NULL);
		grid_box(G, name, 0, i + 1, id, src, NULL, "#eeeeee");
		for (uint32_t j = 0; j < n; j++) {
			const char *dst = m->name[order[j]];
			struct hw_an_lat_cell c;
			snprintf(name, sizeof(name), "r%uc%u", i, j);
			if (!snap_cell(m, order[i], order[j], &c)) {
				grid_box(G, name, j + 1, i + 1, NULL, "", NULL, "white");
				continue;
			}
			double r = colour_at((double)c.p999);
			heat(colour, sizeof(colour), r);
			ids(id, sizeof(id), "cell-", src, dst);
			hw_fmt_duration((double)c.p999, a, sizeof(a));
			hw_fmt_duration(c.avg, b, sizeof(b));
			snprintf(label, sizeof(label), "%s\n%s", a, b);
			snprintf(tip, sizeof(tip),
			         "%s to %s: %llu reports, avg %.1f ns, p99.9 %llu ns, min %llu ns, max %llu ns", src,
			         dst, (unsigned long long)c.count, c.avg, (unsigned long long)c.p999,
			         (unsigned long long)c.min, (unsigned long long)c.max);
			Agnode_t *v = grid_box(G, name, j + 1, i + 1, id, label, tip, colour);
			if (r > 0.7)
				agxset(v, G->font, "white");
		}
	}
	/* legend: five swatches a quarter of the scale apart, 1 µs, 5.62 µs, 31.6 µs, 178 µs, 1 ms */
	for (unsigned k = 0; k <= 4; k++) {
		snprintf(name, sizeof(name), "legend%u", k);
		heat(colour, sizeof(colour), k / 4.0);
		hw_fmt_duration(LAT_COLOUR_LO_NS * pow(LAT_COLOUR_HI_NS / LAT_COLOUR_LO_NS, k / 4.0), a, sizeof(a));
		Agnode_t *v = grid_box(G, name, k + 0.0, n + 1.4, name, a, NULL, colour);
		if (k == 4)
			agxset(v, G->font, "white");
	}
}

static int snap_write_svg(const struct lat_snap *m, void *gvc, uint64_t time_ns, const char *file, char *err,
                          size_t errlen)
{
	struct grid G = {0};
	G.g = agopen("latency_matrix", Agundirected, NULL);
	agattr(G.g, AGRAPH, "bgcolor", "white");
	agattr(G.g, AGRAPH, "id", "latency-matrix");
	G.pos = agattr(G.g, AGNODE, "pos", "");
	G.id = agattr(G.g, AGNODE, "id", "");
	G.label = agattr(G.g, AGNODE, "label", "");
	G.tip = agattr(G.g, AGNODE, "tooltip", "");
	G.fill = agattr(G.g, AGNODE, "fillcolor", "white");
	G.font = agattr(G.g, AGNODE, "fontcolor", "black");
	G.width = agattr(G.g, AGNODE, "width", "1");
	G.height = agattr(G.g, AGNODE, "height", "0.4");
	G.shape = agattr(G.g, AGNODE, "shape", "box");
	G.color = agattr(G.g, AGNODE, "color", "#999999");
	agattr(G.g, AGNODE, "style", "filled");
	agattr(G.g, AGNODE, "fixedsize", "true");
	agattr(G.g, AGNODE, "fontname", "Helvetica");
	agattr(G.g, AGNODE, "fontsize", "9");
	build_grid(&G, m, time_ns);
	int rc = 0;
	if (gvLayout(gvc, G.g, "nop2") != 0) {
		snprintf(err, errlen, "latency matrix: Graphviz layout (nop2) failed");
		rc = -1;
	} else {
		if (gvRenderFilename(gvc, G.g, "svg", file) != 0) {
			snprintf(err, errlen, "%s: Graphviz could not write the SVG", file);
			rc = -1;
		}
		gvFreeLayout(gvc, G.g);
	}
	agclose(G.g);
	return rc;
}

/* ---- files: DIR/latency-matrix-<time>.EXT and DIR/latency-matrix.EXT ---- */

static int write_csv_file(const struct lat_snap *m, const char *file, char *err, size_t errlen)
{
	FILE *f = fopen(file, "w");
	if (!f || snap_write_csv(m, f) || fflush(f) || fsync(fileno(f))) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	return 0;
}

/* Write one kind to DIR/.latency-matrix.EXT.PID.tmp, then publish it as the timed and the stable name. */
static int publish(const struct lat_snap *m, void *gvc, const char *dir, uint64_t time_ns, const char *ext, char *err,
                   size_t errlen)
{
	char tmp[4096], timed[4096], stable[4096];
	snprintf(tmp, sizeof(tmp), "%s/.latency-matrix.%s.%ld.tmp", dir, ext, (long)getpid());
	snprintf(timed, sizeof(timed), "%s/latency-matrix-%llu.%s", dir, (unsigned long long)time_ns, ext);
	snprintf(stable, sizeof(stable), "%s/latency-matrix.%s", dir, ext);
	unlink(tmp);
	int rc = strcmp(ext, "csv") == 0 ? write_csv_file(m, tmp, err, errlen)
	                                 : snap_write_svg(m, gvc, time_ns, tmp, err, errlen);
	if (rc) {
		unlink(tmp);
		return -1;
	}
	if (an_publish_file(tmp, timed, stable)) {
		snprintf(err, errlen, "%s: %s", timed, strerror(errno));
		return -1;
	}
	return 0;
}

static int snap_write_files(const struct lat_snap *m, void *gvc, const char *dir, uint64_t time_ns, char *err,
                            size_t errlen)
{
	if (publish(m, gvc, dir, time_ns, "csv", err, errlen))
		return -1;
	return publish(m, gvc, dir, time_ns, "svg", err, errlen);
}

/* ---- JSON for the end-of-run summary ---- */

static char *snap_json(const struct lat_snap *m, uint32_t max_leaves)
{
	const struct hw_an_lat_stats st = m->st;
	const uint32_t *order = m->order, n = m->n;
	json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I}", "reports", (json_int_t)st.reports, "short_path",
	                      (json_int_t)st.short_path, "partial", (json_int_t)st.partial, "no_latency",
	                      (json_int_t)st.no_latency, "leaves_full", (json_int_t)st.leaves_full);
	json_t *leaves = json_array(), *cells = json_array();
	for (uint32_t i = 0; i < n; i++)
		json_array_append_new(leaves, json_string(m->name[order[i]]));
	json_object_set_new(o, "leaves", leaves);
	for (uint32_t i = 0; i < n && n <= max_leaves; i++)
		for (uint32_t j = 0; j < n; j++) {
			struct hw_an_lat_cell c;
			if (snap_cell(m, order[i], order[j], &c))
				json_array_append_new(cells, json_pack("{s:s,s:s,s:I,s:f,s:I,s:I,s:I}", "src",
				                                       m->name[order[i]], "dst", m->name[order[j]],
				                                       "reports", (json_int_t)c.count, "avg_ns", c.avg,
				                                       "p999_ns", (json_int_t)c.p999, "min_ns",
				                                       (json_int_t)c.min, "max_ns", (json_int_t)c.max));
		}
	if (n <= max_leaves)
		json_object_set_new(o, "cells", cells);
	else
		json_decref(cells);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

/* ---- the public calls on the analyzer's matrix: a snapshot, then the same writers ---- */

int hw_an_lat_write_csv(const struct hw_an_latmatrix *m, FILE *f)
{
	struct lat_snap *s = snap_take(m);
	int rc = s ? snap_write_csv(s, f) : -1;
	free(s);
	return rc;
}

int hw_an_lat_write_svg(const struct hw_an_latmatrix *m, void *gvc, uint64_t time_ns, const char *file, char *err,
                        size_t errlen)
{
	struct lat_snap *s = snap_take(m);
	int rc = s ? snap_write_svg(s, gvc, time_ns, file, err, errlen) : -1;
	if (!s)
		snprintf(err, errlen, "%s: out of memory for the latency matrix", file);
	free(s);
	return rc;
}

int hw_an_lat_write_files(const struct hw_an_latmatrix *m, void *gvc, const char *dir, uint64_t time_ns, char *err,
                          size_t errlen)
{
	struct lat_snap *s = snap_take(m);
	int rc = s ? snap_write_files(s, gvc, dir, time_ns, err, errlen) : -1;
	if (!s)
		snprintf(err, errlen, "%s: out of memory for the latency matrix", dir);
	free(s);
	return rc;
}

char *hw_an_lat_json(const struct hw_an_latmatrix *m, uint32_t max_leaves)
{
	struct lat_snap *s = snap_take(m);
	char *json = s ? snap_json(s, max_leaves) : NULL;
	free(s);
	return json;
}

/* ---- the output: on the --svg-every schedule and at the end, a snapshot to the rendering thread ---- */

#define LAT_IN_FLIGHT 2 /* snapshots waiting for the rendering thread; beyond, the ingest thread waits */

struct out_latency {
	struct an_output base;
	struct an_render *render;
	char dir[4000];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned in_flight;
};

struct lat_job {
	struct an_render_job job; /* first: the job is the lat_job */
	struct out_latency *x;
	uint64_t time_ns;
	struct lat_snap snap;
};

static void lat_draw(struct an_render_job *j, void *gvc)
{
	struct lat_job *k = (struct lat_job *)j;
	char err[512];
	if (snap_write_files(&k->snap, gvc, k->x->dir, k->time_ns, err, sizeof(err)))
		fprintf(stderr, "hopwatch-analyzer run: %s\n", err);
}

static void lat_done(struct an_render_job *j)
{
	struct lat_job *k = (struct lat_job *)j;
	struct out_latency *x = k->x;
	free(k);
	pthread_mutex_lock(&x->mu);
	x->in_flight--;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

/* The matrix as of record time now, to the rendering thread. */
static void lat_submit(struct out_latency *x, const struct hw_analyzer *a)
{
	struct lat_job *k = malloc(sizeof(*k));
	if (!k) {
		fprintf(stderr, "hopwatch-analyzer run: --svg-dir %s: out of memory for the latency matrix\n", x->dir);
		return;
	}
	snap_fill(&k->snap, hw_an_latency(a));
	k->job.draw = lat_draw;
	k->job.done = lat_done;
	k->x = x;
	k->time_ns = hw_an_now(a);
	pthread_mutex_lock(&x->mu);
	while (x->in_flight >= LAT_IN_FLIGHT)
		pthread_cond_wait(&x->cv, &x->mu);
	x->in_flight++;
	pthread_mutex_unlock(&x->mu);
	an_render_submit(x->render, &k->job);
}

static void lat_wait(struct out_latency *x)
{
	pthread_mutex_lock(&x->mu);
	while (x->in_flight)
		pthread_cond_wait(&x->cv, &x->mu);
	pthread_mutex_unlock(&x->mu);
}

static void lat_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct out_latency *x = (struct out_latency *)o;
	if (t->kind == AN_TICK_BATCH && t->svg_due) {
		lat_submit(x, a);
	} else if (t->kind == AN_TICK_END) {
		lat_submit(x, a);
		lat_wait(x); /* the final files are in place before the run goes on */
	}
}

static void lat_close(struct an_output *o)
{
	struct out_latency *x = (struct out_latency *)o;
	lat_wait(x);
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x);
}

static const struct an_output_ops latency_ops = {.tick = lat_tick, .close = lat_close};

struct an_output *an_out_latency(const char *dir, struct an_render *r, char *err, size_t errlen)
{
	struct stat st;
	if (mkdir(dir, 0755) && (errno != EEXIST || stat(dir, &st) || !S_ISDIR(st.st_mode))) {
		snprintf(err, errlen, "--svg-dir %s: %s", dir, errno == EEXIST ? "not a directory" : strerror(errno));
		return NULL;
	}
	struct out_latency *x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "--svg-dir %s: out of memory", dir);
		return NULL;
	}
	x->base.ops = &latency_ops;
	x->render = r;
	snprintf(x->dir, sizeof(x->dir), "%s", dir);
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	return &x->base;
}
