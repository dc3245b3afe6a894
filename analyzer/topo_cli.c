/* `hopwatch-analyzer topology`: load LLDP from captures, lldpd dumps and the local lldpd, run the checks,
 * place INT (node, port) pairs, and write SVG / DOT / JSON.  Options are documented in docs/topology.md. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "analyzer_cmd.h"
#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_render.h"

#define MAX_SOURCES 64

void hw_cmd_topology_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: hopwatch-analyzer topology [sources] [outputs]\n"
	    "sources (any number, at least one):\n"
	    "  --lldp PCAP|IFACE      LLDP frames from a capture file, or captured live on an interface\n"
	    "  --lldp-seconds S       how long to capture live (default 35)\n"
	    "  --lldpd-json DIR|FILE  lldpcli -f json0 (or -f json) 'show neighbors details' dumps, one per switch\n"
	    "  --lldpd SOCKET         the local lldpd through liblldpctl ('default' = its default socket)\n"
	    "mapping:\n"
	    "  --map FILE             INT node ids / port numbers to names (JSON, see docs/topology.md)\n"
	    "  --records FILE         JSON-lines per-hop records: place every (node_id, port) and list the unplaced\n"
	    "outputs:\n"
	    "  --svg OUT.svg  --dot OUT.dot  --json OUT.json\n"
	    "  --no-port-labels       do not label links with port names (large fabrics)\n"
	    "  --quiet                do not print events to stdout\n"
	    "exit status: 0 ok, 1 an input could not be read or an output written, 2 bad usage\n");
}

static double now_s(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

struct opts {
	const char *lldp[MAX_SOURCES], *json[MAX_SOURCES], *lldpd[MAX_SOURCES];
	int n_lldp, n_json, n_lldpd;
	double seconds;
	const char *map, *records, *baseline, *svg, *dot, *out_json;
	int port_labels, quiet;
};

static int add(const char **list, int *n, const char *v)
{
	if (*n >= MAX_SOURCES) {
		fprintf(stderr, "hopwatch-analyzer topology: more than %d sources of one kind\n", MAX_SOURCES);
		return 0;
	}
	list[(*n)++] = v;
	return 1;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {{"lldp", required_argument, NULL, 'l'},
	                                         {"lldp-seconds", required_argument, NULL, 's'},
	                                         {"lldpd-json", required_argument, NULL, 'j'},
	                                         {"lldpd", required_argument, NULL, 'd'},
	                                         {"map", required_argument, NULL, 'm'},
	                                         {"records", required_argument, NULL, 'r'},
	                                         {"svg", required_argument, NULL, 'S'},
	                                         {"dot", required_argument, NULL, 'D'},
	                                         {"json", required_argument, NULL, 'J'},
	                                         {"baseline", required_argument, NULL, 'b'},
	                                         {"no-port-labels", no_argument, NULL, 'n'},
	                                         {"quiet", no_argument, NULL, 'q'},
	                                         {"help", no_argument, NULL, 'h'},
	                                         {NULL, 0, NULL, 0}};
	memset(o, 0, sizeof(*o));
	o->seconds = 35;
	o->port_labels = 1;
	int c;
	char *end;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (!add(o->lldp, &o->n_lldp, optarg))
				return HW_EXIT_USAGE;
			break;
		case 'j':
			if (!add(o->json, &o->n_json, optarg))
				return HW_EXIT_USAGE;
			break;
		case 'd':
			if (!add(o->lldpd, &o->n_lldpd, optarg))
				return HW_EXIT_USAGE;
			break;
		case 's':
			o->seconds = strtod(optarg, &end);
			if (*end || o->seconds <= 0 || o->seconds > 86400) {
				fprintf(stderr, "hopwatch-analyzer topology: --lldp-seconds %s: want 0 < S <= 86400\n",
				        optarg);
				return HW_EXIT_USAGE;
			}
			break;
		case 'm': o->map = optarg; break;
		case 'r': o->records = optarg; break;
		case 'b': o->baseline = optarg; break;
		case 'S': o->svg = optarg; break;
		case 'D': o->dot = optarg; break;
		case 'J': o->out_json = optarg; break;
		case 'n': o->port_labels = 0; break;
		case 'q': o->quiet = 1; break;
		case 'h': hw_cmd_topology_usage(stdout); return -1;
		default: hw_cmd_topology_usage(stderr); return HW_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hopwatch-analyzer topology: unexpected argument \"%s\"\n", argv[optind]);
		return HW_EXIT_USAGE;
	}
	if (!o->n_lldp && !o->n_json && !o->n_lldpd) {
		fprintf(stderr, "hopwatch-analyzer topology: give at least one of --lldp, --lldpd-json, --lldpd\n");
		hw_cmd_topology_usage(stderr);
		return HW_EXIT_USAGE;
	}
	return HW_EXIT_OK;
}

static enum hw_topo_result load(struct hw_topo *t, const struct opts *o, struct hw_topo_error *err)
{
	enum hw_topo_result r = HW_TOPO_OK;
	struct stat st;
	for (int i = 0; i < o->n_lldp && r == HW_TOPO_OK; i++) {
		int exists = stat(o->lldp[i], &st) == 0, live = !exists || !S_ISREG(st.st_mode);
		if (!exists && strchr(o->lldp[i], '/')) /* a path, not an interface name */
			return hw_topo_fail(err, HW_TOPO_E_IO, "%s: no such capture file", o->lldp[i]);
		if (live && !o->quiet)
			fprintf(stderr, "capturing LLDP on %s for %.0f s\n", o->lldp[i], o->seconds);
		r = hw_topo_load_pcap(t, o->lldp[i], live, o->seconds, err);
	}
	double now = now_s();
	for (int i = 0; i < o->n_json && r == HW_TOPO_OK; i++) {
		if (stat(o->json[i], &st) == 0 && S_ISDIR(st.st_mode))
			r = hw_topo_load_lldpd_dir(t, o->json[i], now, err);
		else
			r = hw_topo_load_lldpd_json(t, o->json[i], NULL, now, err);
	}
	for (int i = 0; i < o->n_lldpd && r == HW_TOPO_OK; i++)
		r = hw_topo_load_lldpctl(t, strcmp(o->lldpd[i], "default") ? o->lldpd[i] : NULL, now, err);
	return r;
}

