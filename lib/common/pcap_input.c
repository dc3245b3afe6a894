/* libpcap front end: capture files in nanosecond precision (classic pcap files read in chunks and walked in place,
 * the rest through libpcap) and live interfaces, frames handed to a callback.  Ethernet only. */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hopwatch/pcap_file.h"
#include "hopwatch/pcap_input.h"
#include "read_full.h"

/* stdio's buffer for a capture file: libpcap reads each record with two small freads, and with the
 * default buffer (the file system's block, 4 KiB) that is one read(2) every ~14 frames of 300 bytes.
 * 64 KiB cuts the calls 16-fold and, unlike 1 MiB (no faster), leaves the L2 cache to the worker. */
#define FILE_BUFFER (1u << 16)

/* Open a capture file with a large stdio buffer (*buf, freed by the caller after pcap_close). */
static pcap_t *open_file(const char *path, char **buf, char *ebuf)
{
	*buf = NULL;
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin; /* "-": standard input, as tcpdump -r - */
	if (!f) {
		snprintf(ebuf, PCAP_ERRBUF_SIZE, "%s", strerror(errno));
		return NULL;
	}
	/* a named pipe too: read(2) returns what the writer has written so far, it does not wait for a full buffer */
	*buf = malloc(FILE_BUFFER);
	if (*buf && setvbuf(f, *buf, _IOFBF, FILE_BUFFER)) {
		free(*buf);
		*buf = NULL;
	}
	pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		fclose(f);
		free(*buf);
		*buf = NULL;
	}
	return p;
}

static void close_file(pcap_t *p, char *buf)
{
	pcap_close(p); /* closes the FILE before its buffer goes */
	free(buf);
}

/* The libpcap reader: pcapng, other link types and versions, named pipes, whatever the direct reader leaves. */
static int read_libpcap(const char *path, hw_frame_fn fn, void *arg, volatile int *stop,
                        struct hw_pcap_read_stats *stats, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE], *buf;
	pcap_t *p = open_file(path, &buf, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s: cannot read as a capture file: %s", path, ebuf);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "%s: link type %s is not Ethernet", path,
		         pcap_datalink_val_to_name(pcap_datalink(p)) ? pcap_datalink_val_to_name(pcap_datalink(p))
		                                                     : "unknown");
		close_file(p, buf);
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *data;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		uint64_t t = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* ns precision */
		fn(arg, data, h->caplen, t);
		stats->frames++;
		if (stop && *stop) { /* a signal: what was read is handed on, the rest is left unread */
			close_file(p, buf);
			return 1;
		}
	}
	if (rc == PCAP_ERROR && stop && *stop) { /* a stop that interrupted a read (a named pipe waiting) */
		close_file(p, buf);
		return 1;
	}
	if (rc == PCAP_ERROR) {
		snprintf(err, errlen, "%s: read error: %s", path, pcap_geterr(p));
		close_file(p, buf);
		return -1;
	}
	close_file(p, buf);
	return 0;
}

/* The direct reader's buffer: a chunk (pcap_input.h) and the largest record, which a chunk may end inside
 * of and which is moved to the front before the next read. */
#define READ_BUFFER (HW_PCAP_READ_CHUNK + HW_PCAP_RECORD_HEADER + HW_PCAP_MAX_CAPLEN)

/* read_direct's answer for a file it does not read: AUTO hands it to libpcap. */
#define NOT_DIRECT 2

/* The direct reader: a regular classic pcap file read a chunk at a time into one buffer and walked in
 * place (pcap_file.c).  read(2) rather than a mapping: the buffer's pages stay in the TLB and resident
 * once, where walking a mapping of 4 KiB pages (tmpfs, a page cache without large folios) costs a TLB
 * miss and a share of a page fault every 4 KiB, and grows the resident size with the file. */
