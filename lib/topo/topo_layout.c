/* The fabric pictures' layout: tiers top down, rows of leaves split about the spines, each tier's order, pods side by
 * side, rows evenly filled, hosts beside their leaf, the choice among layouts by their canvas (topo_layout.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_render.h"
#include "topo_layout.h"

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
	const struct topo_slot *a = x, *b = y;
	const struct hw_topo *t = topo;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return hw_name_cmp(t->nodes[a->node].name, t->nodes[b->node].name);
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
		if (t->nodes[v].tier == other && topo_shown(ov, v)) {
			sum += xpos[v];
			n++;
		}
	}
	return n ? sum / n : -1;
}

/* Order each tier: by name first, then by the barycentre of its neighbours on the tier it hangs from. */
void topo_order_tiers(const struct hw_topo *t, const struct hw_render_overlay *ov, struct topo_slot **tier,
                      uint32_t *count, double *xpos)
{
	for (unsigned k = 0; k < TOPO_TIERS; k++) {
		for (uint32_t i = 0; i < count[k]; i++)
			tier[k][i].key = 0;
		qsort_r(tier[k], count[k], sizeof(struct topo_slot), by_key, (void *)t);
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
		qsort_r(tier[k], count[k], sizeof(struct topo_slot), by_key, (void *)t);
		for (uint32_t i = 0; i < count[k]; i++)
			xpos[tier[k][i].node] = (i + 0.5) / count[k];
	}
}

/* The layout (the console's rules, docs/topology.md): tiers top down, super-spines, spines, leaves, each in rows
 * of as many cells as keep the drawing's aspect near 16:10, or in a fabric of pods (find_pods) the pods side by
 * side under the super-spines, each pod's spines over its leaves; a leaf's hosts in a grid of HOST_COLS columns
 * right under it (hosts without a leaf in rows at the bottom).  Points, y downwards until handed to Graphviz. */
#define CELL 100.0   /* a switch's cell: its box is 79 pt wide */
#define ROW 110.0    /* between rows of switches */
#define HOST_DX 66.0 /* a host's cell: its box is 58 pt by 22 */
#define HOST_DY 30.0
#define HOST_TOP 48.0 /* from a leaf's centre to its first row of hosts */
#define ASPECT 1.6
#define ASPECT_NEAR 1.15 /* a canvas (node boxes and legend) within this factor of ASPECT is near: 1.39 to 1.84 */

struct layout {
	unsigned host_cols, cols; /* hosts per row under a leaf; cells per row */
	unsigned rows;            /* rows of switches */
	double cell, w;           /* a leaf's cell; the widest row (pt) */
};

/* The height of a grid of hosts under a leaf, hc to a row (0 without hosts). */
static double grid_h(uint32_t hosts, unsigned hc)
{
	return hosts ? HOST_TOP + ((hosts + hc - 1) / hc) * HOST_DY : 0;
}

/* Rows evenly filled: n items in rows rows, the first n % rows rows one more; row r's first item and count. */
static uint32_t row_span(uint32_t n, uint32_t rows, uint32_t r, uint32_t *first)
{
	const uint32_t base = n / rows, extra = n % rows;
	*first = r * base + (r < extra ? r : extra);
	return base + (r < extra);
}

/* Rows of at most per_row items for n items. */
static uint32_t rows_of(uint32_t n, uint32_t per_row)
{
	return (n + per_row - 1) / per_row;
}

/* The most hosts under one leaf of leaves[i0, i1) (n_hosts by node). */
static uint32_t row_hosts(const struct topo_slot *leaves, uint32_t i0, uint32_t i1, const uint32_t *n_hosts)
{
	uint32_t most = 0;
	for (uint32_t i = i0; i < i1; i++)
		most = n_hosts[leaves[i].node] > most ? n_hosts[leaves[i].node] : most;
	return most;
}

/* The cell of a leaf (L->cell), the widest row (L->w) and the rows of switches (L->rows) with L->host_cols and at most
 * L->cols leaves to a row, rows evenly filled; the other tiers in rows as wide as the leaves'. */
