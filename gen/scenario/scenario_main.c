/* `hopwatch-gen scenario`: the command line, then build the fabric, run the time steps and write
 * reports.pcap, records.jsonl, lldp.pcap, lldp/NAME.json, map.json and truth.json into --out. */
#include <stdarg.h>
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clock.h"
#include "options.h"
#include "scen.h"

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "hopwatch-gen scenario: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int topo_build(struct sc_topo *t, const char *spec, char *err, size_t errlen)
{
	unsigned a, b, c;
	char tail;
	if (sscanf(spec, "leaf-spine:%u,%u,%u%c", &a, &b, &c, &tail) == 3)
		return sc_topo_leaf_spine(t, a, b, c, err, errlen);
	if (sscanf(spec, "fat-tree:%u%c", &a, &tail) == 1)
		return sc_topo_fat_tree(t, a, err, errlen);
	snprintf(err, errlen, "--topology %s: not leaf-spine:SPINES,LEAVES,HOSTS or fat-tree:K", spec);
	return -1;
}

void sc_cfg_default(struct sc_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->duration_ns = 5000000;
	c->step_ns = 1000;
	c->format = GEN_FMT_TR20;
	c->sample = 100;
	c->drop_sample = 10;
	c->cnp_sample = 1;
	c->queue_report_ns = 10000;
	c->qreport_bytes = 200e3;
	c->ecn_bytes = 100e3;
	c->xoff_bytes = 400e3;
	c->xon_bytes = 300e3;
	c->lossy_buffer = 1024e3;
	c->lossless_buffer = 8192e3;
	c->host_buffer = 512e3; /* a sender stalls with this much outstanding (its RDMA window) */
	c->base_latency_ns = 600;
	c->load = 0.3;
	c->tcp_load = 0.05;
	c->epoch_ns = 1767225600ull * 1000000000ull; /* 2026-01-01T00:00:00Z */
}

struct scen_opts {
	const char *out, *topo, *collector;
	const char *events[SC_MAX_EVENTS];
	unsigned n_ev;
	bool list, no_events, records, no_lldp, quiet;
	double host_gbps, fabric_gbps, mtu, load, tcp_load, dur_us, step_ns, ecn_kb, xoff_kb, xon_kb, buf_kb, base_ns;
	double qkb, qus;
	int qflow;
	uint32_t sample, dsample, csample;
	uint16_t dport;
	int format;
	uint64_t seed, epoch;
	uint32_t jobs;
};

#define S struct scen_opts

static const char *const formats[] = {"tr2.0", "tr1.0", "tr0.5", NULL};
static const char *const qflows[] = {"first", "share", NULL};

