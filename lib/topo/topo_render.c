/* The topology as an SVG (and positioned DOT) through cgraph + gvc: tiers in ranks (hosts at the bottom,
 * then leaves, spines, super-spines), links labelled with port names, mismatches coloured, a legend. */
#include <gvc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_render.h"

void hw_svg_id_append(char *dst, size_t size, const char *src)
{
	size_t o = strlen(dst);
	for (; *src && o + 1 < size; src++)
		dst[o++] = ((*src >= 'a' && *src <= 'z') || (*src >= 'A' && *src <= 'Z') ||
		            (*src >= '0' && *src <= '9') || *src == '.' || *src == '-')
		               ? *src
		               : '_';
	dst[o] = '\0';
}

void hw_topo_node_svg_id(const struct hw_topo *t, uint32_t node, char *buf, size_t size)
{
	snprintf(buf, size, "n-");
	hw_svg_id_append(buf, size, t->nodes[node].name);
	if (hw_topo_find_node_by_name(t, t->nodes[node].name) != node) { /* a second node with this name */
		hw_svg_id_append(buf, size, "~");
		hw_svg_id_append(buf, size, t->nodes[node].chassis_id);
	}
}

void hw_topo_link_svg_id(const struct hw_topo *t, uint32_t link, char *buf, size_t size)
{
	const struct hw_topo_link *l = &t->links[link];
	snprintf(buf, size, "l-");
	hw_svg_id_append(buf, size, t->nodes[t->ports[l->a].node].name);
	hw_svg_id_append(buf, size, ".");
	hw_svg_id_append(buf, size, t->ports[l->a].name);
	hw_svg_id_append(buf, size, "--");
	hw_svg_id_append(buf, size, t->nodes[t->ports[l->b].node].name);
	hw_svg_id_append(buf, size, ".");
	hw_svg_id_append(buf, size, t->ports[l->b].name);
}

void hw_topo_port_svg_id(const struct hw_topo *t, uint32_t port_idx, char *buf, size_t size)
{
	snprintf(buf, size, "p-");
	hw_svg_id_append(buf, size, t->nodes[t->ports[port_idx].node].name);
	hw_svg_id_append(buf, size, ".");
	hw_svg_id_append(buf, size, t->ports[port_idx].name);
}

/* Graphviz expands backslash escapes (\N, \G, \n, ...) in labels and tooltips: double every backslash so
 * that a name is drawn as it was advertised. */
char *hw_gv_text(const char *src, char *dst, size_t size)
{
	size_t o = 0;
	for (; *src && o + 2 < size; src++) {
		if (*src == '\\')
			dst[o++] = '\\';
		dst[o++] = *src;
	}
	dst[o] = '\0';
	return dst;
}

/* ---- the tiered layout: our own ranks and order, Graphviz draws it (engine "nop2") ---- */

struct slot {
	uint32_t node;
	double key;
};

/* Names compare with their digit runs as numbers, so leaf2 comes before leaf10. */
int hw_name_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			char *ea, *eb;
			unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static int by_key(const void *x, const void *y, void *topo)
{
	const struct slot *a = x, *b = y;
	const struct hw_topo *t = topo;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return hw_name_cmp(t->nodes[a->node].name, t->nodes[b->node].name);
}

/* Whether node i is drawn (an overlay may show only part of the fabric). */
static int shown(const struct hw_render_overlay *ov, uint32_t i)
{
	return !ov || !ov->show || ov->show[i];
}

/* Mean position of a node's drawn neighbours on tier `other`; -1 when it has none there. */
static double barycenter(const struct hw_topo *t, const struct hw_render_overlay *ov, const double *xpos, uint32_t node,
                         unsigned other)
{
	double sum = 0;
	unsigned n = 0;
	for (uint32_t p = t->nodes[node].first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
		uint32_t q = hw_topo_peer(t, p);
		if (q == HW_TOPO_NONE)
			continue;
		uint32_t v = t->ports[q].node;
		if (t->nodes[v].tier == other && shown(ov, v)) {
			sum += xpos[v];
			n++;
		}
	}
	return n ? sum / n : -1;
}

#define N_TIERS 4

