/* hopwatch-collector: decode INT telemetry reports into per-hop records.
 * This front end reads capture files with libpcap and writes JSON lines plus end-of-run counts. */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hopwatch/pcap_input.h"
#include "hopwatch/record_json.h"
#include "hopwatch/wire.h"

#define PROG "hopwatch-collector"
enum { MAX_RECS = 1024, MAX_REPS = 256 };

struct run {
	struct hw_parser_config cfg;
	FILE *json;
	uint64_t packets, reports, records;
	uint64_t by_result[HW_RESULT_COUNT];
	struct hw_record recs[MAX_RECS];
	struct hw_report reps[MAX_REPS];
	char line[HW_RECORD_JSON_MAX];
};

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: " PROG " --pcap FILE [--json OUT] [options]\n"
	        "\n"
	        "Decode INT telemetry reports (Telemetry Report v0.5/v1.0/v2.0, with embedded INT-MD v0.5/v1.0/v2.1\n"
	        "stacks) and bare INT-MD data packets into one record per hop (docs/records.md).\n"
	        "\n"
	        "Input:\n"
	        "  --pcap FILE          read frames from a capture file (pcap or pcapng, Ethernet)\n"
	        "Output:\n"
	        "  --json OUT           write one JSON object per hop record to OUT ('-' = standard output)\n"
	        "                       At the end, counts of packets, reports, records and each reason a\n"
	        "                       packet was not decoded are printed on standard error.\n"
	        "Detection:\n"
	        "  --report-port PORT   UDP destination port of telemetry reports; repeat for several\n"
	        "                       (default 32766)\n"
	        "  --int-dscp VAL/MASK  INT-MD over TCP/UDP is present when (DSCP & MASK) == VAL\n"
	        "                       (default 0x17/0x3f; 0/0 turns DSCP detection off)\n"
	        "  --int-port PORT      UDP destination port that announces an INT shim (INT v2.1 NPT=1); repeatable\n"
	        "  --profile NAME       vendor profile: standard (default) or geant (GEANT int-platform:\n"
	        "                       64-bit timestamps in a v1.0 stack, little-endian bitmap, DSCP 0x20/0x20)\n"
	        "  --no-bare-int        do not search frames that are not reports for INT-MD stacks\n"
	        "  --max-hops N         reject stacks of more than N hops (default 64)\n"
	        "\n"
	        "  -h, --help           this text\n"
	        "\n"
	        "Exit status: 0 ok, 1 input could not be read, 2 bad usage.\n");
}

static void die_usage(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, PROG ": %s: '%s' is not %s (see --help)\n", opt, val, want);
	exit(2);
}

static unsigned long parse_num(const char *opt, const char *s, unsigned long lo, unsigned long hi, const char *want)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
		die_usage(opt, s, want);
	return v;
}

static void on_frame(void *arg, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	struct run *r = arg;
	struct hw_parse_out out = {.recs = r->recs, .rec_cap = MAX_RECS, .reps = r->reps, .rep_cap = MAX_REPS};
	enum hw_result res = hw_parse_frame(&r->cfg, frame, len, time_ns, &out);
	r->packets++;
	r->by_result[res]++;
	if (res != HW_OK)
		return;
	r->reports += out.n_reps;
	r->records += out.n_recs;
	if (r->json)
		for (uint32_t i = 0; i < out.n_recs; i++)
			fwrite(r->line, 1, hw_record_json(&r->recs[i], r->line), r->json);
}

