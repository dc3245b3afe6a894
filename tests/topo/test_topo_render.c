/* Unit tests of the SVG rendering (cgraph + gvc, one context): every node and link by id, tiers in ranks,
 * mismatched links in the legend's colours, and the JSON writer. */
#include <errno.h>
#include <gvc.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hopwatch/topo.h"
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_render.h"
#include "lldp_frames.h"

static GVC_t *gvc;

static uint32_t adv(struct hw_topo *t, struct test_end e)
{
	uint8_t f[400];
	struct hw_lldp_info i;
	assert_int_equal(hw_lldp_parse_frame(f, test_lldp_frame(&e, f), &i), HW_LLDP_OK);
	return hw_topo_advertise(t, &i, 1);
}

/* host h1 - leaf l1 (MTU 9216 vs 1500 on this link) - spine s1 (PFC 3 vs 3,4 on this link) */
static void fabric(struct hw_topo *t)
{
	const uint16_t R = HW_LLDP_CAP_ROUTER, S = HW_LLDP_CAP_STATION;
	hw_topo_init(t);
	uint32_t h = adv(t, (struct test_end){1, "ens1", "h1", 120, 1500, -1, S});
	uint32_t l = adv(t, (struct test_end){2, "Ethernet0", "l1", 120, 9216, -1, R});
	uint32_t lu = adv(t, (struct test_end){2, "Ethernet48", "l1", 120, 0, 0x08, R});
	uint32_t s = adv(t, (struct test_end){3, "Ethernet1", "s1", 120, 0, 0x18, R});
	hw_topo_observe(t, h, l, 120, 1);
	hw_topo_observe(t, l, h, 120, 1);
	hw_topo_observe(t, lu, s, 120, 1);
	hw_topo_observe(t, s, lu, 120, 1);
	hw_topo_check(t);
	hw_topo_assign_tiers(t);
}

/* The <g> element with this id, up to its end. */
static char *element(char *svg, const char *id)
{
	char pat[600];
	snprintf(pat, sizeof(pat), "id=\"%s\"", id);
	char *p = strstr(svg, pat);
	return p;
}

static void svg_has_everything(void **state)
{
	(void)state;
	struct hw_topo t;
	fabric(&t);
	char *svg = NULL;
	size_t len = 0;
	struct hw_render_opts o = {.svg_buf = &svg, .svg_len = &len, .port_labels = 1};
	struct hw_topo_error err = {0};
	assert_int_equal(hw_topo_render(gvc, &t, &o, &err), HW_TOPO_OK);
	assert_non_null(svg);
	assert_in_range(len, 101, SIZE_MAX);
	assert_int_equal(strlen(svg), len);
	assert_non_null(strstr(svg, "<svg"));
	/* Graphviz writes '-' in ids as &#45; */
	assert_non_null(element(svg, "n&#45;h1"));
	assert_non_null(element(svg, "n&#45;l1"));
	assert_non_null(element(svg, "n&#45;s1"));
	char *mtu = element(svg, "l&#45;h1.ens1&#45;&#45;l1.Ethernet0");
	char *pfc = element(svg, "l&#45;l1.Ethernet48&#45;&#45;s1.Ethernet1");
	assert_non_null(mtu);
	assert_non_null(pfc);
	char *mtu_end = strstr(mtu, "</g>"), *pfc_end = strstr(pfc, "</g>");
	char *red = strstr(mtu, "#d62728"), *orange = strstr(pfc, "#ff7f0e");
	assert_non_null(red);
	assert_true(red < mtu_end);
	assert_non_null(orange);
	assert_true(orange < pfc_end);
	assert_non_null(strstr(mtu, ">Ethernet0<"));  /* port labels */
	assert_non_null(strstr(svg, "MTU mismatch")); /* legend */
	/* ranks: the host is drawn below the leaf, the leaf below the spine (SVG y grows downwards) */
	double yh, yl, ys;
	char *ph = strstr(element(svg, "n&#45;h1"), "<text"), *pl = strstr(element(svg, "n&#45;l1"), "<text"),
	     *ps = strstr(element(svg, "n&#45;s1"), "<text");
	assert_int_equal(sscanf(strstr(ph, " y=\"") + 4, "%lf", &yh), 1);
	assert_int_equal(sscanf(strstr(pl, " y=\"") + 4, "%lf", &yl), 1);
	assert_int_equal(sscanf(strstr(ps, " y=\"") + 4, "%lf", &ys), 1);
	assert_true(yh > yl && yl > ys);
	hw_topo_render_free(gvc, svg);
	hw_topo_free(&t);
}