static void measure(struct layout *L, const uint32_t *count)
{
	const uint32_t n = count[HW_TIER_LEAF], leaf_rows = rows_of(n, L->cols);
	L->cell = n && L->host_cols * HOST_DX > CELL ? L->host_cols * HOST_DX : CELL;
	L->w = (leaf_rows ? rows_of(n, leaf_rows) : L->cols) * L->cell;
	const unsigned per_row = (unsigned)(L->w / CELL) > 0 ? (unsigned)(L->w / CELL) : 1;
	L->rows = leaf_rows;
	for (unsigned k = HW_TIER_SUPERSPINE; k >= HW_TIER_SPINE; k--)
		L->rows += rows_of(count[k], per_row);
}

static uint32_t uf_root(uint32_t *up, uint32_t v)
{
	while (up[v] != v)
		v = up[v] = up[up[v]];
	return v;
}

/* Pods: the groups of shown leaves and spines linked to each other (a fat-tree's pod: its aggregation switches
 * link only its edge switches), numbered in the order of their first leaf.  pod[v] for every shown leaf and spine;
 * returns how many, or 0 when fewer than two or a leaf or spine is in none with both (a leaf-spine fabric is one
 * pod, drawn as whole tiers). */
static uint32_t find_pods(const struct hw_topo *t, const struct hw_render_overlay *ov, struct topo_slot **tier,
                          const uint32_t *count, uint32_t *pod)
{
	/* up: the union-find forest; num[root]: its pod + 1, in the order of the pods' first leaves (0: none yet) */
	uint32_t *up = malloc(((size_t)t->n_nodes + 1) * sizeof(*up)),
	         *num = calloc((size_t)t->n_nodes + 1, sizeof(*num));
	uint32_t *spines = NULL, n = 0; /* spines[p]: pod p's spines */
	if (!up || !num)
		goto none;
	for (unsigned k = HW_TIER_LEAF; k <= HW_TIER_SPINE; k++)
		for (uint32_t i = 0; i < count[k]; i++)
			up[tier[k][i].node] = tier[k][i].node;
	for (uint32_t i = 0; i < count[HW_TIER_SPINE]; i++) {
		const uint32_t s = tier[HW_TIER_SPINE][i].node;
		for (uint32_t p = t->nodes[s].first_port; p != HW_TOPO_NONE; p = t->ports[p].next) {
			const uint32_t q = hw_topo_peer(t, p);
			const uint32_t v = q == HW_TOPO_NONE ? HW_TOPO_NONE : t->ports[q].node;
			if (v != HW_TOPO_NONE && topo_shown(ov, v) && topo_tier(t, v) == HW_TIER_LEAF)
				up[uf_root(up, v)] = uf_root(up, s);
		}
	}
	for (uint32_t i = 0; i < count[HW_TIER_LEAF]; i++) {
		const uint32_t r = uf_root(up, tier[HW_TIER_LEAF][i].node);
		if (!num[r])
			num[r] = ++n;
	}
	if (n < 2 || !(spines = calloc(n, sizeof(*spines))))
		goto none;
	for (uint32_t i = 0; i < count[HW_TIER_SPINE]; i++) {
		const uint32_t r = num[uf_root(up, tier[HW_TIER_SPINE][i].node)];
		if (!r)
			goto none; /* a spine without leaves */
		spines[r - 1]++;
	}
	for (uint32_t p = 0; p < n; p++)
		if (!spines[p])
			goto none; /* leaves without a spine */
	for (unsigned k = HW_TIER_LEAF; k <= HW_TIER_SPINE; k++)
		for (uint32_t i = 0; i < count[k]; i++)
			pod[tier[k][i].node] = num[uf_root(up, tier[k][i].node)] - 1;
	free(spines);
	free(num);
	free(up);
	return n;
none:
	free(spines);
	free(num);
	free(up);
	return 0;
}

/* Pods side by side (a fat-tree): super-spines in rows on top (between the rows of pods split about them), then rows of
 * pods, each pod its spines in a row right next to its leaves (hosts on each leaf's far side), so that a pod's links
 * stay within its column; at most per_row pods in a row, rows evenly filled, chosen with the host columns for the
 * aspect.  A pod is as wide as its wider tier, with half a cell between pods. */
struct pods {
	uint32_t n, *spines, *leaves, *hosts; /* pods; switches of each, and the most hosts under one of its leaves */
	unsigned per_row;
};

