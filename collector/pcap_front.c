/* The libpcap front end: frames from a capture file or a live interface go to one worker; the file
 * case waits for the sinks instead of dropping, the live case never blocks capture. */
#include <stdio.h>
#include <string.h>

#include "front.h"
#include "hopwatch/pcap_input.h"

/* Frames of a capture file are parsed as they are read (from the direct reader's buffer, or libpcap's,
 * which it reuses for the next one) and their state updates applied a burst at a time, as the DPDK front does:
 * hw_worker_apply prefetches the queue slots and flow entries of the reports ahead, where one frame at a time finds
 * them cold. */
#define FILE_BURST 32

struct file_worker {
	struct hw_worker *w;
	unsigned staged; /* frames staged since the last apply */
};

static void to_worker(void *arg, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	struct file_worker *f = arg;
	hw_worker_stage(f->w, frame, len, time_ns);
	if (++f->staged == FILE_BURST) {
		hw_worker_apply(f->w);
		f->staged = 0;
	}
}

/* A quiet interface: hand the sinks the partly filled batch instead of holding it; the loop turns. */
static void worker_idle(void *arg)
{
	struct hw_collector *c = arg;
	hw_worker_flush(c->workers[0]);
	__atomic_store_n(&c->front_beat, c->front_beat + 1, __ATOMIC_RELAXED);
}

static void to_worker_live(void *arg, const uint8_t *frame, size_t len, uint64_t time_ns)
{
	struct hw_collector *c = arg;
	hw_worker_frame(c->workers[0], frame, len, time_ns);
}

static void capture_ready(void *arg)
{
	hw_collector_ready(arg);
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
		hw_collector_ready(c);
		struct file_worker f = {c->workers[0], 0};
		struct hw_pcap_read_stats st;
		rc = hw_pcap_read_file_with(c->cfg.pcap, HW_PCAP_READ_AUTO, to_worker, &f,
		                            (volatile int *)&hw_stop_requested, &st, err, errlen);
		hw_worker_apply(f.w); /* the last, partial burst */
		if (st.cut)           /* libpcap cuts these the same way, silently */
			fprintf(stderr,
			        "hopwatch-collector: %s: %llu frames longer than the file's snaplen, cut to it\n",
			        c->cfg.pcap, (unsigned long long)st.cut);
		if (rc == 1) { /* SIGINT/SIGTERM: what was read is drained and flushed below */
			fprintf(stderr, "hopwatch-collector: stopped by a signal before the end of %s\n", c->cfg.pcap);
			rc = 0;
		}
	} else {
		char filter[512];
		if (!c->cfg.bpf)
			default_filter(&c->cfg.parser, filter, sizeof(filter));
		c->loss.pcap_live = true;
		struct hw_pcap_live live = {.filter = c->cfg.bpf ? c->cfg.bpf : filter,
		                            .frame = to_worker_live,
		                            .idle = worker_idle,
		                            .ready = capture_ready,
		                            .arg = c,
		                            .stop = (volatile int *)&hw_stop_requested,
		                            .kernel_drops = &c->loss.pcap_dropped,
		                            .interface_drops = &c->loss.pcap_ifdropped};
		rc = hw_pcap_read_live(c->cfg.pcap, &live, err, errlen);
		if (c->loss.pcap_dropped || c->loss.pcap_ifdropped)
			fprintf(stderr, "kernel_dropped %llu\ninterface_dropped %llu\n",
			        (unsigned long long)c->loss.pcap_dropped, (unsigned long long)c->loss.pcap_ifdropped);
	}
	hw_collector_finish(c);
	return rc ? 1 : 0;
}
