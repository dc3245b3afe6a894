/* Command line of `hopwatch-gen reports`: its option table (defaults, ranges, --help; options.h) and the
 * checks between options.  Every bad option is reported with its name and what is wrong (exit status 2). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen.h"
#include "hopwatch/wire.h"
#include "options.h"

/* Parsed options: the generator's configuration first (the table's offsets into it are the same for a bare
 * struct gen_cfg, which gen_cfg_default fills from the rows' defaults), then what is checked after parsing. */
struct gen_opts {
	struct gen_cfg c;
	struct gen_paths paths;
	const char *rep_md_arg, *instr_arg;
	uint8_t wanted[GEN_M_COUNT]; /* --malform: 1 named, 2 by 'all' */
};

static const struct hw_opts_spec spec;

void gen_cfg_default(struct gen_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->int_ver = GEN_INT_V21;
	c->instructions = GEN_I_NODE | GEN_I_PORTS | GEN_I_LATENCY | GEN_I_QUEUE | GEN_I_IG_TS | GEN_I_EG_TS;
	c->rep_md = GEN_R_PORTS | GEN_R_LATENCY | GEN_R_QUEUE | GEN_R_IG_TS | GEN_R_EG_TS;
	c->src_port = -1;
	c->sender_net[0] = 10, c->sender_net[1] = 1;
	hw_opts_defaults(&spec, c); /* only rows of struct gen_cfg have a default */
}

static int fail(const char *opt, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hopwatch-gen: --%s: ", opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int num(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return fail(opt, "'%s' is not a non-negative integer", s);
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return fail(opt, "'%s' is not a non-negative integer", s);
	if (v < lo || v > hi)
		return fail(opt, "%llu is out of range (%llu to %llu)", v, (unsigned long long)lo,
		            (unsigned long long)hi);
	*out = v;
	return 0;
}

struct name_bit {
	const char *name;
	uint16_t bit;
};

static int bit_list(const char *opt, const char *s, const struct name_bit *names, uint16_t *out)
{
	char buf[256];
	uint16_t v = 0;
	if (!strcmp(s, "none")) {
		*out = 0;
		return 0;
	}
	if (s[0] >= '0' && s[0] <= '9') {
		uint64_t n = 0;
		if (num(opt, s, 0, 0xffff, &n))
			return 2;
		*out = (uint16_t)n;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return fail(opt, "list too long");
	strcpy(buf, s);
	for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct name_bit *n = names;
		while (n->name && strcmp(n->name, t))
			n++;
		if (!n->name) {
			char known[256] = "";
			for (n = names; n->name; n++) {
				strcat(known, known[0] ? "," : "");
				strcat(known, n->name);
			}
			return fail(opt, "unknown name '%s' (known: %s)", t, known);
		}
		v |= n->bit;
	}
	*out = v;
	return 0;
}

static const struct name_bit instr_names[] = {{"node", GEN_I_NODE},
                                              {"ports", GEN_I_PORTS},
                                              {"latency", GEN_I_LATENCY},
                                              {"queue", GEN_I_QUEUE},
                                              {"ig_ts", GEN_I_IG_TS},
                                              {"eg_ts", GEN_I_EG_TS},
                                              {"l2_ports", GEN_I_L2_PORTS},
                                              {"tx_util", GEN_I_TX_UTIL},
                                              {"buffer", GEN_I_BUFFER},
                                              {"checksum", GEN_I_CHECKSUM},
                                              {NULL, 0}};
static const struct name_bit rep2_names[] = {{"ports", GEN_R_PORTS},     {"latency", GEN_R_LATENCY},
                                             {"queue", GEN_R_QUEUE},     {"ig_ts", GEN_R_IG_TS},
                                             {"eg_ts", GEN_R_EG_TS},     {"l2_ports", GEN_R_L2_PORTS},
                                             {"tx_util", GEN_R_TX_UTIL}, {"buffer", GEN_R_BUFFER},
                                             {"drop", GEN_R_DROP},       {NULL, 0}};
static const struct name_bit rep1_names[] = {{"ports", GEN_R1_PORTS},
                                             {"latency", GEN_R1_LATENCY},
                                             {"queue", GEN_R1_QUEUE},
                                             {"eg_ts", GEN_R1_EG_TS},
                                             {"drop", GEN_R1_DROP},
                                             {"tx_util", GEN_R1_TX_UTIL},
                                             {NULL, 0}};

/* --hops N or MIN-MAX */
static int parse_hops(const char *s, void *field, char *want, size_t wantlen)
{
	struct gen_cfg *c = field;
	char *end;
	unsigned long a = strtoul(s, &end, 10), b = a;
	if (end != s && *end == '-') {
		const char *m = end + 1;
		b = strtoul(m, &end, 10);
		if (end == m)
			end = (char *)"x";
	}
	if (end == s || *end || s[0] == '-' || a > GEN_MAX_HOPS || b > GEN_MAX_HOPS || a > b) {
		snprintf(want, wantlen, "N or MIN-MAX (0 to %d hops, MIN <= MAX)", GEN_MAX_HOPS);
		return -1;
	}
	c->hops_min = (uint8_t)a;
	c->hops = (uint8_t)b;
	return 0;
}

