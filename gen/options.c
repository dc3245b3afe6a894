/* Command line of `hopwatch-gen reports`: defaults, parsing, checks and --help.
 * Every bad option is reported with its name and what is wrong (exit status 2). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen.h"
#include "hopwatch/wire.h"

void gen_cfg_default(struct gen_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->format = GEN_FMT_TR20;
	c->int_ver = GEN_INT_V21;
	c->profile = HW_PROFILE_STANDARD;
	c->encap = GEN_ENCAP_L4;
	c->detect = GEN_DETECT_DSCP;
	c->l4 = GEN_L4_UDP;
	c->ipver = GEN_IP4;
	c->in_type = GEN_IN_IP;
	c->int_dscp = 0x17;
	c->hops = 3;
	c->hops_min = 3;
	c->coalesce = 1;
	c->instructions = GEN_I_NODE | GEN_I_PORTS | GEN_I_LATENCY | GEN_I_QUEUE | GEN_I_IG_TS | GEN_I_EG_TS;
	c->rep_md = GEN_R_PORTS | GEN_R_LATENCY | GEN_R_QUEUE | GEN_R_IG_TS | GEN_R_EG_TS;
	c->int_port = 5000;
	c->dst_port = 32766;
	c->src_port = -1;
	c->payload = 16;
	c->orig_payload = 1000;
	c->mtu = 1500;
	c->collector_ip[0] = 10, c->collector_ip[3] = 100;
	c->sender_net[0] = 10, c->sender_net[1] = 1;
	c->count = 1000;
	c->flows = 64;
	c->nodes = 8;
	c->hw_ids = 1;
	c->congest_threshold = 100000;
	c->seed = 1;
	c->epoch_ns = 1767225600ull * 1000000000ull; /* 2026-01-01T00:00:00Z */
	c->interval_ns = 1000;
	c->dev_clock_start = 4294967296ull - 2000000ull; /* 32-bit device clocks wrap 2 ms in */
}

