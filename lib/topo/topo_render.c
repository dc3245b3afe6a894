/* The topology as an SVG (and positioned DOT) through cgraph + gvc: tiers top down in rows near 16:10 (a fat-tree's
 * pods side by side), each leaf's hosts beside it, port names where they overlap nothing, mismatches coloured. */
#include <gvc.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_render.h"
#include "topo_layout.h"

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

#define NODE_FONT 10 /* pt: the nodes' fontsize (a_fsize), the largest a name is drawn at, the legend's text */
#define NODE_FONT_STR_(x) #x
#define NODE_FONT_STR(x) NODE_FONT_STR_(x)
#define LEGEND_FONT ((double)NODE_FONT)
/* The room the layout keeps for the legend: its size at this font, centred in it.  The layouts are chosen with
 * this room (topo_place_nodes: a canvas's aspect); the legend's own size in its place takes the k=8 fat-tree's
 * heat map out of 16:10 by a hair and from 4 pods to a row to 2, the pods' links crossing two rows more.  16 pt with
 * legend_size's per-glyph widths keeps about the room its earlier flat 0.62 em gave at 14 pt (at 14 pt the default
 * leaf-spine's heat map went from 2 rows of hosts under each leaf to 4, their links crossing the hosts). */
#define LEGEND_ROOM_FONT 16.0

/* A character's advance in em as a browser draws the SVG: DejaVu Sans (Debian's sans-serif, wider than the
 * Helvetica metrics Graphviz sizes with), by class, each class's widest glyph: space 0.32; i j l I J and narrow
 * punctuation 0.34; f t r, brackets, dash, slash 0.42; other lowercase, digits and the rest of ASCII 0.64;
 * capitals 0.79; = + < > ~ 0.84; m w M W % @ & and everything past ASCII (blocks, arrows, >=) 1.0, long
 * arrows (U+27F0-27FF) 1.6.  Bold (DejaVu Sans Bold) is up to 1.12 times wider. */
static double glyph_em(unsigned cp, bool bold)
{
	double w;
	if (cp == ' ')
		w = 0.32;
	else if (cp < 128 && strchr("ijlIJ.,:;'|!", (int)cp))
		w = 0.34;
	else if (cp < 128 && strchr("ftr()[]{}-/\\\"`", (int)cp))
		w = 0.42;
	else if (cp < 128 && strchr("=+<>~", (int)cp))
		w = 0.84;
	else if (cp < 128 && strchr("mwMW%@&", (int)cp))
		w = 1.0;
	else if (cp >= 'A' && cp <= 'Z')
		w = 0.79;
	else if (cp < 128)
		w = 0.64;
	else
		w = cp >= 0x27f0 && cp <= 0x27ff ? 1.6 : 1.0;
	return bold ? 1.12 * w : w;
}

/* The character at p in UTF-8 text, its code point in *cp, returns the bytes it takes (as many as its lead byte
 * says, fewer at a string's end).  Only 3-byte sequences are decoded (the long arrows' range, glyph_em); any other
 * past ASCII stands as 0x80, "past ASCII": its width class is all that matters, not which. */
static size_t utf8_char(const char *p, unsigned *cp)
{
	const unsigned char c = (unsigned char)*p;
	size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
	*cp = c < 0x80 ? c : 0x80;
	for (size_t i = 1; i < n; i++)
		if (!p[i])
			return i;
	if (n == 3)
		*cp = (unsigned)(c & 0x0f) << 12 | (unsigned)(p[1] & 0x3f) << 6 | (unsigned)(p[2] & 0x3f);
	return n;
}

/* The character at p in a legend's HTML text: an entity is one (&#N; &amp; &lt; &gt; &quot;), else utf8_char. */
static size_t html_char(const char *p, unsigned *cp)
{
	if (*p == '&' && strchr(p, ';')) {
		const size_t n = (size_t)(strchr(p, ';') - p) + 1;
		if (p[1] == '#')
			*cp = (unsigned)(p[2] == 'x' ? strtoul(p + 3, NULL, 16) : strtoul(p + 2, NULL, 10));
		else
			*cp = !strncmp(p, "&lt;", 4)     ? '<'
			      : !strncmp(p, "&gt;", 4)   ? '>'
			      : !strncmp(p, "&quot;", 6) ? '"'
			                                 : '&';
		return n;
	}
	return utf8_char(p, cp);
}