/* Order each tier: by name first, then by the barycentre of its neighbours on the tier it hangs from. */
static void order_tiers(const struct hw_topo *t, const struct hw_render_overlay *ov, struct slot **tier,
                        uint32_t *count, double *xpos)
{
	for (unsigned k = 0; k < N_TIERS; k++) {
		for (uint32_t i = 0; i < count[k]; i++)
			tier[k][i].key = 0;
		qsort_r(tier[k], count[k], sizeof(struct slot), by_key, (void *)t);
		for (uint32_t i = 0; i < count[k]; i++)
			xpos[tier[k][i].node] = (i + 0.5) / count[k];
	}
	/* Leaves stay in name order (what an operator looks for); each other tier follows the one it hangs
	 * from, so that hosts sit under their leaf and spines over their leaves. */
	static const int sweep[][2] = {
	    {HW_TIER_HOST, HW_TIER_LEAF}, {HW_TIER_SPINE, HW_TIER_LEAF}, {HW_TIER_SUPERSPINE, HW_TIER_SPINE}};
	for (size_t s = 0; s < sizeof(sweep) / sizeof(sweep[0]); s++) {
		unsigned k = (unsigned)sweep[s][0], other = (unsigned)sweep[s][1];
		for (uint32_t i = 0; i < count[k]; i++) {
			double b = barycenter(t, ov, xpos, tier[k][i].node, other);
			tier[k][i].key = b < 0 ? xpos[tier[k][i].node] : b;
		}
		qsort_r(tier[k], count[k], sizeof(struct slot), by_key, (void *)t);
		for (uint32_t i = 0; i < count[k]; i++)
			xpos[tier[k][i].node] = (i + 0.5) / count[k];
	}
}

static const char *tier_fill(unsigned tier)
{
	static const char *const fill[] = {"#deebf7", "#c7e9c0", "#fdd0a2", "#dadaeb"};
	return tier < N_TIERS ? fill[tier] : "#eeeeee";
}

static const char LEGEND[] =
    "<table border=\"1\" cellborder=\"0\" cellspacing=\"2\" bgcolor=\"white\">"
    "<tr><td colspan=\"2\"><b>hopwatch fabric topology</b></td></tr>"
    "<tr><td><font color=\"#555555\">&#9472;&#9472;&#9472;</font></td><td align=\"left\">link up</td></tr>"
    "<tr><td><font color=\"#d62728\">&#9472;&#9472;&#9472;</font></td><td align=\"left\">MTU mismatch</td></tr>"
    "<tr><td><font color=\"#ff7f0e\">&#9472;&#9472;&#9472;</font></td><td align=\"left\">PFC priorities "
    "differ</td></tr>"
    "<tr><td><font color=\"#9467bd\">- - -</font></td><td align=\"left\">seen from one side only</td></tr>"
    "<tr><td><font color=\"#aaaaaa\">. . .</font></td><td align=\"left\">link disappeared / down</td></tr>"
    "<tr><td><font color=\"#d62728\">&#9633;</font></td><td align=\"left\">duplicate chassis ID</td></tr>"
    "</table>";

static void edge_style(const struct hw_topo_link *l, int overlay, const char **color, const char **style)
{
	*color = overlay ? "#b0b0b0" : "#555555";
	*style = "solid";
	if (overlay)
		*style = l->up ? "solid" : "dotted";
	else if (l->flags & HW_LINK_MTU_MISMATCH)
		*color = "#d62728";
	else if (l->flags & HW_LINK_PFC_MISMATCH)
		*color = "#ff7f0e";
	else if (l->flags & HW_LINK_ONE_SIDED)
		*color = "#9467bd", *style = "dashed";
	else if (!l->up)
		*color = "#aaaaaa", *style = "dotted";
}

static int duplicate_chassis(const struct hw_topo *t, const char *name)
{
	for (uint32_t i = 0; i < t->n_events; i++)
		if (t->events[i].kind == HW_EV_DUPLICATE_CHASSIS &&
		    (strcmp(t->events[i].a_node, name) == 0 || strcmp(t->events[i].b_node, name) == 0))
			return 1;
	return 0;
}