void gen_usage(FILE *f)
{
	fputs("usage: hopwatch-gen reports [options] --out FILE.pcap [--truth FILE.jsonl] [--summary FILE.json]\n"
	      "       hopwatch-gen scenario NAME --out DIR [options]   (simulated fabric; scenario --help)\n"
	      "       hopwatch-gen send --pcap FILE --iface IFACE [...] (transmit a capture; send --help)\n"
	      "\n"
	      "Writes a pcap (Ethernet, nanosecond timestamps) of INT telemetry reports to a collector and,\n"
	      "with --truth, one JSON line per hop record a collector should decode (docs/records.md keys).\n"
	      "Same options and seed give byte-identical files.\n"
	      "\n"
	      "Output:\n"
	      "  --out FILE            pcap file to write (required)\n"
	      "  --truth FILE          JSON lines of the expected records (time_ns = pcap timestamp)\n"
	      "  --summary FILE        JSON counts (packets, reports, records, malformed per kind);\n"
	      "                        the same counts always go to stderr\n"
	      "Report format:\n"
	      "  --format F            tr2.0 (default) | tr1.0 | tr0.5 (fabric-tna) | int (bare INT-MD data\n"
	      "                        packets as a sink receives them, no report)\n"
	      "  --count N             reports to write (default 1000); for int: packets\n"
	      "  --coalesce K          tr2.0: individual reports per packet, 1-64 (default 1)\n"
	      "  --mtu N               tr2.0: close a coalesced packet before the frame exceeds N bytes (1500)\n"
	      "  --last-len-ff         tr2.0: the last report of each packet says report_length 0xFF\n"
	      "  --rep-md LIST         reporting node's metadata, comma-separated names or a number:\n"
	      "                        tr2.0: ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,drop\n"
	      "                        (default ports,latency,queue,ig_ts,eg_ts)\n"
	      "                        tr1.0: ports,latency,queue,eg_ts,drop,tx_util (default ports,latency,\n"
	      "                        queue,eg_ts); 'drop' makes every report a drop report; 'none' = empty\n"
	      "  --in-type T           tr2.0/tr1.0 inner packet starts with: ip (default; IPv4 or IPv6 by\n"
	      "                        flow) | eth.  tr0.5 always carries Ethernet.\n"
	      "  --drop-rate P         fraction of drop reports (D flag + queue id/drop reason; tr0.5: drop\n"
	      "                        header, nproto 1) (default 0)\n"
	      "  --intermediate-rate P tr2.0: fraction of reports with the I flag (default 0)\n"
	      "  --congest-threshold N Q flag when the reporting hop's queue occupancy >= N (100000)\n"
	      "  --sink-md WHERE       tr2.0: where the reporting node puts its own metadata: report\n"
	      "                        (default; RepMdBits) | stack (pushed onto the embedded stack as the\n"
	      "                        newest hop; RepMdBits only has the drop bit of drop reports)\n"
	      "Embedded INT-MD stack (inside the reported packet, or the bare packet):\n"
	      "  --int-version V       2.1 | 1.0 | 0.5 | none (default: 2.1 for tr2.0/int, 1.0 for tr1.0,\n"
	      "                        none for tr0.5); none = postcard reports\n"
	      "  --hops N|MIN-MAX      hops in the stack, 0-64 (default 3); a range gives each flow its\n"
	      "                        own path length in it.  0 hops = no INT headers (postcard)\n"
	      "  --instructions LIST   node,ports,latency,queue,ig_ts,eg_ts,l2_ports,tx_util,buffer,checksum\n"
	      "                        or a number (default node,ports,latency,queue,ig_ts,eg_ts).  Widths\n"
	      "                        follow the version: v2.1 8-byte timestamps, v1.0/v0.5 4-byte;\n"
	      "                        v1.0 has no buffer, v0.5 no l2_ports/buffer/checksum\n"
	      "  --encap E             l4 (default: INT after the UDP/TCP header) | vxlan-gpe (UDP 4790) |\n"
	      "                        geneve (UDP 6081, option class 0x0103)\n"
	      "  --int-detect D        l4 encap: dscp (default; IP DSCP = --int-dscp, original DSCP in the\n"
	      "                        shim) | port (UDP dport = --int-port; v2.1 NPT=1 keeps the original\n"
	      "                        port in the shim, v0.5 in the tail; UDP only)\n"
	      "  --int-dscp V          DSCP that marks INT (default 0x17; geant 0x20 = TOS 0x80)\n"
	      "  --int-port P          UDP port that announces INT with --int-detect port (default 5000)\n"
	      "  --unavailable-rate P  fraction of stack values written as all ones (omitted from truth)\n"
	      "  --profile P           standard (default) | geant: GEANT int-platform's v1.0-style shim whose\n"
	      "                        length counts shim+MD+stack+tail, little-endian bitmap, 8-byte\n"
	      "                        timestamps, 16-bit L2 ports, hop_ml = instruction count, TOS 0x80\n"
	      "  --geant-tail on|off   geant: write the 4-byte tail (default on, as 2601_double_header.pcap;\n"
	      "                        off as my.pcap)\n"
	      "  --geant-hop-ml M      geant: hop_ml = instructions (default) | words (the true hop size)\n"
	      "Inner flows:\n"
	      "  --flows N             distinct flows (default 64)\n"
	      "  --l4 L                udp (default) | tcp | mix\n"
	      "  --ip V                4 (default) | 6 | mix\n"
	      "  --roce                UDP flows are RoCEv2 (dport 4791) with a BTH (opcode, dest QP)\n"
	      "  --cnp-rate P          --roce: fraction of packets that are CNPs (opcode 0x81) (default 0)\n"
	      "  --payload N           L4 payload bytes after INT carried in the packet (default 16)\n"
	      "  --orig-payload N      payload length the reported (truncated) packet's IP/UDP lengths\n"
	      "                        claim (default 1000)\n"
	      "Fabric and time:\n"
	      "  --nodes N             switches (default 8); node ids are 1..N\n"
	      "  --hw-ids N            hardware ids per node, 1-64 (default 1)\n"
	      "  --seed S              random seed (default 1)\n"
	      "  --seq-start N         first sequence number of every sender (tr2.0 wraps at 2^22)\n"
	      "  --seq-gap-every N     skip one sequence number every N reports of a sender (default off)\n"
	      "  --epoch-ns NS         first pcap timestamp, ns since 1970 (default 2026-01-01T00:00:00Z)\n"
	      "  --interval-ns NS      time between packets (default 1000)\n"
	      "  --dev-clock-start NS  device clocks start here (+ per-node offset < 200 ns); the default\n"
	      "                        2^32 - 2 ms makes 32-bit timestamps wrap early in the run\n"
	      "  --clock-skew NODE:NS  node NODE's device clock is NS ns off (may be negative): a switch\n"
	      "                        that lost clock synchronisation\n"
	      "Addresses:\n"
	      "  --collector A.B.C.D   report destination (default 10.0.0.100); senders are 10.1.x.y\n"
	      "  --dst-port P          report UDP destination port (default 32766)\n"
	      "  --src-port P          report UDP source port (default: 0 for tr0.5, 49152 + node otherwise)\n"
	      "Malformed packets (no truth records; counted on stderr and in --summary):\n"
	      "  --malform KIND[:RATE] repeatable; RATE = fraction of packets (default 0.05; for all:\n"
	      "                        shared among the kinds that apply).  KIND:\n"
	      "                        truncate, report-length, shim-length, hops, report-version,\n"
	      "                        int-version, bitmap, ip-header-length, udp-length, or all\n"
	      "Preset:\n"
	      "  --preset hopwatch-p4  exactly what p4/hopwatch_v1model.p4 sends (p4/README.md, 'What the\n"
	      "                        collector receives') on the line of p4/cli/: s1 source, s2.. transit,\n"
	      "                        last switch sink (--nodes 2-9, default 3), ports 1 -> 2.  TR v2.0, one\n"
	      "                        report per datagram, in_type 4, RepMdBits 0x7C00 (drops 0x4801), inner\n"
	      "                        IPv4 cut to min(length, 512) in whole words, INT v2.1 NPT 0, DSCP\n"
	      "                        0x17, bitmap 0xFC00, 8 hops at the source; sink INT reports (F), queue\n"
	      "                        reports (Q F; depth >= --congest-threshold, default 20, quota 64,\n"
	      "                        re-armed below 5, ECN CE), drop reports (D F, --drop-rate; reasons\n"
	      "                        29, 26); microsecond timestamps; report from 10.0.0.<node>, MAC\n"
	      "                        00:00:0a:00:<node>:03, UDP 50000+<node> (or --src-port) to --collector\n"
	      "                        (10.0.0.100, MAC 00:00:00:00:00:64), ID 0, TTL 64, DF, UDP checksum 0;\n"
	      "                        RoCEv2 flows 10.0.1.1 -> 10.0.2.2:4791, --payload 12-1200 (default 22).\n"
	      "                        Options that the program fixes are refused with it\n"
	      "  --help                this text\n",
	      f);
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

/* --hops N or MIN-MAX */
static int hops_opt(const char *s, struct gen_cfg *c)
{
	char lo[32];
	uint64_t a, b;
	const char *dash = strchr(s, '-');
	if (!dash) {
		if (num("hops", s, 0, GEN_MAX_HOPS, &a))
			return 2;
		c->hops = c->hops_min = (uint8_t)a;
		return 0;
	}
	if ((size_t)(dash - s) >= sizeof(lo) || dash == s)
		return fail("hops", "'%s' is not N or MIN-MAX", s);
	memcpy(lo, s, (size_t)(dash - s));
	lo[dash - s] = 0;
	if (num("hops", lo, 0, GEN_MAX_HOPS, &a) || num("hops", dash + 1, 0, GEN_MAX_HOPS, &b))
		return 2;
	if (a > b)
		return fail("hops", "range %s: MIN is above MAX", s);
	c->hops_min = (uint8_t)a;
	c->hops = (uint8_t)b;
	return 0;
}

static int prob(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !(v >= 0 && v <= 1))
		return fail(opt, "'%s' is not a fraction between 0 and 1", s);
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
		uint64_t n;
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

static int choose(const char *opt, const char *s, const char *const *names, int *out)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	char known[256] = "";
	for (int i = 0; names[i]; i++) {
		strcat(known, i ? ", " : "");
		strcat(known, names[i]);
	}
	return fail(opt, "unknown value '%s' (one of: %s)", s, known);
}