static double pod_width(const struct pods *P, uint32_t p, double cell)
{
	return fmax(P->spines[p] * CELL, P->leaves[p] * cell);
}

/* Row r of the pods (of rows_of(P->n, P->per_row)): its first pod and count, its width (pt) and the most hosts
 * under one of its leaves. */
static uint32_t pod_row(const struct pods *P, uint32_t r, double cell, uint32_t *first, double *width, uint32_t *hosts)
{
	const uint32_t n = row_span(P->n, rows_of(P->n, P->per_row), r, first);
	*width = 0;
	*hosts = 0;
	for (uint32_t q = *first; q < *first + n; q++) {
		*width += pod_width(P, q, cell) + (q > *first ? CELL / 2 : 0);
		*hosts = P->hosts[q] > *hosts ? P->hosts[q] : *hosts;
	}
	return n;
}

/* The same with pods: at most L->cols pods to a row (P->per_row). */
static void measure_pods(struct layout *L, const struct pods *P, const uint32_t *count)
{
	L->cell = count[HW_TIER_LEAF] && L->host_cols * HOST_DX > CELL ? L->host_cols * HOST_DX : CELL;
	const uint32_t rows = rows_of(P->n, P->per_row);
	L->w = 0;
	for (uint32_t r = 0; r < rows; r++) {
		uint32_t first, hosts;
		double w;
		pod_row(P, r, L->cell, &first, &w, &hosts);
		L->w = fmax(L->w, w);
	}
	const unsigned per_row = (unsigned)(L->w / CELL) > 0 ? (unsigned)(L->w / CELL) : 1;
	L->rows = rows_of(count[HW_TIER_SUPERSPINE], per_row) + 2 * rows;
}

/* How far a leaf's first row of hosts lies from the leaf when its grid is over it: the top row (the first hosts, in
 * reading order) then sits HOST_TOP + (rows - 1) * HOST_DY over the leaf. */
static double grid_up(uint32_t hosts, unsigned hc)
{
	return hosts ? HOST_TOP + (rows_of(hosts, hc) - 1) * HOST_DY : 0;
}

/* Places the pods' spines and leaves, rows of them from y down, centred in a drawing w wide; returns the y under
 * the last row (NAN: out of memory).  The first n_up rows upside down (its hosts on top, its leaves, its spines), then
 * the middle band (mid_h high, from *y_mid; when n_up > 0), then the rest. */
static double place_pods(struct topo_slot **tier, const uint32_t *count, const uint32_t *pod, const struct pods *P,
                         const struct layout *L, double w, double y, uint32_t n_up, double mid_h, double *y_mid,
                         double *xy)
{
	double *x0 = calloc(3 * (size_t)P->n, sizeof(*x0)), *row_y = x0 + P->n; /* each pod's left edge and row */
	double *up = row_y + P->n;                                              /* 1: its row upside down */
	uint32_t *placed = calloc(2 * (size_t)P->n, sizeof(*placed));           /* its leaves, spines placed */
	if (!x0 || !placed) {
		free(x0);
		free(placed);
		return NAN;
	}
	for (uint32_t r = 0, rows = rows_of(P->n, P->per_row); r < rows; r++) {
		uint32_t first, hosts;
		double rw;
		const uint32_t n = pod_row(P, r, L->cell, &first, &rw, &hosts);
		const int flip = r < n_up;
		if (flip)
			y += grid_up(hosts, L->host_cols);
		double x = (w - rw) / 2;
		for (uint32_t q = first; q < first + n; q++) {
			x0[q] = x;
			row_y[q] = y;
			up[q] = flip;
			x += pod_width(P, q, L->cell) + CELL / 2;
		}
		if (flip) {
			y += 2 * ROW;
			if (r + 1 == n_up) {
				*y_mid = y;
				y += mid_h;
			}
		} else {
			y += 2 * ROW + grid_h(hosts, L->host_cols);
		}
	}
	for (unsigned k = HW_TIER_LEAF; k <= HW_TIER_SPINE; k++)
		for (uint32_t i = 0; i < count[k]; i++) { /* tier order within each pod, centred in its column */
			const uint32_t v = tier[k][i].node, p = pod[v];
			const int spine = k == HW_TIER_SPINE;
			const uint32_t n = spine ? P->spines[p] : P->leaves[p], j = placed[2 * p + spine]++;
			const double c = spine ? CELL : L->cell;
			xy[2 * v] = x0[p] + (pod_width(P, p, L->cell) - n * c) / 2 + (j + 0.5) * c;
			xy[2 * v + 1] = row_y[p] + (spine != (up[p] != 0) ? 0 : ROW);
		}
	free(x0);
	free(placed);
	return y;
}