static const struct hw_opt rows[] = {
    {HW_OPT_GROUP, .help = "Scenario and fabric:"},
    {HW_OPT_STRING, "out", .metavar = "DIR", HW_OPT_AT(S, out), .help = "the output directory (required)"},
    {HW_OPT_FLAG, "list", HW_OPT_AT(S, list), .help = "print the named scenarios and exit"},
    {HW_OPT_STRING, "topology", .metavar = "T", HW_OPT_AT(S, topo), .def_note = "the scenario's, or leaf-spine:4,8,8",
     .help = "leaf-spine:SPINES,LEAVES,HOSTS_PER_LEAF | fat-tree:K (even K, 2-22)"},
    {HW_OPT_DOUBLE, "host-gbps", .metavar = "G", HW_OPT_AT(S, host_gbps), .lo = 0.001, .hi = 1e5, .def = "100",
     .help = "host link speed"},
    {HW_OPT_DOUBLE, "fabric-gbps", .metavar = "G", HW_OPT_AT(S, fabric_gbps), .lo = 0.001, .hi = 1e5, .def = "400",
     .help = "switch-to-switch link speed"},
    {HW_OPT_DOUBLE, "mtu", .metavar = "N", HW_OPT_AT(S, mtu), .lo = 1280, .hi = 65535, .def = "9216",
     .help = "fabric maximum frame size"},
    {HW_OPT_LIST, "event", .metavar = "SPEC", HW_OPT_LIST_AT(S, events, n_ev), .elem = HW_OPT_STRING, .what = "event",
     .help = "add an event: KIND:key=value,...  KIND and keys:\n"
             "incast|microburst: dst=HOST senders=N gbps=G start_us= dur_us=\n"
             "link-down: link=NODE:PORT start_us= dur_us=\n"
             "pfc-storm: host=HOST senders=N gbps=G start_us= dur_us=\n"
             "dscp-misconfig: host=HOST start_us= dur_us=\n"
             "report-loss: node=SWITCH fraction=F start_us= dur_us=\n"
             "mtu-mismatch: link=NODE:PORT mtu=N (that port's side) start_us= dur_us=\n"
             "PORT is EthernetN or N; hosts' port is eth0"},
    {HW_OPT_FLAG, "no-events", HW_OPT_AT(S, no_events),
     .help = "the named scenario's fabric and traffic without its events"},
    {HW_OPT_DOUBLE, "load", .metavar = "F", HW_OPT_AT(S, load), .hi = 1, .def_note = "per scenario",
     .help = "background RoCE flow per host, fraction of its link"},
    {HW_OPT_DOUBLE, "tcp-load", .metavar = "F", HW_OPT_AT(S, tcp_load), .hi = 1, .def_note = "per scenario",
     .help = "background TCP flow per host, fraction of its link"},
    {HW_OPT_GROUP, .help = "Time and queues:"},
    {HW_OPT_DOUBLE, "duration-us", .metavar = "N", HW_OPT_AT(S, dur_us), .lo = 1, .hi = 1e8, .def_note = "5000",
     .help = "simulated time"},
    {HW_OPT_DOUBLE, "step-ns", .metavar = "N", HW_OPT_AT(S, step_ns), .lo = 10, .hi = 1e6, .def_note = "1000",
     .help = "time step"},
    {HW_OPT_DOUBLE, "ecn-kb", .metavar = "N", HW_OPT_AT(S, ecn_kb), .hi = 1e5, .def_note = "100",
     .help = "ECN marking threshold"},
    {HW_OPT_DOUBLE, "xoff-kb", .metavar = "N", HW_OPT_AT(S, xoff_kb), .lo = 1, .hi = 1e5, .def_note = "400",
     .help = "PFC Xoff per ingress port and priority"},
    {HW_OPT_DOUBLE, "xon-kb", .metavar = "N", HW_OPT_AT(S, xon_kb), .hi = 1e5, .def_note = "300", .help = "PFC Xon"},
    {HW_OPT_DOUBLE, "buffer-kb", .metavar = "N", HW_OPT_AT(S, buf_kb), .lo = 1, .hi = 16383, .def_note = "1024",
     .help = "lossy queue buffer; lossless queues hold 8192"},
    {HW_OPT_DOUBLE, "base-latency-ns", .metavar = "N", HW_OPT_AT(S, base_ns), .hi = 1e6, .def_note = "600",
     .help = "hop latency without queueing"},
    {HW_OPT_GROUP, .help = "Reports:"},
    {HW_OPT_ENUM, "format", .metavar = "F", HW_OPT_AT(S, format), .names = formats, .def_note = "tr2.0",
     .help = "tr2.0 (INT-MD v2.1 stack) | tr1.0 (INT v1.0 stack) |\n"
             "tr0.5 (fabric-tna postcards from every hop)"},
    {HW_OPT_UINT, "sample", .metavar = "N", HW_OPT_AT(S, sample), .lo = 1, .hi = 1e9, .def_note = "100",
     .help = "one sink report per N delivered packets of a flow"},
    {HW_OPT_UINT, "drop-sample", .metavar = "N", HW_OPT_AT(S, dsample), .lo = 1, .hi = 1e9, .def_note = "10",
     .help = "one drop report per N dropped packets"},
    {HW_OPT_UINT, "cnp-sample", .metavar = "N", HW_OPT_AT(S, csample), .lo = 1, .hi = 1e9, .def_note = "1",
     .help = "one report per N CNPs of a flow (1: every CNP)"},
    {HW_OPT_DOUBLE, "queue-report-kb", .metavar = "N", HW_OPT_AT(S, qkb), .hi = 16383, .def_note = "200",
     .help = "queue reports above this occupancy, at most one per queue"},
    {HW_OPT_DOUBLE, "queue-report-us", .metavar = "N", HW_OPT_AT(S, qus), .lo = 0.001, .hi = 1e6, .def_note = "10",
     .help = "per this interval"},
    {HW_OPT_ENUM, "queue-report-flow", .metavar = "F", HW_OPT_AT(S, qflow), .names = qflows, .def_note = "first",
     .help = "the flow a queue report is about: first (the first flow with bytes there)\n"
             "| share (drawn by each flow's share of the queue, as a switch reports\n"
             "the next packet)"},
    {HW_OPT_STRING, "collector", .metavar = "A.B.C.D", HW_OPT_AT(S, collector), .def_note = "10.0.0.100",
     .help = "report destination"},
    {HW_OPT_UINT, "dst-port", .metavar = "P", HW_OPT_AT(S, dport), .lo = 1, .hi = 65535, .def = "32766",
     .help = "report UDP destination port"},
    {HW_OPT_FLAG, "write-records", HW_OPT_AT(S, records), .help = "also write DIR/records.jsonl"},
    {HW_OPT_ALIAS, "records", .alias_of = "write-records"},
    {HW_OPT_FLAG, "no-lldp", HW_OPT_AT(S, no_lldp), .help = "skip the LLDP outputs (benchmarks)"},
    {HW_OPT_UINT, "seed", .metavar = "S", HW_OPT_AT(S, seed), .hi = 18446744073709551615.0, .def_note = "1",
     .help = "random seed"},
    {HW_OPT_UINT, "epoch-ns", .metavar = "NS", HW_OPT_AT(S, epoch), .lo = 1e6, .hi = 18446744073709551615.0,
     .def_note = "2026-01-01T00:00:00Z", .help = "start time, ns since 1970"},
    {HW_OPT_UINT, "jobs", .metavar = "N", HW_OPT_AT(S, jobs), .hi = SC_MAX_JOBS, .def_note = "0 (none)",
     .help = "hosts split into N training jobs: DIR/pods.json (kubectl get pods -A -o json)\n"
             "and each incast's and PFC storm's culprit and victim jobs in truth.json"},
    {HW_OPT_FLAG, "quiet", HW_OPT_AT(S, quiet), .help = "no summary on stderr"},
    {HW_OPT_END},
};

