/* `hopwatch-gen send`: transmit a capture (a scenario's reports.pcap) onto an interface with libpcap
 * inject, at a chosen packet rate, at the capture's own timing, or as fast as the interface takes. */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
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

static void usage(FILE *f)
{
	fputs("usage: hopwatch-gen send --pcap FILE --iface IFACE [--pps N | --timing capture] [--loop N]\n"
	      "\n"
	      "Transmits every frame of FILE on IFACE (libpcap inject; needs CAP_NET_RAW).\n"
	      "  --pps N            N packets per second\n"
	      "  --timing capture   keep the capture's own gaps between packets (--speed X: X times faster)\n"
	      "  (neither)          as fast as the interface accepts\n"
	      "  --loop N           send the file N times (default 1)\n"
	      "Prints sent, failed and the achieved rate on stderr.\n",
	      f);
}

int sc_send_main(int argc, char **argv)
{
	static const struct option opts[] = {{"pcap", 1, 0, 'p'},   {"iface", 1, 0, 'i'}, {"pps", 1, 0, 'r'},
	                                     {"timing", 1, 0, 't'}, {"speed", 1, 0, 's'}, {"loop", 1, 0, 'l'},
	                                     {"help", 0, 0, 'h'},   {0, 0, 0, 0}};
	const char *file = NULL, *iface = NULL;
	double pps = 0, speed = 1;
	int capture_timing = 0;
	unsigned long loops = 1;
	char *end;
	int o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'p': file = optarg; break;
		case 'i': iface = optarg; break;
		case 'r':
			pps = strtod(optarg, &end);
			if (*end || !(pps > 0 && pps <= 1e9)) {
				fprintf(stderr, "hopwatch-gen send: --pps %s: not a rate from 1 to 1e9 packets/s\n",
				        optarg);
				return 2;
			}
			break;
		case 't':
			if (strcmp(optarg, "capture")) {
				fprintf(stderr, "hopwatch-gen send: --timing %s: only 'capture' is known\n", optarg);
				return 2;
			}
			capture_timing = 1;
			break;
		case 's':
			speed = strtod(optarg, &end);
			if (*end || !(speed > 0)) {
				fprintf(stderr, "hopwatch-gen send: --speed %s: not a positive factor\n", optarg);
				return 2;
			}
			break;
		case 'l':
			loops = strtoul(optarg, &end, 10);
			if (*end || !loops) {
				fprintf(stderr, "hopwatch-gen send: --loop %s: not a positive count\n", optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: return 2;
		}
	}
	if (!file || !iface || optind != argc) {
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