/* What topo_place_nodes knows before it tries a layout: each host's leaf (HW_TOPO_NONE: none shown), each leaf's hosts
 * (n_hosts[0, n_nodes]) and a counter per leaf (placed), the pods. */
struct arrangement {
	const struct hw_topo *t;
	struct topo_slot **tier;
	const uint32_t *count, *leaf_of, *pod;
	uint32_t *n_hosts, *placed;
	struct pods *P;
};

/* Places every shown node for host columns hc and at most c leaves (or pods) to a row: xy[2i], xy[2i+1] in points,
 * y downwards from the top of the first row's cell; *rows: the rows of switches on the deeper side.  Two rows of
 * leaves (of pods) or more are split about the tier they hang from (spines; with pods, super-spines): the first half
 * (rounded down) upside down over it, their hosts on top, the rest under it, so that a link from that tier crosses
 * only the hosts of the rows on its side nearer to it (with two rows: none).  -1: out of memory. */
static int arrange(const struct arrangement *A, unsigned hc, unsigned c, double *xy, unsigned *rows_out)
{
	const struct hw_topo *t = A->t;
	struct topo_slot **tier = A->tier;
	const uint32_t *count = A->count;
	struct layout L = {.host_cols = hc, .cols = c};
	A->P->per_row = c;
	const int pods = A->P->n != 0;
	if (pods)
		measure_pods(&L, A->P, count);
	else
		measure(&L, count);
	const double w = L.w;
	const unsigned per_row = (unsigned)(w / CELL) > 0 ? (unsigned)(w / CELL) : 1;
	/* the middle band: the tiers the leaves (pods) hang from, in rows */
	uint32_t mid_rows = 0;
	for (unsigned k = HW_TIER_SUPERSPINE; k >= (pods ? HW_TIER_SUPERSPINE : HW_TIER_SPINE); k--)
		mid_rows += rows_of(count[k], per_row);
	const uint32_t rows = pods ? rows_of(A->P->n, c) : rows_of(count[HW_TIER_LEAF], c);
	const uint32_t n_up = rows >= 2 && mid_rows && (pods || !count[HW_TIER_SUPERSPINE]) ? rows / 2 : 0;
	const int mirror = n_up > 0;
	*rows_out = L.rows - (pods ? 2 : 1) * n_up;
	double y = ROW / 2, y_mid = ROW / 2; /* the middle band's first row */
	if (pods) {
		y = place_pods(tier, count, A->pod, A->P, &L, w, mirror ? y : y + mid_rows * ROW, n_up, mid_rows * ROW,
		               &y_mid, xy);
		if (isnan(y))
			return -1;
	} else {
		for (uint32_t r = 0; r < rows; r++) {
			uint32_t i, n = row_span(count[HW_TIER_LEAF], rows, r, &i);
			const uint32_t hosts = row_hosts(tier[HW_TIER_LEAF], i, i + n, A->n_hosts);
			const int flip = r < n_up;
			if (flip)
				y += grid_up(hosts, hc);
			else if (r == n_up)
				y += mid_rows * ROW; /* under the middle band */
			for (uint32_t j = 0; j < n; j++) {
				uint32_t v = tier[HW_TIER_LEAF][i + j].node;
				xy[2 * v] = (w - n * L.cell) / 2 + (j + 0.5) * L.cell;
				xy[2 * v + 1] = y;
			}
			if (flip) {
				y += ROW;
				y_mid = y;
			} else {
				y += ROW + grid_h(hosts, hc);
			}
		}
		if (!rows)
			y += mid_rows * ROW;
	}
	for (unsigned k = HW_TIER_SUPERSPINE; k >= (pods ? HW_TIER_SUPERSPINE : HW_TIER_SPINE); k--) {
		const uint32_t krows = rows_of(count[k], per_row);
		for (uint32_t r = 0; r < krows; r++) {
			uint32_t i, n = row_span(count[k], krows, r, &i);
			for (uint32_t j = 0; j < n; j++) {
				uint32_t v = tier[k][i + j].node;
				xy[2 * v] = (w - n * CELL) / 2 + (j + 0.5) * CELL;
				xy[2 * v + 1] = y_mid;
			}
			y_mid += ROW;
		}
	}
	const double y_up = mirror ? y_mid : -INFINITY; /* a leaf over y_up has its hosts over it */
	y -= ROW / 2;
	unsigned host_row = (unsigned)(w / HOST_DX) > 0 ? (unsigned)(w / HOST_DX) : 1;
	uint32_t orphan = 0;
	memset(A->placed, 0, ((size_t)t->n_nodes + 1) * sizeof(*A->placed));
	for (uint32_t i = 0; i < count[HW_TIER_HOST]; i++) {
		uint32_t h = tier[HW_TIER_HOST][i].node, leaf = A->leaf_of[h];
		if (leaf == HW_TOPO_NONE) { /* rows at the bottom */
			xy[2 * h] = ((orphan % host_row) + 0.5) * HOST_DX;
			xy[2 * h + 1] = y + (orphan / host_row + 0.5) * HOST_DY;
			orphan++;
			continue;
		}
		uint32_t r = A->placed[leaf] / hc, col = A->placed[leaf] % hc;
		uint32_t in_row = A->n_hosts[leaf] - r * hc < hc ? A->n_hosts[leaf] - r * hc : hc;
		xy[2 * h] = xy[2 * leaf] + ((double)col - (in_row - 1) / 2.0) * HOST_DX;
		if (xy[2 * leaf + 1] < y_up) /* over its leaf, in reading order top down: the last row nearest it */
			xy[2 * h + 1] = xy[2 * leaf + 1] - HOST_TOP - (rows_of(A->n_hosts[leaf], hc) - 1 - r) * HOST_DY;
		else
			xy[2 * h + 1] = xy[2 * leaf + 1] + HOST_TOP + r * HOST_DY;
		A->placed[leaf]++;
	}
	return 0;
}

