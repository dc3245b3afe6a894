/* The reference for the collector's --pcap front end (bench/side_by_side.py): a plain libpcap loop
 * that reads every packet of a capture file with pcap_next_ex and touches its bytes, nothing else. */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	char err[PCAP_ERRBUF_SIZE];
	if (argc != 2) {
		fprintf(stderr, "usage: bench_pcap_loop FILE.pcap\n");
		return 2;
	}
	pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fprintf(stderr, "bench_pcap_loop: %s: %s\n", argv[1], err);
		return 1;
	}
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t packets = 0, bytes = 0, sum = 0;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		packets++;
		bytes += h->caplen;
		for (uint32_t i = 0; i < h->caplen; i += 64) /* one load per cache line, as a parser would */
			sum += d[i];
	}
	if (rc != PCAP_ERROR_BREAK) {
		fprintf(stderr, "bench_pcap_loop: %s: %s\n", argv[1], pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	pcap_close(p);
	printf("{\"packets\": %llu, \"bytes\": %llu, \"checksum\": %llu}\n", (unsigned long long)packets,
	       (unsigned long long)bytes, (unsigned long long)sum);
	return 0;
}