static unsigned char given[sizeof(rows) / sizeof(rows[0])];

static const struct hw_opts_spec spec = {
    .prog = "hopwatch-gen scenario",
    .synopsis = "usage: hopwatch-gen scenario NAME|custom --out DIR [options]\n",
    .intro = "Simulates a RoCEv2 fabric in time steps and writes what its collector would receive, with the truth:\n"
             "  DIR/reports.pcap    INT reports (Ethernet/IPv4/UDP to the collector, nanosecond timestamps)\n"
             "  DIR/records.jsonl   with --write-records: the hop records a collector decodes from reports.pcap\n"
             "  DIR/lldp.pcap       every node's LLDP frames on every link (SLL2, one interface index per link)\n"
             "  DIR/lldp/NAME.json  one `lldpcli -f json0` dump per node (chassis + neighbours, end of run)\n"
             "  DIR/map.json        hopwatch-analyzer --map: node ids, INT port N = EthernetN, tiers\n"
             "  DIR/truth.json      topology, injected events, flows and their paths, per-queue peaks\n"
             "  DIR/pods.json       with --jobs: the hosts' pods and their jobs, as kubectl shows them\n"
             "Same options and seed give identical files.  NAME: a named scenario (--list), or 'custom'\n"
             "(no events, background traffic).\n",
    .rows = rows,
    .max_args = -1,
    .given = given,
};

static bool has(const char *name)
{
	return hw_opts_given(&spec, name);
}