/* --malform KIND[:RATE] */
static int parse_malform(const char *s, void *field, char *want, size_t wantlen)
{
	struct gen_opts *o = field;
	char kind[64];
	double rate = 0.05;
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	char *end = NULL;
	if (colon)
		rate = strtod(colon + 1, &end);
	if (n >= sizeof(kind) || (colon && (end == colon + 1 || *end || !(rate > 0 && rate <= 1))))
		goto bad;
	memcpy(kind, s, n);
	kind[n] = 0;
	if (!strcmp(kind, "all")) {
		for (unsigned k = 1; k < GEN_M_COUNT; k++)
			if (o->wanted[k] != 1) {
				o->c.malform_rate[k] = rate;
				o->wanted[k] = 2; /* kinds that do not apply are skipped */
			}
		return 0;
	}
	for (unsigned k = 1; k < GEN_M_COUNT; k++)
		if (!strcmp(kind, gen_malform_name(k))) {
			o->c.malform_rate[k] = rate;
			o->wanted[k] = 1;
			return 0;
		}
bad:
	snprintf(want, wantlen,
	         "KIND[:RATE], KIND one of truncate, report-length, shim-length, hops, report-version, int-version, "
	         "bitmap, ip-header-length, udp-length, all, RATE a fraction above 0 and at most 1");
	return -1;
}

/* --clock-skew NODE:NS */
static int parse_skew(const char *s, void *field, char *want, size_t wantlen)
{
	struct gen_cfg *c = field;
	char *end;
	unsigned long node = strtoul(s, &end, 10);
	long long ns = *end == ':' ? strtoll(end + 1, &end, 10) : 0;
	if (!node || node > 65535 || *end || !strchr(s, ':') || ns <= -(1ll << 40) || ns >= 1ll << 40) {
		snprintf(want, wantlen, "NODE:NS (a node id and a skew in ns, |NS| < 2^40)");
		return -1;
	}
	c->skew_node = (uint32_t)node;
	c->skew_ns = ns;
	return 0;
}

static int parse_ip4(const char *s, void *field, char *want, size_t wantlen)
{
	if (inet_pton(AF_INET, s, field) == 1)
		return 0;
	snprintf(want, wantlen, "an IPv4 address");
	return -1;
}

static int parse_preset(const char *s, void *field, char *want, size_t wantlen)
{
	if (strcmp(s, "hopwatch-p4")) {
		snprintf(want, wantlen, "a known preset (hopwatch-p4)");
		return -1;
	}
	*(uint8_t *)field = 1;
	return 0;
}

/* --geant-tail on|off into geant_no_tail */
static int parse_tail(const char *s, void *field, char *want, size_t wantlen)
{
	if (strcmp(s, "on") && strcmp(s, "off")) {
		snprintf(want, wantlen, "\"on\" or \"off\"");
		return -1;
	}
	*(uint8_t *)field = !strcmp(s, "off");
	return 0;
}

static const char *const formats[] = {"tr2.0", "tr1.0", "tr0.5", "int", NULL};
static const char *const versions[] = {"none", "0.5", "1.0", "2.1", NULL};
static const char *const encaps[] = {"l4", "vxlan-gpe", "geneve", NULL};
static const char *const detects[] = {"dscp", "port", NULL};
static const char *const l4s[] = {"udp", "tcp", "mix", NULL};
static const char *const ips[] = {"4", "6", "mix", NULL};
static const char *const in_types[] = {"eth", "ip", NULL};
static const char *const profiles[] = {"standard", "geant", NULL};
static const char *const sink_mds[] = {"report", "stack", NULL};
static const char *const hop_mls[] = {"instructions", "words", NULL};
static const char *const flow_paths[] = {"random", "stable", NULL};

#define G struct gen_opts

