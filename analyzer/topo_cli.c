/* `hopwatch-analyzer topology`: load LLDP from captures, lldpd dumps and the local lldpd, run the checks,
 * place INT (node, port) pairs, and write SVG / DOT / JSON.  Options are documented in docs/topology.md. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "analyzer_cmd.h"
#include "hopwatch/record_file.h"
#include "hopwatch/topo.h"
#include "hopwatch/topo_sources.h"
#include "hopwatch/topo_map.h"
#include "hopwatch/topo_render.h"
#include "options.h"

#define MAX_SOURCES 64

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
	const char *records[MAX_SOURCES], *jsonl[MAX_SOURCES];
	int n_records, n_jsonl;
	const char *map, *baseline, *svg, *dot, *out_json, *names;
	bool port_labels, quiet;
};

#define O struct opts

static const struct hw_opt rows[] = {
    {HW_OPT_GROUP, .help = "sources (any number of each, at least one):"},
    {HW_OPT_LIST, "lldp", .metavar = "PCAP|IFACE", HW_OPT_LIST_AT(O, lldp, n_lldp), .elem = HW_OPT_STRING,
     .what = "source", .help = "LLDP frames from a capture file, or captured live on an interface"},
    {HW_OPT_DURATION, "lldp-seconds", .metavar = "S", HW_OPT_AT(O, seconds), .hi = 86400, .flags = HW_OPTF_LO_OPEN,
     .def = "35", .help = "how long to capture live (one default lldpd interval plus margin)"},
    {HW_OPT_LIST, "lldpd-json", .metavar = "DIR|FILE", HW_OPT_LIST_AT(O, json, n_json), .elem = HW_OPT_STRING,
     .what = "source", .help = "lldpcli -f json0 (or -f json) 'show neighbors details' dumps, one per switch"},
    {HW_OPT_LIST, "lldpd", .metavar = "SOCKET", HW_OPT_LIST_AT(O, lldpd, n_lldpd), .elem = HW_OPT_STRING,
     .what = "source", .help = "the local lldpd through liblldpctl ('default' = its default socket)"},
    {HW_OPT_GROUP, .help = "mapping:"},
    {HW_OPT_STRING, "map", .metavar = "FILE", HW_OPT_AT(O, map),
     .help = "INT node ids / port numbers to names and tiers (JSON, docs/topology.md)"},
    {HW_OPT_LIST, "records", .metavar = "FILE|GLOB", HW_OPT_LIST_AT(O, records, n_records), .elem = HW_OPT_STRING,
     .flags = HW_OPTF_GLOB | HW_OPTF_MULTI, .what = "record file",
     .help = "binary record files (hopwatch-collector --records-dir; several may follow one\n"
             "--records): place every (node_id, port) and list the unplaced"},
    {HW_OPT_LIST, "jsonl", .metavar = "FILE", HW_OPT_LIST_AT(O, jsonl, n_jsonl), .elem = HW_OPT_STRING, .what = "file",
     .help = "JSON-lines per-hop records (docs/records.md), placed the same way"},
    {HW_OPT_GROUP, .help = "checks:"},
    {HW_OPT_STRING, "baseline", .metavar = "OLD.json", HW_OPT_AT(O, baseline),
     .help = "an earlier --json-out output: links up there and not up now are LinkDisappeared"},
    {HW_OPT_GROUP, .help = "outputs:"},
    {HW_OPT_STRING, "svg", .metavar = "OUT.svg", HW_OPT_AT(O, svg), .help = "the fabric in tiers"},
    {HW_OPT_STRING, "dot", .metavar = "OUT.dot", HW_OPT_AT(O, dot), .help = "the same graph for Graphviz"},
    {HW_OPT_STRING, "json-out", .metavar = "OUT.json", HW_OPT_AT(O, out_json),
     .help = "nodes, ports, links, events and placement as JSON (docs/topology.md)"},
    {HW_OPT_ALIAS, "json", .alias_of = "json-out"},
    {HW_OPT_STRING, "names-out", .metavar = "OUT.tsv", HW_OPT_AT(O, names),
     .help = "node and port names by INT node id and port number, for the Wireshark dissector's\n"
             "names file preference (docs/topology.md)"},
    {HW_OPT_FLAG, "no-port-labels", HW_OPT_AT(O, port_labels), .flags = HW_OPTF_NEGATE, .def = "true",
     .help = "do not label links with port names (large fabrics)"},
    {HW_OPT_FLAG, "quiet", HW_OPT_AT(O, quiet), .help = "do not print events to stdout"},
    {HW_OPT_END},
};

static const struct hw_opts_spec spec = {
    .prog = "hopwatch-analyzer topology",
    .synopsis = "usage: hopwatch-analyzer topology [sources] [mapping] [outputs]\n",
    .epilog = "exit status: 0 ok, 1 an input could not be read or an output written, 2 bad usage\n",
    .rows = rows,
};

void hw_cmd_topology_usage(FILE *out)
{
	hw_opts_help(&spec, out);
}

static int parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	int rc = hw_opts_defaults(&spec, o);
	if (!rc)
		rc = hw_opts_parse(&spec, o, argc, argv, NULL);
	if (rc)
		return rc == HW_OPTS_HELP ? -1 : HW_EXIT_USAGE;
	if (!o->n_lldp && !o->n_json && !o->n_lldpd) {
		fprintf(stderr, "hopwatch-analyzer topology: give at least one of --lldp, --lldpd-json, --lldpd "
		                "(see hopwatch-analyzer topology --help)\n");
		return HW_EXIT_USAGE;
	}
	return HW_EXIT_OK;
}

/* Place the (node_id, port) pairs of binary record files; a file of JSON lines (the old meaning of
 * topology --records) is read as --jsonl, with a line saying so. */