/* The canvas of the shown nodes' boxes at xy (y downwards; a switch's box 1.1 x 0.4 in, a host's 0.8 x 0.3) with a
 * legend of legend_w x legend_h: left of the drawing, its top at the first row's cell's (top 0), or over the drawing
 * from its left edge, its bottom there (top 1).  Its width over its height. */
static double canvas_aspect(const struct arrangement *A, const double *xy, double legend_w, double legend_h, int top)
{
	double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
	for (unsigned k = 0; k < TOPO_TIERS; k++)
		for (uint32_t i = 0; i < A->count[k]; i++) {
			const uint32_t v = A->tier[k][i].node;
			double hw, hh;
			topo_box_half(k == HW_TIER_HOST, &hw, &hh);
			x0 = fmin(x0, xy[2 * v] - hw), x1 = fmax(x1, xy[2 * v] + hw);
			y0 = fmin(y0, xy[2 * v + 1] - hh), y1 = fmax(y1, xy[2 * v + 1] + hh);
		}
	if (legend_w > 0) {
		double b[4];
		topo_legend_box(legend_w, legend_h, top, b);
		x0 = fmin(x0, b[0]), x1 = fmax(x1, b[2]);
		y0 = fmin(y0, -b[3]), y1 = fmax(y1, -b[1]); /* y downwards */
	}
	return x1 > x0 && y1 > y0 ? (x1 - x0) / (y1 - y0) : ASPECT;
}

/* Place every shown node: xy[2i], xy[2i+1] in Graphviz's points (y upwards), and the legend (*legend_top).  Hosts go
 * under the first shown leaf they link to, in tier order (tier[HW_TIER_HOST] follows its leaves already).  Each
 * layout (host columns, leaves or pods to a row, the legend left of the drawing or over it) is tried and its canvas
 * measured from its boxes: among those within ASPECT_NEAR of 16:10, the fewest rows of switches (fewer links drawn
 * across other rows), then the nearest aspect; when none is that near, the nearest aspect. */