enum {
	O_OUT = 256,
	O_TRUTH,
	O_SUMMARY,
	O_FORMAT,
	O_COUNT,
	O_COALESCE,
	O_MTU,
	O_LAST_FF,
	O_REP_MD,
	O_IN_TYPE,
	O_DROP_RATE,
	O_INTER_RATE,
	O_CONGEST,
	O_INT_VERSION,
	O_HOPS,
	O_INSTR,
	O_ENCAP,
	O_DETECT,
	O_INT_DSCP,
	O_INT_PORT,
	O_UNAVAIL,
	O_PROFILE,
	O_FLOWS,
	O_L4,
	O_IP,
	O_ROCE,
	O_CNP,
	O_PAYLOAD,
	O_ORIG_PAYLOAD,
	O_NODES,
	O_HW_IDS,
	O_SEED,
	O_SEQ_START,
	O_SEQ_GAP,
	O_EPOCH,
	O_INTERVAL,
	O_DEV_CLOCK,
	O_CLOCK_SKEW,
	O_COLLECTOR,
	O_DST_PORT,
	O_SRC_PORT,
	O_MALFORM,
	O_SINK_MD,
	O_GEANT_TAIL,
	O_GEANT_HOP_ML,
	O_PRESET,
	O_HELP,
};

static const struct option longopts[] = {
    {"out", required_argument, 0, O_OUT},
    {"truth", required_argument, 0, O_TRUTH},
    {"summary", required_argument, 0, O_SUMMARY},
    {"format", required_argument, 0, O_FORMAT},
    {"count", required_argument, 0, O_COUNT},
    {"coalesce", required_argument, 0, O_COALESCE},
    {"mtu", required_argument, 0, O_MTU},
    {"last-len-ff", no_argument, 0, O_LAST_FF},
    {"rep-md", required_argument, 0, O_REP_MD},
    {"in-type", required_argument, 0, O_IN_TYPE},
    {"drop-rate", required_argument, 0, O_DROP_RATE},
    {"intermediate-rate", required_argument, 0, O_INTER_RATE},
    {"congest-threshold", required_argument, 0, O_CONGEST},
    {"int-version", required_argument, 0, O_INT_VERSION},
    {"hops", required_argument, 0, O_HOPS},
    {"instructions", required_argument, 0, O_INSTR},
    {"encap", required_argument, 0, O_ENCAP},
    {"int-detect", required_argument, 0, O_DETECT},
    {"int-dscp", required_argument, 0, O_INT_DSCP},
    {"int-port", required_argument, 0, O_INT_PORT},
    {"unavailable-rate", required_argument, 0, O_UNAVAIL},
    {"profile", required_argument, 0, O_PROFILE},
    {"flows", required_argument, 0, O_FLOWS},
    {"l4", required_argument, 0, O_L4},
    {"ip", required_argument, 0, O_IP},
    {"roce", no_argument, 0, O_ROCE},
    {"cnp-rate", required_argument, 0, O_CNP},
    {"payload", required_argument, 0, O_PAYLOAD},
    {"orig-payload", required_argument, 0, O_ORIG_PAYLOAD},
    {"nodes", required_argument, 0, O_NODES},
    {"hw-ids", required_argument, 0, O_HW_IDS},
    {"seed", required_argument, 0, O_SEED},
    {"seq-start", required_argument, 0, O_SEQ_START},
    {"seq-gap-every", required_argument, 0, O_SEQ_GAP},
    {"epoch-ns", required_argument, 0, O_EPOCH},
    {"interval-ns", required_argument, 0, O_INTERVAL},
    {"dev-clock-start", required_argument, 0, O_DEV_CLOCK},
    {"clock-skew", required_argument, 0, O_CLOCK_SKEW},
    {"collector", required_argument, 0, O_COLLECTOR},
    {"dst-port", required_argument, 0, O_DST_PORT},
    {"src-port", required_argument, 0, O_SRC_PORT},
    {"malform", required_argument, 0, O_MALFORM},
    {"sink-md", required_argument, 0, O_SINK_MD},
    {"geant-tail", required_argument, 0, O_GEANT_TAIL},
    {"geant-hop-ml", required_argument, 0, O_GEANT_HOP_ML},
    {"preset", required_argument, 0, O_PRESET},
    {"help", no_argument, 0, O_HELP},
    {0, 0, 0, 0},
};

