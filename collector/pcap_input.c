/* libpcap front end: capture files in nanosecond precision, frames handed to a callback.
 * Only Ethernet captures are accepted; anything else is refused with the file's name. */
#include <pcap/pcap.h>
#include <stdio.h>

#include "hopwatch/pcap_input.h"

int hw_pcap_read_file(const char *path, hw_frame_fn fn, void *arg, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s: cannot read as a capture file: %s", path, ebuf);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "%s: link type %s is not Ethernet", path,
		         pcap_datalink_val_to_name(pcap_datalink(p)) ? pcap_datalink_val_to_name(pcap_datalink(p))
		                                                     : "unknown");
		pcap_close(p);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint64_t t = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* ns precision */
		fn(arg, data, h->caplen, t);
	}
	if (rc == PCAP_ERROR) {
		snprintf(err, errlen, "%s: read error: %s", path, pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	pcap_close(p);
	return 0;
}