static void print_events(const struct hw_topo *t, const struct hw_place_tally *tally)
{
	for (uint32_t i = 0; i < t->n_events; i++) {
		const struct hw_topo_event *e = &t->events[i];
		printf("%-18s %s%s%s -- %s%s%s: %s\n", hw_topo_event_name(e->kind), e->a_node, e->a_port[0] ? "." : "",
		       e->a_port, e->b_node, e->b_port[0] ? "." : "", e->b_port, e->detail);
	}
	for (uint32_t i = 0; tally && i < tally->n_entries; i++)
		printf("%-18s node_id %u port %u: %s (%llu hops)\n", "Unplaced", tally->entries[i].node_id,
		       tally->entries[i].port, hw_place_name(tally->entries[i].why),
		       (unsigned long long)tally->entries[i].count);
	printf("topology: %u nodes, %u ports, %u links (%u up), %u events, %llu LLDP frames", t->n_nodes, t->n_ports,
	       t->n_links, hw_topo_links_up(t), t->n_events, (unsigned long long)t->frames_lldp);
	uint64_t rej = 0;
	for (int r = 0; r < HW_LLDP_RESULT_COUNT; r++)
		rej += t->frames_rejected[r];
	printf(", %llu rejected", (unsigned long long)rej);
	if (tally)
		printf(", INT ports placed %llu unplaced %llu", (unsigned long long)tally->placed,
		       (unsigned long long)tally->unplaced);
	printf("\n");
}

int hw_cmd_topology(int argc, char **argv)
{
	struct opts o;
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? HW_EXIT_OK : rc;
	struct hw_topo t;
	struct hw_topo_map map;
	struct hw_place_tally tally;
	struct hw_topo_error err = {0};
	hw_topo_init(&t);
	memset(&map, 0, sizeof(map));
	memset(&tally, 0, sizeof(tally));
	enum hw_topo_result r = o.map ? hw_topo_map_load(&map, o.map, &err) : HW_TOPO_OK;
	if (r != HW_TOPO_OK) {
		fprintf(stderr, "hopwatch-analyzer topology: %s (%s)\n", err.message, hw_topo_result_name(r));
		return HW_EXIT_USAGE;
	}
	r = load(&t, &o, &err);
	if (r == HW_TOPO_OK && o.baseline)
		r = hw_topo_compare_baseline(&t, o.baseline, now_s(), &err);
	if (r == HW_TOPO_OK) {
		hw_topo_check(&t);
		hw_topo_map_apply(&t, o.map ? &map : NULL); /* fixed tiers first: the inference starts from them */
		hw_topo_assign_tiers(&t);
		if (o.records)
			r = hw_place_records(&tally, &t, o.map ? &map : NULL, o.records, &err);
	}
	if (r == HW_TOPO_OK && (o.svg || o.dot)) {
		void *gvc = hw_analyzer_gvc();
		struct hw_render_opts ro = {.svg_path = o.svg, .dot_path = o.dot, .port_labels = o.port_labels};
		r = gvc ? hw_topo_render(gvc, &t, &ro, &err)
		        : hw_topo_fail(&err, HW_TOPO_E_RENDER, "Graphviz: cannot create a context");
	}
	if (r == HW_TOPO_OK && o.out_json)
		r = hw_topo_write_json(&t, o.records ? &tally : NULL, o.out_json, &err);
	if (r == HW_TOPO_OK && !o.quiet)
		print_events(&t, o.records ? &tally : NULL);
	if (r != HW_TOPO_OK)
		fprintf(stderr, "hopwatch-analyzer topology: %s (%s)\n", err.message, hw_topo_result_name(r));
	hw_place_tally_free(&tally);
	hw_topo_map_free(&map);
	hw_topo_free(&t);
	return r == HW_TOPO_OK ? HW_EXIT_OK : HW_EXIT_FAIL;
}
