/* `hopwatch-gen send`: transmit a capture (a scenario's reports.pcap) onto an interface with libpcap
 * inject, at a chosen packet rate, at the capture's own timing, or as fast as the interface takes. */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "options.h"
#include "scen.h"

static void sleep_until(uint64_t t)
{
	for (;;) {
		uint64_t now = hw_mono_ns();
		if (now >= t)
			return;
		if (t - now > 200000) { /* sleep most of a long wait, spin the last 0.2 ms */
			struct timespec d = {0, (long)(t - now - 100000)};
			nanosleep(&d, NULL);
		}
	}
}

struct send_opts {
	const char *file, *iface;
	double pps, speed;
	int timing; /* -1: not given; 0: capture */
	unsigned long loops;
};

#define O struct send_opts

static const char *const timings[] = {"capture", NULL};

static const struct hw_opt rows[] = {
    {HW_OPT_STRING, "pcap", .metavar = "FILE", HW_OPT_AT(O, file), .help = "the capture to send (required)"},
    {HW_OPT_STRING, "iface", .metavar = "IFACE", HW_OPT_AT(O, iface), .help = "the interface (required)"},
    {HW_OPT_DOUBLE, "pps", .metavar = "N", HW_OPT_AT(O, pps), .hi = 1e9, .flags = HW_OPTF_LO_OPEN,
     .def_note = "as fast as the interface accepts", .help = "N packets per second"},
    {HW_OPT_ENUM, "timing", .metavar = "capture", HW_OPT_AT(O, timing), .names = timings,
     .help = "keep the capture's own gaps between packets"},
    {HW_OPT_DOUBLE, "speed", .metavar = "X", HW_OPT_AT(O, speed), .hi = 1e300, .flags = HW_OPTF_LO_OPEN, .def = "1",
     .help = "with --timing capture: X times faster"},
    {HW_OPT_UINT, "loop", .metavar = "N", HW_OPT_AT(O, loops), .lo = 1, .hi = 4e9, .def = "1",
     .help = "send the file N times"},
    {HW_OPT_END},
};

static const struct hw_opts_spec spec = {
    .prog = "hopwatch-gen send",
    .synopsis = "usage: hopwatch-gen send --pcap FILE --iface IFACE [--pps N | --timing capture] [--loop N]\n",
    .intro = "Transmits every frame of FILE on IFACE (libpcap inject; needs CAP_NET_RAW).\n",
    .epilog = "Prints sent, failed and the achieved rate on stderr.\n",
    .rows = rows,
};

int sc_send_main(int argc, char **argv)
{
	struct send_opts o = {.timing = -1};
	int rc = hw_opts_defaults(&spec, &o);
	if (!rc)
		rc = hw_opts_parse(&spec, &o, argc, argv, NULL);
	if (rc)
		return rc == HW_OPTS_HELP ? 0 : 2;
	const char *file = o.file, *iface = o.iface;
	double pps = o.pps, speed = o.speed;
	int capture_timing = o.timing == 0;
	unsigned long loops = o.loops;
	if (!file || !iface) {
		fprintf(stderr, "hopwatch-gen send: --pcap FILE and --iface IFACE are required (see --help)\n");
		return 2;
	}
	if (pps > 0 && capture_timing) {
		fprintf(stderr, "hopwatch-gen send: --pps and --timing capture exclude each other\n");
		return 2;
	}
	char eb[PCAP_ERRBUF_SIZE];
	pcap_t *out = pcap_open_live(iface, 65535, 0, 100, eb);
	if (!out) {
		fprintf(stderr, "hopwatch-gen send: %s: %s\n", iface, eb);
		return 1;
	}
	uint64_t sent = 0, failed = 0;
	const uint64_t t0 = hw_mono_ns();
	for (unsigned long l = 0; l < loops; l++) {
		pcap_t *in = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, eb);
		if (!in) {
			fprintf(stderr, "hopwatch-gen send: %s: %s\n", file, eb);
			pcap_close(out);
			return 1;
		}
		struct pcap_pkthdr *h;
		const u_char *data;
		uint64_t first_ts = 0, start = hw_mono_ns();
		int r;
		while ((r = pcap_next_ex(in, &h, &data)) == 1) {
			uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
			if (!first_ts)
				first_ts = ts;
			if (capture_timing)
				sleep_until(start + (uint64_t)((double)(ts - first_ts) / speed));
			else if (pps > 0)
				sleep_until(t0 + (uint64_t)((double)(sent + failed) * 1e9 / pps));
			if (pcap_inject(out, data, h->caplen) == (int)h->caplen)
				sent++;
			else
				failed++;
		}
		if (r == -1)
			fprintf(stderr, "hopwatch-gen send: %s: %s\n", file, pcap_geterr(in));
		pcap_close(in);
	}
	const double secs = (double)(hw_mono_ns() - t0) / 1e9;
	fprintf(stderr, "sent %llu\nfailed %llu\nseconds %.3f\nrate_pps %.0f\n", (unsigned long long)sent,
	        (unsigned long long)failed, secs, secs > 0 ? (double)sent / secs : 0);
	pcap_close(out);
	return failed ? 1 : 0;
}