static const struct hw_opt rows[] = {
    {HW_OPT_GROUP, .help = "Output:"},
    {HW_OPT_STRING, "out", .metavar = "FILE", HW_OPT_AT(G, paths.out), .help = "pcap file to write (required)"},
    {HW_OPT_STRING, "truth", .metavar = "FILE", HW_OPT_AT(G, paths.truth),
     .help = "JSON lines of the expected records (time_ns = pcap timestamp)"},
    {HW_OPT_STRING, "summary", .metavar = "FILE", HW_OPT_AT(G, paths.summary),
     .help = "JSON counts (packets, reports, records, malformed per kind);\n"
             "the same counts always go to stderr"},
    {HW_OPT_GROUP, .help = "Report format:"},
    {HW_OPT_ENUM, "format", .metavar = "F", HW_OPT_AT(G, c.format), .names = formats, .def = "tr2.0",
     .help = "tr2.0 | tr1.0 | tr0.5 (fabric-tna) | int (bare INT-MD data\n"
             "packets as a sink receives them, no report)"},
    {HW_OPT_UINT, "count", .metavar = "N", HW_OPT_AT(G, c.count), .hi = 4000000000u, .def = "1000",
     .help = "reports to write; for int: packets"},
    {HW_OPT_UINT, "coalesce", .metavar = "K", HW_OPT_AT(G, c.coalesce), .lo = 1, .hi = GEN_MAX_COALESCE, .def = "1",
     .help = "tr2.0: individual reports per packet"},
    {HW_OPT_UINT, "mtu", .metavar = "N", HW_OPT_AT(G, c.mtu), .lo = 128, .hi = GEN_MAX_FRAME, .def = "1500",
     .help = "tr2.0: close a coalesced packet before the frame exceeds N bytes"},
    {HW_OPT_FLAG, "last-len-ff", HW_OPT_AT(G, c.last_len_ff),
     .help = "tr2.0: the last report of each packet says report_length 0xFF"},
    {HW_OPT_STRING, "rep-md", .metavar = "LIST", HW_OPT_AT(G, rep_md_arg),
     .help = "reporting node's metadata, comma-separated names or a number:\n"
             "tr2.0: ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,drop\n"
             "(default ports,latency,queue,ig_ts,eg_ts)\n"
             "tr1.0: ports,latency,queue,eg_ts,drop,tx_util (default ports,latency,\n"
             "queue,eg_ts); 'drop' makes every report a drop report; 'none' = empty"},
    {HW_OPT_ENUM, "in-type", .metavar = "T", HW_OPT_AT(G, c.in_type), .names = in_types, .def = "ip",
     .help = "tr2.0/tr1.0 inner packet starts with: ip (IPv4 or IPv6 by\n"
             "flow) | eth.  tr0.5 always carries Ethernet."},
    {HW_OPT_DOUBLE, "drop-rate", .metavar = "P", HW_OPT_AT(G, c.drop_rate), .hi = 1, .def = "0",
     .help = "fraction of drop reports (D flag + queue id/drop reason; tr0.5: drop\nheader, nproto 1)"},
    {HW_OPT_DOUBLE, "intermediate-rate", .metavar = "P", HW_OPT_AT(G, c.intermediate_rate), .hi = 1, .def = "0",
     .help = "tr2.0: fraction of reports with the I flag"},
    {HW_OPT_UINT, "congest-threshold", .metavar = "N", HW_OPT_AT(G, c.congest_threshold), .hi = 0xffffff,
     .def = "100000", .help = "Q flag when the reporting hop's queue occupancy >= N"},
    {HW_OPT_ENUM, "sink-md", .metavar = "WHERE", HW_OPT_AT(G, c.sink_md_stack), .names = sink_mds, .def = "report",
     .help = "tr2.0: where the reporting node puts its own metadata: report\n"
             "(RepMdBits) | stack (pushed onto the embedded stack as the\n"
             "newest hop; RepMdBits only has the drop bit of drop reports)"},
    {HW_OPT_GROUP, .help = "Embedded INT-MD stack (inside the reported packet, or the bare packet):"},
    {HW_OPT_ENUM, "int-version", .metavar = "V", HW_OPT_AT(G, c.int_ver), .names = versions,
     .def_note = "2.1 for tr2.0/int, 1.0 for tr1.0, none for tr0.5",
     .help = "2.1 | 1.0 | 0.5 | none; none = postcard reports"},
    {HW_OPT_CUSTOM, "hops", .metavar = "N|MIN-MAX", HW_OPT_AT(G, c), .parse = parse_hops, .what = "N or MIN-MAX",
     .def = "3",
     .help = "hops in the stack, 0-64; a range gives each flow its\n"
             "own path length in it.  0 hops = no INT headers (postcard)"},
    {HW_OPT_STRING, "instructions", .metavar = "LIST", HW_OPT_AT(G, instr_arg),
     .def_note = "node,ports,latency,queue,ig_ts,eg_ts",
     .help = "node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,checksum\n"
             "or a number.  Widths follow the version: v2.1 8-byte timestamps, v1.0/v0.5 4-byte;\n"
             "v1.0 has no buffer, v0.5 no l2_ports/buffer/checksum"},
    {HW_OPT_ENUM, "encap", .metavar = "E", HW_OPT_AT(G, c.encap), .names = encaps, .def = "l4",
     .help = "l4 (INT after the UDP/TCP header) | vxlan-gpe (UDP 4790) |\n"
             "geneve (UDP 6081, option class 0x0103)"},
    {HW_OPT_ENUM, "int-detect", .metavar = "D", HW_OPT_AT(G, c.detect), .names = detects, .def = "dscp",
     .help = "l4 encap: dscp (IP DSCP = --int-dscp, original DSCP in the\n"
             "shim) | port (UDP dport = --int-port; v2.1 NPT=1 keeps the original\n"
             "port in the shim, v0.5 in the tail; UDP only)"},
    {HW_OPT_UINT, "int-dscp", .metavar = "V", HW_OPT_AT(G, c.int_dscp), .lo = 1, .hi = 63, .def = "0x17",
     .help = "DSCP that marks INT (geant: 0x20 = TOS 0x80)"},
    {HW_OPT_UINT, "int-port", .metavar = "P", HW_OPT_AT(G, c.int_port), .lo = 1, .hi = 65535, .def = "5000",
     .help = "UDP port that announces INT with --int-detect port"},
    {HW_OPT_DOUBLE, "unavailable-rate", .metavar = "P", HW_OPT_AT(G, c.unavailable_rate), .hi = 1, .def = "0",
     .help = "fraction of stack values written as all ones (omitted from truth)"},
    {HW_OPT_ENUM, "profile", .metavar = "P", HW_OPT_AT(G, c.profile), .names = profiles, .def = "standard",
     .help = "standard | geant: GEANT int-platform's v1.0-style shim whose\n"
             "length counts shim+MD+stack+tail, little-endian bitmap, 8-byte\n"
             "timestamps, 16-bit L2 ports, hop_ml = instruction count, TOS 0x80"},
    {HW_OPT_CUSTOM, "geant-tail", .metavar = "on|off", HW_OPT_AT(G, c.geant_no_tail), .parse = parse_tail,
     .what = "on or off", .def_note = "on",
     .help = "geant: write the 4-byte tail (on as 2601_double_header.pcap;\noff as my.pcap)"},
    {HW_OPT_ENUM, "geant-hop-ml", .metavar = "M", HW_OPT_AT(G, c.geant_hop_ml_words), .names = hop_mls,
     .def = "instructions", .help = "geant: hop_ml = instructions | words (the true hop size)"},
    {HW_OPT_GROUP, .help = "Inner flows:"},
    {HW_OPT_UINT, "flows", .metavar = "N", HW_OPT_AT(G, c.flows), .lo = 1, .hi = 1000000, .def = "64",
     .help = "distinct flows"},
    {HW_OPT_ENUM, "flow-paths", .metavar = "M", HW_OPT_AT(G, c.stable_paths), .names = flow_paths, .def = "random",
     .help = "random: each packet from a random sender, so most reports show the\n"
             "flow on a new path (unit tests) | stable: each flow keeps its sink\n"
             "(flow index mod --nodes) and its path, rerouted at --path-change-rate\n"
             "(a realistic benchmark input)"},
    {HW_OPT_DOUBLE, "path-change-rate", .metavar = "P", HW_OPT_AT(G, c.path_change_rate), .hi = 1, .def = "0",
     .help = "--flow-paths stable: fraction of reports on which the flow is rerouted\n"
             "(new transit hops, new ingress port at the sink)"},
    {HW_OPT_DOUBLE, "burst-rate", .metavar = "P", HW_OPT_AT(G, c.burst_rate), .hi = 1, .def = "0.0625",
     .help = "fraction of hops whose queue is in a burst (occupancy up to 400,000\n"
             "instead of below 2,000)"},
    {HW_OPT_UINT, "queues", .metavar = "N", HW_OPT_AT(G, c.queues), .hi = 1u << 20, .def = "0",
     .help = "egress queues (node, port, queue id) in the fabric, shared evenly by\n"
             "the nodes (8 queue ids per port); 0 = each flow's own port and queue\n"
             "id at each node (up to 48 x 8 per node)"},
    {HW_OPT_ENUM, "l4", .metavar = "L", HW_OPT_AT(G, c.l4), .names = l4s, .def = "udp", .help = "udp | tcp | mix"},
    {HW_OPT_ENUM, "ip", .metavar = "V", HW_OPT_AT(G, c.ipver), .names = ips, .def = "4", .help = "4 | 6 | mix"},
    {HW_OPT_FLAG, "roce", HW_OPT_AT(G, c.roce),
     .help = "UDP flows are RoCEv2 (dport 4791) with a BTH (opcode, dest QP)"},
    {HW_OPT_DOUBLE, "cnp-rate", .metavar = "P", HW_OPT_AT(G, c.cnp_rate), .hi = 1, .def = "0",
     .help = "--roce: fraction of packets that are CNPs (opcode 0x81)"},
    {HW_OPT_UINT, "payload", .metavar = "N", HW_OPT_AT(G, c.payload), .hi = 1500, .def = "16",
     .help = "L4 payload bytes after INT carried in the packet"},
    {HW_OPT_UINT, "orig-payload", .metavar = "N", HW_OPT_AT(G, c.orig_payload), .hi = 9000, .def = "1000",
     .help = "payload length the reported (truncated) packet's IP/UDP lengths\nclaim"},
    {HW_OPT_GROUP, .help = "Fabric and time:"},
    {HW_OPT_UINT, "nodes", .metavar = "N", HW_OPT_AT(G, c.nodes), .lo = 1, .hi = GEN_MAX_NODES, .def = "8",
     .help = "switches; node ids are 1..N"},
    {HW_OPT_UINT, "hw-ids", .metavar = "N", HW_OPT_AT(G, c.hw_ids), .lo = 1, .hi = 64, .def = "1",
     .help = "hardware ids per node"},
    {HW_OPT_UINT, "seed", .metavar = "S", HW_OPT_AT(G, c.seed), .hi = 18446744073709551615.0, .def = "1",
     .help = "random seed"},
    {HW_OPT_UINT, "seq-start", .metavar = "N", HW_OPT_AT(G, c.seq_start), .hi = 0xffffffffu, .def = "0",
     .help = "first sequence number of every sender (tr2.0 wraps at 2^22)"},
    {HW_OPT_UINT, "seq-gap-every", .metavar = "N", HW_OPT_AT(G, c.seq_gap_every), .hi = 0xffffffffu, .def = "0",
     .help = "skip one sequence number every N reports of a sender (0 = off)"},
    {HW_OPT_UINT, "epoch-ns", .metavar = "NS", HW_OPT_AT(G, c.epoch_ns), .hi = 4e18, .def = "1767225600000000000",
     .help = "first pcap timestamp, ns since 1970 (the default is 2026-01-01T00:00:00Z)"},
    {HW_OPT_UINT, "interval-ns", .metavar = "NS", HW_OPT_AT(G, c.interval_ns), .lo = 1, .hi = 3600e9, .def = "1000",
     .help = "time between packets"},
    {HW_OPT_UINT, "dev-clock-start", .metavar = "NS", HW_OPT_AT(G, c.dev_clock_start), .hi = 4611686018427387904.0,
     .def = "4292967296",
     .help = "device clocks start here (+ per-node offset < 200 ns); the default\n"
             "2^32 - 2 ms makes 32-bit timestamps wrap early in the run"},
    {HW_OPT_CUSTOM, "clock-skew", .metavar = "NODE:NS", HW_OPT_AT(G, c), .parse = parse_skew, .what = "NODE:NS",
     .help = "node NODE's device clock is NS ns off (may be negative): a switch\n"
             "that lost clock synchronisation"},
    {HW_OPT_GROUP, .help = "Addresses:"},
    {HW_OPT_CUSTOM, "collector", .metavar = "A.B.C.D", HW_OPT_AT(G, c.collector_ip), .parse = parse_ip4,
     .what = "IPv4 address", .def = "10.0.0.100", .help = "report destination; senders are 10.1.x.y"},
    {HW_OPT_UINT, "dst-port", .metavar = "P", HW_OPT_AT(G, c.dst_port), .lo = 1, .hi = 65535, .def = "32766",
     .help = "report UDP destination port"},
    {HW_OPT_UINT, "src-port", .metavar = "P", HW_OPT_AT(G, c.src_port), .hi = 65535,
     .def_note = "0 for tr0.5, 49152 + node otherwise", .help = "report UDP source port"},
    {HW_OPT_GROUP, .help = "Malformed packets (no truth records; counted on stderr and in --summary):"},
    {HW_OPT_CUSTOM, "malform", .metavar = "KIND[:RATE]", HW_OPT_AT(G, c), .parse = parse_malform, .what = "KIND[:RATE]",
     .help = "repeatable; RATE = fraction of packets (default 0.05; for all:\n"
             "shared among the kinds that apply).  KIND:\n"
             "truncate, report-length, shim-length, hops, report-version,\n"
             "int-version, bitmap, ip-header-length, udp-length, or all"},
    {HW_OPT_GROUP, .help = "Preset:"},
    {HW_OPT_CUSTOM, "preset", .metavar = "hopwatch-p4", HW_OPT_AT(G, c.p4), .parse = parse_preset,
     .what = "hopwatch-p4",
     .help = "exactly what p4/hopwatch_v1model.p4 sends (p4/README.md, 'What the\n"
             "collector receives') on the line of p4/cli/: s1 source, s2.. transit,\n"
             "last switch sink (--nodes 2-9, default 3), ports 1 -> 2.  TR v2.0, one\n"
             "report per datagram, in_type 4, RepMdBits 0x7C00 (drops 0x4801), inner\n"
             "IPv4 cut to min(length, 512) in whole words, INT v2.1 NPT 0, DSCP\n"
             "0x17, bitmap 0xFC00, 8 hops at the source; sink INT reports (F), queue\n"
             "reports (Q F; depth >= --congest-threshold, default 20, quota 64,\n"
             "re-armed below 5, ECN CE), drop reports (D F, --drop-rate; reasons\n"
             "29, 26); microsecond timestamps; report from 10.0.0.<node>, MAC\n"
             "00:00:0a:00:<node>:03, UDP 50000+<node> (or --src-port) to --collector\n"
             "(10.0.0.100, MAC 00:00:00:00:00:64), ID 0, TTL 64, DF, UDP checksum 0;\n"
             "RoCEv2 flows 10.0.1.1 -> 10.0.2.2:4791, --payload 12-1200 (default 22).\n"
             "Options that the program fixes are refused with it"},
    {HW_OPT_END},
};

