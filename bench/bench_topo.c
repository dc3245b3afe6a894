/* Benchmark: layout + SVG render time and peak memory of k-ary fat-trees (k = 4, 8, 16, 24 by default).
 * Each size runs in its own child process so that peak RSS is its own; prints one JSON document. */
#include <gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "hopwatch/topo.h"
#include "hopwatch/topo_render.h"

/* A port of a node named `name`, advertised as LLDP would (chassis = locally assigned name). */
static uint32_t fabric_port(struct hw_topo *t, const char *name, unsigned ifn, uint16_t caps)
{
	struct hw_lldp_info i;
	memset(&i, 0, sizeof(i));
	i.chassis.subtype = HW_LLDP_CHASSIS_LOCAL;
	snprintf(i.chassis.text, sizeof(i.chassis.text), "%s", name);
	i.port.subtype = HW_LLDP_PORT_IFNAME;
	snprintf(i.port.text, sizeof(i.port.text), "eth%u", ifn);
	snprintf(i.sys_name, sizeof(i.sys_name), "%s", name);
	i.has = HW_LLDP_HAS_SYS_NAME | HW_LLDP_HAS_CAPABILITIES | HW_LLDP_HAS_MAX_FRAME;
	i.cap_system = i.cap_enabled = caps;
	i.ttl = 120;
	i.max_frame = 9216;
	return hw_topo_advertise(t, &i, 0);
}

static void link2(struct hw_topo *t, const char *a, unsigned ia, uint16_t ca, const char *b, unsigned ib, uint16_t cb)
{
	uint32_t pa = fabric_port(t, a, ia, ca), pb = fabric_port(t, b, ib, cb);
	hw_topo_observe(t, pa, pb, 120, 0);
	hw_topo_observe(t, pb, pa, 120, 0);
}

/* k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores, k/2 hosts per edge switch. */
static void fat_tree(struct hw_topo *t, unsigned k)
{
	const uint16_t R = HW_LLDP_CAP_ROUTER, S = HW_LLDP_CAP_STATION;
	unsigned h = k / 2;
	char a[64], b[64];
	for (unsigned p = 0; p < k; p++)
		for (unsigned e = 0; e < h; e++) {
			snprintf(a, sizeof(a), "edge-%u-%u", p, e);
			for (unsigned x = 0; x < h; x++) {
				snprintf(b, sizeof(b), "host-%u-%u-%u", p, e, x);
				link2(t, a, x, R, b, 0, S);
			}
			for (unsigned g = 0; g < h; g++) {
				snprintf(b, sizeof(b), "agg-%u-%u", p, g);
				link2(t, a, h + g, R, b, e, R);
			}
		}
	for (unsigned p = 0; p < k; p++)
		for (unsigned g = 0; g < h; g++)
			for (unsigned c = 0; c < h; c++) {
				snprintf(a, sizeof(a), "agg-%u-%u", p, g);
				snprintf(b, sizeof(b), "core-%u", g * h + c);
				link2(t, a, h + c, R, b, p, R);
			}
}

struct result {
	unsigned k, nodes, switches, links;
	double build_s, render_s;
	size_t svg_bytes;
	unsigned svg_nodes, svg_edges; /* <g class="node">/"edge"> elements in the SVG (the legend is a node) */
	long peak_rss_kb;
	int ok;
};

static void run(unsigned k, int labels, struct result *r)
{
	struct hw_topo t;
	hw_topo_init(&t);
	double t0 = hw_mono_s();
	fat_tree(&t, k);
	hw_topo_check(&t);
	hw_topo_assign_tiers(&t);
	double t1 = hw_mono_s();
	GVC_t *gvc = gvContext();
	char *svg = NULL;
	size_t len = 0;
	struct hw_render_opts o = {.svg_buf = &svg, .svg_len = &len, .port_labels = labels};
	r->ok = hw_topo_render(gvc, &t, &o, NULL) == HW_TOPO_OK;
	double t2 = hw_mono_s();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	r->k = k;
	r->nodes = t.n_nodes;
	r->switches = 5 * k * k / 4;
	r->links = t.n_links;
	r->build_s = t1 - t0;
	r->render_s = t2 - t1;
	r->svg_bytes = len;
	for (const char *p = svg; p && (p = strstr(p, "class=\"")); p += 7) {
		r->svg_nodes += strncmp(p + 7, "node\"", 5) == 0;
		r->svg_edges += strncmp(p + 7, "edge\"", 5) == 0;
	}
	r->peak_rss_kb = ru.ru_maxrss;
	hw_topo_render_free(gvc, svg);
	gvFreeContext(gvc);
	hw_topo_free(&t);
}

int main(int argc, char **argv)
{
	unsigned ks[16] = {4, 8, 16, 24}, n = 4;
	int labels = 1;
	if (argc > 1) {
		n = 0;
		for (int i = 1; i < argc && n < 16; i++) {
			if (strcmp(argv[i], "--no-port-labels") == 0)
				labels = 0;
			else if ((ks[n] = (unsigned)atoi(argv[i])) >= 2 && ks[n] % 2 == 0 && ks[n] <= 64)
				n++;
			else {
				fprintf(stderr, "usage: bench_topo [--no-port-labels] [K...]  (even K, 2..64)\n");
				return 2;
			}
		}
	}
	printf("{\"benchmark\": \"topology layout + SVG render (cgraph+gvc, nop2)\", \"port_labels\": %s, "
	       "\"fat_trees\": [",
	       labels ? "true" : "false");
	for (unsigned i = 0; i < n; i++) {
		int fd[2];
		struct result r = {0};
		if (pipe(fd) != 0)
			return 1;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			close(fd[0]);
			run(ks[i], labels, &r);
			ssize_t w = write(fd[1], &r, sizeof(r));
			_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
		}
		close(fd[1]);
		ssize_t got = read(fd[0], &r, sizeof(r));
		close(fd[0]);
		int status = 0;
		waitpid(pid, &status, 0);
		if (got != (ssize_t)sizeof(r) || !r.ok) {
			fprintf(stderr, "bench_topo: k=%u failed\n", ks[i]);
			return 1;
		}
		printf("%s\n  {\"k\": %u, \"nodes\": %u, \"switches\": %u, \"links\": %u, \"build_s\": %.4f, "
		       "\"layout_render_s\": %.4f, \"svg_bytes\": %zu, \"svg_nodes\": %u, \"svg_edges\": %u, "
		       "\"peak_rss_mb\": %.1f}",
		       i ? "," : "", r.k, r.nodes, r.switches, r.links, r.build_s, r.render_s, r.svg_bytes, r.svg_nodes,
		       r.svg_edges, r.peak_rss_kb / 1024.0);
	}
	printf("\n]}\n");
	return 0;
}