static void draw_overlay(Agraph_t *g, const struct hw_topo *t, const struct hw_render_overlay *ov, Agnode_t **gnode,
                         const double *xy);

static Agraph_t *build_graph(const struct hw_topo *t, const struct hw_render_opts *o, Agnode_t **gnode)
{
	const struct hw_render_overlay *ov = o->overlay;
	Agraph_t *g = agopen("fabric", Agundirected, NULL);
	if (!g)
		return NULL;
	agattr(g, AGRAPH, "splines", "line");
	agattr(g, AGRAPH, "outputorder", "edgesfirst");
	agattr(g, AGRAPH, "bgcolor", "white");
	agattr(g, AGRAPH, "fontname", "Helvetica");
	Agsym_t *a_pos = agattr(g, AGNODE, "pos", ""), *a_id = agattr(g, AGNODE, "id", ""),
	        *a_shape = agattr(g, AGNODE, "shape", "box"), *a_fill = agattr(g, AGNODE, "fillcolor", "#eeeeee"),
	        *a_ncolor = agattr(g, AGNODE, "color", "black"), *a_pen = agattr(g, AGNODE, "penwidth", "1"),
	        *a_tip = agattr(g, AGNODE, "tooltip", ""), *a_label = agattr(g, AGNODE, "label", "\\N");
	agattr(g, AGNODE, "style", "filled");
	agattr(g, AGNODE, "fontname", "Helvetica");
	agattr(g, AGNODE, "fontsize", "10");
	agattr(g, AGNODE, "width", "1.1");
	agattr(g, AGNODE, "height", "0.4");
	Agsym_t *e_id = agattr(g, AGEDGE, "id", ""), *e_color = agattr(g, AGEDGE, "color", "#555555"),
	        *e_style = agattr(g, AGEDGE, "style", "solid"), *e_pen = agattr(g, AGEDGE, "penwidth", "1"),
	        *e_tail = agattr(g, AGEDGE, "taillabel", ""), *e_head = agattr(g, AGEDGE, "headlabel", ""),
	        *e_tip = agattr(g, AGEDGE, "tooltip", "");
	agattr(g, AGEDGE, "fontname", "Helvetica");
	agattr(g, AGEDGE, "labelfontsize", "7");
	agattr(g, AGEDGE, "labeldistance", "1.5");
	agattr(g, AGEDGE, "fontcolor", "#333333");

	/* Ranks and order. */
	struct slot *tier[N_TIERS];
	uint32_t count[N_TIERS] = {0}, fill[N_TIERS] = {0};
	double *xpos = calloc((size_t)t->n_nodes + 1, sizeof(*xpos)),
	       *xy = calloc(2 * (size_t)t->n_nodes + 2, sizeof(*xy));
	for (uint32_t i = 0; i < t->n_nodes; i++)
		if (shown(ov, i))
			count[t->nodes[i].tier < N_TIERS ? t->nodes[i].tier : HW_TIER_LEAF]++;
	int ok = xpos != NULL && xy != NULL;
	for (unsigned k = 0; k < N_TIERS; k++)
		ok &= (tier[k] = calloc((size_t)count[k] + 1, sizeof(struct slot))) != NULL;
	if (!ok) {
		for (unsigned k = 0; k < N_TIERS; k++)
			free(tier[k]);
		free(xpos);
		free(xy);
		agclose(g);
		return NULL;
	}
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		if (!shown(ov, i))
			continue;
		unsigned k = t->nodes[i].tier < N_TIERS ? t->nodes[i].tier : HW_TIER_LEAF;
		tier[k][fill[k]++].node = i;
	}
	order_tiers(t, ov, tier, count, xpos);
	uint32_t widest = 1;
	for (unsigned k = 0; k < N_TIERS; k++)
		widest = count[k] > widest ? count[k] : widest;
	const double step = 100.0, rank_gap = 160.0;
	double width = widest * step;

	char buf[1200], pos[64], text[2400];
	for (unsigned k = 0; k < N_TIERS; k++) {
		for (uint32_t i = 0; i < count[k]; i++) {
			uint32_t ni = tier[k][i].node;
			const struct hw_topo_node *n = &t->nodes[ni];
			hw_topo_node_svg_id(t, ni, buf, sizeof(buf));
			Agnode_t *v = agnode(g, buf, 1);
			gnode[ni] = v;
			agxset(v, a_id, buf);
			/* Spread each tier over the width of the widest one, at most 3 steps apart, centred. */
			double gap = width / count[k] < 3 * step ? width / count[k] : 3 * step;
			double x = (width - count[k] * gap) / 2 + (i + 0.5) * gap;
			snprintf(pos, sizeof(pos), "%.1f,%.1f!", x, k * rank_gap);
			xy[2 * ni] = x;
			xy[2 * ni + 1] = k * rank_gap;
			agxset(v, a_pos, pos);
			const struct hw_render_node_style *ns = ov && ov->nodes ? &ov->nodes[ni] : NULL;
			if (ns && ns->note[0]) {
				snprintf(buf, sizeof(buf), "%s\n%s", n->name, ns->note);
				agxset(v, a_label, hw_gv_text(buf, text, sizeof(text)));
			} else {
				agxset(v, a_label, hw_gv_text(n->name, text, sizeof(text)));
			}
			agxset(v, a_shape, k == HW_TIER_HOST ? "ellipse" : "box");
			agxset(v, a_fill, (char *)tier_fill(k));
			if (ns && ns->color) {
				agxset(v, a_ncolor, (char *)ns->color);
				snprintf(pos, sizeof(pos), "%g", ns->width > 0 ? ns->width : 1);
				agxset(v, a_pen, pos);
			} else if (!ov && duplicate_chassis(t, n->name)) {
				agxset(v, a_ncolor, "#d62728");
				agxset(v, a_pen, "3");
			}
			snprintf(buf, sizeof(buf), "%.200s (%s) chassis %.200s%s%.40s node_id %u", n->name,
			         hw_topo_tier_name(n->tier), n->chassis_id, n->n_mgmt ? " mgmt " : "",
			         n->n_mgmt ? n->mgmt[0] : "", n->node_id);
			agxset(v, a_tip, hw_gv_text(buf, text, sizeof(text)));
		}
	}
	for (unsigned k = 0; k < N_TIERS; k++)
		free(tier[k]);
	free(xpos);

	for (uint32_t i = 0; i < t->n_links; i++) {
		const struct hw_topo_link *l = &t->links[i];
		const struct hw_topo_port *pa = &t->ports[l->a], *pb = &t->ports[l->b];
		if (!shown(ov, pa->node) || !shown(ov, pb->node))
			continue;
		hw_topo_link_svg_id(t, i, buf, sizeof(buf));
		Agedge_t *e = agedge(g, gnode[pa->node], gnode[pb->node], buf, 1);
		if (!e)
			continue;
		const char *color, *style;
		edge_style(l, ov != NULL, &color, &style);
		const struct hw_render_link_style *ls = ov && ov->links ? &ov->links[i] : NULL;
		agxset(e, e_id, buf);
		agxset(e, e_color, (char *)(ls && ls->color ? ls->color : color));
		agxset(e, e_style, (char *)style);
		if (ls && ls->width > 0) {
			snprintf(pos, sizeof(pos), "%g", ls->width);
			agxset(e, e_pen, pos);
		} else if (!ov && (l->flags & (HW_LINK_MTU_MISMATCH | HW_LINK_PFC_MISMATCH | HW_LINK_ONE_SIDED))) {
			agxset(e, e_pen, "2.5");
		}
		/* cgraph may store the edge with its ends swapped: label each end by its own node. */
		int swapped = aghead(e) == gnode[pa->node] && gnode[pa->node] != gnode[pb->node];
		if (o->port_labels) {
			agxset(e, e_tail, hw_gv_text(swapped ? pb->name : pa->name, text, sizeof(text)));
			agxset(e, e_head, hw_gv_text(swapped ? pa->name : pb->name, text, sizeof(text)));
		}
		snprintf(buf, sizeof(buf), "%.100s.%.60s -- %.100s.%.60s mtu %u/%u%s%s", t->nodes[pa->node].name,
		         pa->name, t->nodes[pb->node].name, pb->name, pa->max_frame, pb->max_frame,
		         ls && ls->tooltip[0] ? " " : "", ls ? ls->tooltip : "");
		agxset(e, e_tip, hw_gv_text(buf, text, sizeof(text)));
	}
	if (ov)
		draw_overlay(g, t, ov, gnode, xy);
	free(xy);
	if (ov && !ov->legend_html)
		return g;

	Agnode_t *legend = agnode(g, "legend", 1);
	agxset(legend, a_id, "legend");
	agxset(legend, a_shape, "plaintext");
	agxset(legend, a_fill, "white");
	unsigned top = 0;
	for (unsigned k = 0; k < N_TIERS; k++)
		top = count[k] ? k : top;
	snprintf(pos, sizeof(pos), "%.1f,%.1f!", ov ? -300.0 : -160.0, top * rank_gap);
	agxset(legend, a_pos, pos);
	char *html = agstrdup_html(g, (char *)(ov ? ov->legend_html : LEGEND));
	agxset(legend, a_label, html);
	agstrfree(g, html);
	return g;
}