static int read_direct(const char *path, hw_frame_fn fn, void *arg, volatile int *stop,
                       struct hw_pcap_read_stats *stats, char *err, size_t errlen)
{
	/* Not a named pipe: opening and closing one here would leave its writer without a reader for a moment
	 * (SIGPIPE); stat first, and O_NONBLOCK should it have become one since. */
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return NOT_DIRECT;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return NOT_DIRECT;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)HW_PCAP_FILE_HEADER ||
	    (uint64_t)st.st_size > SIZE_MAX) {
		snprintf(err, errlen, "%s: not a regular file of at least a pcap file header", path);
		close(fd);
		return NOT_DIRECT;
	}
	/* The length is fixed here: a file still being written is read up to what it held at the open, as a
	 * libpcap read would stop at the end it found. */
	uint64_t left = (uint64_t)st.st_size;
	uint8_t *buf = NULL;
	if (posix_memalign((void **)&buf, 4096, READ_BUFFER)) {
		snprintf(err, errlen, "%s: out of memory for a read buffer", path);
		close(fd);
		return -1;
	}
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL); /* read ahead; only a hint */
	ssize_t got = hw_read_full(fd, buf, left < HW_PCAP_READ_CHUNK ? (size_t)left : HW_PCAP_READ_CHUNK);
	struct hw_pcap_file_format f;
	if (got < 0 || !hw_pcap_file_header(buf, (size_t)got, &f)) {
		if (got < 0)
			snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		else
			snprintf(err, errlen, "%s: not a classic pcap 2.4 Ethernet file", path);
		free(buf);
		close(fd);
		return got < 0 ? -1 : NOT_DIRECT;
	}
	left -= (uint64_t)got;
	size_t have = (size_t)got;
	uint64_t base = 0; /* the file offset of buf[0] */
	struct hw_pcap_file_walk w;
	stats->direct = 1;
	hw_pcap_file_walk_init(&w);
	for (;;) {
		hw_pcap_file_walk_on(buf, have, &f, fn, arg, stop, &w);
		/* the end of the buffer is not the file's: a record cut there is read whole with the next chunk */
		if (left == 0 || !hw_pcap_file_walk_more(&w))
			break;
		size_t keep = have - (size_t)w.offset; /* < READ_BUFFER - HW_PCAP_READ_CHUNK: the largest record */
		memmove(buf, buf + w.offset, keep);
		base += w.offset;
		size_t want = left < HW_PCAP_READ_CHUNK ? (size_t)left : HW_PCAP_READ_CHUNK;
		got = hw_read_full(fd, buf + keep, want);
		if (got < 0) {
			snprintf(err, errlen, "%s: read error at byte %llu: %s", path,
			         (unsigned long long)(base + keep), strerror(errno));
			free(buf);
			close(fd);
			stats->frames = w.frames;
			stats->cut = w.cut;
			return -1;
		}
		/* a file cut shorter since the open ends where it now ends */
		left = (size_t)got < want ? 0 : left - (uint64_t)got;
		have = keep + (size_t)got;
		w.offset = 0;
	}
	w.offset += base;
	const size_t len = (size_t)(base + have); /* the file's length as read */
	free(buf);
	close(fd);
	stats->frames = w.frames;
	stats->cut = w.cut;
	const char *why = hw_pcap_file_end_name(w.end);
	switch (w.end) {
	case HW_PCAP_FILE_EOF: return 0;
	case HW_PCAP_FILE_STOPPED: return 1;
	case HW_PCAP_FILE_SHORT_HEADER:
		snprintf(err, errlen, "%s: %s: the file ends %zu bytes into the header of record %llu (byte %llu)",
		         path, why, len - (size_t)w.offset, (unsigned long long)w.frames + 1,
		         (unsigned long long)w.offset);
		return -1;
	case HW_PCAP_FILE_SHORT_DATA:
		snprintf(err, errlen,
		         "%s: %s: record %llu (byte %llu) has caplen %u but the file holds %zu bytes after its header",
		         path, why, (unsigned long long)w.frames + 1, (unsigned long long)w.offset, w.caplen,
		         len - (size_t)w.offset - HW_PCAP_RECORD_HEADER);
		return -1;
	case HW_PCAP_FILE_CAPLEN_OVER_LIMIT:
		snprintf(err, errlen,
		         "%s: %s: record %llu (byte %llu) has caplen %u, over libpcap's limit of %u (a damaged file)",
		         path, why, (unsigned long long)w.frames + 1, (unsigned long long)w.offset, w.caplen,
		         HW_PCAP_MAX_CAPLEN);
		return -1;
	}
	return -1;
}

int hw_pcap_read_file_with(const char *path, enum hw_pcap_read how, hw_frame_fn fn, void *arg, volatile int *stop,
                           struct hw_pcap_read_stats *stats, char *err, size_t errlen)
{
	struct hw_pcap_read_stats local;
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	if (how != HW_PCAP_READ_LIBPCAP) {
		int rc = read_direct(path, fn, arg, stop, stats, err, errlen);
		if (rc != NOT_DIRECT)
			return rc;
		if (how == HW_PCAP_READ_DIRECT)
			return -1; /* err says why */
	}
	return read_libpcap(path, fn, arg, stop, stats, err, errlen);
}

int hw_pcap_read_file(const char *path, hw_frame_fn fn, void *arg, volatile int *stop, char *err, size_t errlen)
{
	return hw_pcap_read_file_with(path, HW_PCAP_READ_AUTO, fn, arg, stop, NULL, err, errlen);
}

int hw_pcap_is_file(const char *path)
{
	struct stat st;
	if (!strcmp(path, "-")) /* standard input (tcpdump -w - | ...): through libpcap, as a named pipe */
		return 1;
	/* a named pipe is a capture written into it as it goes (tcpdump -w FIFO): read as a file, lossless */
	return stat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode));
}