int sc_main(int argc, char **argv)
{
	static struct sc_cfg cfg;
	sc_cfg_default(&cfg);
	static struct scen_opts o;
	memset(&o, 0, sizeof(o));
	int first = 1, prc = hw_opts_defaults(&spec, &o);
	if (!prc)
		prc = hw_opts_parse(&spec, &o, argc, argv, &first);
	if (prc)
		return prc == HW_OPTS_HELP ? 0 : 2;
	/* what was given overrides sc_cfg_default (a named scenario may still set its own below) */
	if (has("step-ns"))
		cfg.step_ns = (uint64_t)o.step_ns;
	if (has("ecn-kb"))
		cfg.ecn_bytes = o.ecn_kb * 1e3;
	if (has("xoff-kb"))
		cfg.xoff_bytes = o.xoff_kb * 1e3;
	if (has("xon-kb"))
		cfg.xon_bytes = o.xon_kb * 1e3;
	if (has("buffer-kb"))
		cfg.lossy_buffer = o.buf_kb * 1e3;
	if (has("base-latency-ns"))
		cfg.base_latency_ns = (uint32_t)o.base_ns;
	if (has("format"))
		cfg.format = o.format == 0 ? GEN_FMT_TR20 : o.format == 1 ? GEN_FMT_TR10 : GEN_FMT_TR05;
	if (has("sample"))
		cfg.sample = o.sample;
	if (has("cnp-sample"))
		cfg.cnp_sample = o.csample;
	if (has("drop-sample"))
		cfg.drop_sample = o.dsample;
	if (has("queue-report-kb"))
		cfg.qreport_bytes = o.qkb * 1e3;
	if (has("queue-report-flow"))
		cfg.qreport_share = o.qflow == 1;
	if (has("queue-report-us"))
		cfg.queue_report_ns = (uint32_t)(o.qus * 1e3);
	if (has("seed"))
		cfg.seed = o.seed;
	if (has("epoch-ns"))
		cfg.epoch_ns = o.epoch;
	cfg.out_dir = o.out;
	cfg.records = o.records;
	cfg.no_lldp = o.no_lldp;
	cfg.quiet = o.quiet;
	cfg.jobs = o.jobs;
	const char *topo_spec = o.topo, *collector = o.collector;
	const char *const *events = o.events;
	unsigned n_ev = o.n_ev;
	int no_events = o.no_events, list = o.list;
	double host_gbps = o.host_gbps, fabric_gbps = o.fabric_gbps, mtu = o.mtu;
	double load = has("load") ? o.load : -1, tcp_load = has("tcp-load") ? o.tcp_load : -1, dport = o.dport;
	double dur_set = has("duration-us") ? o.dur_us : -1;
	int optind_ = first;
	if (list) {
		printf("named scenarios (hopwatch-gen scenario NAME --out DIR):\n");
		sc_named_list(stdout);
		return 0;
	}
	if (optind_ != argc - 1)
		return fail("%s%s",
		            optind_ >= argc ? "a scenario name is required (see --list)" : "one scenario name only",
		            "");
	cfg.name = argv[optind_];
	if (!cfg.out_dir)
		return fail("--out DIR is required%s%s", "", "");
	if (dur_set > 0)
		cfg.duration_ns = (uint64_t)(dur_set * 1000);
	if (cfg.xon_bytes > cfg.xoff_bytes)
		return fail("--xon-kb is above --xoff-kb: pause could never end%s%s", "", "");
	if (cfg.duration_ns < cfg.step_ns)
		return fail("--duration-us is shorter than one step%s%s", "", "");
	char err[512], named_topo[64];
	const char *const *named_events = NULL;
	if (strcmp(cfg.name, "custom")) {
		if (sc_named(cfg.name, &cfg, named_topo, sizeof(named_topo), err, sizeof(err)))
			return fail("%s%s", err, "");
		named_events = sc_named_events(cfg.name);
		if (!topo_spec)
			topo_spec = named_topo;
	}
	if (!topo_spec)
		topo_spec = "leaf-spine:4,8,8";
	if (load >= 0)
		cfg.load = load;
	if (tcp_load >= 0)
		cfg.tcp_load = tcp_load;
	if (cfg.load + cfg.tcp_load > 1)
		return fail("--load + --tcp-load exceed the host link (more than 100%%)%s%s", "", "");
	struct in_addr ca = {0};
	if (collector && inet_pton(AF_INET, collector, &ca) != 1)
		return fail("--collector %s: not an IPv4 address%s", collector, "");

	struct sc_topo topo;
	memset(&topo, 0, sizeof(topo));
	topo.host_bps = (uint64_t)(host_gbps * 1e9);
	topo.fabric_bps = (uint64_t)(fabric_gbps * 1e9);
	topo.mtu = (uint16_t)mtu;
	if (topo_build(&topo, topo_spec, err, sizeof(err))) {
		sc_topo_free(&topo);
		return fail("%s%s", err, "");
	}
	int rc = 2;
	for (unsigned i = 0; !no_events && named_events && i < 6 && named_events[i]; i++)
		if (sc_event_parse(named_events[i], &cfg, &topo, err, sizeof(err))) {
			fail("scenario %s: %s", cfg.name, err);
			goto out_topo;
		}
	for (unsigned i = 0; i < n_ev; i++)
		if (sc_event_parse(events[i], &cfg, &topo, err, sizeof(err))) {
			fail("%s%s", err, "");
			goto out_topo;
		}
	if (mkdir(cfg.out_dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "hopwatch-gen scenario: %s: %s\n", cfg.out_dir, strerror(errno));
		rc = 1;
		goto out_topo;
	}
	static struct sc_sim sim;
	rc = 1;
	if (sc_sim_init(&sim, &cfg, &topo)) {
		fprintf(stderr, "hopwatch-gen scenario: out of memory\n");
		goto out_sim;
	}
	if (sc_traffic_build(&sim, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-gen scenario: %s\n", err);
		rc = 2;
		goto out_sim;
	}
	if (!sc_out_open(&sim, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-gen scenario: %s\n", err);
		goto out_out;
	}
	sc_out_collector(sim.out, collector ? (const uint8_t *)&ca.s_addr : NULL, (uint16_t)dport);
	const uint64_t t0 = hw_mono_ns();
	while (sim.now < cfg.duration_ns)
		sc_sim_step(&sim);
	const double secs = (double)(hw_mono_ns() - t0) / 1e9;
	uint64_t reports, records, packets;
	sc_out_counts(sim.out, &reports, &records, &packets);
	char path[4096];
	snprintf(path, sizeof(path), "%s/truth.json", cfg.out_dir);
	if (sc_truth_write(&sim, path, reports, records, packets, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-gen scenario: %s\n", err);
		goto out_out;
	}
	int wrc = sc_out_close(sim.out);
	sim.out = NULL;
	if (wrc)
		goto out_sim;
	if (cfg.jobs && sc_jobs_write(&sim, cfg.out_dir, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-gen scenario: %s\n", err);
		goto out_sim;
	}
	if (!cfg.no_lldp && sc_lldp_write(&sim, cfg.out_dir, err, sizeof(err))) {
		fprintf(stderr, "hopwatch-gen scenario: %s\n", err);
		goto out_sim;
	}
	if (!cfg.quiet)
		fprintf(stderr,
		        "scenario %s: %u nodes, %u links, %u flows, %u events, %llu steps\n"
		        "packets %llu\nreports %llu\nrecords %llu\n"
		        "simulated %.3f ms in %.3f s: %.0f reports/s\n",
		        cfg.name, topo.n_nodes, topo.n_links, sim.n_flows, cfg.n_events,
		        (unsigned long long)(cfg.duration_ns / cfg.step_ns), (unsigned long long)packets,
		        (unsigned long long)reports, (unsigned long long)records, (double)cfg.duration_ns / 1e6, secs,
		        secs > 0 ? (double)reports / secs : 0);
	rc = 0;
	goto out_sim;
out_out:
	if (sim.out)
		sc_out_close(sim.out);
out_sim:
	sc_sim_free(&sim);
out_topo:
	sc_topo_free(&topo);
	return rc;
}