/* An overlay's badges (boxes over links near a port) and paths (polylines through node centres, drawn
 * from the given spline: engine nop2 keeps an edge's own "pos"). */
static void draw_overlay(Agraph_t *g, const struct hw_topo *t, const struct hw_render_overlay *ov, Agnode_t **gnode,
                         const double *xy)
{
	char pos[64], text[600];
	for (uint32_t i = 0; i < ov->n_badges; i++) {
		const struct hw_render_badge *b = &ov->badges[i];
		if (b->port >= t->n_ports)
			continue;
		uint32_t n = t->ports[b->port].node, peer = hw_topo_peer(t, b->port);
		if (peer == HW_TOPO_NONE || !gnode[n] || !gnode[t->ports[peer].node])
			continue;
		uint32_t m = t->ports[peer].node;
		double x = xy[2 * n] + 0.4 * (xy[2 * m] - xy[2 * n]),
		       y = xy[2 * n + 1] + 0.4 * (xy[2 * m + 1] - xy[2 * n + 1]);
		Agnode_t *v = agnode(g, (char *)b->id, 1);
		agsafeset(v, "id", (char *)b->id, "");
		snprintf(pos, sizeof(pos), "%.1f,%.1f!", x, y);
		agsafeset(v, "pos", pos, "");
		agsafeset(v, "label", hw_gv_text(b->label, text, sizeof(text)), "");
		agsafeset(v, "tooltip", hw_gv_text(b->tooltip, text, sizeof(text)), "");
		agsafeset(v, "shape", "box", "");
		agsafeset(v, "style", "filled,rounded", "");
		agsafeset(v, "fillcolor", (char *)(b->fill ? b->fill : "#ffffff"), "");
		agsafeset(v, "fontsize", "7", "");
		agsafeset(v, "width", "0.2", "");
		agsafeset(v, "height", "0.2", "");
		agsafeset(v, "margin", "0.03,0.01", "");
		snprintf(pos, sizeof(pos), "%d", b->peripheries > 0 ? b->peripheries : 1);
		agsafeset(v, "peripheries", pos, "");
	}
	for (uint32_t i = 0; i < ov->n_paths; i++) {
		const struct hw_render_path *p = &ov->paths[i];
		uint32_t n = p->n < HW_RENDER_PATH_MAX ? p->n : HW_RENDER_PATH_MAX;
		if (n < 2 || p->nodes[0] >= t->n_nodes || p->nodes[n - 1] >= t->n_nodes || !gnode[p->nodes[0]] ||
		    !gnode[p->nodes[n - 1]] || p->nodes[0] == p->nodes[n - 1])
			continue;
		/* Each segment is a straight cubic Bezier (control points on its ends); paths are offset a little
		 * from one another so that flows over the same links stay apart; the last segment stops short of
		 * the node for the arrowhead. */
		double off = ((double)(i % 8) - 3.5) * 3.0, px[HW_RENDER_PATH_MAX], py[HW_RENDER_PATH_MAX];
		for (uint32_t k = 0; k < n; k++) {
			uint32_t v = p->nodes[k] < t->n_nodes ? p->nodes[k] : p->nodes[0];
			px[k] = xy[2 * v] + off;
			py[k] = xy[2 * v + 1] + off;
		}
		double dx = px[n - 1] - px[n - 2], dy = py[n - 1] - py[n - 2], len = sqrt(dx * dx + dy * dy);
		dx = len > 0 ? dx / len : 0;
		dy = len > 0 ? dy / len : 0;
		char spline[HW_RENDER_PATH_MAX * 3 * 32 + 64];
		size_t o = (size_t)snprintf(spline, sizeof(spline), "e,%.1f,%.1f %.1f,%.1f", px[n - 1] - 15 * dx,
		                            py[n - 1] - 15 * dy, px[0], py[0]);
		for (uint32_t k = 1; k < n && o < sizeof(spline); k++) {
			double ex = px[k], ey = py[k];
			if (k == n - 1) {
				ex -= 25 * dx;
				ey -= 25 * dy;
			}
			o += (size_t)snprintf(spline + o, sizeof(spline) - o, " %.1f,%.1f %.1f,%.1f %.1f,%.1f",
			                      px[k - 1], py[k - 1], ex, ey, ex, ey);
			px[k] = ex; /* the next segment starts where this one ended */
			py[k] = ey;
		}
		Agedge_t *e = agedge(g, gnode[p->nodes[0]], gnode[p->nodes[n - 1]], (char *)p->id, 1);
		if (!e)
			continue;
		agsafeset(e, "id", (char *)p->id, "");
		agsafeset(e, "pos", spline, "");
		agsafeset(e, "color", (char *)(p->color ? p->color : "#1f77b4"), "");
		agsafeset(e, "penwidth", "2.5", "");
		agsafeset(e, "dir", "forward", "");
		agsafeset(e, "style", p->dashed ? "dashed" : "solid", "");
		agsafeset(e, "arrowsize", "0.8", "");
		agsafeset(e, "tooltip", hw_gv_text(p->tooltip, text, sizeof(text)), "");
	}
}