static enum hw_topo_result place_files(struct hw_place_tally *tally, const struct hw_topo *t,
                                       const struct hw_topo_map *m, const struct opts *o, struct hw_topo_error *err)
{
	static struct hw_record recs[4096];
	enum hw_topo_result r = HW_TOPO_OK;
	for (int i = 0; i < o->n_records && r == HW_TOPO_OK; i++) {
		FILE *f = fopen(o->records[i], "r");
		int c = f ? fgetc(f) : EOF, empty = f && c == EOF;
		if (f)
			fclose(f);
		if (c == '{' || empty) {
			fprintf(
			    stderr,
			    "hopwatch-analyzer topology: --records %s: JSON lines are deprecated here, use --jsonl\n",
			    o->records[i]);
			r = hw_place_records(tally, t, m, o->records[i], err);
			continue;
		}
		char e[512];
		struct hw_record_reader *rd = hw_record_reader_open(o->records[i], e, sizeof(e));
		if (!rd)
			return hw_topo_fail(err, HW_TOPO_E_IO, "%s", e);
		long n;
		while ((n = hw_record_reader_read(rd, recs, 4096, e, sizeof(e))) > 0)
			for (long k = 0; k < n; k++)
				if (recs[k].valid & HW_V_PORTS) {
					hw_place_tally_add(tally, t, m, recs[k].node_id, recs[k].ingress_port);
					/* HW_PORT_NONE: the hop chose no egress port (a drop), nothing to place */
					if (recs[k].egress_port != HW_PORT_NONE)
						hw_place_tally_add(tally, t, m, recs[k].node_id, recs[k].egress_port);
				}
		hw_record_reader_close(rd);
		if (n < 0)
			return hw_topo_fail(err, HW_TOPO_E_FORMAT, "%s", e);
	}
	for (int i = 0; i < o->n_jsonl && r == HW_TOPO_OK; i++)
		r = hw_place_records(tally, t, m, o->jsonl[i], err);
	return r;
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
	for (int i = 0; i < o->n_json && r == HW_TOPO_OK; i++)
		r = hw_topo_load_lldpd_path(t, o->json[i], now, err);
	for (int i = 0; i < o->n_lldpd && r == HW_TOPO_OK; i++)
		r = hw_topo_load_lldpctl(t, strcmp(o->lldpd[i], "default") ? o->lldpd[i] : NULL, now, err);
	return r;
}

/* --names-out: the names file (hw_topo_names_write). */
static enum hw_topo_result write_names(const struct hw_topo *t, const struct hw_topo_map *m, const char *path,
                                       struct hw_topo_error *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return hw_topo_fail(err, HW_TOPO_E_IO, "%s: %s", path, strerror(errno));
	int bad = hw_topo_names_write(f, t, m);
	if (fclose(f) || bad)
		return hw_topo_fail(err, HW_TOPO_E_IO, "%s: cannot write", path);
	return HW_TOPO_OK;
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
		if (o.n_records || o.n_jsonl)
			r = place_files(&tally, &t, o.map ? &map : NULL, &o, &err);
	}
	if (r == HW_TOPO_OK && (o.svg || o.dot)) {
		void *gvc = hw_analyzer_gvc();
		struct hw_render_opts ro = {.svg_path = o.svg, .dot_path = o.dot, .port_labels = o.port_labels};
		r = gvc ? hw_topo_render(gvc, &t, &ro, &err)
		        : hw_topo_fail(&err, HW_TOPO_E_RENDER, "Graphviz: cannot create a context");
	}
	if (r == HW_TOPO_OK && o.out_json)
		r = hw_topo_write_json(&t, o.n_records || o.n_jsonl ? &tally : NULL, o.out_json, &err);
	if (r == HW_TOPO_OK && o.names)
		r = write_names(&t, o.map ? &map : NULL, o.names, &err);
	if (r == HW_TOPO_OK && !o.quiet)
		print_events(&t, o.n_records || o.n_jsonl ? &tally : NULL);
	if (r != HW_TOPO_OK)
		fprintf(stderr, "hopwatch-analyzer topology: %s (%s)\n", err.message, hw_topo_result_name(r));
	hw_place_tally_free(&tally);
	hw_topo_map_free(&map);
	hw_topo_free(&t);
	return r == HW_TOPO_OK ? HW_EXIT_OK : HW_EXIT_FAIL;
}
