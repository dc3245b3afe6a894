/* The libpcap front end: frames from a capture file or a live interface go to one worker; the file
 * case waits for the sinks instead of dropping, the live case never blocks capture. */
#include <stdio.h>
#include <string.h>

#include "front.h"
#include "hopwatch/pcap_input.h"

static void to_worker(void *arg, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	hw_worker_frame(arg, frame, len, time_ns);
}

/* A quiet interface: hand the sinks the partly filled batch instead of holding it. */
static void worker_idle(void *arg)
{
	hw_worker_flush(arg);
}

/* Default live filter: the report ports, or all IP when bare INT-MD packets are wanted. */
static void default_filter(const struct hw_parser_config *p, char *buf, size_t len)
{
	if (p->bare_int) {
		snprintf(buf, len, "ip or ip6 or vlan");
		return;
	}
	size_t o = (size_t)snprintf(buf, len, "udp and (");
	for (unsigned i = 0; i < p->n_report_ports && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%sdst port %u", i ? " or " : "", p->report_ports[i]);
	if (o < len)
		snprintf(buf + o, len - o, ")");
}

int hw_pcap_front_run(struct hw_collector *c, char *err, size_t errlen)
{
	bool file = hw_pcap_is_file(c->cfg.pcap);
	if (hw_collector_start(c, 1, file || c->cfg.lossless, err, errlen))
		return 1;
	int rc;
	if (file) {
		rc = hw_pcap_read_file(c->cfg.pcap, to_worker, c->workers[0], (volatile int *)&hw_stop_requested, err,
		                       errlen);
		if (rc == 1) { /* SIGINT/SIGTERM: what was read is drained and flushed below */
			fprintf(stderr, "hopwatch-collector: stopped by a signal before the end of %s\n", c->cfg.pcap);
			rc = 0;
		}
	} else {
		char filter[512];
		if (!c->cfg.bpf)
			default_filter(&c->cfg.parser, filter, sizeof(filter));
		uint64_t kdrops = 0;
		rc = hw_pcap_read_live(c->cfg.pcap, c->cfg.bpf ? c->cfg.bpf : filter, to_worker, worker_idle,
		                       c->workers[0], (volatile int *)&hw_stop_requested, &kdrops, err, errlen);
		if (kdrops)
			fprintf(stderr, "kernel_dropped %llu\n", (unsigned long long)kdrops);
	}
	hw_collector_finish(c);
	return rc ? 1 : 0;
}