/* The size (pt) of a legend's HTML table with text of font pt: a row per <tr>, as wide as its text (glyph_em per
 * character; an entity is one) plus 6 pt per cell and 18 pt of border and spacing, a row 1.2 em + 5 pt high (the
 * pitch Graphviz draws them at, 16-18 pt at 10 pt), 6 pt more; 0 x 0 for no legend.  The table is drawn at this size
 * (legend_label), a minimum for Graphviz, which would size it from its narrower Helvetica metrics and let a browser's
 * DejaVu Sans run past the border (the heat map legend's longest line ran 1.9 pt past it); svg_fit.py measures every
 * legend text against its border in Chromium. */
static void legend_size(const char *html, double font, double *w, double *h)
{
	size_t rows = 0;
	double longest = 0, row = 0;
	bool bold = false;
	for (const char *p = html ? html : ""; *p;) {
		if (*p == '<') {
			if (!strncmp(p, "<tr", 3)) {
				rows++;
				row = 0;
			} else if (!strncmp(p, "<td", 3)) {
				row += 6 / font; /* the cell's padding, in em */
			} else if (!strncmp(p, "<b>", 3) || !strncmp(p, "</b>", 4)) {
				bold = p[1] == 'b';
			}
			p += strcspn(p, ">");
			if (*p)
				p++;
			continue;
		}
		unsigned cp;
		p += html_char(p, &cp);
		row += glyph_em(cp, bold);
		if (row > longest)
			longest = row;
	}
	*w = rows ? font * longest + 18 : 0;
	*h = rows ? (1.2 * font + 5) * (double)rows + 6 : 0;
}

/* The legend's label: html with its outer table given legend_size's width and height at LEGEND_FONT (a minimum
 * for Graphviz, which sizes the table from its own narrower metrics otherwise); html as it is when it is not one
 * table. */
static char *legend_label(Agraph_t *g, const char *html)
{
	static const char open[] = "<table";
	double w, h;
	legend_size(html, LEGEND_FONT, &w, &h);
	if (strncmp(html, open, sizeof(open) - 1) || w <= 0)
		return agstrdup_html(g, (char *)html);
	const size_t len = strlen(html) + 64;
	char *buf = malloc(len);
	if (!buf)
		return agstrdup_html(g, (char *)html);
	snprintf(buf, len, "%s width=\"%.0f\" height=\"%.0f\"%s", open, ceil(w), ceil(h), html + sizeof(open) - 1);
	char *s = agstrdup_html(g, buf);
	free(buf);
	return s;
}

/* A plain label's widest line in em as a browser draws it (glyph_em per character, at least 1 em) and its
 * number of lines (at least 1): the one width estimate for node labels, badges and port names, as for the legend. */
static void label_extent(const char *label, double *widest, size_t *lines)
{
	*widest = 1;
	*lines = 0;
	for (const char *p = label; *lines == 0 || *p; ++*lines) {
		double w = 0;
		while (*p && *p != '\n') {
			unsigned cp;
			p += utf8_char(p, &cp);
			w += glyph_em(cp, false);
		}
		*widest = w > *widest ? w : *widest;
		p += *p == '\n';
	}
}

/* A label's font size (pt, at most NODE_FONT) so that its lines fit a box of width x height pt inside Graphviz's
 * margins (8 pt in all), a line taking 1.2 em. */
static double fit_font(const char *label, double width, double height)
{
	double widest;
	size_t lines;
	label_extent(label, &widest, &lines);
	double f = fmin((width - 8) / widest, (height - 8) / (1.2 * (double)lines));
	return f < NODE_FONT ? f : NODE_FONT;
}

