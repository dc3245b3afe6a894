/* Congestion-path graphs: the part of the fabric an event concerns (or all of a small fabric) drawn by
 * hw_topo_render with an overlay: links and queue badges coloured by congestion level, the affected flows'
 * paths, a congestion tree's root and victims; the fabric heat map; files written atomically and bounded. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alert_text.h"
#include "an_outputs.h"
#include "clock.h"
#include "file_publish.h"

#define NAME_SLOTS 1024 /* raise -> file, for the resolve of the same episode */
#define MAX_BADGES 64
#define PENDING 16 /* graphs prepared and waiting for the rendering thread */

/* Congestion levels: score = max(occupancy / the queue's HighQueue threshold, hop latency / its latency
 * threshold), the thresholds as hw_an_queue_info gives them (derived from the fabric unless configured). */
static const char *const level_color[] = {NULL, "#e6ab02", "#f16913", "#cb181d"};
static const char *const level_name[] = {"normal", "elevated", "high", "severe"};
static const double level_width[] = {1, 2.5, 3.5, 5};
static const char *const flow_color[] = {"#1f77b4", "#6a3d9a", "#17becf", "#2ca02c",
                                         "#8c564b", "#e377c2", "#393b79", "#7f7f7f"};

static int level_of(double score)
{
	return score >= 2 ? 3 : score >= 1 ? 2 : score >= 0.5 ? 1 : 0;
}

struct file_ring { /* the timestamped files written, oldest first */
	char (*names)[512];
	unsigned head, n;
};

/* One graph to draw: the overlay's arrays, sized for the topology, and where it goes; a rendering job. */
struct sketch {
	struct an_render_job job; /* first: the job is the sketch */
	struct an_graphs *g;
	uint8_t *show;
	struct hw_render_link_style *links;
	struct hw_render_node_style *nodes;
	struct hw_render_badge *badges;
	struct hw_render_path paths[HW_AN_MAX_FLOWS + 1]; /* the flows, and a PathChange's old path */
	uint32_t n_badges, n_paths;
	int heat;      /* a heat map: only links */
	int ok;        /* drawn and written (set by the rendering thread) */
	double draw_s; /* its time in Graphviz and writing */
	char html[4096];
	char svg[512];    /* the file */
	char latest[512]; /* its stable name */
};

/* The victims an event's alert names: queue indices, at most a tree's 8 (hw_an_queue_info.victims). */
struct named_victims {
	uint64_t id; /* the event's */
	unsigned n;
	uint32_t q[8];
};

struct an_graphs {
	struct an_graphs_opts o;
	char dir[400];
	const struct hw_topo *t;
	struct an_render *render;
	double tokens[HW_AN_KIND_COUNT];
	uint64_t token_ns[HW_AN_KIND_COUNT];
	struct {
		uint64_t id;
		char svg[AN_GRAPHS_SVG_MAX];
	} named[NAME_SLOTS];
	struct named_victims victims[NAME_SLOTS]; /* by event id as named[] (remember_victims) */
	struct file_ring events, heats;
	struct an_graphs_stats st;
	double *score;            /* scratch of the detection thread: per link */
	struct hw_an_event *said; /* by event id as named[]: what its alert says, updates merged (remember_said) */
	uint8_t *own_link;        /* the same: per link, 1 when an event graph draws it in its level's colour */
	/* graphs prepared by the detection thread (slot wr % PENDING), drawn in order by the rendering
	 * thread (slot rd % PENDING); Graphviz runs only there */
	struct sketch pend[PENDING];
	uint64_t wr, rd;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started;
};

/* Graphs drawn by the rendering thread r (the only user of Graphviz).  t (the analyzer's topology) must
 * outlive the graphs.  NULL with a message on error (the directory). */
static struct an_graphs *an_graphs_start(const struct an_graphs_opts *o, const struct hw_topo *t, struct an_render *r,
                                         char *err, size_t errlen);
static void an_graphs_stop(struct an_graphs *g);

/* Before an event goes out: for a raised congestion event within the rate, set svg (AN_GRAPHS_SVG_MAX bytes)
 * to the file it will be drawn into and return 1 (then call an_graphs_draw_event once it is handed over);
 * for a resolve, set svg to its raise's file (so an alert keeps its annotation); else 0 (svg untouched). */
static int an_graphs_name(struct an_graphs *g, const struct hw_analyzer *a, const struct hw_an_event *e, char *svg);
/* Prepare the graph of the event named by an_graphs_name from the analyzer's state now (the overlay,
 * no Graphviz) and hand it to the rendering thread, which draws it into svg and DIR/event-latest.svg.
 * At most 16 graphs wait: beyond, an_graphs_name skips the raise (live: detection never waits for
 * Graphviz) or, with opts.wait (replays), waits for room. */