static int malform_opt(const char *s, struct gen_cfg *c, uint8_t *wanted)
{
	char kind[64];
	double rate = 0.05;
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	if (n >= sizeof(kind))
		return fail("malform", "unknown kind '%s'", s);
	memcpy(kind, s, n);
	kind[n] = 0;
	if (colon && prob("malform", colon + 1, &rate))
		return 2;
	if (colon && rate <= 0)
		return fail("malform", "rate of '%s' must be above 0", kind);
	if (!strcmp(kind, "all")) {
		for (unsigned k = 1; k < GEN_M_COUNT; k++)
			if (wanted[k] != 1) {
				c->malform_rate[k] = rate;
				wanted[k] = 2; /* kinds that do not apply are skipped */
			}
		return 0;
	}
	for (unsigned k = 1; k < GEN_M_COUNT; k++)
		if (!strcmp(kind, gen_malform_name(k))) {
			c->malform_rate[k] = rate;
			wanted[k] = 1;
			return 0;
		}
	return fail("malform",
	            "unknown kind '%s' (truncate, report-length, shim-length, hops, report-version, int-version, "
	            "bitmap, ip-header-length, udp-length, all)",
	            kind);
}

static const char *opt_name(int val)
{
	for (const struct option *o = longopts; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

/* --preset hopwatch-p4: what the program fixes cannot be chosen; what its configuration leaves
 * open takes the values of p4/cli/ unless given. */
static int preset_p4(struct gen_cfg *c, const uint8_t *seen)
{
	static const struct {
		int opt;
		const char *what;
	} fixed[] = {
	    {O_FORMAT, "TR v2.0"},
	    {O_COALESCE, "one report per datagram"},
	    {O_MTU, "one report per datagram"},
	    {O_LAST_FF, "report_length is always the true length"},
	    {O_REP_MD, "RepMdBits 0x7C00 (0x4801 for drops)"},
	    {O_IN_TYPE, "in_type 4 (IPv4)"},
	    {O_INTER_RATE, "I = 0"},
	    {O_SINK_MD, "the sink's metadata in the report"},
	    {O_INT_VERSION, "INT v2.1"},
	    {O_HOPS, "the line: --nodes - 1 hops at the sink"},
	    {O_INSTR, "bitmap 0xFC00"},
	    {O_ENCAP, "INT over UDP/TCP"},
	    {O_DETECT, "DSCP (int_source_dscp in p4/cli)"},
	    {O_INT_DSCP, "HW_INT_DSCP 0x17"},
	    {O_INT_PORT, "DSCP (int_source_dscp in p4/cli)"},
	    {O_UNAVAIL, "every value available"},
	    {O_PROFILE, "the standard profile"},
	    {O_GEANT_TAIL, "the standard profile"},
	    {O_GEANT_HOP_ML, "the standard profile"},
	    {O_L4, "RoCEv2 over UDP (the first watchlist entry of p4/cli)"},
	    {O_IP, "IPv4"},
	    {O_ORIG_PAYLOAD, "the inner packet is cut at 512 B, its lengths are the true ones"},
	    {O_HW_IDS, "one hw_id per switch (0)"},
	    {O_MALFORM, "no malformed reports"},
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (seen[fixed[i].opt - O_OUT])
			return fail(opt_name(fixed[i].opt), "not with --preset hopwatch-p4 (the program sends %s)",
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
	if (!seen[O_NODES - O_OUT])
		c->nodes = 3;
	if (c->nodes < 2 || c->nodes > GEN_P4_MAX_NODES)
		return fail("nodes", "--preset hopwatch-p4 runs a line of 2 to %u switches (source .. sink)",
		            GEN_P4_MAX_NODES);
	c->hops = c->hops_min = (uint8_t)(c->nodes - 1);
	if (!seen[O_PAYLOAD - O_OUT])
		c->payload = 22; /* BTH + "payload-N." as in tests/p4/data */
	if (c->payload < 12 || c->payload > GEN_P4_MAX_PAYLOAD)
		return fail("payload", "--preset hopwatch-p4: 12 (the BTH) to %u bytes (no M flag at a 1500 B MTU)",
		            GEN_P4_MAX_PAYLOAD);
	c->orig_payload = c->payload;
	if (!seen[O_CONGEST - O_OUT])
		c->congest_threshold = 20; /* set_queue_thresholds 2 0 => 20 ... */
	if (!seen[O_COLLECTOR - O_OUT])
		c->collector_ip[0] = 10, c->collector_ip[1] = 0, c->collector_ip[2] = 0, c->collector_ip[3] = 100;
	c->sender_net[0] = 10, c->sender_net[1] = 0, c->sender_net[2] = 0, c->sender_net[3] = 0; /* 10.0.0.<node> */
	return 0;
}

int gen_parse_args(int argc, char **argv, struct gen_cfg *c, struct gen_paths *paths)
{
	static const char *const formats[] = {"tr2.0", "tr1.0", "tr0.5", "int", NULL};
	static const char *const versions[] = {"none", "0.5", "1.0", "2.1", NULL};
	static const char *const encaps[] = {"l4", "vxlan-gpe", "geneve", NULL};
	static const char *const detects[] = {"dscp", "port", NULL};
	static const char *const l4s[] = {"udp", "tcp", "mix", NULL};
	static const char *const ips[] = {"4", "6", "mix", NULL};
	static const char *const in_types[] = {"eth", "ip", NULL};
	static const char *const profiles[] = {"standard", "geant", NULL};
	static const char *const sink_mds[] = {"report", "stack", NULL};
	static const char *const on_off[] = {"off", "on", NULL};
	static const char *const hop_mls[] = {"instructions", "words", NULL};
	const char *geant_opt = NULL;
	const char *rep_md_arg = NULL, *instr_arg = NULL;
	int int_ver_set = 0, int_dscp_set = 0, in_type_set = 0;
	uint8_t wanted[GEN_M_COUNT] = {0};
	uint64_t v;
	int e, x;
	uint8_t seen[O_HELP - O_OUT + 1] = {0};
	memset(paths, 0, sizeof(*paths));
	optind = 1;
	opterr = 0;
	for (;;) {
		int longindex = -1;
		int o = getopt_long(argc, argv, ":h", longopts, &longindex);
		if (o == -1)
			break;
		const char *name = longindex >= 0 ? longopts[longindex].name : "";
		if (o >= O_OUT && o <= O_HELP)
			seen[o - O_OUT] = 1;
		switch (o) {
		case O_PRESET:
			if (strcmp(optarg, "hopwatch-p4"))
				return fail(name, "unknown preset '%s' (known: hopwatch-p4)", optarg);
			c->p4 = 1;
			break;
		case O_OUT: paths->out = optarg; break;
		case O_TRUTH: paths->truth = optarg; break;
		case O_SUMMARY: paths->summary = optarg; break;
		case O_FORMAT:
			if ((e = choose(name, optarg, formats, &x)))
				return e;
			c->format = (uint8_t)x;
			break;
		case O_COUNT:
			if ((e = num(name, optarg, 0, 4000000000u, &v)))
				return e;
			c->count = (uint32_t)v;
			break;
		case O_COALESCE:
			if ((e = num(name, optarg, 1, GEN_MAX_COALESCE, &v)))
				return e;
			c->coalesce = (uint8_t)v;
			break;
		case O_MTU:
			if ((e = num(name, optarg, 128, GEN_MAX_FRAME, &v)))
				return e;
			c->mtu = (uint16_t)v;
			break;
		case O_LAST_FF: c->last_len_ff = 1; break;
		case O_REP_MD: rep_md_arg = optarg; break;
		case O_IN_TYPE:
			if ((e = choose(name, optarg, in_types, &x)))
				return e;
			c->in_type = (uint8_t)x;
			in_type_set = 1;
			break;
		case O_DROP_RATE:
			if ((e = prob(name, optarg, &c->drop_rate)))
				return e;
			break;
		case O_INTER_RATE:
			if ((e = prob(name, optarg, &c->intermediate_rate)))
				return e;
			break;
		case O_CONGEST:
			if ((e = num(name, optarg, 0, 0xffffff, &v)))
				return e;
			c->congest_threshold = (uint32_t)v;
			break;
		case O_INT_VERSION:
			if ((e = choose(name, optarg, versions, &x)))
				return e;
			c->int_ver = (uint8_t)x;
			int_ver_set = 1;
			break;
		case O_HOPS:
			if ((e = hops_opt(optarg, c)))
				return e;
			break;
		case O_INSTR: instr_arg = optarg; break;
		case O_ENCAP:
			if ((e = choose(name, optarg, encaps, &x)))
				return e;
			c->encap = (uint8_t)x;
			break;
		case O_DETECT:
			if ((e = choose(name, optarg, detects, &x)))
				return e;
			c->detect = (uint8_t)x;
			break;
		case O_INT_DSCP:
			if ((e = num(name, optarg, 1, 63, &v)))
				return e;
			c->int_dscp = (uint8_t)v;
			int_dscp_set = 1;
			break;
		case O_INT_PORT:
			if ((e = num(name, optarg, 1, 65535, &v)))
				return e;
			c->int_port = (uint16_t)v;
			break;
		case O_UNAVAIL:
			if ((e = prob(name, optarg, &c->unavailable_rate)))
				return e;
			break;
		case O_PROFILE:
			if ((e = choose(name, optarg, profiles, &x)))
				return e;
			c->profile = (uint8_t)x;
			break;
		case O_FLOWS:
			if ((e = num(name, optarg, 1, 1000000, &v)))
				return e;
			c->flows = (uint32_t)v;
			break;
		case O_L4:
			if ((e = choose(name, optarg, l4s, &x)))
				return e;
			c->l4 = (uint8_t)x;
			break;
		case O_IP:
			if ((e = choose(name, optarg, ips, &x)))
				return e;
			c->ipver = (uint8_t)x;
			break;
		case O_ROCE: c->roce = 1; break;
		case O_CNP:
			if ((e = prob(name, optarg, &c->cnp_rate)))
				return e;
			break;
		case O_PAYLOAD:
			if ((e = num(name, optarg, 0, 1500, &v)))
				return e;
			c->payload = (uint16_t)v;
			break;
		case O_ORIG_PAYLOAD:
			if ((e = num(name, optarg, 0, 9000, &v)))
				return e;
			c->orig_payload = (uint16_t)v;
			break;
		case O_NODES:
			if ((e = num(name, optarg, 1, GEN_MAX_NODES, &v)))
				return e;
			c->nodes = (uint32_t)v;
			break;
		case O_HW_IDS:
			if ((e = num(name, optarg, 1, 64, &v)))
				return e;
			c->hw_ids = (uint32_t)v;
			break;
		case O_SEED:
			if ((e = num(name, optarg, 0, UINT64_MAX, &v)))
				return e;
			c->seed = v;
			break;
		case O_SEQ_START:
			if ((e = num(name, optarg, 0, 0xffffffffu, &v)))
				return e;
			c->seq_start = (uint32_t)v;
			break;
		case O_SEQ_GAP:
			if ((e = num(name, optarg, 0, 0xffffffffu, &v)))
				return e;
			c->seq_gap_every = (uint32_t)v;
			break;
		case O_EPOCH:
			if ((e = num(name, optarg, 0, 4000000000ull * 1000000000ull, &v)))
				return e;
			c->epoch_ns = v;
			break;
		case O_INTERVAL:
			if ((e = num(name, optarg, 1, 3600ull * 1000000000ull, &v)))
				return e;
			c->interval_ns = v;
			break;
		case O_DEV_CLOCK:
			if ((e = num(name, optarg, 0, 1ull << 62, &v)))
				return e;
			c->dev_clock_start = v;
			break;
		case O_CLOCK_SKEW: {
			char *end;
			unsigned long node = strtoul(optarg, &end, 10);
			long long ns = *end == ':' ? strtoll(end + 1, &end, 10) : 0;
			if (!node || node > 65535 || *end || !strchr(optarg, ':') || ns <= -(1ll << 40) ||
			    ns >= 1ll << 40)
				return fail(name, "'%s' is not NODE:NS (a node id and a skew in ns, |NS| < 2^40)",
				            optarg);
			c->skew_node = (uint32_t)node;
			c->skew_ns = ns;
			break;
		}
		case O_COLLECTOR:
			if (inet_pton(AF_INET, optarg, c->collector_ip) != 1)
				return fail(name, "'%s' is not an IPv4 address", optarg);
			break;
		case O_DST_PORT:
			if ((e = num(name, optarg, 1, 65535, &v)))
				return e;
			c->dst_port = (uint16_t)v;
			break;
		case O_SRC_PORT:
			if ((e = num(name, optarg, 0, 65535, &v)))
				return e;
			c->src_port = (int32_t)v;
			break;
		case O_GEANT_TAIL:
			if ((e = choose(name, optarg, on_off, &x)))
				return e;
			c->geant_no_tail = (uint8_t)!x;
			geant_opt = name;
			break;
		case O_GEANT_HOP_ML:
			if ((e = choose(name, optarg, hop_mls, &x)))
				return e;
			c->geant_hop_ml_words = (uint8_t)x;
			geant_opt = name;
			break;
		case O_SINK_MD:
			if ((e = choose(name, optarg, sink_mds, &x)))
				return e;
			c->sink_md_stack = (uint8_t)x;
			break;
		case O_MALFORM:
			if ((e = malform_opt(optarg, c, wanted)))
				return e;
			break;
		case O_HELP:
		case 'h': gen_usage(stdout); return 1;
		case ':': fprintf(stderr, "hopwatch-gen: option %s needs a value\n", argv[optind - 1]); return 2;
		default: fprintf(stderr, "hopwatch-gen: unknown option %s (see --help)\n", argv[optind - 1]); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hopwatch-gen: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (!paths->out)
		return fail("out", "is required");
	if (c->p4 && (e = preset_p4(c, seen)))
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