/* A point on a badge's link, the fraction f of the way from its port's node; 0 when the badge is not drawn. */
static int badge_at(const struct hw_topo *t, const struct hw_render_badge *b, Agnode_t *const *gnode, const double *xy,
                    double f, double *x, double *y)
{
	if (b->port >= t->n_ports)
		return 0;
	uint32_t n = t->ports[b->port].node, peer = hw_topo_peer(t, b->port);
	if (peer == HW_TOPO_NONE || !gnode[n] || !gnode[t->ports[peer].node])
		return 0;
	uint32_t m = t->ports[peer].node;
	*x = xy[2 * n] + f * (xy[2 * m] - xy[2 * n]);
	*y = xy[2 * n + 1] + f * (xy[2 * m + 1] - xy[2 * n + 1]);
	return 1;
}

/* Boxes (x0, y0, x1, y1) already drawn, that a port label must not overlap, in a grid of GRID pt cells over
 * the drawing (boxes outside it in the border cells), so that a query looks at its neighbourhood only. */
#define GRID 64.0
struct boxes {
	double (*b)[4];
	size_t n, cap;
	double x0, y0;        /* the grid's corner */
	uint32_t cols, rows;  /* cells */
	uint32_t *head;       /* per cell: entry + 1, 0 = none */
	uint32_t (*entry)[2]; /* box, next entry + 1 */
	size_t n_entries, cap_entries;
};

static int boxes_init(struct boxes *s, const double *xy, uint32_t n)
{
	double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (uint32_t i = 0; i < n; i++) {
		x0 = fmin(x0, xy[2 * i]), x1 = fmax(x1, xy[2 * i]);
		y0 = fmin(y0, xy[2 * i + 1]), y1 = fmax(y1, xy[2 * i + 1]);
	}
	if (!n)
		x0 = y0 = x1 = y1 = 0;
	s->x0 = x0 - GRID;
	s->y0 = y0 - GRID;
	s->cols = (uint32_t)((x1 - x0) / GRID) + 3;
	s->rows = (uint32_t)((y1 - y0) / GRID) + 3;
	s->head = calloc((size_t)s->cols * s->rows, sizeof(*s->head));
	return s->head ? 0 : -1;
}

static void boxes_free(struct boxes *s)
{
	free(s->b);
	free(s->head);
	free(s->entry);
}

/* The cells [c0, c1] x [r0, r1] a box covers (clamped to the grid). */
static void cells_of(const struct boxes *s, double x0, double y0, double x1, double y1, uint32_t *c)
{
	double v[4] = {(x0 - s->x0) / GRID, (y0 - s->y0) / GRID, (x1 - s->x0) / GRID, (y1 - s->y0) / GRID};
	for (int i = 0; i < 4; i++) {
		double lim = (i % 2 ? s->rows : s->cols) - 1;
		c[i] = (uint32_t)(v[i] < 0 ? 0 : v[i] > lim ? lim : v[i]);
	}
}

static int box_add(struct boxes *s, double x0, double y0, double x1, double y1)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		void *p = realloc(s->b, cap * sizeof(*s->b));
		if (!p)
			return -1;
		s->b = p;
		s->cap = cap;
	}
	uint32_t c[4];
	cells_of(s, x0, y0, x1, y1, c);
	size_t need = s->n_entries + (size_t)(c[2] - c[0] + 1) * (c[3] - c[1] + 1);
	if (need > s->cap_entries) {
		size_t cap = s->cap_entries ? 2 * s->cap_entries : 1024;
		while (cap < need)
			cap *= 2;
		void *p = realloc(s->entry, cap * sizeof(*s->entry));
		if (!p)
			return -1;
		s->entry = p;
		s->cap_entries = cap;
	}
	s->b[s->n][0] = x0;
	s->b[s->n][1] = y0;
	s->b[s->n][2] = x1;
	s->b[s->n][3] = y1;
	for (uint32_t r = c[1]; r <= c[3]; r++)
		for (uint32_t k = c[0]; k <= c[2]; k++) {
			uint32_t *h = &s->head[(size_t)r * s->cols + k];
			s->entry[s->n_entries][0] = (uint32_t)s->n;
			s->entry[s->n_entries][1] = *h;
			*h = (uint32_t)++s->n_entries;
		}
	s->n++;
	return 0;
}