static unsigned char given[sizeof(rows) / sizeof(rows[0])];

static const struct hw_opts_spec spec = {
    .prog = "hopwatch-gen",
    .synopsis = "usage: hopwatch-gen reports [options] --out FILE.pcap [--truth FILE.jsonl] [--summary FILE.json]\n"
                "       hopwatch-gen scenario NAME --out DIR [options]   (simulated fabric; scenario --help)\n"
                "       hopwatch-gen send --pcap FILE --iface IFACE [...] (transmit a capture; send --help)\n",
    .intro = "Writes a pcap (Ethernet, nanosecond timestamps) of INT telemetry reports to a collector and,\n"
             "with --truth, one JSON line per hop record a collector should decode (docs/records.md keys).\n"
             "Same options and seed give byte-identical files.\n",
    .rows = rows,
    .given = given,
};

void gen_usage(FILE *f)
{
	hw_opts_help(&spec, f);
}

/* --preset hopwatch-p4: what the program fixes cannot be chosen; what its configuration leaves
 * open takes the values of p4/cli/ unless given. */
static int preset_p4(struct gen_cfg *c)
{
	static const struct {
		const char *opt;
		const char *what;
	} fixed[] = {
	    {"format", "TR v2.0"},
	    {"coalesce", "one report per datagram"},
	    {"mtu", "one report per datagram"},
	    {"last-len-ff", "report_length is always the true length"},
	    {"rep-md", "RepMdBits 0x7C00 (0x4801 for drops)"},
	    {"in-type", "in_type 4 (IPv4)"},
	    {"intermediate-rate", "I = 0"},
	    {"sink-md", "the sink's metadata in the report"},
	    {"int-version", "INT v2.1"},
	    {"hops", "the line: --nodes - 1 hops at the sink"},
	    {"instructions", "bitmap 0xFC00"},
	    {"encap", "INT over UDP/TCP"},
	    {"int-detect", "DSCP (int_source_dscp in p4/cli)"},
	    {"int-dscp", "HW_INT_DSCP 0x17"},
	    {"int-port", "DSCP (int_source_dscp in p4/cli)"},
	    {"unavailable-rate", "every value available"},
	    {"profile", "the standard profile"},
	    {"geant-tail", "the standard profile"},
	    {"geant-hop-ml", "the standard profile"},
	    {"l4", "RoCEv2 over UDP (the first watchlist entry of p4/cli)"},
	    {"ip", "IPv4"},
	    {"orig-payload", "the inner packet is cut at 512 B, its lengths are the true ones"},
	    {"hw-ids", "one hw_id per switch (0)"},
	    {"malform", "no malformed reports"},
	    {"flow-paths", "the line's one path"},
	    {"path-change-rate", "the line's one path"},
	    {"queues", "ports 1 -> 2, queue 0"},
	    {"burst-rate", "its own queue model (depths from the simulated line)"},
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (hw_opts_given(&spec, fixed[i].opt))
			return fail(fixed[i].opt, "not with --preset hopwatch-p4 (the program sends %s)",
			            fixed[i].what);
	c->format = GEN_FMT_TR20;
	c->coalesce = 1;
	c->rep_md = GEN_P4_REP_MD;
	c->in_type = GEN_IN_IP;
	c->int_ver = GEN_INT_V21;
	c->instructions = GEN_I_NODE | GEN_I_PORTS | GEN_I_LATENCY | GEN_I_QUEUE | GEN_I_IG_TS | GEN_I_EG_TS;
	c->encap = GEN_ENCAP_L4;
	c->detect = GEN_DETECT_DSCP;
	c->int_dscp = 0x17;
	c->profile = HW_PROFILE_STANDARD;
	c->l4 = GEN_L4_UDP;
	c->ipver = GEN_IP4;
	c->roce = 1;
	c->hw_ids = 1;
	if (!hw_opts_given(&spec, "nodes"))
		c->nodes = 3;
	if (c->nodes < 2 || c->nodes > GEN_P4_MAX_NODES)
		return fail("nodes", "--preset hopwatch-p4 runs a line of 2 to %u switches (source .. sink)",
		            GEN_P4_MAX_NODES);
	c->hops = c->hops_min = (uint8_t)(c->nodes - 1);
	if (!hw_opts_given(&spec, "payload"))
		c->payload = 22; /* BTH + "payload-N." as in tests/p4/data */
	if (c->payload < 12 || c->payload > GEN_P4_MAX_PAYLOAD)
		return fail("payload", "--preset hopwatch-p4: 12 (the BTH) to %u bytes (no M flag at a 1500 B MTU)",
		            GEN_P4_MAX_PAYLOAD);
	c->orig_payload = c->payload;
	if (!hw_opts_given(&spec, "congest-threshold"))
		c->congest_threshold = 20; /* set_queue_thresholds 2 0 => 20 ... */
	if (!hw_opts_given(&spec, "collector"))
		c->collector_ip[0] = 10, c->collector_ip[1] = 0, c->collector_ip[2] = 0, c->collector_ip[3] = 100;
	c->sender_net[0] = 10, c->sender_net[1] = 0, c->sender_net[2] = 0, c->sender_net[3] = 0; /* 10.0.0.<node> */
	return 0;
}

int gen_parse_args(int argc, char **argv, struct gen_cfg *c, struct gen_paths *paths)
{
	static struct gen_opts op;
	memset(&op, 0, sizeof(op));
	op.c = *c;
	int e = hw_opts_parse(&spec, &op, argc, argv, NULL);
	if (e)
		return e == HW_OPTS_HELP ? 1 : 2;
	*c = op.c;
	*paths = op.paths;
	const char *rep_md_arg = op.rep_md_arg, *instr_arg = op.instr_arg;
	const uint8_t *wanted = op.wanted;
	int int_ver_set = hw_opts_given(&spec, "int-version"), int_dscp_set = hw_opts_given(&spec, "int-dscp");
	int in_type_set = hw_opts_given(&spec, "in-type");
	const char *geant_opt = hw_opts_given(&spec, "geant-tail")     ? "geant-tail"
	                        : hw_opts_given(&spec, "geant-hop-ml") ? "geant-hop-ml"
	                                                               : NULL;
	if (!paths->out)
		return fail("out", "is required");
	if (c->p4 && (e = preset_p4(c)))
		return e;

	/* defaults that depend on the format and profile */
	if (!int_ver_set)
		c->int_ver = c->format == GEN_FMT_TR10   ? GEN_INT_V10
		             : c->format == GEN_FMT_TR05 ? GEN_INT_NONE
		                                         : GEN_INT_V21;
	if (geant_opt && c->profile != HW_PROFILE_GEANT)
		return fail(geant_opt, "needs --profile geant");
	if (c->profile == HW_PROFILE_GEANT) {
		if (int_ver_set && c->int_ver != GEN_INT_V10)
			return fail("profile", "geant writes v1.0-style stacks; drop --int-version or use 1.0");
		c->int_ver = GEN_INT_V10;
		if (!int_dscp_set)
			c->int_dscp = 0x20;
		if (!instr_arg)
			c->instructions = GEN_I_NODE | GEN_I_PORTS | GEN_I_IG_TS | GEN_I_EG_TS;
		if (c->encap != GEN_ENCAP_L4)
			return fail("profile", "geant carries INT over TCP/UDP only (not --encap %s)",
			            c->encap == GEN_ENCAP_GENEVE ? "geneve" : "vxlan-gpe");
		if (c->detect != GEN_DETECT_DSCP)
			return fail("profile", "geant marks INT with the DSCP (TOS 0x80), not a port");
	}
	if (c->format == GEN_FMT_TR10 && !rep_md_arg)
		c->rep_md = GEN_R1_PORTS | GEN_R1_LATENCY | GEN_R1_QUEUE | GEN_R1_EG_TS;
	if (instr_arg && bit_list("instructions", instr_arg, instr_names, &c->instructions))
		return 2;
	if (rep_md_arg) {
		if (c->format == GEN_FMT_TR05 || c->format == GEN_FMT_INT)
			return fail("rep-md", "only tr2.0 and tr1.0 carry selectable report metadata");
		if (bit_list("rep-md", rep_md_arg, c->format == GEN_FMT_TR20 ? rep2_names : rep1_names, &c->rep_md))
			return 2;
		uint16_t drop = c->format == GEN_FMT_TR20 ? GEN_R_DROP : GEN_R1_DROP;
		uint16_t known = c->format == GEN_FMT_TR20 ? 0x7f81 : 0x3f;
		if (c->rep_md & ~known)
			return fail("rep-md", "0x%x has reserved bits set (allowed 0x%x)", c->rep_md, known);
		if (c->rep_md & drop) {
			c->rep_md &= (uint16_t)~drop;
			c->drop_rate = 1;
		}
	}
	if (c->format == GEN_FMT_TR05 && in_type_set && c->in_type != GEN_IN_ETH)
		return fail("in-type", "tr0.5 reports always carry an Ethernet frame");
	if (c->format == GEN_FMT_TR05)
		c->in_type = GEN_IN_ETH;
	if (c->coalesce > 1 && c->format != GEN_FMT_TR20)
		return fail("coalesce", "only tr2.0 coalesces reports");
	if (c->last_len_ff && c->format != GEN_FMT_TR20)
		return fail("last-len-ff", "only tr2.0 has a report_length field with 0xFF");
	if (c->intermediate_rate > 0 && c->format != GEN_FMT_TR20)
		return fail("intermediate-rate", "only tr2.0 has the I flag");
	if (c->format == GEN_FMT_INT && (c->int_ver == GEN_INT_NONE || c->hops_min == 0))
		return fail(
		    "format",
		    "int writes bare INT-MD packets: needs --int-version 2.1|1.0|0.5 and at least 1 hop (--hops)");
	if (c->sink_md_stack) {
		if (c->format != GEN_FMT_TR20 || c->int_ver == GEN_INT_NONE)
			return fail("sink-md", "stack needs --format tr2.0 with an INT stack (--int-version)");
		if (!(c->instructions & GEN_I_NODE))
			return fail("sink-md", "stack needs the node instruction so the sink's entry names it");
		if (c->hops + 1 > GEN_MAX_HOPS)
			return fail("sink-md", "stack adds the sink's hop: --hops must be below %d", GEN_MAX_HOPS);
		if (rep_md_arg)
			return fail("rep-md", "with --sink-md stack the report carries no metadata of its own");
	}
	if (c->path_change_rate > 0 && !c->stable_paths)
		return fail("path-change-rate", "needs --flow-paths stable (random paths change on most reports)");
	if (c->queues && c->queues < c->nodes)
		return fail("queues", "%u queues for %u nodes: each node needs at least one", c->queues, c->nodes);
	if (c->queues && (c->queues + c->nodes - 1) / c->nodes > 8u * 65534u)
		return fail("queues", "%u queues on %u nodes need more than 65534 ports of 8 queues per node",
		            c->queues, c->nodes);
	if (c->format == GEN_FMT_INT && c->drop_rate > 0)
		return fail("drop-rate", "bare INT packets are not reports");

	/* instruction bits by version */
	uint16_t allowed = 0xff81; /* v2.1 */
	const char *vname = "2.1";
	if (c->profile == HW_PROFILE_GEANT)
		allowed = 0xff00, vname = "geant";
	else if (c->int_ver == GEN_INT_V10)
		allowed = 0xff01, vname = "1.0";
	else if (c->int_ver == GEN_INT_V05)
		allowed = 0xfd00, vname = "0.5";
	if (c->int_ver != GEN_INT_NONE && (c->instructions & ~allowed))
		return fail("instructions", "0x%04x has bits INT %s does not define here (allowed 0x%04x)",
		            c->instructions, vname, allowed);
	if (c->int_ver != GEN_INT_NONE && c->hops && !c->instructions)
		return fail("instructions", "an INT stack needs at least one instruction");
	unsigned hw = gen_int_hop_words(c->instructions, c->int_ver, c->profile);
	if (hw > 31)
		return fail("instructions", "%u words per hop do not fit hop_ml (max 31)", hw);
	if (c->int_ver != GEN_INT_NONE) {
		unsigned md = c->int_ver == GEN_INT_V21 ? 3 : 2;
		unsigned words = md + (c->hops + c->sink_md_stack) * hw;
		if (c->encap == GEN_ENCAP_GENEVE && words > 31)
			return fail("hops", "%u hops of %u words need %u words, more than a Geneve option holds (31)",
			            c->hops, hw, words);
		if (words + 2 > 255)
			return fail("hops", "%u hops of %u words do not fit the 8-bit shim length", c->hops, hw);
	}
	if (c->detect == GEN_DETECT_PORT) {
		if (c->int_ver != GEN_INT_V21 && c->int_ver != GEN_INT_V05)
			return fail("int-detect", "port detection needs --int-version 2.1 (NPT=1) or 0.5 (tail)");
		if (c->l4 != GEN_L4_UDP)
			return fail("int-detect", "port detection keeps the original UDP port: needs --l4 udp");
		if (c->encap != GEN_ENCAP_L4)
			return fail("int-detect", "tunnels announce INT in their own headers; use --encap l4");
	}
	if (c->roce && c->l4 == GEN_L4_TCP)
		return fail("roce", "RoCEv2 runs over UDP: use --l4 udp or mix");
	if (c->cnp_rate > 0 && !c->roce)
		return fail("cnp-rate", "needs --roce");
	if (c->orig_payload < c->payload)
		c->orig_payload = c->payload;
	for (unsigned k = 1; k < GEN_M_COUNT; k++) {
		if (!wanted[k])
			continue;
		const char *why = gen_malform_unsupported(c, k);
		if (k == GEN_M_BITMAP && c->profile == HW_PROFILE_GEANT)
			why = "geant hop sizes come from the bitmap, so a larger bitmap can still parse";
		if (why && wanted[k] == 1)
			return fail("malform", "%s: %s", gen_malform_name(k), why);
		if (why)
			c->malform_rate[k] = 0;
		else
			c->malform_any = 1;
	}
	/* 'all' shares its rate among the kinds that apply (kinds named on their own keep theirs) */
	unsigned n_all = 0;
	for (unsigned k = 1; k < GEN_M_COUNT; k++)
		n_all += wanted[k] == 2 && c->malform_rate[k] > 0;
	for (unsigned k = 1; k < GEN_M_COUNT; k++)
		if (wanted[k] == 2 && n_all)
			c->malform_rate[k] /= n_all;
	return 0;
}