int main(int argc, char **argv)
{
	static struct run run;
	const char *pcap_path = NULL, *json_path = NULL;
	bool ports_given = false, dscp_given = false;
	uint8_t dscp = 0, dscp_mask = 0;
	hw_parser_config_default(&run.cfg);

	enum { O_PCAP = 256, O_JSON, O_RPORT, O_DSCP, O_IPORT, O_PROFILE, O_NOBARE, O_MAXHOPS };
	static const struct option opts[] = {
	    {"pcap", required_argument, 0, O_PCAP},
	    {"json", required_argument, 0, O_JSON},
	    {"report-port", required_argument, 0, O_RPORT},
	    {"int-dscp", required_argument, 0, O_DSCP},
	    {"int-port", required_argument, 0, O_IPORT},
	    {"profile", required_argument, 0, O_PROFILE},
	    {"no-bare-int", no_argument, 0, O_NOBARE},
	    {"max-hops", required_argument, 0, O_MAXHOPS},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	int o;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case O_PCAP: pcap_path = optarg; break;
		case O_JSON: json_path = optarg; break;
		case O_RPORT:
			if (!ports_given)
				run.cfg.n_report_ports = 0;
			ports_given = true;
			if (run.cfg.n_report_ports == HW_MAX_PORTS)
				die_usage("--report-port", optarg, "accepted: at most 8 report ports");
			run.cfg.report_ports[run.cfg.n_report_ports++] =
			    (uint16_t)parse_num("--report-port", optarg, 1, 65535, "a UDP port (1-65535)");
			break;
		case O_DSCP: {
			char buf[64];
			snprintf(buf, sizeof(buf), "%s", optarg);
			char *slash = strchr(buf, '/');
			if (!slash)
				die_usage("--int-dscp", optarg, "VALUE/MASK, e.g. 0x17/0x3f");
			*slash = 0;
			dscp = (uint8_t)parse_num("--int-dscp", buf, 0, 63, "a DSCP value (0-63)");
			dscp_mask = (uint8_t)parse_num("--int-dscp", slash + 1, 0, 63, "a DSCP mask (0-63)");
			dscp_given = true;
			break;
		}
		case O_IPORT:
			if (run.cfg.n_int_ports == HW_MAX_PORTS)
				die_usage("--int-port", optarg, "accepted: at most 8 INT ports");
			run.cfg.int_ports[run.cfg.n_int_ports++] =
			    (uint16_t)parse_num("--int-port", optarg, 1, 65535, "a UDP port (1-65535)");
			break;
		case O_PROFILE: {
			int p = hw_profile_from_name(optarg);
			if (p < 0)
				die_usage("--profile", optarg, "a known profile (standard, geant)");
			hw_parser_config_profile(&run.cfg, (enum hw_profile)p);
			break;
		}
		case O_NOBARE: run.cfg.bare_int = 0; break;
		case O_MAXHOPS:
			run.cfg.max_hops = (uint8_t)parse_num("--max-hops", optarg, 1, 255, "a hop count (1-255)");
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (dscp_given) { /* an explicit --int-dscp wins over a profile's default */
		run.cfg.int_dscp = dscp;
		run.cfg.int_dscp_mask = dscp_mask;
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (!pcap_path) {
		fprintf(stderr, PROG ": no input: give --pcap FILE (see --help)\n");
		return 2;
	}
	if (json_path) {
		run.json = strcmp(json_path, "-") ? fopen(json_path, "w") : stdout;
		if (!run.json) {
			fprintf(stderr, PROG ": %s: cannot open for writing: %s\n", json_path, strerror(errno));
			return 1;
		}
		setvbuf(run.json, NULL, _IOFBF, 1 << 20);
	}

	char err[512];
	int rc = hw_pcap_read_file(pcap_path, on_frame, &run, err, sizeof(err));
	if (rc)
		fprintf(stderr, PROG ": %s\n", err);
	if (run.json && (fflush(run.json) || (run.json != stdout && fclose(run.json)))) {
		fprintf(stderr, PROG ": %s: write failed: %s\n", json_path, strerror(errno));
		rc = -1;
	}
	fprintf(stderr, "packets %llu\nreports %llu\nrecords %llu\n", (unsigned long long)run.packets,
	        (unsigned long long)run.reports, (unsigned long long)run.records);
	for (int i = HW_NOT_REPORT; i < HW_RESULT_COUNT; i++)
		if (i == HW_NOT_REPORT || run.by_result[i])
			fprintf(stderr, "%s %llu\n", hw_result_name((enum hw_result)i),
			        (unsigned long long)run.by_result[i]);
	return rc ? 1 : 0;
}