static void json_output(void **state)
{
	(void)state;
	struct hw_topo t;
	fabric(&t);
	char json_file[] = "/tmp/hwt-topo-json-out-XXXXXX";
	int fd = mkstemp(json_file);
	assert_return_code(fd, errno);
	struct hw_place_tally tally = {0};
	hw_place_tally_add(&tally, &t, NULL, 99, 1);
	assert_int_equal(hw_topo_write_json(&t, &tally, json_file, NULL), HW_TOPO_OK);
	json_error_t je;
	json_t *root = json_load_file(json_file, 0, &je);
	remove(json_file);
	assert_non_null(root);
	assert_int_equal(json_array_size(json_object_get(root, "nodes")), 3);
	assert_int_equal(json_array_size(json_object_get(root, "links")), 2);
	json_t *ev, *mtu = NULL;
	size_t i;
	json_array_foreach(json_object_get(root, "events"), i,
	                   ev) if (strcmp(json_string_value(json_object_get(ev, "kind")), "MtuMismatch") == 0) mtu = ev;
	assert_non_null(mtu);
	assert_string_equal(json_string_value(json_object_get(json_object_get(mtu, "a"), "node")), "h1");
	json_t *unplaced = json_object_get(json_object_get(root, "placement"), "unplaced_ports");
	assert_int_equal(json_array_size(unplaced), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(unplaced, 0), "reason")), "unknown_node");
	json_decref(root);
	hw_place_tally_free(&tally);
	hw_topo_free(&t);
}

static int setup(void **state)
{
	(void)state;
	gvc = gvContext(); /* one context for the whole program */
	return gvc ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return gvFreeContext(gvc);
}

/* Names are drawn as advertised: markup is escaped, Graphviz's backslash escapes are not expanded. */
static void odd_names(void **state)
{
	(void)state;
	struct hw_topo t;
	hw_topo_init(&t);
	uint32_t a = adv(&t, (struct test_end){1, "p\\N", "x<&>\\G", 120, 0, -1, 0});
	uint32_t b = adv(&t, (struct test_end){2, "e1", "y", 120, 0, -1, 0});
	hw_topo_observe(&t, a, b, 120, 1);
	hw_topo_observe(&t, b, a, 120, 1);
	hw_topo_assign_tiers(&t);
	char *svg = NULL;
	size_t len = 0;
	struct hw_render_opts o = {.svg_buf = &svg, .svg_len = &len, .port_labels = 1};
	assert_int_equal(hw_topo_render(gvc, &t, &o, NULL), HW_TOPO_OK);
	assert_non_null(strstr(svg, ">x&lt;&amp;&gt;\\G</text>"));
	assert_non_null(strstr(svg, ">p\\N</text>"));
	assert_non_null(element(svg, "n&#45;x____G")); /* ids keep [A-Za-z0-9._-] only */
	hw_topo_render_free(gvc, svg);
	hw_topo_free(&t);
}

/* An overlay (the analyzer's congestion graphs): hidden nodes and their links are not drawn, a link takes
 * the overlay's colour, a badge and a flow path appear by id, and the path is drawn from its own spline,
 * starting at its first node's centre. */
