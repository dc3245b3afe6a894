/* The fabric pictures' layout (topo_layout.c), for topo_render.c: the shown nodes by tier, their order in each tier
 * and every node's position; the rules are docs/topology.md's, the live console's (console.js). */
#ifndef HOPWATCH_TOPO_LAYOUT_H
#define HOPWATCH_TOPO_LAYOUT_H

#include <stdint.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_render.h"

/* Tiers drawn: hosts, leaves, spines, super-spines (HW_TIER_*); a node of unknown tier goes with the leaves. */
#define TOPO_TIERS 4

/* A node in its tier's order (key: the sort key while ordering). */
struct topo_slot {
	uint32_t node;
	double key;
};

/* Whether node i is drawn (an overlay may show only part of the fabric). */
static inline int topo_shown(const struct hw_render_overlay *ov, uint32_t i)
{
	return !ov || !ov->show || ov->show[i];
}

/* The tier node v is drawn in: a node of unknown tier with the leaves. */
static inline unsigned topo_tier(const struct hw_topo *t, uint32_t v)
{
	return t->nodes[v].tier < TOPO_TIERS ? t->nodes[v].tier : HW_TIER_LEAF;
}

/* Half a drawn node box (pt): a switch's is 1.1 x 0.4 in, a host's 0.8 x 0.3 (topo_render.c's width and height). */
static inline void topo_box_half(int host, double *hw, double *hh)
{
	*hw = host ? 0.4 * 72 : 0.55 * 72;
	*hh = host ? 0.15 * 72 : 0.2 * 72;
}

/* The box of a legend of w x h pt (x0, y0, x1, y1 in Graphviz's points, y upwards): over the drawing (top 1), its
 * bottom-left corner at the origin; else left of it, its top-right corner there (topo_place_nodes' legend_top). */
static inline void topo_legend_box(double w, double h, int top, double b[4])
{
	b[0] = top ? 0 : -w;
	b[1] = top ? 0 : -h;
	b[2] = top ? w : 0;
	b[3] = top ? h : 0;
}

/* Order each tier (tier[k][0, count[k]): the shown nodes of tier k): leaves by name, every other tier by the
 * barycentre of its neighbours on the tier it hangs from; xpos: scratch, a double per node. */
void topo_order_tiers(const struct hw_topo *t, const struct hw_render_overlay *ov, struct topo_slot **tier,
                      uint32_t *count, double *xpos);
/* Every shown node's position, xy[2i], xy[2i + 1] in Graphviz's points (y upwards), and the legend's place for a
 * legend of legend_w x legend_h pt: *legend_top 1 over the drawing from x 0 (its bottom at y 0), 0 left of it (its top
 * at y 0, its right edge at x 0).  -1: out of memory. */
int topo_place_nodes(const struct hw_topo *t, const struct hw_render_overlay *ov, struct topo_slot **tier,
                     const uint32_t *count, double legend_w, double legend_h, int *legend_top, double *xy);

#endif
