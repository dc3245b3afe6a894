/* `hopwatch-collector diagnose`: options, the checklist and its order, the hugepages check, and
 * receiving through libpcap.  The judgements on what arrived are in diagnose_judge.c. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diagnose.h"
#include "hopwatch/pcap_input.h"

#define PROG "hopwatch-collector diagnose"

bool hw_diag_wanted(const struct hw_diag_run *run, const char *name)
{
	return hw_diag_wanted_in(&run->list, name);
}

void hw_diag_line(struct hw_diag_run *run, enum hw_diag_status st, const char *name, const char *fix, const char *fmt,
                  ...)
{
	va_list ap;
	va_start(ap, fmt);
	hw_diag_vprint(&run->list, st, name, fix, fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: hopwatch-collector diagnose [EAL options --] [options]\n"
	           "\n"
	           "Prints one line per check: PASS|SKIP|FAIL NAME: reason, and for a FAIL a 'fix:' line.\n"
	           "Checks, in order: config, hugepages, dpdk_eal, ports, link (DPDK input), reports, parse_errors,\n"
	           "report_loss, clock_skew, topology, clickhouse, alertmanager, metrics.\n"
	           "Input: DPDK ports from the EAL options (as the collector takes them), or --pcap.\n"
	           "\n"
	           "  --config FILE         the collector's JSON configuration (report ports, sinks, ...)\n"
	           "  --pcap FILE|IFACE     judge a capture file, or capture on an interface, instead of DPDK\n"
	           "  --seconds N           how long to receive on live input (default 5)\n"
	           "  --report-port PORT    UDP port of the reports (repeatable; default from --config, 32766)\n"
	           "  --profile NAME        parser profile (standard, geant)\n"
	           "  --max-error-ratio R   parse_errors FAILs above this share of packets (default 0.01)\n"
	           "  --max-loss-ratio R    report_loss FAILs when a node loses more of its reports (default 0.01)\n"
	           "  --max-skew-us US      clock_skew FAILs when consecutive hops' timestamps disagree by more\n"
	           "                        (default 100)\n"
	           "  --max-offset-ms MS    clock_skew also FAILs when timestamps that read as ns since the epoch\n"
	           "                        are further than this from this host's clock (default 1000)\n"
	           "  --lldpd-json DIR      topology: the switches' lldpcli JSON dumps (hopwatch-analyzer topology)\n"
	           "  --lldp PCAP           topology: LLDP frames from a capture file\n"
	           "  --map FILE            topology: INT node ids to names (docs/topology.md)\n"
	           "  --analyzer PATH       hopwatch-analyzer to run (default: beside this program, or in PATH)\n"
	           "  --clickhouse URL      ClickHouse HTTP URL (default: sinks.clickhouse of --config)\n"
	           "  --clickhouse-table T  table (default: sinks.clickhouse_table, or hops)\n"
	           "  --alertmanager URL    Alertmanager base URL, e.g. http://127.0.0.1:9093\n"
	           "  --metrics URL         a running collector's /metrics URL (default: from sinks.metrics)\n"
	           "  --only LIST           run only these checks (comma-separated names)\n"
	           "\n"
	           "Exit status: 0 nothing FAILed, 1 some check FAILed, 2 bad usage.\n");
}

/* ---- hugepages ---------------------------------------------------------------------------- */

/* /proc, or $HOPWATCH_PROC (tests give a made-up one). */
static const char *proc_root(void)
{
	const char *p = getenv("HOPWATCH_PROC");
	return p && *p ? p : "/proc";
}

static void check_hugepages(struct hw_diag_run *run, bool dpdk, bool no_huge)
{
	if (!dpdk) {
		hw_diag_line(run, HW_DIAG_SKIP, "hugepages", NULL, "libpcap input needs no hugepages");
		return;
	}
	if (no_huge) {
		hw_diag_line(run, HW_DIAG_SKIP, "hugepages", NULL, "the EAL options say --no-huge");
		return;
	}
	char path[PATH_MAX], line[256];
	snprintf(path, sizeof(path), "%s/meminfo", proc_root());
	FILE *f = fopen(path, "r");
	if (!f) {
		hw_diag_line(run, HW_DIAG_FAIL, "hugepages", "run on Linux with /proc mounted", "%s: %s", path,
		             strerror(errno));
		return;
	}
	long total = -1, free_ = -1, size_kb = 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "HugePages_Total: %ld", &total);
		sscanf(line, "HugePages_Free: %ld", &free_);
		sscanf(line, "Hugepagesize: %ld kB", &size_kb);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/mounts", proc_root());
	bool mounted = false;
	if ((f = fopen(path, "r"))) {
		while (fgets(line, sizeof(line), f))
			if (strstr(line, " hugetlbfs "))
				mounted = true;
		fclose(f);
	}
	if (total <= 0)
		hw_diag_line(run, HW_DIAG_FAIL, "hugepages",
		             "reserve them: echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages "
		             "(deploy/systemd/hopwatch-hugepages.service), or give the EAL --no-huge for a test",
		             "no hugepages reserved (HugePages_Total %ld in %s/meminfo)", total < 0 ? 0 : total,
		             proc_root());
	else if (free_ <= 0)
		hw_diag_line(run, HW_DIAG_FAIL, "hugepages",
		             "another DPDK process holds them (stop it, or give each a --file-prefix), or reserve more",
		             "all %ld hugepages of %ld kB are in use", total, size_kb);
	else if (!mounted)
		hw_diag_line(run, HW_DIAG_FAIL, "hugepages", "mount -t hugetlbfs nodev /dev/hugepages",
		             "%ld hugepages reserved but no hugetlbfs is mounted", total);
	else
		hw_diag_line(run, HW_DIAG_PASS, "hugepages", NULL,
		             "%ld of %ld hugepages of %ld kB free, hugetlbfs mounted", free_, total, size_kb);
}