int topo_place_nodes(const struct hw_topo *t, const struct hw_render_overlay *ov, struct topo_slot **tier,
                     const uint32_t *count, double legend_w, double legend_h, int *legend_top, double *xy)
{
	uint32_t *leaf_of = calloc((size_t)t->n_nodes + 1, sizeof(*leaf_of)),
	         *n_hosts = calloc(2 * ((size_t)t->n_nodes + 1), sizeof(*n_hosts)); /* per leaf: hosts, then placed */
	if (!leaf_of || !n_hosts) {
		free(leaf_of);
		free(n_hosts);
		return -1;
	}
	uint32_t most = 0;
	for (uint32_t i = 0; i < count[HW_TIER_HOST]; i++) {
		uint32_t h = tier[HW_TIER_HOST][i].node, leaf = HW_TOPO_NONE;
		for (uint32_t p = t->nodes[h].first_port; p != HW_TOPO_NONE && leaf == HW_TOPO_NONE;
		     p = t->ports[p].next) {
			uint32_t q = hw_topo_peer(t, p);
			if (q != HW_TOPO_NONE && t->nodes[t->ports[q].node].tier == HW_TIER_LEAF &&
			    topo_shown(ov, t->ports[q].node))
				leaf = t->ports[q].node;
		}
		leaf_of[h] = leaf;
		if (leaf != HW_TOPO_NONE && ++n_hosts[leaf] > most)
			most = n_hosts[leaf];
	}
	struct pods P = {0};
	uint32_t *pod = calloc((size_t)t->n_nodes + 1, sizeof(*pod));
	if (pod && (P.n = find_pods(t, ov, tier, count, pod)) &&
	    (P.spines = calloc(3 * (size_t)P.n, sizeof(uint32_t)))) {
		P.leaves = P.spines + P.n;
		P.hosts = P.leaves + P.n;
		for (uint32_t i = 0; i < count[HW_TIER_SPINE]; i++)
			P.spines[pod[tier[HW_TIER_SPINE][i].node]]++;
		for (uint32_t i = 0; i < count[HW_TIER_LEAF]; i++) {
			const uint32_t v = tier[HW_TIER_LEAF][i].node;
			P.leaves[pod[v]]++;
			P.hosts[pod[v]] = n_hosts[v] > P.hosts[pod[v]] ? n_hosts[v] : P.hosts[pod[v]];
		}
	} else {
		P.n = 0;
	}
	int rc = pod ? 0 : -1;
	uint32_t widest = 1;
	for (unsigned k = HW_TIER_LEAF; k < TOPO_TIERS; k++)
		widest = count[k] > widest ? count[k] : widest;
	const struct arrangement A = {t, tier, count, leaf_of, pod, n_hosts, n_hosts + t->n_nodes + 1, &P};
	unsigned best_hc = 1, best_c = 1, best_rows = 0;
	double best_err = INFINITY;
	int best_near = 0;
	*legend_top = 0;
	for (unsigned hc = 1; !rc && hc <= 8 && (hc == 1 || hc <= most); hc++)
		for (unsigned c = 1; !rc && c <= (P.n ? P.n : widest); c++) {
			/* at most c leaves (pods) to a row, rows evenly filled: a c that gives the rows c - 1 gave is
			 * the same layout, which the comparison below would not take over the first */
			const uint32_t items = P.n ? P.n : count[HW_TIER_LEAF];
			if (c > 1 && items && rows_of(items, c) == rows_of(items, c - 1))
				continue;
			unsigned rows;
			if ((rc = arrange(&A, hc, c, xy, &rows)))
				break;
			for (int top = 0; top <= (legend_w > 0); top++) {
				const double err = fabs(log(canvas_aspect(&A, xy, legend_w, legend_h, top) / ASPECT));
				const int near = err <= log(ASPECT_NEAR);
				if (near > best_near || (near && best_near && rows < best_rows) ||
				    (near == best_near && (!near || rows == best_rows) && err < best_err - 1e-9)) {
					best_err = err;
					best_near = near;
					best_hc = hc;
					best_c = c;
					best_rows = rows;
					*legend_top = top;
				}
			}
		}
	unsigned rows;
	if (!rc)
		rc = arrange(&A, best_hc, best_c, xy, &rows);
	for (uint32_t v = 0; !rc && v < t->n_nodes; v++) /* Graphviz's y goes up */
		xy[2 * v + 1] = -xy[2 * v + 1];
	free(P.spines);
	free(pod);
	free(leaf_of);
	free(n_hosts);
	return rc;
}
