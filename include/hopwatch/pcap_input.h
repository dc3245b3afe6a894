/* Reading packets with libpcap: capture files and live interfaces, one callback per frame.
 * The front end that lets hosts without DPDK-capable NICs run the same parser. */
#ifndef HOPWATCH_PCAP_INPUT_H
#define HOPWATCH_PCAP_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* Called for every frame: bytes, captured length, capture time in ns since the epoch. */
typedef void (*hw_frame_fn)(void *arg, const uint8_t *frame, size_t len, uint64_t time_ns);

/* Read every frame of a capture file (pcap or pcapng, Ethernet link type; "-" is standard input, read
 * through libpcap and closed at the end) and call fn for each, until the
 * end or until *stop becomes nonzero (stop may be NULL: to the end).  Returns 0 at the end of the file, 1
 * when *stop ended the reading first, or -1 with a message naming the file and the problem in err.
 * hw_pcap_read_file_with(HW_PCAP_READ_AUTO). */
int hw_pcap_read_file(const char *path, hw_frame_fn fn, void *arg, volatile int *stop, char *err, size_t errlen);

/* How a capture file is read. */
enum hw_pcap_read {
	/* A regular classic pcap file (2.4, Ethernet; hw_pcap_file_header) is read HW_PCAP_READ_CHUNK bytes
	 * at a time into one buffer and its frames handed on from there (lib/common/pcap_file.c: no copy per
	 * frame, a system call per chunk); anything else (pcapng, other link types or versions, named pipes)
	 * through libpcap.  The frames, their lengths and times, and where reading ends are the same either way. */
	HW_PCAP_READ_AUTO,
	HW_PCAP_READ_LIBPCAP, /* always libpcap */
	HW_PCAP_READ_DIRECT,  /* only the direct reader: -1 for a file it does not read (tests, benchmarks) */
};

/* What the direct reader asks read(2) for at a time: 1 MiB measured fastest of 64 KiB to 4 MiB
 * (docs/performance.md, round 15).  A record may span two chunks: it is moved to the front and read whole. */
#define HW_PCAP_READ_CHUNK ((size_t)1 << 20)

/* How a file was read (hw_pcap_read_file_with). */
struct hw_pcap_read_stats {
	int direct;      /* by the direct reader; 0: libpcap */
	uint64_t frames; /* handed to fn */
	uint64_t cut;    /* direct reader only: frames whose caplen was over the file's snaplen, handed on cut to it
	                  * (libpcap cuts them the same way without counting) */
};

/* hw_pcap_read_file, read as how says; *stats (may be NULL) says how it went, also on an error. */
int hw_pcap_read_file_with(const char *path, enum hw_pcap_read how, hw_frame_fn fn, void *arg, volatile int *stop,
                           struct hw_pcap_read_stats *stats, char *err, size_t errlen);

/* Called when a live capture has had no packet for a poll interval (100 ms). */
typedef void (*hw_idle_fn)(void *arg);

/* What a live capture calls and where it counts (hw_pcap_read_live). */
struct hw_pcap_live {
	const char *filter;       /* BPF filter applied in the kernel; NULL or "" = everything */
	hw_frame_fn frame;        /* every frame */
	hw_idle_fn idle;          /* no packet for 100 ms (may be NULL) */
	void (*ready)(void *arg); /* the capture is open and filtering (may be NULL) */
	void *arg;                /* passed to all three */
	volatile int *stop;       /* the capture ends when *stop becomes nonzero */
	/* pcap_stats(3) totals since the capture opened, stored about once a second while it runs (relaxed
	 * atomic stores, from the capture thread: never per packet) and at the end; either may be NULL */
	uint64_t *kernel_drops;    /* ps_drop: no room in the kernel's buffer */
	uint64_t *interface_drops; /* ps_ifdrop: dropped by the interface or its driver */
};

/* Capture live from an interface until *o->stop becomes nonzero: promiscuous, immediate delivery, the
 * filter applied in the kernel.  At the stop, the frames the kernel has already buffered for the capture
 * are read and handed on before it closes (bounded: HW_PCAP_DRAIN_FRAMES frames or HW_PCAP_DRAIN_MS, for
 * an interface that keeps receiving).  Returns 0, or -1 with a message naming the interface in err. */
#define HW_PCAP_DRAIN_FRAMES (1u << 20)
#define HW_PCAP_DRAIN_MS 2000u
int hw_pcap_read_live(const char *iface, const struct hw_pcap_live *o, char *err, size_t errlen);

/* True when path names an existing regular file or named pipe, or is "-" (standard input): a capture file
 * rather than an interface. */
int hw_pcap_is_file(const char *path);

#endif