struct live_arg {
	hw_frame_fn fn;
	void *arg;
};

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
	struct live_arg *a = (struct live_arg *)user;
	a->fn(a->arg, data, h->caplen, (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec);
}

/* Publish the kernel's drop counts (pcap_stats totals since activation). */
static void store_drops(pcap_t *p, const struct hw_pcap_live *o)
{
	struct pcap_stat st;
	if (pcap_stats(p, &st))
		return;
	if (o->kernel_drops)
		__atomic_store_n(o->kernel_drops, (uint64_t)st.ps_drop, __ATOMIC_RELAXED);
	if (o->interface_drops)
		__atomic_store_n(o->interface_drops, (uint64_t)st.ps_ifdrop, __ATOMIC_RELAXED);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* At a stop: hand on what the kernel has buffered for the capture (non-blocking reads until one finds
 * nothing), at most HW_PCAP_DRAIN_FRAMES frames or HW_PCAP_DRAIN_MS, so that an interface that keeps
 * receiving cannot hold the stop.  -1 on a capture error. */
static int drain(pcap_t *p, struct live_arg *a)
{
	uint64_t until = mono_ms() + HW_PCAP_DRAIN_MS, frames = 0;
	for (;;) {
		int n = pcap_dispatch(p, 256, on_packet, (u_char *)a);
		if (n == PCAP_ERROR)
			return -1;
		if (n <= 0) /* 0: empty; PCAP_ERROR_BREAK cannot come (no pcap_breakloop) */
			return 0;
		frames += (uint64_t)n;
		if (frames >= HW_PCAP_DRAIN_FRAMES || mono_ms() >= until)
			return 0;
	}
}

int hw_pcap_read_live(const char *iface, const struct hw_pcap_live *o, char *err, size_t errlen)
{
	const char *filter = o->filter;
	char ebuf[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_create(iface, ebuf);
	if (!p) {
		snprintf(err, errlen, "%s: cannot open interface: %s", iface, ebuf);
		return -1;
	}
	pcap_set_snaplen(p, 65535);
	pcap_set_promisc(p, 1);
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 100);
	pcap_set_buffer_size(p, 64 << 20);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	int rc = pcap_activate(p);
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
		snprintf(err, errlen, "%s: no such capture file or network interface", iface);
		pcap_close(p);
		return -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot capture: %s", iface, pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	if (pcap_get_tstamp_precision(p) != PCAP_TSTAMP_PRECISION_NANO) {
		snprintf(err, errlen, "%s: no nanosecond timestamps from this capture device", iface);
		pcap_close(p);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		snprintf(err, errlen, "%s: link type is not Ethernet", iface);
		pcap_close(p);
		return -1;
	}
	if (filter && *filter) {
		struct bpf_program prog;
		if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) || pcap_setfilter(p, &prog)) {
			snprintf(err, errlen, "%s: bad capture filter '%s': %s", iface, filter, pcap_geterr(p));
			pcap_close(p);
			return -1;
		}
		pcap_freecode(&prog);
	}
	/* Non-blocking reads with our own poll, so that a stop request is seen within 100 ms even when
	 * no packet arrives (a blocking read may otherwise wait forever). */
	struct live_arg a = {o->frame, o->arg};
	int ret = 0, fd = pcap_get_selectable_fd(p);
	if (fd < 0 || pcap_setnonblock(p, 1, ebuf) < 0) {
		snprintf(err, errlen, "%s: cannot poll the capture: %s", iface, fd < 0 ? "no selectable fd" : ebuf);
		pcap_close(p);
		return -1;
	}
	if (o->ready)
		o->ready(o->arg);
	uint64_t stats_at = mono_ms();
	while (!*o->stop) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int ready = poll(&pfd, 1, 100);
		if (ready == 0 && o->idle)
			o->idle(o->arg); /* quiet for a poll interval: let the owner hand on what it holds */
		uint64_t now = mono_ms();
		if (now - stats_at >= 1000) { /* once a second, from this thread: pcap_t is not shared */
			store_drops(p, o);
			stats_at = now;
		}
		if (ready < 0 && errno != EINTR) {
			snprintf(err, errlen, "%s: poll failed: %s", iface, strerror(errno));
			ret = -1;
			break;
		}
		int n;
		while ((n = pcap_dispatch(p, 256, on_packet, (u_char *)&a)) > 0 && !*o->stop)
			;
		if (n == PCAP_ERROR) {
			snprintf(err, errlen, "%s: capture failed: %s", iface, pcap_geterr(p));
			ret = -1;
			break;
		}
	}
	if (ret == 0 && drain(p, &a)) {
		snprintf(err, errlen, "%s: capture failed while reading what was buffered at the stop: %s", iface,
		         pcap_geterr(p));
		ret = -1;
	}
	store_drops(p, o);
	pcap_close(p);
	return ret;
}