static void an_graphs_draw_event(struct an_graphs *g, const struct hw_analyzer *a, const struct hw_an_event *e,
                                 const char *svg);
/* Wait until every graph handed over is drawn. */
static void an_graphs_flush(struct an_graphs *g);
/* The heat map now, DIR/heatmap-<record time ns>.svg and DIR/heatmap.svg (the caller keeps the
 * --svg-every schedule); skipped when 16 graphs wait, unless opts.wait. */
static void an_graphs_heatmap_now(struct an_graphs *g, const struct hw_analyzer *a);
/* The heat map now (end of input; waits for room), DIR/heatmap-<record time ns>.svg and DIR/heatmap.svg,
 * then flush. */
static void an_graphs_heatmap(struct an_graphs *g, const struct hw_analyzer *a);
static void an_graphs_stats(struct an_graphs *g, struct an_graphs_stats *s);
static void draw_sketch(struct an_render_job *j, void *gvc);
static void sketch_done(struct an_render_job *j);
static void submit(struct an_graphs *g);

static struct an_graphs *an_graphs_start(const struct an_graphs_opts *o, const struct hw_topo *t, struct an_render *r,
                                         char *err, size_t errlen)
{
	if (strlen(o->dir) >= 200) {
		snprintf(err, errlen, "--svg-dir %s: path longer than 200 characters", o->dir);
		return NULL;
	}
	if (mkdir(o->dir, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "--svg-dir %s: %s", o->dir, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (stat(o->dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(o->dir, W_OK) != 0) {
		snprintf(err, errlen, "--svg-dir %s: not a writable directory", o->dir);
		return NULL;
	}
	struct an_graphs *g = calloc(1, sizeof(*g));
	if (!g) {
		snprintf(err, errlen, "--svg-dir: out of memory");
		return NULL;
	}
	g->o = *o;
	snprintf(g->dir, sizeof(g->dir), "%s", o->dir);
	g->t = t;
	g->render = r;
	for (int k = 0; k < HW_AN_KIND_COUNT; k++)
		g->tokens[k] = o->rate > 1 ? o->rate : 1;
	size_t nn = (size_t)t->n_nodes + 1, nl = (size_t)t->n_links + 1;
	int ok = (g->score = calloc(nl, sizeof(*g->score))) != NULL && (g->own_link = calloc(nl, 1)) != NULL &&
	         (g->said = calloc(NAME_SLOTS, sizeof(*g->said))) != NULL;
	for (unsigned i = 0; i < PENDING && ok; i++) {
		struct sketch *k = &g->pend[i];
		k->job.draw = draw_sketch;
		k->job.done = sketch_done;
		k->g = g;
		k->show = calloc(nn, 1);
		k->nodes = calloc(nn, sizeof(*k->nodes));
		k->links = calloc(nl, sizeof(*k->links));
		k->badges = calloc(MAX_BADGES, sizeof(*k->badges));
		ok = k->show && k->nodes && k->links && k->badges;
	}
	if (ok && o->keep) {
		ok = (g->events.names = calloc(o->keep, sizeof(*g->events.names))) != NULL &&
		     (g->heats.names = calloc(o->keep, sizeof(*g->heats.names))) != NULL;
	}
	if (!ok) {
		an_graphs_stop(g);
		snprintf(err, errlen, "--svg-dir: out of memory for a topology of %u nodes", t->n_nodes);
		return NULL;
	}
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->started = 1;
	return g;
}

static void an_graphs_stop(struct an_graphs *g)
{
	if (!g)
		return;
	if (g->started) {
		an_graphs_flush(g); /* the rendering thread is done with every sketch */
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
	for (unsigned i = 0; i < PENDING; i++) {
		free(g->pend[i].show);
		free(g->pend[i].nodes);
		free(g->pend[i].links);
		free(g->pend[i].badges);
	}
	free(g->score);
	free(g->own_link);
	free(g->said);
	free(g->events.names);
	free(g->heats.names);
	free(g);
}

static void an_graphs_stats(struct an_graphs *g, struct an_graphs_stats *s)
{
	pthread_mutex_lock(&g->mu);
	*s = g->st;
	pthread_mutex_unlock(&g->mu);
}

/* A token bucket per alertname on record time: rate per second, burst max(1, rate). */
static int take_token(struct an_graphs *g, enum hw_an_kind k, uint64_t now)
{
	if (g->o.rate <= 0)
		return 1;
	double burst = g->o.rate > 1 ? g->o.rate : 1;
	if (now > g->token_ns[k]) {
		g->tokens[k] += (double)(now - g->token_ns[k]) * 1e-9 * g->o.rate;
		if (g->tokens[k] > burst)
			g->tokens[k] = burst;
		g->token_ns[k] = now;
	}
	if (g->tokens[k] < 1)
		return 0;
	g->tokens[k] -= 1;
	return 1;
}

/* The victims e's alert names, kept for its graphs: an event that carries "victims" (a CongestionTree's raise,
 * an Incast's update when its tree folds into it, and either's update when the tree gathers more) names the
 * first that many of its root queue's victims (the detector lists them in that order); updates without
 * "victims" keep these, drawn or not.  The root's list may grow until its next tick's update names the new
 * ones, and the alert's text waits for it the same way. */
static void remember_victims(struct an_graphs *g, const struct hw_analyzer *a, const struct hw_an_event *e)
{
	struct named_victims *v = &g->victims[e->id % NAME_SLOTS];
	if (v->id != e->id) {
		v->id = e->id;
		v->n = 0;
	}
	for (unsigned i = 0; i < e->n_numbers; i++) {
		if (strcmp(e->numbers[i].name, "victims"))
			continue;
		long root = e->queue >= 0 ? hw_an_queue_find(a, e->node_id, e->port, e->queue) : -1;
		struct hw_an_queue_info rq = {0};
		if (root < 0 || hw_an_queue_get(a, (uint32_t)root, &rq))
			return;
		unsigned n = rq.n_victims < 8 ? rq.n_victims : 8;
		if (e->numbers[i].value < (double)n)
			n = e->numbers[i].value > 0 ? (unsigned)e->numbers[i].value : 0;
		memcpy(v->q, rq.victims, n * sizeof(v->q[0]));
		v->n = n;
	}
}

/* What e's alert says now, for its graphs' legends: a raise as it is, an update with what the alert said before
 * that it does not (hw_alert_keep_said, as the alert sink keeps it), drawn or not: an update draws the graph again
 * under the same name, and its legend must not lose the root's occupancy, the victims or what it follows. */
static void remember_said(struct an_graphs *g, const struct hw_an_event *e)
{
	struct hw_an_event *s = &g->said[e->id % NAME_SLOTS];
	const struct hw_an_event prev = *s;
	*s = *e;
	if (e->update && prev.id == e->id && !strcmp(prev.alertname, e->alertname))
		hw_alert_keep_said(s, &prev);
}

/* What e's alert says (remember_said), or e itself when another event took its slot since. */
static const struct hw_an_event *said_of(const struct an_graphs *g, const struct hw_an_event *e)
{
	const struct hw_an_event *s = &g->said[e->id % NAME_SLOTS];
	return s->id == e->id && !strcmp(s->alertname, e->alertname) ? s : e;
}

static int an_graphs_name(struct an_graphs *g, const struct hw_analyzer *a, const struct hw_an_event *e, char *svg)
{
	if (!hw_an_kind_congestion(e->kind))
		return 0;
	unsigned slot = (unsigned)(e->id % NAME_SLOTS);
	if (e->resolved) {
		if (g->named[slot].id == e->id)
			snprintf(svg, AN_GRAPHS_SVG_MAX, "%s", g->named[slot].svg);
		return 0;
	}
	remember_victims(g, a, e);
	remember_said(g, e);
	pthread_mutex_lock(&g->mu);
	while (g->o.wait && g->wr - g->rd >= PENDING)
		pthread_cond_wait(&g->cv, &g->mu);
	int room = g->wr - g->rd < PENDING; /* a slot for an_graphs_draw_event */
	if (!room || !take_token(g, e->kind, hw_an_now(a))) {
		g->st.skipped++;
		g->st.busy += !room;
		pthread_mutex_unlock(&g->mu);
		return 0;
	}
	pthread_mutex_unlock(&g->mu);
	snprintf(svg, AN_GRAPHS_SVG_MAX, "%.200s/event-%" PRIu64 "-%" PRIu64 "-%.31s.svg", g->dir, e->start_ns, e->id,
	         e->alertname);
	g->named[slot].id = e->id;
	snprintf(g->named[slot].svg, sizeof(g->named[slot].svg), "%s", svg);
	return 1;
}

/* The rendered SVG to path.tmp, then published as path and latest (one file written once). */
static int write_published(const char *path, const char *latest, const char *data, size_t len)
{
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	int ok = fwrite(data, 1, len, f) == len;
	ok &= fclose(f) == 0;
	if (!ok) {
		unlink(tmp);
		return -1;
	}
	return an_publish_file(tmp, path, latest);
}

/* Remember a timestamped file; past `keep`, remove the oldest this run wrote. */
static void keep_file(struct an_graphs *g, struct file_ring *r, const char *path)
{
	if (!g->o.keep)
		return;
	if (r->n == g->o.keep) {
		if (unlink(r->names[r->head]) == 0)
			g->st.removed++;
		r->head = (r->head + 1) % g->o.keep;
		r->n--;
	}
	snprintf(r->names[(r->head + r->n) % g->o.keep], sizeof(r->names[0]), "%s", path);
	r->n++;
}

/* Render the overlay and write it to path and to the stable name latest (the rendering thread). */
static int render(struct an_graphs *g, void *gvc, const struct hw_render_overlay *ov, int port_labels, const char *path,
                  const char *latest)
{
	char *svg = NULL;
	size_t len = 0;
	struct hw_render_opts ro = {.svg_buf = &svg, .svg_len = &len, .port_labels = port_labels, .overlay = ov};
	struct hw_topo_error err = {0};
	int ok = hw_topo_render(gvc, g->t, &ro, &err) == HW_TOPO_OK && svg;
	if (ok)
		ok = write_published(path, latest, svg, len) == 0;
	if (svg)
		hw_topo_render_free(gvc, svg);
	return ok;
}

/* Text for a Graphviz HTML label: & < > " escaped. */
static void html_text(char *dst, size_t size, const char *src)
{
	size_t o = 0;
	for (; *src && o + 7 < size; src++) {
		const char *rep = *src == '&'   ? "&amp;"
		                  : *src == '<' ? "&lt;"
		                  : *src == '>' ? "&gt;"
		                  : *src == '"' ? "&quot;"
		                                : NULL;
		if (rep) {
			memcpy(dst + o, rep, strlen(rep));
			o += strlen(rep);
		} else {
			dst[o++] = *src;
		}
	}
	dst[o] = 0;
}

/* The legend: a title, lines of facts, the level colours, and (for events) the flow paths. */
static void legend(char *buf, size_t size, const char *title, const char *facts, int flows)
{
	char t[600], f[1200];
	html_text(t, sizeof(t), title);
	size_t o = (size_t)snprintf(buf, size,
	                            "<table border=\"1\" cellborder=\"0\" cellspacing=\"2\" bgcolor=\"white\">"
	                            "<tr><td align=\"left\"><b>%s</b></td></tr>",
	                            t);
	for (const char *p = facts; *p && o < size;) { /* one row per line of facts */
		size_t n = strcspn(p, "\n");
		char line[400];
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		html_text(f, sizeof(f), line);
		o += (size_t)snprintf(buf + o, size - o, "<tr><td align=\"left\">%s</td></tr>", f);
		p += n + (p[n] == '\n');
	}
	for (int l = 1; l < 4 && o < size; l++)
		o += (size_t)snprintf(buf + o, size - o,
		                      "<tr><td align=\"left\"><font color=\"%s\">&#9608;&#9608;&#9608;</font>  %s: "
		                      "score %s %g</td></tr>",
		                      level_color[l], level_name[l], "&#8805;",
		                      l == 1   ? 0.5
		                      : l == 2 ? 1.0
		                               : 2.0);
	if (o < size && flows)
		o += (size_t)snprintf(
		    buf + o, size - o,
		    "<tr><td align=\"left\">score: max(occupancy / its HighQueue threshold,</td></tr>"
		    "<tr><td align=\"left\">hop latency / its latency threshold), peaks of the last 16 "
		    "ms</td></tr>");
	else if (o < size)
		o += (size_t)snprintf(
		    buf + o, size - o,
		    "<tr><td align=\"left\">score: occupancy / the queue's HighQueue threshold</td></tr>"
		    "<tr><td align=\"left\">(peak of either port's queues, last 16 ms)</td></tr>");
	if (flows && o < size)
		o += (size_t)snprintf(buf + o, size - o,
		                      "<tr><td align=\"left\"><font color=\"%s\">&#10230;</font>  affected flow's "
		                      "path (hop by hop); dashed grey: the path it left</td></tr>"
		                      "<tr><td align=\"left\">&#9635;  boxes: the event's queue and its victims; "
		                      "double border: congestion tree root</td></tr>"
		                      "<tr><td align=\"left\">links off the event's flows and victims: grey (their "
		                      "tooltips give the score)</td></tr>",
		                      flow_color[0]);
	if (o < size)
		snprintf(buf + o, size - o, "</table>");
}

static void show_with_neighbours(const struct hw_topo *t, uint8_t *show, uint32_t n)
{
	if (n == HW_TOPO_NONE)
		return;
	show[n] = 1;
	for (uint32_t p = t->nodes[n].first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
		uint32_t q = hw_topo_peer(t, p);
		if (q != HW_TOPO_NONE)
			show[t->ports[q].node] = 1;
	}
}

/* Mark the links between nodes a and b (parallel ones too) in own. */
static void own_links_between(const struct hw_topo *t, uint8_t *own, uint32_t a, uint32_t b)
{
	for (uint32_t p = t->nodes[a].first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
		uint32_t q = hw_topo_peer(t, p);
		if (q != HW_TOPO_NONE && t->ports[q].node == b && t->ports[p].link < t->n_links)
			own[t->ports[p].link] = 1;
	}
}

/* Against the queue's own thresholds (derived from the fabric unless configured: hw_an_queue_info). */
static double queue_score(const struct hw_an_queue_info *q)
{
	double s = q->raise > 0 ? q->peak_occ / q->raise : 0;
	double l = q->lat_raise > 0 ? q->peak_lat / q->lat_raise : 0;
	return s > l ? s : l;
}

static void badge(struct an_graphs *g, struct sketch *k, const struct hw_an_queue_info *q, double score,
                  const char *role)
{
	if (k->n_badges >= MAX_BADGES || q->topo_port == HW_TOPO_NONE)
		return;
	struct hw_render_badge *b = &k->badges[k->n_badges++];
	char pid[200], occ[16], last[16], lat[16];
	hw_topo_port_svg_id(g->t, q->topo_port, pid, sizeof(pid));
	snprintf(b->id, sizeof(b->id), "q-%.150s.%d", pid + 2, q->queue);
	b->port = q->topo_port;
	hw_fmt_bytes(q->peak_occ, occ, sizeof(occ));
	hw_fmt_bytes(q->last_occ, last, sizeof(last));
	hw_fmt_duration(q->peak_lat, lat, sizeof(lat));
	snprintf(b->label, sizeof(b->label), "%s%s%.60s q%d\nocc %s\nlat %s", role ? role : "", role ? " " : "",
	         g->t->ports[q->topo_port].name, q->queue, occ, lat);
	snprintf(b->tooltip, sizeof(b->tooltip),
	         "%s%s%.40s %.40s queue %d: peak occupancy %s, last %s, peak hop latency %s (last 16 ms); score "
	         "%.2f (%s)",
	         role ? role : "", role ? " " : "", g->t->nodes[g->t->ports[q->topo_port].node].name,
	         g->t->ports[q->topo_port].name, q->queue, occ, last, lat, score, level_name[level_of(score)]);
	int l = level_of(score);
	b->fill = l ? level_color[l] : "#ffffff";
	b->peripheries = role && strcmp(role, "ROOT") == 0 ? 2 : 1;
}

/* A flow's path from its hops (node id, egress port): the hops' nodes, then the last hop's egress peer (the
 * destination); shown in the sketch.  id "flow-<hash><suffix>", tooltip "flow <hash>: a > b > c".  0 when
 * fewer than 2 nodes are placed. */
static int flow_path(const struct hw_analyzer *a, const struct hw_topo *t, struct sketch *sk, struct hw_render_path *p,
                     const uint32_t (*hops)[2], unsigned nh, uint64_t hash, const char *suffix)
{
	memset(p, 0, sizeof(*p));
	size_t to = (size_t)snprintf(p->tooltip, sizeof(p->tooltip), "flow %016" PRIx64 "%s:", hash, suffix);
	uint32_t tp = HW_TOPO_NONE;
	for (unsigned h = 0; h < nh && p->n < HW_RENDER_PATH_MAX - 1; h++) {
		uint32_t n = hw_an_place(a, hops[h][0], hops[h][1], &tp);
		if (n == HW_TOPO_NONE)
			break;
		p->nodes[p->n++] = n;
	}
	if (p->n == nh && tp != HW_TOPO_NONE && hw_topo_peer(t, tp) != HW_TOPO_NONE)
		p->nodes[p->n++] = t->ports[hw_topo_peer(t, tp)].node;
	if (p->n < 2)
		return 0;
	for (uint32_t k = 0; k < p->n; k++) {
		sk->show[p->nodes[k]] = 1;
		if (to < sizeof(p->tooltip))
			to += (size_t)snprintf(p->tooltip + to, sizeof(p->tooltip) - to, "%s%.40s", k ? " > " : " ",
			                       t->nodes[p->nodes[k]].name);
	}
	snprintf(p->id, sizeof(p->id), "flow-%016" PRIx64 "%.8s", hash, suffix);
	return 1;
}

static const char *severity_color(const char *sev)
{
	return strcmp(sev, "critical") == 0 ? "#cb181d" : strcmp(sev, "warning") == 0 ? "#f16913" : "#3182bd";
}

static void an_graphs_draw_event(struct an_graphs *g, const struct hw_analyzer *a, const struct hw_an_event *e,
                                 const char *svg)
{
	const struct hw_topo *t = g->t;
	pthread_mutex_lock(&g->mu);
	int room = g->wr - g->rd < PENDING; /* an_graphs_name found room, and only this thread fills slots */
	pthread_mutex_unlock(&g->mu);
	if (!room)
		return;
	struct sketch *sk = &g->pend[g->wr % PENDING];
	sk->heat = 0;
	snprintf(sk->svg, sizeof(sk->svg), "%s", svg);
	snprintf(sk->latest, sizeof(sk->latest), "%s/event-latest.svg", g->dir);
	memset(sk->show, 0, t->n_nodes);
	memset(sk->nodes, 0, sizeof(*sk->nodes) * t->n_nodes);
	memset(sk->links, 0, sizeof(*sk->links) * t->n_links);
	int all = t->n_nodes <= g->o.full_max;
	if (all)
		memset(sk->show, 1, t->n_nodes);

	/* the place, and its queue (a congestion tree's root) */
	uint32_t place_port, place = hw_an_place(a, e->node_id, e->port, &place_port);
	show_with_neighbours(t, sk->show, place);
	long root = e->queue >= 0 ? hw_an_queue_find(a, e->node_id, e->port, e->queue) : -1;

	/* the affected flows' paths; a PathChange also the path it left */
	uint32_t n_paths = 0; /* sk->n_paths when done */
	for (unsigned f = 0; f < e->n_flows && n_paths < HW_AN_MAX_FLOWS; f++) {
		uint32_t hops[HW_RENDER_PATH_MAX - 1][2];
		unsigned nh = hw_an_flow_path(a, e->flows[f], hops, HW_RENDER_PATH_MAX - 1);
		if (flow_path(a, t, sk, &sk->paths[n_paths], hops, nh, e->flows[f], "")) {
			sk->paths[n_paths].color = flow_color[n_paths % 8];
			n_paths++;
		}
	}
	if (e->kind == HW_AN_PATH_CHANGE && e->n_flows == 1 && e->n_old_path &&
	    flow_path(a, t, sk, &sk->paths[n_paths], e->old_path,
	              e->n_old_path < HW_RENDER_PATH_MAX - 1 ? e->n_old_path : HW_RENDER_PATH_MAX - 1, e->flows[0],
	              "-old")) {
		sk->paths[n_paths].color = "#7f7f7f";
		sk->paths[n_paths].dashed = 1;
		n_paths++;
	}
	/* The event's own links: its place's, its victims', the ones its flows' paths cross.  Only they take their
	 * level's colour; every other link is grey, its score in its tooltip (the heat map draws the whole fabric).
	 * Badges only for the event's own queues: its place (a tree's root) and the victims its alert names.  Colour
	 * and a badge on every congested queue in view buried the culprit among a fabric's PFC victims (the demo's
	 * Incast had 22 badges). */
	memset(g->own_link, 0, t->n_links);
	if (place_port != HW_TOPO_NONE && t->ports[place_port].link < t->n_links)
		g->own_link[t->ports[place_port].link] = 1;
	for (uint32_t f = 0; f < n_paths; f++)
		for (uint32_t k = 0; k + 1 < sk->paths[f].n; k++)
			own_links_between(t, g->own_link, sk->paths[f].nodes[k], sk->paths[f].nodes[k + 1]);
	/* the victims its alert names (remember_victims): shown, with the link each is on */
	const struct named_victims *nv = &g->victims[e->id % NAME_SLOTS];
	const unsigned n_vict = nv->id == e->id ? nv->n : 0;
	for (unsigned v = 0; v < n_vict; v++) {
		struct hw_an_queue_info vq;
		if (hw_an_queue_get(a, nv->q[v], &vq) == 0 && vq.topo_port != HW_TOPO_NONE) {
			sk->show[t->ports[vq.topo_port].node] = 1;
			uint32_t peer = hw_topo_peer(t, vq.topo_port);
			if (peer != HW_TOPO_NONE)
				sk->show[t->ports[peer].node] = 1;
			if (t->ports[vq.topo_port].link < t->n_links)
				g->own_link[t->ports[vq.topo_port].link] = 1;
		}
	}

	sk->n_badges = 0;
	memset(g->score, 0, sizeof(*g->score) * t->n_links);
	uint32_t nq = hw_an_queue_count(a);
	for (uint32_t i = 0; i < nq; i++) {
		struct hw_an_queue_info q;
		if (hw_an_queue_get(a, i, &q) || q.topo_port == HW_TOPO_NONE)
			continue;
		uint32_t link = t->ports[q.topo_port].link, peer = hw_topo_peer(t, q.topo_port);
		if (link == HW_TOPO_NONE || link >= t->n_links || peer == HW_TOPO_NONE)
			continue;
		double s = queue_score(&q);
		if (s > g->score[link])
			g->score[link] = s;
		const char *role = NULL;
		if ((long)i == root && e->kind == HW_AN_CONGESTION_TREE)
			role = "ROOT";
		for (unsigned v = 0; v < n_vict; v++)
			if (nv->q[v] == i)
				role = "victim";
		int in_view = sk->show[t->ports[q.topo_port].node] && sk->show[t->ports[peer].node];
		if (in_view && (role || (long)i == root))
			badge(g, sk, &q, s, role);
	}
	for (uint32_t l = 0; l < t->n_links; l++) {
		int lv = level_of(g->score[l]), drawn = g->own_link[l] ? lv : 0;
		sk->links[l].color = level_color[drawn];
		sk->links[l].width = level_width[drawn];
		if (g->score[l] > 0)
			snprintf(sk->links[l].tooltip, sizeof(sk->links[l].tooltip), "score %.2f (%s)", g->score[l],
			         level_name[lv]);
	}
	if (place != HW_TOPO_NONE) {
		sk->nodes[place].color = severity_color(e->severity);
		sk->nodes[place].width = 3;
		snprintf(sk->nodes[place].note, sizeof(sk->nodes[place].note), "%s%s", e->alertname,
		         e->kind == HW_AN_CONGESTION_TREE ? " root" : "");
	}
	if (place_port != HW_TOPO_NONE && t->ports[place_port].link < t->n_links &&
	    !sk->links[t->ports[place_port].link].color)
		sk->links[t->ports[place_port].link].width = 2.5; /* the place, even when its queue is not congested */

	char title[600], where[400], facts[1200];
	hw_alert_place(e, where, sizeof(where)); /* as the alert names it */
	snprintf(title, sizeof(title), "%s (%s) at %s, event %" PRIu64, e->alertname, e->severity, where, e->id);
	hw_alert_graph_facts(said_of(g, e), facts, sizeof(facts)); /* the alert's words: UTC time, values, units */
	legend(sk->html, sizeof(sk->html), title, facts, 1);
	sk->n_paths = n_paths;
	submit(g);
}

/* Hand the slot just filled to the rendering thread. */
static void submit(struct an_graphs *g)
{
	struct sketch *k = &g->pend[g->wr % PENDING];
	pthread_mutex_lock(&g->mu);
	g->wr++;
	pthread_mutex_unlock(&g->mu);
	an_render_submit(g->render, &k->job);
}

/* On the rendering thread: Graphviz layout and render of a prepared graph (slots come in order). */
static void draw_sketch(struct an_render_job *j, void *gvc)
{
	struct sketch *k = (struct sketch *)j;
	struct an_graphs *g = k->g;
	struct hw_render_overlay ov = {.links = k->links, .legend_html = k->html};
	if (!k->heat) {
		ov.show = k->show;
		ov.nodes = k->nodes;
		ov.badges = k->badges;
		ov.n_badges = k->n_badges;
		ov.paths = k->paths;
		ov.n_paths = k->n_paths;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	k->ok = render(g, gvc, &ov, k->heat ? g->t->n_links <= 256 : 1, k->svg, k->latest);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	k->draw_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* After the drawing: count it, keep the file within --svg-keep, and free the slot. */
static void sketch_done(struct an_render_job *j)
{
	struct sketch *k = (struct sketch *)j;
	struct an_graphs *g = k->g;
	pthread_mutex_lock(&g->mu);
	g->st.draw_s += k->draw_s;
	if (!k->ok)
		g->st.failed++;
	else if (k->heat)
		g->st.heatmaps++;
	else
		g->st.events++;
	if (k->ok)
		keep_file(g, k->heat ? &g->heats : &g->events, k->svg);
	g->rd++;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static void an_graphs_flush(struct an_graphs *g)
{
	pthread_mutex_lock(&g->mu);
	while (g->rd != g->wr)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

/* Prepare the heat map into a free slot; with wait, wait for one (the end of input). */
static void heatmap(struct an_graphs *g, const struct hw_analyzer *a, int wait)
{
	const struct hw_topo *t = g->t;
	uint64_t now = hw_an_now(a);
	pthread_mutex_lock(&g->mu);
	while (wait && g->wr - g->rd >= PENDING)
		pthread_cond_wait(&g->cv, &g->mu);
	int room = g->wr - g->rd < PENDING;
	g->st.busy += !room;
	pthread_mutex_unlock(&g->mu);
	if (!room)
		return;
	struct sketch *k = &g->pend[g->wr % PENDING];
	k->heat = 1;
	hw_an_link_scores(a, g->score);
	memset(k->links, 0, sizeof(*k->links) * t->n_links);
	unsigned congested = 0;
	for (uint32_t l = 0; l < t->n_links; l++) {
		int lv = level_of(g->score[l]);
		congested += lv >= 2;
		k->links[l].color = level_color[lv];
		k->links[l].width = level_width[lv];
		snprintf(k->links[l].tooltip, sizeof(k->links[l].tooltip), "score %.2f (%s)", g->score[l],
		         level_name[lv]);
	}
	char title[200], facts[200], at[48];
	snprintf(title, sizeof(title), "hopwatch fabric heat map");
	hw_fmt_utc(now, at, sizeof(at));
	snprintf(facts, sizeof(facts), "at %s\n%u of %u links at or above the threshold", at, congested, t->n_links);
	legend(k->html, sizeof(k->html), title, facts, 0);
	snprintf(k->svg, sizeof(k->svg), "%.400s/heatmap-%" PRIu64 ".svg", g->dir, now);
	snprintf(k->latest, sizeof(k->latest), "%.400s/heatmap.svg", g->dir);
	submit(g);
}

static void an_graphs_heatmap(struct an_graphs *g, const struct hw_analyzer *a)
{
	heatmap(g, a, 1);
	an_graphs_flush(g);
}

static void an_graphs_heatmap_now(struct an_graphs *g, const struct hw_analyzer *a)
{
	heatmap(g, a, g->o.wait); /* live: skipped when busy */
}

/* ---- as outputs of the table: the event graphs, and the heat map ---- */

struct out_graphs {
	struct an_output base;
	struct an_graphs *g;
	int draw; /* the event being handed out was named for a graph */
};

static void graphs_annotate(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e, char *svg)
{
	struct out_graphs *x = (struct out_graphs *)o;
	x->draw = an_graphs_name(x->g, a, e, svg);
}

/* Last in the table: the graph is prepared once every other output has the event. */
static void graphs_on_event(struct an_output *o, const struct hw_analyzer *a, const struct hw_an_event *e,
                            const char *svg)
{
	struct out_graphs *x = (struct out_graphs *)o;
	if (x->draw)
		an_graphs_draw_event(x->g, a, e, svg);
	x->draw = 0;
}

static void graphs_summary(struct an_output *o, FILE *f)
{
	struct an_graphs_stats s;
	an_graphs_stats(((struct out_graphs *)o)->g, &s);
	fprintf(f,
	        ",\"svg\":{\"events\":%llu,\"skipped\":%llu,\"busy\":%llu,\"heatmaps\":%llu,\"failed\":%llu,"
	        "\"removed\":%llu,\"draw_s\":%.3f}",
	        (unsigned long long)s.events, (unsigned long long)s.skipped, (unsigned long long)s.busy,
	        (unsigned long long)s.heatmaps, (unsigned long long)s.failed, (unsigned long long)s.removed, s.draw_s);
}

static void graphs_close(struct an_output *o)
{
	struct out_graphs *x = (struct out_graphs *)o;
	an_graphs_stop(x->g);
	free(x);
}

static const struct an_output_ops graphs_ops = {.annotate = graphs_annotate,
                                                .on_event = graphs_on_event,
                                                .summary = graphs_summary,
                                                .summary_late = 1,
                                                .close = graphs_close};

struct an_output *an_out_graphs(const struct an_graphs_opts *o, const struct hw_topo *t, struct an_render *r, char *err,
                                size_t errlen)
{
	struct out_graphs *x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "--svg-dir: out of memory");
		return NULL;
	}
	if (!(x->g = an_graphs_start(o, t, r, err, errlen))) {
		free(x);
		return NULL;
	}
	x->base.ops = &graphs_ops;
	return &x->base;
}

struct out_heatmap {
	struct an_output base;
	struct an_graphs *g; /* the graphs output's */
};

static void heatmap_tick(struct an_output *o, const struct hw_analyzer *a, const struct an_tick *t)
{
	struct out_heatmap *x = (struct out_heatmap *)o;
	if (t->kind == AN_TICK_BATCH && t->svg_due)
		an_graphs_heatmap_now(x->g, a); /* live: skipped when the rendering thread is busy */
	else if (t->kind == AN_TICK_END)
		an_graphs_heatmap(x->g, a);
}

static void heatmap_close(struct an_output *o)
{
	free(o);
}

static const struct an_output_ops heatmap_ops = {.tick = heatmap_tick, .close = heatmap_close};

struct an_output *an_out_heatmap(struct an_output *graphs, char *err, size_t errlen)
{
	struct out_heatmap *x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "--svg-dir: out of memory");
		return NULL;
	}
	x->base.ops = &heatmap_ops;
	x->g = ((struct out_graphs *)graphs)->g;
	return &x->base;
}