static int box_free(const struct boxes *s, double x0, double y0, double x1, double y1)
{
	uint32_t c[4];
	cells_of(s, x0, y0, x1, y1, c);
	for (uint32_t r = c[1]; r <= c[3]; r++)
		for (uint32_t k = c[0]; k <= c[2]; k++)
			for (uint32_t e = s->head[(size_t)r * s->cols + k]; e; e = s->entry[e - 1][1]) {
				const double *b = s->b[s->entry[e - 1][0]];
				if (x0 < b[2] && b[0] < x1 && y0 < b[3] && b[1] < y1)
					return 0;
			}
	return 1;
}

#define PORT_FONT 7.0
#define BADGE_FONT 7.0

/* Where each badge goes (bxy[2i], bxy[2i+1]; NAN when it is not drawn), so that no two overlap nor cover a
 * node: on its link at the first free spot from 0.4 of the way from its port's node; else beside that node (its
 * row, above, below), further out step by step; else at 0.4 all the same.  Each box goes into taken (when
 * there is a grid), for the port labels to keep clear of. */
static void place_badges(const struct hw_topo *t, const struct hw_render_overlay *ov, Agnode_t *const *gnode,
                         const double *xy, struct boxes *taken, int grid, double *bxy)
{
	static const double along[] = {0.4, 0.3, 0.5, 0.2, 0.6, 0.7, 0.8};
	for (uint32_t i = 0; i < ov->n_badges; i++) {
		const struct hw_render_badge *b = &ov->badges[i];
		double x0, y0, x = 0, y = 0;
		bxy[2 * i] = bxy[2 * i + 1] = NAN;
		if (!badge_at(t, b, gnode, xy, along[0], &x0, &y0))
			continue;
		double widest;
		size_t lines;
		label_extent(b->label, &widest, &lines);
		/* the text, Graphviz's margins, a gap */
		double hw = BADGE_FONT * widest / 2 + 5, hh = 1.2 * BADGE_FONT * (double)lines / 2 + 3;
		int found = !grid;
		for (size_t k = 0; !found && k < sizeof(along) / sizeof(along[0]); k++) {
			badge_at(t, b, gnode, xy, along[k], &x, &y);
			found = box_free(taken, x - hw, y - hh, x + hw, y + hh);
		}
		uint32_t n = t->ports[b->port].node;
		int host = t->nodes[n].tier == HW_TIER_HOST;
		double nw, nh;
		topo_box_half(host, &nw, &nh);
		for (int k = 0; !found && k < 48; k++) { /* beside the node: right and left, its row, above, below */
			int step = k / 6, side = k % 2 ? -1 : 1, row = (k / 2) % 3;
			x = xy[2 * n] + side * (nw + hw + 4 + step * (2 * hw + 4));
			y = xy[2 * n + 1] + (row == 0 ? 0 : row == 1 ? 1 : -1) * (nh + hh + 4);
			found = box_free(taken, x - hw, y - hh, x + hw, y + hh);
		}
		if (!found) {
			x = x0;
			y = y0;
		}
		if (grid)
			box_add(taken, x - hw, y - hh, x + hw, y + hh);
		bxy[2 * i] = x;
		bxy[2 * i + 1] = y;
	}
}

/* A link end's port name as a text of its own on the link just outside the node at (x, y) towards its peer at
 * (px, py), a little further along when that spot is taken; left out (the link's tooltip names it) when no
 * spot is free, so that no two labels overlap. */