static void overlay(void **state)
{
	(void)state;
	struct hw_topo t;
	fabric(&t);
	uint32_t h1 = hw_topo_find_node_by_name(&t, "h1"), l1 = hw_topo_find_node_by_name(&t, "l1"),
	         s1 = hw_topo_find_node_by_name(&t, "s1");
	uint8_t show[3] = {0};
	show[l1] = show[s1] = 1;
	struct hw_render_link_style links[2] = {{0}};
	uint32_t up = hw_topo_find_port_by_name(&t, l1, "Ethernet48");
	assert_int_not_equal(up, HW_TOPO_NONE);
	assert_int_not_equal(t.ports[up].link, HW_TOPO_NONE);
	links[t.ports[up].link] = (struct hw_render_link_style){.color = "#cb181d", .width = 5};
	struct hw_render_badge badge = {.port = up,
	                                .id = "q-l1.Ethernet48.3",
	                                .label = "Ethernet48 q3\nocc 2M",
	                                .fill = "#f16913",
	                                .peripheries = 2};
	struct hw_render_path flow_path = {
	    .id = "flow-00000000000000ab", .color = "#1f77b4", .n = 2, .nodes = {l1, s1}};
	struct hw_render_overlay ov = {.show = show,
	                               .links = links,
	                               .badges = &badge,
	                               .n_badges = 1,
	                               .paths = &flow_path,
	                               .n_paths = 1,
	                               .legend_html = "<b>congestion</b>"};
	char *svg = NULL;
	size_t len = 0;
	struct hw_render_opts o = {.svg_buf = &svg, .svg_len = &len, .port_labels = 1, .overlay = &ov};
	assert_int_equal(hw_topo_render(gvc, &t, &o, NULL), HW_TOPO_OK);
	(void)h1;
	assert_null(element(svg, "n&#45;h1"));
	assert_null(element(svg, "l&#45;h1.ens1&#45;&#45;l1.Ethernet0"));
	assert_null(strstr(svg, "MTU mismatch")); /* the overlay's legend replaces the topology's */
	assert_non_null(strstr(svg, ">congestion<"));
	char *link = element(svg, "l&#45;l1.Ethernet48&#45;&#45;s1.Ethernet1");
	assert_non_null(link);
	char *red = strstr(link, "stroke=\"#cb181d\""), *link_end = strstr(link, "</g>");
	assert_non_null(red);
	assert_true(red < link_end);
	char *b = element(svg, "q&#45;l1.Ethernet48.3");
	assert_non_null(b);
	assert_non_null(strstr(b, ">occ 2M<"));
	assert_true(strstr(b, "fill=\"#f16913\"") < strstr(b, "</g>"));
	char *f = element(svg, "flow&#45;00000000000000ab");
	assert_non_null(f);
	char *d = strstr(f, " d=\"M");
	assert_non_null(d);
	assert_true(d < strstr(f, "</g>"));
	assert_non_null(strstr(f, "stroke=\"#1f77b4\""));
	double px, py, lx, ly;
	assert_int_equal(sscanf(d + 5, "%lf,%lf", &px, &py), 2);
	char *lt = strstr(element(svg, "n&#45;l1"), "<text");
	assert_int_equal(sscanf(strstr(lt, " x=\"") + 4, "%lf", &lx), 1);
	assert_int_equal(sscanf(strstr(lt, " y=\"") + 4, "%lf", &ly), 1);
	assert_true(fabs(px - lx) < 15 && fabs(py - ly) < 20); /* the label sits at the node's centre */
	hw_topo_render_free(gvc, svg);
	hw_topo_free(&t);
}

/* The label's x and y of node id (Graphviz writes '-' in ids as &#45;). */
static void label_at(char *svg, const char *id, double *x, double *y)
{
	char *g = element(svg, id);
	assert_non_null(g);
	char *text = strstr(g, "<text");
	assert_non_null(text);
	assert_int_equal(sscanf(strstr(text, " x=\"") + 4, "%lf", x), 1);
	assert_int_equal(sscanf(strstr(text, " y=\"") + 4, "%lf", y), 1);
}

