/* `hopwatch-collector diagnose`: options, the checklist and its order, the hugepages check, and
 * receiving through libpcap.  The judgements on what arrived are in diagnose_judge.c. */
#include <errno.h>
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
		if (hw_pcap_read_file(src, on_frame, run, NULL, err, sizeof(err))) {
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
	struct hw_pcap_live live = {.filter = filter, .frame = on_frame, .arg = run, .stop = &alarm_stop};
	int rc = hw_pcap_read_live(src, &live, err, sizeof(err));
	alarm(0);
	if (rc) {
		hw_diag_line(run, HW_DIAG_FAIL, "reports",
		             "name an existing interface (ip link), and run as root or with CAP_NET_RAW", "%s", err);
		return false;
	}
	return true;
}

/* ---- main --------------------------------------------------------------------------------- */

#define MAX_LLDP 3

struct diag_opts {
	const char *config, *pcap, *analyzer, *ch, *ch_table, *am, *metrics, *only, *map;
	double seconds, max_err, max_loss, max_skew_us, max_off_ms;
	uint16_t ports[HW_MAX_PORTS];
	uint8_t n_ports;
	int profile; /* -1: none given */
	const char *lldpd_json[MAX_LLDP], *lldp[MAX_LLDP];
	int n_lldpd_json, n_lldp;
};

#define D struct diag_opts

static const char *const profiles[] = {"standard", "geant", NULL};

static const struct hw_opt diag_rows[] = {
    {HW_OPT_STRING, "config", .metavar = "FILE", HW_OPT_AT(D, config),
     .help = "the collector's JSON configuration (report ports, sinks, ...)"},
    {HW_OPT_STRING, "pcap", .metavar = "FILE|IFACE", HW_OPT_AT(D, pcap),
     .help = "judge a capture file, or capture on an interface, instead of DPDK"},
    {HW_OPT_DURATION, "seconds", .metavar = "N", HW_OPT_AT(D, seconds), .lo = 0.1, .hi = 3600, .def = "5",
     .help = "how long to receive on live input"},
    {HW_OPT_LIST, "report-port", .metavar = "PORT", HW_OPT_LIST_AT(D, ports, n_ports), .elem = HW_OPT_UINT, .lo = 1,
     .hi = 65535, .what = "port", .def_note = "from --config, 32766", .help = "UDP port of the reports"},
    {HW_OPT_ENUM, "profile", .metavar = "NAME", HW_OPT_AT(D, profile), .names = profiles,
     .help = "parser profile (standard, geant)"},
    {HW_OPT_DOUBLE, "max-error-ratio", .metavar = "R", HW_OPT_AT(D, max_err), .hi = 1, .def = "0.01",
     .help = "parse_errors FAILs above this share of packets"},
    {HW_OPT_DOUBLE, "max-loss-ratio", .metavar = "R", HW_OPT_AT(D, max_loss), .hi = 1, .def = "0.01",
     .help = "report_loss FAILs when a node loses more of its reports"},
    {HW_OPT_DOUBLE, "max-skew-us", .metavar = "US", HW_OPT_AT(D, max_skew_us), .hi = 1e9, .def = "100",
     .help = "clock_skew FAILs when consecutive hops' timestamps disagree by more"},
    {HW_OPT_DOUBLE, "max-offset-ms", .metavar = "MS", HW_OPT_AT(D, max_off_ms), .hi = 1e9, .def = "1000",
     .help = "clock_skew also FAILs when timestamps that read as ns since the epoch\n"
             "are further than this from this host's clock"},
    {HW_OPT_LIST, "lldpd-json", .metavar = "DIR", HW_OPT_LIST_AT(D, lldpd_json, n_lldpd_json), .elem = HW_OPT_STRING,
     .what = "LLDP source", .help = "topology: the switches' lldpcli JSON dumps (hopwatch-analyzer topology)"},
    {HW_OPT_LIST, "lldp", .metavar = "PCAP", HW_OPT_LIST_AT(D, lldp, n_lldp), .elem = HW_OPT_STRING,
     .what = "LLDP source", .help = "topology: LLDP frames from a capture file"},
    {HW_OPT_STRING, "map", .metavar = "FILE", HW_OPT_AT(D, map),
     .help = "topology: INT node ids to names (docs/topology.md)"},
    {HW_OPT_STRING, "analyzer", .metavar = "PATH", HW_OPT_AT(D, analyzer),
     .def_note = "beside this program, or in PATH", .help = "hopwatch-analyzer to run"},
    {HW_OPT_STRING, "clickhouse", .metavar = "URL", HW_OPT_AT(D, ch), .def_note = "sinks.clickhouse of --config",
     .help = "ClickHouse HTTP URL"},
    {HW_OPT_STRING, "clickhouse-table", .metavar = "T", HW_OPT_AT(D, ch_table),
     .def_note = "sinks.clickhouse_table, or hops", .help = "table"},
    {HW_OPT_STRING, "alertmanager", .metavar = "URL", HW_OPT_AT(D, am),
     .help = "Alertmanager base URL, e.g. http://127.0.0.1:9093"},
    {HW_OPT_STRING, "metrics", .metavar = "URL", HW_OPT_AT(D, metrics), .def_note = "from sinks.metrics",
     .help = "a running collector's /metrics URL"},
    {HW_OPT_STRING, "only", .metavar = "LIST", HW_OPT_AT(D, only),
     .help = "run only these checks (comma-separated names)"},
    {HW_OPT_END},
};