static void on_frame(void *arg, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	struct hw_diag_run *run = arg;
	hw_worker_frame(run->w, frame, len, time_ns);
	hw_diag_drain(run);
}

static volatile int alarm_stop;
static void on_alarm(int sig)
{
	(void)sig;
	alarm_stop = 1;
}

/* Receive with libpcap: the whole file, or run->seconds of live capture.  true when it worked. */
static bool receive_pcap(struct hw_diag_run *run, const char *src)
{
	char err[512];
	if (hw_pcap_is_file(src)) {
		if (hw_pcap_read_file(src, on_frame, run, err, sizeof(err))) {
			hw_diag_line(run, HW_DIAG_FAIL, "reports", "give a readable pcap/pcapng file", "%s", err);
			return false;
		}
		return true;
	}
	char filter[512];
	size_t o = (size_t)snprintf(filter, sizeof(filter), "udp and (");
	for (unsigned i = 0; i < run->cfg->parser.n_report_ports && o < sizeof(filter); i++)
		o += (size_t)snprintf(filter + o, sizeof(filter) - o, "%sdst port %u", i ? " or " : "",
		                      run->cfg->parser.report_ports[i]);
	if (o < sizeof(filter))
		snprintf(filter + o, sizeof(filter) - o, ")");
	struct sigaction sa = {.sa_handler = on_alarm};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm_stop = 0;
	alarm((unsigned)(run->seconds + 0.999));
	uint64_t kdrops = 0;
	int rc = hw_pcap_read_live(src, filter, on_frame, NULL, run, &alarm_stop, &kdrops, err, sizeof(err));
	alarm(0);
	if (rc) {
		hw_diag_line(run, HW_DIAG_FAIL, "reports",
		             "name an existing interface (ip link), and run as root or with CAP_NET_RAW", "%s", err);
		return false;
	}
	return true;
}

/* ---- main --------------------------------------------------------------------------------- */

enum {
	D_CONFIG = 256,
	D_PCAP,
	D_SECONDS,
	D_RPORT,
	D_PROFILE,
	D_MAXERR,
	D_MAXLOSS,
	D_MAXSKEW,
	D_MAXOFF,
	D_LLDPJSON,
	D_LLDP,
	D_MAP,
	D_ANALYZER,
	D_CH,
	D_CH_TABLE,
	D_AM,
	D_METRICS,
	D_ONLY,
};

static const struct option dopts[] = {
    {"config", required_argument, 0, D_CONFIG},
    {"pcap", required_argument, 0, D_PCAP},
    {"seconds", required_argument, 0, D_SECONDS},
    {"report-port", required_argument, 0, D_RPORT},
    {"profile", required_argument, 0, D_PROFILE},
    {"max-error-ratio", required_argument, 0, D_MAXERR},
    {"max-loss-ratio", required_argument, 0, D_MAXLOSS},
    {"max-skew-us", required_argument, 0, D_MAXSKEW},
    {"max-offset-ms", required_argument, 0, D_MAXOFF},
    {"lldpd-json", required_argument, 0, D_LLDPJSON},
    {"lldp", required_argument, 0, D_LLDP},
    {"map", required_argument, 0, D_MAP},
    {"analyzer", required_argument, 0, D_ANALYZER},
    {"clickhouse", required_argument, 0, D_CH},
    {"clickhouse-table", required_argument, 0, D_CH_TABLE},
    {"alertmanager", required_argument, 0, D_AM},
    {"metrics", required_argument, 0, D_METRICS},
    {"only", required_argument, 0, D_ONLY},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

static double num_arg(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, PROG ": %s: '%s' is not a number from %g to %g\n", opt, s, lo, hi);
		exit(2);
	}
	return v;
}