/* Two pods (a fat-tree's shape: each spine links only its own two leaves, one host under each leaf): each spine
 * is drawn right over its own pod, centred over its two leaves, which share a row below it; the pods side by side.
 * By hand (topo_render.c): a pod is max(1 spine x 100 pt, 2 leaves x 100 pt) = 200 pt wide, its spine centred in
 * it at 100 pt, its leaves at 50 and 150 pt: the spine's x is the mean of its leaves' x.  The old tiers-whole
 * layout centred both spines over all four leaves (x 150 and 250 over 50..350) and fails this. */
static void pods_side_by_side(void **state)
{
	(void)state;
	const uint16_t R = HW_LLDP_CAP_ROUTER, S = HW_LLDP_CAP_STATION;
	struct hw_topo t;
	hw_topo_init(&t);
	for (int i = 1; i <= 4; i++) {
		char host[8], leaf[8], spine[8];
		snprintf(host, sizeof(host), "h%d", i);
		snprintf(leaf, sizeof(leaf), "leaf%d", i);
		snprintf(spine, sizeof(spine), "spine%d", (i + 1) / 2);
		uint32_t h = adv(&t, (struct test_end){(uint8_t)(10 + i), "ens1", host, 120, 0, -1, S});
		uint32_t l = adv(&t, (struct test_end){(uint8_t)(20 + i), "Ethernet0", leaf, 120, 0, -1, R});
		uint32_t lu = adv(&t, (struct test_end){(uint8_t)(20 + i), "Ethernet48", leaf, 120, 0, -1, R});
		char pname[16];
		snprintf(pname, sizeof(pname), "Ethernet%d", i);
		uint32_t sp = adv(&t, (struct test_end){(uint8_t)(30 + (i + 1) / 2), pname, spine, 120, 0, -1, R});
		hw_topo_observe(&t, h, l, 120, 1);
		hw_topo_observe(&t, l, h, 120, 1);
		hw_topo_observe(&t, lu, sp, 120, 1);
		hw_topo_observe(&t, sp, lu, 120, 1);
	}
	hw_topo_check(&t);
	hw_topo_assign_tiers(&t);
	char *svg = NULL;
	size_t len = 0;
	struct hw_render_opts o = {.svg_buf = &svg, .svg_len = &len, .port_labels = 1};
	assert_int_equal(hw_topo_render(gvc, &t, &o, NULL), HW_TOPO_OK);
	double x[5], y[5], sx[3], sy[3];
	for (int i = 1; i <= 4; i++) {
		char id[32];
		snprintf(id, sizeof(id), "n&#45;leaf%d", i);
		label_at(svg, id, &x[i], &y[i]);
	}
	label_at(svg, "n&#45;spine1", &sx[1], &sy[1]);
	label_at(svg, "n&#45;spine2", &sx[2], &sy[2]);
	for (int p = 1; p <= 2; p++) {
		const double a = x[2 * p - 1], b = x[2 * p];
		assert_true(fabs(sx[p] - (a + b) / 2) < 1.0);                         /* centred over its own leaves */
		assert_true(fabs(b - a - 100.0) < 1.0);                               /* its leaves in adjacent cells */
		assert_true(fabs(y[2 * p - 1] - y[2 * p]) < 1.0 && y[2 * p] > sy[p]); /* in a row below it */
	}
	assert_true(x[2] < x[3] || y[3] > y[2]); /* pod 2 right of pod 1, or in a row below */
	hw_topo_render_free(gvc, svg);
	hw_topo_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(svg_has_everything), cmocka_unit_test(json_output),
	    cmocka_unit_test(odd_names),          cmocka_unit_test(overlay),
	    cmocka_unit_test(pods_side_by_side),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
