/* `hopwatch-gen scenario`: the command line, then build the fabric, run the time steps and write
 * reports.pcap, records.jsonl, lldp.pcap, lldp/NAME.json, map.json and truth.json into --out. */
#include <stdarg.h>
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clock.h"
#include "scen.h"

static void usage(FILE *f)
{
	fputs("usage: hopwatch-gen scenario NAME|custom --out DIR [options]\n"
	      "\n"
	      "Simulates a RoCEv2 fabric in time steps and writes what its collector would receive, with the truth:\n"
	      "  DIR/reports.pcap    INT reports (Ethernet/IPv4/UDP to the collector, nanosecond timestamps)\n"
	      "  DIR/records.jsonl   with --records: the hop records a collector decodes from reports.pcap\n"
	      "  DIR/lldp.pcap       every node's LLDP frames on every link (SLL2, one interface index per link)\n"
	      "  DIR/lldp/NAME.json  one `lldpcli -f json0` dump per node (chassis + neighbours, end of run)\n"
	      "  DIR/map.json        hopwatch-analyzer --map: INT port N = EthernetN, tiers\n"
	      "  DIR/truth.json      topology, injected events, flows and their paths, per-queue peaks\n"
	      "Same options and seed give identical files.\n"
	      "\n"
	      "Scenario and fabric:\n"
	      "  NAME                 a named scenario (--list), or 'custom' (no events, background traffic)\n"
	      "  --list               print the named scenarios and exit\n"
	      "  --topology T         leaf-spine:SPINES,LEAVES,HOSTS_PER_LEAF | fat-tree:K (even K, 2-22)\n"
	      "  --host-gbps G        host link speed (default 100)\n"
	      "  --fabric-gbps G      switch-to-switch link speed (default 400)\n"
	      "  --mtu N              fabric maximum frame size (default 9216)\n"
	      "  --event SPEC         add an event (repeatable): KIND:key=value,...  KIND and keys:\n"
	      "                       incast|microburst: dst=HOST senders=N gbps=G start_us= dur_us=\n"
	      "                       link-down: link=NODE:PORT start_us= dur_us=\n"
	      "                       pfc-storm: host=HOST senders=N gbps=G start_us= dur_us=\n"
	      "                       dscp-misconfig: host=HOST start_us= dur_us=\n"
	      "                       report-loss: node=SWITCH fraction=F start_us= dur_us=\n"
	      "                       mtu-mismatch: link=NODE:PORT mtu=N (that port's side) start_us= dur_us=\n"
	      "                       PORT is EthernetN or N; hosts' port is eth0\n"
	      "  --no-events          the named scenario's fabric and traffic without its events\n"
	      "  --load F             background RoCE flow per host, fraction of its link (default per scenario)\n"
	      "  --tcp-load F         background TCP flow per host, fraction of its link\n"
	      "Time and queues:\n"
	      "  --duration-us N      simulated time (default 5000)\n"
	      "  --step-ns N          time step (default 1000)\n"
	      "  --ecn-kb N           ECN marking threshold (default 100)\n"
	      "  --xoff-kb N          PFC Xoff per ingress port and priority (default 400); --xon-kb (300)\n"
	      "  --buffer-kb N        lossy queue buffer (default 1024); lossless queues hold 8192\n"
	      "  --base-latency-ns N  hop latency without queueing (default 600)\n"
	      "Reports:\n"
	      "  --format F           tr2.0 (default; INT-MD v2.1 stack) | tr1.0 (INT v1.0 stack) |\n"
	      "                       tr0.5 (fabric-tna postcards from every hop)\n"
	      "  --sample N           one sink report per N delivered packets of a flow (default 100)\n"
	      "  --drop-sample N      one drop report per N dropped packets (default 10)\n"
	      "  --cnp-sample N       one report per N CNPs of a flow (default 1: every CNP)\n"
	      "  --queue-report-kb N  queue reports above this occupancy (default 200), at most one per queue\n"
	      "  --queue-report-us N  per this interval (default 10)\n"
	      "  --collector A.B.C.D  report destination (default 10.0.0.100), --dst-port P (32766)\n"
	      "  --records            also write records.jsonl\n"
	      "  --no-lldp            skip the LLDP outputs (benchmarks)\n"
	      "  --seed S             random seed (default 1); --epoch-ns NS start time (2026-01-01)\n"
	      "  --quiet              no summary on stderr\n",
	      f);
}

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