enum hw_topo_result hw_topo_render(void *gvc_, const struct hw_topo *t, const struct hw_render_opts *o,
                                   struct hw_topo_error *err)
{
	GVC_t *gvc = gvc_;
	Agnode_t **gnode = calloc((size_t)t->n_nodes + 1, sizeof(*gnode));
	if (!gnode)
		return hw_topo_fail(err, HW_TOPO_E_NOMEM, "render: out of memory");
	Agraph_t *g = build_graph(t, o, gnode);
	free(gnode);
	if (!g)
		return hw_topo_fail(err, HW_TOPO_E_NOMEM, "render: cannot build the graph");
	enum hw_topo_result r = HW_TOPO_OK;
	if (gvLayout(gvc, g, "nop2") != 0) {
		r = hw_topo_fail(err, HW_TOPO_E_RENDER, "render: Graphviz layout (nop2) failed");
		agclose(g);
		return r;
	}
	if (o->svg_path && gvRenderFilename(gvc, g, "svg", o->svg_path) != 0)
		r = hw_topo_fail(err, HW_TOPO_E_RENDER, "%s: Graphviz could not write the SVG", o->svg_path);
	if (r == HW_TOPO_OK && o->dot_path && gvRenderFilename(gvc, g, "dot", o->dot_path) != 0)
		r = hw_topo_fail(err, HW_TOPO_E_RENDER, "%s: Graphviz could not write the DOT file", o->dot_path);
	if (r == HW_TOPO_OK && o->svg_buf) {
#ifdef HW_GVRENDER_SIZE_T
		size_t len = 0;
#else
		unsigned int len = 0; /* graphviz < 13 */
#endif
		if (gvRenderData(gvc, g, "svg", o->svg_buf, &len) != 0)
			r = hw_topo_fail(err, HW_TOPO_E_RENDER, "render: Graphviz could not render the SVG in memory");
		else if (o->svg_len)
			*o->svg_len = len;
	}
	gvFreeLayout(gvc, g);
	agclose(g);
	return r;
}

void hw_topo_render_free(void *gvc, char *svg_buf)
{
	(void)gvc;
	gvFreeRenderData(svg_buf);
}