static void port_label(Agraph_t *g, struct boxes *taken, const char *link_id, const char *end, const char *name,
                       const double *at, const double *peer, int host)
{
	double dx = peer[0] - at[0], dy = peer[1] - at[1], len = sqrt(dx * dx + dy * dy);
	if (len <= 0 || !name[0])
		return;
	dx /= len;
	dy /= len;
	double hw, hh;
	topo_box_half(host, &hw, &hh);
	double exit = fmin(fabs(dx) > 1e-9 ? hw / fabs(dx) : INFINITY, fabs(dy) > 1e-9 ? hh / fabs(dy) : INFINITY);
	double widest;
	size_t lines;
	label_extent(name, &widest, &lines);
	double w = PORT_FONT * widest / 2 + 1, h = PORT_FONT / 2 + 1;
	for (int k = 0; k < 4; k++) {
		/* the label's centre: clear of the node by its own half extent along the link */
		double d =
		    exit + fmin(fabs(dx) > 1e-9 ? w / fabs(dx) : INFINITY, fabs(dy) > 1e-9 ? h / fabs(dy) : INFINITY);
		d = fmin(d, exit + w) + 2 + 12.0 * k;
		if (d > len / 2)
			return; /* past the middle: the other end's */
		double x = at[0] + dx * d, y = at[1] + dy * d;
		if (!box_free(taken, x - w, y - h, x + w, y + h))
			continue;
		if (box_add(taken, x - w, y - h, x + w, y + h))
			return;
		char id[1300], pos[64], text[600];
		snprintf(id, sizeof(id), "p-%s-%s", link_id, end);
		Agnode_t *v = agnode(g, id, 1);
		agsafeset(v, "id", id, "");
		snprintf(pos, sizeof(pos), "%.1f,%.1f!", x, y);
		agsafeset(v, "pos", pos, "");
		agsafeset(v, "label", hw_gv_text(name, text, sizeof(text)), "");
		agsafeset(v, "shape", "plaintext", "");
		agsafeset(v, "style", "", "");
		agsafeset(v, "fontsize", "7", "");
		agsafeset(v, "fontcolor", "#333333", "");
		agsafeset(v, "width", "0", "");
		agsafeset(v, "height", "0", "");
		agsafeset(v, "margin", "0", "");
		return;
	}
}

static const char *tier_fill(unsigned tier)
{
	static const char *const fill[] = {"#deebf7", "#c7e9c0", "#fdd0a2", "#dadaeb"};
	return tier < TOPO_TIERS ? fill[tier] : "#eeeeee";
}

static const char LEGEND[] = "<table border=\"1\" cellborder=\"0\" cellspacing=\"2\" bgcolor=\"white\">"
                             "<tr><td colspan=\"2\" align=\"left\"><b>hopwatch fabric topology</b></td></tr>"
                             "<tr><td align=\"left\"><font color=\"#555555\">&#9472;&#9472;&#9472;</font></td><td "
                             "align=\"left\">link up</td></tr>"
                             "<tr><td align=\"left\"><font color=\"#d62728\">&#9472;&#9472;&#9472;</font></td><td "
                             "align=\"left\">MTU mismatch</td></tr>"
                             "<tr><td align=\"left\"><font color=\"#ff7f0e\">&#9472;&#9472;&#9472;</font></td><td "
                             "align=\"left\">PFC priorities differ</td></tr>"
                             "<tr><td align=\"left\"><font color=\"#9467bd\">- - -</font></td><td align=\"left\">seen "
                             "from one side only</td></tr>"
                             "<tr><td align=\"left\"><font color=\"#aaaaaa\">. . .</font></td><td align=\"left\">link "
                             "disappeared / down</td></tr>"
                             "<tr><td align=\"left\"><font color=\"#d62728\">&#9633;</font></td><td "
                             "align=\"left\">duplicate chassis ID</td></tr>"
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
                         const double *xy, const double *bxy);