static int num(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		char range[96];
		snprintf(range, sizeof(range), "%g to %g", lo, hi);
		fprintf(stderr, "hopwatch-gen scenario: --%s: '%s' is not a number from %s\n", opt, s, range);
		return -1;
	}
	*out = v;
	return 0;
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

enum {
	O_OUT = 256,
	O_LIST,
	O_TOPO,
	O_HOST,
	O_FABRIC,
	O_MTU,
	O_EVENT,
	O_NOEV,
	O_LOAD,
	O_TCPLOAD,
	O_DUR,
	O_STEP,
	O_ECN,
	O_XOFF,
	O_XON,
	O_BUF,
	O_BASE,
	O_FORMAT,
	O_SAMPLE,
	O_DSAMPLE,
	O_CSAMPLE,
	O_QKB,
	O_QUS,
	O_COLL,
	O_DPORT,
	O_RECORDS,
	O_NOLLDP,
	O_SEED,
	O_EPOCH,
	O_QUIET,
	O_HELP
};

int sc_main(int argc, char **argv)
{
	static const struct option opts[] = {{"out", 1, 0, O_OUT},
	                                     {"list", 0, 0, O_LIST},
	                                     {"topology", 1, 0, O_TOPO},
	                                     {"host-gbps", 1, 0, O_HOST},
	                                     {"fabric-gbps", 1, 0, O_FABRIC},
	                                     {"mtu", 1, 0, O_MTU},
	                                     {"event", 1, 0, O_EVENT},
	                                     {"no-events", 0, 0, O_NOEV},
	                                     {"load", 1, 0, O_LOAD},
	                                     {"tcp-load", 1, 0, O_TCPLOAD},
	                                     {"duration-us", 1, 0, O_DUR},
	                                     {"step-ns", 1, 0, O_STEP},
	                                     {"ecn-kb", 1, 0, O_ECN},
	                                     {"xoff-kb", 1, 0, O_XOFF},
	                                     {"xon-kb", 1, 0, O_XON},
	                                     {"buffer-kb", 1, 0, O_BUF},
	                                     {"base-latency-ns", 1, 0, O_BASE},
	                                     {"format", 1, 0, O_FORMAT},
	                                     {"sample", 1, 0, O_SAMPLE},
	                                     {"drop-sample", 1, 0, O_DSAMPLE},
	                                     {"cnp-sample", 1, 0, O_CSAMPLE},
	                                     {"queue-report-kb", 1, 0, O_QKB},
	                                     {"queue-report-us", 1, 0, O_QUS},
	                                     {"collector", 1, 0, O_COLL},
	                                     {"dst-port", 1, 0, O_DPORT},
	                                     {"records", 0, 0, O_RECORDS},
	                                     {"no-lldp", 0, 0, O_NOLLDP},
	                                     {"seed", 1, 0, O_SEED},
	                                     {"epoch-ns", 1, 0, O_EPOCH},
	                                     {"quiet", 0, 0, O_QUIET},
	                                     {"help", 0, 0, O_HELP},
	                                     {0, 0, 0, 0}};
	static struct sc_cfg cfg;
	sc_cfg_default(&cfg);
	const char *topo_spec = NULL, *events[SC_MAX_EVENTS], *collector = NULL;
	unsigned n_ev = 0;
	int no_events = 0, list = 0;
	double host_gbps = 100, fabric_gbps = 400, mtu = 9216, load = -1, tcp_load = -1, x, dport = 32766;
	double dur_set = -1;
	optind = 1;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int r = 0;
		switch (o) {
		case O_OUT: cfg.out_dir = optarg; break;
		case O_LIST: list = 1; break;
		case O_TOPO: topo_spec = optarg; break;
		case O_HOST: r = num("host-gbps", optarg, 0.001, 1e5, &host_gbps); break;
		case O_FABRIC: r = num("fabric-gbps", optarg, 0.001, 1e5, &fabric_gbps); break;
		case O_MTU: r = num("mtu", optarg, 1280, 65535, &mtu); break;
		case O_EVENT:
			if (n_ev == SC_MAX_EVENTS)
				return fail("--event %s: too many events (32 at most)%s", optarg, "");
			events[n_ev++] = optarg;
			break;
		case O_NOEV: no_events = 1; break;
		case O_LOAD: r = num("load", optarg, 0, 1, &load); break;
		case O_TCPLOAD: r = num("tcp-load", optarg, 0, 1, &tcp_load); break;
		case O_DUR: r = num("duration-us", optarg, 1, 1e8, &dur_set); break;
		case O_STEP:
			r = num("step-ns", optarg, 10, 1e6, &x);
			cfg.step_ns = (uint64_t)x;
			break;
		case O_ECN: r = num("ecn-kb", optarg, 0, 1e5, &x), cfg.ecn_bytes = x * 1e3; break;
		case O_XOFF: r = num("xoff-kb", optarg, 1, 1e5, &x), cfg.xoff_bytes = x * 1e3; break;
		case O_XON: r = num("xon-kb", optarg, 0, 1e5, &x), cfg.xon_bytes = x * 1e3; break;
		case O_BUF: r = num("buffer-kb", optarg, 1, 16383, &x), cfg.lossy_buffer = x * 1e3; break;
		case O_BASE: r = num("base-latency-ns", optarg, 0, 1e6, &x), cfg.base_latency_ns = (uint32_t)x; break;
		case O_FORMAT:
			if (!strcmp(optarg, "tr2.0"))
				cfg.format = GEN_FMT_TR20;
			else if (!strcmp(optarg, "tr1.0"))
				cfg.format = GEN_FMT_TR10;
			else if (!strcmp(optarg, "tr0.5"))
				cfg.format = GEN_FMT_TR05;
			else
				return fail("--format %s: not tr2.0, tr1.0 or tr0.5%s", optarg, "");
			break;
		case O_SAMPLE: r = num("sample", optarg, 1, 1e9, &x), cfg.sample = (uint32_t)x; break;
		case O_CSAMPLE: r = num("cnp-sample", optarg, 1, 1e9, &x), cfg.cnp_sample = (uint32_t)x; break;
		case O_DSAMPLE: r = num("drop-sample", optarg, 1, 1e9, &x), cfg.drop_sample = (uint32_t)x; break;
		case O_QKB: r = num("queue-report-kb", optarg, 0, 16383, &x), cfg.qreport_bytes = x * 1e3; break;
		case O_QUS:
			r = num("queue-report-us", optarg, 0.001, 1e6, &x), cfg.queue_report_ns = (uint32_t)(x * 1e3);
			break;
		case O_COLL: collector = optarg; break;
		case O_DPORT: r = num("dst-port", optarg, 1, 65535, &dport); break;
		case O_RECORDS: cfg.records = 1; break;
		case O_NOLLDP: cfg.no_lldp = 1; break;
		case O_SEED: r = num("seed", optarg, 0, 1.8e19, &x), cfg.seed = strtoull(optarg, NULL, 0); break;
		case O_EPOCH:
			r = num("epoch-ns", optarg, 1e6, 1.8e19, &x), cfg.epoch_ns = strtoull(optarg, NULL, 0);
			break;
		case O_QUIET: cfg.quiet = 1; break;
		case O_HELP: usage(stdout); return 0;
		default: return 2;
		}
		if (r)
			return 2;
	}
	if (list) {
		printf("named scenarios (hopwatch-gen scenario NAME --out DIR):\n");
		sc_named_list(stdout);
		return 0;
	}
	if (optind != argc - 1)
		return fail("%s%s",
		            optind >= argc ? "a scenario name is required (see --list)" : "one scenario name only", "");
	cfg.name = argv[optind];
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
