/* Reading packets with libpcap: capture files and live interfaces, one callback per frame.
 * The front end that lets hosts without DPDK-capable NICs run the same parser. */
#ifndef HOPWATCH_PCAP_INPUT_H
#define HOPWATCH_PCAP_INPUT_H

#include <stddef.h>
#include <stdint.h>

/* Called for every frame: bytes, captured length, capture time in ns since the epoch. */
typedef void (*hw_frame_fn)(void *arg, const uint8_t *frame, size_t len, uint64_t time_ns);

/* Read every frame of a capture file (pcap or pcapng, Ethernet link type) and call fn for each, until the
 * end or until *stop becomes nonzero (stop may be NULL: to the end).  Returns 0 at the end of the file, 1
 * when *stop ended the reading first, or -1 with a message naming the file and the problem in err. */
int hw_pcap_read_file(const char *path, hw_frame_fn fn, void *arg, volatile int *stop, char *err, size_t errlen);

/* Called when a live capture has had no packet for a poll interval (100 ms). */
typedef void (*hw_idle_fn)(void *arg);

/* Capture live from an interface until *stop becomes nonzero: promiscuous, immediate delivery,
 * the BPF filter applied in the kernel (NULL = everything); idle (may be NULL) runs whenever no
 * packet came for 100 ms.  Packets the kernel dropped are added to *kernel_drops at the end.
 * Returns 0, or -1 with a message naming the interface in err. */
int hw_pcap_read_live(const char *iface, const char *filter, hw_frame_fn fn, hw_idle_fn idle, void *arg,
                      volatile int *stop, uint64_t *kernel_drops, char *err, size_t errlen);

/* True when path names an existing regular file (a capture file rather than an interface). */
int hw_pcap_is_file(const char *path);

#endif