static Agraph_t *build_graph(const struct hw_topo *t, const struct hw_render_opts *o, Agnode_t **gnode)
{
	const struct hw_render_overlay *ov = o->overlay;
	int o_port_labels = o->port_labels;
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
	Agsym_t *a_fsize = agattr(g, AGNODE, "fontsize", NODE_FONT_STR(NODE_FONT)),
	        *a_w = agattr(g, AGNODE, "width", "1.1"), *a_h = agattr(g, AGNODE, "height", "0.4");
	Agsym_t *a_fixed = agattr(g, AGNODE, "fixedsize", "false");
	Agsym_t *e_id = agattr(g, AGEDGE, "id", ""), *e_color = agattr(g, AGEDGE, "color", "#555555"),
	        *e_style = agattr(g, AGEDGE, "style", "solid"), *e_pen = agattr(g, AGEDGE, "penwidth", "1"),
	        *e_tip = agattr(g, AGEDGE, "tooltip", "");

	double legend_w,
	    legend_h; /* left of the drawing, its top level with the drawing's, or over it (topo_place_nodes) */
	int legend_top = 0;
	legend_size(ov ? ov->legend_html : LEGEND, LEGEND_ROOM_FONT, &legend_w, &legend_h);

	/* Ranks and order. */
	struct topo_slot *tier[TOPO_TIERS];
	uint32_t count[TOPO_TIERS] = {0}, fill[TOPO_TIERS] = {0};
	double *xpos = calloc((size_t)t->n_nodes + 1, sizeof(*xpos)),
	       *xy = calloc(2 * (size_t)t->n_nodes + 2, sizeof(*xy));
	for (uint32_t i = 0; i < t->n_nodes; i++)
		if (topo_shown(ov, i))
			count[topo_tier(t, i)]++;
	int ok = xpos != NULL && xy != NULL;
	for (unsigned k = 0; k < TOPO_TIERS; k++)
		ok &= (tier[k] = calloc((size_t)count[k] + 1, sizeof(struct topo_slot))) != NULL;
	for (uint32_t i = 0; ok && i < t->n_nodes; i++) {
		if (!topo_shown(ov, i))
			continue;
		unsigned k = topo_tier(t, i);
		tier[k][fill[k]++].node = i;
	}
	if (ok) {
		topo_order_tiers(t, ov, tier, count, xpos);
		ok = !topo_place_nodes(t, ov, tier, count, legend_w, legend_h, &legend_top, xy);
	}
	if (!ok) {
		for (unsigned k = 0; k < TOPO_TIERS; k++)
			free(tier[k]);
		free(xpos);
		free(xy);
		agclose(g);
		return NULL;
	}

	char buf[1200], pos[64], text[2400];
	for (unsigned k = 0; k < TOPO_TIERS; k++) {
		for (uint32_t i = 0; i < count[k]; i++) {
			uint32_t ni = tier[k][i].node;
			const struct hw_topo_node *n = &t->nodes[ni];
			hw_topo_node_svg_id(t, ni, buf, sizeof(buf));
			Agnode_t *v = agnode(g, buf, 1);
			gnode[ni] = v;
			agxset(v, a_id, buf);
			snprintf(pos, sizeof(pos), "%.1f,%.1f!", xy[2 * ni], xy[2 * ni + 1]);
			agxset(v, a_pos, pos);
			const struct hw_render_node_style *ns = ov && ov->nodes ? &ov->nodes[ni] : NULL;
			if (ns && ns->note[0]) {
				snprintf(buf, sizeof(buf), "%s\n%s", n->name, ns->note);
				agxset(v, a_label, hw_gv_text(buf, text, sizeof(text)));
			} else {
				agxset(v, a_label, hw_gv_text(n->name, text, sizeof(text)));
			}
			agxset(v, a_shape, k == HW_TIER_HOST ? "ellipse" : "box");
			agxset(v, a_fixed, "true"); /* the layout's cells hold them: labels fit, see fit_font */
			if (k == HW_TIER_HOST) {
				agxset(v, a_w, "0.8"); /* 58 pt in a HOST_DX cell */
				agxset(v, a_h, "0.3");
			}
			snprintf(buf, sizeof(buf), "%s%s%s", n->name, ns && ns->note[0] ? "\n" : "",
			         ns ? ns->note : "");
			snprintf(pos, sizeof(pos), "%.2f",
			         k == HW_TIER_HOST ? fit_font(buf, 0.8 * 72 - 4, 0.3 * 72)
			                           : fit_font(buf, 1.1 * 72, 0.4 * 72));
			agxset(v, a_fsize, pos);
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
	/* what port labels must not cover: every node's box */
	struct boxes boxes = {0};
	int grid = boxes_init(&boxes, xy, t->n_nodes) == 0;
	if (!grid) /* out of memory: no port labels */
		o_port_labels = 0;
	for (unsigned k = 0; grid && k < TOPO_TIERS; k++)
		for (uint32_t i = 0; i < count[k]; i++) {
			uint32_t ni = tier[k][i].node;
			double hw, hh;
			topo_box_half(k == HW_TIER_HOST, &hw, &hh);
			box_add(&boxes, xy[2 * ni] - hw, xy[2 * ni + 1] - hh, xy[2 * ni] + hw, xy[2 * ni + 1] + hh);
		}
	double lb[4]; /* the legend's box: where topo_place_nodes put it */
	topo_legend_box(legend_w, legend_h, legend_top, lb);
	if (grid && (!ov || ov->legend_html)) /* and the legend's */
		box_add(&boxes, lb[0], lb[1], lb[2], lb[3]);
	/* and the overlay's badges, placed clear of them and of one another */
	double *bxy = ov && ov->n_badges ? calloc(2 * (size_t)ov->n_badges, sizeof(*bxy)) : NULL;
	if (bxy)
		place_badges(t, ov, gnode, xy, &boxes, grid, bxy);
	for (unsigned k = 0; k < TOPO_TIERS; k++)
		free(tier[k]);
	free(xpos);

	for (uint32_t i = 0; i < t->n_links; i++) {
		const struct hw_topo_link *l = &t->links[i];
		const struct hw_topo_port *pa = &t->ports[l->a], *pb = &t->ports[l->b];
		if (!topo_shown(ov, pa->node) || !topo_shown(ov, pb->node))
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
		if (o_port_labels) {
			port_label(g, &boxes, buf, "a", pa->name, xy + 2 * pa->node, xy + 2 * pb->node,
			           t->nodes[pa->node].tier == HW_TIER_HOST);
			port_label(g, &boxes, buf, "b", pb->name, xy + 2 * pb->node, xy + 2 * pa->node,
			           t->nodes[pb->node].tier == HW_TIER_HOST);
		}
		snprintf(buf, sizeof(buf), "%.100s.%.60s -- %.100s.%.60s mtu %u/%u%s%s", t->nodes[pa->node].name,
		         pa->name, t->nodes[pb->node].name, pb->name, pa->max_frame, pb->max_frame,
		         ls && ls->tooltip[0] ? " " : "", ls ? ls->tooltip : "");
		agxset(e, e_tip, hw_gv_text(buf, text, sizeof(text)));
	}
	boxes_free(&boxes);
	if (ov)
		draw_overlay(g, t, ov, gnode, xy, bxy);
	free(xy);
	free(bxy);
	if (ov && !ov->legend_html)
		return g;

	Agnode_t *legend = agnode(g, "legend", 1);
	agxset(legend, a_id, "legend");
	agxset(legend, a_shape, "plaintext");
	agxset(legend, a_fill, "white");
	snprintf(pos, sizeof(pos), "%.1f,%.1f!", (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2); /* its centre */
	agxset(legend, a_pos, pos);
	char *html = legend_label(g, ov ? ov->legend_html : LEGEND);
	agxset(legend, a_label, html);
	agstrfree(g, html);
	return g;
}

/* An overlay's badges (boxes over links near a port) and paths (polylines through node centres, drawn
 * from the given spline: engine nop2 keeps an edge's own "pos"). */
static void draw_overlay(Agraph_t *g, const struct hw_topo *t, const struct hw_render_overlay *ov, Agnode_t **gnode,
                         const double *xy, const double *bxy)
{
	char pos[64], text[600];
	for (uint32_t i = 0; bxy && i < ov->n_badges; i++) {
		const struct hw_render_badge *b = &ov->badges[i];
		double x = bxy[2 * i], y = bxy[2 * i + 1];
		if (isnan(x))
			continue;
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
