/* The topology as output: JSON, and drawings through Graphviz (cgraph + gvc) with the overlays the
 * analyzer draws over it (congestion paths, heat map). */
#ifndef HOPWATCH_TOPO_RENDER_H
#define HOPWATCH_TOPO_RENDER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The topology as JSON (nodes, ports, links, events, placement tally may be NULL). */
enum hw_topo_result hw_topo_write_json(const struct hw_topo *t, const struct hw_place_tally *tally, const char *path,
                                       struct hw_topo_error *err);

/* Rendering through cgraph + gvc.  gvc is the process's one GVC_t (from gvContext()); passed as void*
 * so that this header does not pull in Graphviz.  svg_path/dot_path may be NULL; svg_buf/svg_len, when
 * not NULL, receive the SVG in memory (free with hw_topo_render_free). */
struct hw_render_overlay;
struct hw_render_opts {
	const char *svg_path;
	const char *dot_path;
	char **svg_buf;
	size_t *svg_len;
	int port_labels; /* label links with port names (default on; off for very large graphs) */
	const struct hw_render_overlay *overlay; /* NULL: the plain topology */
};

/* An overlay drawn by hw_topo_render over the topology (the analyzer's congestion graphs and heat map):
 * only some nodes, links in its own colours, badges on queues, flow paths.  With an overlay the link
 * colours of the checks (MTU/PFC mismatch) are not drawn; a down link stays dotted. */
#define HW_RENDER_PATH_MAX 17
struct hw_render_link_style { /* colour NULL = plain grey */
	const char *color;
	double width; /* pen width; 0 = 1 */
	char tooltip[160];
};
struct hw_render_node_style { /* colour NULL = plain */
	const char *color;
	double width;  /* border pen width; 0 = 1 */
	char note[96]; /* a second label line */
};
struct hw_render_badge { /* a box over a link, near one of its ports (e.g. an egress queue and its numbers) */
	uint32_t port;   /* topology port; drawn when it has a link and both ends are shown */
	char id[160];    /* SVG id */
	char label[160]; /* lines separated by '\n' */
	char tooltip[256];
	const char *fill;
	int peripheries; /* 2: a double border (a congestion tree's root) */
};
struct hw_render_path { /* a polyline through the centres of nodes, with an arrow at the last one */
	char id[64];    /* SVG id */
	const char *color;
	int dashed; /* drawn dashed (a path the flow left) */
	char tooltip[256];
	uint32_t n;
	uint32_t nodes[HW_RENDER_PATH_MAX]; /* topology node indices in order */
};
struct hw_render_overlay {
	const uint8_t *show;                      /* n_nodes flags: draw the node (NULL = all) */
	const struct hw_render_link_style *links; /* n_links entries, or NULL */
	const struct hw_render_node_style *nodes; /* n_nodes entries, or NULL */
	const struct hw_render_badge *badges;
	uint32_t n_badges;
	const struct hw_render_path *paths;
	uint32_t n_paths;
	const char *legend_html; /* Graphviz HTML label replacing the topology legend; NULL = none */
};
enum hw_topo_result hw_topo_render(void *gvc, const struct hw_topo *t, const struct hw_render_opts *o,
                                   struct hw_topo_error *err);
void hw_topo_render_free(void *gvc, char *svg_buf);

/* Ids used in the SVG (and JSON): "n-<name>" for nodes, "l-<node>.<port>--<node>.<port>" for links,
 * with characters outside [A-Za-z0-9._-] replaced by '_'. */
void hw_topo_node_svg_id(const struct hw_topo *t, uint32_t node, char *buf, size_t size);
/* Append src to the id in buf (NUL-terminated, size bytes) with that replacement. */
void hw_svg_id_append(char *buf, size_t size, const char *src);
/* Names in natural order (digit runs compare as numbers: leaf2 before leaf10); strcmp-style result. */
int hw_name_cmp(const char *a, const char *b);
/* src for a Graphviz label or tooltip: every backslash doubled, so that Graphviz's escapes (\N, \n, ...) do
 * not apply; returns dst. */
char *hw_gv_text(const char *src, char *dst, size_t size);
void hw_topo_link_svg_id(const struct hw_topo *t, uint32_t link, char *buf, size_t size);
/* "p-<node>.<port>" for a port, sanitized the same way (the analyzer's queue badges are "q-<node>.<port>.<queue>"). */
void hw_topo_port_svg_id(const struct hw_topo *t, uint32_t port, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