static const struct hw_opts_spec diag_spec = {
    .prog = PROG,
    .synopsis = "Usage: hopwatch-collector diagnose [EAL options --] [options]\n",
    .intro = "Prints one line per check: PASS|SKIP|FAIL NAME: reason, and for a FAIL a 'fix:' line.\n"
             "Checks, in order: config, hugepages, dpdk_eal, ports, link (DPDK input), reports, parse_errors,\n"
             "report_loss, clock_skew, topology, clickhouse, alertmanager, metrics.\n"
             "Input: DPDK ports from the EAL options (as the collector takes them), or --pcap.\n",
    .epilog = "Exit status: 0 nothing FAILed, 1 some check FAILed, 2 bad usage.\n",
    .rows = diag_rows,
};

/* hopwatch-analyzer: beside this program (installed), where this build put it (HW_BUILD_ANALYZER, from
 * meson), or in PATH. */
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
	}
	if (access(HW_BUILD_ANALYZER, X_OK) == 0)
		return HW_BUILD_ANALYZER;
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

	static struct diag_opts o;
	memset(&o, 0, sizeof(o));
	o.profile = -1;
	if (hw_opts_defaults(&diag_spec, &o))
		return 2;
	int prc = hw_opts_parse(&diag_spec, &o, n_ours, ours, NULL);
	if (prc)
		return prc == HW_OPTS_HELP ? 0 : 2;
	run.seconds = o.seconds;
	run.list.only = o.only;
	const char *config = o.config, *pcap = o.pcap, *ch = o.ch, *ch_table = o.ch_table, *am = o.am;
	const char *metrics = o.metrics;
	if (o.n_lldp + o.n_lldpd_json > MAX_LLDP) {
		fprintf(stderr, PROG ": at most %d LLDP sources (see --help)\n", MAX_LLDP);
		return 2;
	}
	char *topo_args[2 * MAX_LLDP + 3] = {0};
	if (hw_diag_topo_args(topo_args, o.lldp, o.n_lldp, o.lldpd_json, o.n_lldpd_json, o.map) < 0) {
		fprintf(stderr, PROG ": --map needs an LLDP source (--lldpd-json DIR or --lldp PCAP)\n");
		return 2;
	}
	if (pcap && sep) {
		fprintf(stderr, PROG ": EAL options are for DPDK input; --pcap reads with libpcap\n");
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
	if (o.n_ports) {
		memcpy(cfg.parser.report_ports, o.ports, sizeof(o.ports));
		cfg.parser.n_report_ports = o.n_ports;
	}
	if (o.profile >= 0)
		hw_parser_config_profile(&cfg.parser, (enum hw_profile)o.profile);
	if (!ch)
		ch = cfg.n_clickhouse ? cfg.clickhouse[0] : NULL; /* its first replica */
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
			hw_diag_parse_errors(&run, o.max_err);
			hw_diag_report_loss(&run, o.max_loss);
			hw_diag_clock_skew(&run, o.max_skew_us * 1000, o.max_off_ms * 1e6);
			char abuf[PATH_MAX];
			if (!topo_args[0])
				hw_diag_line(&run, HW_DIAG_SKIP, "topology", NULL,
				             "no LLDP source given (--lldpd-json DIR or --lldp PCAP)");
			else if (!run.records)
				hw_diag_line(&run, HW_DIAG_SKIP, "topology", NULL, "no hop records to place");
			else
				hw_diag_topology(&run.list, "topology",
				                 o.analyzer ? o.analyzer : find_analyzer(prog_path, abuf, sizeof(abuf)),
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