/* hopwatch-analyzer: beside this program (installed), in the build tree's analyzer/, or in PATH. */
static const char *find_analyzer(const char *prog_path, char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		snprintf(self, sizeof(self), "%s", prog_path);
		n = (ssize_t)strlen(self);
	}
	self[n] = 0;
	char *slash = strrchr(self, '/');
	if (slash) {
		*slash = 0;
		snprintf(buf, len, "%s/hopwatch-analyzer", self);
		if (access(buf, X_OK) == 0)
			return buf;
		snprintf(buf, len, "%s/../analyzer/hopwatch-analyzer", self);
		if (access(buf, X_OK) == 0)
			return buf;
	}
	return "hopwatch-analyzer";
}

int hw_diagnose_main(int argc, char **argv, const char *prog_path)
{
	static struct hw_collector_config cfg;
	static struct hw_diag_run run;
	static struct hw_worker worker;
	hw_collector_config_default(&cfg);
	run.cfg = &cfg;
	run.seconds = 5;

	/* EAL options come before "--"; ours after it.  Without "--" every argument is ours. */
	int sep = 0;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			sep = i;
			break;
		}
	char **ours = sep ? argv + sep : argv;
	int n_ours = sep ? argc - sep : argc;
	bool no_huge = false;
	for (int i = 1; i < sep; i++)
		if (!strcmp(argv[i], "--no-huge"))
			no_huge = true;

	const char *config = NULL, *pcap = NULL, *ch = NULL, *ch_table = NULL, *am = NULL, *metrics = NULL;
	const char *analyzer = NULL;
	double max_err = 0.01, max_loss = 0.01, max_skew_us = 100, max_off_ms = 1000;
	char *topo_args[8] = {0};
	int nt = 0, o;
	bool ports_given = false;
	uint16_t ports[HW_MAX_PORTS];
	uint8_t n_ports = 0;
	int profile = -1;
	optind = 0;
	while ((o = getopt_long(n_ours, ours, "h", dopts, NULL)) != -1) {
		switch (o) {
		case D_CONFIG: config = optarg; break;
		case D_PCAP: pcap = optarg; break;
		case D_SECONDS: run.seconds = num_arg("--seconds", optarg, 0.1, 3600); break;
		case D_RPORT:
			if (n_ports == HW_MAX_PORTS) {
				fprintf(stderr, PROG ": --report-port: at most %d ports\n", HW_MAX_PORTS);
				return 2;
			}
			ports[n_ports++] = (uint16_t)num_arg("--report-port", optarg, 1, 65535);
			ports_given = true;
			break;
		case D_PROFILE:
			if ((profile = hw_profile_from_name(optarg)) < 0) {
				fprintf(stderr, PROG ": --profile: '%s' is not a known profile (standard, geant)\n",
				        optarg);
				return 2;
			}
			break;
		case D_MAXERR: max_err = num_arg("--max-error-ratio", optarg, 0, 1); break;
		case D_MAXLOSS: max_loss = num_arg("--max-loss-ratio", optarg, 0, 1); break;
		case D_MAXSKEW: max_skew_us = num_arg("--max-skew-us", optarg, 0, 1e9); break;
		case D_MAXOFF: max_off_ms = num_arg("--max-offset-ms", optarg, 0, 1e9); break;
		case D_LLDPJSON:
		case D_LLDP:
		case D_MAP:
			if (nt < 6) {
				topo_args[nt++] = o == D_LLDPJSON ? "--lldpd-json" : o == D_LLDP ? "--lldp" : "--map";
				topo_args[nt++] = optarg;
			}
			break;
		case D_ANALYZER: analyzer = optarg; break;
		case D_CH: ch = optarg; break;
		case D_CH_TABLE: ch_table = optarg; break;
		case D_AM: am = optarg; break;
		case D_METRICS: metrics = optarg; break;
		case D_ONLY: run.list.only = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < n_ours) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", ours[optind]);
		return 2;
	}
	if (pcap && sep) {
		fprintf(stderr, PROG ": EAL options are for DPDK input; --pcap reads with libpcap\n");
		return 2;
	}
	if (topo_args[0] && !strcmp(topo_args[0], "--map") && nt == 2) {
		fprintf(stderr, PROG ": --map needs an LLDP source (--lldpd-json DIR or --lldp PCAP)\n");
		return 2;
	}

	/* config */
	if (config) {
		char err[512];
		if (hw_collector_config_load(&cfg, config, err, sizeof(err))) {
			hw_diag_line(&run, HW_DIAG_FAIL, "config", "correct the file (docs: hopwatch-collector --help)",
			             "%s", err);
			config = NULL;
		} else {
			hw_diag_line(&run, HW_DIAG_PASS, "config", NULL, "%s loads", config);
		}
	} else {
		hw_diag_line(&run, HW_DIAG_SKIP, "config", NULL, "no --config: built-in defaults");
	}
	if (ports_given) {
		memcpy(cfg.parser.report_ports, ports, sizeof(ports));
		cfg.parser.n_report_ports = n_ports;
	}
	if (profile >= 0)
		hw_parser_config_profile(&cfg.parser, (enum hw_profile)profile);
	if (!ch)
		ch = cfg.clickhouse;
	if (!ch_table)
		ch_table = cfg.clickhouse_table;
	char murl[300];
	if (!metrics && cfg.metrics) {
		snprintf(murl, sizeof(murl), "http://%s/metrics", cfg.metrics);
		metrics = murl;
	}

	/* receive and judge */
	bool rx_checks = hw_diag_wanted(&run, "reports") || hw_diag_wanted(&run, "parse_errors") ||
	                 hw_diag_wanted(&run, "report_loss") || hw_diag_wanted(&run, "clock_skew") ||
	                 hw_diag_wanted(&run, "topology") || hw_diag_wanted(&run, "dpdk_eal") ||
	                 hw_diag_wanted(&run, "ports") || hw_diag_wanted(&run, "link");
	check_hugepages(&run, !pcap, no_huge);
	char records_path[] = "/tmp/hopwatch-diagnose-XXXXXX";
	int rfd = -1;
	if (topo_args[0] && (rfd = mkstemp(records_path)) >= 0)
		run.records_json = fdopen(rfd, "w");
	bool received = false;
	if (rx_checks && hw_worker_init(&worker, 0, &cfg.parser, &cfg.sizes, true, false) == 0) {
		run.w = &worker;
		if (pcap) {
			hw_diag_line(&run, HW_DIAG_SKIP, "dpdk_eal", NULL, "libpcap input (--pcap %s)", pcap);
			hw_diag_line(&run, HW_DIAG_SKIP, "ports", NULL, "libpcap input");
			hw_diag_line(&run, HW_DIAG_SKIP, "link", NULL, "libpcap input");
			received = receive_pcap(&run, pcap);
		} else {
			char *eal[64];
			int ne = 0;
			eal[ne++] = (char *)prog_path;
			for (int i = 1; i < sep && ne < 63; i++)
				eal[ne++] = argv[i];
			eal[ne] = NULL;
			received = hw_diag_dpdk(&run, ne, eal);
		}
		hw_worker_flush(&worker);
		hw_diag_drain(&run);
		if (run.records_json)
			fflush(run.records_json);
		char where[300];
		snprintf(where, sizeof(where), "%s", pcap ? pcap : "the DPDK ports");
		if (received) {
			hw_diag_reports(&run, where);
			hw_diag_parse_errors(&run, max_err);
			hw_diag_report_loss(&run, max_loss);
			hw_diag_clock_skew(&run, max_skew_us * 1000, max_off_ms * 1e6);
			char abuf[PATH_MAX];
			if (!topo_args[0])
				hw_diag_line(&run, HW_DIAG_SKIP, "topology", NULL,
				             "no LLDP source given (--lldpd-json DIR or --lldp PCAP)");
			else if (!run.records)
				hw_diag_line(&run, HW_DIAG_SKIP, "topology", NULL, "no hop records to place");
			else
				hw_diag_topology(&run.list, "topology",
				                 analyzer ? analyzer : find_analyzer(prog_path, abuf, sizeof(abuf)),
				                 topo_args, records_path);
		} else {
			static const char *const later[] = {"parse_errors", "report_loss", "clock_skew", "topology"};
			for (unsigned i = 0; i < 4; i++)
				hw_diag_line(&run, HW_DIAG_SKIP, later[i], NULL, "nothing was received");
		}
	}
	if (run.records_json) {
		fclose(run.records_json);
		unlink(records_path);
	}

	/* the peers */
	if (ch)
		hw_diag_clickhouse(&run.list, ch, ch_table);
	else
		hw_diag_line(&run, HW_DIAG_SKIP, "clickhouse", NULL,
		             "no ClickHouse sink configured (--clickhouse URL)");
	if (am)
		hw_diag_alertmanager(&run.list, am);
	else
		hw_diag_line(&run, HW_DIAG_SKIP, "alertmanager", NULL, "no --alertmanager URL given");
	if (metrics)
		hw_diag_metrics(&run.list, metrics, "hopwatch_collector_packets_total", "collector");
	else
		hw_diag_line(&run, HW_DIAG_SKIP, "metrics", NULL,
		             "no /metrics configured (--metrics URL or sinks.metrics)");
	printf("diagnose: %u FAIL\n", run.list.fails);
	return run.list.fails ? 1 : 0;
}
